"""Which moves the search weighs: the moves it drops from the prior, and the ones it always adds.

The search (``search.Search.run``) weighs the few moves its prior likes best.  Before it picks them, the
guards drop moves whose cost it would seldom see on a few samples two plies deep: an attack of an officer on
a piece that may be a Bomb (``spared_attacks``, ``SearchConfig.spare``), an attack that loses for certain
(``doomed_attacks``, ``sacrifice=false``), the Marshal beside a Spy (``spied_moves``, ``spy_guard``), the General
beside the Marshal (``marshalled_moves``, ``general_guard``), a piece stepped where a revealed piece takes it
unanswered (``hanging_moves``, ``hang_guard``).  It then adds an attack that may win (``hopeful_attack``, with
``contempt``) and, against an opponent that does not press (``presses``) or near a draw limit, the quiet move
that brings the army nearest the opponent's Flag (``approach_move``, ``approach``, over two moves where one does
not come nearer, ``clearing_plans``; ``exposed`` keeps its bonus off a piece the opponent may take).  Every
function reads public information alone (``PlayerView``), except ``approach_move``, which averages over sampled
hidden types.
"""

from __future__ import annotations

import numpy as np

from ..game import Move
from ..game import kernels as K
from ..game.codes import EMPTY
from ..game.pieces import BOMB, GENERAL, MARSHAL, SPY
from ..infostate.beliefs import FIGHT, IMMOVABLE, attack_odds, fight_odds, hidden_counts, type_distributions
from ..infostate.determinize import complete_state
from ..infostate.view import PlayerView
from .flag_guard import MANHATTAN
from .leaf import (APPROACH_HORIZON, ATTACK_HORIZON, attack_delay, flag_approach, movable_squares,
                   spared_ranks)


def presses(view: PlayerView) -> bool:
    """Whether ``view.player``'s opponent has lost or tied an attack so far in ``view.history`` (public): a
    player that has risked none does not win battles it is not sure of (``SearchConfig.passive``)."""
    opponent = 1 - view.player
    return any(r.player == opponent and r.result in (K.RESULT_DEFENDER_WON, K.RESULT_BOTH_REMOVED)
               for r in view.history)


def spared_attacks(view: PlayerView, moves, rank: int) -> set[Move]:
    """The attacks among ``moves`` that ``SearchConfig.spare`` drops: those of the player's pieces of ``rank``
    or above (piece types, ``SCOUT`` .. ``MARSHAL``) on an opponent piece that is hidden and has never moved,
    while the opponent has an unrevealed Bomb (``hidden_counts``).  Empty when it has none."""
    if hidden_counts(view)[BOMB] == 0:
        return set()
    me, opp = view.player, 1 - view.player
    return {m for m in moves
            if view.owner[m.from_sq] == me and spared_ranks(view.types[m.from_sq], rank)
            and view.owner[m.to_sq] == opp and not view.revealed[m.to_sq] and not view.moved[m.to_sq]}


def spied_moves(view: PlayerView, moves) -> set[Move]:
    """The moves among ``moves`` that ``SearchConfig.spy_guard`` drops: ``exposed_moves`` of the player's
    Marshal to the opponent's Spy, hidden or not."""
    return exposed_moves(view, moves, MARSHAL, SPY)


def marshalled_moves(view: PlayerView, moves) -> set[Move]:
    """The moves among ``moves`` that ``SearchConfig.general_guard`` drops: ``exposed_moves`` of the player's
    General to the opponent's Marshal, counting only opponent pieces that have moved or are revealed."""
    return exposed_moves(view, moves, GENERAL, MARSHAL, moved_only=True)


def hanging_moves(view: PlayerView, moves) -> set[Move]:
    """The quiet moves among ``moves`` (no attack) after which the moving piece hangs: it stands next to a
    revealed movable opponent piece that beats it when attacking (``beliefs.FIGHT``), and no movable piece of the
    player's beside that square (the square just left aside) would beat that piece in turn when it takes there.
    ``SearchConfig.hang_guard`` drops them.  The opponent knows what it attacks with, not what it attacks: a
    bot that attacks on the odds takes a hidden piece as readily as a known one."""
    hangs = _hanging(view)
    return {m for m in moves if view.owner[m.to_sq] != 1 - view.player and hangs(m, int(view.types[m.from_sq]))}


