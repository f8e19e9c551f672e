"""Flag raids: positions where one opponent piece runs at the agent's Flag, and whether the agent stops it.

A raid is a position with the agent to move and one hidden, moved opponent piece (the *raider*) that can
reach the agent's Flag before the agent's pieces drift back.  The raider's side plays ``raider_move``: the
raider's step along a shortest path to the Flag, knowing where it is, attacking whatever stands in the
way; the opponent's other pieces stand still.  The agent sees only its ``PlayerView``.  It *keeps its
Flag* when the Flag still stands after ``Raid.plies`` moves of both sides, or when the raider is gone or
stuck before.

``defence_exists`` proves, by exhaustive AND-OR search with every piece known, that the agent has a
defence against every line of the raider, so that a lost Flag is the agent's failure, not the position's.

The first raid is the position of a lost game against the Demon of Ignorance (issue "Win as DeepNash
won"): the raider is a Miner that walked down the b-file to a Flag in a corner behind two Bombs, with a
Captain following one square behind it and the other Captain at home.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..game import Game, Move, get_variant
from ..game import kernels as K
from ..game.codes import LAKE, owners, types
from ..game.diagram import format_diagram, parse_diagram
from ..game.pieces import BOMB, FLAG, MINER, NUM_TYPES, PIECE_NAMES
from ..game.squares import parse_square, square_name
from ..infostate.beliefs import fight
from ..infostate.view import PlayerView, push_recorded
from ..notation.record import GravonRecord
from ..notation.replay import replay
from ..testtime.flag_guard import MANHATTAN

#: The rules of every raid: no draw limits and no repetition rules, so that only the raid decides.
RAID_RULES = dict(max_moves=0, max_moves_without_attack=0, two_squares=False, more_squares=False)


@dataclass(frozen=True)
class Raid:
    """One raid position, Red (the agent) to move.

    Attributes:
        name: a short name.
        variant: ``classic`` or ``barrage`` (played with ``RAID_RULES``).
        diagram: the position (``game.diagram``), every piece hidden and unmoved unless listed below.
        raider: the square of the raider, a Blue piece.
        moved: squares of pieces that have moved (public), the raider always among them.
        revealed: squares of pieces whose type is public.
        plies: moves of both sides the Flag must survive.
        about: what the position asks of the agent.
        record: for a raid drawn from a game (``record_raid``), that game: ``played_to`` gives the position
            as it stood in the game, history and all, for a raider played by an agent (``play_raid``).
        ply: in ``record``, the ply of the position (the defender to move).
    """

    name: str
    variant: str
    diagram: str
    raider: str
    moved: tuple[str, ...]
    revealed: tuple[str, ...]
    plies: int
    about: str
    record: GravonRecord | None = None
    ply: int = 0

    def played_to(self) -> tuple[Game, tuple]:
        """The game of ``record`` after its first ``ply`` moves, under its own rules, and the ``MoveRecord``s of
        those moves.

        Raises:
            ValueError: a raid not drawn from a record.
        """
        if self.record is None:
            raise ValueError(f"raid {self.name} was not drawn from a record")
        final = replay(self.record)
        game = Game(final.variant, *final.setups)
        return game, tuple(push_recorded(game, move) for move in final.move_stack[:self.ply])

    def game(self) -> Game:
        """The position as a ``Game`` (Red to move).

        Raises:
            InvalidPositionError: the diagram cannot be read.
        """
        variant = get_variant(self.variant).with_rules(**RAID_RULES)
        red, blue = parse_diagram(self.diagram, variant)
        board = Game(variant, red, blue).state.board[0].copy()
        flags = np.zeros(100, np.uint8)
        for names, bit in ((self.revealed, 1), (self.moved + (self.raider,), 2)):
            for name in names:
                flags[parse_square(name)] |= bit
        return Game.from_state(variant, board, flags, turn=0)


RAIDS = (
    Raid("doi-b-file", "classic", """
        10 .. .. bB bF bB .. .. .. .. ..
         9 bB .. .. bB .. .. .. .. .. ..
         8 .. bB .. .. .. .. .. .. .. ..
         7 .. .. r6 .. .. .. .. .. .. ..
         6 .. b3 ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 .. .. .. bM .. .. .. .. .. ..
         3 .. .. .. b8 .. .. .. .. .. ..
         2 rB .. .. .. .. rB .. .. rB ..
         1 rF rB .. .. r6 r3 rB .. r3 ..
    """, "b6", moved=("c7", "d4", "d3"), revealed=("c10", "e10", "a9", "d9", "b8", "d4", "d3", "c7", "i2"),
         plies=24, about="the lost game against DoI: a Miner walks down the b-file to a1 behind its Bombs; the "
                         "Captain on e1 cuts it off with a move to spare, the one on c7 only follows it"),
    Raid("lieutenant-to-g1", "classic", """
        10 .. .. .. .. .. bB bF bB .. ..
         9 .. .. .. .. .. .. bB .. .. ..
         8 r8 .. .. .. .. .. .. .. .. ..
         7 .. .. .. .. bM .. .. .. .. ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. b5
         5 b2 .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 r7 .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 .. .. .. .. .. .. .. .. .. ..
         1 .. .. .. r2 r2 rB rF rB .. ..
    """, "j6", moved=("a8", "e7", "a5", "a4"), revealed=("e7", "a5", "a4"),
         plies=24, about="a Lieutenant, the last piece its side can move but the Marshal, runs at g1, whose one "
                         "open side is g2; only the Major on a4 beats it and has no move to spare, so taking the "
                         "Scout beside it loses the Flag"),
    Raid("miner-to-a1", "barrage", """
        10 .. .. .. .. .. .. .. .. bB bF
         9 .. .. .. .. .. .. .. .. .. b9
         8 .. .. .. .. rM .. .. .. .. ..
         7 .. .. .. .. .. .. .. .. .. ..
         6 .. b3 ~~ ~~ .. .. ~~ ~~ bM ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. r9 .. .. .. .. ..
         2 rB .. .. .. .. .. .. .. .. ..
         1 rF .. .. .. .. .. .. .. .. ..
    """, "b6", moved=("e8", "i6", "e3"), revealed=("i6", "e8"),
         plies=24, about="a Miner or the General (the agent cannot tell) runs at a1 past the Bomb on a2; the "
                         "General on e3 stops either with a move to spare"),
    Raid("general-to-j1", "barrage", """
        10 .. .. .. .. .. .. .. bB bF ..
         9 .. .. .. .. .. .. .. .. .. ..
         8 .. r9 .. .. .. .. .. .. .. ..
         7 .. .. .. bM .. .. .. .. .. b9
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 r3 .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 .. .. .. .. rM .. .. .. .. ..
         1 .. .. rB .. .. .. .. .. .. rF
    """, "j7", moved=("b8", "d7", "a4", "e2"), revealed=("d7", "b8"),
         plies=24, about="the General runs at j1, open on two sides; the Marshal on e2 stops it with a move to "
                         "spare"),
)


#: A raid drawn from a record (``record_raid``) starts when the raider last came within this many moves of
#: the Flag and stayed within it (``flag_guard.HORIZON``: the guard races raiders that near).
RECORD_STEPS = 8


def record_raid(record: GravonRecord, steps: int = RECORD_STEPS) -> Raid | None:
    """The raid of a game whose Flag was captured, from the loser's side, seen as Red: the position before the
    loser's move after which the capturing piece (the raider) stayed within ``steps`` moves of the Flag
    (``steps_to``) until it took it, every piece as it stood, moved and revealed as in the game.  The board is
    turned round (and the colours swapped) when the loser is Blue.  ``Raid.plies`` gives the raider four
    moves more than it needed.  ``None`` for a game that did not end with a Flag captured, or whose raider
    was never that near before its last move.

    Raises:
        RecordError, UnsupportedVariantError: the record does not replay (``notation.replay.replay``).
    """
    trace = _capture_trace(record)
    if trace is None:
        return None
    final, winner, positions, _, path = trace
    loser = 1 - winner
    last = len(final.move_stack) - 1
    rules = final.variant.with_rules(**RAID_RULES)
    start = left = None
    for ply in path[1:]:  # walk back while the raider stays near
        near = _steps_left(Game.from_state(rules, *positions[ply], turn=winner), final.move_stack[ply].from_sq)
        if not 0 <= near <= steps or ply == 0:
            break
        start, left = ply, near
    if start is None:
        return None
    board, flags = positions[start - 1]
    raider = final.move_stack[start].from_sq
    if loser == 1:  # seen from Blue: turn the board round, swap the colours
        board, flags, raider = board[::-1].copy(), flags[::-1].copy(), 99 - raider
        on = board > 0
        board[on] = np.where(owners(board[on]) == 0, board[on] + NUM_TYPES, board[on] - NUM_TYPES)
    names = [square_name(int(q)) for q in np.flatnonzero(board > 0)]
    name = f"{Path(record.source).stem or 'record'}-ply{start - 1}"
    return Raid(name, final.variant.name, format_diagram(board), square_name(raider),
                moved=tuple(n for n in names if flags[parse_square(n)] & K.MOVED),
                revealed=tuple(n for n in names if flags[parse_square(n)] & K.REVEALED),
                plies=2 * (left + 4),
                about=f"{record.source or 'a record'}, ply {start - 1}: a piece {left} moves from the Flag ran "
                      f"at it and took it {last + 1 - start} plies later", record=record, ply=start - 1)


def _capture_trace(record: GravonRecord) -> tuple[Game, int, list, list[int], list[int]] | None:
    """For a game that ended with a Flag captured: the replayed game, the winner, the board and flags before each
    ply, who moved at each ply, and the plies of the capturing piece's moves, last first; ``None`` for any other
    ending."""
    final = replay(record)
    out = final.outcome() if final.is_over() else None
    if out is None or out.winner is None or out.termination.name != "FLAG_CAPTURED":
        return None
    game = Game(final.variant, *final.setups)
    positions, turns = [], []  # before each ply: the engine's board and flags, and who moves
    for move in final.move_stack:
        positions.append((game.state.board[0].copy(), game.state.flags[0].copy()))
        turns.append(game.turn)
        game.push(move)
    last = len(final.move_stack) - 1
    sq, path = final.move_stack[last].from_sq, [last]
    for ply in range(last - 1, -1, -1):
        if turns[ply] == out.winner and final.move_stack[ply].to_sq == sq:
            path.append(ply)
            sq = final.move_stack[ply].from_sq
    return final, out.winner, positions, turns, path


@dataclass(frozen=True)
class LastDefence:
    """Where a lost Flag could last have been saved from the piece that took it (``last_defence``).

    Attributes:
        player: whose Flag was captured (0 Red, 1 Blue).
        ply: that player's last turn at which a defence against the capturing piece alone existed
            (``defence_exists``, every piece known, the raider given four moves more than it needed).
        move: what the player played there.
        kept: whether that move kept such a defence against every move of the raider.
        reply: the opponent's next move.
        what: what the reply did: ``"the raider's step"``, a battle (``"a Major took a Miner on f3"``) or
            another piece's move.
    """

    player: int
    ply: int
    move: Move
    kept: bool
    reply: Move
    what: str

    def describe(self) -> str:
        """One line: the last move that could have saved the Flag, and what broke the defence."""
        side = "Red" if self.player == 0 else "Blue"
        played = "kept the defence" if self.kept else "lost it"
        return (f"{side}'s Flag could last be saved at ply {self.ply} (against the capturing piece alone): "
                f"{self.move} {played}, then {self.reply}: {self.what}")

    def to_dict(self) -> dict:
        """The JSON values: ``player``, ``ply``, ``move`` and ``reply`` (as ``"e2-e3"``), ``kept``, ``what``."""
        return {"player": self.player, "ply": self.ply, "move": str(self.move), "kept": self.kept,
                "reply": str(self.reply), "what": self.what}


def last_defence(record: GravonRecord) -> LastDefence | None:
    """The loser's last turn, in a game whose Flag was captured, from which it could still stop the capturing
    piece alone (``defence_exists`` on each of its turns, from the capture back), whether its move there kept
    that defence, and what the opponent's next move did.  A defence that the next move breaks without the
    raider moving is a raid by more than one piece.  ``None`` for any other ending, or when no turn of the
    loser had such a defence.

    Raises:
        RecordError, UnsupportedVariantError: the record does not replay (``notation.replay.replay``).
    """
    trace = _capture_trace(record)
    if trace is None:
        return None
    final, winner, positions, turns, path = trace
    rules = final.variant.with_rules(**RAID_RULES)
    moves = final.move_stack
    raider_at, i = {}, 0  # the raider's square before each ply
    for ply in range(len(moves) - 1, -1, -1):
        if i + 1 < len(path) and ply == path[i + 1]:
            i += 1
        raider_at[ply] = moves[path[i]].from_sq
    for ply in range(len(moves) - 2, -1, -1):
        if turns[ply] == winner:
            continue
        game = Game.from_state(rules, *positions[ply], turn=1 - winner)
        left = _steps_left(game, raider_at[ply])
        if left >= 0 and not defence_exists(game, raider_at[ply], 2 * (left + 4)):
            continue
        reply = moves[ply + 1]
        board = positions[ply + 1][0]
        if reply.from_sq == raider_at[ply + 1]:
            what = "the raider's step"
        elif board[reply.to_sq] > 0:
            names = [PIECE_NAMES[int(types(board)[sq])] for sq in (reply.from_sq, reply.to_sq)]
            what = f"a {names[0]} attacked a {names[1]} on {square_name(reply.to_sq)}"
        else:
            what = "another piece's step"
        kept = _keeps(game, moves[ply], raider_at[ply], 2 * (max(left, 0) + 4))
        return LastDefence(1 - winner, ply, moves[ply], kept, reply, what)
    return None


def _keeps(game: Game, move: Move, raider: int, plies: int) -> bool:
    """Whether ``move`` keeps a defence against the raider on ``raider`` alone for ``plies`` moves of both sides."""
    after = _after(game, move)
    if after.is_over():
        return after.outcome().winner == game.turn
    piece = int(game.state.board[0, raider])
    if not _raider_at(after, raider, piece):
        return True
    for reply in (m for m in after.legal_moves() if m.from_sq == raider):
        child = _after(after, reply)
        if child.is_over():
            if child.outcome().winner != game.turn:
                return False
        elif not defence_exists(child, reply.to_sq, plies - 2):
            return False
    return True


def flag_square(game: Game, player: int) -> int:
    """The square of ``player``'s Flag.

    Raises:
        ValueError: ``player`` has no Flag on the board.
    """
    board = game.state.board[0]
    on = np.flatnonzero((owners(board) == player) & (types(board) == FLAG))
    if len(on) == 0:
        raise ValueError(f"player {player} has no Flag on the board")
    return int(on[0])


def steps_to(game: Game, target: int, player: int, miner: bool) -> np.ndarray:
    """``int64[100]``: rook steps from each square to ``target`` for a piece of ``player`` that goes through
    every square but lakes, its own side's pieces and, unless it is a ``miner``, the opponent's Bombs (it
    attacks what else stands in the way); -1 where it cannot get through, its own side's squares included."""
    board = game.state.board[0]
    kind, owner = types(board), owners(board)
    blocked = (board == LAKE) | ((board > 0) & (owner == player)) | (~miner & (board > 0) & (kind == BOMB))
    dist = np.full(100, -1, dtype=np.int64)
    dist[target] = 0
    queue = deque([target])
    while queue:
        sq = queue.popleft()
        row, col = divmod(sq, 10)
        for r, c in ((row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1)):
            nb = r * 10 + c
            if 0 <= r < 10 and 0 <= c < 10 and dist[nb] < 0 and not blocked[nb]:
                dist[nb] = dist[sq] + 1
                queue.append(nb)
    return dist


