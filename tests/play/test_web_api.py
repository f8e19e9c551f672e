"""The web app's HTTP side: the page, options, setups and the record download (games are played over ``/ws``)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from deepnash.game import random_deployment
from deepnash.notation.gravon import ResultType, parse_records
from deepnash.play.web import create_app


@pytest.fixture
def client() -> TestClient:
    tables = {}  # the app's games, watched by these tests (a real server keeps them to itself)
    client = TestClient(create_app("random", lambda variant, player, rng: random_deployment(variant, player, rng), seed=5,
                                   tables=tables))
    client.tables = tables
    return client


def test_page_and_options(client):
    page = client.get("/")
    assert page.status_code == 200 and 'id="board"' in page.text
    assert client.get("/static/app.js").status_code == 200
    opts = client.get("/api/options").json()
    assert opts["opponents"] == {"classic": "random", "barrage": "random"} and opts["variants"]["barrage"]["counts"][0] == 1
    assert len(opts["variants"]["classic"]["zones"][1]) == 40


@pytest.mark.parametrize("source", ["random", "pool"])
def test_setups_fill_the_zone_with_the_variant_pieces(client, source):
    counts = client.get("/api/options").json()["variants"]["classic"]["counts"]
    setup = client.post("/api/setup", json={"variant": "classic", "color": "blue", "source": source}).json()["placement"]
    assert all(t < 0 for t in setup[:60]) and [setup[60:].count(t) for t in range(12)] == counts


def test_bad_setup_requests_say_what_is_wrong(client):
    res = client.post("/api/setup", json={"variant": "chess"})
    assert res.status_code == 400 and "unknown variant" in res.json()["detail"]
    assert client.post("/api/setup", json={"variant": "barrage", "color": "green"}).status_code == 422
    assert client.post("/api/setup", json={"source": "somewhere"}).status_code == 422
    no_pool = TestClient(create_app("random", seed=1)).post("/api/setup", json={"source": "pool"})
    assert no_pool.status_code == 404 and "no pool" in no_pool.json()["detail"]


def test_record_only_once_the_game_is_over_and_only_with_its_token(client):
    placement = client.post("/api/setup", json={"variant": "barrage", "color": "red"}).json()["placement"]
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "new", "variant": "barrage", "color": "red", "placement": placement})
        token = ws.receive_json()["token"]
        early = client.get(f"/api/games/{token}/record")
        assert early.status_code == 409 and "once the game is over" in early.json()["detail"]
        ws.send_json({"type": "resign"})
        assert ws.receive_json()["over"]
    res = client.get(f"/api/games/{token}/record")
    assert res.status_code == 200 and res.headers["content-disposition"].startswith("attachment")
    (game,) = parse_records(res.text)  # the person (Red) resigned: Blue won by forfeit, with both setups shown
    assert game.winner == 1 and game.result_type == ResultType.FORFEIT and game.players[0] == "person"
    assert game.moves == tuple(r.move for r in client.tables[token].match.history)
    assert client.get("/api/games/not-a-token/record").status_code == 404
