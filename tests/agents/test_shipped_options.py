"""The options a shipped agent plays with unless its spec says otherwise (``agent.json`` beside its weights)."""

import json

import pytest

from deepnash.agents import make_agent
from deepnash.agents import network_agent
from deepnash.agents.registry import AgentSpecError


def test_shipped_classic_plays_the_options_beside_its_weights_unless_told_otherwise():
    options = json.loads((network_agent.SHIPPED_DIR / "classic" / "agent.json").read_text())["options"]
    agent = make_agent("shipped:classic")
    assert agent.search is not None and options["search"] == "on"
    cfg = agent.search.config
    assert (cfg.leaf, cfg.seconds, cfg.depth, cfg.alpha, cfg.contempt) == (
        options["leaf"], float(options["seconds"]), int(options["depth"]), float(options["alpha"]),
        float(options["contempt"]))
    assert agent.greedy is (options["greedy"] == "true")
    assert agent.setup == options["setup"]
    assert agent.name == "shipped:classic"  # tables show the spec as written
    # What a spec gives wins, under either spelling of an option.
    plain = make_agent("shipped:variant=classic,search=off,greedy=false,setup=human,seconds=2")
    assert (plain.search, plain.greedy, plain.setup) == (None, False, "human")
    assert make_agent("shipped:classic,discretise=off").testtime.config.discretize is False
    assert make_agent("shipped:classic,seconds=0.5").search.config.seconds == 0.5


def test_shipped_barrage_has_no_options_file_and_keeps_the_factory_defaults():
    assert not (network_agent.SHIPPED_DIR / "barrage" / "agent.json").exists()
    agent = make_agent("shipped")
    assert (agent.search, agent.greedy, agent.setup) == (None, False, "human")


@pytest.mark.parametrize("text, match", [
    ("{not json", "cannot read"),
    ('{"settings": {}}', "cannot read"),
    ('{"options": {"seconds": 1}}', "object of strings"),
    ('{"options": {"seconds": "soon"}}', "not a float"),
    ('{"options": {"sideways": "on"}}', "unknown option"),
])
def test_a_bad_options_file_is_an_error_naming_the_problem(tmp_path, monkeypatch, text, match):
    (tmp_path / "classic").mkdir()
    (tmp_path / "classic" / "agent.json").write_text(text)
    monkeypatch.setattr(network_agent, "SHIPPED_DIR", tmp_path)
    with pytest.raises(AgentSpecError, match=match):
        make_agent("shipped:classic")
