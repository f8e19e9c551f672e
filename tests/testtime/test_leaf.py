"""How the search scores its leaves (``testtime.leaf``): the nearness of the draw limits, the plies to the
nearest attack, and the steps to the opponent's Flag, against slow square-by-square searches and hand-built
boards."""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from deepnash.game import BARRAGE, CLASSIC, Game
from deepnash.game import kernels as K
from deepnash.game.codes import LAKE, code_of, owners, types as types_of
from deepnash.game.pieces import BOMB, CAPTAIN, FLAG, GENERAL, LIEUTENANT, MARSHAL, MINER
from deepnash.game.squares import parse_square
from deepnash.infostate.view import PlayerView
from deepnash.testtime.candidates import approach_move
from deepnash.testtime.leaf import (APPROACH_HORIZON, NO_ATTACK, attack_delay, draw_nearness, flag_approach,
                                   movable_left)
from test_search import classic_board, random_position


def test_draw_nearness_is_the_nearer_of_the_two_draw_limits():
    meta = np.zeros((4, K.NUM_META), np.int32)
    meta[:, K.M_PLY] = [0, 300, 1900, 2500]
    meta[:, K.M_SINCE_ATTACK] = [0, 150, 10, 260]
    np.testing.assert_allclose(draw_nearness(meta, CLASSIC), [0.0, 0.75, 0.95, 1.0])  # limits 2000 and 200
    np.testing.assert_allclose(draw_nearness(meta, CLASSIC.with_rules(max_moves=0)), [0.0, 0.75, 0.05, 1.0])
    off = CLASSIC.with_rules(max_moves=0, max_moves_without_attack=0)
    np.testing.assert_array_equal(draw_nearness(meta, off), 0.0)


def slow_flag_approach(board: np.ndarray, player: int, flags: np.ndarray | None = None, spare: int = 0) -> int:
    """``flag_approach`` square by square: Dijkstra's search from the opponent's Flag, once for any movable
    piece (the opponent's Bombs in the way) and once for a Miner; a step onto one of ``player``'s movable
    pieces costs two.  With ``spare`` and ``flags``, each search runs again for the pieces of rank ``spare`` and
    above, with the opponent's hidden unmoved pieces in the way (the Flag too) while one of its Bombs is hidden."""
    kind, owner = types_of(board), owners(board)
    secret = [owner[s] == 1 - player and flags is not None and not flags[s] & (K.REVEALED | K.MOVED)
              for s in range(100)]
    spared = [bool(spare) and any(secret[s] and kind[s] == BOMB for s in range(100)) and secret[s] for s in range(100)]
    best = APPROACH_HORIZON + 1
    for miner, big in ((False, False), (True, False), (False, True), (True, True)):
        def open_sq(s: int) -> bool:
            if board[s] == LAKE or (owner[s] == player and kind[s] in (BOMB, FLAG)) or (big and spared[s]):
                return False
            return miner or not (owner[s] == 1 - player and kind[s] == BOMB)
        dist = {s: 0 for s in range(100) if owner[s] == 1 - player and kind[s] == FLAG and not (big and spared[s])}
        queue = [(0, s) for s in dist]
        while queue:
            d, s = heapq.heappop(queue)
            if d > dist[s]:
                continue
            cost = 2 if owner[s] == player and kind[s] not in (BOMB, FLAG) else 1  # stepping onto s from n
            r, c = divmod(s, 10)
            for n in [10 * rr + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                      if 0 <= rr < 10 and 0 <= cc < 10]:
                if open_sq(n) and d + cost < dist.get(n, APPROACH_HORIZON + 1):
                    dist[n] = d + cost
                    heapq.heappush(queue, (d + cost, n))
        for s, d in dist.items():
            runs = owner[s] == player and kind[s] not in (BOMB, FLAG) and (not miner or kind[s] == MINER)
            if runs and (bool(spare) and spare <= kind[s] <= MARSHAL) == big and d <= APPROACH_HORIZON:
                best = min(best, d)
    return best


