"""How the search scores a leaf it did not play to the end (``SearchConfig.leaf``), and its counters.

``leaf=material`` scores the material on the board, ``leaf=gain`` the material won since the root
(``material_difference``, with the pieces worth ``piece_values``); ``progress`` and ``gain`` also count how
near a draw limit the game is (``counter_nearness``), from when the player's nearest attack can land
(``attack_delay``, with ``SearchConfig.contempt``).  ``flag_approach`` measures how near the player's army is to
the opponent's Flag (``SearchConfig.approach``), and ``battle_scores`` a candidate's own battle as a material
leaf scores it (the control variate, ``SearchConfig.control_variate``).  ``search`` reads them; the functions
take complete (sampled) boards or public information, never the search's state.
"""

from __future__ import annotations

import numpy as np

from ..game import Move, Variant
from ..game import kernels as K
from ..game.codes import EMPTY, LAKE, owners, types
from ..game.pieces import BOMB, FLAG, MARSHAL, MINER
from ..infostate.beliefs import FIGHT, IMMOVABLE, PEOPLE_PIECE_VALUE, PIECE_VALUE, hidden_counts
from ..infostate.view import PlayerView
from .flag_guard import path_steps

#: The tables of what each piece is worth to the material leaves (``SearchConfig.piece_values``).
PIECE_VALUES = ("thesis", "people")


def piece_values(table: str, variant: Variant) -> np.ndarray:
    """``float64[12]``: what each type is worth in ``variant`` by ``table`` (one of ``PIECE_VALUES``).

    Raises:
        ValueError: ``people`` for a variant without a fit in ``beliefs.PEOPLE_PIECE_VALUE`` (the message
            says how to fit one).
    """
    if table == "thesis":
        return PIECE_VALUE
    if variant.name not in PEOPLE_PIECE_VALUE:
        raise ValueError(f"search piece_values=people: people's games give no values for variant {variant.name!r} "
                         f"(known: {', '.join(PEOPLE_PIECE_VALUE)}); fit them with scripts/piece_values.py, or "
                         f"use piece_values=thesis")
    return PEOPLE_PIECE_VALUE[variant.name]


def material_difference(boards: np.ndarray, player: int, worth: np.ndarray = PIECE_VALUE) -> np.ndarray:
    """``float64[N]``: ``player``'s piece values less the opponent's on complete boards ``int8[N, 100]``, each
    type worth ``worth[type]`` (``float[12]``; default the thesis's ``beliefs.PIECE_VALUE``)."""
    kind, owner = types(boards), owners(boards)
    on_square = np.where(kind >= 0, worth[np.clip(kind, 0, None)], 0.0)
    return (on_square * (owner == player)).sum(axis=1) - (on_square * (owner == 1 - player)).sum(axis=1)


def movable_squares(kind: np.ndarray, owner: np.ndarray, player) -> np.ndarray:
    """``bool``, shaped like ``kind`` and ``owner`` (``codes.types`` and ``codes.owners`` of complete boards): the
    squares of ``player``'s pieces that can move (not a Bomb or Flag); ``player`` an int, or an array that
    broadcasts against them (one player a board)."""
    return (owner == player) & (kind >= 0) & ~IMMOVABLE[np.clip(kind, 0, None)]


def movable_left(boards: np.ndarray, player: int) -> np.ndarray:
    """``bool[N]``: whether ``player`` has a piece that can move on complete boards ``int8[N, 100]``
    (``movable_squares``).  A player without one loses at its next turn (``Termination.NO_MOVES``), or draws if
    neither player has one (``BOTH_STUCK``)."""
    return movable_squares(types(boards), owners(boards), player).any(axis=1)


def draw_nearness(meta: np.ndarray, variant: Variant, delay: np.ndarray | int = 0) -> np.ndarray:
    """``float64[N]`` in [0, 1]: ``counter_nearness`` of each game's counters (``BatchState.meta`` rows
    ``int32[N, NUM_META]``)."""
    return counter_nearness(meta[:, K.M_SINCE_ATTACK], meta[:, K.M_PLY], variant, delay)


