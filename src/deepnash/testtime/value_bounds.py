"""Value bounds: a two-step look-ahead with the value network that removes obvious blunders.

Source: the DeepNash paper (arXiv), supplementary "Value bounds heuristic",
equation 8 and Table 5 (``eps_vb = 0.05``); ``docs/test-time.md`` §4.

For each legal move ``a`` of the agent the upper bound

    vhat(x, a) = max_{h in x} min_{a' in A_safe(h a)} v(x(h a a'))

is compared with the value ``v(x)`` of the current information state; ``a``
is removed (if other moves remain) when ``vhat(x, a) + eps_vb < v(x)``.  The
opponent's private information ``h`` is taken at its best for the agent,
the opponent's reply ``a'`` at its worst among *safe* replies only, judged
on public information alone: the piece is known to be movable, a move of
more than one square is by a known Scout, an attack wins for every type
either piece may have, and no piece of the agent could then take the piece
(win or tie) on its new square.

Only two hidden opponent pieces can matter, the one ``a`` attacks (type
``t1``) and the one that attacks in ``a'`` (type ``t2``), so instead of
enumerating hidden states we compute ``max_t1 min_a' max_t2 v``, which is
never below the paper's bound (swapping ``max_t2`` inside the ``min`` can
only raise it), so this layer removes no move the paper's would keep.
A move after which the opponent has no safe reply is never removed;
terminal positions score their result (+1 win, -1 loss, 0 draw).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..env.planes import NUM_MOVE_PLANES, NUM_PLANES
from ..game import Game, IllegalMoveError, Move
from ..game import kernels as K
from ..game.pieces import BOMB, FLAG, SCOUT
from ..infostate.beliefs import FIGHT, IMMOVABLE
from ..infostate.determinize import position
from ..infostate.observe import ILLEGAL, OBSERVED, move_ring, move_rows, observe, observe_reply
from ..infostate.view import MoveRecord, PlayerView, push_recorded
from .public import EMPTY, PublicBoard

ValueFn = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class ValueBounds:
    """The look-ahead's verdict on one decision.

    Attributes:
        value: ``v(x)``, the value of the current information state.
        bounds: upper bound ``vhat(x, a)`` per bounded move (``inf`` when unbounded); for a kept
            move, the bound over the branches scored before it was kept (the full bound is at
            least this, and this is at least ``value - eps_vb``).
        removed: moves with ``bound + eps_vb < value`` (empty when that would be every move).
        evaluations: positions scored by the value function (the current one included).
    """

    value: float
    bounds: dict[Move, float]
    removed: frozenset[Move]
    evaluations: int


def safe_replies(board: PublicBoard, player: int, possible: np.ndarray | None = None) -> list[Move]:
    """``player``'s safe moves on ``board`` (see the module docstring), from public information only.

    Args:
        possible: ``board.possible()``, if already computed.
    """
    return [Move(f, t) for f, t in _safe_reply_array(board, player, possible).tolist()]


def _safe_reply_array(board: PublicBoard, player: int, possible: np.ndarray | None = None) -> np.ndarray:
    """``int16[n, 2]``: ``safe_replies`` as (from, to) rows, in the same order."""
    out = np.empty((K.MAX_MOVES, 2), dtype=np.int16)
    possible = board.possible() if possible is None else possible
    n = _safe_replies(board.owner, board.known, board.moved, possible, player, K.NEIGHBOUR, FIGHT, IMMOVABLE, out)
    return out[:n]


@njit(cache=True)
def _safe_replies(owner, known, moved, possible, player, neighbour, fight, immovable, out):
    """Write ``player``'s safe moves to ``out[:n]`` as (from, to) and return ``n``."""
    n = 0
    for sq in range(100):
        if owner[sq] != player:
            continue
        kinds = possible[sq] & ~immovable
        if not ((known[sq] >= 0 and kinds.any()) or moved[sq]):
            continue  # not known to be movable
        scout = known[sq] == SCOUT
        for d in range(4):
            to = neighbour[sq, d]
            while to >= 0 and (owner[to] == EMPTY or owner[to] == 1 - player):
                attack = owner[to] == 1 - player
                sure = True
                if attack:  # the attack must win whatever either piece is
                    for a in range(12):
                        for t in range(12):
                            if kinds[a] and possible[to, t] and fight[a, t] <= 0:
                                sure = False
                if sure and not _capturable(owner, possible, sq, to, kinds, player, neighbour, fight):
                    out[n, 0], out[n, 1] = sq, to
                    n += 1
                if attack or not scout:
                    break
                to = neighbour[to, d]
    return n