@pytest.mark.parametrize("variant", [CLASSIC, BARRAGE])
def test_flag_approach_agrees_with_a_square_by_square_search(variant):
    """``flag_approach`` on boards of random games, both players, with and without ``spare``, against
    ``slow_flag_approach`` (``spare`` changes some of them); and on Red's Flag walled in by Bombs, a Captain
    never gets there and a Miner on the far side of a Bomb does."""
    games = [random_position(variant, seed, plies)[0] for seed in range(12) for plies in (0, 60, 400)]
    boards = np.stack([g.state.board[0] for g in games])
    flags = np.stack([g.state.flags[0] for g in games])
    for player in (0, 1):
        assert flag_approach(boards, player).tolist() == [slow_flag_approach(b, player) for b in boards]
        for spare in (MINER, GENERAL):
            spared = flag_approach(boards, player, flags, spare)
            assert spared.tolist() == [slow_flag_approach(b, player, f, spare) for b, f in zip(boards, flags)]
            assert (spared != flag_approach(boards, player)).any()
    walled = classic_board({"j10": code_of(1, FLAG), "f3": code_of(1, CAPTAIN), "e1": code_of(0, BOMB),
                            "f1": code_of(0, FLAG), "g1": code_of(0, BOMB), "f2": code_of(0, BOMB)})
    assert flag_approach(walled[None], 1).tolist() == [APPROACH_HORIZON + 1]  # the Captain is walled out
    miner = walled.copy()
    miner[parse_square("f3")] = code_of(1, MINER)
    assert flag_approach(miner[None], 1).tolist() == [2]  # through the Bomb on f2


def test_movable_left_says_which_player_has_a_piece_that_can_move():
    """Bombs and Flags cannot move, a Miner can; on random games, where both armies stand, both players have one."""
    bombs = classic_board({"a1": code_of(0, FLAG), "b1": code_of(0, BOMB), "a2": code_of(0, BOMB),
                           "j10": code_of(1, FLAG), "i10": code_of(1, BOMB)})
    miner = bombs.copy()
    miner[parse_square("j9")] = code_of(1, MINER)
    boards = np.stack([bombs, miner])
    assert movable_left(boards, 0).tolist() == [False, False]
    assert movable_left(boards, 1).tolist() == [False, True]
    for seed in range(5):
        game, _ = random_position(CLASSIC, seed, 60)
        assert movable_left(game.state.board[:1], 0)[0] and movable_left(game.state.board[:1], 1)[0]


def test_attack_delay_counts_the_plies_to_the_nearest_attack_that_does_not_lose():
    """Red's Scout on e2 loses to the Marshal above it and to the Bomb, and ties the Scout three steps
    away on h2: two moves there and the attack, ``2 * (3 - 1)`` plies after Red's move, one more when Blue
    moves first.  The Miner's Bomb is four steps away.  Without the Miner and that Scout, the Flag is
    13 steps from Red's Scout; with nothing movable left, no attack comes: ``NO_ATTACK``."""
    board = Game.from_diagram("""
        10 .. .. .. .. .. .. .. .. .. bF
         9 .. .. .. .. .. .. .. .. .. ..
         8 .. .. .. .. .. .. .. .. .. ..
         7 .. .. .. .. .. .. .. .. .. ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 bB .. ~~ ~~ bB .. ~~ ~~ .. ..
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. bM .. .. .. .. ..
         2 .. .. .. .. r2 .. .. b2 .. ..
         1 r3 .. .. .. .. .. .. .. .. rF
           a  b  c  d  e  f  g  h  i  j
        """, BARRAGE).state.board[0]
    no_scout, alone, stuck = board.copy(), board.copy(), board.copy()
    no_scout[17] = 0  # h2
    alone[[0, 17]] = 0  # the Miner on a1 as well
    stuck[[0, 14]] = 0  # Red's Miner and Scout
    boards = np.stack([board, board, no_scout, alone, stuck])
    np.testing.assert_array_equal(attack_delay(boards, np.array([0, 1, 0, 0, 0]), 0), [4, 5, 6, 24, NO_ATTACK])


def test_attack_delay_goes_round_what_is_in_the_way():
    """Blue's Flag on j10 is walled in by Bombs on i10 and j9.  Red's General on i7 is four rook steps from
    it, but cannot get there, and loses to the Bombs: the nearest attack is the Miner's on a1, sixteen steps
    along the first row and up the i-file (past its own General) to i9, and the seventeenth onto the Bomb.
    Open the wall and the General's attack is the nearest, three steps and the fourth."""
    walled = Game.from_diagram("""
        10 .. .. .. .. .. .. .. .. bB bF
         9 .. .. .. .. .. .. .. .. .. bB
         8 .. .. .. .. .. .. .. .. .. ..
         7 .. .. .. .. .. .. .. .. r9 ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 .. .. .. .. .. .. .. .. .. ..
         1 r3 .. .. .. .. .. .. .. .. rF
           a  b  c  d  e  f  g  h  i  j
        """, BARRAGE).state.board[0]
    opened = walled.copy()
    opened[89] = 0  # j9
    boards = np.stack([walled, walled, opened])
    np.testing.assert_array_equal(attack_delay(boards, np.array([0, 1, 0]), 0), [2 * 16, 2 * 16 + 1, 2 * 3])


