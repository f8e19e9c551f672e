"""Position strings: everything needed to continue a game, in one line of text.

Like chess's FEN, ten fields separated by single spaces::

    classic MBIIHBEDDE/.../AA__AA__AA/.../PUWQSPQUPS 0000000000/.../0000000000 r 0 0 -/- - - *

1. variant: its name (``classic``, ``barrage``), followed by ``[key=value,...]``
   for every rule setting that differs from that variant's own:
   ``max_moves``, ``max_moves_without_attack``, ``two_squares`` (0/1),
   ``two_squares_limit``, ``more_squares`` (0/1).  E.g.
   ``classic[two_squares=0,more_squares=0]``.
2. board: 10 ranks of 10 Gravon field letters (``notation.field``: ``A`` empty,
   ``_`` lake, Red ``B``..``M``, Blue ``N``..``Y``), rank 1 first, each rank
   from file ``a``, joined by ``/``.
3. flags: the same grid of digits 0..3, the kernels' bits of each piece:
   1 revealed (its type is public), 2 moved at least once; 0 on empty squares.
4. side to move: ``r`` or ``b``.
5. moves played so far, both players (the ply).
6. consecutive moves without an attack (the 200-move draw rule).
7. repetition history: each player's last moves, newest first, comma-separated,
   Red's then Blue's joined by ``/``; ``-`` for none (``kernels.HISTORY`` at most).
8. chase (more-squares rule): ``-`` when none runs, else
   ``<chaser r|b>:<square of the chasing piece>:<boards recorded>:<hashes>``, the
   hashes the 16-digit hex Zobrist keys of the boards seen during the chase in
   the kernels' ring order (``min(n, CHASE_CAPACITY)`` of them).
9. last move: ``-`` before the first move, else ``e4-e5`` plus, after an
   attack, ``:`` attacker and defender type (``PIECE_CHARS``) and the
   ``BattleResult`` code, e.g. ``e4-e5:3B1``.
10. result: ``*`` while the game goes on, else ``<termination>:<red|blue|draw>``
    with ``termination`` a ``Termination`` name in lower case, e.g. ``flag_captured:red``.

Sources: the state layout of ``game.kernels`` / ``game.state.BatchState``; the
rules in ``docs/rules.md``.
"""

from __future__ import annotations

import numpy as np

from ..game import kernels as K
from ..game.errors import InvalidMoveError, InvalidPositionError
from ..game.game import Game, Move, Outcome, Termination
from ..game.pieces import PIECE_CHARS
from ..game.squares import parse_square, square_name
from ..game.state import Chase, LastMove
from ..game.variant import VARIANTS, Variant
from .field import format_field, parse_field

RULE_KEYS = ("max_moves", "max_moves_without_attack", "two_squares", "two_squares_limit", "more_squares")
SIDES = "rb"
WINNERS = {"red": 0, "blue": 1, "draw": None}
WINNER_NAMES = {w: name for name, w in WINNERS.items()}
NUM_FIELDS = 10


def position_string(game: Game) -> str:
    """The position string of ``game`` (see the module docstring); ``game_from_position`` reads it back."""
    s = game.state
    meta = s.meta[0]
    grid = "".join(str(int(f)) for f in s.flags[0])
    fields = [
        _format_variant(game.variant),
        _rows(format_field(s.board[0])),
        _rows(grid),
        SIDES[int(meta[K.M_TO_MOVE])],
        str(int(meta[K.M_PLY])),
        str(int(meta[K.M_SINCE_ATTACK])),
        "/".join(_format_history(s.hist[0, p]) for p in (0, 1)),
        _format_chase(meta, s.chase[0]),
        _format_last(meta),
        result_string(game.outcome()),
    ]
    return " ".join(fields)