def raider_move(game: Game, raider: int) -> Move | None:
    """The raider's move: the legal move of the piece on ``raider`` that lands nearest the opponent's Flag
    (``steps_to``; the first in move order on a tie), or ``None`` when it has none."""
    dist = _raid_steps(game, raider)
    moves = [m for m in game.legal_moves() if m.from_sq == raider and dist[m.to_sq] >= 0]
    return min(moves, key=lambda m: dist[m.to_sq]) if moves else None


def _raid_steps(game: Game, raider: int) -> np.ndarray:
    """``steps_to`` the Flag of the raider's opponent, for the raider on ``raider``."""
    player = int(owners(game.state.board[0])[raider])
    return steps_to(game, flag_square(game, 1 - player), player, int(types(game.state.board[0])[raider]) == MINER)


def _steps_left(game: Game, raider: int) -> int:
    """The fewest moves the raider needs to take the Flag (``steps_to``), or -1 when it cannot."""
    dist = _raid_steps(game, raider)
    row, col = divmod(raider, 10)
    near = [dist[r * 10 + c] for r, c in ((row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1))
            if 0 <= r < 10 and 0 <= c < 10 and dist[r * 10 + c] >= 0]
    return 1 + min(near) if near else -1


def _raider_at(game: Game, sq: int, piece: int) -> bool:
    return int(game.state.board[0, sq]) == piece


