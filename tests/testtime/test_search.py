"""Belief-sampled search: its samples keep to public information, its step is the closed form,
it plays only legal moves and keeps to its budget, and a resumed ``VectorEnv`` slot is the game."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.agents import PlayerView
from deepnash.agents.network_agent import SHIPPED_DIR, NetworkAgent, from_checkpoint, load_network
from deepnash.agents.registry import AgentSpecError
from deepnash.arena import referee_game
from deepnash.env.actions import square_to_action
from deepnash.env.planes import P_SELECTED, P_STEP
from deepnash.env.vector import VectorEnv
from deepnash.game import BARRAGE, CLASSIC, Game, Move, Variant
from deepnash.game import kernels as K
from deepnash.game.codes import EMPTY, LAKE, code_of, types as types_of
from deepnash.game.squares import parse_square
from deepnash.game.pieces import (BOMB, CAPTAIN, COLONEL, FLAG, GENERAL, LIEUTENANT, MAJOR, MARSHAL, MINER, SCOUT,
                                  SERGEANT, SPY)
from deepnash.infostate.beliefs import FIGHT, IMMOVABLE, PEOPLE_PIECE_VALUE, PIECE_VALUE, hidden_counts
from deepnash.infostate.determinize import load_determinization, sample_hidden
from deepnash.infostate.observe import move_rows, observe_view
from deepnash.infostate.setup_library import LIBRARY_FILE, SetupLibrary
from deepnash.infostate.view import MoveRecord, push_recorded
from deepnash.nn import DeepNashNet, get_preset
from deepnash.nn.belief import BELIEF_PRESETS, BeliefNet
from deepnash.nn.checkpoint import CheckpointError, save_checkpoint
from deepnash.testtime.belief import LearnedBelief
from deepnash.testtime.candidates import approach_move, clearing_plans, exposed, has_attacked, presses
from deepnash.testtime.leaf import APPROACH_HORIZON, attack_delay, flag_approach, material_difference
from deepnash.testtime.search import Search, SearchConfig, improve
from deepnash.testtime.search.heuristics.approach import APPROACH_NEARNESS, MARCH
from deepnash.testtime.search.heuristics.contempt import MAX_STEP_GAIN
from deepnash.testtime.search.heuristics.guard import GUARD_PRIOR
from deepnash.testtime.search.heuristics.passive import DECIDED_MARGIN
from deepnash.testtime.search.rollout import sample_actions
from test_memory import MARSHAL_CHANCE
from testtime_helpers import Played, uniform_logits, zero_value

torch.set_num_threads(1)


def random_position(variant, seed: int, plies: int) -> tuple[Game, tuple]:
    """A game after ``plies`` random moves (fewer if it ends first, so that it is still running)."""
    rng = np.random.default_rng(seed)
    game, history = Game(variant, seed=seed), []
    for _ in range(plies):
        moves = game.legal_moves()
        trial = game.copy()
        move = moves[int(rng.integers(len(moves)))]
        trial.push(move)
        if trial.is_over():
            break
        history.append(push_recorded(game, move))
    return game, tuple(history)


def exactly(truth: np.ndarray):
    """A belief that knows the opponent's pieces: every draw is ``truth: int8[100]``."""
    return lambda view, exclude: lambda rng, n: np.tile(truth, (n, 1))


def nan_values(obs: np.ndarray) -> np.ndarray:
    """NaN everywhere: a value head that must not be read (a NaN read would spoil every ``Q``)."""
    return np.full(len(obs), np.nan, np.float32)


# -- the belief ---------------------------------------------------------------------------------------

def random_belief_network(seed: int = 0) -> LearnedBelief:
    """A learned belief from an untrained belief network: marginals with opinions, none of them right."""
    torch.manual_seed(seed)
    net = BeliefNet(BELIEF_PRESETS["tiny"]).eval()
    with torch.no_grad():
        net.out.weight.mul_(30.0)  # strong opinions, so that the tilt pulls hard against the counts
    return LearnedBelief(lambda obs: net(torch.from_numpy(obs[None])).exp()[0].detach().numpy())


LEARNED = random_belief_network()
#: The same network with people's setups weighed over it (the shipped libraries).
WITH_SETUPS = {v.name: LearnedBelief(LEARNED.marginals_fn, SetupLibrary.load(SHIPPED_DIR / v.name / LIBRARY_FILE))
               for v in (CLASSIC, BARRAGE)}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([CLASSIC, BARRAGE]), st.integers(0, 10_000), st.integers(0, 300),
       st.sampled_from(["heuristic", "public", "learned", "setups"]))
def test_every_sample_agrees_with_the_public_information(variant, seed, plies, belief):
    game, history = random_position(variant, seed, plies)
    me = game.turn
    view = PlayerView.of(game, me, history)
    learned = {"learned": LEARNED, "setups": WITH_SETUPS[variant.name]}.get(belief)
    search = Search(uniform_logits, zero_value, SearchConfig(belief="learned" if learned else belief), belief=learned)
    search.reset(variant, me)
    rng = np.random.default_rng(seed)
    opp = view.owner == 1 - me
    for _ in range(5):
        hidden = search.sample(view, rng)
        assert np.all((hidden >= 0) == opp)  # a type on every opponent piece, nowhere else
        shown = opp & view.revealed
        assert np.array_equal(hidden[shown], view.types[shown])  # revealed pieces keep their types
        assert not IMMOVABLE[hidden[opp & view.moved]].any()  # pieces that moved are movable
        counts = np.bincount(hidden[opp & ~view.revealed], minlength=12)
        assert np.array_equal(counts, hidden_counts(view))  # the unrevealed army, exactly
        truth = np.where(game.state.board[0] > 0, (game.state.board[0] - 1) % 12, -1)
        assert np.array_equal(np.bincount(hidden[opp], minlength=12), np.bincount(truth[opp], minlength=12))


def test_the_public_belief_draws_the_counts_where_the_heuristic_leans_to_people_s_setups():
    """Before a move, every unknown piece of Red is any of its 40 with equal chance under ``belief=public``: the
    Flag on a1 one time in 40.  People put their Flag in the corner about three times as often, and the heuristic belief
    draws it there accordingly; the memory heuristic (nothing to eliminate yet) plays no part."""
    game = Game(CLASSIC, seed=3)
    view = PlayerView.of(game, 1, ())
    draws = {}
    for belief in ("public", "heuristic"):
        search = Search(uniform_logits, zero_value, SearchConfig(belief=belief))
        search.reset(CLASSIC, 1)
        rng = np.random.default_rng(0)
        draws[belief] = np.array([search.sample(view, rng)[0] for _ in range(2000)])
    public = np.bincount(draws["public"], minlength=12) / 2000
    assert np.allclose(public, np.asarray(CLASSIC.piece_counts) / 40, atol=0.025)
    assert (draws["heuristic"] == FLAG).mean() > 2 * (draws["public"] == FLAG).mean()  # 7.7% against 2.8%


def test_the_memory_heuristic_rules_types_out_of_the_samples():
    """Blue's unknown piece on e6 passed up Red's known General with no recapture possible, so it is
    not the Marshal (``test_memory``): no sample makes it one, though it could be by the counts; a
    learned belief's samples honour the elimination too."""
    g = Played(MARSHAL_CHANCE.format(e4="..", a1="rS"), "barrage", reveal=("e5",))
    searches = [Search(uniform_logits, zero_value), Search(uniform_logits, zero_value, belief=LEARNED)]
    rng = np.random.default_rng(0)
    for search in searches:
        search.reset(g.game.variant, 0)
        search.sample(g.view(0), rng)  # the search follows the game from its first move
    g.push("b1-b2", "a10-a9")
    view = g.view(0)
    for search in searches:
        assert all(search.sample(view, rng)[54] != MARSHAL for _ in range(60))
    uninformed = Search(uniform_logits, zero_value, belief=lambda v, _: lambda r, n: sample_hidden(v, r, n=n))
    assert any(uninformed.sample(view, rng)[54] == MARSHAL for _ in range(60))


# -- the improvement step -------------------------------------------------------------------------------

def test_the_improvement_step_is_its_closed_form():
    a, b, c = Move(1, 2), Move(3, 4), Move(5, 6)
    prior = {a: 0.5, b: 0.3, c: 0.2}
    q = {a: 0.1, b: -0.4}
    alpha, tau = 4.0, 0.25
    baseline = (0.5 * 0.1 + 0.3 * -0.4) / 0.8  # c has no Q: the prior-weighted mean of the others
    logits = {m: (math.log(prior[m]) + alpha * q.get(m, baseline)) / (1 + alpha * tau) for m in prior}
    z = sum(math.exp(v) for v in logits.values())
    want = {m: math.exp(v) / z for m, v in logits.items()}
    got = improve(prior, q, alpha, tau)
    assert got.keys() == want.keys() and all(abs(got[m] - want[m]) < 1e-12 for m in want)
    assert improve(prior, q, 0.0, tau) == pytest.approx(prior)  # no step: the prior
    assert improve(prior, {m: 0.3 for m in prior}, alpha, 0.0) == pytest.approx(prior)  # equal Q: no change
    assert improve({a: 0.0, b: 1.0}, {a: 1.0}, alpha, tau)[a] == 0.0  # never revives a move the prior excludes
    with pytest.raises(ValueError, match="outside the prior"):
        improve(prior, {Move(7, 8): 0.0}, alpha, tau)