def _hanging(view: PlayerView):
    """``hangs(move, mover)``: whether the player's piece of type ``mover``, on ``move.to_sq`` after ``move``,
    stands next to a revealed movable opponent piece that beats it when attacking, with no movable piece of the
    player's beside that square (``move.from_sq`` aside) that would beat that piece in turn."""
    me, opp = view.player, 1 - view.player
    movable = ~IMMOVABLE[np.clip(view.types, 0, len(IMMOVABLE) - 1)]  # read where the type is known alone
    shown = (view.owner == opp) & view.revealed & movable
    mine = (view.owner == me) & movable

    def hangs(m: Move, mover: int) -> bool:
        around = np.flatnonzero(MANHATTAN[m.to_sq] == 1)
        takers = [int(view.types[sq]) for sq in around if shown[sq] and FIGHT[view.types[sq], mover] > 0]
        back = [int(view.types[sq]) for sq in around if sq != m.from_sq and mine[sq]]
        return not all(any(FIGHT[b, t] > 0 for b in back) for t in takers)
    return hangs


def exposed_moves(view: PlayerView, moves, piece: int, killer: int, moved_only: bool = False) -> set[Move]:
    """The moves among ``moves`` after which the player's ``piece`` (a type, of which it has one), revealed or
    revealed by the move (its own attack, which it is taken to win), stands next to an opponent piece that is
    or may be a ``killer`` on public information (``type_distributions``; with ``moved_only``, among the
    opponent's pieces that have moved or are revealed), the one the move attacks aside (the attack settles it);
    where every move does, those of more than the least exposure (the summed chance of a ``killer`` on the
    squares beside ``piece``).  Empty when the player has no ``piece`` or the opponent can have no ``killer``.

    The guards ``spied_moves`` (the Marshal and the Spy) and ``marshalled_moves`` (the General and the
    Marshal) read it: a ``killer`` beside a ``piece`` the opponent knows takes it, and a search of a few samples
    seldom puts the ``killer`` on the one square."""
    me, opp = view.player, 1 - view.player
    mine = np.flatnonzero((view.owner == me) & (view.types == piece))
    moves = list(moves)
    if len(mine) == 0 or not moves:
        return set()
    threat = view.owner == opp
    if moved_only:
        threat &= view.moved | view.revealed
    chance = np.where(threat, type_distributions(view)[:, killer], 0.0)
    if not chance.any():
        return set()
    home, shown = int(mine[0]), bool(view.revealed[mine[0]])
    exposure = np.zeros(len(moves))
    for i, m in enumerate(moves):
        attack = view.owner[m.to_sq] == opp
        at, known = (m.to_sq, shown or attack) if m.from_sq == home else (home, shown)
        if known:
            beside = chance * (MANHATTAN[at] == 1)
            if attack:
                beside[m.to_sq] = 0.0
            exposure[i] = beside.sum()
    return {m for m, e in zip(moves, exposure) if e > exposure.min() + 1e-9}


def _loses_for_certain(attacker: int, odds: np.ndarray) -> bool:
    """Whether ``attacker`` loses to every type the defender's odds ``odds: float[12]`` allow (``fight_odds``)."""
    return fight_odds(attacker, odds)[2] >= 1.0


def doomed_attacks(view: PlayerView, moves) -> set[Move]:
    """The attacks among ``moves`` that lose for certain on public information (``fight_odds`` against
    ``attack_odds``): a piece other than a Miner on a revealed Bomb, a piece on a revealed one that beats it, a
    Spy on a moved piece once the opponent's Marshal is gone.  ``SearchConfig.sacrifice=False`` drops them."""
    return {m for m, odds in attack_odds(view, moves).items()
            if _loses_for_certain(int(view.types[m.from_sq]), odds)}


def hopeful_attack(view: PlayerView, ranked: list[Move]) -> Move | None:
    """The first attack in ``ranked`` that may not lose on public information alone (not in ``doomed_attacks``),
    or ``None``."""
    for m, odds in attack_odds(view, ranked).items():
        if not _loses_for_certain(int(view.types[m.from_sq]), odds):
            return m
    return None


def approach_move(view: PlayerView, moves: list[Move], hidden: np.ndarray, spare: int = 0) -> Move | None:
    """The quiet move among ``moves`` that brings the player's pieces nearest the opponent's Flag: the one that
    most lowers ``flag_approach`` (with ``spare``, ``SearchConfig.spare``), on average over the complete states
    of ``view`` with the opponent's types ``hidden: int8[N, 100]``, the earlier in ``moves`` on a tie.  Where no
    piece has a way to the Flag on any of them (no Miner left to open Bombs that wall it in), the one that most
    lowers ``attack_delay`` instead: taking the last of the opponent's movable pieces wins too.  Where no quiet
    move lowers the distance, the first move of the best ``clearing_plans`` pair that does, the opponent passing
    between them: a Miner whose way its own pieces block, and whose blocker's only step keeps it in the way,
    comes nearer two moves on.  ``None`` where neither lowers it (``SearchConfig.approach``)."""
    quiet = [m for m in moves if view.owner[m.to_sq] != 1 - view.player]
    if not quiet:
        return None
    states = [complete_state(view, h) for h in hidden]
    base = np.stack([state["board"] for state in states])
    flags = np.stack([state["flags"] for state in states])  # the opponent's do not change with a quiet move

    def to_flag(boards: np.ndarray, marks: np.ndarray) -> np.ndarray:
        return flag_approach(boards, view.player, marks, spare)

    def to_attack(boards: np.ndarray, marks: np.ndarray) -> np.ndarray:
        delay = attack_delay(boards, np.full(len(boards), view.player), view.player, marks, spare)
        return np.minimum(delay, 2 * ATTACK_HORIZON)  # none as near as that: as far as none

    distance, before = to_flag, to_flag(base, flags)
    if (before > APPROACH_HORIZON).all():
        distance, before = to_attack, to_attack(base, flags)
        if (before >= 2 * ATTACK_HORIZON).all():
            return None

    def best(firsts: list[Move], plans: list[list[Move]]) -> Move | None:
        if not plans:
            return None
        gain = (before - _distance_after(base, flags, plans, distance)).mean(axis=1)
        top = int(np.argmax(gain))
        return firsts[top] if gain[top] > 0 else None

    single = best(quiet, [[m] for m in quiet])
    return single if single is not None else best(*clearing_plans(view, quiet))


