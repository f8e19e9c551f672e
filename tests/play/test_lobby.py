"""The lobby's allow-list: a browser picks its opponent and variant from what the server offers, and nothing else."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from deepnash.agents.network_agent import SHIPPED_DIR
from deepnash.agents.registry import AgentSpecError
from deepnash.cli import app as cli
from deepnash.game import get_variant, random_deployment
from deepnash.play import web
from deepnash.play.opponents import builtin_bots, opponent_choices

FORBIDDEN = ["ucc:/bin/sh", "checkpoint:/tmp", "net:/tmp", "ucc:/bin/sh,timeout=1", "shipped:variant=classic",
             "random:variant=x", " greedy", "GREEDY", ""]


@pytest.fixture
def built(monkeypatch) -> list[str]:
    """Every spec the web app builds an agent from, in order."""
    specs = []
    real = web.make_agent

    def spy(spec):
        specs.append(spec)
        return real(spec)

    monkeypatch.setattr(web, "make_agent", spy)
    return specs


def setup(variant: str, color: str = "red") -> list[int]:
    return random_deployment(get_variant(variant), 0 if color == "red" else 1, np.random.default_rng(0)).tolist()


def test_default_offer_is_the_pathless_builtin_bots_and_shipped_weights_where_they_exist():
    bots = builtin_bots()
    assert {"random", "greedy", "cautious", "mcts", "montecarlo"} <= set(bots)
    assert not {"ucc", "checkpoint", "net", "shipped"} & set(bots)
    choices = opponent_choices()
    for variant, specs in choices.items():
        assert len(specs) == len(set(specs)) and set(bots) <= set(specs)
        shipped = [s for s in specs if s.startswith("shipped")]
        assert shipped == ([f"shipped:variant={variant}"] if (SHIPPED_DIR / variant).is_dir() else [])
        assert specs[0] == (shipped[0] if shipped else "random")  # the default opponent comes first
    assert opponent_choices("greedy")["barrage"][0] == "greedy"
    assert opponent_choices("mcts:sims=4", ["random", "mcts:sims=4"]) == {v: ["mcts:sims=4", "random"] for v in choices}
    with pytest.raises(AgentSpecError, match="needs a path"):
        opponent_choices(allow=["ucc"])


def test_options_list_the_choices_per_variant_with_a_line_on_each():
    client = TestClient(web.create_app("random", allow=["random", "greedy", "mcts:sims=8"]))
    opts = client.get("/api/options").json()
    assert opts["choices"] == {"classic": ["random", "greedy", "mcts:sims=8"], "barrage": ["random", "greedy", "mcts:sims=8"]}
    assert opts["opponents"] == {"classic": "random", "barrage": "random"}
    assert "random" in opts["about"]["random"] and "MCTS" in opts["about"]["mcts:sims=8"]


@pytest.mark.parametrize(("opponent", "variant"), [("greedy", "classic"), ("mcts:sims=8", "barrage")])
def test_a_permitted_choice_starts_a_game_with_that_opponent_and_variant(built, opponent, variant):
    app = web.create_app("random", allow=["greedy", "mcts:sims=8"], seed=3, tables=(tables := {}))
    built.clear()
    with TestClient(app).websocket_connect("/ws") as ws:
        ws.send_json({"type": "new", "variant": variant, "opponent": opponent, "color": "blue",
                      "placement": setup(variant, "blue")})
        state = ws.receive_json()
    assert state["type"] == "state" and state["opponent"] == opponent and state["variant"] == variant
    (table,) = tables.values()
    assert table.match.opponent.name == opponent and table.match.variant.name == variant
    assert built == [opponent] and state["ply"] == 1  # the bot (Red) has moved


def test_old_clients_without_an_opponent_get_the_default(built):
    app = web.create_app("greedy", allow=["random"], seed=3, tables={})
    with TestClient(app).websocket_connect("/ws") as ws:
        ws.send_json({"type": "new", "variant": "barrage", "color": "red", "placement": setup("barrage")})
        assert ws.receive_json()["opponent"] == "greedy"
    assert built[-1] == "greedy"


@pytest.mark.parametrize("spec", FORBIDDEN)
def test_a_spec_off_the_list_is_refused_builds_nothing_and_creates_no_game(built, spec):
    app = web.create_app("random", allow=["random", "greedy"], seed=3, tables=(tables := {}))
    built.clear()
    with TestClient(app).websocket_connect("/ws") as ws:
        ws.send_json({"type": "new", "variant": "classic", "opponent": spec, "color": "red", "placement": setup("classic")})
        answer = ws.receive_json()
        assert answer["type"] == "error" and "is not offered for classic" in answer["error"]
        assert "choose one of: random, greedy" in answer["error"]
        assert built == [] and not tables
        # The connection is still free to start a permitted game.
        ws.send_json({"type": "new", "variant": "classic", "opponent": "greedy", "color": "red", "placement": setup("classic")})
        assert ws.receive_json()["opponent"] == "greedy"
    assert built == ["greedy"] and len(tables) == 1


def test_bad_variant_or_overlong_opponent_is_refused():
    app = web.create_app("random", allow=["random"], seed=3, tables=(tables := {}))
    with TestClient(app).websocket_connect("/ws") as ws:
        ws.send_json({"type": "new", "variant": "chess", "opponent": "random", "placement": setup("classic")})
        assert "unknown variant" in ws.receive_json()["error"]
        ws.send_json({"type": "new", "opponent": "x" * 201, "placement": setup("classic")})
        assert "opponent: String should have at most 200 characters" in ws.receive_json()["error"]
    assert not tables


def test_serve_refuses_a_bad_allowed_spec_before_listening():
    result = CliRunner().invoke(cli, ["serve", "--allow", "random", "--allow", "ucc"])
    assert result.exit_code == 2 and "needs a path" in result.output
