"""Numba kernels: legal moves, applying a move, battles, repetition rules, game end.

Every function works on game ``b`` of a batch whose state is a handful of
NumPy arrays (see ``state.BatchState``); the single-game ``Game``, the batched
environment, the bots and the UIs all call these same kernels.

Board encoding (``board: int8[B, 100]``, square ``row*10+col``, row 0 = rank 1):
the board codes of ``codes`` (``EMPTY`` 0, ``LAKE`` -1, pieces 1..24).  ``flags: uint8[B, 100]`` travel with the piece:
``REVEALED`` (its type is public) and ``MOVED`` (it has moved at least once).

Rules: ``docs/rules.md``.  Where the rules leave room, the kernels decide as follows.

Battles (``apply_move``): the Flag is captured by any attacker; a Miner attacking
a Bomb wins, any other attacker of a Bomb is removed; a Spy attacking the
Marshal wins (the Marshal attacking the Spy wins by rank); otherwise the higher
rank wins and equal ranks both go.  The survivor of a battle is ``REVEALED``;
so is a piece that moves more than one square (only Scouts can).

Two-squares rule (ISF 10.1, Scout-aware; ``two_squares_ban``).  With limit
``L`` (``Variant.two_squares_limit``, ISF: 3), a move of player ``p`` is
illegal when ``p``'s previous ``L`` moves were all made by the piece now being
moved, all lie on one rank or one file, alternate in direction (each reverses
the one before), the candidate reverses the last of them, and the ``L + 1``
segments have a square border in common (a segment from ``a`` to ``z``
crosses the borders between ``min(a, z)`` and ``max(a, z)``).  For a piece that
moves one square this is "the same two squares"; a Scout may shuttle further
as long as its moves stop sharing a border.  Attacks count like other moves;
a move by any other piece of ``p`` ends the sequence; the opponent's moves do
not matter.  The last ``HISTORY`` moves of each player are kept in ``hist``.

More-squares rule (chasing; ``more_squares_violation`` and the chase
bookkeeping at the end of ``apply_move``).  A *threatening move* is a move onto
an empty square after which the moved piece stands orthogonally next to an
opponent piece.  A chase starts with a threatening move: its mover is the
*chaser* and the boards before and after that move are recorded.  The chase
goes on while the two sides alternate as follows, recording the board after
each move: the chased side moves a piece away from a square next to the
chaser's last threatening piece (an *evasion*), then the chaser makes another
threatening move (with any of its pieces).  Any other move, and any attack,
ends the chase; a threatening move that does not continue a chase starts a
new one.  While a chase runs, the chaser may not make a threatening move
that recreates a recorded board (piece placement only, compared by Zobrist
hash over the last ``CHASE_CAPACITY`` boards), except a move back to the
square that piece left on the chaser's previous move (which the two-squares
rule may still forbid).  The chased side is never restricted.

Game end (``apply_move``, ``check_stuck``), checked in this order after each
move: Flag captured (the mover wins); ``max_moves`` total moves reached (draw);
``max_moves_without_attack`` consecutive moves without an attack (draw); the
player to move has no legal move, repetition rules included (it loses, or the
game is drawn when the other player has no legal move either).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .codes import EMPTY, LAKE, MAX_CODE, code_of, owner_of, type_of
from .pieces import BOMB, FLAG, MARSHAL, MINER, SCOUT, SPY
from .variant import (
    MAX_TWO_SQUARES_LIMIT,
    R_MAX_MOVES,
    R_MAX_NO_ATTACK,
    R_MORE_SQUARES,
    R_TWO_SQUARES,
    R_TWO_SQUARES_LIMIT,
)

REVEALED = 1
MOVED = 2

# meta: int32[B, NUM_META]
M_TO_MOVE = 0  # player to move, 0 Red / 1 Blue
M_PLY = 1  # moves played (both players)
M_SINCE_ATTACK = 2  # consecutive moves without an attack
M_DONE = 3
M_WINNER = 4  # -1: none (ongoing or draw)
M_TERMINATION = 5  # a TERM_* code
M_CHASE = 6  # 1 while a chase runs (more-squares rule)
M_CHASER = 7
M_CHASE_SQ = 8  # square of the chasing piece after its last threat
M_CHASE_N = 9  # boards recorded in the current chase (ring of CHASE_CAPACITY)
M_LAST_FROM = 10
M_LAST_TO = 11
M_LAST_ATTACKER = 12  # attacker type of the last move, -1 if no attack
M_LAST_DEFENDER = 13  # defender type of the last move, -1 if no attack
M_LAST_RESULT = 14  # a RESULT_* code
NUM_META = 16

TERM_NONE = 0
TERM_FLAG_CAPTURED = 1
TERM_NO_MOVES = 2
TERM_BOTH_STUCK = 3
TERM_MOVE_LIMIT = 4
TERM_NO_ATTACK_LIMIT = 5
TERM_RESIGNATION = 6

RESULT_MOVE = 0
RESULT_ATTACKER_WON = 1
RESULT_DEFENDER_WON = 2
RESULT_BOTH_REMOVED = 3
RESULT_FLAG_CAPTURED = 4

HISTORY = MAX_TWO_SQUARES_LIMIT  # moves per player kept for the two-squares rule
CHASE_CAPACITY = 64  # boards per chase remembered (oldest forgotten first)
# Each square is reached by at most four moves (from the nearest own piece in each direction), so no
# position of any variant has more than 400 legal moves.
MAX_MOVES = 512  # rows of the ``out`` buffer of ``legal_moves``

DR = np.array([1, -1, 0, 0], dtype=np.int64)
DC = np.array([0, 0, 1, -1], dtype=np.int64)


def _neighbours() -> np.ndarray:
    nb = np.full((100, 4), -1, dtype=np.int64)
    for sq in range(100):
        for d in range(4):
            r, c = sq // 10 + DR[d], sq % 10 + DC[d]
            if 0 <= r < 10 and 0 <= c < 10:
                nb[sq, d] = r * 10 + c
    return nb


#: ``NEIGHBOUR[sq, d]``: the next square from ``sq`` in direction ``d`` (up, down, right, left), -1 off the board.
NEIGHBOUR = _neighbours()
#: ``STEP[sq, d]``: as ``NEIGHBOUR`` but ``sq`` itself where that is off the board.
STEP = np.where(NEIGHBOUR < 0, np.arange(100)[:, None], NEIGHBOUR)


CLOSED, OPEN, ENEMY = 0, 1, 2


def _targets() -> np.ndarray:
    tab = np.full((2, MAX_CODE + 2), CLOSED, dtype=np.int8)
    for p in range(2):
        tab[p, EMPTY + 1] = OPEN
        for v in range(1, MAX_CODE + 1):
            if owner_of(v) != p:
                tab[p, v + 1] = ENEMY
    return tab


#: ``TARGET[p, v + 1]``: what a square holding board code ``v`` is to a piece of player ``p``:
#: ``CLOSED`` (a lake or its own piece), ``OPEN`` (empty) or ``ENEMY`` (an opponent piece).
TARGET = _targets()
assert FLAG == 0 and BOMB == 11 and SPY == 1 and MARSHAL == 10  # the movable types are SPY..MARSHAL


def _search_order() -> np.ndarray:
    order = np.empty((2, 100), dtype=np.int64)
    for p, front, ahead in ((0, 3, 1), (1, 6, -1)):
        # middle out from the player's front row, the row ahead of each distance first
        rows = sorted(range(10), key=lambda r: (abs(r - front), (r - front) * ahead < 0))
        order[p] = [r * 10 + c for r in rows for c in range(10)]
    return order


#: ``SEARCH_ORDER[p]``: squares in the order the early-exit search for a legal move of ``p`` visits them:
#: from ``p``'s front row outwards, where its free pieces usually are.
SEARCH_ORDER = _search_order()


def _splitmix64(n: int, seed: int) -> np.ndarray:
    """``n`` 64-bit keys from SplitMix64: fixed forever, whatever NumPy's generators do."""
    mask = (1 << 64) - 1
    out = np.empty(n, dtype=np.uint64)
    x = seed
    for i in range(n):
        x = (x + 0x9E3779B97F4A7C15) & mask
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out[i] = z ^ (z >> 31)
    return out


