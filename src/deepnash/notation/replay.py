"""Replaying Gravon records through the engine, under a chosen set of repetition rules."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..game import kernels as K
from ..game.errors import GameOverError, IllegalMoveError, InvalidSetupError, RecordError
from ..game.game import Game
from ..game.pieces import PLAYER_NAMES
from ..game.squares import square_name
from ..game.state import deployment, deployment_types
from ..game.variant import DUELL, VARIANTS, Variant
from .field import field_placements, parse_field
from .record import GravonRecord

#: Repetition-rule settings a record can be replayed under.
#: ``none``: no repetition rule (the default: a record is a record).
#: ``gravon``: two-squares with 5 back-and-forth moves allowed, and more-squares.  Gravon's server
#: stated "pieces cannot be moved back and forth between the same 2 squares in 5 consecutive turns";
#: these settings are the strictest of ours that every Classic and Barrage game of the 2014 archives obeys.
#: ``isf``: the ISF rules as ``docs/rules.md`` states them (two-squares with 3, more-squares).
REPETITION_RULES = {
    "none": {"two_squares": False, "more_squares": False},
    "gravon": {"two_squares": True, "two_squares_limit": 5, "more_squares": True},
    "isf": {"two_squares": True, "two_squares_limit": 3, "more_squares": True},
}


#: Gravon game types whose records replay, by their name in the records.
RECORD_VARIANTS = {**VARIANTS, "duell": DUELL}

#: Gravon game types that cannot replay, and why.
UNSUPPORTED = {
    "ultimate lightning": "its pieces also move diagonally (moves such as f9-g8), which the rules engine does not play",
    "classicfree": "each game brings its own army and places it anywhere on its side: no fixed variant to replay under",
}


class UnsupportedVariantError(RecordError):
    """A record of a Gravon game type the engine does not play (``ultimate lightning``, ``classicfree``, ...)."""


def record_variant(record: GravonRecord, rules: str = "none") -> Variant:
    """The engine's variant for a record's game type, with Gravon's draw rules.

    Gravon has neither of the paper's draw limits (2000 moves, 200 moves
    without an attack), so both are off; ``rules`` picks the repetition rules
    from ``REPETITION_RULES``.

    Raises:
        UnsupportedVariantError: a game type other than those of ``RECORD_VARIANTS`` (the message says why,
            for the types of ``UNSUPPORTED``).
        ValueError: an unknown ``rules`` name.
    """
    if rules not in REPETITION_RULES:
        raise ValueError(f"unknown repetition rules {rules!r}; known: {', '.join(REPETITION_RULES)}")
    v = RECORD_VARIANTS.get(record.variant.lower())
    if v is None:
        why = UNSUPPORTED.get(record.variant.lower(), "unknown to deepnash")
        raise UnsupportedVariantError(f"game type {record.variant!r} is not supported: {why}", file=record.source)
    return v.with_rules(max_moves=0, max_moves_without_attack=0, **REPETITION_RULES[rules])


def replay(record: GravonRecord, relax_repetition: bool = True, *, variant: Variant | None = None) -> Game:
    """Play a record's moves through the engine.

    Args:
        record: the game.
        relax_repetition: replay without the repetition rules (``"none"``) rather than
            the ISF ones (``"isf"``); see ``record_variant``.
        variant: play on exactly this variant instead (e.g. the one a game was exported from).

    Returns:
        The ``Game`` after the last move (its ``move_stack`` holds the record's moves).

    Raises:
        UnsupportedVariantError: an unsupported game type.
        RecordError: a setup that is not the variant's, or a move the engine
            rejects; the message names file, move number and why ("no piece on
            e5", "the game is already over", ...).
    """
    v = variant or record_variant(record, "none" if relax_repetition else "isf")
    try:
        board, placed = parse_field(record.field), field_placements(record.field)
    except ValueError as e:
        raise RecordError(f"bad field: {e}", file=record.source) from None
    if not np.array_equal(board == K.LAKE, v.lake_mask):
        raise RecordError(f"the field's lakes are not {v.name}'s", file=record.source)
    for p in (0, 1):
        zone = v.deploy_squares(p)
        outside = [square_name(sq) for sq in np.flatnonzero(placed[p] >= 0) if sq not in zone]
        if outside:
            where = ", ".join(outside)
            raise RecordError(f"{PLAYER_NAMES[p]} has pieces outside its zone: {where}", file=record.source)
        try:
            deployment(v, p, deployment_types(v, p, placed[p]))
        except InvalidSetupError as e:
            raise RecordError(str(e), file=record.source) from None
    game = Game(v, placed[0], placed[1])
    moves = np.array(record.moves, dtype=np.int16).reshape(-1, 2)
    s = game.state
    n = _play(s.board, s.flags, s.meta, s.hist, s.zob, s.chase, s.rules, moves)
    game.move_stack.extend(record.moves[:n])
    if n < len(moves):
        try:
            game.push(record.moves[n])  # raises, and says why
        except (IllegalMoveError, GameOverError) as e:
            reason = str(e).split(": ", 1)[-1] if str(e).startswith("move ") else str(e)
            raise RecordError(f"{PLAYER_NAMES[game.turn]}: {reason}", file=record.source, move=n + 1) from e
        raise AssertionError(f"the kernels rejected move {n + 1} that Game.push accepts")  # pragma: no cover
    return game


@njit(cache=True)
def _play(board, flags, meta, hist, zob, chase, rules, moves):
    """Apply ``moves: int16[N, 2]`` to game 0 while they are legal; return how many were applied."""
    for i in range(moves.shape[0]):
        if meta[0, K.M_DONE] != 0 or not K.is_legal(board, meta, hist, zob, chase, rules, 0, moves[i, 0], moves[i, 1]):
            return i
        K.apply_move(board, flags, meta, hist, zob, chase, rules, 0, moves[i, 0], moves[i, 1])
    return moves.shape[0]