def clearing_plans(view: PlayerView, quiet: list[Move]) -> tuple[list[Move], list[list[Move]]]:
    """The pairs of quiet steps ``approach_move`` weighs where no single move comes nearer the Flag, as
    ``(firsts, plans)``: each plan ``[first, second]`` with ``first`` from ``quiet`` and ``second`` a one-square
    step onto an empty square, after it, of the piece ``first`` moved, or of a movable piece of the player's
    into the square ``first`` left.  Those are the pairs where the first move alone gains nothing and the
    two do: the piece in the way steps along the way and then off it, or makes room for a neighbour that
    steps aside into its square."""
    movable = movable_squares(np.where(view.owner == view.player, view.types, -1), view.owner, view.player)
    firsts, plans = [], []
    for first in quiet:
        empty = view.owner == -1
        empty[first.from_sq], empty[first.to_sq] = True, False
        seconds = [Move(first.to_sq, int(sq)) for sq in K.NEIGHBOUR[first.to_sq] if sq >= 0 and empty[sq]]
        seconds += [Move(int(sq), first.from_sq) for sq in K.NEIGHBOUR[first.from_sq]
                    if sq >= 0 and sq != first.to_sq and movable[sq]]
        firsts += [first] * len(seconds)
        plans += [[first, second] for second in seconds]
    return firsts, plans


def _distance_after(base: np.ndarray, flags: np.ndarray, plans: list[list[Move]], distance) -> np.ndarray:
    """``int64[P, N]``: ``distance(boards, flags)`` (``approach_move``'s) on the boards ``base: int8[N, 100]``
    (with ``flags: uint8[N, 100]``) after each plan's quiet moves, played one after the other."""
    boards = np.repeat(base[None], len(plans), axis=0)  # [plan, sample, square]
    for i, plan in enumerate(plans):
        for m in plan:
            boards[i, :, m.to_sq] = boards[i, :, m.from_sq]
            boards[i, :, m.from_sq] = EMPTY
    return distance(boards.reshape(-1, 100), np.tile(flags, (len(plans), 1))).reshape(len(plans), -1)


#: Rook steps within which an opponent piece that may take the marching piece keeps ``search.MARCH`` off (``exposed``).
EXPOSURE = 2


def exposed(view: PlayerView, move: Move) -> bool:
    """Whether an opponent piece within ``EXPOSURE`` rook steps (lakes ignored) of ``move``'s square to may be a
    movable piece that takes the player's piece making it, on public information (``type_distributions``).  The
    passive bots take what they know they beat: a march that walks a revealed piece up to their Marshal loses it
    (``search.MARCH``).  A piece that only ties is no danger: a trade costs nothing, and a march that goes to
    trade with the opponent's last movable piece wins (``approach_move``'s fallback).  A hidden piece is exposed
    only to an opponent that has attacked in ``view.history`` (``has_attacked``): one that has taken nothing in
    all the plies the march waits for (``SearchConfig.passive``) does not start with a piece it cannot know it
    beats."""
    if not view.revealed[move.from_sq] and not has_attacked(view):
        return False
    mover = int(view.types[move.from_sq])
    near = (view.owner == 1 - view.player) & (MANHATTAN[move.to_sq] <= EXPOSURE)
    takes = ~IMMOVABLE & (FIGHT[:, mover] > 0)  # [type]: the opponent's types that beat the mover
    return bool((type_distributions(view)[near][:, takes] > 0).any())


def has_attacked(view: PlayerView) -> bool:
    """Whether ``view.player``'s opponent has made an attack in ``view.history`` (public), whatever its result."""
    opponent = 1 - view.player
    return any(r.player == opponent and r.defender >= 0 for r in view.history)