# -- the search -----------------------------------------------------------------------------------------

class FakeClock:
    """Each reading advances by ``tick`` seconds: the budget logic, without wall-clock time."""

    def __init__(self, tick: float):
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def test_the_budget_decides_how_many_rounds_run():
    game, history = random_position(BARRAGE, 3, 20)
    view = PlayerView.of(game, game.turn, history)
    prior = {m: 1 / len(view.legal_moves) for m in view.legal_moves}
    # each round reads the clock twice (1 s apart) and the loop stops before a round that would end
    # past the budget: rounds end at 3, 5, 7, ... s from a start at 1 s
    for seconds, rounds in ((0.5, 1), (4.5, 2), (6.5, 3)):
        search = Search(uniform_logits, zero_value, SearchConfig(samples=2, depth=1, seconds=seconds), clock=FakeClock(1.0))
        search.reset(BARRAGE, view.player)
        result = search.run(view, prior, np.random.default_rng(0))
        assert result.rounds == rounds and result.samples == 2 * rounds
    capped = Search(uniform_logits, zero_value, SearchConfig(samples=2, depth=1, seconds=100, rounds=2), clock=FakeClock(1.0))
    capped.reset(BARRAGE, view.player)
    assert capped.run(view, prior, np.random.default_rng(0)).rounds == 2


def rows_value(obs: np.ndarray) -> np.ndarray:
    """0.01 for each row of the other side's pieces in the acting player's frame (the opponent likes my pieces
    far from it)."""
    theirs = obs[:, 13:25].sum(axis=1).reshape(len(obs), 10, 10)  # each occupied square sums to 1
    return (0.01 * (theirs.sum(axis=2) @ np.arange(10, dtype=np.float32))).astype(np.float32)