def test_attack_delay_leaves_out_the_attacks_spare_keeps_the_general_from():
    """Red's General on e4 stands next to Blue's unmoved hidden Lieutenant on e5, and Red's Major on a1 is eight
    rook steps from it.  With ``spare=9``, while Blue's Bomb on i10 is hidden, the General's attack is none to
    come (nor is its run at the unmoved Flag): the delay is the Major's, ``2 * (8 - 1)`` plies.  Once the Lieutenant
    has moved, or the Bomb is revealed, or with ``spare=0`` or without the flags, the General's attack counts.
    ``spare=7`` keeps the Major too, and Red has no attack left to make."""
    board = Game.from_diagram("""
        10 .. .. .. .. .. .. .. .. bB bF
         9 .. .. .. .. .. .. .. .. .. ..
         8 .. .. .. .. .. .. .. .. .. ..
         7 .. .. .. .. .. .. .. .. .. ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ b5 .. ~~ ~~ .. ..
         4 .. .. .. .. r9 .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 .. .. .. .. .. .. .. .. .. ..
         1 r7 .. .. .. .. .. .. .. .. rF
           a  b  c  d  e  f  g  h  i  j
        """, CLASSIC).state.board[0]
    unmoved = np.zeros(100, np.uint8)
    moved, shown = unmoved.copy(), unmoved.copy()
    moved[parse_square("e5")] = K.MOVED
    shown[parse_square("i10")] = K.REVEALED
    boards = np.stack([board] * 4)
    flags = np.stack([unmoved, unmoved, moved, shown])
    to_move = np.array([0, 1, 0, 0])
    np.testing.assert_array_equal(attack_delay(boards, to_move, 0, flags, spare=9), [14, 15, 0, 0])
    np.testing.assert_array_equal(attack_delay(boards, to_move, 0, flags, spare=0), [0, 1, 0, 0])
    np.testing.assert_array_equal(attack_delay(boards, to_move, 0), [0, 1, 0, 0])
    np.testing.assert_array_equal(attack_delay(boards, to_move, 0, flags, spare=7)[:2], [NO_ATTACK, NO_ATTACK])


def test_spare_sends_the_pieces_that_may_attack_to_the_flag_and_not_the_general():
    """Blue's Flag on j10 stands behind two unmoved hidden pieces (i10, j9), and a hidden Bomb on a10.  Red's
    General on j7 is three rook steps from it, through j9 as if taken; its Lieutenant on e2 thirteen.  With
    ``spare=9`` the General may not attack unmoved pieces while a Bomb is hidden, so it does not get there: the
    approach is the Lieutenant's, and ``approach_move`` walks the Lieutenant instead of the General.  That the
    piece on j9 has moved does not open the General's way, since the Flag it would take has not; the Bomb
    revealed does."""
    board = classic_board({"a10": code_of(1, BOMB), "i10": code_of(1, LIEUTENANT), "j10": code_of(1, FLAG),
                           "j9": code_of(1, LIEUTENANT), "j7": code_of(0, GENERAL), "e2": code_of(0, LIEUTENANT),
                           "a1": code_of(0, FLAG)})
    unmoved = np.zeros(100, np.uint8)
    moved, shown = unmoved.copy(), unmoved.copy()
    moved[parse_square("j9")] = K.MOVED
    shown[parse_square("a10")] = K.REVEALED
    assert flag_approach(board[None], 0, unmoved[None], 0).tolist() == [3]
    assert flag_approach(board[None], 0, unmoved[None], GENERAL).tolist() == [13]
    assert flag_approach(board[None], 0, moved[None], GENERAL).tolist() == [13]  # the Flag is unmoved still
    assert flag_approach(board[None], 0, shown[None], GENERAL).tolist() == [3]
    view = PlayerView.of(Game.from_state(CLASSIC, board, unmoved, turn=0, ply=250, moves_since_attack=20), 0)
    truth = np.where(view.owner == 1, types_of(board), -1).astype(np.int8)[None]
    assert str(approach_move(view, view.legal_moves, truth)) == "j7-j8"
    assert str(approach_move(view, view.legal_moves, truth, GENERAL)) in ("e2-e3", "e2-f2")