def defence_exists(game: Game, raider: int, plies: int) -> bool:
    """Whether the player to move keeps its Flag for ``plies`` moves of both sides against every line of the
    raider (the piece on ``raider``), the raider's side moving the raider alone, with every piece known.

    An AND-OR search over the moves of the defender's pieces that beat or tie the raider (its other pieces
    stand still: a defence found so is one) and of the raider (every legal move of that piece), with a
    transposition table; a line succeeds when the raider is taken, has no move, or
    stands more steps from the Flag (``steps_to``) than it has moves left, and fails when the game ends with
    the raider's side winning.

    Raises:
        ValueError: no piece of the player not to move stands on ``raider``.
    """
    defender = game.turn
    piece = int(game.state.board[0, raider])
    if piece <= 0 or owners(game.state.board)[0, raider] != 1 - defender:
        raise ValueError(f"no raider of player {1 - defender} on {square_name(raider)}")
    raider_type = int(types(game.state.board)[0, raider])
    proven: dict[tuple, int] = {}  # the most plies a position is known to hold for
    refuted: dict[tuple, int] = {}  # the fewest plies a position is known to fall in

    def holds(g: Game, sq: int, left: int) -> bool:
        if g.is_over():
            return g.outcome().winner != 1 - defender
        if not _raider_at(g, sq, piece) or left == 0:
            return True
        raider_moves_left = (left + (g.turn == 1 - defender)) // 2
        if not 0 <= _steps_left(g, sq) <= raider_moves_left:
            return True
        key = (g.state.board[0].tobytes(), g.turn, sq)
        if proven.get(key, -1) >= left:
            return True
        if refuted.get(key, 1 << 30) <= left:
            return False
        if g.turn == defender:  # one defence is enough: the nearest to the raider first
            kind = types(g.state.board[0])
            moves = sorted((m for m in g.legal_moves() if fight(int(kind[m.from_sq]), raider_type) >= 0),
                           key=lambda m: (m.to_sq != sq, MANHATTAN[m.to_sq, sq]))
            ok = any(holds(_after(g, m), sq, left - 1) for m in moves)
        else:
            moves = [m for m in g.legal_moves() if m.from_sq == sq]
            ok = all(holds(_after(g, m), m.to_sq, left - 1) for m in moves)
        (proven if ok else refuted)[key] = left
        return ok

    return holds(game, raider, plies)