def game_from_position(text: str, variant: Variant | None = None) -> Game:
    """A ``Game`` that continues exactly where ``position_string`` left off.

    Args:
        text: a position string.
        variant: the variant to play on; needed when the string names a variant
            that is not built in (its rule overrides are applied on top).

    Returns:
        A ``Game`` with an empty ``move_stack``; ``setups`` holds the two
        placements when the position is a start position (ply 0), else ``None``.
        An ongoing position whose side to move has no legal move ends at once,
        as it would in play.

    Raises:
        InvalidPositionError: a malformed field or an impossible state; the
            message names the field.
    """
    fields = text.split()
    if len(fields) != NUM_FIELDS:
        raise InvalidPositionError(f"a position has {NUM_FIELDS} space-separated fields, got {len(fields)}")
    v = _parse_variant(fields[0], variant)
    try:
        board = parse_field(_grid(fields[1], "field 2 (board)"))
    except ValueError as e:
        raise InvalidPositionError(f"field 2 (board): {e}") from None
    try:
        g = Game.from_state(
            v, board, _parse_flags(fields[2]), turn=_parse_side(fields[3], "side to move"),
            ply=_parse_count(fields[4], "ply"), moves_since_attack=_parse_count(fields[5], "moves without an attack"),
            history=_parse_history(fields[6]), chase=_parse_chase(fields[7]), last_move=_parse_last(fields[8]),
            outcome=_parse_result(fields[9]),
        )
    except InvalidPositionError as e:
        part, _, why = str(e).partition(": ")
        raise InvalidPositionError(f"{_FIELD_OF_PART.get(part, part)}: {why}") from None
    return g


#: ``BatchState.load``'s name of a part -> the field of the position string that holds it.
_FIELD_OF_PART = {"board": "field 2 (board)", "flags": "field 3 (flags)", "counters": "field 6",
                  "history": "field 7 (history)", "chase": "field 8 (chase)"}


# -- variant -------------------------------------------------------------------
def _format_variant(v: Variant) -> str:
    base = VARIANTS.get(v.name) or Variant(v.name)
    diff = [f"{k}={int(getattr(v, k))}" for k in RULE_KEYS if getattr(v, k) != getattr(base, k)]
    return v.name + (f"[{','.join(diff)}]" if diff else "")


def _parse_variant(text: str, variant: Variant | None) -> Variant:
    name, _, rest = text.partition("[")
    if variant is None:
        if name.lower() not in VARIANTS:
            raise InvalidPositionError(f"field 1: unknown variant {name!r}; pass variant= to read it")
        variant = VARIANTS[name.lower()]
    if not rest:
        return variant
    if not rest.endswith("]"):
        raise InvalidPositionError(f"field 1: {text!r} lacks the closing ']'")
    changes = {}
    for item in rest[:-1].split(","):
        key, _, value = item.partition("=")
        if key not in RULE_KEYS or not value.isdigit():
            raise InvalidPositionError(f"field 1: {item!r} is not one of {', '.join(RULE_KEYS)} = a number")
        changes[key] = bool(int(value)) if key in ("two_squares", "more_squares") else int(value)
    try:
        return variant.with_rules(**changes)
    except ValueError as e:
        raise InvalidPositionError(f"field 1: {e}") from None


# -- board and flags -------------------------------------------------------------
def _rows(cells: str) -> str:
    return "/".join(cells[i : i + 10] for i in range(0, 100, 10))


def _grid(text: str, what: str) -> str:
    rows = text.split("/")
    if len(rows) != 10 or any(len(r) != 10 for r in rows):
        raise InvalidPositionError(f"{what}: expected 10 ranks of 10 characters joined by '/', got {text!r}")
    return "".join(rows)


def _parse_flags(text: str) -> np.ndarray:
    cells = _grid(text, "field 3 (flags)")
    for sq, ch in enumerate(cells):
        if ch not in "0123":
            raise InvalidPositionError(f"field 3 (flags): {ch!r} at {square_name(sq)} is not a digit 0..3")
    return np.array([int(ch) for ch in cells], dtype=np.uint8)


# -- counters, history, chase ------------------------------------------------------
def _parse_side(text: str, what: str) -> int:
    if text not in ("r", "b"):
        raise InvalidPositionError(f"{what}: {text!r} is neither 'r' (Red) nor 'b' (Blue)")
    return SIDES.index(text)


def _parse_count(text: str, what: str) -> int:
    if not text.isdigit():
        raise InvalidPositionError(f"{what}: {text!r} is not a non-negative integer")
    return int(text)


def _parse_move(text: str, what: str) -> Move:
    try:
        return Move.parse(text)
    except InvalidMoveError as e:
        raise InvalidPositionError(f"{what}: {e}") from None


def _format_history(hist: np.ndarray) -> str:
    moves = [str(Move(int(f), int(t))) for f, t in hist if f >= 0]
    return ",".join(moves) or "-"