def test_q_is_the_value_of_the_position_the_move_leads_to():
    """With depth 0, Q of a move is minus the value of the position after it for the opponent, to
    move there.  A value function that counts the rows of the other side's pieces in the acting
    player's frame (0.01 a row, so the opponent likes my pieces far from it) makes ``Q`` rise by
    0.01 for each row a quiet move advances."""
    game, history = random_position(BARRAGE, 5, 0)
    view = PlayerView.of(game, game.turn, history)
    me = view.player
    quiet = [m for m in view.legal_moves if view.owner[m.to_sq] == -1]
    search = Search(uniform_logits, rows_value, SearchConfig(samples=2, depth=0, candidates=len(quiet), rounds=1))
    search.reset(BARRAGE, me)
    q = search.run(view, {m: 1 / len(quiet) for m in quiet}, np.random.default_rng(0)).q
    assert set(q) == set(quiet)
    advance = {m: (m.to_sq // 10 - m.from_sq // 10) * (1 if me == 0 else -1) for m in quiet}
    base = q[quiet[0]] - 0.01 * advance[quiet[0]]
    for m in quiet:
        assert q[m] == pytest.approx(base + 0.01 * advance[m], abs=1e-5), m


def test_value_weight_adds_the_value_of_the_leaf_to_the_material_it_wins():
    """``value_weight=w`` with ``leaf=gain``: every quiet move wins the same material, and the value head's
    judgement of the position after it (``rows_value``, 0.01 a row) adds ``w``
    times its value for the player searching, so ``Q`` rises by ``0.01 w`` for each row a quiet move advances.
    Without it the value head is never read."""
    game, history = random_position(BARRAGE, 5, 0)
    view = PlayerView.of(game, game.turn, history)
    me = view.player
    quiet = [m for m in view.legal_moves if view.owner[m.to_sq] == -1]
    q = {}
    for weight, value_fn in ((0.0, nan_values), (0.5, rows_value)):
        search = Search(uniform_logits, value_fn, SearchConfig(samples=2, depth=0, candidates=len(quiet), rounds=1,
                                                               leaf="gain", value_weight=weight))
        search.reset(BARRAGE, me)
        q[weight] = search.run(view, {m: 1 / len(quiet) for m in quiet}, np.random.default_rng(0)).q
    assert len({round(v, 9) for v in q[0.0].values()}) == 1  # the material cannot tell the quiet moves apart
    advance = {m: (m.to_sq // 10 - m.from_sq // 10) * (1 if me == 0 else -1) for m in quiet}
    base = q[0.5][quiet[0]] - 0.005 * advance[quiet[0]]
    for m in quiet:
        assert q[0.5][m] == pytest.approx(base + 0.005 * advance[m], abs=1e-5), m
    assert len(set(advance.values())) > 1
    with pytest.raises(ValueError, match="value_weight"):
        SearchConfig(value_weight=-0.1)


def marshal_below(above: int) -> np.ndarray:
    """``int8[100]``: a Barrage board with Red's Marshal on e2, Red's Flag on a1, Blue's Scout on a10 and Flag
    on j10, and the board code ``above`` on e3."""
    drawn = Game.from_diagram("""
        10 b2 .. .. .. .. .. .. .. .. bF
         9 .. .. .. .. .. .. .. .. .. ..
         8 .. .. .. .. .. .. .. .. .. ..
         7 .. .. .. .. .. .. .. .. .. ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 .. .. .. .. rM .. .. .. .. ..
         1 rF .. .. .. .. .. .. .. .. ..
           a  b  c  d  e  f  g  h  i  j
        """, BARRAGE).state.board[0].copy()
    drawn[24] = above
    return drawn


def marshal_next_to_general(ahead: bool = False, **counters) -> tuple[PlayerView, np.ndarray]:
    """Red to move, its Marshal below a Blue General, every Blue piece revealed (so the belief is the
    board itself), with the move counters ``counters``: Red's view and Blue's true types.  ``ahead``:
    Red also has its own General and a Bomb, far from the action, so it leads by 1.5 more."""
    drawn = marshal_below(code_of(1, GENERAL))
    if ahead:
        drawn[9], drawn[8] = code_of(0, GENERAL), code_of(0, BOMB)  # j1 and i1
    game = Game.from_state(BARRAGE, drawn, (drawn > 12).astype(np.uint8) * K.REVEALED, turn=0, **counters)
    view = PlayerView.of(game, 0)
    return view, np.where(view.owner == 1, view.types, -1).astype(np.int8)


def test_material_leaves_score_the_sampled_board():
    """``leaf=material``: with depth 0, Q of a move is ``tanh`` of the piece values left on the sampled
    board after it, so a capture that wins a piece outscores every quiet move by exactly the value it
    removes, and the value head is never asked (the network returns NaN values)."""
    boards = np.zeros((2, 100), np.int8)
    boards[:, 0], boards[:, 99] = code_of(0, FLAG), code_of(1, FLAG)
    boards[0, 5] = code_of(0, MARSHAL)
    boards[1, 5] = code_of(1, MARSHAL)  # a Marshal each side of the ledger
    worth = material_difference(boards, 0)
    np.testing.assert_allclose(worth, [PIECE_VALUE[MARSHAL], -PIECE_VALUE[MARSHAL]])
    np.testing.assert_allclose(material_difference(boards, 1), -worth)

    view, truth = marshal_next_to_general()

    search = Search(uniform_logits, nan_values, SearchConfig(samples=2, depth=0, candidates=len(view.legal_moves), rounds=1,
                                      leaf="material"), belief=exactly(truth))
    search.reset(BARRAGE, 0)
    q = search.run(view, {m: 1 / len(view.legal_moves) for m in view.legal_moves}, np.random.default_rng(0)).q
    capture = Move.parse("e2-e3")
    red = PIECE_VALUE[FLAG] + PIECE_VALUE[MARSHAL]
    blue = PIECE_VALUE[FLAG] + PIECE_VALUE[SCOUT]
    assert q[capture] == pytest.approx(np.tanh(red - blue))
    assert len(q) == 4  # and three quiet moves of the Marshal
    for m in view.legal_moves:
        if m != capture:
            assert q[m] == pytest.approx(np.tanh(red - blue - PIECE_VALUE[GENERAL])), m
    with pytest.raises(ValueError, match="leaf"):
        SearchConfig(leaf="guess")


def test_people_piece_values_price_the_material_as_people_s_results_do():
    """``piece_values=people``: the material leaves read the variant's ``PEOPLE_PIECE_VALUE`` instead of the
    thesis's table, so the capture's Q is ``tanh`` of people's values (a Barrage Scout is worth 0.50 there,
    not 0.1); a variant people's games give no values for is refused when the game starts, naming the fix."""
    view, truth = marshal_next_to_general()
    moves = {m: 1 / len(view.legal_moves) for m in view.legal_moves}
    config = SearchConfig(samples=2, depth=0, candidates=len(moves), rounds=1, leaf="material", piece_values="people")
    search = Search(uniform_logits, nan_values, config,
                    belief=exactly(truth))
    search.reset(BARRAGE, 0)
    q = search.run(view, moves, np.random.default_rng(0)).q
    worth = PEOPLE_PIECE_VALUE["barrage"]
    lead = worth[MARSHAL] - worth[SCOUT]  # the Flags cancel
    assert q[Move.parse("e2-e3")] == pytest.approx(np.tanh(lead))
    for m in moves:
        if m != Move.parse("e2-e3"):
            assert q[m] == pytest.approx(np.tanh(lead - worth[GENERAL])), m
    assert worth[SCOUT] > 4 * PIECE_VALUE[SCOUT] and PEOPLE_PIECE_VALUE["classic"][BOMB] < PIECE_VALUE[BOMB] / 4
    mine = replace(CLASSIC, name="mine")
    with pytest.raises(ValueError, match="piece_values.py"):
        search.reset(mine, 0)
    search.config = replace(config, piece_values="thesis")
    search.reset(mine, 0)  # the thesis's table serves every variant
    with pytest.raises(ValueError, match="piece_values"):
        SearchConfig(piece_values="market")


def test_progress_leaves_discount_a_lead_as_the_draw_nears():
    """``leaf=progress``: the material score times ``1 - r**2``.  After 159 moves without an attack a
    quiet move leaves ``r = 160/200`` and keeps 36% of the lead, where the capture resets the count
    (``r = 160/2000``, from the total-move limit) and keeps almost all of it: the side ahead attacks."""
    view, truth = marshal_next_to_general(ply=159, moves_since_attack=159)
    q = {}
    for leaf in ("material", "progress"):
        search = Search(uniform_logits, zero_value, SearchConfig(samples=2, depth=0, candidates=len(view.legal_moves), rounds=1,
                                                  leaf=leaf), belief=exactly(truth))
        search.reset(BARRAGE, 0)
        q[leaf] = search.run(view, {m: 1 / len(view.legal_moves) for m in view.legal_moves},
                             np.random.default_rng(0)).q
    capture = Move.parse("e2-e3")
    assert BARRAGE.max_moves_without_attack == 200 and BARRAGE.max_moves == 2000
    for m in view.legal_moves:
        kept = 1 - (160 / 2000) ** 2 if m == capture else 1 - (160 / 200) ** 2
        assert q["progress"][m] == pytest.approx(q["material"][m] * kept), m
    assert q["progress"][capture] > max(v for m, v in q["progress"].items() if m != capture)


def test_the_control_variate_takes_the_luck_out_of_an_attack():
    """Red's Marshal may attack e3, an unmoved unknown piece of Blue's eight (a Bomb one time in eight, the Flag
    one in eight).  With ``depth=0`` and eight samples a round, ``Q`` of the attack is otherwise the mean of eight
    draws of the battle; with the control variate it is the battle's expectation over the belief, whatever the
    round drew (``battle_scores``), and the same on average as without it."""
    drawn = Game.from_diagram("""
        10 b2 b2 b3 bS .. .. b9 bM bF ..
         9 .. .. .. .. .. .. .. .. .. ..
         8 .. .. .. .. .. .. .. .. .. ..
         7 .. .. .. .. .. .. .. .. .. ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. bB .. .. .. .. ..
         2 .. .. .. .. rM .. .. .. .. ..
         1 rF .. .. .. .. .. .. .. .. ..
           a  b  c  d  e  f  g  h  i  j
        """, BARRAGE).state.board[0]
    view = PlayerView.of(Game.from_state(BARRAGE, drawn, None, turn=0), 0)
    attack = Move.parse("e2-e3")
    prior = {m: 1 / len(view.legal_moves) for m in view.legal_moves}
    qs = {}
    for control in (False, True):
        config = SearchConfig(samples=8, depth=0, candidates=len(prior), rounds=1, leaf="gain", belief="public",
                              control_variate=control)
        search = Search(uniform_logits, zero_value, config)
        search.reset(BARRAGE, 0)
        qs[control] = np.array([search.run(view, prior, np.random.default_rng(seed)).q[attack] for seed in range(40)])
    counts = np.asarray(BARRAGE.piece_counts, float)  # every Blue piece is any of the eight with equal chance
    scores = [1.0 if t == FLAG else np.tanh(PIECE_VALUE[t] * (FIGHT[MARSHAL, t] >= 0)
                                             - PIECE_VALUE[MARSHAL] * (FIGHT[MARSHAL, t] <= 0)) for t in range(12)]
    expected = counts @ scores / counts.sum()
    assert qs[True].std() < 0.3 * qs[False].std()  # 0.03 (256 draws) against about 0.2 (8 draws)
    assert qs[True].mean() == pytest.approx(expected, abs=0.02)
    assert qs[False].mean() == pytest.approx(expected, abs=3 * qs[False].std() / np.sqrt(40))


def test_gain_leaves_score_what_the_line_wins_however_far_ahead():
    """``leaf=gain``: Q of a move is ``tanh`` of the material it wins on the sample, less the draw
    term of ``progress``.  Winning the General scores ``tanh(1.0)`` whether Red was level or far
    ahead, where ``leaf=material``'s ``tanh`` of the whole difference tells the capture from a quiet
    move less and less as the lead grows."""
    spread = {}
    for ahead in (False, True):
        view, truth = marshal_next_to_general(ahead=ahead)
        q = {}
        for leaf in ("material", "gain"):
            search = Search(uniform_logits, zero_value, SearchConfig(samples=2, depth=0, candidates=len(view.legal_moves),
                                                      rounds=1, leaf=leaf), belief=exactly(truth))
            search.reset(BARRAGE, 0)
            q[leaf] = search.run(view, {m: 1 / len(view.legal_moves) for m in view.legal_moves},
                                 np.random.default_rng(0)).q
        capture = Move.parse("e2-e3")
        lead = (PIECE_VALUE[FLAG] + PIECE_VALUE[MARSHAL] - PIECE_VALUE[FLAG] - PIECE_VALUE[SCOUT]
                + (PIECE_VALUE[GENERAL] + PIECE_VALUE[BOMB] if ahead else 0.0))
        near = (1 / BARRAGE.max_moves_without_attack) ** 2  # a quiet move: one move without an attack
        assert q["gain"][capture] == pytest.approx(np.tanh(PIECE_VALUE[GENERAL]) - (1 / 2000) ** 2 * np.tanh(lead))
        for m in view.legal_moves:
            if m != capture:
                assert q["gain"][m] == pytest.approx(-near * np.tanh(lead - PIECE_VALUE[GENERAL])), m
        spread[ahead] = {leaf: q[leaf][capture] - max(v for m, v in q[leaf].items() if m != capture) for leaf in q}
    assert spread[True]["gain"] == pytest.approx(spread[False]["gain"], abs=1e-4)
    assert spread[True]["material"] < 0.5 * spread[False]["material"]


def test_contempt_counts_a_draw_against_the_player_searching():
    """``contempt=c``: the draw term pulls a leaf towards ``-c`` (``- r**2 (tanh(d) + c)``), with the
    no-attack count carried on to the player's nearest attack (``attack_delay``); a rollout that ends
    drawn by the no-attack limit is scored as a leaf at the limit (``r = 1``); and an attack that may win
    joins the candidates however low its prior.  ``c = 0`` is the search without contempt."""
    capture = Move.parse("e2-e3")

    def q_of(contempt: float, candidates: int | None = None, **counters) -> dict[Move, float]:
        view, truth = marshal_next_to_general(**counters)
        prior = {m: (0.01 if m == capture else 1.0) for m in view.legal_moves}
        total = sum(prior.values())
        config = SearchConfig(samples=2, depth=0, candidates=candidates or len(view.legal_moves), rounds=1,
                              leaf="gain", contempt=contempt)
        search = Search(uniform_logits, zero_value, config, belief=exactly(truth))
        search.reset(BARRAGE, 0)
        return search.run(view, {m: p / total for m, p in prior.items()}, np.random.default_rng(0)).q

    plain, scornful = q_of(0.0, ply=159, moves_since_attack=159), q_of(0.5, ply=159, moves_since_attack=159)
    level = PIECE_VALUE[MARSHAL] - PIECE_VALUE[GENERAL] - PIECE_VALUE[SCOUT]  # Red's lead before the capture
    general = 24  # e3
    for m in plain:
        if m == capture:  # the count restarts; the Marshal is 11 steps from the Scout on a10
            d, near, later = level + PIECE_VALUE[GENERAL], 160 / 2000, 2 * 10 + 1
        else:  # Blue moves, then the Marshal needs s steps back to the General
            steps = abs(m.to_sq // 10 - general // 10) + abs(m.to_sq % 10 - general % 10)
            d, near, later = level, 160 / 200, 160 + 2 * (steps - 1) + 1
        delayed = max(later / 200, 160 / 2000) if m == capture else later / 200
        assert plain[m] == pytest.approx(np.tanh(d - level) - near ** 2 * np.tanh(d)), m
        assert scornful[m] == pytest.approx(np.tanh(d - level) - delayed ** 2 * (np.tanh(d) + 0.5)), m
    drawn = q_of(0.7, ply=199, moves_since_attack=199)  # the 200th move without an attack draws
    for m in drawn:
        if m == capture:
            near = max(21 / 200, 200 / 2000)  # the Marshal's next attack, or the total-move limit
            won = np.tanh(PIECE_VALUE[GENERAL]) - near ** 2 * (np.tanh(level + PIECE_VALUE[GENERAL]) + 0.7)
        else:  # nothing won, and the draw's whole term: worse than the leaf one move earlier
            won = -(np.tanh(level) + 0.7)
        assert drawn[m] == pytest.approx(won), m
    assert capture not in q_of(0.0, candidates=2) and capture in q_of(0.2, candidates=2)
    with pytest.raises(ValueError, match="contempt"):
        SearchConfig(contempt=1.5)


def every_move_q(view: PlayerView, truth: np.ndarray, **options) -> dict[Move, float]:
    """Each legal move's ``Q`` from one round of two samples of ``truth`` (``exactly``), every move a
    candidate under a uniform prior, no rollout (``depth=0``), the ``gain`` leaf and the search ``options``."""
    config = SearchConfig(samples=2, depth=0, candidates=len(view.legal_moves), rounds=1, leaf="gain", **options)
    search = Search(uniform_logits, zero_value, config, belief=exactly(truth))
    search.reset(view.variant, view.player)
    return search.run(view, {m: 1 / len(view.legal_moves) for m in view.legal_moves}, np.random.default_rng(0)).q


def test_passive_opponent_makes_a_draw_no_rescue_for_the_player_behind():
    """``passive=P``: from ply ``P``, against an opponent that has lost or tied no attack (``presses``), the
    draw term counts a lead of the opponent's as level, ``- r**2 (max(tanh(d), 0) + c)``: Red, behind by a
    Marshal and a Scout one move before the no-attack draw, scores a quiet move's draw at ``-c`` instead of
    ``-(tanh(d) + c) > 0``.  An opponent that has lost or tied an attack, or a ply before ``P``, leaves the
    draw term as it was."""
    drawn = marshal_below(code_of(1, GENERAL))
    drawn[9] = code_of(1, MARSHAL)  # j1, revealed as every Blue piece
    game = Game.from_state(BARRAGE, drawn, (drawn > 12).astype(np.uint8) * K.REVEALED, turn=0, ply=199,
                           moves_since_attack=199)
    view = PlayerView.of(game, 0)
    truth = np.where(view.owner == 1, view.types, -1).astype(np.int8)
    lead = -PIECE_VALUE[MARSHAL] - PIECE_VALUE[SCOUT]  # Red's Marshal against Blue's Marshal, General, Scout
    capture, contempt = Move.parse("e2-e3"), 0.5
    lost = MoveRecord(Move.parse("a9-a8"), 1, SCOUT, BOMB, K.RESULT_DEFENDER_WON)  # Blue's attack on a Bomb
    won = MoveRecord(Move.parse("a9-a8"), 1, MARSHAL, SCOUT, K.RESULT_ATTACKER_WON)
    red_lost = MoveRecord(Move.parse("a2-a3"), 0, SCOUT, BOMB, K.RESULT_DEFENDER_WON)
    assert not presses(view) and not presses(replace(view, history=(won, red_lost)))
    assert presses(replace(view, history=(won, lost))) and presses(
        replace(view, history=(MoveRecord(Move.parse("a9-a8"), 1, SCOUT, SCOUT, K.RESULT_BOTH_REMOVED),)))

    def quiet_q(passive: int, history: tuple = ()) -> set[float]:
        q = every_move_q(replace(view, history=history), truth, contempt=contempt, passive=passive)
        return {round(v, 9) for m, v in q.items() if m != capture}

    stalled = round(-(np.tanh(lead) + contempt), 9)
    assert stalled > 0
    assert quiet_q(0) == {stalled} == quiet_q(200) == quiet_q(150, (won, lost))
    assert quiet_q(150) == quiet_q(150, (won, red_lost)) == {-contempt}
    with pytest.raises(ValueError, match="passive"):
        SearchConfig(passive=-1)


def classic_board(pieces: dict[str, int]) -> np.ndarray:
    """``int8[100]``: a Classic board with its lakes and ``pieces`` (square name: board code), empty elsewhere."""
    board = np.full(100, EMPTY, np.int8)
    board[list(CLASSIC.lakes)] = LAKE
    for name, code in pieces.items():
        board[parse_square(name)] = code
    return board


def test_a_lost_game_scores_below_every_unfinished_line():
    """``DECIDED_MARGIN``, against an opponent that does not press (``passive``; Blue has lost no attack): Red's lone
    Marshal on f9 beside Blue's revealed Marshal, one move before the no-attack draw, ahead on the thesis's table
    (its six Bombs).  Every quiet move ends the game drawn, a leaf at the limit:
    ``-(tanh(d) + c)``, below -1.  f9xf10 trades the Marshals, and Red, with no movable piece left after Blue's
    reply, loses: it scored -1, above the draw, and the search took it (against ``sure``, seed 610).  Now the loss
    scores ``DECIDED_MARGIN`` below the round's lowest unfinished line.  Early in the game, where the leaves stay
    above -1, it scores -1 as before, and so does a rollout that ends with Red's Marshal on a Bomb: Red has no
    movable piece left and loses at its next turn (``movable_left``), where the leaf scored it as a draw.  Against an
    opponent that presses the search scores as before."""
    board = classic_board({"f9": code_of(0, MARSHAL), "g1": code_of(0, FLAG), "f1": code_of(0, BOMB),
                           "h1": code_of(0, BOMB), "g2": code_of(0, BOMB), "a1": code_of(0, BOMB),
                           "b1": code_of(0, BOMB), "c1": code_of(0, BOMB), "f10": code_of(1, MARSHAL),
                           "a10": code_of(1, MAJOR), "j10": code_of(1, FLAG), "e10": code_of(1, BOMB),
                           "g10": code_of(1, BOMB)})
    flags = np.where(board > 0, K.REVEALED | K.MOVED, 0).astype(np.uint8)
    flags[[parse_square(s) for s in ("g1", "f1", "h1", "g2", "a1", "b1", "c1", "j10", "e10", "g10")]] = K.REVEALED
    trade = Move.parse("f9-f10")

    def q(ply: int, since_attack: int, passive: int = 1) -> dict[Move, float]:
        game = Game.from_state(CLASSIC, board, flags, turn=0, ply=ply, moves_since_attack=since_attack)
        view = PlayerView.of(game, 0)
        truth = np.where(view.owner == 1, view.types, -1).astype(np.int8)
        config = SearchConfig(samples=2, depth=2, candidates=len(view.legal_moves), rounds=1, leaf="gain",
                              contempt=1.0, passive=passive)
        search = Search(uniform_logits, zero_value, config, belief=exactly(truth))
        search.reset(view.variant, view.player)
        return search.run(view, {m: 1 / len(view.legal_moves) for m in view.legal_moves},
                          np.random.default_rng(0)).q

    late = q(1578, CLASSIC.max_moves_without_attack - 1)
    quiet = [v for m, v in late.items() if m != trade]
    lead = 4 * PIECE_VALUE[BOMB] - PIECE_VALUE[MAJOR]  # six Bombs against two and a Major
    assert len(quiet) == 3 and quiet == pytest.approx([-(math.tanh(lead) + 1.0)] * 3)
    assert late[trade] == pytest.approx(min(quiet) - DECIDED_MARGIN)
    early = q(100, 20)
    assert early[trade] == -1.0 and min(v for m, v in early.items() if m != trade) > -1.0
    assert q(1578, CLASSIC.max_moves_without_attack - 1, passive=0)[trade] == -1.0  # one that presses: as before


def test_against_a_passive_opponent_a_step_nearer_its_flag_is_worth_approach():
    """With ``passive`` and ``approach``, each quiet move of Red's lone Miner scores ``approach`` more when it
    comes a rook step nearer Blue's Flag (e3, f2) and less when it goes one further (d2, e1); with either
    option off, or against an opponent that has lost an attack, all score alike, until the no-attack count
    reaches ``APPROACH_NEARNESS`` of its limit: then ``approach`` counts against any opponent."""
    board = classic_board({"a10": code_of(1, GENERAL), "i10": code_of(1, BOMB), "j10": code_of(1, FLAG),
                           "j9": code_of(1, BOMB), "e2": code_of(0, MINER), "a1": code_of(0, FLAG)})
    game = Game.from_state(CLASSIC, board, np.zeros(100, np.uint8), turn=0, ply=250, moves_since_attack=20)
    view = PlayerView.of(game, 0)
    truth = np.where(view.owner == 1, types_of(board), -1).astype(np.int8)

    lost = MoveRecord(Move.parse("a10-a9"), 1, GENERAL, BOMB, K.RESULT_DEFENDER_WON)

    def quiet_q(passive: int, approach: float, history: tuple = (), since_attack: int = 20) -> dict[str, float]:
        q = every_move_q(replace(view, history=history, moves_since_attack=since_attack), truth, passive=passive,
                         approach=approach)
        return {str(m)[-2:]: v for m, v in q.items()}

    plain, pressed = quiet_q(200, 0.0), quiet_q(200, 0.05)
    assert set(plain) == {"e3", "f2", "d2", "e1"} and len({round(v, 9) for v in plain.values()}) == 1
    for to, steps in (("e3", 1), ("f2", 1), ("d2", -1), ("e1", -1)):
        assert pressed[to] - plain["e3"] == pytest.approx(steps * 0.05)
    for unmoved in (quiet_q(0, 0.05), quiet_q(300, 0.05), quiet_q(200, 0.05, (lost,))):
        assert len({round(v, 9) for v in unmoved.values()}) == 1
    limit = CLASSIC.max_moves_without_attack
    assert len({round(v, 9) for v in quiet_q(0, 0.05, since_attack=int(APPROACH_NEARNESS * limit) - 1).values()}) == 1
    for passive, history in ((0, ()), (200, (lost,))):
        near = quiet_q(passive, 0.05, history, since_attack=int(APPROACH_NEARNESS * limit))
        assert near["e3"] - near["e1"] == pytest.approx(2 * 0.05) and near["f2"] == pytest.approx(near["e3"])
    with pytest.raises(ValueError, match="approach"):
        SearchConfig(approach=-0.1)


def test_against_a_passive_opponent_the_candidates_hold_the_move_nearest_its_flag():
    """``approach_move``: of Red's quiet moves, the Miner's on e2 towards Blue's Flag on j10 (e3 or f2) lowers
    ``flag_approach`` by one; the Spy's on b1 lowers nothing, and with the Miner gone no move comes nearer than
    the Spy already is.  With ``passive`` and ``approach``, the search adds that move to candidates the prior
    fills with the Spy's moves, and raises its prior to the top one's; without ``approach``, or against an
    opponent that has lost an attack, the candidates are the prior's.  Against that opponent with the
    no-attack count half-way to its limit, the move enters again, with ``GUARD_PRIOR`` times the top prior."""
    board = classic_board({"a10": code_of(1, GENERAL), "i10": code_of(1, BOMB), "j10": code_of(1, FLAG),
                           "j9": code_of(1, BOMB), "e2": code_of(0, MINER), "b1": code_of(0, SPY),
                           "a1": code_of(0, FLAG)})
    game = Game.from_state(CLASSIC, board, np.zeros(100, np.uint8), turn=0, ply=250, moves_since_attack=20)
    view = PlayerView.of(game, 0)
    truth = np.where(view.owner == 1, types_of(board), -1).astype(np.int8)
    spy = [m for m in view.legal_moves if str(m).startswith("b1")]
    miner = [m for m in view.legal_moves if str(m).startswith("e2")]
    nearer = approach_move(view, spy + miner, np.tile(truth, (3, 1)))
    assert str(nearer) in ("e2-e3", "e2-f2")
    assert approach_move(view, spy, truth[None]) is None
    assert approach_move(view, [m for m in miner if str(m) in ("e2-d2", "e2-e1")], truth[None]) is None

    prior = {m: (0.97 / len(spy) if m in spy else 0.03 / len(miner)) for m in view.legal_moves}
    lost = MoveRecord(Move.parse("a10-a9"), 1, GENERAL, BOMB, K.RESULT_DEFENDER_WON)
    limit = CLASSIC.max_moves_without_attack
    top = max(prior.values())
    for approach, history, since, least in ((0.05, (), 20, 1.0), (0.0, (), 20, None), (0.05, (lost,), 20, None),
                                            (0.05, (lost,), limit // 2, GUARD_PRIOR)):
        config = SearchConfig(samples=2, depth=0, candidates=len(spy), rounds=1, alpha=0.0, leaf="gain",
                              passive=200, approach=approach)
        search = Search(uniform_logits, zero_value, config, belief=exactly(truth))
        search.reset(CLASSIC, 0)
        result = search.run(replace(view, history=history, moves_since_attack=since), prior,
                            np.random.default_rng(0))
        if least:
            assert nearer in result.q and len(result.q) == len(spy)
            assert result.policy[nearer] == pytest.approx(least * top / (1 + least * top - prior[nearer]))
        else:
            assert set(result.q) == set(spy) and result.policy == pytest.approx(prior)


def test_against_a_passive_opponent_the_march_outweighs_the_spread_of_the_rollouts():
    """Against an opponent that does not press, the ``approach_move`` (the Miner's step towards Blue's Flag)
    enters the improvement with the top prior and ``MARCH * approach`` added to its ``Q``, so it is played;
    not where a hidden Blue piece two steps from the Miner's square may take it and Blue has attacked before
    (``exposed``), nor against
    an opponent that has lost an attack, with the no-attack count half-way to its limit: then it enters with
    a tenth of the top prior and its ``Q`` as searched, and the prior's Spy move stays the choice."""
    pieces = {"a10": code_of(1, GENERAL), "i10": code_of(1, BOMB), "j10": code_of(1, FLAG), "j9": code_of(1, BOMB),
              "e2": code_of(0, MINER), "b1": code_of(0, SPY), "a1": code_of(0, FLAG)}
    lost = MoveRecord(Move.parse("c5-c4"), 1, SCOUT, MINER, K.RESULT_DEFENDER_WON)  # Blue lost an attack
    won = MoveRecord(Move.parse("g4-g3"), 1, CAPTAIN, SCOUT, K.RESULT_ATTACKER_WON)  # Blue won one
    approach, alpha = 0.05, 10.0
    for history, since, guard_piece, bonus in (((), 20, None, MARCH * approach), ((won,), 20, "g3", 0.0),
                                               ((lost,), CLASSIC.max_moves_without_attack // 2, None, 0.0)):
        board = classic_board({**pieces, **({guard_piece: code_of(1, CAPTAIN)} if guard_piece else {})})
        game = Game.from_state(CLASSIC, board, np.zeros(100, np.uint8), turn=0, ply=250, moves_since_attack=since)
        view = PlayerView.of(game, 0, history)
        truth = np.where(view.owner == 1, types_of(board), -1).astype(np.int8)
        spy = [m for m in view.legal_moves if str(m).startswith("b1")]
        prior = {m: (0.97 / len(spy) if m in spy else 0.03 / 4) for m in view.legal_moves}
        config = SearchConfig(samples=2, depth=0, candidates=len(spy) + 1, rounds=1, alpha=alpha, leaf="gain",
                              passive=200, approach=approach)
        search = Search(uniform_logits, zero_value, config, belief=exactly(truth))
        search.reset(CLASSIC, 0)
        result = search.run(view, prior, np.random.default_rng(0))
        nearer = next(m for m in result.q if m not in spy)
        assert str(nearer) in ("e2-e3", "e2-f2") and exposed(view, nearer) == (guard_piece is not None)
        top = max(spy, key=lambda m: result.policy[m])
        lead = result.q[nearer] + bonus - result.q[top]
        # the Spy's moves share the top prior, which the march is lifted to (a tenth of it otherwise)
        assert result.policy[nearer] / result.policy[top] == pytest.approx(
            (1.0 if bonus else GUARD_PRIOR) * math.exp(search.step_size(view) * lead))
        assert (max(result.policy, key=result.policy.get) == nearer) == bool(bonus)


def test_a_hidden_marcher_is_exposed_only_to_an_opponent_that_has_attacked():
    """Red's Miner on e2 steps to e3, two rook steps from Blue's hidden Captain on g3.  Hidden, it is exposed
    (``exposed``) once Blue has attacked in the game, whether it won or lost; not before, as a player that has
    taken nothing does not start with a piece it cannot know it beats.  Revealed, it is exposed either way.  A piece
    that only ties the marcher (a Colonel two steps from a Colonel) does not expose it."""
    board = classic_board({"a10": code_of(1, GENERAL), "g3": code_of(1, CAPTAIN), "j10": code_of(1, FLAG),
                           "e2": code_of(0, MINER), "a1": code_of(0, FLAG)})
    won = MoveRecord(Move.parse("g4-g3"), 1, CAPTAIN, SCOUT, K.RESULT_ATTACKER_WON)
    lost = MoveRecord(Move.parse("a9-a10"), 1, SCOUT, GENERAL, K.RESULT_DEFENDER_WON)
    ours = MoveRecord(Move.parse("e3-e2"), 0, MINER, SCOUT, K.RESULT_ATTACKER_WON)  # Red's attack says nothing
    march = Move.parse("e2-e3")
    for shown in (False, True):
        flags = np.zeros(100, np.uint8)
        flags[parse_square("e2")] = K.REVEALED if shown else 0
        game = Game.from_state(CLASSIC, board, flags, turn=0, ply=250, moves_since_attack=20)
        for history, attacked in (((), False), ((ours,), False), ((won,), True), ((ours, lost), True)):
            view = PlayerView.of(game, 0, history)
            assert has_attacked(view) == attacked
            assert exposed(view, march) == (shown or attacked)
    # a revealed Colonel marching up to a revealed Colonel risks a trade, not a loss; up to a General, a loss
    for theirs, loses in ((COLONEL, False), (GENERAL, True)):
        board = classic_board({"a10": code_of(1, MARSHAL), "g3": code_of(1, theirs), "j10": code_of(1, FLAG),
                               "e2": code_of(0, COLONEL), "a1": code_of(0, FLAG)})
        flags = np.zeros(100, np.uint8)
        flags[[parse_square("e2"), parse_square("g3")]] = K.REVEALED
        view = PlayerView.of(Game.from_state(CLASSIC, board, flags, turn=0, ply=250, moves_since_attack=20), 0, (won,))
        assert exposed(view, march) == loses


def test_against_a_passive_opponent_spare_sends_the_march_to_a_piece_that_may_attack():
    """Blue's Flag on j10 stands behind two unmoved hidden pieces and a hidden Bomb; Red's General on j7 is three
    rook steps from it through them, its Lieutenant on e2 thirteen (``test_leaf``).  With ``spare=9``, against an
    opponent that does not press, the General may not attack those pieces and they will not move: the march the
    candidates hold is the Lieutenant's.  Against one that has lost an attack, with the no-attack count half-way
    to its limit, they may move, and the march is the General's, as it is without ``spare``."""
    board = classic_board({"a10": code_of(1, BOMB), "i10": code_of(1, LIEUTENANT), "j10": code_of(1, FLAG),
                           "j9": code_of(1, LIEUTENANT), "j7": code_of(0, GENERAL), "e2": code_of(0, LIEUTENANT),
                           "b1": code_of(0, SPY), "a1": code_of(0, FLAG)})
    lost = MoveRecord(Move.parse("a10-a9"), 1, LIEUTENANT, BOMB, K.RESULT_DEFENDER_WON)
    limit = CLASSIC.max_moves_without_attack
    for spare, history, since, marcher in ((9, (), 20, "e2"), (0, (), 20, "j7"), (9, (lost,), limit // 2, "j7")):
        game = Game.from_state(CLASSIC, board, np.zeros(100, np.uint8), turn=0, ply=250, moves_since_attack=since)
        view = PlayerView.of(game, 0, history)
        truth = np.where(view.owner == 1, types_of(board), -1).astype(np.int8)
        spy = [m for m in view.legal_moves if str(m).startswith("b1")]
        prior = {m: (0.97 / len(spy) if m in spy else 0.03 / (len(view.legal_moves) - len(spy)))
                 for m in view.legal_moves}
        config = SearchConfig(samples=2, depth=0, candidates=len(spy), rounds=1, leaf="gain", passive=200,
                              approach=0.05, spare=spare)
        search = Search(uniform_logits, zero_value, config, belief=exactly(truth))
        search.reset(CLASSIC, 0)
        added = set(search.run(view, prior, np.random.default_rng(0)).q) - set(spy)
        assert len(added) == 1 and str(next(iter(added)))[:2] == marcher


def test_a_miner_boxed_in_by_its_own_pieces_comes_nearer_as_they_make_way():
    """Red's only Miner, on f2, is walled in by its own Bombs on e2 and f1 and its own Major on f3 and
    Lieutenant on g2; Blue's Flag on j10 lies behind Bombs only a Miner takes.  Each step onto Red's own
    piece costs two, so ``flag_approach`` is 13, and a Major's or Lieutenant's move out of the Miner's way
    brings it to 12: ``approach_move`` picks such a move (the Miner has none)."""
    board = classic_board({"a10": code_of(1, GENERAL), "i10": code_of(1, BOMB), "j10": code_of(1, FLAG),
                           "j9": code_of(1, BOMB), "f2": code_of(0, MINER), "e2": code_of(0, BOMB),
                           "f1": code_of(0, BOMB), "f3": code_of(0, MAJOR), "g2": code_of(0, LIEUTENANT),
                           "a1": code_of(0, FLAG)})
    assert flag_approach(board[None], 0).tolist() == [13]
    game = Game.from_state(CLASSIC, board, np.zeros(100, np.uint8), turn=0, ply=250, moves_since_attack=20)
    view = PlayerView.of(game, 0)
    truth = np.where(view.owner == 1, types_of(board), -1).astype(np.int8)
    moves = list(view.legal_moves)
    assert {str(m)[:2] for m in moves} == {"f3", "g2"}
    nearer = approach_move(view, moves, truth[None])
    after = board.copy()
    after[nearer.to_sq], after[nearer.from_sq] = after[nearer.from_sq], EMPTY
    assert flag_approach(after[None], 0).tolist() == [12]


def test_a_miner_whose_blockers_only_step_keeps_it_in_the_way_comes_nearer_two_moves_on():
    """Red's only Miner, on f1, has its own Bombs on e1, g1, e2 and g2 beside it and its Spy on f2 ahead: the Spy's
    one move, to f3, leaves it in the Miner's way (``flag_approach`` stays 14, a step onto the Spy costing two),
    and a Sergeant's moves on a5 go nowhere near Blue's walled Flag.  No single move comes nearer, so
    ``approach_move`` plans two (``clearing_plans``): the Spy's f2-f3, then its step off the way (f3-e3 brings
    the Miner to 13).  With a Scout in the Miner's place no piece has a way to the Flag, and nothing is offered."""
    pieces = {"a10": code_of(1, GENERAL), "i10": code_of(1, BOMB), "j10": code_of(1, FLAG), "j9": code_of(1, BOMB),
              "f2": code_of(0, SPY), "e1": code_of(0, BOMB), "g1": code_of(0, BOMB), "e2": code_of(0, BOMB),
              "g2": code_of(0, BOMB), "a5": code_of(0, SERGEANT), "a1": code_of(0, FLAG)}
    for runner, offered in ((MINER, "f2-f3"), (SCOUT, None)):
        board = classic_board({**pieces, "f1": code_of(0, runner)})
        game = Game.from_state(CLASSIC, board, np.zeros(100, np.uint8), turn=0, ply=250, moves_since_attack=20)
        view = PlayerView.of(game, 0)
        truth = np.where(view.owner == 1, types_of(board), -1).astype(np.int8)
        moves = list(view.legal_moves)
        assert {str(m)[:2] for m in moves} == {"f2", "a5"}
        nearer = approach_move(view, moves, np.tile(truth, (2, 1)))
        assert (None if nearer is None else str(nearer)) == offered
    assert flag_approach(board[None], 0).tolist() == [APPROACH_HORIZON + 1]
    board = classic_board({**pieces, "f1": code_of(0, MINER)})
    after = {}
    for plan in ("", "f2-f3", "f2-f3 f3-e3"):
        played = board.copy()
        for move in map(Move.parse, plan.split()):
            played[move.to_sq], played[move.from_sq] = played[move.from_sq], EMPTY
        after[plan] = flag_approach(played[None], 0).item()
    assert after == {"": 14, "f2-f3": 14, "f2-f3 f3-e3": 13}
    firsts, plans = clearing_plans(PlayerView.of(Game.from_state(CLASSIC, board, np.zeros(100, np.uint8), turn=0),
                                                 0), [Move.parse("f2-f3")])
    assert {" ".join(map(str, plan)) for plan in plans} == {"f2-f3 f3-e3", "f2-f3 f3-g3", "f2-f3 f3-f4",
                                                            "f2-f3 f3-f2", "f2-f3 f1-f2"}
    assert firsts == [Move.parse("f2-f3")] * len(plans)


def test_with_no_way_to_the_flag_the_approach_is_to_the_nearest_attack_that_does_not_lose():
    """Red has no Miner, and Blue's Flag on j10 is walled in by Bombs: no Red piece has a way to it
    (``flag_approach`` is past its horizon).  Blue's last movable piece is its General on f9, which only Red's
    General ties; taking it would leave Blue nothing to move.  ``approach_move`` then offers the General's step
    that most lowers ``attack_delay`` (two plies a step), not the Sergeant's.  With the Generals gone, Red's
    Sergeant beats nothing Blue has on the board, and nothing is offered."""
    pieces = {"i10": code_of(1, BOMB), "j10": code_of(1, FLAG), "j9": code_of(1, BOMB), "a5": code_of(0, SERGEANT),
              "a1": code_of(0, FLAG)}
    for generals, offered in (({"f9": code_of(1, GENERAL), "c2": code_of(0, GENERAL)}, "c2"), ({}, None)):
        board = classic_board({**pieces, **generals})
        game = Game.from_state(CLASSIC, board, np.zeros(100, np.uint8), turn=0, ply=250, moves_since_attack=20)
        view = PlayerView.of(game, 0)
        truth = np.where(view.owner == 1, types_of(board), -1).astype(np.int8)
        assert flag_approach(board[None], 0).tolist() == [APPROACH_HORIZON + 1]
        nearer = approach_move(view, list(view.legal_moves), np.tile(truth, (2, 1)))
        assert (None if nearer is None else str(nearer)[:2]) == offered
        if nearer is not None:
            after = board.copy()
            after[nearer.to_sq], after[nearer.from_sq] = after[nearer.from_sq], EMPTY
            delays = attack_delay(np.stack([board, after]), np.zeros(2, int), 0)
            assert delays[0] - delays[1] == 2


def test_as_a_draw_nears_q_outweighs_the_prior():
    """With contempt, the improvement's step is ``alpha / (1 - r**2)`` for ``r`` the root's nearness to a
    draw limit (at most ``MAX_STEP_GAIN`` times ``alpha``): the Marshal's capture of the General, which the
    prior all but rules out, stays out of the policy's choice early, and is its choice one move before the
    no-attack draw.  Without contempt the prior keeps its weight however near the draw."""
    capture = Move.parse("e2-e3")

    def searched(contempt: float, **counters) -> tuple[float, Move]:
        view, truth = marshal_next_to_general(**counters)
        prior = {m: (1e-3 if m == capture else 1.0) for m in view.legal_moves}
        total = sum(prior.values())
        config = SearchConfig(samples=2, depth=0, candidates=len(prior), rounds=1, alpha=1.0, leaf="gain",
                              contempt=contempt)
        search = Search(uniform_logits, zero_value, config, belief=exactly(truth))
        search.reset(BARRAGE, 0)
        policy = search.run(view, {m: p / total for m, p in prior.items()}, np.random.default_rng(0)).policy
        return search.step_size(view), max(policy, key=policy.get)

    step, choice = searched(1.0, ply=150, moves_since_attack=150)  # r = 150 / 200, the no-attack limit
    assert step == pytest.approx(1.0 / (1 - 0.75 ** 2)) and choice != capture
    assert searched(1.0, ply=0, moves_since_attack=0) == (1.0, choice)
    step, choice = searched(1.0, ply=199, moves_since_attack=199)
    assert 1.0 / (1 - 0.995 ** 2) > step == MAX_STEP_GAIN and choice == capture  # 100.25, capped
    step, choice = searched(0.0, ply=199, moves_since_attack=199)
    assert step == 1.0 and choice != capture


def test_contempt_never_brings_in_an_attack_that_loses_for_certain():
    """The attack contempt adds to the candidates may not lose on public information: a Scout next to a
    revealed Marshal stays out, however near the draw, while the same Scout next to an unknown piece
    joins them."""
    army = Variant("duel", piece_counts=tuple(1 if t in (FLAG, SCOUT, MARSHAL, BOMB) else 0 for t in range(12)))
    for marshal_known in (True, False):
        board = Game.from_diagram("""
            10 b2 .. .. .. .. .. .. .. .. bF
             9 .. .. .. .. .. .. .. .. .. bB
             8 .. .. .. .. .. .. .. .. .. ..
             7 .. .. .. .. .. .. .. .. .. ..
             6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
             5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
             4 .. .. .. .. .. .. .. .. .. ..
             3 .. .. .. .. bM .. .. .. .. ..
             2 .. .. .. .. r2 .. .. .. .. ..
             1 rF rB .. .. .. .. .. .. .. rM
               a  b  c  d  e  f  g  h  i  j
            """, army).state.board[0]
        flags = np.zeros(100, np.uint8)
        flags[24] = K.MOVED | (K.REVEALED if marshal_known else 0)  # Blue's Marshal on e3 has moved
        game = Game.from_state(army, board, flags, turn=0, ply=190, moves_since_attack=190)
        view = PlayerView.of(game, 0)
        attack = Move.parse("e2-e3")
        prior = {m: (1e-4 if m == attack else 1.0) for m in view.legal_moves}
        total = sum(prior.values())
        search = Search(uniform_logits, zero_value, SearchConfig(samples=2, depth=0, candidates=2, rounds=1,
                                                                  leaf="gain", contempt=1.0))
        search.reset(army, 0)
        q = search.run(view, {m: p / total for m, p in prior.items()}, np.random.default_rng(0)).q
        assert (attack in q) != marshal_known  # known: a certain loss; hidden: it may be the Scout (a tie)


#: A small army with two Bombs, and a position where Red's Marshal (e7) and Miner (a7) each stand next to
@pytest.mark.parametrize("variant", [BARRAGE, CLASSIC])
def test_a_searching_agent_plays_whole_legal_games(variant):
    net = DeepNashNet(get_preset("tiny"))
    agent = NetworkAgent(net, search=SearchConfig(samples=2, depth=2, candidates=3, rounds=1))
    logs = []
    agent.on_decision = logs.append
    result = referee_game(agent, NetworkAgent(net), replace(variant, max_moves=80), seed=4)
    assert result.reason is None  # the referee found no illegal move and no failure
    assert any(e.layer == "search" for log in logs for e in log.effects)
    for log in logs:
        if log.step != "deploy":
            assert abs(log.final.sum() - 1) < 1e-9 and np.all(log.final[~(log.raw > 0)] == 0)


def test_rollouts_names_the_network_that_plays_the_rollouts_while_the_prior_stays_the_agent_s(tmp_path):
    config = get_preset("tiny")
    torch.manual_seed(1)
    own, other = DeepNashNet(config), DeepNashNet(config)
    save_checkpoint(tmp_path / "own", 1, {"online": own.state_dict()}, {"net": config.to_dict(), "variant": "barrage"})
    save_checkpoint(tmp_path / "other", 1, {"online": DeepNashNet(config).state_dict(), "target": other.state_dict()},
                    {"net": config.to_dict(), "variant": "barrage"})
    game, history = random_position(BARRAGE, 5, 10)
    obs = observe_view(PlayerView.of(game, game.turn, history))[None]
    fp32 = SearchConfig(precision="float32")
    with torch.inference_mode():
        want_own, want_other = (net.eval()(torch.from_numpy(obs))[0].numpy() for net in (own, other))
    mixed = from_checkpoint(str(tmp_path / "own"), search=True, search_config=replace(fp32, rollouts=str(tmp_path / "other")))
    alone = from_checkpoint(str(tmp_path / "own"), search=True, search_config=fp32)
    assert np.allclose(mixed._logits(obs), want_other, atol=1e-4)  # the other run's target network
    assert np.allclose(alone._logits(obs), want_own, atol=1e-4)
    with torch.inference_mode():  # the prior: the agent's own network either way
        assert np.allclose(mixed.net(torch.from_numpy(obs))[0].numpy(), want_own, atol=1e-5)
    assert not np.allclose(want_own, want_other, atol=1e-3)
    with pytest.raises(CheckpointError):
        from_checkpoint(str(tmp_path / "own"), search=True, search_config=replace(fp32, rollouts=str(tmp_path / "none")))
    shipped = from_checkpoint(str(tmp_path / "own"), search=True, search_config=replace(fp32, rollouts="shipped"))
    shipped_net = load_network(SHIPPED_DIR / "barrage")[0].eval()  # the network shipped for the checkpoint's variant
    with torch.inference_mode():
        want_shipped = shipped_net(torch.from_numpy(obs))
    assert np.allclose(shipped._logits(obs), want_shipped[0].numpy(), atol=1e-4)
    save_checkpoint(tmp_path / "odd", 1, {"online": own.state_dict()}, {"net": config.to_dict(), "variant": "odd"})
    with pytest.raises(AgentSpecError, match="rollouts=shipped: no network shipped for 'odd'"):
        from_checkpoint(str(tmp_path / "odd"), search=True, search_config=replace(fp32, rollouts="shipped"))


# -- the rollout batch ----------------------------------------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(st.sampled_from([CLASSIC, BARRAGE]), st.integers(0, 10_000), st.integers(1, 200))
def test_a_resumed_slot_is_the_game_it_was_given(variant, seed, plies):
    """Loading the true position into a ``VectorEnv`` slot gives the agent's own observation, the legal
    moves as its mask, and the same game after a move."""
    game, history = random_position(variant, seed, plies)
    me = game.turn
    view = PlayerView.of(game, me, history)
    truth = np.where(game.state.board[0] > 0, (game.state.board[0] - 1) % 12, -1).astype(np.int8)
    env = VectorEnv(3, variant, setups="random", auto_reset=False)
    load_determinization(view, truth, env.state, 1)
    env.resume(1, move_rows(history))
    assert env.player[1] == me
    np.testing.assert_array_equal(env.obs[1], observe_view(view))
    legal = np.zeros(100, bool)
    legal[[square_to_action(m.from_sq, me) for m in view.legal_moves]] = True
    np.testing.assert_array_equal(env.mask[1], legal)
    move = view.legal_moves[seed % len(view.legal_moves)]
    actions = env.random_actions().copy()
    actions[1] = square_to_action(move.from_sq, me)
    env.step(actions)
    actions = env.random_actions().copy()
    actions[1] = square_to_action(move.to_sq, me)
    env.step(actions)
    game.push(move)
    np.testing.assert_array_equal(env.state.board[1], game.state.board[0])
    assert bool(env.done[1]) == game.is_over()
    with pytest.raises(ValueError, match=r"\[n, 3\]"):
        env.resume(0, np.zeros(3))


def test_rollout_sampling_keeps_to_the_mask_and_the_threshold():
    logits = np.log(np.array([[0.5, 0.48, 0.02, 0.0], [0.25, 0.25, 0.25, 0.25]], np.float64) + 1e-300)
    logits = np.pad(logits, ((0, 0), (0, 96)))  # 100 actions, the padding masked out
    mask = np.zeros((2, 100), bool)
    mask[0, :3] = True
    mask[1, [1, 3]] = True
    rng = np.random.default_rng(0)
    drawn = np.array([sample_actions(logits, mask, rng, threshold=0.03) for _ in range(2000)])
    assert set(drawn[:, 0]) == {0, 1} and set(drawn[:, 1]) == {1, 3}
    assert abs((drawn[:, 0] == 0).mean() - 0.5 / 0.98) < 0.04
    raw = np.array([sample_actions(logits, mask, rng) for _ in range(2000)])
    assert set(raw[:, 0]) == {0, 1, 2}  # without the threshold the rare action is drawn too


def test_a_rollout_with_one_legal_action_takes_it_without_the_network(monkeypatch):
    """The network sees only rollout games with a choice; a game with one legal action (a selected
    piece with one square to go to) plays it: the one action the policy could give any probability."""
    from deepnash.testtime.search import rollout as rollout_module

    asked, forced = [], []
    real_sample, real_step = rollout_module.sample_actions, VectorEnv.step

    def sample(logits, mask, rng, threshold=0.0):
        asked.append(mask.sum(axis=1))
        return real_sample(logits, mask, rng, threshold)

    def step(env, actions):
        one = env.mask.sum(axis=1) == 1
        assert (actions[one] == env.mask[one].argmax(axis=1)).all()
        forced.append(int(one.sum()))
        return real_step(env, actions)

    monkeypatch.setattr(rollout_module, "sample_actions", sample)
    monkeypatch.setattr(VectorEnv, "step", step)
    game, history = random_position(CLASSIC, 4, 30)  # a crowded board: many pieces with one way out
    view = PlayerView.of(game, game.turn, history)
    search = Search(uniform_logits, zero_value, SearchConfig(samples=4, depth=3, rounds=1))
    search.reset(CLASSIC, view.player)
    search.run(view, {m: 1 / len(view.legal_moves) for m in view.legal_moves}, np.random.default_rng(0))
    assert asked and all((n > 1).all() for n in asked) and sum(forced) > 0


def _sure_capture_worths(game: Game) -> dict[Move, float]:
    """The slow reference of ``sure_captures``: every legal one-square attack of the player to move on a
    revealed piece that it beats, found with the engine's moves and pieces, with the target's worth."""
    out = {}
    for move in game.legal_moves():
        attacker, target = game.piece_at(move.from_sq), game.piece_at(move.to_sq)
        step = abs(move.from_sq // 10 - move.to_sq // 10) + abs(move.from_sq % 10 - move.to_sq % 10)
        if target is not None and target.revealed and step == 1 and FIGHT[attacker.type, target.type] > 0:
            out[move] = float(PIECE_VALUE[target.type])
    return out


def test_a_displace_step_names_the_select_step_it_follows():
    """Every rollout call at the displace step that passes ``follows`` names, for each of its games, that
    game's row in the call before, its select step: the two observations differ in the step and selected-piece
    planes alone."""
    calls = []

    def recording(obs, follows=None):
        calls.append((obs.copy(), follows))
        return uniform_logits(obs)

    game, history = random_position(CLASSIC, 4, 30)
    view = PlayerView.of(game, game.turn, history)
    search = Search(recording, zero_value, SearchConfig(samples=4, depth=4, rounds=2))
    search.reset(CLASSIC, view.player)
    search.run(view, {m: 1 / len(view.legal_moves) for m in view.legal_moves}, np.random.default_rng(0))
    followed = 0
    for (before, _), (obs, follows) in zip(calls, calls[1:]):
        if follows is None:
            continue
        assert obs[:, P_STEP].all() and not before[:, P_STEP].any()
        same = np.ones(obs.shape[1], bool)
        same[[P_STEP, P_SELECTED]] = False
        assert np.array_equal(obs[:, same], before[follows][:, same])
        followed += 1
    assert followed > 0


def test_a_network_agent_s_displace_step_from_its_select_step_is_the_displace_step_from_scratch():
    """``NetworkAgent`` starts a displace-step batch's torso from its select step's first convolution
    (``DeepNashNet.displaced_stem``): the same logits as from the observations alone, in float32 to rounding,
    and in bfloat16 to its precision."""
    torch.manual_seed(0)
    net = DeepNashNet(get_preset("small")).eval()
    env = VectorEnv(12, CLASSIC, setups="random", auto_reset=False)
    env.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(2 * 15):  # a few moves into the game, at a select step
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.mask]))
    select = env.obs.copy()
    env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.mask]))
    order = np.array([3, 0, 7, 7, 11])  # any rows of the select batch, in any order
    displace = env.obs[order]
    for precision, tol in (("float32", 1e-4), ("bfloat16", 0.1)):
        agent = NetworkAgent(net, search=SearchConfig(precision=precision))
        scratch = agent._logits(displace)
        agent._logits(select)
        reused = agent._logits(displace, order)
        assert np.abs(reused - scratch).max() < tol * max(1.0, np.abs(scratch).max())
        agent._logits(displace)  # no select batch kept after a displace one: ``follows`` is ignored
        assert np.array_equal(agent._logits(displace, order), scratch)


def test_the_rollouts_run_in_the_precision_asked_for():
    """``precision``: ``float32`` rollouts (and leaf values) use the agent's network itself; ``bfloat16`` a copy whose policy
    picks the same favourite move on nearly every row; ``auto`` is ``bfloat16`` exactly where oneDNN has bfloat16
    kernels; an unknown precision is refused."""
    from deepnash.agents.network_agent import rollout_dtype, rollout_network

    torch.manual_seed(0)
    net = DeepNashNet(get_preset("tiny")).eval()
    assert rollout_network(net, "float32") is net
    native = torch.bfloat16 if torch.ops.mkldnn._is_mkldnn_bf16_supported() else torch.float32
    assert (rollout_dtype("auto"), rollout_dtype("float32"), rollout_dtype("bfloat16")) == (native, torch.float32,
                                                                                           torch.bfloat16)
    assert next(rollout_network(net, "auto").parameters()).dtype == native
    half = rollout_network(net, "bfloat16")
    assert half is not net and all(p.dtype == torch.bfloat16 for p in half.parameters())
    assert all(p.dtype == torch.float32 for p in net.parameters())
    agents = [NetworkAgent(net, search=SearchConfig(precision=p)) for p in ("float32", "bfloat16")]
    game, history = random_position(CLASSIC, 2, 20)
    obs = np.stack([observe_view(PlayerView.of(game, game.turn, history))] * 3)
    full, low = (agent._logits(obs) for agent in agents)
    assert low.dtype == np.float32 and np.abs(full - low).max() < 0.1 * max(1.0, np.abs(full).max())
    full, low = (agent._leaf_values(obs) for agent in agents)  # the leaves' values, in the same format
    assert np.array_equal(full, agents[0]._values(obs)) and low.dtype == np.float32
    assert np.abs(full - low).max() < 0.05
    with pytest.raises(ValueError, match="precision"):
        SearchConfig(precision="int8")
