"""Tournaments: the table adds up, ratings, reproducibility, saved Gravon records that replay, the CLI."""

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from deepnash.agents.random_agent import RandomAgent
from deepnash.arena import AgentCrashed, MatchResult, referee, referee_game, run_match, run_tournament
from deepnash.arena import match as match_module
from deepnash.arena.stats import bradley_terry, wilson
from deepnash.cli import app
from deepnash.game import BARRAGE, Termination
from deepnash.notation.gravon import read_records, replay

BUILT_IN = ["random", "greedy", "cautious", "montecarlo:samples=3,depth=6", "mcts:sims=12,determinizations=2"]


@pytest.fixture(scope="module")
def tournament(tmp_path_factory):
    out = tmp_path_factory.mktemp("games")
    return run_tournament(BUILT_IN, 2, BARRAGE, seed=4, out=out, rating_samples=50), out


def test_every_pair_of_built_in_bots_plays_and_the_table_adds_up(tournament):
    result, _ = tournament
    assert len(result.matches) == 10
    for m in result.matches:
        d = m.to_dict()
        assert d["wins"] + d["draws"] + d["losses"] == d["games"] == 2
        assert d["a_red_wins"] + d["a_blue_wins"] == d["wins"]
        assert d["win_low"] <= d["win_rate"] <= d["win_high"]
        assert d["failures"] == []
        names = {t.name.lower() for t in Termination}
        assert set(d["endings"]) <= names and "resignation" not in d["endings"], d["endings"]
        for kind in ("wins", "draws", "losses"):  # the endings split the table's counts
            assert sum(row.get(kind, 0) for row in d["endings"].values()) == d[kind]
        assert all(n > 0 for row in d["endings"].values() for n in row.values())
        for i, g in enumerate(m.games):  # a is Red in even games
            assert g.players == ((m.a, m.b) if i % 2 == 0 else (m.b, m.a))
            assert g.codes in {("VICTORY", "DEFEAT"), ("DEFEAT", "VICTORY"), ("DRAW", "DRAW"),
                               ("DRAW_DEFAULT", "DRAW_DEFAULT")}
    ratings = {r["agent"]: r for r in result.ratings}
    assert set(ratings) == set(BUILT_IN)
    assert abs(sum(r["rating"] for r in ratings.values())) < 1e-6
    assert all(r["low"] <= r["rating"] + 1e-9 and r["rating"] <= r["high"] + 1e-9 for r in ratings.values())


def test_every_game_is_saved_and_replays_to_its_result(tournament):
    result, out = tournament
    records = sorted(read_records(out), key=lambda r: r.source)
    games = [g for m in result.matches for g in m.games]
    assert len(records) == len(games) == 20
    for rec, g in zip(records, games):
        assert rec.players == g.players and rec.winner == g.winner
        final = replay(rec, variant=BARRAGE)
        assert final.ply == g.plies and final.is_over()
        assert final.outcome().winner == g.winner


def test_results_reproduce_whatever_the_number_of_workers():
    one = run_match("greedy", "random", 4, BARRAGE, seed=9, workers=1).to_dict()
    two = run_match("greedy", "random", 4, BARRAGE, seed=9, workers=2).to_dict()
    assert one.pop("seconds").keys() == two.pop("seconds").keys()  # wall-clock times differ from run to run
    assert one == two


class Ticking(RandomAgent):
    """A random agent that takes ``cost`` seconds of a shared fake clock per move (and per setup)."""

    now = [0.0]

    def __init__(self, cost: float):
        super().__init__()
        self.cost, self.name = cost, f"ticking:{cost}"

    def choose_setup(self):
        self.now[0] += self.cost
        return super().choose_setup()

    def act(self, view):
        self.now[0] += self.cost
        return super().act(view)


def test_each_side_is_charged_its_own_thinking_time(monkeypatch):
    monkeypatch.setattr(referee.time, "perf_counter", lambda: Ticking.now[0])
    slow, fast = Ticking(2.0), Ticking(0.5)
    games = [referee_game(slow, fast, BARRAGE, seed=1), referee_game(fast, slow, BARRAGE, seed=2)]
    for g, (red, blue) in zip(games, ((2.0, 0.5), (0.5, 2.0))):
        moves = (g.plies + 1) // 2, g.plies // 2  # Red moves first; each side also set up
        assert g.seconds == pytest.approx((red * (moves[0] + 1), blue * (moves[1] + 1)))
    t = MatchResult(slow.name, fast.name, tuple(games)).seconds  # slow is a: Red in game 0, Blue in game 1
    assert t["a_mean"] == pytest.approx(np.mean([games[0].seconds[0], games[1].seconds[1]]))
    assert t["b_max"] == pytest.approx(max(games[0].seconds[1], games[1].seconds[0]))
    assert t["a_mean"] > 3 * t["b_mean"]


def _breaking(act):
    """``act``, raising from ply 4 on (a side's third move), as an agent with a bug would."""

    def broken_act(self, view):
        if view.ply >= 4:
            raise ValueError("zero-size array")
        return act(self, view)

    return broken_act