def _parse_history(text: str) -> np.ndarray:
    players = text.split("/")
    if len(players) != 2:
        raise InvalidPositionError(f"field 7 (history): expected Red's and Blue's moves joined by '/', got {text!r}")
    hist = np.full((2, K.HISTORY, 2), -1, dtype=np.int8)
    for p, part in enumerate(players):
        moves = [] if part == "-" else part.split(",")
        if len(moves) > K.HISTORY:
            raise InvalidPositionError(f"field 7 (history): {len(moves)} moves for one player, at most {K.HISTORY}")
        for k, m in enumerate(moves):
            hist[p, k] = _parse_move(m, "field 7 (history)")
    return hist


def _format_chase(meta: np.ndarray, chase: np.ndarray) -> str:
    if not meta[K.M_CHASE]:
        return "-"
    n = int(meta[K.M_CHASE_N])
    keys = ",".join(f"{int(h):016x}" for h in chase[: min(n, K.CHASE_CAPACITY)])
    return f"{SIDES[int(meta[K.M_CHASER])]}:{square_name(int(meta[K.M_CHASE_SQ]))}:{n}:{keys}"


def _parse_chase(text: str) -> Chase | None:
    if text == "-":
        return None
    parts = text.split(":")
    if len(parts) != 4:
        raise InvalidPositionError(f"field 8 (chase): expected chaser:square:count:hashes, got {text!r}")
    chaser = _parse_side(parts[0], "field 8 (chase)")
    try:
        square = parse_square(parts[1])
    except InvalidMoveError as e:
        raise InvalidPositionError(f"field 8 (chase): {e}") from None
    n = _parse_count(parts[2], "field 8 (chase)")
    keys = parts[3].split(",")
    for i, h in enumerate(keys):
        if len(h) != 16 or any(c not in "0123456789abcdef" for c in h):
            raise InvalidPositionError(f"field 8 (chase): hash {i + 1} ({h!r}) is not 16 hex digits")
    return Chase(chaser, square, n, [int(h, 16) for h in keys])


# -- last move, result -----------------------------------------------------------
def _format_last(meta: np.ndarray) -> str:
    if meta[K.M_LAST_FROM] < 0:
        return "-"
    text = str(Move(int(meta[K.M_LAST_FROM]), int(meta[K.M_LAST_TO])))
    if meta[K.M_LAST_ATTACKER] >= 0:
        a, d = PIECE_CHARS[meta[K.M_LAST_ATTACKER]], PIECE_CHARS[meta[K.M_LAST_DEFENDER]]
        text += f":{a}{d}{int(meta[K.M_LAST_RESULT])}"
    return text


def _parse_last(text: str) -> LastMove | None:
    if text == "-":
        return None
    move, _, battle = text.partition(":")
    m = _parse_move(move, "field 9 (last move)")
    if not battle:
        return LastMove(m.from_sq, m.to_sq)
    if len(battle) != 3 or battle[0] not in PIECE_CHARS or battle[1] not in PIECE_CHARS or battle[2] not in "1234":
        raise InvalidPositionError(f"field 9 (last move): {battle!r} is not attacker, defender, result (e.g. 3B1)")
    return LastMove(m.from_sq, m.to_sq, PIECE_CHARS.index(battle[0]), PIECE_CHARS.index(battle[1]), int(battle[2]))


def result_string(outcome: Outcome | None) -> str:
    """Field 10 of a position string: ``*`` for ``None`` (ongoing), else e.g. ``flag_captured:red``."""
    if outcome is None:
        return "*"
    return f"{outcome.termination.name.lower()}:{WINNER_NAMES[outcome.winner]}"


def _parse_result(text: str) -> Outcome | None:
    """The outcome field 10 records (``None``: the game goes on)."""
    if text == "*":
        return None
    term, _, who = text.partition(":")
    if term.upper() not in Termination.__members__ or who not in WINNERS:
        raise InvalidPositionError(f"field 10 (result): {text!r} is not '*' or termination:red|blue|draw")
    termination, winner = Termination[term.upper()], WINNERS[who]
    if (winner is None) != (termination in (Termination.BOTH_STUCK, Termination.MOVE_LIMIT,
                                              Termination.NO_ATTACK_LIMIT)):
        raise InvalidPositionError(f"field 10 (result): {termination.name.lower()} cannot end with {who}")
    return Outcome(termination, winner)
