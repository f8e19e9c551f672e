"""Disguised setups: people's setups with their lanes rearranged, so that a library of people's setups does not
know them (``env.setups.disguise``, agent option ``disguise=true``)."""

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.agents import make_agent
from deepnash.agents.base import draw_setup
from deepnash.agents.registry import AgentSpecError
from deepnash.env.setups import PEOPLE_FILTERS, SetupPool, disguise, lane_arrangements, walled_pool
from deepnash.game import BARRAGE, CLASSIC, Variant, deployment
from deepnash.game.pieces import FLAG
from deepnash.game.state import deployment_types

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "journal" / "scripts" / "library_flag.py"


def _arrangements_slowly(variant) -> set[tuple[int, ...]]:
    """Every order of the five two-file lanes, each either way round, that leaves each file with the lakes of
    the file its pieces came from."""
    lakes = [frozenset(s // 10 for s in variant.lakes if s % 10 == c) for c in range(10)]
    found = set()
    for order in itertools.permutations(range(5)):
        for flips in itertools.product((0, 1), repeat=5):
            cols = []
            for lane, flip in zip(order, flips):
                cols += [2 * lane + flip, 2 * lane + 1 - flip]
            if all(lakes[c] == lakes[src] for c, src in enumerate(cols)):
                found.add(tuple(cols))
    return found


@pytest.mark.parametrize("variant", [CLASSIC, Variant(name="open", lakes=())])
def test_lane_arrangements_are_every_order_that_keeps_the_lakes(variant):
    got = lane_arrangements(variant)
    assert {tuple(c) for c in got} == _arrangements_slowly(variant)
    assert len(got) == len({tuple(c) for c in got})
    assert len(got) == (384 if variant.lakes else 3840)
    assert tuple(range(10)) in {tuple(c) for c in got} and tuple(range(9, -1, -1)) in {tuple(c) for c in got}


@settings(max_examples=60, deadline=None)
@given(index=st.integers(0, 10**6), seed=st.integers(0, 2**32 - 1),
       case=st.sampled_from([(CLASSIC, "walled"), (CLASSIC, "human"), (CLASSIC, "sheltered"),
                             (BARRAGE, "sheltered"), (BARRAGE, "human")]))
def test_a_disguised_setup_keeps_each_lane_and_the_flag_cover_but_moves_the_flag_and_half_the_pieces(
        index, seed, case):
    variant, source = case
    from deepnash.env.setups import PEOPLE_POOLS

    setups = PEOPLE_POOLS[source](variant).setups
    setup = setups[index % len(setups)]
    out = disguise(setup, variant, np.random.default_rng(seed), source)
    assert out is not None  # every one of people's setups has an arrangement that qualifies
    SetupPool(variant, out[None])  # legal: the variant's pieces, in Red's zone
    keep, _ = PEOPLE_FILTERS[source]
    assert keep(out[None])[0] and keep(setup[None])[0]
    grid, new = setup.reshape(10, 10), out.reshape(10, 10)
    lanes = {grid[:, cols].tobytes() for c in range(0, 10, 2) for cols in ([c, c + 1], [c + 1, c])}
    for c in range(0, 10, 2):  # each lane of the result is a lane of the setup, either way round
        assert new[:, [c, c + 1]].tobytes() in lanes
    mirror = grid[:, ::-1].reshape(100)
    assert np.flatnonzero(out == FLAG)[0] != np.flatnonzero(setup == FLAG)[0]
    pieces = int((setup >= 0).sum())
    for same_as in (setup, mirror):
        assert 2 * int(((out == same_as) & (out >= 0)).sum()) <= pieces


def test_an_agent_deploys_a_disguised_walled_setup_for_either_colour_reproducibly():
    agent = make_agent("shipped:classic,disguise=true")
    pool = {row.tobytes() for row in walled_pool(CLASSIC).setups}
    for player in (0, 1):
        agent.reset(CLASSIC, player, seed=11)
        placed = agent.choose_setup()
        np.testing.assert_array_equal(deployment(CLASSIC, player, deployment_types(CLASSIC, player, placed)), placed)
        red_side = placed if player == 0 else placed[::-1]
        assert red_side.tobytes() not in pool and PEOPLE_FILTERS["walled"][0](red_side[None])[0]
        agent.reset(CLASSIC, player, seed=11)
        np.testing.assert_array_equal(agent.choose_setup(), placed)


def test_only_peoples_setups_can_be_disguised():
    with pytest.raises(AgentSpecError, match="disguise=true rearranges people's setups.*setup=own"):
        make_agent("shipped:classic,setup=own,disguise=true")
    with pytest.raises(ValueError, match="setup=random"):
        draw_setup("random", CLASSIC, 0, np.random.default_rng(0), disguised=True)


@pytest.mark.parametrize("variant, source, shown, plain_at_least, disguised_at_most",
                         [("classic", "walled", 10, 0.8, 0.2), ("barrage", "sheltered", 2, 0.6, 0.3)])
def test_the_shipped_library_finds_the_flag_of_a_peoples_setup_and_not_of_a_disguised_one(
        variant, source, shown, plain_at_least, disguised_at_most):
    """What the option is for (docs/journal/scripts/library_flag.py): with a few of its moving pieces shown, the shipped
    library's posterior names the setup a people's setup came from, and with it the Flag's square; a disguised one
    it takes for a setup it does not know, or for another, and the Flag's square gets little more than people's
    share of Flags there."""
    done = subprocess.run([sys.executable, str(SCRIPT), "--variant", variant, "--source", source, "--setups", "80",
                           "--shown", str(shown), "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    r = json.loads(done.stdout)
    plain, disguised = r["plain"][str(shown)], r["disguised"][str(shown)]
    assert plain["p_flag"] > plain_at_least and disguised["p_flag"] < disguised_at_most
    assert disguised["novel"] > plain["novel"] and disguised["sure"] < plain["sure"] / 2


def test_a_pool_whose_setups_cannot_be_disguised_is_named(monkeypatch):
    import deepnash.env.setups as setups

    monkeypatch.setattr(setups, "disguise", lambda *args: None)
    with pytest.raises(ValueError, match="disguise=true: 100 setups of setup=walled on classic drawn"):
        draw_setup("walled", CLASSIC, 0, np.random.default_rng(0), disguised=True)