class Broken(RandomAgent):
    name = "broken"
    act = _breaking(RandomAgent.act)


def test_an_agent_that_raises_stops_the_match_naming_itself_the_ply_and_the_game():
    with pytest.raises(AgentCrashed, match=r"broken \(Blue\) raised ValueError at ply 5 of the game of seed 3: "
                                           r"zero-size array") as crash:
        referee_game(RandomAgent(), Broken(), BARRAGE, seed=3)
    assert isinstance(crash.value.__cause__, ValueError)


def test_the_arena_command_reports_a_crashed_agent_and_fails(monkeypatch):
    monkeypatch.setattr(RandomAgent, "act", _breaking(RandomAgent.act))
    r = CliRunner().invoke(app, ["arena", "random", "greedy", "--games", "2", "--variant", "barrage"])
    assert r.exit_code == 1
    assert r.output.startswith("error: 2 of the 2 games played stopped on an agent's error; the first: random (Red) "
                               "raised ValueError at ply 4 of the game of seed 0: zero-size array")
    assert "give --out to keep the games that finish" in r.output


def _flaky(monkeypatch, broken_games: set[int]):
    """Make ``random`` crash (an ``AgentCrashed``) at its third move in the games of seeds ``broken_games``."""
    reset, act = RandomAgent.reset, RandomAgent.act

    def remembering_reset(self, variant, player, seed=None):
        self.game_seed = None if seed is None else seed // 2
        reset(self, variant, player, seed)

    def flaky_act(self, view):
        if self.game_seed in broken_games and view.ply >= 4:
            raise ValueError("zero-size array")
        return act(self, view)

    monkeypatch.setattr(RandomAgent, "reset", remembering_reset)
    monkeypatch.setattr(RandomAgent, "act", flaky_act)


def _without_seconds(m: MatchResult) -> dict:
    d = m.to_dict()
    d.pop("seconds")  # wall-clock
    return d


def test_a_crash_stops_one_game_and_resume_plays_only_it(monkeypatch, tmp_path):
    broken = {1}
    _flaky(monkeypatch, broken)
    with pytest.raises(AgentCrashed, match=r"raised ValueError at ply \d+ of the game of seed 1: zero-size array"):
        run_match("random", "greedy", 4, BARRAGE, seed=0, out=tmp_path)
    saved = sorted(f.name for f in tmp_path.glob("*.result.json"))
    assert saved == [f"00-random-vs-greedy-{g:04d}.result.json" for g in (0, 2, 3)]  # the games after it went on
    assert len(list(tmp_path.glob("*.xml"))) == 3

    played = []
    task = match_module._game_task
    monkeypatch.setattr(match_module, "_game_task", lambda t: played.append(t[4]) or task(t))
    broken.clear()  # the bug mended
    resumed = run_match("random", "greedy", 4, BARRAGE, seed=0, out=tmp_path, resume=True)
    assert played == [1]
    assert len(list(tmp_path.glob("*.result.json"))) == len(list(tmp_path.glob("*.xml"))) == 4
    assert _without_seconds(resumed) == _without_seconds(run_match("random", "greedy", 4, BARRAGE, seed=0))
    played.clear()
    again = run_match("random", "greedy", 4, BARRAGE, seed=0, out=tmp_path, resume=True)
    assert played == [] and again.to_dict() == resumed.to_dict()  # times too: read back, not measured again


def test_resume_in_parallel_plays_the_missing_games_in_their_places(tmp_path):
    whole = run_match("greedy", "random", 6, BARRAGE, seed=9, workers=2, out=tmp_path)
    for g in (0, 3, 4):
        (tmp_path / f"00-greedy-vs-random-{g:04d}.result.json").unlink()
    resumed = run_match("greedy", "random", 6, BARRAGE, seed=9, workers=2, out=tmp_path, resume=True)
    assert _without_seconds(resumed) == _without_seconds(whole)
    assert [g.seconds for i, g in enumerate(resumed.games) if i not in (0, 3, 4)] == \
           [g.seconds for i, g in enumerate(whole.games) if i not in (0, 3, 4)]


def test_several_crashes_are_counted_and_the_first_named(monkeypatch):
    _flaky(monkeypatch, {1, 2})
    with pytest.raises(AgentCrashed, match=r"^2 of the 4 games played stopped on an agent's error; the first: "
                                           r"random \((Red|Blue)\) raised ValueError at ply \d+ of the game of seed 1"):
        run_match("random", "greedy", 4, BARRAGE, seed=0)