@njit(cache=True)
def _capturable(owner, possible, f, t, kinds, player, neighbour, fight):
    """Could the other player take (or trade with) a piece of one of ``kinds`` arriving on ``t`` from
    ``f``: a piece of it that reaches ``t`` next move (any movable type from a neighbouring square,
    only a Scout along a clear line) and, for some type it may have, wins or ties?"""
    other = 1 - player
    for d in range(4):
        s, dist = neighbour[t, d], 1
        while s >= 0 and (owner[s] == EMPTY or s == f):  # the mover has left f
            s, dist = neighbour[s, d], dist + 1
        if s < 0 or owner[s] != other:
            continue
        for a in range(12):
            if not possible[s, a] or a == FLAG or a == BOMB or (dist > 1 and a != SCOUT):
                continue
            for k in range(12):
                if kinds[k] and fight[a, k] >= 0:
                    return True
    return False


#: A leaf: ``(result, -1)`` for a finished game, ``(None, index)`` for a position the value function scores.
Leaf = tuple[float | None, int]

#: Replies a branch turns into leaves in the first batch, before ``v(x)`` is known.  On the
#: shipped Barrage agent's games the nearest reply already sinks 65% of the branches that sink.
FIRST_REPLIES = 1


#: Each thread's observation buffer, kept from one look-ahead to the next (memory already
#: mapped: a fresh buffer of a few MB faults its pages in at every decision).
_SCRATCH = threading.local()


class _Leaves:
    """The positions to score: observations for the value function, or a terminal result.

    Observations are written into one growing buffer and scored in batches (``evaluate``); a
    leaf is ``(result or None, index)``.
    """

    def __init__(self, me: int, rows: np.ndarray, value_fn: ValueFn) -> None:
        self.me, self.rows, self.value_fn = me, rows, value_fn
        self.obs = getattr(_SCRATCH, "obs", None)
        if self.obs is None:
            self.obs = _SCRATCH.obs = np.empty((128, NUM_PLANES, 10, 10), dtype=np.float32)
        self.written = 0
        self.values = np.zeros(0)

    def add(self, game: Game, records: Sequence[MoveRecord]) -> Leaf:
        """The leaf of ``game``, reached by ``records`` from the current position."""
        if game.is_over():
            return game.outcome().returns()[self.me], -1
        self._next()[:] = observe(game, np.concatenate([self.rows, move_rows(records)]), self.me)
        return None, self.written - 1

    def add_reply(self, after: Game, scratch: Game, reply: Move, ring: np.ndarray, count: int) -> Leaf | None:
        """The leaf of ``after`` (reached by the moves in ``ring``) with ``reply`` played, built in
        ``scratch``; ``None`` when a repetition rule forbids ``reply``."""
        code = observe_reply(after, scratch, reply, ring, count, self.me, self._next())
        if code == OBSERVED:
            return None, self.written - 1
        self.written -= 1
        return None if code == ILLEGAL else (scratch.outcome().returns()[self.me], -1)

    def _next(self) -> np.ndarray:
        """The buffer's next row (counted as written)."""
        if self.written == len(self.obs):
            self.obs = _SCRATCH.obs = np.concatenate([self.obs, np.empty_like(self.obs)])
        self.written += 1
        return self.obs[self.written - 1]

    def evaluate(self) -> None:
        """Score the observations written since the last call, in one call of the value function."""
        n, done = self.written, len(self.values)
        if n == done:
            return
        got = np.asarray(self.value_fn(self.obs[done:n]), dtype=np.float64).reshape(-1)
        if got.shape[0] != n - done:
            raise ValueError(f"value_fn returned {got.shape[0]} values for {n - done} observations")
        self.values = np.concatenate([self.values, got])

    def score(self, leaf: Leaf) -> float:
        return leaf[0] if leaf[0] is not None else float(self.values[leaf[1]])


