"""Piece tracking and Flag inference: what public information says of each hidden opponent piece.

The classic Stratego programs kept, for every opponent piece, the set of types it can still be, and
guessed the Flag from where people hide it.  Here both are read from a ``PlayerView`` alone:

* The view's flags already carry each piece's own history: a piece that has moved (``view.moved``)
  is neither Bomb nor Flag; one that moved more than one square in a line is a Scout and one that
  survived a battle shows its type (the engine reveals both, ``game.kernels``); the battles' losers
  are counted in ``view.taken()``.  ``possible_types`` joins these facts to the exact counts left
  (``beliefs.hidden_counts``) and propagates them to a fixpoint: a type is possible for a piece only
  if some assignment of the hidden pieces that respects every count gives it that type (Hall's
  condition on pieces and types), so "all N of a type are accounted for" and "these k pieces must
  be the k immovable pieces left" both follow.
* ``flag_odds`` weighs each unmoved hidden piece by where people put their Flag
  (``setup_stats.deployment_weights``, the square's row and file in the Gravon setups) and by the
  revealed Bombs around it, scaled by how much likelier a Flag is beside a Bomb in those setups
  (``bomb_lift``).
* ``type_odds`` is a distribution over types for every hidden piece whose rows sum to 1 and whose
  columns sum to the counts left, zero where ``possible_types`` rules a type out: the public
  uniform belief tilted by the setup statistics and the Flag odds, balanced by iterative
  proportional fitting (Sinkhorn).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..game import Variant
from ..game import kernels as K
from ..game.pieces import BOMB, FLAG, NUM_TYPES
from .beliefs import IMMOVABLE, hidden_counts
from .setup_stats import deployment_weights
from .view import PlayerView

#: Balancing sweeps of ``type_odds`` (rows, then columns) stop once every column is within this of its count.
SINKHORN_TOL = 1e-9
#: At most this many sweeps: most positions balance in a few dozen, a nearly degenerate one (a Flag column
#: almost all on one piece) in a few hundred.
SINKHORN_SWEEPS = 1000


def _hall_feasible(sizes: np.ndarray, masks: np.ndarray, counts: np.ndarray, subsets: np.ndarray) -> bool:
    """Whether ``sizes[k]`` pieces of each class ``k`` (allowed types ``masks[k]``, a 12-bit int) can take
    exactly ``counts[t]`` pieces of each type: every set of types needs at least as many pieces that can
    take one of them (Hall's condition, with ``subsets`` the bit sets over the types left)."""
    if sizes.min() < 0 or counts.min() < 0:
        return False
    need = ((subsets[:, None] >> np.arange(NUM_TYPES)) & 1) @ counts
    cover = ((subsets[:, None] & masks[None, :]) != 0) @ sizes
    return bool(np.all(need <= cover))


def possible_types(view: PlayerView, exclude: np.ndarray | None = None) -> np.ndarray:
    """``bool[100, 12]``: the types each opponent piece can be, given public information only.

    A revealed piece has its type.  A hidden piece may be type ``t`` exactly when some assignment of
    the hidden pieces gives it ``t`` while every hidden piece gets a type allowed to it (movable types
    only once it has moved, none of ``exclude``) and each type is used as often as the opponent has
    it unrevealed (``beliefs.hidden_counts``).  Rows of squares without an opponent piece are False.

    Args:
        view: the player's view.
        exclude: optional ``bool[100, 12]``: types ruled out on some squares by other reasoning; taken
            as facts (unlike ``determinize.sample_hidden``, where they are soft).

    Raises:
        ValueError: inconsistent public information (``beliefs.hidden_counts``), ``exclude`` of the
            wrong shape, or exclusions that leave no consistent assignment.
    """
    if exclude is not None and np.shape(exclude) != (100, NUM_TYPES):
        raise ValueError(f"exclude must be bool[100, 12], got shape {np.shape(exclude)}")
    opp = 1 - view.player
    counts = hidden_counts(view)
    out = np.zeros((100, NUM_TYPES), bool)
    known = (view.owner == opp) & view.revealed
    out[np.flatnonzero(known), view.types[known].astype(np.int64)] = True
    hidden = np.flatnonzero((view.owner == opp) & ~view.revealed)
    if len(hidden) == 0:
        return out
    allowed = np.tile(counts > 0, (len(hidden), 1))
    allowed[view.moved[hidden]] &= ~IMMOVABLE
    if exclude is not None:
        allowed &= ~np.asarray(exclude, bool)[hidden]
    bits = allowed @ (1 << np.arange(NUM_TYPES))
    masks, cls, sizes = np.unique(bits, return_inverse=True, return_counts=True)
    left = np.flatnonzero(counts > 0)
    chosen = (np.arange(1, 1 << len(left))[:, None] >> np.arange(len(left))) & 1
    subsets = chosen @ (np.int64(1) << left)
    if not _hall_feasible(sizes, masks, counts, subsets):
        raise ValueError(f"ply {view.ply}: no assignment of the hidden pieces fits the counts {counts.tolist()}")
    ok = np.zeros((len(masks), NUM_TYPES), bool)
    for k, mask in enumerate(masks):
        for t in left:
            if mask >> t & 1:
                one_less = np.eye(NUM_TYPES, dtype=counts.dtype)[t]
                ok[k, t] = _hall_feasible(sizes - (np.arange(len(sizes)) == k), masks, counts - one_less, subsets)
    out[hidden] = ok[cls.ravel()]
    return out


@lru_cache(maxsize=8)
def bomb_lift(variant: Variant) -> float:
    """How many times likelier a square of the deployment zone holds the Flag when a Bomb stands next
    to it, in the setups people deployed (``env.setups.human_pool``): P(Flag | a Bomb beside) /
    P(Flag | no Bomb beside).  1.0 when the variant has no human setups or no Bombs."""
    from ..env.setups import human_pool

    try:
        setups = human_pool(variant).setups
    except ValueError:
        return 1.0
    flag = setups == FLAG
    bomb = setups == BOMB
    beside = np.zeros_like(bomb)
    for d in range(4):
        nb = K.NEIGHBOUR[:, d]
        beside[:, nb >= 0] |= bomb[:, nb[nb >= 0]]
    zone = np.asarray(variant.deploy_squares(0))
    flag, beside = flag[:, zone], beside[:, zone]
    with_bomb, without = flag[beside].mean() if beside.any() else 0.0, flag[~beside].mean()
    return float(with_bomb / without) if with_bomb > 0 and without > 0 else 1.0


def bomb_squares(view: PlayerView) -> np.ndarray:
    """``bool[100]``: squares where an opponent Bomb is public: revealed on the board, or removed by a
    Miner's attack (the square a Bomb stood on tells where its owner walled something in)."""
    opp = 1 - view.player
    out = (view.owner == opp) & view.revealed & (view.types == BOMB)
    for r in view.history:
        if r.player == view.player and r.defender == BOMB:
            out[r.move.to_sq] = True
    return out


def flag_odds(view: PlayerView, possible: np.ndarray) -> np.ndarray:
    """``float64[100]``: the probability that each opponent piece is the Flag (sums to 1; one-hot on a
    revealed Flag; all 0 once the Flag has been taken and the game is over).

    Each piece that can still be the Flag (``possible[:, FLAG]``, from ``possible_types``) gets the
    weight of its square in people's setups (``setup_stats.deployment_weights``, 1 where there are
    none), times ``bomb_lift`` for each public Bomb next to it (``bomb_squares``).

    Raises:
        ValueError: ``possible`` leaves no piece that can be the Flag.
    """
    can = possible[:, FLAG].astype(np.float64)
    if view.taken()[1 - view.player, FLAG]:
        return np.zeros(100)
    if can.sum() == 0:
        raise ValueError(f"ply {view.ply}: no opponent piece can be the Flag")
    weights = deployment_weights(view.variant, 1 - view.player)
    w = can * (weights[:, FLAG] if weights is not None else 1.0)
    bombs = bomb_squares(view)
    lift = bomb_lift(view.variant)
    beside = np.zeros(100)
    for d in range(4):
        nb = K.NEIGHBOUR[:, d]
        beside[nb >= 0] += bombs[nb[nb >= 0]]
    w = w * lift ** beside
    return w / w.sum()


def prior_flag_odds(view: PlayerView, possible: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """``float64[100]``: the Flag odds a distribution over types gives (``prior: float64[100, 12]``, for
    instance a belief network's marginals): its Flag column on the pieces that can still be the Flag
    (``possible[:, FLAG]``), normalised; ``flag_odds`` where it gives those pieces no weight."""
    w = np.where(possible[:, FLAG], prior[:, FLAG], 0.0)
    return w / w.sum() if w.sum() > 0 else flag_odds(view, possible)


def type_odds(view: PlayerView, possible: np.ndarray, flag: np.ndarray, prior: np.ndarray | None = None) -> np.ndarray:
    """``float64[100, 12]``: a distribution over the types of every opponent piece (one-hot on revealed
    ones, zero rows elsewhere).

    Hidden rows start from ``prior`` (``float64[100, 12]``, for instance a belief network's marginals) or,
    without one, from people's setup statistics on unmoved pieces (``deployment_weights``, 1 on moved
    pieces); zero where ``possible`` rules a type out, with the Flag column set to ``flag``
    (``flag_odds``); then rows are scaled to sum to 1 and columns to the counts left
    (``beliefs.hidden_counts``), in turn, until the columns are within ``SINKHORN_TOL`` of the counts (at most
    ``SINKHORN_SWEEPS`` times).
    """
    opp = 1 - view.player
    out = np.where(possible, 1.0, 0.0)
    hidden = (view.owner == opp) & ~view.revealed
    if not hidden.any():
        return out
    p = np.where(possible[hidden], 1.0, 0.0)
    if prior is not None:
        p *= prior[hidden]
    else:
        weights = deployment_weights(view.variant, opp)
        still = ~view.moved[hidden]
        if weights is not None:
            p[still] *= weights[hidden][still]
    p[:, FLAG] = flag[hidden]
    counts = hidden_counts(view).astype(np.float64)
    for _ in range(SINKHORN_SWEEPS):
        p /= np.maximum(p.sum(axis=1, keepdims=True), 1e-300)
        col = p.sum(axis=0)
        if np.abs(col - counts).max() <= SINKHORN_TOL:
            break
        p *= np.divide(counts, col, out=np.zeros_like(col), where=col > 0)
    p /= np.maximum(p.sum(axis=1, keepdims=True), 1e-300)
    out[hidden] = p
    return out
