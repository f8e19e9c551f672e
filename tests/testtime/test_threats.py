"""No pointless threats: after three back-and-forth threats, one more, then no immediate re-threat."""

import numpy as np

from deepnash.env.actions import square_to_action
from deepnash.game import Move
from deepnash.testtime import TestTimeConfig, TestTimeLayer
from deepnash.testtime.threats import PointlessThreats, block_of
from testtime_helpers import Played, small_variant

# Red's General (e4) chases Blue's Scout (f5) round the 2x2 block e4 f4 e5 f5.
# The Scouts on a1 and a10 give both sides a waiting move.
CHASE = """
10 b9 .. .. .. .. .. bB bB bB bF
 9 .. .. .. .. .. .. .. .. .. ..
 8 .. .. .. .. .. .. .. .. .. ..
 7 .. .. .. .. .. .. .. .. .. ..
 6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 5 .. .. ~~ ~~ .. b2 ~~ ~~ .. ..
 4 .. .. .. .. r9 .. .. .. .. ..
 3 .. .. .. .. .. .. .. .. .. ..
 2 .. .. .. .. .. .. .. .. .. ..
 1 r2 .. .. .. .. .. rB rB rB rF
"""

# The same chase with the General hemmed in by its own Bombs (d4, e3) and the Red Scout
# boxed in on a1: once the chase is spent, re-threatening is Red's only move.
ONLY_MOVE = """
10 b9 .. .. .. .. .. bB bB bB bF
 9 .. .. .. .. .. .. .. .. .. ..
 8 .. .. .. .. .. .. .. .. .. ..
 7 .. .. .. .. .. .. .. .. .. ..
 6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 5 .. .. ~~ ~~ .. b2 ~~ ~~ .. ..
 4 .. .. .. rB r9 .. .. .. .. ..
 3 .. .. .. .. rB .. .. .. .. ..
 2 rF .. .. .. .. .. .. .. .. ..
 1 r2 rB .. .. .. .. .. .. .. ..
"""


def test_block_of():
    assert block_of(34, 44, 45) == 34
    assert block_of(99, 98, 89) == 88
    assert block_of(34, 44, 54) is None  # three in a column


def test_the_chase_is_cut_after_three_threats_and_one_more():
    g = Played(CHASE, small_variant())
    tracker = PointlessThreats(0)
    # Threats 1-3 back and forth (the two-squares rule then forbids a 4th in a row),
    # a waiting move each, threat 4, the Scout retreats as before.
    for red, blue in [("e4-e5", "f5-f4"), ("e5-e4", "f4-f5"), ("e4-e5", "f5-f4"),
                      ("a1-a2", "a10-a9"), ("e5-e4", "f4-f5")]:
        view = g.view(0)
        assert tracker.banned(view) == frozenset(), f"{red} was cut too early"
        assert Move.parse(red) in view.legal_moves
        g.push(red, blue)
    banned = tracker.banned(g.view(0))
    # Both ways of re-threatening the Scout inside the block are cut; e3 and d4 remain.
    assert banned == {Move.parse("e4-e5"), Move.parse("e4-f4")}
    assert tracker.count[max(tracker.count, key=tracker.count.get)] == 4


def test_a_threat_after_another_move_is_allowed_again():
    g = Played(CHASE, small_variant())
    tracker = PointlessThreats(0)
    for red, blue in [("e4-e5", "f5-f4"), ("e5-e4", "f4-f5"), ("e4-e5", "f5-f4"),
                      ("a1-a2", "a10-a9"), ("e5-e4", "f4-f5"), ("e4-d4", "a9-a10")]:
        g.push(red, blue)
    assert tracker.banned(g.view(0)) == frozenset()  # the General stepped away: one threat is allowed


def test_layer_removes_the_pointless_threat_from_the_displace_step():
    g = Played(CHASE, small_variant())
    layer = TestTimeLayer(TestTimeConfig(value_bounds=False, threshold=False, discretize=False))
    layer.reset(0)
    for red, blue in [("e4-e5", "f5-f4"), ("e5-e4", "f4-f5"), ("e4-e5", "f5-f4"),
                      ("a1-a2", "a10-a9"), ("e5-e4", "f4-f5")]:
        layer.begin_turn(g.view(0))
        g.push(red, blue)
    view = g.view(0)
    plan = layer.begin_turn(view)
    general = 34  # e4
    legal = np.zeros(100, bool)
    for m in view.legal_moves:
        if m.from_sq == general:
            legal[square_to_action(m.to_sq, 0)] = True
    raw = legal / legal.sum()
    final, log = layer.policy(raw, legal, "displace", plan, selected=general)
    assert final[44] == 0 and final[35] == 0 and final[24] == final[33] == 0.5  # e5, f4 cut; e3, d4 kept
    assert [e.layer for e in log.effects] == ["threats"] and sorted(log.effects[0].removed) == [35, 44]


def test_the_re_threat_is_allowed_when_it_is_the_only_move():
    g = Played(ONLY_MOVE, small_variant(two_squares=False))
    tracker = PointlessThreats(0)
    layer = TestTimeLayer(TestTimeConfig(value_bounds=False))
    layer.reset(0)
    # Without the two-squares rule the chase goes on directly: threat 4 is still allowed.
    for red, blue in [("e4-e5", "f5-f4"), ("e5-e4", "f4-f5"), ("e4-e5", "f5-f4"), ("e5-e4", "f4-f5")]:
        assert tracker.banned(g.view(0)) == frozenset()
        layer.begin_turn(g.view(0))
        g.push(red, blue)
    view = g.view(0)
    assert set(view.legal_moves) == {Move.parse("e4-e5"), Move.parse("e4-f4")}
    assert tracker.banned(view) == set(view.legal_moves)  # both are pointless threats...
    plan = layer.begin_turn(view)
    assert plan.allowed == set(view.legal_moves) and "threats" not in plan.removed_by  # ...but nothing else is left