def counter_nearness(since_attack: np.ndarray | int, ply: np.ndarray | int, variant: Variant,
                     delay: np.ndarray | int = 0) -> np.ndarray:
    """``float64`` in [0, 1], shaped like the counters: how near a game is to a draw limit of ``variant``: the
    larger of its moves without an attack (``since_attack``), plus ``delay`` (plies), over
    ``max_moves_without_attack`` and its moves (``ply``) over ``max_moves`` (a limit of 0 counts as none)."""
    near = np.zeros(np.shape(since_attack))
    for counter, limit, extra in ((since_attack, variant.max_moves_without_attack, delay),
                                  (ply, variant.max_moves, 0)):
        if limit > 0:
            near = np.maximum(near, np.minimum((np.asarray(counter) + extra) / limit, 1.0))
    return near


def spared_squares(boards: np.ndarray, flags: np.ndarray | None, player: int, spare: int) -> np.ndarray:
    """``bool[N, 100]``: the squares of complete boards ``int8[N, 100]`` (``flags: uint8[N, 100]``,
    ``kernels.REVEALED`` and ``kernels.MOVED``) that ``SearchConfig.spare`` keeps ``player``'s pieces of rank
    ``spare`` and above from attacking (``candidates.spared_attacks``): the opponent's pieces that are hidden and
    have never moved, on boards where one of its Bombs is still hidden.  None with ``spare`` 0 or no ``flags``."""
    if not spare or flags is None:
        return np.zeros(boards.shape, bool)
    kind = types(boards)
    secret = (owners(boards) == 1 - player) & (kind >= 0) & ((flags & (K.REVEALED | K.MOVED)) == 0)
    hidden_bomb = (secret & (kind == BOMB)).any(axis=1)  # a Bomb never moves: hidden is secret
    return secret & hidden_bomb[:, None]


def spared_ranks(kind: np.ndarray, spare: int) -> np.ndarray:
    """``bool``, shaped like ``kind`` (piece types): the types ``SearchConfig.spare`` keeps off ``spared_squares``
    (on a view, ``candidates.spared_attacks``): ``spare`` to ``MARSHAL``; none with ``spare`` 0."""
    return (spare > 0) & (kind >= spare) & (kind <= MARSHAL)


#: What ``attack_delay`` answers when ``player`` has no attack that does not lose: past any draw limit.
NO_ATTACK = 10_000

#: The most rook steps ``attack_delay`` follows a path (an attack further away is as good as none).
ATTACK_HORIZON = 40


def attack_delay(boards: np.ndarray, to_move: np.ndarray, player: int, flags: np.ndarray | None = None,
                 spare: int = 0) -> np.ndarray:
    """``int64[N]``: plies before ``player`` can make an attack that does not lose, on complete boards
    ``int8[N, 100]`` with ``to_move: int[N]`` the player to move: ``2 (s - 1)``, plus 1 when the opponent
    moves first, for ``s`` the fewest rook steps from one of ``player``'s movable pieces to an opponent
    piece it beats or ties (``beliefs.FIGHT``), through empty squares and ``player``'s own movable pieces
    (lakes, Bombs, Flags and the opponent's other pieces are in the way; ``flag_guard.path_steps``):
    a Flag walled in by Bombs is no nearer than the Miner that must open it.  ``NO_ATTACK`` when there is
    none within ``ATTACK_HORIZON`` steps.

    With ``spare`` (a rank, ``SearchConfig.spare``) and the boards' ``flags: uint8[N, 100]``, the attacks
    ``candidates.spared_attacks`` keeps the player from do not count (``spared_squares``): a General the guard
    keeps beside unmoved pieces is no attack to come, and the pieces that may attack them must come nearer."""
    kind, owner = types(boards), owners(boards)
    k = np.clip(kind, 0, None).astype(np.int64)
    mine = movable_squares(kind, owner, player)
    theirs = (owner == 1 - player) & (kind >= 0)
    passable = (boards == EMPTY) | mine
    spared = spared_squares(boards, flags, player, spare)
    steps = np.full(len(boards), NO_ATTACK, dtype=np.int64)
    for t in np.unique(k[mine]):
        attackers = mine & (k == t)
        targets = theirs & (FIGHT[t][k] >= 0)
        if spared_ranks(t, spare):
            targets &= ~spared
        near = path_steps(passable, targets, ATTACK_HORIZON, wanted=attackers)
        reach = np.where(attackers & (near <= ATTACK_HORIZON), near, NO_ATTACK).min(axis=1)
        steps = np.minimum(steps, reach)
    return np.where(steps >= NO_ATTACK, NO_ATTACK, 2 * (steps - 1) + (np.asarray(to_move) != player))


