"""Who made each decision: ``SearchResult.changed_by``, the counts a searching agent keeps and the arena sums, the
options ``deepnash agents SPEC`` lists, and the test-time layers a search spec refuses."""

from __future__ import annotations

import json

import pytest
import torch
from test_candidates import MARSHAL_BESIDE_HIDDEN
from testtime_helpers import Played, one_round
from typer.testing import CliRunner

from deepnash.agents.registry import AgentSpecError, agent_options, make_agent
from deepnash.arena import run_tournament
from deepnash.cli import app
from deepnash.game import CLASSIC, Move, Variant
from deepnash.game.pieces import BOMB, FLAG, MARSHAL, SCOUT, SPY
from deepnash.testtime.search import HEURISTICS

ARMY = Variant("duel", piece_counts=tuple({FLAG: 1, BOMB: 1, SPY: 1, SCOUT: 2, MARSHAL: 1}.get(t, 0)
                                          for t in range(12)))


def test_the_heuristic_that_drops_the_prior_s_favourite_is_named_and_none_without_it():
    """Red's revealed Marshal on e2 beside pieces that may be the Spy: the prior likes e2-e3 best, ``spy_guard``
    drops it, so the move played is another and ``spy_guard`` changed it; without the guard nothing did."""
    view = Played(MARSHAL_BESIDE_HIDDEN, ARMY, reveal=("e2",)).view(0)
    prior = {m: (5.0 if m == Move.parse("e2-e3") else 1.0) for m in view.legal_moves}
    prior = {m: p / sum(prior.values()) for m, p in prior.items()}
    guarded = one_round(view, prior, spy_guard=True)
    assert max(guarded.policy, key=guarded.policy.get) != Move.parse("e2-e3")
    assert guarded.changed_by == ("spy_guard",)
    plain = one_round(view, prior)
    assert max(plain.policy, key=plain.policy.get) == Move.parse("e2-e3") and plain.changed_by == ()


def test_a_searching_agent_counts_what_its_heuristics_changed_and_the_arena_sums_it():
    torch.set_num_threads(1)
    spec = "shipped:classic,rounds=1,seconds=1000,precision=float32"
    result = run_tournament([spec, "random"], 2, CLASSIC.with_rules(max_moves=24), seed=3, workers=1)
    pair = result.to_dict()["pairs"][0]
    counts = pair["heuristics"]
    assert counts["b"] == {}  # random keeps none
    assert counts["a"]["searched"] == 24  # 12 moves a game, each searched
    assert set(counts["a"]) <= {"searched", *HEURISTICS}
    assert all(0 <= n <= counts["a"]["searched"] for n in counts["a"].values())
    assert json.loads(json.dumps(pair)) == pair


def test_the_search_s_explanation_says_how_findable_our_flag_is_to_the_opponent():
    """The ``--explain`` search line ends with the odds a reasoning opponent gives our Flag, as the opponent's own
    view gives them (``tracking.flag_odds``), and its rank among our pieces."""
    import numpy as np

    from deepnash.game import Game
    from deepnash.game.codes import types
    from deepnash.infostate.tracking import flag_odds, possible_types
    from deepnash.infostate.view import PlayerView, push_recorded

    torch.set_num_threads(1)
    game, history, rng = Game(CLASSIC, seed=8), [], np.random.default_rng(8)
    for _ in range(60):
        moves = game.legal_moves()
        history.append(push_recorded(game, moves[int(rng.integers(len(moves)))]))
    agent = make_agent("shipped:classic,rounds=1,seconds=1000,precision=float32")
    logs = []
    agent.on_decision = logs.append
    agent.reset(CLASSIC, game.turn, 0)
    agent.act(PlayerView.of(game, game.turn, tuple(history)))
    theirs = PlayerView.of(game, 1 - game.turn, tuple(history))
    odds = flag_odds(theirs, possible_types(theirs))
    flag = int(np.flatnonzero((theirs.owner == game.turn) & (types(game.state.board[0]) == FLAG))[0])
    detail = next(e.detail for e in logs[0].effects if e.layer == "search")
    assert f"our Flag in the opponent's eyes: P {odds[flag]:.2f}, " in detail
    assert ("its likeliest" in detail) == (odds[flag] == odds.max())


def test_the_agents_command_lists_a_spec_s_options_with_their_values_and_help():
    runner = CliRunner()
    r = runner.invoke(app, ["agents", "shipped:classic,guard=0.5"])
    assert r.exit_code == 0, r.output
    lines = {line.split()[0]: line for line in r.output.splitlines()}
    assert "= 0.5" in lines["guard"] and "raid" in lines["guard"]
    assert "= 0.2" in lines["seconds"] and "seconds" in lines["seconds"]
    assert set(HEURISTICS) <= set(lines)
    helped = [name for name, _, text in agent_options("shipped:classic") if not text]
    assert helped == []  # every option says what it is
    listed = runner.invoke(app, ["agents"])
    assert listed.exit_code == 0 and "mcts" in listed.output and "shipped" in listed.output
    bad = runner.invoke(app, ["agents", "shipped:classic,guard=2"])
    assert bad.exit_code == 2 and "guard" in bad.output


def test_a_search_spec_refuses_value_bounds_which_the_search_would_skip():
    with pytest.raises(AgentSpecError, match="value_bounds"):
        make_agent("shipped:classic,value_bounds=on")
    assert make_agent("shipped:classic").testtime.config.value_bounds is False
    assert make_agent("shipped:classic,search=off").testtime.config.value_bounds is True


def test_the_ablation_script_plays_the_agent_and_each_heuristic_off(tmp_path):
    """``scripts/ablation.py``: a row for the agent as given and one a heuristic off (``Heuristic.off``), each a
    resumable arena match in its own folder, and the moves each heuristic changed."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "ablation.py"
    args = [sys.executable, str(script), "--agent", "shipped:classic,rounds=1,seconds=1000,precision=float32",
            "--opponent", "random", "--games", "2", "--max-moves", "12", "--only", "guard", "--workers", "1",
            "--out", str(tmp_path), "--json"]
    run = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    table = json.loads(run.stdout)
    assert list(table) == ["all", "guard off"]
    assert table["guard off"]["a"].endswith(",guard=0") and table["all"]["heuristics"]["a"]["searched"] == 12
    assert "guard" not in table["guard off"]["heuristics"]["a"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all", "guard-off"]
    bad = subprocess.run(args[:-1] + ["--only", "nonsense"], capture_output=True, text=True, timeout=600)
    assert bad.returncode != 0 and "nonsense" in bad.stderr