def _after(game: Game, move: Move) -> Game:
    child = game.copy()
    child.push(move)
    return child


@dataclass(frozen=True)
class RaidTry:
    """One try of an agent at a raid: ``kept`` whether its Flag survived, ``ending`` how the try ended
    (``raider taken``, ``raider stuck``, ``held`` for ``Raid.plies``, ``lost``, or ``won``), ``moves`` as played."""

    kept: bool
    ending: str
    moves: tuple[str, ...]


def run_raid(agent, raid: Raid, seed: int) -> RaidTry:
    """Play ``raid`` once: ``agent`` (reset as Red with ``seed``) against ``raider_move``."""
    game = raid.game()
    raider = parse_square(raid.raider)
    piece = int(game.state.board[0, raider])
    agent.reset(game.variant, 0, seed)
    history = []
    ending = "held"
    while game.ply < raid.plies and not game.is_over():
        if not _raider_at(game, raider, piece):
            ending = "raider taken"
            break
        if game.turn == 0:
            move = agent.act(PlayerView.of(game, 0, tuple(history)))
        else:
            move = raider_move(game, raider)
            if move is None:
                ending = "raider stuck"
                break
            raider = move.to_sq
        history.append(push_recorded(game, move))
    if game.is_over():
        ending = "lost" if game.outcome().winner == 1 else "won"
    return RaidTry(ending != "lost", ending, tuple(str(r.move) for r in history))


