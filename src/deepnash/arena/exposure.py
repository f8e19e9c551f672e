"""How findable a player's Flag was: what a reasoning opponent's Flag inference made of it, move by move.

For a game whose Flag was captured, the raider's view before each of its moves is read as the sparring program
reads it (``infostate.tracking``: the types each piece can still be, and the Flag odds from where people hide it
and the Bombs revealed around it).  The Flag was *known* from the raider's first move after which the true Flag
stayed its likeliest piece until it fell: from then on, an opponent that reasons could walk straight at it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..game import Game
from ..game.pieces import FLAG
from ..infostate.tracking import flag_odds, possible_types
from ..infostate.view import PlayerView, push_recorded
from ..notation.gravon import GravonRecord
from ..notation.replay import replay


@dataclass(frozen=True)
class FlagExposure:
    """The raider's view of the captured Flag before each of its moves.

    Attributes:
        player: whose Flag was captured (0 Red, 1 Blue).
        flag: its square (absolute, 0-99).
        plies: ``int64[N]``, the plies at which the raider was to move.
        p_flag: ``float64[N]``, the raider's probability that the true Flag is the Flag (``tracking.flag_odds``).
        rank: ``int64[N]``, the true Flag's place among the raider's candidates (1: its likeliest piece).
        known_from: the first ply of ``plies`` from which ``rank`` is 1 to the end; ``None`` where it never is.
        captured_at: the ply of the capture.
    """

    player: int
    flag: int
    plies: np.ndarray
    p_flag: np.ndarray
    rank: np.ndarray
    known_from: int | None
    captured_at: int

    def describe(self) -> str:
        """One line: from which move on the raider could have known where the Flag was."""
        side = "Red" if self.player == 0 else "Blue"
        if self.known_from is None:
            return f"{side}'s Flag fell at ply {self.captured_at} while it was not the raider's likeliest piece"
        i = int(np.flatnonzero(self.plies == self.known_from)[0])
        return (f"{side}'s Flag could be known from ply {self.known_from} on (the raider's likeliest piece, "
                f"P = {self.p_flag[i]:.2f}), {self.captured_at - self.known_from} plies before it fell at ply "
                f"{self.captured_at}")

    def to_dict(self) -> dict:
        """The JSON values: ``player``, ``flag``, ``known_from``, ``captured_at`` and per raider move ``plies``,
        ``p_flag`` and ``rank``."""
        return {"player": self.player, "flag": self.flag, "known_from": self.known_from,
                "captured_at": self.captured_at, "plies": self.plies.tolist(),
                "p_flag": [round(float(p), 4) for p in self.p_flag], "rank": self.rank.tolist()}


def flag_exposure(record: GravonRecord) -> FlagExposure | None:
    """The ``FlagExposure`` of a game that ended with a Flag captured, ``None`` for any other ending.

    Raises:
        RecordError, UnsupportedVariantError: the record does not replay (``notation.replay.replay``).
    """
    final = replay(record)
    out = final.outcome() if final.is_over() else None
    if out is None or out.winner is None or out.termination.name != "FLAG_CAPTURED":
        return None
    raider, loser = out.winner, 1 - out.winner
    flag = int(np.flatnonzero(final.setups[loser] == FLAG)[0])
    game = Game(final.variant, *final.setups)  # ``replay`` checked the whole record; now step through it
    history, plies, p_flag, rank = [], [], [], []
    for ply, move in enumerate(final.move_stack):
        if game.turn == raider:
            view = PlayerView.of(game, raider, tuple(history))
            odds = flag_odds(view, possible_types(view))
            plies.append(ply)
            p_flag.append(odds[flag])
            rank.append(1 + int((odds > odds[flag]).sum()))
        history.append(push_recorded(game, move))
    plies_a, rank_a = np.array(plies, np.int64), np.array(rank, np.int64)
    last = np.flatnonzero(rank_a != 1)
    start = 0 if not len(last) else int(last[-1]) + 1
    known = int(plies_a[start]) if start < len(plies_a) else None
    return FlagExposure(loser, flag, plies_a, np.array(p_flag), rank_a, known, len(final.move_stack) - 1)
