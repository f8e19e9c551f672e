"""What a player can infer about the opponent's hidden pieces from public information alone.

The inputs are those of the paper's public-information planes (arXiv
version, supplementary Table 4): the opponent's unrevealed piece counts and
which of its pieces have moved.  A moved piece is neither a Bomb nor a Flag;
otherwise every consistent deployment of the unrevealed pieces is taken as
equally likely, which gives the closed forms of ``type_distributions``.

Battle arithmetic (``fight``) follows ``docs/rules.md``: higher rank wins,
equal ranks both die, the Spy beats the Marshal when it attacks, only a
Miner defuses a Bomb, the Flag loses to everything.
"""

from __future__ import annotations

import numpy as np

from ..game import Move
from ..game.pieces import BOMB, FLAG, MARSHAL, MINER, NUM_TYPES, SPY
from .view import PlayerView

IMMOVABLE = np.array([t in (FLAG, BOMB) for t in range(NUM_TYPES)])

#: Material value of each type, thesis seed Table 4.2 (Flag 2, Bomb 0.5, ..., Marshal 1).
PIECE_VALUE = np.array([2.0, 0.1, 0.1, 0.3, 0.3, 0.3, 0.5, 0.5, 0.8, 1.0, 1.0, 0.5])

#: What each type is worth in people's games, per variant: half the coefficients of a logistic regression of
#: winning on the material of the move decisions of Gravon games (``scripts/piece_values.py``: 1,470 decisive
#: Classic games of the shared months, 1,313 Barrage ones), so that ``tanh`` of a change of material is the change
#: of ``2 P(win) - 1`` the fit predicts from a level position.  The Flag is 0 (a game without it is over); a type
#: the variant lacks is 0.  Against the thesis's table, people value the Marshal 6.4 Sergeants (not 3.3) and a
#: Bomb a fifteenth of a Marshal (not a half); in Barrage a Scout three quarters of a Marshal.
PEOPLE_PIECE_VALUE = {
    "classic": np.array([0.000, 0.149, 0.069, 0.143, 0.141, 0.182, 0.212, 0.371, 0.649, 0.789, 0.909, 0.060]),
    "barrage": np.array([0.000, 0.233, 0.496, 0.311, 0.000, 0.000, 0.000, 0.000, 0.000, 0.565, 0.669, 0.067]),
}


def fight(attacker: int, defender: int) -> int:
    """+1 when ``attacker`` wins, 0 when both die, -1 when it loses (capturing the Flag is a win)."""
    if defender == FLAG:
        return 1
    if defender == BOMB:
        return 1 if attacker == MINER else -1
    if attacker == SPY and defender == MARSHAL:
        return 1
    return (attacker > defender) - (attacker < defender)


#: ``FIGHT[a, d]``: ``fight(a, d)`` for every pair of types.
FIGHT = np.array([[fight(a, d) for d in range(NUM_TYPES)] for a in range(NUM_TYPES)], dtype=np.int8)


def hidden_counts(view: PlayerView) -> np.ndarray:
    """``int64[12]``: the opponent's unrevealed pieces still on the board, by type.

    Raises:
        ValueError: if the view is inconsistent (more hidden pieces of a type than the army holds).
    """
    opp = 1 - view.player
    on_board = (view.owner == opp) & view.revealed
    revealed = np.bincount(view.types[on_board].astype(np.int64), minlength=NUM_TYPES)[:NUM_TYPES]
    counts = np.asarray(view.variant.piece_counts, dtype=np.int64) - revealed - view.taken()[opp]
    hidden = int(((view.owner == opp) & ~view.revealed).sum())
    if counts.min() < 0 or counts.sum() != hidden:
        raise ValueError(
            f"ply {view.ply}: public information is inconsistent: {hidden} hidden opponent pieces, "
            f"unrevealed counts {counts.tolist()}"
        )
    return counts


def type_distributions(view: PlayerView) -> np.ndarray:
    """``float64[100, 12]``: probability of each opponent type on each square, from public information.

    Revealed opponent pieces are certain; a hidden piece that has moved is
    one of the unrevealed movable pieces (weighted by their counts); a
    hidden unmoved piece is any unrevealed piece not needed on the moved
    squares, in expectation.  Rows of non-opponent squares are zero.
    """
    opp = 1 - view.player
    dist = np.zeros((100, NUM_TYPES))
    mine = view.owner == opp
    known = mine & view.revealed
    dist[np.flatnonzero(known), view.types[known].astype(np.int64)] = 1.0
    counts = hidden_counts(view).astype(np.float64)
    hid = mine & ~view.revealed
    moved = hid & view.moved
    still = hid & ~view.moved
    movable = np.where(IMMOVABLE, 0.0, counts)
    m, big_m, n_still = int(moved.sum()), movable.sum(), int(still.sum())
    if m:
        dist[moved] = movable / big_m
    if n_still:
        left = np.where(IMMOVABLE, counts, counts * (1.0 - m / big_m) if big_m else 0.0)
        dist[still] = left / n_still
    return dist


def fight_odds(attacker: int, dist: np.ndarray) -> tuple[float, float, float]:
    """``(win, tie, loss)`` probabilities of ``attacker`` against a defender of type distribution ``dist: float[12]``."""
    f = FIGHT[attacker]
    return float(dist[f > 0].sum()), float(dist[f == 0].sum()), float(dist[f < 0].sum())


def threat_odds(dist: np.ndarray, defender: int) -> float:
    """Probability that an opponent piece of type distribution ``dist`` beats ``defender`` when it attacks it."""
    return float(dist[(FIGHT[:, defender] > 0) & ~IMMOVABLE].sum())


def attack_odds(view: PlayerView, moves) -> dict[Move, np.ndarray]:
    """The public odds of the defender's type, ``float64[12]``, for each attack among ``moves`` (in their
    order): one-hot on a revealed piece's type, else the hidden piece's ``type_distributions`` row."""
    dist, out = None, {}
    for m in moves:
        if view.owner[m.to_sq] != 1 - view.player:
            continue
        if view.revealed[m.to_sq]:
            out[m] = np.eye(len(FIGHT))[int(view.types[m.to_sq])]
        else:
            dist = type_distributions(view) if dist is None else dist
            out[m] = dist[m.to_sq]
    return out
