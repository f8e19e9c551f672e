"""The options a shipped agent plays with unless its spec says otherwise (``agent.json`` beside its weights)."""

import json
import shutil
from pathlib import Path

import pytest

from deepnash.agents import make_agent
from deepnash.agents import network_agent
from deepnash.agents.registry import AgentSpecError


@pytest.mark.parametrize("variant", ["classic", "barrage"])
def test_a_shipped_agent_plays_the_options_beside_its_weights(variant):
    options = json.loads((network_agent.SHIPPED_DIR / variant / "agent.json").read_text())["options"]
    agent = make_agent(f"shipped:{variant}")
    assert agent.search is not None and options["search"] == "on"
    cfg = agent.search.config
    assert (cfg.leaf, cfg.seconds, cfg.depth, cfg.alpha, cfg.contempt, cfg.guard, cfg.spare, cfg.passive,
            cfg.approach, cfg.sacrifice, cfg.spy_guard, cfg.general_guard, cfg.hang_guard, cfg.hold) == (
        options["leaf"], float(options["seconds"]), int(options["depth"]), float(options["alpha"]),
        float(options.get("contempt", 0)), float(options["guard"]), int(options.get("spare", 0)),
        int(options.get("passive", 0)), float(options.get("approach", 0)), options.get("sacrifice", "true") == "true",
        options.get("spy_guard", "false") == "true", options.get("general_guard", "false") == "true",
        options.get("hang_guard", "false") == "true", options.get("hold", "false") == "true")
    assert agent.greedy is (options["greedy"] == "true")
    assert agent.setup == options.get("setup", "human")
    assert agent.disguise is (options.get("disguise", "false") == "true")
    assert cfg.belief == options.get("belief", "heuristic")
    assert (agent.search._belief is None) is (cfg.belief in ("heuristic", "public"))  # learned: a sampler is loaded
    assert agent.name == f"shipped:{variant}"  # tables show the spec as written


def test_shipped_classic_takes_what_its_spec_gives_over_its_options_file():
    # What a spec gives wins, under either spelling of an option.
    plain = make_agent("shipped:variant=classic,search=off,greedy=false,setup=human,seconds=2")
    assert (plain.search, plain.greedy, plain.setup) == (None, False, "human")
    assert make_agent("shipped:classic,discretise=off").testtime.config.discretize is False
    assert make_agent("shipped:classic,seconds=0.5").search.config.seconds == 0.5


def test_weights_without_an_options_file_keep_the_factory_defaults(tmp_path, monkeypatch):
    shutil.copytree(network_agent.SHIPPED_DIR / "barrage", tmp_path / "barrage",
                    ignore=shutil.ignore_patterns("agent.json"))
    monkeypatch.setattr(network_agent, "SHIPPED_DIR", tmp_path)
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


@pytest.mark.parametrize("doc", ["test-time.md", "usage.md"])
@pytest.mark.parametrize("variant", ["classic", "barrage"])
def test_the_docs_give_the_options_each_shipped_agent_plays_with(doc, variant):
    # The user guide and the test-time layer's page spell out agent.json; a change of options must reach both.
    spelled = ",".join(f"{k}={v}" for k, v in network_agent.shipped_options({"variant": variant}).items())
    text = (Path(__file__).parents[2] / "docs" / doc).read_text()
    assert f"(`{spelled}`)" in text or f"`shipped:{variant}`: `{spelled}`" in text
