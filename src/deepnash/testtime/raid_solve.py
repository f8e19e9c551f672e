"""Races to the Flag solved exactly: retrograde analysis of one raider against the pieces that stop it.

``flag_guard`` counts a race in steps: the raider's to an entry of the Flag against a defender's to that
entry.  The count misses what decides many raids: a defender whose only way to the entry is the square the
raider comes from, a raider that walks through the player's Scout standing in its path, a defender that
cuts the raider off on its way rather than waiting at the entry.  Here a raid is solved as a game, by
retrograde analysis over every position of the raider and of one defender, in a model that keeps the
board as it is:

* the *raider*, one opponent piece raced as one type, moves one square a turn (a Scout runs any number of
  empty squares in a straight line): onto an empty square, onto a piece of the player's it beats when it
  attacks (a Miner takes Bombs, Scouts and the Spy), or onto the player's Flag, which loses the raid;
* the player's *stoppers* are its movable pieces that beat or tie the raider when they attack it
  (``beliefs.FIGHT``); the raider never attacks one, and on the player's turn a stopper next to it takes it;
* one stopper at a time, the *defender*, moves one square a turn onto empty squares (none next to a revealed
  opponent piece that would take it there); the other stoppers stand where they are, and so does every
  other piece of both sides; the player may also move a piece that does not matter (a pass).

A raid is *forced* when the raider takes the Flag within ``HORIZON`` of its moves whatever the player does.
A defence with one defender is a defence; one that needs two stoppers moving together is missed, so
"forced" errs on the side of danger.  ``unguarding_moves`` uses it for ``SearchConfig.hold``: it races,
on public information, every hidden opponent piece as a Miner where it may be one (else as the weakest type
it may be), as the strongest type it is at least a quarter of the time, and as a Scout where it may be one,
every revealed movable piece as what it is, and drops the moves after which more raids are forced than after
the best move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..game import Move
from ..game import kernels as K
from ..game.pieces import FLAG, MINER, NUM_TYPES, SCOUT
from ..infostate.beliefs import FIGHT, IMMOVABLE, attack_odds, fight_odds, type_distributions
from ..infostate.view import UNKNOWN, PlayerView
from .flag_guard import MANHATTAN

#: Raider moves within which a raid counts (``forced_raids``).
HORIZON = 10
#: A Scout's runs within which its raid counts: one crosses the board in two.
SCOUT_HORIZON = 4

_NB = K.NEIGHBOUR  # [100, 4], -1 off the board
_NB0 = np.maximum(_NB, 0)
_ON = _NB >= 0
#: ``ADJACENT[a, b]``: squares ``a`` and ``b`` are next to each other.
ADJACENT = MANHATTAN == 1


def solve_static(passable: np.ndarray, caught: np.ndarray, goal: np.ndarray, horizon: int = HORIZON,
                 through: np.ndarray | None = None) -> np.ndarray:
    """``bool[B, 100]``: from which squares the raider, to move, takes the Flag within ``horizon`` moves when
    every stopper stands still, in ``B`` raids at once.

    Args:
        passable: ``bool[B, 100]``, the squares the raider may move onto (the goal among them).
        caught: ``bool[B, 100]``, the squares where a stopper takes the raider on the player's turn.
        goal: ``int64[B]``, the Flag's square.
        through: ``bool[B, 100]``, for a Scout, the squares it may run across in a straight line (the empty
            ones); ``None`` for a raider that moves one square a turn.
    """
    passable, caught = np.asarray(passable, bool), np.asarray(caught, bool)
    to = _targets(np.ascontiguousarray(passable), _through(passable, through), through is not None, _NB)
    b = np.arange(len(passable))[:, None, None]
    ok, to = to >= 0, np.maximum(to, 0)
    wins = ok & (to == np.asarray(goal)[:, None, None])
    ours = np.zeros(passable.shape, dtype=bool)  # the player to move, the raid is forced
    theirs = ours
    for _ in range(horizon):
        theirs = (wins | (ok & ours[b, to])).any(axis=2)
        ours = theirs & ~caught
    return theirs


def _through(passable: np.ndarray, through: np.ndarray | None) -> np.ndarray:
    """``through`` as a contiguous ``bool[B, 100]`` (all False for a raider that moves one square a turn)."""
    return np.zeros(passable.shape, dtype=np.bool_) if through is None else np.ascontiguousarray(through, np.bool_)


@njit(cache=True)
def _targets(passable, through, scout, nb):  # pragma: no cover - compiled
    """``int64[B, 100, K]``: ``[b, r]``, the squares the raider on ``r`` may move to in one move, -1 after the
    last (``K`` 4 for a raider that steps, 18 for a Scout, which runs)."""
    n = passable.shape[0]
    out = np.full((n, 100, 18 if scout else 4), -1, dtype=np.int64)
    for b in range(n):
        for r in range(100):
            i = 0
            for k in range(4):
                s = nb[r, k]
                while s >= 0 and passable[b, s]:
                    out[b, r, i] = s
                    i += 1
                    if not (scout and through[b, s]):
                        break
                    s = nb[s, k]
    return out


def solve_dynamic(passable: np.ndarray, caught: np.ndarray, free: np.ndarray, goal: np.ndarray,
                  raider: np.ndarray, defender: np.ndarray, horizon: int = HORIZON,
                  through: np.ndarray | None = None) -> np.ndarray:
    """``bool[B, 100, 100]``: ``[b, r, d]``, the raider on ``r``, to move, takes the Flag within ``horizon``
    moves against the defender on ``d`` (every other stopper standing still), in ``B`` raids at once.

    Only the positions the raider, from ``raider``, and the defender, from ``defender`` or a square next to
    it, can reach while the raid can still be forced are solved: the answer is exact for ``[b, raider[b], d]``,
    ``d`` the defender's square or one next to it, and for every position reachable from those.

    Args:
        passable: ``bool[B, 100]``, the squares the raider may step onto (the goal and the defender's starting
            square among them; it never steps onto the defender).
        caught: ``bool[B, 100]``, the squares where a stopper other than the defender takes the raider on the
            player's turn (the defender takes it from any square next to it).
        free: ``bool[B, 100]``, the squares the defender may step onto (the raider's starting square among
            them; it never steps onto the raider but takes it).
        goal: ``int64[B]``, the Flag's square.
        raider, defender: ``int64[B]``, their starting squares.
        through: as for ``solve_static``; a Scout's run stops short of the defender.
    """
    passable, caught, free = (np.ascontiguousarray(a, dtype=np.bool_) for a in (passable, caught, free))
    return _dynamic(passable, caught, free, np.asarray(goal, dtype=np.int64), np.asarray(raider, dtype=np.int64),
                    np.asarray(defender, dtype=np.int64), horizon, _NB, _through(passable, through),
                    through is not None)


@njit(cache=True)
def _steps(open_, start, nb, through, scout):  # pragma: no cover - compiled
    """Moves from ``start`` to each square of ``open_`` through the squares of ``open_``, one square a move
    or, for a ``scout``, runs across the squares of ``through`` (1000 where none)."""
    dist = np.full(100, 1000, dtype=np.int64)
    queue = np.empty(100, dtype=np.int64)
    dist[start], queue[0] = 0, start
    head, tail = 0, 1
    while head < tail:
        sq = queue[head]
        head += 1
        for k in range(4):
            t = nb[sq, k]
            while t >= 0 and open_[t]:
                if dist[t] > dist[sq] + 1:
                    dist[t] = dist[sq] + 1
                    queue[tail] = t
                    tail += 1
                if not (scout and through[t]):
                    break
                t = nb[t, k]
    return dist


@njit(cache=True)
def _dynamic(passable, caught, free, goal, raider, defender, horizon, nb, through,
             scout):  # pragma: no cover - compiled
    n = passable.shape[0]
    theirs = np.zeros((n, 100, 100), dtype=np.bool_)  # raider to move: the raid is forced
    ours = np.zeros((n, 100, 100), dtype=np.bool_)  # the player to move
    for b in range(n):
        # the raider's squares from which the Flag is near enough, the defender's it can reach in time
        near = (_steps(passable[b], raider[b], nb, through[b], scout)
                + _steps(passable[b], goal[b], nb, through[b], scout) <= horizon)
        rs = np.flatnonzero(near & passable[b])
        ds = np.flatnonzero((_steps(free[b], defender[b], nb, through[b], False) <= horizon + 1) & free[b])
        for _ in range(horizon):
            changed = False
            for r in rs:
                for d in ds:
                    if d == r or theirs[b, r, d]:
                        continue
                    for k in range(4):
                        s = nb[r, k]
                        while s >= 0 and passable[b, s] and s != d:
                            if s == goal[b] or ours[b, s, d]:
                                theirs[b, r, d] = True
                                changed = True
                                break
                            if not (scout and through[b, s]):
                                break
                            s = nb[s, k]
                        if theirs[b, r, d]:
                            break
            for r in rs:
                if caught[b, r]:
                    continue
                for d in ds:
                    if d == r or ours[b, r, d] or not theirs[b, r, d]:
                        continue
                    held = False
                    for k in range(4):
                        t = nb[d, k]
                        if t == r:
                            held = True  # the defender stands next to the raider and takes it
                            break
                        if t >= 0 and free[b, t] and not theirs[b, r, t]:
                            held = True
                            break
                    if not held:
                        ours[b, r, d] = True
                        changed = True
            if not changed:
                break
    return theirs


def forced_raids(view: PlayerView, moves, horizon: int = HORIZON) -> tuple[np.ndarray, np.ndarray]:
    """Which raids on ``view.player``'s Flag are forced after each of ``moves``, the raider to move.

    The raiders are the opponent's hidden pieces, each raced as a Miner where it may be one on public
    information (``type_distributions``), else as the weakest other type it may be but the Scout, also as the
    strongest type it is at least with probability ``STRONG_TAIL`` (``strong_type``), and as a Scout where it
    may be one; and its revealed movable pieces, raced as what they are.  Opponent pieces
    stand still as walls, their types unknown.  After a move of a stopper (onto an empty square; an attack on
    anything but the raider takes it off the board) the raid holds where that stopper defends from its new
    square or another defends with it standing there; a stopper's attack on the raider holds it; any other
    move is a pass, which holds where some stopper defends from where it stands.

    Returns:
        ``(raiders, forced)``: ``int64[R]`` the squares of the raiders that can reach the Flag within
        ``horizon`` moves (a square twice where its piece is raced as two types), and ``bool[M, R]``.  Both
        are empty where the player has no Flag.
    """
    moves = list(moves)
    me, opp = view.player, 1 - view.player
    flag = np.flatnonzero((view.owner == me) & (view.types == FLAG))
    if len(flag) == 0 or not moves:
        return np.zeros(0, np.int64), np.zeros((len(moves), 0), dtype=bool)
    kinds = np.clip(view.types.astype(np.int64), 0, NUM_TYPES - 1)
    theirs = view.owner == opp
    races = _races(view, kinds)
    # ``threatened[a, sq]``: a piece of type ``a`` on ``sq`` stands next to a revealed opponent piece that takes it
    threatened = np.zeros((NUM_TYPES, 100), dtype=bool)
    for sq in np.flatnonzero(theirs & view.revealed & ~IMMOVABLE[kinds]):
        threatened[:, ADJACENT[sq]] |= (FIGHT[kinds[sq]] > 0)[:, None]
    board = _RaceBoard(view.owner == me, kinds, view.owner < 0, int(flag[0]), horizon, threatened)
    frm = np.array([m.from_sq for m in moves])
    to = np.array([m.to_sq for m in moves])
    # where each move's piece ends: on its new square if it steps there or wins its battle for certain on public
    # information and no revealed piece takes it there, else off the board
    odds = attack_odds(view, moves)
    wins = np.array([m not in odds or fight_odds(int(kinds[m.from_sq]), odds[m])[0] >= 1.0 for m in moves])
    lands = np.where(wins & ~threatened[kinds[frm], to], to, -1)
    verdicts = [board.forced(sq, kind, frm, to, lands) for sq, kind in races]
    kept = [i for i, v in enumerate(verdicts) if v is not None]
    forced = np.stack([verdicts[i] for i in kept], axis=1) if kept else np.zeros((len(moves), 0), dtype=bool)
    return np.array([races[i][0] for i in kept], dtype=np.int64), forced


#: The movable types but the Scout, weakest first (the order of the type codes).
_STEPPERS = np.array([t for t in range(NUM_TYPES) if not IMMOVABLE[t] and t != SCOUT])
#: A hidden raider is also raced as the strongest type it is at least with this probability (``strong_type``).
STRONG_TAIL = 0.25


def strong_type(dist: np.ndarray) -> int:
    """The strongest type above the Miner among ``_STEPPERS`` that a piece of type distribution ``dist: float[12]``
    is, or is stronger than, with probability at least ``STRONG_TAIL`` (-1 where none is): raced as a Miner
    alone, a hidden Captain walks through the Sergeant that stands guard beside the Flag (``LOST_B1`` in the
    tests)."""
    ranks = _STEPPERS[_STEPPERS > MINER]
    tail = np.cumsum(dist[ranks][::-1])[::-1]  # tail[i]: the piece is ranks[i] or stronger
    at_least = ranks[tail >= STRONG_TAIL - 1e-9]
    return int(at_least[-1]) if len(at_least) else -1


def _races(view: PlayerView, kinds: np.ndarray) -> list[tuple[int, int]]:
    """``(square, type)`` of each raid ``forced_raids`` races: a hidden opponent piece as a Miner where it may
    be one, else as the weakest other type it may be but the Scout; also as the strongest type it is at least
    with probability ``STRONG_TAIL`` where that is stronger (``strong_type``), and as a Scout where it may be
    one; a revealed movable piece as what it is."""
    theirs = view.owner == 1 - view.player
    dist = type_distributions(view)
    races = []
    for sq in np.flatnonzero(theirs & (view.types == UNKNOWN)).tolist():
        may = dist[sq] > 0
        weak = MINER if may[MINER] else int(_STEPPERS[may[_STEPPERS]][0]) if may[_STEPPERS].any() else -1
        if weak >= 0:
            races.append((sq, weak))
        strong = strong_type(dist[sq])
        if strong > weak >= 0:
            races.append((sq, strong))
        if may[SCOUT]:
            races.append((sq, SCOUT))
    races += [(sq, int(kinds[sq])) for sq in np.flatnonzero(theirs & view.revealed & ~IMMOVABLE[kinds]).tolist()]
    return races


class _RaceBoard:
    """The player's side of the races on one board: its pieces, the empty squares, its Flag, and where a
    revealed opponent piece would take each of its types (``threatened: bool[12, 100]``, squares a defender
    does not step onto)."""

    def __init__(self, mine: np.ndarray, kinds: np.ndarray, empty: np.ndarray, goal: int, horizon: int,
                 threatened: np.ndarray):
        self.mine, self.kinds, self.empty, self.goal, self.horizon = mine, kinds, empty, goal, horizon
        self.threatened = threatened
        self.movable = mine & ~IMMOVABLE[kinds]

    def stops(self, kind: int) -> np.ndarray:
        """``bool[100]``: the player's stoppers of a raider of ``kind``, its movable pieces that beat or tie it
        when they attack it."""
        return self.movable & (FIGHT[self.kinds, kind] >= 0)

    def _solve(self, sq: int, kind: int, standing: np.ndarray, defender: np.ndarray) -> np.ndarray:
        """``bool[B, 100]``: for each of ``B`` scenarios (``standing: bool[B, 100]``, the stoppers that stand;
        ``defender: int64[B]``, the one that moves, -1 for none), whether the raid from ``sq`` is forced, the
        raider to move, with the defender on each square (every entry alike where there is none)."""
        stops = self.stops(kind)
        passable = self.empty | (self.mine & (FIGHT[kind, self.kinds] > 0) & ~stops)
        passable[sq] = True
        n = len(standing)
        open_ = np.tile(passable, (n, 1))
        open_ |= stops[None] & ~standing  # a stopper that moves or is gone leaves its square
        caught = (standing[:, :, None] & ADJACENT[None]).any(axis=1)
        # a Scout runs across the empty squares, those of the stoppers gone and its own
        through, horizon = None, self.horizon
        if kind == SCOUT:
            through = self.empty[None] | (stops[None] & ~standing)
            through[:, sq] = True
            horizon = min(horizon, SCOUT_HORIZON)
        goal = np.full(n, self.goal)
        still = defender < 0
        out = np.zeros((n, 100), dtype=bool)
        if still.any():
            out[still] = solve_static(open_[still], caught[still], goal[still], horizon,
                                      None if through is None else through[still])[:, [sq]]
        if (~still).any():
            moving = defender[~still]
            free = np.tile(self.empty, (len(moving), 1)) & ~self.threatened[self.kinds[moving]]
            free[:, sq] = True
            free[np.arange(len(free)), moving] = True
            free &= ~(standing[~still])
            out[~still] = solve_dynamic(open_[~still], caught[~still], free, goal[~still], np.full(len(moving), sq),
                                        moving, horizon, None if through is None else through[~still])[:, sq]
        return out

    def forced(self, sq: int, kind: int, frm: np.ndarray, to: np.ndarray, lands: np.ndarray) -> np.ndarray | None:
        """``bool[M]``: the raid of the piece on ``sq``, raced as a ``kind``, is forced after each move
        ``frm[i]``-``to[i]``, whose piece ends on ``lands[i]`` (-1: off the board); ``None`` where the raider
        cannot reach the Flag within the horizon even through the stoppers."""
        stops = self.stops(kind)
        stoppers = np.flatnonzero(stops)
        if not self._solve(sq, kind, np.zeros((1, 100), dtype=bool), np.array([-1]))[0, 0]:
            return None
        g = len(stoppers)
        # every stopper standing; each in turn gone; each in turn the defender, the others standing
        standing = np.tile(stops, (1 + 2 * g, 1))
        standing[1 + np.arange(2 * g), np.tile(stoppers, 2)] = False
        defender = np.concatenate([np.full(1 + g, -1), stoppers])
        verdict = self._solve(sq, kind, standing, defender)
        lost_all, lost_without, alone = verdict[0, 0], verdict[1:1 + g, 0], verdict[1 + g:]
        # a pass holds where a stopper defends from where it stands
        holds_still = ~alone[np.arange(g), stoppers]
        passing = bool(lost_all and not holds_still.any())
        forced = np.full(len(frm), passing)
        for i in range(len(frm)):
            if stops[frm[i]]:
                j = int(np.searchsorted(stoppers, frm[i]))
                quiet = bool(self.empty[to[i]]) and lands[i] >= 0
                if to[i] == sq or not lost_without[j] or (quiet and not alone[j, to[i]]):
                    forced[i] = False  # it takes the raider, the raid holds without it, or it defends
                elif quiet and not (holds_still & (np.arange(g) != j)).any():
                    forced[i] = True  # no other stopper defends, even with this one standing
                else:
                    forced[i] = not self._after(frm[i], lands[i]).holds(sq, kind)
            elif passing:  # a piece stepping out of a defender's way may save a raid a pass loses
                forced[i] = not self._after(frm[i], lands[i]).holds(sq, kind)
        return forced

    def holds(self, sq: int, kind: int) -> bool:
        """Whether the raid of the piece on ``sq``, raced as a ``kind`` and to move, holds: with every
        stopper standing, or with one of them the defender from where it stands."""
        stops = self.stops(kind)
        stoppers = np.flatnonzero(stops)
        standing = np.tile(stops, (1 + len(stoppers), 1))
        standing[1 + np.arange(len(stoppers)), stoppers] = False
        verdict = self._solve(sq, kind, standing, np.concatenate([np.array([-1]), stoppers]))
        return not verdict[0, 0] or not verdict[1 + np.arange(len(stoppers)), stoppers].all()

    def _after(self, left: int, landed: int) -> _RaceBoard:
        """The board after the player's piece on ``left`` moved to ``landed`` (-1: off the board)."""
        mine, empty, kinds = self.mine.copy(), self.empty.copy(), self.kinds.copy()
        mine[left], empty[left] = False, True
        if landed >= 0:
            mine[landed], empty[landed], kinds[landed] = True, False, kinds[left]
        return _RaceBoard(mine, kinds, empty, self.goal, self.horizon, self.threatened)


def unguarding_moves(view: PlayerView, moves) -> set[Move]:
    """The moves among ``moves`` that ``SearchConfig.hold`` drops: those after which more raids on
    ``view.player``'s Flag are forced (``forced_raids``) than after the move that leaves the fewest.  Empty
    where every move leaves as many."""
    moves = list(moves)
    _, forced = forced_raids(view, moves)
    if forced.size == 0:
        return set()
    lost = forced.sum(axis=1)
    return {m for m, n in zip(moves, lost) if n > lost.min()}
