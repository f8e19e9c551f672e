"""The game clock: budgets that last the whole game, more time for critical moves, and the search spending them."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.agents import PlayerView
from deepnash.game import BARRAGE, CLASSIC, Move
from deepnash.arena.raids import RAIDS
from deepnash.testtime.clock import CRITICAL_FACTOR, MIN_MOVES_TO_GO, GameClock, critical_move, moves_to_go
from deepnash.testtime.search import Search, SearchConfig
from test_search import FakeClock, marshal_next_to_general, random_position
from testtime_helpers import uniform_logits, zero_value


@settings(max_examples=40, deadline=None)
@given(total=st.floats(0.5, 3600), increment=st.floats(0, 5), plies=st.integers(1, 3000),
       critical=st.lists(st.booleans(), min_size=1, max_size=50), variant=st.sampled_from([CLASSIC, BARRAGE]))
def test_spending_every_budget_never_runs_the_clock_out(total, increment, plies, critical, variant):
    clock, spent = GameClock(total, increment), 0.0
    for ply in range(0, plies, 2):
        budget = clock.budget(variant, ply, critical[ply % len(critical)])
        assert increment <= budget <= CRITICAL_FACTOR / MIN_MOVES_TO_GO * clock.left + increment + 1e-9
        clock.charge(budget)
        spent += budget
        assert clock.left >= -1e-9
    moves = len(range(0, plies, 2))
    assert spent == pytest.approx(total + moves * increment - clock.left)


def test_the_budget_spreads_what_is_left_over_the_moves_to_come():
    clock = GameClock(440.0)
    # Classic: 40 pieces a side, a horizon of 440 plies, so 220 moves to go at the start
    assert moves_to_go(CLASSIC, 0) == 220 and moves_to_go(BARRAGE, 0) == 44
    assert clock.budget(CLASSIC, 0) == pytest.approx(2.0)
    assert clock.budget(CLASSIC, 0, critical=True) == pytest.approx(2.0 * CRITICAL_FACTOR)
    # past the horizon, a 20th of what is left (three 20ths for a critical move), never all of it
    assert moves_to_go(CLASSIC, 1000) == MIN_MOVES_TO_GO
    assert clock.budget(CLASSIC, 1000) == pytest.approx(440.0 / MIN_MOVES_TO_GO)
    assert clock.budget(CLASSIC, 1000, critical=True) == pytest.approx(440.0 * CRITICAL_FACTOR / MIN_MOVES_TO_GO)
    clock.charge(500.0)  # overspent: only the increment is left to spend
    assert clock.left == -60.0 and clock.budget(CLASSIC, 10) == 0.0
    with pytest.raises(ValueError, match="total > 0"):
        GameClock(0.0)
    with pytest.raises(ValueError, match="increment >= 0"):
        GameClock(10.0, -1.0)
    with pytest.raises(ValueError, match="increment"):
        SearchConfig(increment=1.0)  # an increment needs a clock


def test_a_battle_among_the_candidates_is_critical():
    view, _ = marshal_next_to_general()  # Red's Marshal on e2 below Blue's General on e3
    attack, step = Move.parse("e2-e3"), Move.parse("e2-d2")
    assert critical_move(view, [step, attack])
    assert not critical_move(view, [step])


def test_a_raid_on_the_flag_is_critical():
    """DoI's raid down the b-file: a quiet candidate still makes the move critical, as the guard answers it."""
    view = PlayerView.of(next(r for r in RAIDS if r.name == "doi-b-file").game(), 0)
    quiet = next(m for m in view.legal_moves if view.owner[m.to_sq] < 0)
    assert critical_move(view, [quiet])


def uniform(view: PlayerView) -> dict[Move, float]:
    return {m: 1 / len(view.legal_moves) for m in view.legal_moves}


def test_the_search_spends_the_clock_and_is_charged_for_every_second():
    game, history = random_position(BARRAGE, 3, 20)
    view = PlayerView.of(game, game.turn, history)
    # the fake clock: every reading is a second later; a round reads it twice
    search = Search(uniform_logits, zero_value, SearchConfig(samples=2, depth=1, clock=200.0), clock=FakeClock(1.0))
    search.reset(BARRAGE, view.player)
    result = search.run(view, uniform(view), np.random.default_rng(0), started=0.0)
    longest = GameClock(200.0).budget(BARRAGE, view.ply, critical=True)
    assert 1 <= result.rounds and result.seconds <= longest + 2.0  # at most one round past the budget
    assert search.clock_left == pytest.approx(200.0 - result.seconds)  # the time before the search too
    # a clock that cannot pay for another round plays the prior
    left = search.clock_left
    search._game_clock.left = 1.0
    result = search.run(view, uniform(view), np.random.default_rng(0))
    assert result.rounds == 0 and result.q == {} and result.policy == pytest.approx(uniform(view))
    assert search.clock_left == pytest.approx(1.0 - result.seconds) and left > 1.0
    # an increment pays for it again
    paid = Search(uniform_logits, zero_value, SearchConfig(samples=2, depth=1, clock=1.0, increment=30.0),
                  clock=FakeClock(1.0))
    paid.reset(BARRAGE, view.player)
    assert paid.run(view, uniform(view), np.random.default_rng(0)).rounds >= 5


def test_without_a_clock_the_search_keeps_its_seconds_a_move():
    game, history = random_position(BARRAGE, 3, 20)
    view = PlayerView.of(game, game.turn, history)
    search = Search(uniform_logits, zero_value, SearchConfig(samples=2, depth=1, seconds=4.5), clock=FakeClock(1.0))
    search.reset(BARRAGE, view.player)
    assert search.run(view, uniform(view), np.random.default_rng(0)).rounds == 2 and search.clock_left is None