#: Zobrist keys ``uint64[100, 25]`` indexed by square and board code (codes 1..24).
ZOBRIST = _splitmix64(100 * (MAX_CODE + 1), 0x5EED_57A7).reshape(100, MAX_CODE + 1)


@njit(cache=True, inline="always")
def two_squares_ban(hist, rules, b, p):
    """What the two-squares rule (ISF 10.1, Scout-aware) forbids player ``p`` now.

    Returns ``(sq, d, steps)``: the piece on ``sq`` may not move ``steps`` or
    more squares in direction ``d`` (an index into ``NEIGHBOUR``'s directions);
    ``(-1, -1, 0)`` when the rule forbids nothing.  See the module docstring
    for the rule as implemented.
    """
    limit = rules[R_TWO_SQUARES_LIMIT]
    if rules[R_TWO_SQUARES] == 0 or hist[b, p, limit - 1, 0] < 0:
        return -1, -1, 0
    f0 = hist[b, p, 0, 0]
    t0 = hist[b, p, 0, 1]
    horizontal = f0 // 10 == t0 // 10
    line = f0 // 10 if horizontal else f0 % 10
    scale = 1 if horizontal else 10
    a = (f0 // scale) % 10  # coordinates along the line
    z = (t0 // scale) % 10
    lo = min(a, z)  # the borders every move so far crossed: those between lo..hi
    hi = max(a, z)
    forward = z > a
    nxt = f0
    for k in range(1, limit):
        mf = hist[b, p, k, 0]
        mt = hist[b, p, k, 1]
        if mt != nxt:  # another piece
            return -1, -1, 0
        if (mf // 10 if horizontal else mf % 10) != line or (mt // 10 if horizontal else mt % 10) != line:
            return -1, -1, 0
        ma = (mf // scale) % 10
        mz = (mt // scale) % 10
        if (mz > ma) != (forward if k % 2 == 0 else not forward):  # not back and forth
            return -1, -1, 0
        lo = max(lo, min(ma, mz))
        hi = min(hi, max(ma, mz))
        if lo >= hi:
            return -1, -1, 0
        nxt = mf
    # The next move of the piece back along the line must not cross a border between lo and hi.
    d = (1 if forward else 0) if not horizontal else (3 if forward else 2)
    return t0, d, (z - hi + 1) if forward else (lo - z + 1)


@njit(cache=True, inline="always")
def threatens(board, sq, p):
    """True when a piece of ``p`` on ``sq`` would stand next to an opponent piece."""
    r = sq // 10
    c = sq % 10
    q = 1 - p
    if r > 0:
        w = board[sq - 10]
        if w > 0 and owner_of(w) == q:
            return True
    if r < 9:
        w = board[sq + 10]
        if w > 0 and owner_of(w) == q:
            return True
    if c > 0:
        w = board[sq - 1]
        if w > 0 and owner_of(w) == q:
            return True
    if c < 9:
        w = board[sq + 1]
        if w > 0 and owner_of(w) == q:
            return True
    return False


@njit(cache=True)
def more_squares_violation(board, hist, zob, chase, meta, b, p, f, t):
    """True when non-attacking move ``f -> t`` by the chaser ``p`` recreates a board of the running chase."""
    if not threatens(board[b], t, p):
        return False
    if hist[b, p, 0, 0] == t and hist[b, p, 0, 1] == f:
        return False  # back to the square it came from in its previous turn
    v = board[b, f]
    h = zob[b] ^ ZOBRIST[f, v] ^ ZOBRIST[t, v]
    n = min(meta[b, M_CHASE_N], CHASE_CAPACITY)
    for i in range(n):
        if chase[b, i] == h:
            return True
    return False


@njit(cache=True)
def _checked_moves(board, meta, hist, zob, chase, b, p, sq, chasing, ban_d, ban_steps, out, n):
    """Add the moves of the piece on ``sq`` that the repetition rules allow to ``out[n:]``: none of ``ban_steps``
    or more squares in direction ``ban_d`` (two-squares rule; -1: no ban), and when ``chasing`` none that break
    the more-squares rule.  Returns the new count (with ``out=None``: ``n + 1`` at the first such move)."""
    bd = board[b]
    target = TARGET[p]
    scout = type_of(bd[sq]) == SCOUT
    for d in range(4):
        tsq = NEIGHBOUR[sq, d]
        steps = 1
        while tsq >= 0:
            k = target[bd[tsq] + 1]
            if k == CLOSED or (d == ban_d and steps >= ban_steps):
                break
            if k == ENEMY or not chasing or not more_squares_violation(board, hist, zob, chase, meta, b, p, sq, tsq):
                if out is None:
                    return n + 1
                out[n, 0] = sq
                out[n, 1] = tsq
                n += 1
            if k == ENEMY or not scout:
                break
            tsq = NEIGHBOUR[tsq, d]
            steps += 1
    return n


@njit(cache=True, inline="always")
def _gen(board, meta, hist, zob, chase, rules, b, p, out):
    """Shared move generator: writes the moves to ``out`` and returns their count; with ``out=None``
    (a branch Numba prunes at compile time) returns 1 at the first legal move found, else 0."""
    bd = board[b]
    lo = code_of(p, 0)
    # The two-squares rule forbids at most the moves of one piece in one direction; the
    # more-squares rule only binds the chaser of a running chase.
    ban_sq, ban_d, ban_steps = two_squares_ban(hist, rules, b, p)
    chasing = rules[R_MORE_SQUARES] != 0 and meta[b, M_CHASE] != 0 and meta[b, M_CHASER] == p
    target = TARGET[p]
    n = 0
    for i in range(100):
        if out is None:
            sq = SEARCH_ORDER[p, i]
        else:
            sq = i
        t = bd[sq] - lo
        if t < SPY or t > MARSHAL:  # not a piece of p that moves (Flag and Bomb are types 0 and 11)
            continue
        if chasing or sq == ban_sq:
            d = ban_d if sq == ban_sq else -1
            n = _checked_moves(board, meta, hist, zob, chase, b, p, sq, chasing, d, ban_steps, out, n)
            if out is None and n > 0:
                return 1
        elif t != SCOUT:
            # One step in each direction, written without branches: a step off the board lands
            # on the piece's own square, which is closed.
            for d in range(4):
                tsq = STEP[sq, d]
                ok = target[bd[tsq] + 1] != CLOSED
                if out is None:
                    if ok:
                        return 1
                else:
                    out[n, 0] = sq
                    out[n, 1] = tsq
                    n += ok
        else:
            for d in range(4):
                tsq = NEIGHBOUR[sq, d]
                while tsq >= 0:
                    k = target[bd[tsq] + 1]
                    if k == CLOSED:
                        break
                    if out is None:
                        return 1
                    out[n, 0] = sq
                    out[n, 1] = tsq
                    n += 1
                    if k == ENEMY:
                        break
                    tsq = NEIGHBOUR[tsq, d]
    return n


@njit(cache=True)
def legal_moves(board, meta, hist, zob, chase, rules, b, p, out):
    """Write the legal moves of player ``p`` in game ``b`` to ``out: int16[MAX_MOVES, 2]`` (from, to).

    Returns the number of moves written. Moves are ordered by origin square,
    then direction (up, down, right, left), then distance.
    """
    return _gen(board, meta, hist, zob, chase, rules, b, p, out)


@njit(cache=True, inline="always")
def has_legal_move(board, meta, hist, zob, chase, rules, b, p):
    """True when player ``p`` of game ``b`` has at least one legal move."""
    return _gen(board, meta, hist, zob, chase, rules, b, p, None) > 0


@njit(cache=True)
def is_legal(board, meta, hist, zob, chase, rules, b, f, t):
    """True when ``f -> t`` is a legal move for the player to move in game ``b`` (which must not be over)."""
    if f < 0 or f > 99 or t < 0 or t > 99 or f == t:
        return False
    p = meta[b, M_TO_MOVE]
    v = board[b, f]
    if v <= 0 or owner_of(v) != p:
        return False
    pt = type_of(v)
    if pt == FLAG or pt == BOMB:
        return False
    fr = f // 10
    fc = f % 10
    tr = t // 10
    tc = t % 10
    if fr != tr and fc != tc:
        return False
    dist = abs(tr - fr) + abs(tc - fc)
    if dist > 1 and pt != SCOUT:
        return False
    dr = (tr > fr) - (tr < fr)
    dc = (tc > fc) - (tc < fc)
    for k in range(1, dist):
        if board[b, f + k * (dr * 10 + dc)] != EMPTY:
            return False
    w = board[b, t]
    if w == LAKE or (w > 0 and owner_of(w) == p):
        return False
    ban_sq, ban_d, ban_steps = two_squares_ban(hist, rules, b, p)
    if f == ban_sq and NEIGHBOUR[f, ban_d] == f + dr * 10 + dc and dist >= ban_steps:
        return False
    chasing = rules[R_MORE_SQUARES] != 0 and meta[b, M_CHASE] != 0 and meta[b, M_CHASER] == p
    return not (chasing and w == EMPTY and more_squares_violation(board, hist, zob, chase, meta, b, p, f, t))


@njit(cache=True, inline="always")
def _chase_push(chase, meta, b, h):
    n = meta[b, M_CHASE_N]
    chase[b, n % CHASE_CAPACITY] = h
    meta[b, M_CHASE_N] = n + 1


@njit(cache=True)
def _finish(meta, b, winner, termination):
    meta[b, M_DONE] = 1
    meta[b, M_WINNER] = winner
    meta[b, M_TERMINATION] = termination


@njit(cache=True)
def apply_move(board, flags, meta, hist, zob, chase, rules, b, f, t):
    """Play the (legal, unchecked) move ``f -> t`` for the player to move in game ``b``.

    Resolves the battle, updates the revealed/moved flags, repetition state,
    counters and the side to move, and ends the game when the Flag falls, a
    draw limit is reached, or the next player has no legal move (a loss; a
    draw when neither side can move).  Returns the ``RESULT_*`` code.
    """
    p = meta[b, M_TO_MOVE]
    v = board[b, f]
    at = type_of(v)
    w = board[b, t]
    attack = w > 0
    for k in range(HISTORY - 1, 0, -1):
        hist[b, p, k, 0] = hist[b, p, k - 1, 0]
        hist[b, p, k, 1] = hist[b, p, k - 1, 1]
    hist[b, p, 0, 0] = f
    hist[b, p, 0, 1] = t
    fl = flags[b, f] | MOVED
    step = abs(t - f)
    if step != 1 and step != 10:
        fl |= REVEALED  # a Scout moving more than one square
    h_before = zob[b]
    h = h_before ^ ZOBRIST[f, v]
    board[b, f] = EMPTY
    flags[b, f] = 0
    meta[b, M_LAST_FROM] = f
    meta[b, M_LAST_TO] = t
    result = RESULT_MOVE
    if not attack:
        board[b, t] = v
        flags[b, t] = fl
        h ^= ZOBRIST[t, v]
        meta[b, M_LAST_ATTACKER] = -1
        meta[b, M_LAST_DEFENDER] = -1
    else:
        dt = type_of(w)
        meta[b, M_LAST_ATTACKER] = at
        meta[b, M_LAST_DEFENDER] = dt
        h ^= ZOBRIST[t, w]
        if dt == FLAG:
            result = RESULT_FLAG_CAPTURED
        elif dt == BOMB:
            result = RESULT_ATTACKER_WON if at == MINER else RESULT_DEFENDER_WON
        elif at == SPY and dt == MARSHAL:
            result = RESULT_ATTACKER_WON
        elif at > dt:
            result = RESULT_ATTACKER_WON
        elif at == dt:
            result = RESULT_BOTH_REMOVED
        else:
            result = RESULT_DEFENDER_WON
        if result == RESULT_ATTACKER_WON or result == RESULT_FLAG_CAPTURED:
            board[b, t] = v
            flags[b, t] = fl | REVEALED
            h ^= ZOBRIST[t, v]
        elif result == RESULT_DEFENDER_WON:
            flags[b, t] |= REVEALED
            h ^= ZOBRIST[t, w]
        else:
            board[b, t] = EMPTY
            flags[b, t] = 0
    zob[b] = h
    meta[b, M_LAST_RESULT] = result

    if rules[R_MORE_SQUARES] != 0:
        if attack:
            meta[b, M_CHASE] = 0
        else:
            threat = threatens(board[b], t, p)
            cont = False
            if meta[b, M_CHASE] != 0:
                if meta[b, M_CHASER] != p:
                    cs = meta[b, M_CHASE_SQ]
                    cont = abs(cs // 10 - f // 10) + abs(cs % 10 - f % 10) == 1  # the threatened piece evades
                elif threat:
                    cont = True
                    meta[b, M_CHASE_SQ] = t
            if cont:
                _chase_push(chase, meta, b, h)
            elif threat:
                meta[b, M_CHASE] = 1
                meta[b, M_CHASER] = p
                meta[b, M_CHASE_SQ] = t
                meta[b, M_CHASE_N] = 0
                _chase_push(chase, meta, b, h_before)
                _chase_push(chase, meta, b, h)
            else:
                meta[b, M_CHASE] = 0

    meta[b, M_PLY] += 1
    if attack:
        meta[b, M_SINCE_ATTACK] = 0
    else:
        meta[b, M_SINCE_ATTACK] += 1
    q = 1 - p
    meta[b, M_TO_MOVE] = q
    if result == RESULT_FLAG_CAPTURED:
        _finish(meta, b, p, TERM_FLAG_CAPTURED)
    elif rules[R_MAX_MOVES] > 0 and meta[b, M_PLY] >= rules[R_MAX_MOVES]:
        _finish(meta, b, -1, TERM_MOVE_LIMIT)
    elif rules[R_MAX_NO_ATTACK] > 0 and meta[b, M_SINCE_ATTACK] >= rules[R_MAX_NO_ATTACK]:
        _finish(meta, b, -1, TERM_NO_ATTACK_LIMIT)
    else:
        check_stuck(board, meta, hist, zob, chase, rules, b)
    return result


@njit(cache=True)
def check_stuck(board, meta, hist, zob, chase, rules, b):
    """End game ``b`` if the player to move has no legal move: a loss, or a draw if neither side can move."""
    q = meta[b, M_TO_MOVE]
    if has_legal_move(board, meta, hist, zob, chase, rules, b, q):
        return
    if has_legal_move(board, meta, hist, zob, chase, rules, b, 1 - q):
        _finish(meta, b, 1 - q, TERM_NO_MOVES)
    else:
        _finish(meta, b, -1, TERM_BOTH_STUCK)


@njit(cache=True)
def board_hash(board, b):
    """The Zobrist hash ``uint64`` of board ``b``'s piece placement (``apply_move`` keeps ``zob`` equal to it)."""
    h = np.uint64(0)
    for sq in range(100):
        v = board[b, sq]
        if v > 0:
            h ^= ZOBRIST[sq, v]
    return h


@njit(cache=True)
def reset_game(board, flags, meta, hist, zob, chase, rules, lakes, b, red, blue):
    """Start game ``b`` from two deployments: ``red``/``blue: int8[100]`` of piece types (-1 empty),
    absolute squares, already validated."""
    for sq in range(100):
        flags[b, sq] = 0
        if red[sq] >= 0:
            board[b, sq] = code_of(0, red[sq])
        elif blue[sq] >= 0:
            board[b, sq] = code_of(1, blue[sq])
        else:
            board[b, sq] = EMPTY
    for i in range(lakes.shape[0]):
        board[b, lakes[i]] = LAKE
    zob[b] = board_hash(board, b)
    meta[b, :] = 0
    meta[b, M_WINNER] = -1
    meta[b, M_LAST_FROM] = -1
    meta[b, M_LAST_TO] = -1
    meta[b, M_LAST_ATTACKER] = -1
    meta[b, M_LAST_DEFENDER] = -1
    hist[b, :, :, :] = -1
    check_stuck(board, meta, hist, zob, chase, rules, b)


@njit(cache=True)
def random_setup(counts, squares, out):
    """Write a uniformly random deployment to ``out: int8[100]`` (-1 elsewhere).

    ``counts: int64[12]`` pieces per type, ``squares: int64[S]`` the deployment
    squares; uses Numba's generator (seed it with ``seed_numba``).
    """
    out[:] = -1
    perm = np.random.permutation(squares.shape[0])
    i = 0
    for t in range(12):
        for _ in range(counts[t]):
            out[squares[perm[i]]] = t
            i += 1


@njit(cache=True)
def seed_numba(seed):
    """Seed the generator that Numba-compiled code uses (separate from NumPy's)."""
    np.random.seed(seed)


@njit(cache=True)
def random_playout(board, flags, meta, hist, zob, chase, rules, lakes, counts, red_sq, blue_sq, games, lengths, ends):
    """Play ``games`` uniformly random games one after the other in slot 0; return the total moves.

    ``lengths: int32[games]`` receives each game's length, ``ends: int32[games]``
    its ``TERM_*`` code.  Used by the engine benchmark.
    """
    moves = np.empty((MAX_MOVES, 2), dtype=np.int16)
    red = np.empty(100, dtype=np.int8)
    blue = np.empty(100, dtype=np.int8)
    total = 0
    for g in range(games):
        random_setup(counts, red_sq, red)
        random_setup(counts, blue_sq, blue)
        reset_game(board, flags, meta, hist, zob, chase, rules, lakes, 0, red, blue)
        while meta[0, M_DONE] == 0:
            n = legal_moves(board, meta, hist, zob, chase, rules, 0, meta[0, M_TO_MOVE], moves)
            k = np.random.randint(n)
            apply_move(board, flags, meta, hist, zob, chase, rules, 0, moves[k, 0], moves[k, 1])
        lengths[g] = meta[0, M_PLY]
        ends[g] = meta[0, M_TERMINATION]
        total += meta[0, M_PLY]
    return total


@njit(cache=True)
def random_playout_batch(board, flags, meta, hist, zob, chase, rules, lakes, counts, red_sq, blue_sq, lengths, ends):
    """Play one uniformly random game in every slot of the batch, stepping the slots in turn.

    Returns the total moves; ``lengths``/``ends: int32[B]`` receive each game's length and ``TERM_*`` code.
    """
    nb = board.shape[0]
    moves = np.empty((MAX_MOVES, 2), dtype=np.int16)
    red = np.empty(100, dtype=np.int8)
    blue = np.empty(100, dtype=np.int8)
    for b in range(nb):
        random_setup(counts, red_sq, red)
        random_setup(counts, blue_sq, blue)
        reset_game(board, flags, meta, hist, zob, chase, rules, lakes, b, red, blue)
    running = nb
    total = 0
    while running > 0:
        running = 0
        for b in range(nb):
            if meta[b, M_DONE] != 0:
                continue
            n = legal_moves(board, meta, hist, zob, chase, rules, b, meta[b, M_TO_MOVE], moves)
            k = np.random.randint(n)
            apply_move(board, flags, meta, hist, zob, chase, rules, b, moves[k, 0], moves[k, 1])
            total += 1
            running += 1
    for b in range(nb):
        lengths[b] = meta[b, M_PLY]
        ends[b] = meta[b, M_TERMINATION]
    return total
