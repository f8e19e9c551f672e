"""Value bounds: the two-step look-ahead removes a planted blunder and keeps the safe alternative."""

import math

import numpy as np
import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.agents import PlayerView
from deepnash.game import Game, Move
from deepnash.game.kernels import NEIGHBOUR
from deepnash.game.pieces import SCOUT
from deepnash.infostate.beliefs import FIGHT, IMMOVABLE
from deepnash.infostate.view import push_recorded
from deepnash.testtime import TestTimeConfig, TestTimeLayer
from deepnash.testtime.public import EMPTY, PublicBoard
from deepnash.testtime.value_bounds import safe_replies, value_bounds
from testtime_helpers import Played, piece_count_value, small_variant

# Red (to move) has an unknown Scout on e5; Blue's Marshal on e7 is known, and so is Red's Marshal
# (a2), so a Blue Marshal attacking any unknown Red piece that has moved is sure to win.  Red's
# Miner on i9 stands next to an unknown, unmoved Blue piece.
BLUNDER = """
10 bS b2 b3 b9 .. .. .. .. bB bF
 9 b2 .. .. .. .. .. .. .. r3 ..
 8 .. .. .. .. .. .. .. .. .. ..
 7 .. .. .. .. bM .. .. .. .. ..
 6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 5 .. .. ~~ ~~ r2 .. ~~ ~~ .. ..
 4 .. .. .. .. .. .. .. .. .. ..
 3 .. .. .. .. .. .. .. .. .. ..
 2 rM r9 .. .. .. .. .. .. .. r2
 1 rF rB .. .. .. .. .. .. .. rS
"""


def blunder_view():
    return Played(BLUNDER, "barrage", reveal=("e7", "a2")).view(0)


def test_walking_next_to_a_known_marshal_is_removed_and_the_safe_move_kept():
    vb = value_bounds(blunder_view(), piece_count_value, eps_vb=0.05)
    assert vb.value == pytest.approx(0.0)
    blunder, run_at_it, safe = Move.parse("e5-e6"), Move.parse("e5xe7"), Move.parse("e5-f5")
    assert vb.bounds[blunder] == pytest.approx(-0.1)  # the Marshal takes the Scout, safely
    assert vb.bounds[run_at_it] == pytest.approx(-0.1)  # the Scout dies on the Marshal
    assert vb.bounds[safe] == pytest.approx(0.0)
    assert vb.removed == {blunder, run_at_it}


def test_an_attack_on_an_unknown_piece_is_bounded_by_its_best_case():
    vb = value_bounds(blunder_view(), piece_count_value)
    assert vb.bounds[Move.parse("i9xi10")] == 1.0  # it might be the Flag


def test_the_margin_decides():
    assert value_bounds(blunder_view(), piece_count_value, eps_vb=0.2).removed == frozenset()


# Red's only legal move is the General's a1-b1 (the Scout on j1 is boxed in by its Bombs).
ONE_MOVE = """
10 b9 .. .. .. .. bB bB bB bF b2
 9 .. .. .. .. .. .. .. .. .. ..
 8 .. .. .. .. .. .. .. .. .. ..
 7 .. .. .. .. .. .. .. .. .. ..
 6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 4 .. .. .. .. .. .. .. .. .. ..
 3 .. .. .. .. .. .. .. .. .. ..
 2 rB .. .. .. .. .. .. .. .. rB
 1 r9 .. .. .. rF .. .. .. rB r2
"""


def test_the_only_move_is_never_removed():
    view = Played(ONE_MOVE, small_variant(), reveal=("a10",)).view(0)
    assert view.legal_moves == (Move.parse("a1-b1"),)
    looks_lost = lambda obs: np.where(np.arange(len(obs)) == 0, 1.0, -1.0)  # noqa: E731
    vb = value_bounds(view, looks_lost)
    assert vb.bounds[Move.parse("a1-b1")] == -1.0  # far below v(x) = 1 ...
    assert vb.removed == frozenset()  # ... but there is no alternative


def test_safe_replies_need_public_certainty():
    g = Played(BLUNDER, "barrage", reveal=("e7", "a2"))
    g.push("e5-e6")
    board = PublicBoard.from_view(g.view(1))
    replies = set(safe_replies(board, 1))
    assert Move.parse("e7xe6") in replies  # a sure win, and nothing of Red's can take back
    assert all(m.from_sq == 64 for m in replies)  # only the known Marshal is known to move
    # Were Red's Marshal still hidden, the piece on e6 might be it: the attack is no longer sure.
    g2 = Played(BLUNDER, "barrage", reveal=("e7",))
    g2.push("e5-e6")
    assert Move.parse("e7xe6") not in set(safe_replies(PublicBoard.from_view(g2.view(1)), 1))


