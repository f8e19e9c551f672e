"""A sparring program in the style of the strongest classic Stratego programs: piece tracking, Flag
inference and an alpha-beta search under a time per move (``docs/sparring.md``).

Each decision:

1. Tracking (``infostate.tracking``): the types every opponent piece can still be, from public
   information only (its moves, its battles, the exact counts left, propagated to a fixpoint); the
   odds that each unmoved piece is the Flag (people's setups, public Bombs beside it, or with
   ``belief=learned`` the belief network's reading of the whole history); and a type distribution for
   every hidden piece consistent with both.
2. Search: negamax alpha-beta with iterative deepening, a transposition table (Zobrist keys over the
   pieces' squares), the transposition table's move first, then battles by expected gain, killer moves
   and the history heuristic, and a quiescence search over battles at the horizon.  The search's board
   knows every piece of its own side and every revealed opponent piece; a hidden opponent piece keeps
   its type distribution.  A battle whose outcome depends on a hidden type is a chance node, by
   expectation over that distribution (each outcome scored as the evaluation before the battle plus
   what the outcome changes: material, information, a breach next to our Flag).  An opponent attack on
   one of our revealed pieces is read as made knowingly: the types that would lose are ``BLUFF`` times
   less likely.  When the attacker wins with probability ``SURE`` or more and depth is left, the search
   goes on from the win (its value weighted by that probability, the other outcomes static), so a high
   piece taking a defender and a Miner walking in behind it is one line; otherwise the line ends there.
3. Evaluation, in material units (``beliefs.PEOPLE_PIECE_VALUE``, adjusted as pieces die: the Marshal
   is worth more once the Spy that threatens it is gone, the Spy little once the Marshal it hunts is,
   Miners more while Bombs stand and Miners are few): material; information (a revealed piece costs
   its owner the more the more it is worth, ``INFO_SHARE``); the safety of our Flag (the nearest
   opponent piece that can move, whether a defender of ours stands nearer, a guard kept within two
   steps); the progress of our Miners (or, without them, our cheap pieces) towards the likeliest
   opponent Flag; and the hunt (how near each revealed opponent piece is one of ours that beats it).
4. Plans at the root: a position reached before costs a little per time it was seen, so the program
   does not shuttle while the search sees nothing better; quiet moves cost more as the no-attack draw
   nears while it is not behind (``STALL_COST``); a Major or higher attacks an unmoved hidden piece
   only when nothing else is legal (``_probes_bomb``).

Everything it reads is a ``PlayerView``; the hidden types of the opponent never enter.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from numba import njit

from ..game import Move, Variant
from ..game import kernels as K
from ..game.pieces import BOMB, FLAG, LIEUTENANT, MAJOR, MARSHAL, MINER, NUM_TYPES, SCOUT, SERGEANT, SPY
from ..infostate.beliefs import FIGHT, IMMOVABLE, PEOPLE_PIECE_VALUE, PIECE_VALUE
from ..infostate.tracking import flag_odds, possible_types, prior_flag_odds, type_odds
from ..infostate.view import PlayerView
from ..testtime.belief import FLOOR
from .base import SeededBot, draw_setup
from .registry import register_agent

#: Deepest ply of the main search plus the quiescence search.
MAX_PLY = 64
#: Battles the quiescence search follows past the horizon.
QUIESCENCE_DEPTH = 4
#: The value of a won game, above anything the evaluation gives (a Classic army is worth about 8).
WIN = 100.0
#: What taking the Flag is worth in a chance node, in material units: a level game turned into a won one
#: (people's piece values are scaled so that ``tanh`` of a material lead is ``2 P(win) - 1``, so a lead of
#: 2 is all but won).  A chance node weighs outcomes by their odds, so the utility must be bounded like that:
#: with ``WIN`` a 1% chance of the Flag would outweigh any piece.
FLAG_GAIN = 2.0
#: Entries of the transposition table (a power of two).
TT_SIZE = 1 << 18
#: What revealing a piece costs its owner, as a share of its value for the most valuable type; a type worth
#: ``v`` of the top ``V`` loses ``INFO_SHARE * v * v / V``: an unknown Marshal keeps the opponent's high
#: pieces away, an unknown Scout hardly matters.
INFO_SHARE = 0.3
#: What a position reached once before costs (per time seen), in material units.
REPEAT_COST = 0.05
#: Share of ``FLAG_GAIN`` lost when a hidden opponent piece wins a battle next to our Flag.
BREACH = 0.7
#: What a quiet move costs at the no-attack draw limit when we are not behind, in material units.
STALL_COST = 0.3
#: A hidden unmoved piece moves in the search when the chance it can move is above this.
MOBILE_ODDS = 0.05
#: How much less likely a hidden piece attacks one of our revealed pieces when its type loses the battle than
#: when it wins or ties: the opponent knows its own piece, so an attack on a known piece is mostly made by one
#: that beats it (a Spy at a known Marshal), and only sometimes a bluff.
BLUFF = 0.1
#: A battle with a hidden piece that the attacker wins with at least this probability is searched on from
#: the win (weighted by it; the other outcomes keep their static values), not valued at once: so the search
#: sees a high piece take a defender and a Miner walk in behind it, in one line.
SURE = 0.5

# rows of a search board ``int8[4, 100]``
_SIDE, _TYPE, _ID, _FLAGS = 0, 1, 2, 3
_REVEALED, _MOVED = 1, 2
# weights of the evaluation, ``float64[7]`` (``EVAL_WEIGHTS``)
_W_PROGRESS, _W_FLAG, _W_DEFENDER, _W_SPAN, _W_HUNT, _W_HUNT_SPAN, _W_GUARD = 0, 1, 2, 3, 4, 5, 6
#: The evaluation's weights, in material units: our runner at the likeliest opponent Flag (0.15, falling
#: to 0 over 20 steps); an opponent piece next to our Flag (1.5, falling as the square of the distance to
#: 0 at 5 steps), half of it (0.5) when a movable piece of ours stands nearer; a revealed opponent piece
#: with one of ours that beats it next to it (0.3 of its value, to 0 at 8 steps); a guard, one of our
#: Sergeants or higher within two steps of our Flag (0.1).
EVAL_WEIGHTS = np.array([0.15, 1.5, 0.5, 20.0, 0.3, 8.0, 0.1])
# transposition table bound kinds
_EXACT, _LOWER, _UPPER = 0, 1, 2

#: Zobrist keys of the transposition table: ``_ZOBRIST[sq * 100 + id]`` for the piece ``id`` (the square it
#: stood on at the root) on ``sq``; ``_ZOBRIST[10000]`` for the side to move.
_ZOBRIST = np.random.default_rng(0xA1FABE7A).integers(0, 2**63, 100 * 100 + 1, dtype=np.uint64)


@njit(cache=True, inline="always")
def _fight(a, d):
    """``beliefs.FIGHT[a, d]`` (a constant to the kernels): +1 the attacker wins, 0 both die, -1 it loses."""
    return FIGHT[a, d]


@njit(cache=True)
def _gen(s, stm, mobile, out, attacks_only):
    """The moves of side ``stm`` (0 us, 1 the opponent) on search board ``s`` into ``out`` as
    ``from * 100 + to``; returns their count.  Hidden opponent pieces move one square, and only once
    moved or when ``mobile`` by their id; known Scouts run along clear lines.  Our Majors and higher
    never attack a hidden piece that has not moved (it may be a Bomb: ``_probes_bomb``)."""
    n = 0
    for sq in range(100):
        if s[_SIDE, sq] != stm:
            continue
        t = s[_TYPE, sq]
        if t >= 0:
            if t == FLAG or t == BOMB:
                continue
        elif not (s[_FLAGS, sq] & _MOVED or mobile[s[_ID, sq]]):
            continue
        for d in range(4):
            tsq = K.NEIGHBOUR[sq, d]
            while tsq >= 0:
                o = s[_SIDE, tsq]
                if o == -1:
                    if not attacks_only:
                        out[n] = sq * 100 + tsq
                        n += 1
                    if t != SCOUT:
                        break
                    tsq = K.NEIGHBOUR[tsq, d]
                    continue
                if o == 1 - stm and not _probes_bomb(s, sq, tsq):
                    out[n] = sq * 100 + tsq
                    n += 1
                break
    return n


@njit(cache=True, inline="always")
def _probes_bomb(s, f, t):
    """Whether ``f -> t`` sends one of our Majors or higher against a hidden piece that has never moved:
    what the classic programs (and people) leave to cheap pieces, as a Bomb costs the piece and wins
    nothing."""
    a = s[_TYPE, f]
    return (s[_SIDE, f] == 0 and a >= MAJOR and a <= MARSHAL and s[_SIDE, t] == 1 and s[_TYPE, t] < 0
            and not s[_FLAGS, t] & _MOVED)


@njit(cache=True)
def _evaluate(s, ev, evm, val, info, runner, dist_target, dist_flag, mobile, w):
    """Static value of search board ``s`` for us (side 0), in material units."""
    score = 0.0
    run = 99
    guarded = False
    ours_near = 99
    theirs_near = 99
    for sq in range(100):
        side = s[_SIDE, sq]
        if side == 0:
            t = s[_TYPE, sq]
            score += val[0, t]
            if s[_FLAGS, sq] & _REVEALED:
                score -= info[0, t]
            if runner[t] and dist_target[sq] < run:
                run = dist_target[sq]
            if t != FLAG and t != BOMB and dist_flag[sq] < ours_near:
                ours_near = dist_flag[sq]
            if t >= SERGEANT and t != BOMB and dist_flag[sq] <= 2:
                guarded = True
        elif side == 1:
            t = s[_TYPE, sq]
            if t >= 0:
                score -= val[1, t]
                score += info[1, t]
                can_move = t != FLAG and t != BOMB
            else:
                i = s[_ID, sq]
                moved = s[_FLAGS, sq] & _MOVED
                score -= evm[i] if moved else ev[i]
                can_move = moved or mobile[i]
            if can_move and dist_flag[sq] < theirs_near:
                theirs_near = dist_flag[sq]
            if t > FLAG and t < BOMB:
                # a known opponent piece: how near is one of ours that beats it
                near = 99
                for o in range(100):
                    if s[_SIDE, o] == 0:
                        a = s[_TYPE, o]
                        if a != FLAG and a != BOMB and _fight(a, t) > 0:
                            gap = abs(o // 10 - sq // 10) + abs(o % 10 - sq % 10)
                            if gap < near:
                                near = gap
                if near < w[_W_HUNT_SPAN]:
                    score += w[_W_HUNT] * val[1, t] * (1.0 - near / w[_W_HUNT_SPAN])
    if run < 99:
        score += w[_W_PROGRESS] * (1.0 - run / w[_W_SPAN])
    if guarded:
        score += w[_W_GUARD]
    if theirs_near <= 4:
        danger = (5 - theirs_near) * (5 - theirs_near) / 25.0
        if ours_near < theirs_near:
            danger *= 1.0 - w[_W_DEFENDER]
        score -= w[_W_FLAG] * danger
    return score


@njit(cache=True)
def _chance(s, f, t, stm, base, odds, odds_moved, val, info, dist_flag):
    """Expected value for us (side 0) of a battle ``f -> t`` whose outcome hangs on a hidden opponent type:
    the mean over that piece's type distribution of ``base`` (the static value before it) plus what each
    outcome changes (material, the pieces it reveals, and an opponent piece that wins its way next to our
    Flag: ``BREACH`` of the Flag's worth, as the line ends before it could take it).  When the opponent
    attacks one of our revealed pieces, the odds of the types that lose are scaled by ``BLUFF``: it chose the
    attack knowing its piece.

    Returns ``(value, p, rest)``: the mean, the probability that the attacker wins and takes the square (not
    the Flag), and the part of the mean from every other outcome; ``value - rest`` is ``p`` times the static
    value of that win, which the search may replace by searching on from it (``SURE``)."""
    v = 0.0
    p_win = 0.0
    v_win = 0.0
    if stm == 0:
        a = s[_TYPE, f]
        i = s[_ID, t]
        q = odds_moved[i] if s[_FLAGS, t] & _MOVED else odds[i]
        shown = s[_FLAGS, f] & _REVEALED
        for d in range(NUM_TYPES):
            p = q[d]
            if p == 0.0:
                continue
            if d == FLAG:
                v += p * (base + FLAG_GAIN)
                continue
            r = _fight(a, d)
            if r > 0:
                o = val[1, d] - (0.0 if shown else info[0, a])
                p_win += p
                v_win += p * (base + o)
            elif r == 0:
                o = val[1, d] - val[0, a] + (info[0, a] if shown else 0.0)
            else:
                o = -val[0, a] + info[1, d] + (info[0, a] if shown else 0.0)
            v += p * (base + o)
    else:
        a = s[_TYPE, t]
        q = odds_moved[s[_ID, f]]
        if a == FLAG:
            return -WIN, 0.0, -WIN
        shown = s[_FLAGS, t] & _REVEALED
        mass = 0.0  # the weights below are normalised by their sum at the end
        for d in range(NUM_TYPES):
            r = _fight(d, a)
            p = q[d] * (1.0 if not shown or r >= 0 else BLUFF)
            if p == 0.0:
                continue
            mass += p
            if r > 0:
                o = -val[0, a] + info[1, d] + (info[0, a] if shown else 0.0)
                if dist_flag[t] == 1:
                    o -= BREACH * FLAG_GAIN
                p_win += p
                v_win += p * (base + o)
            elif r == 0:
                o = -val[0, a] + val[1, d] + (info[0, a] if shown else 0.0)
            else:
                o = val[1, d] - (0.0 if shown else info[0, a])
            v += p * (base + o)
        if mass > 0.0:
            v, p_win, v_win = v / mass, p_win / mass, v_win / mass
    return v, p_win, v - v_win


@njit(cache=True, inline="always")
def _kind(s, f, t):
    """0: a quiet move; 1: a battle between two known pieces; 2: a battle with a hidden piece (chance)."""
    if s[_SIDE, t] == -1:
        return 0
    if s[_TYPE, f] < 0 or s[_TYPE, t] < 0:
        return 2
    return 1


@njit(cache=True)
def _lift(src, dst, f, key):
    """Copy board ``src`` into ``dst`` and lift the piece on ``f`` off it.  Returns the Zobrist key with the
    piece lifted and the side to move turned, and the piece as ``(side, type, id, flags)``, flagged moved."""
    dst[:, :] = src
    ia = src[_ID, f]
    mover = (src[_SIDE, f], src[_TYPE, f], ia, src[_FLAGS, f] | _MOVED)
    dst[_SIDE, f] = -1
    dst[_TYPE, f] = -1
    dst[_ID, f] = -1
    dst[_FLAGS, f] = 0
    return key ^ _ZOBRIST[f * 100 + ia] ^ _ZOBRIST[10000], mover


@njit(cache=True)
def _apply(src, dst, f, t, key):
    """Play the quiet move or known battle ``f -> t`` from board ``src`` into ``dst``.  Returns the new
    Zobrist key, and whether the Flag was taken (then ``dst`` is not meaningful)."""
    key, mover = _lift(src, dst, f, key)
    if src[_SIDE, t] == -1:
        step = abs(t - f)
        dst[_SIDE, t], dst[_TYPE, t], dst[_ID, t], dst[_FLAGS, t] = mover
        if step != 1 and step != 10:
            dst[_FLAGS, t] |= _REVEALED
        return key ^ _ZOBRIST[t * 100 + mover[2]], False
    d = src[_TYPE, t]
    if d == FLAG:
        return key, True
    return _settle(dst, t, key, _fight(src[_TYPE, f], d), mover, src[_ID, t]), False


@njit(cache=True)
def _settle(dst, t, key, r, mover, it):
    """The rest of a battle on ``t`` on ``dst`` (the attacker, ``mover``, already lifted by ``_lift``) with
    outcome ``r`` (+1 the attacker wins, 0 both die, -1 it loses; ``it`` the defender's id).  Returns the new
    Zobrist key."""
    ia = mover[2]
    if r >= 0:
        key ^= _ZOBRIST[t * 100 + it]
        dst[_SIDE, t] = -1
        dst[_TYPE, t] = -1
        dst[_ID, t] = -1
        dst[_FLAGS, t] = 0
    if r > 0:
        dst[_SIDE, t], dst[_TYPE, t], dst[_ID, t], dst[_FLAGS, t] = mover
        dst[_FLAGS, t] |= _REVEALED
        key ^= _ZOBRIST[t * 100 + ia]
    elif r < 0:
        dst[_FLAGS, t] |= _REVEALED
    return key


@njit(cache=True)
def _apply_win(src, dst, f, t, key):
    """Play the battle ``f -> t`` from board ``src`` into ``dst`` as won by the attacker (the outcome a chance
    node searches on).  Returns the new Zobrist key."""
    key, mover = _lift(src, dst, f, key)
    return _settle(dst, t, key, 1, mover, src[_ID, t])


@njit(cache=True)
def _gain(s, f, t, val):
    """Material a known battle ``f -> t`` wins for the mover (for ordering)."""
    a = s[_TYPE, f]
    d = s[_TYPE, t]
    me = s[_SIDE, f]
    if d == FLAG:
        return WIN
    r = _fight(a, d)
    if r > 0:
        return val[1 - me, d]
    if r == 0:
        return val[1 - me, d] - val[me, a]
    return -val[me, a]


# per-ply frames of the search: ``float64[MAX_PLY + 1, 7]`` and ``int64[MAX_PLY + 1, 4]``
_ALPHA, _BETA, _BEST, _ALPHA0, _BASE, _P, _REST = 0, 1, 2, 3, 4, 5, 6
_DEPTH, _NEXT, _COUNT, _BEST_MOVE = 0, 1, 2, 3


@njit(cache=True)
def _enter(st, ply, depth, alpha, beta, key, moves, order, odds, odds_moved, ev, evm, val, info, runner,
           dist_target, dist_flag, mobile, w, tt_key, tt_val, tt_depth, tt_kind, tt_move, killers, history, ctl,
           fr, fi, keys):
    """Open the node at ``ply`` (side to move ``ply % 2``): ``depth > 0`` an alpha-beta node, else a
    quiescence node with ``QUIESCENCE_DEPTH + depth`` battles left.  Returns ``(True, value for the side to
    move)`` when the node is settled at once (transposition table, no moves, standing pat, the node budget
    spent: then ``ctl[2]`` is set), else ``(False, 0)`` with its moves generated and scored in the frame."""
    ctl[0] += 1
    if ctl[0] > ctl[1]:
        ctl[2] = 1
        return True, 0.0
    stm = ply % 2
    sign = 1.0 if stm == 0 else -1.0
    s = st[ply]
    base = _evaluate(s, ev, evm, val, info, runner, dist_target, dist_flag, mobile, w)
    quiet = depth > 0
    tt_best = -1
    if quiet:
        slot = np.int64(key & np.uint64(TT_SIZE - 1))
        if tt_key[slot] == key:
            tt_best = tt_move[slot]
            if tt_depth[slot] >= depth:
                v = tt_val[slot]
                k = tt_kind[slot]
                if k == _EXACT or (k == _LOWER and v >= beta) or (k == _UPPER and v <= alpha):
                    return True, v
        best = -np.inf
    else:
        best = sign * base
        if depth <= -QUIESCENCE_DEPTH or ply >= MAX_PLY - 1 or best >= beta:
            return True, best
        if best > alpha:
            alpha = best
    n = _gen(s, stm, mobile, moves[ply], not quiet)
    if n == 0:
        return True, (-(WIN - ply) if quiet else best)
    score = order[ply]
    for i in range(n):
        m = moves[ply, i]
        f = m // 100
        t = m % 100
        kind = _kind(s, f, t)
        if m == tt_best:
            score[i] = 1e9
        elif kind == 1:
            score[i] = 1e6 + 1e3 * _gain(s, f, t, val)
        elif kind == 2:
            gain = _chance(s, f, t, stm, base, odds, odds_moved, val, info, dist_flag)[0] - base
            score[i] = 5e5 + 1e3 * sign * gain
        elif m == killers[ply, 0]:
            score[i] = 4e5
        elif m == killers[ply, 1]:
            score[i] = 3e5
        else:
            score[i] = min(history[stm, f * 100 + t], 2e5)
    fr[ply, _ALPHA] = alpha
    fr[ply, _BETA] = beta
    fr[ply, _BEST] = best
    fr[ply, _ALPHA0] = alpha
    fr[ply, _BASE] = base
    fi[ply, _DEPTH] = depth
    fi[ply, _NEXT] = 0
    fi[ply, _COUNT] = n
    fi[ply, _BEST_MOVE] = -1
    keys[ply] = key
    return False, 0.0


@njit(cache=True)
def _search(st, top, depth, alpha, beta, key, moves, order, odds, odds_moved, ev, evm, val, info, runner,
            dist_target, dist_flag, mobile, w, tt_key, tt_val, tt_depth, tt_kind, tt_move, killers, history, ctl,
            fr, fi, keys):
    """Negamax alpha-beta from the node at ply ``top`` to ``depth`` plies, then a quiescence search over
    battles (known ones searched on, chance ones valued at once), with an explicit stack of frames (Numba
    caches no recursive function safely).  Returns the value for the side to move at ``top``; 0 with
    ``ctl[2]`` set when the node budget ``ctl[1]`` runs out."""
    done, v = _enter(st, top, depth, alpha, beta, key, moves, order, odds, odds_moved, ev, evm, val, info, runner,
                     dist_target, dist_flag, mobile, w, tt_key, tt_val, tt_depth, tt_kind, tt_move, killers,
                     history, ctl, fr, fi, keys)
    if done:
        return v
    ply = top
    while True:
        if ctl[2]:
            return 0.0
        i = fi[ply, _NEXT]
        n = fi[ply, _COUNT]
        if i < n:
            # the best-scored move left goes next
            score = order[ply]
            j = i
            for k in range(i + 1, n):
                if score[k] > score[j]:
                    j = k
            m = moves[ply, j]
            moves[ply, j] = moves[ply, i]
            moves[ply, i] = m
            sc = score[j]
            score[j] = score[i]
            score[i] = sc
            fi[ply, _NEXT] = i + 1
            s = st[ply]
            f = m // 100
            t = m % 100
            stm = ply % 2
            kind = _kind(s, f, t)
            if kind == 2:
                v, p, rest = _chance(s, f, t, stm, fr[ply, _BASE], odds, odds_moved, val, info, dist_flag)
                if stm == 1:
                    v, rest = -v, -rest
                d = fi[ply, _DEPTH] - 1
                if d > 0 and p >= SURE:
                    # search on from the likely win: value rest + p * (the child's value for the mover)
                    child_key = _apply_win(s, st[ply + 1], f, t, keys[ply])
                    if ply + 1 >= MAX_PLY - QUIESCENCE_DEPTH - 1:
                        d = 0
                    fr[ply, _P] = p
                    fr[ply, _REST] = rest
                    done, v = _enter(st, ply + 1, d, (rest - fr[ply, _BETA]) / p, (rest - fr[ply, _ALPHA]) / p,
                                     child_key, moves, order, odds, odds_moved, ev, evm, val, info, runner,
                                     dist_target, dist_flag, mobile, w, tt_key, tt_val, tt_depth, tt_kind, tt_move,
                                     killers, history, ctl, fr, fi, keys)
                    if not done:
                        ply += 1
                        continue
                    v = rest - p * v
            else:
                child_key, taken = _apply(s, st[ply + 1], f, t, keys[ply])
                if taken:
                    v = WIN - ply
                else:
                    d = fi[ply, _DEPTH] - 1
                    if d > 0 and ply + 1 >= MAX_PLY - QUIESCENCE_DEPTH - 1:
                        d = 0
                    done, v = _enter(st, ply + 1, d, -fr[ply, _BETA], -fr[ply, _ALPHA], child_key, moves, order,
                                     odds, odds_moved, ev, evm, val, info, runner, dist_target, dist_flag, mobile,
                                     w, tt_key, tt_val, tt_depth, tt_kind, tt_move, killers, history, ctl, fr, fi,
                                     keys)
                    if not done:
                        ply += 1
                        continue
                    v = -v
        else:
            # the node is finished: store it, hand its value to the parent
            v = fr[ply, _BEST]
            depth_here = fi[ply, _DEPTH]
            if depth_here > 0:
                slot = np.int64(keys[ply] & np.uint64(TT_SIZE - 1))
                tt_key[slot] = keys[ply]
                tt_val[slot] = v
                tt_depth[slot] = depth_here
                tt_move[slot] = fi[ply, _BEST_MOVE]
                tt_kind[slot] = _LOWER if v >= fr[ply, _BETA] else (_UPPER if v <= fr[ply, _ALPHA0] else _EXACT)
            if ply == top:
                return v
            ply -= 1
            v = -v
            m = moves[ply, fi[ply, _NEXT] - 1]
            kind = _kind(st[ply], m // 100, m % 100)
            if kind == 2:
                v = fr[ply, _REST] + fr[ply, _P] * v
        if ctl[2]:
            return 0.0
        # the value ``v`` of move ``m`` at ``ply``
        if v > fr[ply, _BEST]:
            fr[ply, _BEST] = v
            fi[ply, _BEST_MOVE] = m
        if v > fr[ply, _ALPHA]:
            fr[ply, _ALPHA] = v
        if fr[ply, _ALPHA] >= fr[ply, _BETA]:
            depth_here = fi[ply, _DEPTH]
            if kind == 0 and depth_here > 0:
                if killers[ply, 0] != m:
                    killers[ply, 1] = killers[ply, 0]
                    killers[ply, 0] = m
                history[ply % 2, m] += depth_here * depth_here
            fi[ply, _NEXT] = fi[ply, _COUNT]


@njit(cache=True)
def _root(st, depth, root_moves, cost, values, moves, order, odds, odds_moved, ev, evm, val, info, runner,
          dist_target, dist_flag, mobile, w, tt_key, tt_val, tt_depth, tt_kind, tt_move, killers, history, ctl):
    """One iteration of iterative deepening over ``root_moves`` (in that order), each charged ``cost``.
    Writes each move's value (exact for the best, an upper bound for the others) to ``values``; returns
    the index of the best, or -1 when the node budget ran out."""
    s = st[0]
    fr = np.zeros((MAX_PLY + 1, 7))
    fi = np.zeros((MAX_PLY + 1, 4), dtype=np.int64)
    keys = np.zeros(MAX_PLY + 1, dtype=np.uint64)
    key = np.uint64(0)
    for sq in range(100):
        if s[_SIDE, sq] == 0 or s[_SIDE, sq] == 1:
            key ^= _ZOBRIST[sq * 100 + s[_ID, sq]]
    base = _evaluate(s, ev, evm, val, info, runner, dist_target, dist_flag, mobile, w)
    alpha = -np.inf
    best = -1
    for i in range(len(root_moves)):
        m = root_moves[i]
        f = m // 100
        t = m % 100
        if _kind(s, f, t) == 2:
            v, p, rest = _chance(s, f, t, 0, base, odds, odds_moved, val, info, dist_flag)
            if depth > 1 and p >= SURE:
                child_key = _apply_win(s, st[1], f, t, key)
                c = _search(st, 1, depth - 1, -np.inf, (rest - cost[i] - alpha) / p, child_key, moves, order,
                            odds, odds_moved, ev, evm, val, info, runner, dist_target, dist_flag, mobile, w, tt_key,
                            tt_val, tt_depth, tt_kind, tt_move, killers, history, ctl, fr, fi, keys)
                if ctl[2]:
                    return -1
                v = rest - p * c
        else:
            child_key, taken = _apply(s, st[1], f, t, key)
            if taken:
                v = WIN
            else:
                v = -_search(st, 1, depth - 1, -np.inf, -(alpha + cost[i]), child_key, moves, order, odds,
                             odds_moved, ev, evm, val, info, runner, dist_target, dist_flag, mobile, w, tt_key,
                             tt_val, tt_depth, tt_kind, tt_move, killers, history, ctl, fr, fi, keys)
                if ctl[2]:
                    return -1
        v -= cost[i]
        values[i] = v
        if v > alpha:
            alpha = v
            best = i
    return best


def _distances(variant: Variant, source: int) -> np.ndarray:
    """``int64[100]``: steps from ``source`` to every square around the lakes (99 where unreachable)."""
    lake = variant.lake_mask
    out = np.full(100, 99, dtype=np.int64)
    out[source] = 0
    frontier = [source]
    while frontier:
        nxt = []
        for sq in frontier:
            for nb in K.NEIGHBOUR[sq]:
                if nb >= 0 and not lake[nb] and out[nb] == 99:
                    out[nb] = out[sq] + 1
                    nxt.append(int(nb))
        frontier = nxt
    return out


def piece_values(view: PlayerView) -> np.ndarray:
    """``float64[2, 12]``: what each type is worth to us (row 0) and to the opponent (row 1) now, in
    material units.

    Starts from people's values for the variant (``beliefs.PEOPLE_PIECE_VALUE``, the thesis's
    ``PIECE_VALUE`` scaled to them for a variant without its own); then, per side: the Marshal is worth
    a fifth more once the other side's Spy is gone; the Spy a tenth of itself once the other side's
    Marshal is; Miners up to double while the other side has Bombs and three or fewer Miners are left
    (a third more per Miner under four), a Sergeant's worth once it has none.
    """
    base = PEOPLE_PIECE_VALUE.get(view.variant.name)
    if base is None:
        base = PIECE_VALUE * (PEOPLE_PIECE_VALUE["classic"][MARSHAL] / PIECE_VALUE[MARSHAL])
        base[FLAG] = 0.0
    counts = np.asarray(view.variant.piece_counts, dtype=np.int64)
    alive = counts[None] - view.taken()  # [Red, Blue] by type
    alive = alive[[view.player, 1 - view.player]]  # [us, them]
    val = np.tile(base, (2, 1))
    for me, them in ((0, 1), (1, 0)):
        if alive[them, SPY] == 0:
            val[me, MARSHAL] *= 1.2
        if alive[them, MARSHAL] == 0:
            val[me, SPY] *= 0.1
        if alive[them, BOMB] > 0 and 0 < alive[me, MINER] <= 3:
            val[me, MINER] *= 1.0 + (4 - alive[me, MINER]) / 3.0
        elif alive[them, BOMB] == 0:
            val[me, MINER] = base[SERGEANT]
    return val


def own_deployment(variant: Variant, player: int, rng: np.random.Generator, disguised: bool = False) -> np.ndarray:
    """The sparring program's setup (``setup=own``): one people deployed with the Flag walled in by Bombs on
    the back row (``walled``), or any people's setup where the variant has none (Barrage); ``disguised``: with
    its lanes rearranged (``env.setups.disguise``) where the pool allows it."""
    try:
        return draw_setup("walled", variant, player, rng, disguised=disguised)
    except ValueError:
        return draw_setup("human", variant, player, rng, disguised=disguised)


class AlphaBetaAgent(SeededBot):
    """The sparring program: piece tracking, Flag inference and an alpha-beta search (module docstring).

    Args:
        seconds: thinking time per move, in seconds (0: no clock; then ``depth`` or ``nodes`` must bound
            the search).
        depth: deepest iteration of iterative deepening, in plies (0: as deep as the time allows).
        nodes: a node budget per move (0: none); with ``seconds=0`` the program is deterministic.
        setup: ``own`` (``own_deployment``: people's walled-in Flags) or a ``base.draw_setup`` source.
        disguise: rearrange the lanes of the people's setup it deploys (``own``, ``human``, ``walled``,
            ``sheltered``; ``env.setups.disguise``), so that an opponent with a library of recorded setups
            cannot tell which one it plays; the other sources are drawn as they are.
        belief: where the type odds of hidden pieces start: ``counts`` (people's setup statistics on unmoved
            pieces, even odds on moved ones), ``learned`` (the belief network shipped for the variant, which
            reads how each piece has moved as people's pieces move; ``counts`` where none is shipped), or a
            belief network's directory; either way held to what tracking allows and to the counts left
            (``tracking.type_odds``).  A network is read without the setup library: it guesses types, not
            which of people's setups the opponent plays.

    Raises:
        ValueError: a negative option, no bound at all (``seconds``, ``depth`` and ``nodes`` all 0), or a
            ``belief`` that is neither ``counts``, ``learned`` nor a directory.
        AgentSpecError, CheckpointError: ``belief`` names no readable belief network (at ``reset``).
    """

    name = "alphabeta"

    def __init__(self, seconds: float = 0.3, depth: int = 0, nodes: int = 0, setup: str = "own",
                 belief: str = "learned", disguise: bool = True) -> None:
        if seconds < 0 or depth < 0 or nodes < 0:
            raise ValueError(f"seconds, depth and nodes must be >= 0 (got {seconds}, {depth}, {nodes})")
        if seconds == 0 and depth == 0 and nodes == 0:
            raise ValueError("give a bound: seconds > 0, depth > 0 or nodes > 0")
        if depth > MAX_PLY - QUIESCENCE_DEPTH - 2:
            raise ValueError(f"depth must be at most {MAX_PLY - QUIESCENCE_DEPTH - 2} plies (got {depth})")
        if belief not in ("counts", "learned") and not Path(belief).is_dir():
            raise ValueError(f"belief must be counts, learned or a belief network's directory (got {belief!r})")
        super().__init__(setup)
        self.seconds, self.depth, self.nodes, self.belief, self.disguise = seconds, depth, nodes, belief, disguise
        self._seen: dict[bytes, int] = {}
        self.last: dict[str, float] = {}
        self._networks: dict[str, object] = {}

    def reset(self, variant: Variant, player: int, seed: int | None = None) -> None:
        super().reset(variant, player, seed)
        self._seen = {}
        if self.belief != "counts" and variant.name not in self._networks:
            from .network_agent import SHIPPED_DIR, learned_belief

            shipped = (SHIPPED_DIR / variant.name / "belief").is_dir()
            self._networks[variant.name] = (learned_belief(self.belief, variant.name, library=False)
                                            if self.belief != "learned" or shipped else None)

    def choose_setup(self) -> np.ndarray:
        from ..env.setups import PEOPLE_POOLS

        if self.setup == "own":
            return own_deployment(self._variant, self._player, self._rng, self.disguise)
        return draw_setup(self.setup, self._variant, self._player, self._rng,
                          disguised=self.disguise and self.setup in PEOPLE_POOLS)

    def act(self, view: PlayerView) -> Move:
        start = time.perf_counter()
        self._remember(view.owner, view.types)
        moves = view.legal_moves
        if len(moves) == 1:
            return moves[0]
        b = self._board(view)
        root = np.array([m.from_sq * 100 + m.to_sq for m in moves], dtype=np.int32)
        cost = np.array([REPEAT_COST * self._seen.get(self._child_key(view, m), 0)
                         + (WIN if _probes_bomb(b, m.from_sq, m.to_sq) else 0.0) for m in moves])
        arrays = self._tables(view, b)
        cost += self._stall_cost(view, b, arrays) * np.array([view.owner[m.to_sq] == -1 for m in moves])
        st = np.zeros((MAX_PLY + 1, 4, 100), dtype=np.int8)
        st[0] = b
        tt = (np.zeros(TT_SIZE, np.uint64), np.zeros(TT_SIZE), np.zeros(TT_SIZE, np.int8),
              np.zeros(TT_SIZE, np.int8), np.full(TT_SIZE, -1, np.int32))
        killers = np.full((MAX_PLY, 2), -1, np.int32)
        history = np.zeros((2, 10000))
        work = (np.zeros((MAX_PLY, K.MAX_MOVES), np.int32), np.zeros((MAX_PLY, K.MAX_MOVES)))
        values = np.zeros(len(root))
        order = np.arange(len(root))
        best, reached, total = 0, 0, 0
        budget = self.nodes if self.nodes else np.iinfo(np.int64).max
        max_depth = self.depth or MAX_PLY - QUIESCENCE_DEPTH - 2
        for depth in range(1, max_depth + 1):
            left = budget - total
            if self.seconds:
                spent = time.perf_counter() - start
                if depth > 1 and spent > 0.5 * self.seconds:
                    break  # the next iteration would not end in time
                rate = max(total, 1e4) / max(spent, 1e-3)
                left = min(left, int((self.seconds - spent) * rate))
            ctl = np.array([0, max(left, 1), 0], dtype=np.int64)
            i = _root(st, depth, root[order], cost[order], values, *work, *arrays, *tt, killers, history, ctl)
            total += int(ctl[0])
            if i < 0:
                break
            best, reached = int(order[i]), depth
            if abs(values[i]) >= WIN - MAX_PLY:
                break  # a forced result: no need to look deeper
            by_move = np.empty(len(root))
            by_move[order] = values
            order = np.argsort(-by_move, kind="stable")
            order = np.concatenate([[best], order[order != best]])
        self.last = {"depth": reached, "nodes": total, "seconds": time.perf_counter() - start}
        move = moves[best]
        self._remember(*self._after(view, move))
        return move

    @staticmethod
    def _stall_cost(view: PlayerView, b: np.ndarray, arrays: tuple) -> float:
        """What a quiet move costs as the no-attack draw nears while we are not behind: nothing until a
        quarter of ``max_moves_without_attack``, then up to ``STALL_COST`` at the limit."""
        limit = view.variant.max_moves_without_attack
        odds, odds_moved, ev, evm, val, info, runner, dist_target, dist_flag, mobile, w = arrays
        if not limit or _evaluate(b, ev, evm, val, info, runner, dist_target, dist_flag, mobile, w) < 0:
            return 0.0
        return STALL_COST * max(0.0, (view.moves_since_attack - limit / 4) / (limit * 3 / 4))

    # -- the search's inputs -------------------------------------------------------------------------------

    def _board(self, view: PlayerView) -> np.ndarray:
        """``int8[4, 100]``: side (0 us, 1 them, 2 lake, -1 empty), known type (-1 hidden), piece id (its
        square now), revealed/moved flags."""
        b = np.full((4, 100), -1, dtype=np.int8)
        me, them = view.owner == view.player, view.owner == 1 - view.player
        b[_SIDE, me], b[_SIDE, them], b[_SIDE, view.owner == 2] = 0, 1, 2
        known = me | (them & view.revealed)
        b[_TYPE, known] = view.types[known]
        on = me | them
        b[_ID, on] = np.flatnonzero(on)
        b[_FLAGS] = np.where(on, view.revealed * _REVEALED | view.moved * _MOVED, 0)
        return b

    def _tables(self, view: PlayerView, b: np.ndarray) -> tuple:
        """The per-decision inputs of ``_root`` after its work arrays: type odds by piece id (as they stand,
        and given the piece moves), expected values likewise, piece values, information values, which
        types run for the Flag, the distance maps to the target and to our Flag, which hidden pieces may
        move, and the evaluation's weights."""
        possible = possible_types(view)
        network = self._networks.get(view.variant.name)
        if network is None:
            flag = flag_odds(view, possible)
            odds = type_odds(view, possible, flag)
        else:
            prior = np.maximum(network.marginals(view), FLOOR)
            flag = prior_flag_odds(view, possible, prior)
            odds = type_odds(view, possible, flag, prior)
        movable = np.where(IMMOVABLE, 0.0, odds)
        mass = movable.sum(axis=1, keepdims=True)
        odds_moved = np.divide(movable, mass, out=np.zeros_like(movable), where=mass > 0)
        val = piece_values(view)
        info = INFO_SHARE * val * val / val.max(axis=1, keepdims=True)
        ev, evm = odds @ val[1], odds_moved @ val[1]
        mobile = mass[:, 0] > MOBILE_ODDS
        me = view.owner == view.player
        alive = np.bincount(view.types[me], minlength=NUM_TYPES)
        runner = np.zeros(NUM_TYPES, bool)
        if alive[MINER]:
            runner[MINER] = True
        else:
            runner[[SCOUT, SERGEANT, LIEUTENANT]] = True
        dist_target = _distances(view.variant, int(np.argmax(flag)))
        flags = np.flatnonzero(me & (view.types == FLAG))
        dist_flag = _distances(view.variant, int(flags[0])) if len(flags) else np.full(100, 99, np.int64)
        return (odds, odds_moved, ev, evm, val, info, runner, dist_target, dist_flag, mobile, EVAL_WEIGHTS)

    # -- positions seen ------------------------------------------------------------------------------------

    def _remember(self, owner: np.ndarray, kinds: np.ndarray) -> None:
        key = owner.tobytes() + kinds.tobytes()
        self._seen[key] = self._seen.get(key, 0) + 1

    @staticmethod
    def _after(view: PlayerView, move: Move) -> tuple[np.ndarray, np.ndarray]:
        """Owners and public types after a quiet ``move`` (a battle's outcome is not known: unchanged)."""
        owner, kinds = view.owner.copy(), view.types.copy()
        if owner[move.to_sq] == -1:
            owner[move.to_sq], kinds[move.to_sq] = owner[move.from_sq], kinds[move.from_sq]
            owner[move.from_sq], kinds[move.from_sq] = -1, -1
        return owner, kinds

    def _child_key(self, view: PlayerView, move: Move) -> bytes:
        owner, kinds = self._after(view, move)
        return owner.tobytes() + kinds.tobytes()


register_agent("alphabeta", AlphaBetaAgent, aliases={"time": "seconds"},
               summary="sparring program: piece tracking, Flag inference, alpha-beta with iterative deepening")