#: The most rook steps ``flag_approach`` follows a path (further is as far).
APPROACH_HORIZON = 30


def flag_approach(boards: np.ndarray, player: int, flags: np.ndarray | None = None, spare: int = 0) -> np.ndarray:
    """``int64[N]``: the fewest rook steps any movable piece of ``player`` needs to reach the opponent's Flag
    on complete (sampled) boards ``int8[N, 100]`` (``flag_guard.path_steps``): lakes and ``player``'s own
    Bombs and Flag are in the way, the opponent's Bombs for all but a Miner (taking one is a step), the
    opponent's other pieces are stepped through as if taken, and stepping onto one of ``player``'s own movable
    pieces costs two steps, as it must first step aside (``path_steps``'s toll): a Miner boxed in by its own
    pieces comes nearer as they make way.  ``APPROACH_HORIZON + 1`` where none is that near, or the opponent
    has no Flag.  With ``spare`` and the boards' ``flags: uint8[N, 100]``, the pieces of rank ``spare`` and
    above do not step through the pieces ``spared_squares`` keeps them from attacking: a General walled out by
    unmoved pieces is no nearer the Flag behind them, and the pieces that may take them are what comes nearer."""
    kind, owner = types(boards), owners(boards)
    k = np.clip(kind, 0, None).astype(np.int64)
    mine = (owner == player) & (kind >= 0)
    movable = movable_squares(kind, owner, player)
    flag = (owner == 1 - player) & (kind == FLAG)
    open_sq = (boards != LAKE) & ~(mine & IMMOVABLE[k])
    their_bomb = (owner == 1 - player) & (kind == BOMB)
    far = APPROACH_HORIZON + 1
    steps = np.full(len(boards), far, dtype=np.int64)
    spared = spared_squares(boards, flags, player, spare)
    big = movable & spared_ranks(kind, spare)
    for runners, passable in ((movable, open_sq & ~their_bomb), (movable & (kind == MINER), open_sq)):
        for group, through, goal in ((runners & ~big, passable, flag),
                                     (runners & big, passable & ~spared, flag & ~spared)):
            if group.any():
                near = path_steps(through, goal, APPROACH_HORIZON, wanted=group, toll=movable)
                steps = np.minimum(steps, np.where(group, near, far).min(axis=1))
    return steps



def battle_scores(view: PlayerView, cands: list[Move], hidden: np.ndarray, worth: np.ndarray,
                  base: float) -> np.ndarray:
    """``float64[N, M]``: what each candidate's own battle scores on each determinisation ``hidden: int8[N, 100]``,
    as a material leaf scores it: 1 where it takes the Flag, else ``tanh(base + c)``, ``c`` the change of the
    material difference (pieces worth ``worth: float[12]``) and ``base`` the root's difference (0 for the
    ``gain`` leaf); 0 for a candidate that attacks no hidden piece, whose battle, if any, is the same on
    every sample.  The control variate of ``SearchConfig.control_variate``."""
    out = np.zeros((len(hidden), len(cands)))
    secret = (view.owner == 1 - view.player) & ~view.revealed
    for c, move in enumerate(cands):
        if secret[move.to_sq]:
            score = battle_score(int(view.types[move.from_sq]), worth, base)
            out[:, c] = score[hidden[:, move.to_sq].astype(np.int64)]
    return out


def battle_score(attacker: int, worth: np.ndarray, base: float = 0.0) -> np.ndarray:
    """``float64[12]``: what ``attacker``'s battle scores against each defender type, as a material leaf
    scores it: 1 for the Flag, else ``tanh(base + c)``, ``c`` the change of the material difference
    (pieces worth ``worth: float[12]``)."""
    result = FIGHT[attacker]
    change = np.where(result >= 0, worth, 0.0) - np.where(result <= 0, worth[attacker], 0.0)
    return np.where(np.arange(len(worth)) == FLAG, 1.0, np.tanh(base + change))


def public_lead(view: PlayerView, worth: np.ndarray) -> float:
    """The player's piece values less the opponent's (``worth: float[12]``), the same on every determinisation
    of ``view``: the opponent's hidden pieces are counted from ``beliefs.hidden_counts``."""
    me, opp = view.owner == view.player, view.owner == 1 - view.player
    return float(worth[view.types[me]].sum() - worth[view.types[opp & view.revealed]].sum()
                 - hidden_counts(view) @ worth)