def reference_safe_replies(board: PublicBoard, player: int) -> list[Move]:
    """The module docstring's definition of safe replies, written out slowly with numpy and the
    board's own ``attackers``: the compiled kernel must agree with it."""
    possible = board.possible()
    out = []
    for sq in np.flatnonzero(board.owner == player):
        kinds = possible[sq] & ~IMMOVABLE
        if not ((board.known[sq] >= 0 and kinds.any()) or board.moved[sq]):
            continue
        for d in range(4):
            to = int(NEIGHBOUR[sq, d])
            while to >= 0 and board.owner[to] in (EMPTY, 1 - player):
                attack = board.owner[to] == 1 - player
                after = board.copy()
                after.owner[to], after.owner[sq] = player, EMPTY
                taken = any(np.any(FIGHT[np.ix_(types, kinds)] >= 0)
                            for _, types in after.attackers(to, 1 - player, possible))
                if (not attack or np.all(FIGHT[np.ix_(kinds, possible[to])] > 0)) and not taken:
                    out.append(Move(int(sq), to))
                if attack or board.known[sq] != SCOUT:
                    break
                to = int(NEIGHBOUR[to, d])
    return out


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["classic", "barrage"]), st.integers(0, 10_000), st.integers(0, 400))
def test_safe_replies_match_the_reference_on_random_games(variant, seed, plies):
    rng = np.random.default_rng(seed)
    game, history = Game(variant, seed=seed), []
    for _ in range(plies):
        if game.is_over():
            break
        moves = game.legal_moves()
        history.append(push_recorded(game, moves[int(rng.integers(len(moves)))]))
    for player in (0, 1):
        board = PublicBoard.from_view(PlayerView.of(game, player, tuple(history)))
        for mover in (0, 1):
            assert safe_replies(board, mover) == reference_safe_replies(board, mover)


def test_the_layer_cuts_the_blunder_in_the_displace_step_and_counts_the_turn():
    view = blunder_view()
    layer = TestTimeLayer(TestTimeConfig(threshold=False, discretize=False), value_fn=piece_count_value)
    layer.reset(0)
    plan = layer.begin_turn(view)
    select = np.zeros(100, bool)
    select[[m.from_sq for m in view.legal_moves]] = True
    final, log = layer.policy(select / select.sum(), select, "select", plan)
    assert plan.removed_by["value_bounds"] == {Move.parse("e5-e6"), Move.parse("e5xe7")}
    assert final[44] > 0 and log.effects == []  # the Scout keeps its safe moves
    assert layer.stats.value_bounds_turns == 0
    dest = np.zeros(100, bool)
    dest[[m.to_sq for m in view.legal_moves if m.from_sq == 44]] = True
    final, log = layer.policy(dest / dest.sum(), dest, "displace", plan, selected=44)
    assert final[54] == 0 and final[64] == 0 and final[45] > 0
    assert log.effects[0].layer == "value_bounds" and sorted(log.effects[0].removed) == [54, 64]
    assert layer.stats.value_bounds_turns == 1 and layer.stats.value_bounds_share == 1.0


def test_only_the_pieces_the_policy_plays_are_bounded():
    view = blunder_view()
    layer = TestTimeLayer(value_fn=piece_count_value)
    layer.reset(0)
    plan = layer.begin_turn(view)
    select = np.zeros(100, bool)
    select[[m.from_sq for m in view.legal_moves]] = True
    marshal_only = np.where(np.arange(100) == 10, 1.0, 0.0)  # all on the Marshal (a2)
    layer.policy(marshal_only, select, "select", plan)
    assert {m.from_sq for m in plan.bounds} == {10} and "value_bounds" not in plan.removed_by
    layer.policy(np.where(np.arange(100) == 54, 1.0, 0.0) + 0.0, np.arange(100) == 54, "displace", plan, selected=44)
    assert {m.from_sq for m in plan.bounds} == {10, 44}  # bounded when it is selected after all
    assert plan.removed_by["value_bounds"] == {Move.parse("e5-e6"), Move.parse("e5xe7")}


def test_bounds_are_unbounded_without_safe_replies():
    # Hide Blue's Marshal: no Blue piece is known to move, so no reply is safe and nothing is bounded.
    vb = value_bounds(Played(BLUNDER, "barrage", reveal=("a2",)).view(0), piece_count_value)
    assert vb.removed == frozenset()
    assert vb.bounds[Move.parse("e5-e6")] == math.inf


def test_value_fn_must_return_one_value_per_observation():
    with pytest.raises(ValueError, match="values for"):
        value_bounds(blunder_view(), lambda obs: np.zeros(1))
