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
from deepnash.game.pieces import BOMB, CAPTAIN, FLAG, MINER
from deepnash.game.squares import parse_square
from deepnash.testtime.leaf import APPROACH_HORIZON, NO_ATTACK, attack_delay, draw_nearness, flag_approach
from test_search import classic_board, random_position


def test_draw_nearness_is_the_nearer_of_the_two_draw_limits():
    meta = np.zeros((4, K.NUM_META), np.int32)
    meta[:, K.M_PLY] = [0, 300, 1900, 2500]
    meta[:, K.M_SINCE_ATTACK] = [0, 150, 10, 260]
    np.testing.assert_allclose(draw_nearness(meta, CLASSIC), [0.0, 0.75, 0.95, 1.0])  # limits 2000 and 200
    np.testing.assert_allclose(draw_nearness(meta, CLASSIC.with_rules(max_moves=0)), [0.0, 0.75, 0.05, 1.0])
    off = CLASSIC.with_rules(max_moves=0, max_moves_without_attack=0)
    np.testing.assert_array_equal(draw_nearness(meta, off), 0.0)



def slow_flag_approach(board: np.ndarray, player: int) -> int:
    """``flag_approach`` square by square: Dijkstra's search from the opponent's Flag, once for any movable
    piece (the opponent's Bombs in the way) and once for a Miner; a step onto one of ``player``'s movable
    pieces costs two."""
    kind, owner = types_of(board), owners(board)
    best = APPROACH_HORIZON + 1
    for miner in (False, True):
        def open_sq(s: int) -> bool:
            if board[s] == LAKE or (owner[s] == player and kind[s] in (BOMB, FLAG)):
                return False
            return miner or not (owner[s] == 1 - player and kind[s] == BOMB)
        dist = {s: 0 for s in range(100) if owner[s] == 1 - player and kind[s] == FLAG}
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
            if runs and d <= APPROACH_HORIZON:
                best = min(best, d)
    return best


@pytest.mark.parametrize("variant", [CLASSIC, BARRAGE])
def test_flag_approach_agrees_with_a_square_by_square_search(variant):
    """``flag_approach`` on boards of random games, both players, against ``slow_flag_approach``; and on
    Red's Flag walled in by Bombs, a Captain never gets there and a Miner on the far side of a Bomb does."""
    boards = np.stack([random_position(variant, seed, plies)[0].state.board[0]
                       for seed in range(12) for plies in (0, 60, 400)])
    for player in (0, 1):
        assert flag_approach(boards, player).tolist() == [slow_flag_approach(b, player) for b in boards]
    walled = classic_board({"j10": code_of(1, FLAG), "f3": code_of(1, CAPTAIN), "e1": code_of(0, BOMB),
                            "f1": code_of(0, FLAG), "g1": code_of(0, BOMB), "f2": code_of(0, BOMB)})
    assert flag_approach(walled[None], 1).tolist() == [APPROACH_HORIZON + 1]  # the Captain is walled out
    miner = walled.copy()
    miner[parse_square("f3")] = code_of(1, MINER)
    assert flag_approach(miner[None], 1).tolist() == [2]  # through the Bomb on f2



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