class _Branch:
    """Move ``a`` when the piece it attacks is of type ``t1`` (-1: no hidden piece): the opponent's
    safe replies, nearest to ``a``'s destination first, each turned into its leaves (one per type
    of the replying attacker) only when asked (``grow``)."""

    def __init__(self, tree: "_Tree", a: Move, t1: int, game: Game) -> None:
        self.tree, self.a, self.fixed = tree, a, ({a.to_sq: t1} if t1 >= 0 else {})
        self.game = game  # a determinisation is kept; the base position lives in the tree's scratch game
        self.rec_a = push_recorded(game, a)
        self.ring, self.count = tree.ring.copy(), tree.count + 1
        self.ring[tree.count % NUM_MOVE_PLANES] = move_rows([self.rec_a])[0]
        if not self.fixed:
            tree.holder = self
        self.leaves: list[list[Leaf]] = []  # per reply turned into leaves (an empty list: no legal reply)
        self.replies: list[tuple[Move, np.ndarray | list[int]]] = []
        if game.is_over():
            self.leaves.append([tree.leaves.add(game, [self.rec_a])])
            return
        after = tree.start.copy()
        after.apply(self.rec_a)
        possible = after.possible()
        row, col = divmod(a.to_sq, 10)
        owner, known = after.owner, after.known
        for f, t in sorted(_safe_reply_array(after, tree.opp, possible).tolist(),
                           key=lambda r: abs(r[1] // 10 - row) + abs(r[1] % 10 - col)):
            hidden = owner[t] == tree.me and known[f] < 0  # an attack by a piece of unknown type
            self.replies.append((Move(f, t), np.flatnonzero(possible[f] & ~IMMOVABLE) if hidden else [-1]))

    @property
    def done(self) -> bool:
        """Whether every reply is turned into leaves."""
        return len(self.leaves) >= len(self.replies)  # a finished game's one leaf counts for no reply

    def grow(self, n: int) -> None:
        """Turn further replies into leaves until ``n`` of them wait for the value function (or none is left)."""
        tree, waiting = self.tree, 0
        while waiting < n and len(self.leaves) < len(self.replies):
            reply, kinds = self.replies[len(self.leaves)]
            leaves: list[Leaf] = []
            for t2 in kinds:
                if t2 < 0:  # the replying piece's type is known: one compiled call
                    leaf = tree.leaves.add_reply(self._after(), tree.reply_scratch, reply, self.ring, self.count)
                    if leaf is not None:  # None: a repetition rule forbids it, not a reply at all
                        leaves.append(leaf)
                    continue
                g2 = position(tree.view, {**self.fixed, reply.from_sq: int(t2)})
                if g2 is None:
                    continue
                try:
                    push_recorded(g2, self.a)
                    rec_r = push_recorded(g2, reply)
                except IllegalMoveError:  # a repetition rule forbids it: not a reply at all
                    continue
                leaves.append(tree.leaves.add(g2, [self.rec_a, rec_r]))
            self.leaves.append(leaves)
            waiting += any(leaf[0] is None for leaf in leaves)

    def _after(self) -> Game:
        """The position after ``a`` (reloaded into the tree's scratch game when another branch used it)."""
        if not self.fixed and self.tree.holder is not self:
            push_recorded(_load(self.tree.base, self.game), self.a)
            self.tree.holder = self
        return self.game

    def pending(self) -> bool:
        """Whether some leaf waits for ``evaluate``."""
        done = len(self.tree.leaves.values)
        return any(leaf[0] is None and leaf[1] >= done for leaves in self.leaves for leaf in leaves)

    def bound(self) -> float:
        """``min`` over the replies turned into leaves of ``max`` over the replying piece's types
        (``inf`` without one): the branch's bound once ``done``, an upper bound of it before."""
        score = self.tree.leaves.score
        return min((max(score(e) for e in leaves) for leaves in self.leaves if leaves), default=math.inf)


class _MoveBound:
    """The bound of one move, its branches (one per type the attacked piece may have, the attack's
    best outcomes first) built and scored only as far as the verdict needs."""

    def __init__(self, tree: "_Tree", a: Move) -> None:
        self.tree, self.a = tree, a
        self.kinds = iter(tree.attacked_types(a))
        self.bound = -math.inf  # max over the branches given up on, and the kept one
        self.branch: _Branch | None = None

    def start(self) -> None:
        """Before ``v(x)`` is known: the first ``FIRST_REPLIES`` replies of each branch until one waits
        for the value function (a branch scored without it counts at once)."""
        while self._next_branch():
            self.branch.grow(FIRST_REPLIES)  # grows to the end unless a leaf waits
            if self.branch.pending():
                return
            self.bound = max(self.bound, self.branch.bound())

    def advance(self, value: float, eps_vb: float) -> bool:
        """With the leaves scored, decide what can be decided (a bound ``b`` sinks when
        ``b + eps_vb < value``); otherwise add the leaves the verdict needs next and return ``False``.
        ``True``: kept (a branch's bound does not sink) or every branch sinks (removed)."""
        while self.branch is not None and self.bound + eps_vb < value:
            b = self.branch.bound()
            if b + eps_vb < value:  # one reply already sinks this branch: the rest cannot lift its min
                self.bound = max(self.bound, b)
                if self._next_branch():
                    self.branch.grow(FIRST_REPLIES)
            elif self.branch.done:
                self.bound = max(self.bound, b)
            else:
                self.branch.grow(len(self.branch.replies))
            if self.branch is not None and self.branch.pending():
                return False
        return True

    def _next_branch(self) -> bool:
        """Build the next possible branch (``False`` when none is left)."""
        tree = self.tree
        for t1 in self.kinds:
            game = position(tree.view, {self.a.to_sq: t1}) if t1 >= 0 else _load(tree.base, tree.scratch)
            if game is not None:
                self.branch = _Branch(tree, self.a, t1, game)
                return True
        self.branch = None
        return False


def value_bounds(
    view: PlayerView, value_fn: ValueFn, eps_vb: float = 0.05, moves: Iterable[Move] | None = None,
) -> ValueBounds:
    """Score legal moves of ``view.player`` with the two-step value upper bound.

    The leaves are scored in a few batched calls of ``value_fn``, and only those the verdict
    needs.  First the current position and, for each move, its first ``FIRST_REPLIES`` safe
    replies (nearest the move's destination first) of its first branch that needs the value
    function (a branch is one type of the attacked piece, the attack's best outcomes first; a
    move that attacks no hidden piece has one).  Then, with ``v(x)`` known, round by round: a
    branch one of whose replies already scores below ``v(x) - eps_vb`` is given up (the rest
    of its replies cannot raise its ``min``) and the move's next branch starts; a branch whose
    replies so far all clear it gets the rest of its replies; a move is kept as soon as one
    branch's bound clears the threshold.  So the moves removed are exactly those the full
    enumeration removes, with far fewer positions scored (on the shipped Barrage agent's own
    games 39% fewer than scoring each move's first branch in full).

    Args:
        view: the agent's view, the agent to move.
        value_fn: ``float32[N, 82, 10, 10] -> float32[N]``, the value of each
            observation (``infostate.observe.observe``, select step) for the player it
            belongs to: the value head, in [-1, 1].  Wrap it to change the
            network's input (e.g. eagerness) for every position alike.  The array it is
            given is valid during the call only (the look-ahead reuses its memory).
        eps_vb: the margin (paper: 0.05).
        moves: the moves to bound (default: every legal move; the paper bounds the
            actions in the policy's support only).

    Returns:
        ``ValueBounds``.  A kept move's bound there is that of the branches scored, at least the
        removal threshold (the full bound can only be higher); a removed move's is the largest of
        its branches' bounds over the replies scored, below the threshold (the full bound can only
        be lower); a move after which the opponent has no safe reply has bound ``inf``.

    Raises:
        ValueError: ``view`` has no legal moves (the agent is not to move), a move
            in ``moves`` is not legal, or ``value_fn`` returns the wrong number of values.
    """
    if not view.legal_moves:
        raise ValueError(f"ply {view.ply}: player {view.player} has no legal move to bound")
    todo = list(view.legal_moves) if moves is None else list(dict.fromkeys(moves))
    if not set(todo) <= set(view.legal_moves):
        raise ValueError(f"ply {view.ply}: {sorted(set(todo) - set(view.legal_moves))} are not legal moves")
    tree = _Tree(view, value_fn)
    undecided = [_MoveBound(tree, a) for a in todo]
    for m in undecided:
        m.start()
    per_move = list(undecided)
    tree.leaves.evaluate()
    v = tree.leaves.score(tree.root)
    while undecided:
        undecided = [m for m in undecided if not m.advance(v, eps_vb)]
        tree.leaves.evaluate()
    bounds = {m.a: (math.inf if m.bound == -math.inf else m.bound) for m in per_move}
    removed = frozenset(a for a, b in bounds.items() if b + eps_vb < v)
    if len(removed) == len(view.legal_moves):
        removed = frozenset()
    return ValueBounds(v, bounds, removed, len(tree.leaves.values))


class _Tree:
    """The look-ahead from one view: what every branch shares."""

    def __init__(self, view: PlayerView, value_fn: ValueFn) -> None:
        self.view = view
        self.me, self.opp = view.player, 1 - view.player
        self.start = PublicBoard.from_view(view)
        self.possible = self.start.possible()
        self.base = position(view)
        rows = move_rows(view.history)
        self.ring, self.count = move_ring(rows)
        self.leaves = _Leaves(self.me, rows, value_fn)
        self.root = self.leaves.add(self.base, ())
        self.scratch, self.reply_scratch = self.base.copy(), self.base.copy()
        self.holder: _Branch | None = None  # the branch whose position after its move is in ``scratch``

    def attacked_types(self, a: Move) -> list[int]:
        """The types the piece ``a`` attacks may have, the attack's best outcomes first; ``[-1]`` when
        ``a`` attacks no hidden piece."""
        view = self.view
        if not (view.owner[a.to_sq] == self.opp and not view.revealed[a.to_sq]):
            return [-1]
        mine = int(view.types[a.from_sq])
        return sorted((int(t) for t in np.flatnonzero(self.possible[a.to_sq])), key=lambda t: -FIGHT[mine, t])


def _load(game: Game, scratch: Game) -> Game:
    """``scratch`` set to ``game``'s position (a cheap copy into a game allocated once)."""
    game.state.copy_game(0, 0, scratch.state)
    scratch.move_stack.clear()
    return scratch
