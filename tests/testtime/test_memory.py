"""The memory heuristic: pieces that passed up an obvious attack lose that type, in both Pub tensors."""

import numpy as np
import pytest

from deepnash.env.planes import P_PUB_OPP, P_PUB_OWN
from deepnash.game.pieces import MARSHAL, SPY
from deepnash.infostate.determinize import position
from deepnash.infostate.observe import move_rows, observe
from deepnash.testtime import TestTimeLayer
from deepnash.testtime.memory import MemoryHeuristic
from testtime_helpers import Played

# Blue's Marshal on e6 is known; Red's unknown piece on e5 (a Scout) stands next to it.
SPY_CHANCE = """
10 bS b2 b2 b3 b9 .. .. .. bB bF
 9 .. .. .. .. .. .. .. .. .. ..
 8 .. .. .. .. .. .. .. .. .. ..
 7 .. .. .. .. .. .. .. .. .. ..
 6 .. .. ~~ ~~ bM .. ~~ ~~ .. ..
 5 .. .. ~~ ~~ r2 .. ~~ ~~ .. ..
 4 .. .. .. .. .. .. .. .. .. ..
 3 .. .. .. .. .. .. .. .. .. ..
 2 .. .. .. .. .. .. .. .. .. ..
 1 rS r3 rM .. .. .. r2 r9 rB rF
"""

# Red's General on e5 is known; Blue's unknown piece on e6 (a Scout) could have taken it as a Marshal.
MARSHAL_CHANCE = """
10 bS b2 bM b3 b9 .. .. .. bB bF
 9 .. .. .. .. .. .. .. .. .. ..
 8 .. .. .. .. .. .. .. .. .. ..
 7 .. .. .. .. .. .. .. .. .. ..
 6 .. .. ~~ ~~ b2 .. ~~ ~~ .. ..
 5 .. .. ~~ ~~ r9 .. ~~ ~~ .. ..
 4 .. .. .. .. {e4} .. .. .. .. ..
 3 .. .. .. .. .. .. .. .. .. ..
 2 .. .. .. .. .. .. .. .. .. ..
 1 {a1} r3 rM .. .. .. r2 r2 rB rF
"""


def replay(diagram, reveal, moves):
    g = Played(diagram, "barrage", reveal=reveal)
    memory = MemoryHeuristic()
    memory.update(g.view(0))
    for m in moves:
        g.push(m)
        memory.update(g.view(0))
    return g, memory


def ruled_out(memory, square):
    return {int(t) for t in np.flatnonzero(memory.ruled_out[memory.board.piece[square]])}


def all_eliminations(memory):
    return {int(sq): ruled_out(memory, sq) for sq in np.flatnonzero(memory.board.piece >= 0) if ruled_out(memory, sq)}


def test_a_piece_next_to_a_known_marshal_that_does_not_attack_is_not_the_spy():
    g, memory = replay(SPY_CHANCE, ("e6",), ["a1-a2"])
    assert all_eliminations(memory) == {44: {SPY}}  # e5, and nothing else


def test_the_elimination_follows_the_piece():
    g, memory = replay(SPY_CHANCE, ("e6",), ["e5-f5"])  # the piece itself walks away
    assert all_eliminations(memory) == {45: {SPY}}


def test_no_elimination_when_the_player_attacks_instead():
    g, memory = replay(SPY_CHANCE, ("e6",), ["e5xe6"])
    assert all_eliminations(memory) == {}


@pytest.mark.parametrize("recapture", [False, True])
def test_marshal_rule_only_without_a_possible_recapture(recapture):
    # With Red's unknown Spy on e4, a Marshal taking the General on e5 could be taken back.
    diagram = MARSHAL_CHANCE.format(e4="rS" if recapture else "..", a1=".." if recapture else "rS")
    g, memory = replay(diagram, ("e5",), ["b1-b2", "a10-a9"])
    assert all_eliminations(memory) == ({} if recapture else {54: {MARSHAL}})


def test_an_attack_elsewhere_eliminates_nothing():
    diagram = MARSHAL_CHANCE.format(e4="..", a1="rS")
    g, memory = replay(diagram, ("e5",), ["g1-g2", "b10xb1"])  # a Blue Scout run at the Miner instead
    assert all_eliminations(memory) == {}


def test_eliminations_zero_both_pub_tensors_and_renormalise():
    # Red's own e5 piece (Pub_own for Red, Pub_opp for Blue) is no longer a possible Spy.
    g, memory = replay(SPY_CHANCE, ("e6",), ["a1-a2", "a10-a9"])
    for player, plane in ((0, P_PUB_OWN), (1, P_PUB_OPP)):
        view = g.view(player)
        obs = observe(position(view), move_rows(view.history), player)
        new = memory.apply(obs, player)
        j = 44 if player == 0 else 99 - 44
        row = obs.reshape(82, 100)[plane:plane + 12, j]
        expected = np.where(np.arange(12) == SPY, 0.0, row)
        np.testing.assert_allclose(new.reshape(82, 100)[plane:plane + 12, j], expected / expected.sum(), rtol=1e-6)
        changed = np.argwhere(new != obs)
        assert set(changed[:, 1] * 10 + changed[:, 2]) == {j}  # no other square touched


def test_layer_applies_memory_to_the_observation():
    g = Played(SPY_CHANCE, "barrage", reveal=("e6",))
    layer = TestTimeLayer()
    layer.reset(0)
    layer.observation(np.zeros((82, 10, 10), np.float32), g.view(0))
    g.push("a1-a2", "a10-a9")
    view = g.view(0)
    obs = observe(position(view), move_rows(view.history), 0)
    new, notes = layer.observation(obs, view)
    assert new[P_PUB_OWN + SPY, 4, 4] == 0 and obs[P_PUB_OWN + SPY, 4, 4] > 0
    assert "memory" in [n.layer for n in notes]
