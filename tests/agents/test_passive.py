"""The passive bots: ``turtle`` never attacks while it has another move and keeps to its half;
``sure`` attacks only what public information says it beats for certain."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from deepnash.agents import PlayerView
from deepnash.agents.registry import describe_agents, make_agent
from deepnash.arena import run_match
from deepnash.game import BARRAGE, CLASSIC, Game
from deepnash.infostate.beliefs import fight_odds, type_distributions
from deepnash.infostate.view import push_recorded


def _position(seed: int, plies: int, variant):
    """A game after about ``plies`` random moves, and its history as the players saw it."""
    rng = np.random.default_rng(seed)
    game, history = Game(variant, seed=seed), []
    while len(history) < plies and not game.is_over():
        moves = game.legal_moves()
        history.append(push_recorded(game, moves[int(rng.integers(len(moves)))]))
    return game, tuple(history)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 120), classic=st.booleans())
def test_turtle_attacks_only_when_nothing_else_is_legal_and_sure_only_certain_wins(seed, plies, classic):
    game, history = _position(seed, plies, CLASSIC if classic else BARRAGE)
    assume(not game.is_over())
    view = PlayerView.of(game, game.turn, history)
    enemy = view.owner == 1 - view.player
    quiet = [m for m in view.legal_moves if not enemy[m[1]]]
    dist = type_distributions(view)
    for spec in ("turtle", "sure"):
        bot = make_agent(spec)
        bot.reset(view.variant, view.player, seed)
        f, t = bot.act(view)
        if enemy[t] and quiet:
            assert spec == "sure" and fight_odds(int(view.types[f]), dist[t])[0] == pytest.approx(1.0), (spec, f, t)
    certain = [m for m in view.legal_moves if enemy[m[1]] and fight_odds(int(view.types[m[0]]), dist[m[1]])[0] > 1 - 1e-9]
    if certain:  # sure takes a certain win whenever one is there
        bot = make_agent("sure")
        bot.reset(view.variant, view.player, seed)
        assert tuple(bot.act(view)) in [tuple(m) for m in certain]


def test_the_passive_bots_hold_back_and_draw_the_random_bot_by_the_no_attack_limit():
    m = run_match("turtle", "random", 6, BARRAGE, seed=11)
    assert m.wins + m.draws + m.losses == 6
    assert m.draws >= 2 and m.wins <= 1, m.to_dict()  # it holds back: no wins to speak of, draws by the limit
    assert {"turtle", "sure"} <= set(describe_agents())
