"""The server's games in its database: a full server refuses new games and drops none, idle games (and
only those) expire, tokens are kept hashed, and a game rebuilt from the database plays on as it would have."""

from __future__ import annotations

import sqlite3
import time

import numpy as np
import pytest
from fastapi.testclient import TestClient

from deepnash.agents.registry import make_agent
from deepnash.game import get_variant, random_deployment
from deepnash.play.match import HumanMatch
from deepnash.play.store import token_hash
from deepnash.play.web import create_app


def start(client: TestClient, ws, variant: str = "barrage") -> dict:
    placement = client.post("/api/setup", json={"variant": variant, "color": "red"}).json()["placement"]
    ws.send_json({"type": "new", "variant": variant, "color": "red", "placement": placement})
    return ws.receive_json()


def move(ws, state: dict) -> tuple[dict, dict]:
    """Play the first legal move of ``state``; the two answers."""
    f, t = state["legal"][0]
    ws.send_json({"type": "move", "move": f"{'abcdefghij'[f % 10]}{f // 10 + 1}-{'abcdefghij'[t % 10]}{t // 10 + 1}"})
    return ws.receive_json(), ws.receive_json()


def test_a_full_server_refuses_new_games_and_every_game_in_progress_still_answers():
    tables = {}
    client = TestClient(create_app("random", allow=["random"], max_games=3, seed=2, tables=tables))
    with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b, \
            client.websocket_connect("/ws") as c, client.websocket_connect("/ws") as d:
        states = [start(client, ws) for ws in (a, b, c)]
        assert all(s["type"] == "state" for s in states)
        refused = start(client, d)
        assert refused == {"type": "error", "error": "the server is full: 3 games in progress, try again later"}
        assert sorted(tables) == sorted(s["token"] for s in states)  # nothing was dropped to make room
        for ws, state in zip((a, b, c), states):
            mine, reply = move(ws, state)
            assert (mine["type"], reply["type"], reply["ply"]) == ("state", "state", state["ply"] + 2)
        a.send_json({"type": "resign"})
        assert a.receive_json()["over"]
        assert start(client, d)["type"] == "state"  # a finished game frees its place
        assert start(client, d)["error"].startswith("this connection already plays a game")


def test_idle_games_expire_and_only_they(tmp_path):
    db = tmp_path / "games.sqlite3"
    client = TestClient(create_app("random", allow=["random"], database=str(db), max_games=2, expire_after=2.0, seed=2))
    with client.websocket_connect("/ws") as idle, client.websocket_connect("/ws") as busy, \
            client.websocket_connect("/ws") as late:
        left, kept = start(client, idle), start(client, busy)
        time.sleep(1.2)
        busy.send_json({"type": "state"})
        assert busy.receive_json()["ply"] == kept["ply"]
        time.sleep(1.2)  # the idle game: 2.4 s without a message; the busy one: 1.2 s
        assert start(client, late)["type"] == "state"  # room for it: the idle game expired
        expired = "this game expired: no message reached it for 2 seconds; start a new one"
        idle.send_json({"type": "state"})
        assert idle.receive_json() == {"type": "error", "error": expired}
        assert move(busy, kept)[1]["type"] == "state"
    with client.websocket_connect("/ws") as again:
        again.send_json({"type": "join", "token": left["token"]})
        assert again.receive_json() == {"type": "error", "error": expired}
    answer = client.get(f"/api/games/{left['token']}/record")
    assert answer.status_code == 409 and "expired unfinished" in answer.json()["detail"]
    with sqlite3.connect(db) as conn:
        status = dict(conn.execute("SELECT token_sha256, status FROM games"))
    conn.close()
    assert status[token_hash(left["token"])] == "expired" and status[token_hash(kept["token"])] == "playing"


def test_the_database_holds_every_move_and_never_a_token_in_clear(tmp_path):
    db = tmp_path / "games.sqlite3"
    client = TestClient(create_app("random", allow=["random"], database=str(db), seed=5))
    with client.websocket_connect("/ws") as ws:
        state = start(client, ws, "classic")
        token = state["token"]
        for _ in range(5):
            state = move(ws, state)[1]
        ws.send_json({"type": "resign"})
        state = ws.receive_json()
    stored = b"".join(f.read_bytes() for f in tmp_path.iterdir())  # the database, its WAL and shared memory
    assert token.encode() not in stored and token_hash(token).encode() in stored
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT variant, human, opponent, status, resigned, result FROM games").fetchone()
        moves = [m for (m,) in conn.execute("SELECT move FROM moves ORDER BY ply")]
    conn.close()
    assert row == ("classic", 0, "random", "over", 1, "You lost (resignation)")
    assert moves == [text.split(" ")[1].rstrip(":") for text in state["history"]]
    assert client.get(f"/api/games/{token}/record").status_code == 200
    assert client.get(f"/api/games/{token}x/record").status_code == 404


@pytest.mark.parametrize(("spec", "human"), [("random", 0), ("greedy", 1), ("mcts:sims=8", 0)])
def test_a_resumed_match_plays_on_as_the_uninterrupted_one(spec, human):
    """Rebuilt from its setups, moves, spec and seed, the agent answers every later move as it would have."""
    rng = np.random.default_rng(5)
    setup = random_deployment(get_variant("barrage"), human, rng)
    first = HumanMatch(make_agent(spec), "barrage", human, setup, seed=11)
    for _ in range(6):
        first.play(first.view().legal_moves[int(rng.integers(len(first.view().legal_moves)))])
    resumed = HumanMatch.resume(make_agent(spec), "barrage", human, first.setups(), 11,
                                [r.move for r in first.history])
    assert resumed.view().legal_moves == first.view().legal_moves
    for _ in range(8):
        if first.is_over():
            break
        mine = first.view().legal_moves[int(rng.integers(len(first.view().legal_moves)))]
        assert resumed.play(mine) == first.play(mine)
    assert resumed.history == first.history
