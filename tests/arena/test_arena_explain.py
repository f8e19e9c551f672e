"""``arena --explain``: every decision of a network agent is logged beside its game record."""

import json

import pytest

from deepnash.arena import run_match
from deepnash.game import BARRAGE


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    from deepnash.nn import DeepNashNet, get_preset
    from deepnash.nn.checkpoint import save_checkpoint

    folder = tmp_path_factory.mktemp("ckpt")
    config = get_preset("tiny")
    save_checkpoint(folder, 1, {"online": DeepNashNet(config).state_dict()}, {"net": config.to_dict()})
    return folder


def test_explain_writes_one_json_decision_per_network_move(tmp_path, checkpoint):
    short = BARRAGE.with_rules(max_moves=30)
    result = run_match(f"checkpoint:{checkpoint},value_bounds=off", "random", 2, short, seed=1,
                       out=tmp_path, explain=True)
    logs = sorted(tmp_path.glob("*.explain.jsonl"))
    assert len(logs) == 2 and len(list(tmp_path.glob("*.xml"))) == 2
    for path, game in zip(logs, result.games):
        decisions = [json.loads(line) for line in path.read_text().splitlines()]
        network_player = 0 if game.players[0].startswith("checkpoint") else 1
        steps = [d["step"] for d in decisions]
        assert steps.count("deploy") == 8  # a Barrage army, one deployment action per piece
        assert steps.count("select") == steps.count("displace") >= 1
        assert {d["player"] for d in decisions} == {network_player}
        assert all(abs(sum(d["final"].values()) - 1) < 5e-3 for d in decisions)  # 4-decimal rounding


def test_explain_needs_an_out_folder(checkpoint):
    with pytest.raises(ValueError, match="out folder"):
        run_match(f"checkpoint:{checkpoint}", "random", 2, "barrage", explain=True)


def test_play_explain_prints_the_agents_decisions(checkpoint):
    from typer.testing import CliRunner

    from deepnash.cli import app

    opponent = f"checkpoint:{checkpoint},value_bounds=off"
    run = CliRunner().invoke(app, ["play", "--opponent", opponent, "--variant", "barrage", "--explain", "--seed", "3"],
                             input="random\nready\nresign\n")
    assert run.exit_code == 0, run.output
    assert run.output.count("Blue deploy") == 8  # the agent's eight Barrage deployment decisions
    plain = CliRunner().invoke(app, ["play", "--opponent", "random", "--variant", "barrage", "--explain"],
                               input="random\nready\nresign\n")
    assert "keeps no decision log" in plain.output
