"""Guarding the Flag: how near an opponent piece is to taking it first, and the move that answers it.

The search looks a few moves deep among the moves its prior likes; a piece running at the Flag from six
moves away is invisible to it until too late (issue "Win as DeepNash won", the lost game against the
Demon of Ignorance, ``arena.raids``).  A race decides such a raid.  The raider must step onto one of the
Flag's *entries* (its neighbours the raider can enter: a Bomb only for a Miner) before it takes the Flag;
a defender that beats or ties it stops it there if it stands next to that entry when the raider arrives.
A raider ``s`` moves from entry ``e`` (``raid_steps``) reaches it after ``s`` moves; a defender ``m`` rook
steps from ``e`` (``defender_steps``: round Bombs and lakes, and a move more for each piece that must step
out of its way) stands next to it after ``m - 1`` moves and attacks with the next, so with the defender to
move it is in time at ``e`` when ``s + 1 - m >= 0``.  The raider picks its entry, so the race's *slack*
is the least of ``s + 1 - m`` over the entries, for the best defender, less one when the raider moves
first: below 0 the race is lost.  (On the lost game's position, the exhaustive search of
``arena.raids.defence_exists`` agrees with that sign after each of the first four moves.)

``flag_danger`` scores races on complete (sampled) boards, for the search's leaves.  From public
information (``public_raids``), ``guarding_move`` picks the defender's move that widens the most pressing
race, for the search's candidates (``slack_after`` races each move on its own board).  ``raid_solve`` solves
races exactly, for ``SearchConfig.hold``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..game import Move
from ..game import kernels as K
from ..game.codes import EMPTY, LAKE, code_of, owners, types
from ..game.pieces import BOMB, FLAG, MINER, NUM_TYPES, SCOUT
from ..infostate.beliefs import FIGHT, IMMOVABLE, attack_odds, fight_odds, type_distributions
from ..infostate.view import UNKNOWN, PlayerView

#: Raiders more than this many moves from an entry are not raced.
HORIZON = 8

#: Defenders more than this many moves from an entry count as this many plus one (``defender_steps``).
GUARD_HORIZON = 2 * HORIZON

#: Slack (moves) from which a race is safe (``danger_of``).
SLACK = 2

#: The danger of a race held with no move to spare; it falls linearly to 0 at ``SLACK`` moves.
HELD = 0.1

#: ``MANHATTAN[a, b]``: the rook-step distance between squares ``a`` and ``b`` (lakes ignored).
MANHATTAN = np.abs(np.arange(100)[:, None] // 10 - np.arange(100)[None] // 10) \
    + np.abs(np.arange(100)[:, None] % 10 - np.arange(100)[None] % 10)

#: The weight of the race of a piece that may be a Miner, run as a Miner whatever its sample's type
#: (``flag_danger``): below 1, so that where every candidate loses that race on every sample, the
#: candidates' values still tell them apart.
MAY_MINE = 0.5

#: Slack given to a raider no defender can stop (beyond any ``SLACK``: it is not raced).
UNSTOPPED = -100

#: Slack given to a race whose raider the player's move takes (``slack_after``).
WON = 100


def raid_steps(passable: np.ndarray, target: np.ndarray, horizon: int = HORIZON) -> np.ndarray:
    """``int64[N, 100]``: rook steps from each square to ``target`` through ``passable`` squares, for
    ``passable: bool[N, 100]`` and ``target: int[N]`` (one square per board, -1 for none); ``horizon + 1``
    beyond ``horizon`` steps or where no path leads (``path_steps`` from one square)."""
    sources = np.zeros(passable.shape, dtype=bool)
    rows = np.flatnonzero(target >= 0)
    sources[rows, target[rows]] = True
    return path_steps(passable, sources, horizon)


def path_steps(passable: np.ndarray, sources: np.ndarray, horizon: int = HORIZON,
               wanted: np.ndarray | None = None, toll: np.ndarray | None = None) -> np.ndarray:
    """``int64[N, 100]``: rook steps from each square to the nearest of ``sources: bool[N, 100]`` (0 there)
    through ``passable: bool[N, 100]`` squares; ``horizon + 1`` beyond ``horizon`` steps or where no path
    leads.  With ``toll: bool[N, 100]``, stepping onto a toll square costs two steps instead of one (a
    piece standing there must first step aside); the square a path starts from is never charged.  A
    breadth-first search by cost (Dial's), all boards at once; with ``wanted: bool[N, 100]`` it may stop
    once every wanted square has its distance."""
    n = len(passable)
    dist = np.where(sources, 0, horizon + 1).astype(np.int64)
    free = passable.reshape(n, 10, 10)
    grid = dist.reshape(n, 10, 10)
    tolled = None if toll is None else toll.reshape(n, 10, 10)
    last = sources.reshape(n, 10, 10).copy()  # the squares at distance step - 1
    before = np.zeros_like(last)  # those at distance step - 2
    for step in range(1, horizon + 1):
        # a toll square passes its distance on a step later
        reach = last if tolled is None else (last & ~tolled) | (before & tolled)
        near = np.zeros_like(reach)
        near[:, 1:] |= reach[:, :-1]
        near[:, :-1] |= reach[:, 1:]
        near[:, :, 1:] |= reach[:, :, :-1]
        near[:, :, :-1] |= reach[:, :, 1:]
        frontier = near & free & (grid > step)
        if not frontier.any() and (tolled is None or not (last & tolled).any()):
            break
        grid[frontier] = step
        before, last = last, frontier
        if wanted is not None and (dist[wanted] <= horizon).all():
            break
    return dist


def entry_steps(open_sq: np.ndarray, own_bomb: np.ndarray, flag: np.ndarray, miner: np.ndarray,
                raiders: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the raiders can enter next to the Flag, and how soon.

    Args:
        open_sq: ``bool[N, 100]``, squares a raider may cross (not lakes, not the raider's own side's
            immovable pieces); the defender's Bombs are taken out for raiders that are not Miners.
        own_bomb: ``bool[N, 100]``, the defender's Bombs.
        flag: ``int[N]``, the defender's Flag square.
        miner: ``bool[N, R]``, raiders that may be Miners.
        raiders: ``int[R]``, the squares of the raiders looked at.

    Returns:
        ``(steps int64[N, 4, R], entries int64[N, 4])``: the Flag's four neighbours (-1 off the board or
        where no raider may step) and each raider's moves to each (``raid_steps``; ``HORIZON + 1``
        beyond ``HORIZON`` or where it cannot), by paths that cross none of the Flag's other neighbours:
        a raider there is next to the Flag already, and its race is that entry's.
    """
    n = len(flag)
    every = np.arange(n)
    steps = np.full((n, 4, len(raiders)), HORIZON + 1, dtype=np.int64)
    entries = np.full((n, 4), -1, dtype=np.int64)
    around = K.NEIGHBOUR[flag]  # [board, 4]: the Flag's neighbours, -1 off the board
    board_of, side_of = np.nonzero(around >= 0)
    for side, entry in enumerate(around.T):  # [board]: one direction's entry square
        # the Flag and its other neighbours: a raider there has already arrived
        closed = np.zeros(open_sq.shape, dtype=bool)
        closed[every, flag] = True
        other = side_of != side
        closed[board_of[other], around[board_of[other], side_of[other]]] = True
        for is_miner in (False, True):
            if not (miner == is_miner).any():
                continue
            crossable = open_sq & (is_miner | ~own_bomb) & ~closed
            target = np.where((entry >= 0) & crossable[every, np.maximum(entry, 0)], entry, -1)
            entries[:, side] = np.maximum(entries[:, side], target)
            arrive = raid_steps(crossable, target)[:, raiders]  # [board, raider]
            arrive[(miner != is_miner) | (target[:, None] < 0)] = HORIZON + 1
            steps[:, side] = np.minimum(steps[:, side], arrive)
    return steps, entries


def defender_steps(empty: np.ndarray, movable: np.ndarray, entries: np.ndarray, guards: np.ndarray) -> np.ndarray:
    """``int64[N, 4, G]``: the moves ``m`` after which each defender on ``guards: int[G]`` can attack a piece
    on each of ``entries: int[N, 4]`` (``entry_steps``' answer, -1 for none), so that it stands next to the
    entry after ``m - 1`` moves.

    The defender steps through ``empty: bool[N, 100]`` squares, one move each, and through squares of
    ``movable: bool[N, 100]`` pieces (its side's or the opponent's), two moves each: one for the piece to
    step aside; Bombs, Flags and lakes are in its way.  With every square between a defender and an entry
    empty, ``m`` is the rook steps between them.  0 for a defender on the entry, ``GUARD_HORIZON + 1``
    beyond ``GUARD_HORIZON`` moves, where no path leads, and for no entry.  A shortest-path relaxation over
    the boards, all entries at once."""
    n = len(entries)
    far = GUARD_HORIZON + 1
    target = entries.reshape(-1)
    rows = np.flatnonzero(target >= 0)
    # ``enter[b, sq]``: the moves it takes to step onto ``sq``, past whatever stands there (0: never)
    enter = np.repeat(np.where(empty, 1, np.where(movable, 2, 0)), 4, axis=0)
    enter[rows, target[rows]] = 1  # the attack on the entry
    enter = enter.reshape(-1, 10, 10)
    dist = np.full((4 * n, 10, 10), far, dtype=np.int64)
    dist.reshape(-1, 100)[rows, target[rows]] = 0
    step = np.full((4 * n, 12, 12), far, dtype=np.int64)  # padded: off the board is never a way

    def nearest_step() -> np.ndarray:  # [board, 10, 10]: the least over each square's neighbours
        step[:, 1:11, 1:11] = np.where(enter > 0, dist + enter, far)
        return np.minimum(np.minimum(step[:, :10, 1:11], step[:, 2:, 1:11]),
                          np.minimum(step[:, 1:11, :10], step[:, 1:11, 2:]))

    for _ in range(2 * GUARD_HORIZON):
        nearer = np.minimum(dist, nearest_step())
        if (nearer == dist).all():
            break
        dist = nearer
    m = nearest_step().reshape(-1, 100)[:, guards]  # [board * entry, defender]: from the defender's own square
    m = np.where(target[:, None] == guards[None], 0, m)
    return np.minimum(m, far).reshape(n, 4, len(guards))


def race_slack(steps: np.ndarray, away: np.ndarray, stops: np.ndarray, raider_first: np.ndarray) -> np.ndarray:
    """``int64[N, G, R]``: the slack (moves, see the module) of each of ``G`` defenders against each of
    ``R`` raiders: the least over the entries of ``s + 1 - m``, ``s`` the raider's moves to the entry
    and ``m`` the defender's steps to it, less one where the raider's side moves first.

    Args:
        steps: ``entry_steps``' moves of each raider to each entry, ``int64[N, 4, R]``.
        away: ``defender_steps``' answer, ``int64[N, 4, G]``.
        stops: ``bool[N, G, R]``, the defender stops the raider (False where either is not there).
        raider_first: ``bool[N]``, the raider's side moves first.

    Returns:
        The slack, ``UNSTOPPED`` where the defender does not stop the raider, and for raiders more than
        ``HORIZON`` moves from every entry.
    """
    each = np.where(steps[:, :, None, :] <= HORIZON, steps[:, :, None, :] + 1 - away[:, :, :, None], -UNSTOPPED)
    slack = each.min(axis=1) - np.asarray(raider_first, dtype=np.int64)[:, None, None]
    return np.where(stops & (steps.min(axis=1) <= HORIZON)[:, None, :], slack, UNSTOPPED)


def danger_of(slack: np.ndarray) -> np.ndarray:
    """Danger in [0, 1] of a race of ``slack`` moves: 1 when it is lost (below 0), ``HELD`` when it holds with
    no move to spare, falling to 0 at ``SLACK`` moves."""
    return np.where(slack < 0, 1.0, HELD * np.clip((SLACK - slack) / SLACK, 0.0, 1.0))


def scout_in_line(boards: np.ndarray, player: int) -> np.ndarray:
    """``bool[N]``: on complete boards ``int8[N, 100]``, an opponent Scout has a clear straight line to
    ``player``'s Flag (only empty squares between them), so that it takes the Flag with its next move."""
    n = len(boards)
    every = np.arange(n)
    kind, owner = types(boards), owners(boards)
    flag_here = (owner == player) & (kind == FLAG)
    start = np.where(flag_here.any(axis=1), flag_here.argmax(axis=1), -1)
    seen = np.zeros(n, dtype=bool)
    for direction in range(4):
        sq = start
        for _ in range(9):  # outwards from the Flag, until a piece, a lake or the edge
            sq = np.where(sq >= 0, K.NEIGHBOUR[np.maximum(sq, 0), direction], -1)
            at = np.maximum(sq, 0)
            seen |= (sq >= 0) & (owner[every, at] == 1 - player) & (kind[every, at] == SCOUT)
            sq = np.where(boards[every, at] == EMPTY, sq, -1)
    return seen


def flag_danger(boards: np.ndarray, to_move: np.ndarray, player: int,
                may_mine: np.ndarray | None = None) -> np.ndarray:
    """``float64[N]`` in [0, 1]: how near an opponent piece is to taking ``player``'s Flag before a defender
    can stop it, on complete boards ``int8[N, 100]``, ``to_move: int[N]`` the player to move.

    ``may_mine: bool[100]`` marks the squares whose opponent piece may be a Miner on public information
    (hidden, while a Miner is unaccounted for): each such piece is also raced as a Miner, and that race's
    danger, times ``MAY_MINE``, counts where it is the greater, since a sample seldom makes a piece the Miner
    that clears the Bombs beside the Flag.

    Every movable opponent piece is raced (``race_slack``) against ``player``'s movable pieces that beat
    or tie it when attacking (``beliefs.FIGHT``); a race's slack is its best defender's, its danger
    ``danger_of`` that, and 0 when ``player``, to move, can attack the raider now with such a piece.  A
    board's danger is its most dangerous race's, and 1 where the opponent is to move with a Scout in line
    with the Flag (``scout_in_line``: the races count steps, not a Scout's runs); 0 where ``player`` has
    no Flag."""
    kind, owner = types(boards), owners(boards)
    k = np.clip(kind, 0, None).astype(np.int64)
    if may_mine is not None:
        as_miner = may_mine[None] & (owner == 1 - player) & (kind >= 0) & ~IMMOVABLE[k] & (kind != MINER)
        if as_miner.any():
            miners = np.where(as_miner, code_of(1 - player, MINER), boards).astype(boards.dtype)
            return np.maximum(flag_danger(boards, to_move, player), MAY_MINE * flag_danger(miners, to_move, player))
    flag_here = (owner == player) & (kind == FLAG)
    movable = (kind >= 0) & ~IMMOVABLE[k]
    raiders = (owner == 1 - player) & movable & flag_here.any(axis=1)[:, None]
    me_first = np.asarray(to_move) == player
    shot = np.where(~me_first & scout_in_line(boards, player), 1.0, 0.0)
    if not raiders.any():
        return shot
    mine = (owner == player) & movable
    guards, raiding = np.flatnonzero(mine.any(axis=0)), np.flatnonzero(raiders.any(axis=0))
    kg, kr = k[:, guards], k[:, raiding]
    stops = mine[:, guards, None] & raiders[:, None, raiding] & (FIGHT[kg[:, :, None], kr[:, None, :]] >= 0)
    now = (stops & (MANHATTAN[guards][:, raiding] == 1)[None]).any(axis=1) & me_first[:, None]
    stops &= ~now[:, None, :]  # a raider the player takes now is no race
    theirs_fixed = (owner == 1 - player) & (kind >= 0) & ~movable
    steps, entries = entry_steps((boards != LAKE) & ~theirs_fixed, (owner == player) & (kind == BOMB),
                                 flag_here.argmax(axis=1), (kind == MINER)[:, raiding], raiding)
    slack = race_slack(steps, defender_steps(boards == EMPTY, movable, entries, guards), stops, ~me_first)
    best = slack.max(axis=1, initial=UNSTOPPED)  # [board, raider]: the best defender's (none: unstopped)
    return np.maximum(np.where(best > UNSTOPPED, danger_of(best), 0.0).max(axis=1), shot)


@dataclass(frozen=True)
class Raids:
    """The races to ``player``'s Flag on public information (``public_raids``), the player to move.

    Attributes:
        raiding: ``int64[R]``, each race's raider square (a raider that may be a Miner is raced twice: as
            what it is, through no Bomb, and as a Miner).
        steps: ``int64[1, 4, R]`` and ``entries``: ``int64[1, 4]``, ``entry_steps``' answer.
        beats: ``bool[12, R]``, which of the player's piece types stop each raider, for certain or more
            likely than not.
        guards: ``int64[G]``, the squares of the player's pieces that can move.
        slack: ``int64[R]``, each race's slack for its best defender (``race_slack``; at least 0 where a
            defender can take the raider now), ``UNSTOPPED`` for a race no defender stops.
        takes: ``bool[G, R]``, the defender can take the raider now.
    """

    raiding: np.ndarray
    steps: np.ndarray
    entries: np.ndarray
    beats: np.ndarray
    guards: np.ndarray
    slack: np.ndarray
    takes: np.ndarray


def public_raids(view: PlayerView) -> Raids | None:
    """The races of the opponent's pieces to ``view.player``'s Flag on public information, ``None`` where the
    player has no Flag or no piece to move, or the opponent no raider.

    Raiders are the opponent's pieces that have moved or are revealed movable, each raced as what it is
    (through no Bomb) and, where it may be a Miner, once more as one.  Defenders are the player's pieces that
    beat or tie a raider for certain (revealed, or raced as a Miner) or more likely than not
    (``beliefs.fight_odds`` over ``type_distributions``).  A race holds, at least with no move to spare,
    where a defender stands next to the raider."""
    me = view.player
    flag = np.flatnonzero((view.owner == me) & (view.types == FLAG))
    movers = sorted({m.from_sq for m in view.legal_moves})
    if len(flag) == 0 or not movers:
        return None
    kinds = np.clip(view.types.astype(np.int64), 0, NUM_TYPES - 1)
    hidden = (view.owner == 1 - me) & (view.types == UNKNOWN)
    raiders = _raiders(view, kinds)
    if not raiders.any():
        return None
    # ``beats[type, raider]``: a defender of that type stops it, for certain or more likely than not
    holds = FIGHT >= 0  # [defender type, raider type]: wins or ties, attacking
    dist = type_distributions(view)
    as_miner = raiders & ((view.types == MINER) | (hidden & (dist[:, MINER] > 0)))
    itself = raiders & (view.types != MINER)
    raiding = np.concatenate([np.flatnonzero(itself), np.flatnonzero(as_miner)])
    miner = np.arange(len(raiding)) >= itself.sum()
    beats = np.where(miner[None], holds[:, [MINER]],
                     np.where(hidden[raiding][None], (dist[raiding] @ holds.T).T > 0.5, holds[:, kinds[raiding]]))
    steps, entries = entry_steps(
        ((view.owner != 2) & ~((view.owner == 1 - me) & view.revealed & IMMOVABLE[kinds]))[None],
        ((view.owner == me) & (view.types == BOMB))[None], flag[:1], miner[None], raiding)
    guards = np.array(movers)
    stops = beats[kinds[guards]][None]  # [1, defender, raider]
    empty = (view.owner < 0)[None]
    movable = (((view.owner == me) & ~IMMOVABLE[kinds]) | raiders)[None]
    slack = race_slack(steps, defender_steps(empty, movable, entries, guards), stops, np.array([False]))[0]
    takes = stops[0] & (MANHATTAN[guards][:, raiding] == 1)  # [defender, raider]: can take it now
    slack = np.where(takes & (slack > UNSTOPPED), np.maximum(slack, 0), slack)  # so a lost race still holds
    return Raids(raiding, steps, entries, beats, guards, slack.max(axis=0), takes)


def _raiders(view: PlayerView, kinds: np.ndarray) -> np.ndarray:
    """``bool[100]``: the opponent's pieces that have moved or are revealed movable."""
    return (view.owner == 1 - view.player) & (view.moved | (view.revealed & ~IMMOVABLE[kinds]))


def guarding_move(view: PlayerView) -> Move | None:
    """The legal move that best answers the most pressing raid on ``view.player``'s Flag, from public
    information alone (``public_raids``), or ``None`` when no race has less than ``SLACK`` moves of slack.

    The most pressing race is the one of least slack among those that still hold (slack 0 or more), or
    among all when every race is lost: a move can save only a race that holds, and the raider of a lost one
    may not know where the Flag is.  Where a defender stands next to the raider, the answer is that
    defender's attack on it.  Otherwise every move of the player onto an empty square is raced again
    (``answer``): a defender's step, or another piece stepping out of a defender's way."""
    raids = public_raids(view)
    if raids is None:
        return None
    best = raids.slack
    raced = best > UNSTOPPED
    if not raced.any() or best[raced].min() >= SLACK:
        return None
    holding = raced & (best >= 0)
    pressing = np.flatnonzero(holding) if holding.any() else np.flatnonzero(raced)
    r = int(pressing[best[pressing].argmin()])
    if raids.takes[:, r].any():
        return Move(int(raids.guards[np.flatnonzero(raids.takes[:, r])[0]]), int(raids.raiding[r]))
    quiet = [m for m in view.legal_moves if view.owner[m.to_sq] < 0]
    if not quiet:
        return None
    return answer(view, quiet, raids, pressing, int(raids.raiding[r]))


def slack_after(view: PlayerView, moves: list[Move], raids: Raids) -> np.ndarray:
    """``int64[M, R]``: the slack of each of ``raids``' races after each of ``moves``, the raider to move, for
    its best defender (``race_slack``).  Each move is raced on its own board, all at once
    (``defender_steps``), every piece of the player a defender, so that a piece stepping out of a defender's
    way counts as much as the defender's own step.

    An attack is a battle: one the attacker wins for certain on public information (``attack_odds``) leaves
    it where it attacked, the opponent's piece gone; any other leaves the opponent's piece and takes the
    attacker off the board, as if it lost.  A piece that lands next to a revealed opponent piece that beats
    it is taken off too: the opponent, to move, takes it.  An attack on a raider by a piece that stops it
    (``Raids.beats``) wins that raider's races (``WON``)."""
    me, n = view.player, len(moves)
    kinds = np.clip(view.types.astype(np.int64), 0, NUM_TYPES - 1)
    board = np.tile(np.where(view.owner == me, kinds, -1), (n, 1))  # [move, square]: the player's pieces
    rows = np.arange(n)
    frm, to = np.array([m.from_sq for m in moves]), np.array([m.to_sq for m in moves])
    odds = attack_odds(view, moves)
    lands = np.array([m not in odds or fight_odds(int(kinds[m.from_sq]), odds[m])[0] >= 1.0 for m in moves])
    # a piece that lands next to a revealed opponent piece that beats it is taken before it can defend
    known = (view.owner == 1 - me) & view.revealed & ~IMMOVABLE[kinds]
    hangs = np.array([bool((known & (MANHATTAN[m.to_sq] == 1) & (FIGHT[kinds, kinds[m.from_sq]] > 0)).any())
                      for m in moves])
    stays = lands & ~hangs
    board[rows[stays], to[stays]] = board[rows[stays], frm[stays]]
    board[rows, frm] = -1
    mine = (board >= 0) & ~IMMOVABLE[np.maximum(board, 0)]
    theirs = np.tile(_raiders(view, kinds), (n, 1))  # as ``public_raids``' raiders
    theirs[rows[lands], to[lands]] = False
    empty = (board < 0) & (view.owner < 0)[None]
    empty[rows, frm] = True
    guards = np.flatnonzero(mine.any(axis=0))
    stops = mine[:, guards, None] & raids.beats[np.maximum(board[:, guards], 0)]  # [move, defender, raider]
    away = defender_steps(empty, mine | theirs, np.repeat(raids.entries, n, axis=0), guards)
    slack = race_slack(np.repeat(raids.steps, n, axis=0), away, stops, np.ones(n, bool))
    slack = slack.max(axis=1, initial=UNSTOPPED)  # no defender left (each falls on its move): unstopped
    hit = to[:, None] == raids.raiding[None]  # [move, race]: the move attacks the race's raider
    taken = hit & (lands[:, None] | raids.beats[kinds[frm]])
    return np.where(taken, WON, slack)


def answer(view: PlayerView, moves: list[Move], raids: Raids, raced: np.ndarray, raider: int) -> Move:
    """The one of ``moves`` (the player's moves onto empty squares) that leaves the races of ``raced``
    (indices into ``raids``' races) widest, the raider to move (``slack_after``): the most of the least
    slack, capped at ``SLACK``, then of their sum, then the move that lands nearest ``raider``, the pressing
    race's raider."""
    kept = np.minimum(slack_after(view, moves, raids)[:, raced], SLACK)
    to = np.array([m.to_sq for m in moves])
    key = np.lexsort((MANHATTAN[to, raider], -kept.sum(axis=1), -kept.min(axis=1)))
    return moves[int(key[0])]