def play_raid(agent, raider, raid: Raid, seed: int, plies: int) -> RaidTry:
    """Play a raid drawn from a record (``Raid.played_to``) on from the game as it stood, history and all:
    ``agent`` keeps the loser's side, ``raider`` (an agent, not ``raider_move``) plays the side that took the
    Flag with every piece it has, under the record's rules, for ``plies`` moves of both sides.  The Flag is
    kept unless the raider's side takes it; the ending is ``held``, ``lost`` (the Flag taken), ``won`` or
    ``other ending`` (the game ended another way: no movable piece, a draw).

    Raises:
        ValueError: a raid not drawn from a record.
    """
    game, history = raid.played_to()
    defender = game.turn
    agent.reset(game.variant, defender, seed)
    raider.reset(game.variant, 1 - defender, seed)
    history = list(history)
    while game.ply < raid.ply + plies and not game.is_over():
        side = agent if game.turn == defender else raider
        history.append(push_recorded(game, side.act(PlayerView.of(game, game.turn, tuple(history)))))
    ending = "held"
    if game.is_over():
        out = game.outcome()
        ending = ("lost" if out.winner != defender else "won") if out.termination.name == "FLAG_CAPTURED" \
            else "won" if out.winner == defender else "other ending"
    return RaidTry(ending != "lost", ending, tuple(str(r.move) for r in history[raid.ply:]))