def test_resume_refuses_results_it_cannot_trust(tmp_path):
    with pytest.raises(ValueError, match="out folder"):
        run_match("random", "greedy", 2, BARRAGE, seed=0, resume=True)
    run_match("random", "greedy", 2, BARRAGE, seed=0, out=tmp_path)
    with pytest.raises(ValueError, match=r"0000\.result\.json: that game was random against greedy with seed 0"):
        run_match("random", "greedy", 2, BARRAGE, seed=5, out=tmp_path, resume=True)
    with pytest.raises(ValueError, match=r"under Variant\(name='barrage'.*max_moves=2000.*, not random against greedy "
                                         r"with seed 0 under Variant\(name='barrage'.*max_moves=500"):
        run_match("random", "greedy", 2, BARRAGE.with_rules(max_moves=500), seed=0, out=tmp_path, resume=True)
    result = tmp_path / "00-random-vs-greedy-0001.result.json"
    saved = json.loads(result.read_text())
    result.write_text(json.dumps({**saved, "a": "checkpoint:elsewhere/random"}))  # specs whose file names agree
    with pytest.raises(ValueError, match="that game was checkpoint:elsewhere/random against greedy"):
        run_match("random", "greedy", 2, BARRAGE, seed=0, out=tmp_path, resume=True)
    result.write_text(result.read_text()[:-20])  # cut short
    with pytest.raises(ValueError, match=r"0001\.result\.json: not a game result the arena can resume from "
                                         r"\(JSONDecodeError.*delete it to play that game again"):
        run_match("random", "greedy", 2, BARRAGE, seed=0, out=tmp_path, resume=True)
    saved = json.loads((tmp_path / "00-random-vs-greedy-0000.result.json").read_text())
    saved["result"]["winner"] = 2
    result.write_text(json.dumps(saved))
    with pytest.raises(ValueError, match="winner must be 0, 1 or null"):
        run_match("random", "greedy", 2, BARRAGE, seed=0, out=tmp_path, resume=True)


def test_the_arena_command_resumes_a_stopped_match(monkeypatch, tmp_path):
    broken = {0}
    _flaky(monkeypatch, broken)
    args = ["arena", "random", "greedy", "--games", "2", "--variant", "barrage", "--out", str(tmp_path), "--json"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 1
    assert "the same command with --resume plays only the games that stopped" in r.output
    broken.clear()
    r = CliRunner().invoke(app, args + ["--resume"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["pairs"][0]["games"] == 2


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least two"):
        run_tournament(["random"], 2)
    with pytest.raises(ValueError, match="games"):
        run_match("random", "random", 0)
    with pytest.raises(ValueError, match="workers must be at least 1"):
        run_tournament(["random", "random"], 2, workers=0)
    with pytest.raises(ValueError, match="unknown agent"):
        run_match("random", "nobody", 2)


def test_the_help_names_every_kind_of_agent():
    """Scripts and users find the agent specs in ``deepnash arena --help`` (issue 44: the passive bots there)."""
    from deepnash.agents.registry import NAME_ALIASES, PROVIDERS

    r = CliRunner().invoke(app, ["arena", "--help"], terminal_width=200)
    assert r.exit_code == 0
    text = " ".join(r.output.replace("│", " ").split())
    for name in [*PROVIDERS, *NAME_ALIASES, "random", "shipped:classic", "shipped:barrage"]:
        assert name in text, name


def test_wilson_interval_properties():
    for k, n in ((0, 10), (3, 10), (10, 10), (50, 100)):
        lo, hi = wilson(k, n)
        assert 0 <= lo <= k / n <= hi <= 1
        lo2, hi2 = wilson(n - k, n)
        assert math.isclose(lo, 1 - hi2) and math.isclose(hi, 1 - lo2)  # symmetric under swapping wins/losses
    lo, hi = wilson(5000, 10000)  # large n: the normal approximation
    assert math.isclose(hi - lo, 2 * 1.96 * math.sqrt(0.25 / 10000), rel_tol=1e-3)
    with pytest.raises(ValueError):
        wilson(11, 10)


def test_bradley_terry_recovers_known_strengths():
    """Expected results of agents with Elo ratings -200, 0, 300 give back those ratings (centred)."""
    true = np.array([-200.0, 0.0, 300.0])
    n = 1e6
    wdl = np.zeros((3, 3, 3))
    for i in range(3):
        for j in range(i + 1, 3):
            p = 1 / (1 + 10 ** ((true[j] - true[i]) / 400))
            wdl[i, j] = (n * p, 0, n * (1 - p))
    assert np.allclose(bradley_terry(wdl), true - true.mean(), atol=0.5)


def test_cli_json_has_the_stable_keys(tmp_path):
    r = CliRunner().invoke(app, ["arena", "random", "greedy", "cautious", "--games", "2", "--variant", "barrage",
                                 "--json", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    for row in data["pairs"]:
        assert {"a", "b", "games", "wins", "draws", "losses", "a_red_wins", "a_blue_wins"} <= set(row)
        assert set(row["seconds"]) == {"a_mean", "a_max", "b_mean", "b_max"}
    assert {"agent", "rating", "low", "high"} <= set(data["ratings"][0])
    assert len(list(tmp_path.glob("*.xml"))) == 6
    r = CliRunner().invoke(app, ["arena", "random", "greedy", "--games", "2", "--variant", "barrage"])
    assert r.exit_code == 0 and "greedy" in r.output