def raid_report(agent_spec: str, variant: str, tries: int, seed: int = 0, prove: bool = True,
                raids: list[Raid] | None = None, raider: str | None = None, plies: int = 60) -> dict:
    """Every raid of ``variant`` (``RAIDS``, or those of ``raids``), ``tries`` times each (seeds ``seed`` on),
    played by a fresh ``agent_spec`` against ``raider_move``, or with ``raider`` (an agent spec; raids drawn
    from records only) against that agent for ``plies`` moves (``play_raid``).

    Returns:
        ``{"agent", "variant", "tries", "raids": {name: {"kept", "tries", "endings": {ending: n},
        "defence_exists" (with ``prove``), "lost_seeds"}}, "kept", "played", "all_kept"}``.

    Raises:
        ValueError: ``variant`` has no raids, or ``tries`` is below 1; ``AgentSpecError`` for a bad spec.
    """
    from ..agents.registry import make_agent

    raids = [r for r in (RAIDS if raids is None else raids) if r.variant == variant]
    if not raids or tries < 1:
        raise ValueError(f"no {variant} raids, or tries {tries} below 1")
    if raider is not None and any(r.record is None for r in raids):
        raise ValueError("a raider agent plays only raids drawn from records (--records)")
    agent = make_agent(agent_spec)
    opponent = None if raider is None else make_agent(raider)
    out: dict = {"agent": agent_spec, "variant": variant, "tries": tries, "raids": {}}
    if raider is not None:
        out["raider"], out["plies"] = raider, plies
    for raid in raids:
        endings: dict[str, int] = {}
        lost = []
        for s in range(seed, seed + tries):
            result = run_raid(agent, raid, s) if opponent is None else play_raid(agent, opponent, raid, s, plies)
            endings[result.ending] = endings.get(result.ending, 0) + 1
            if not result.kept:
                lost.append(s)
        row = {"kept": tries - len(lost), "tries": tries, "endings": endings, "lost_seeds": lost}
        if prove:
            row["defence_exists"] = defence_exists(raid.game(), parse_square(raid.raider), raid.plies)
        out["raids"][raid.name] = row
    out["kept"] = sum(r["kept"] for r in out["raids"].values())
    out["played"] = tries * len(raids)
    out["all_kept"] = out["kept"] == out["played"]
    return out
