"""The web app's JSON API: whole games against a bot, hidden information, and bad requests that change nothing."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from fastapi.testclient import TestClient

from deepnash.game import random_deployment
from deepnash.play.state import public_state
from deepnash.play.web import create_app

from play_helpers import snapshot


@pytest.fixture
def client() -> TestClient:
    def pool(variant, player, rng):
        return random_deployment(variant, player, rng)

    return TestClient(create_app("random", pool, seed=5))


def matches(client: TestClient) -> dict:
    """The server's games by token."""
    return {token: t.match for token, t in client.app.state.tables.items()}


def start(client: TestClient, variant="barrage", color="red", source="random") -> dict:
    placement = client.post("/api/setup", json={"variant": variant, "color": color, "source": source}).json()
    res = client.post("/api/games", json={"variant": variant, "color": color, **placement})
    assert res.status_code == 200, res.text
    return res.json()


def hidden_types_permuted(match, rng):
    """A twin of ``match`` whose opponent pieces that are still hidden have their types shuffled."""
    twin = copy.copy(match)
    twin.game = match.game.copy()
    board, flags = twin.game.state.board[0], twin.game.state.flags[0]
    opp = 1 - match.human
    hidden = [sq for sq in range(100) if board[sq] > 0 and (board[sq] - 1) // 12 == opp and not flags[sq] & 1]
    board[hidden] = rng.permutation(board[hidden])
    return twin, len(set(board[hidden].tolist()))  # how many hidden types were shuffled


def test_whole_games_over_the_api_never_reveal_hidden_opponent_types(client):
    rng = np.random.default_rng(0)
    most_kinds = 0
    for color in ("red", "blue"):
        state = start(client, color=color)
        token = state.pop("token")
        match = matches(client)[token]
        sent = [state]
        while not state["over"]:
            f, t = state["legal"][int(rng.integers(len(state["legal"])))]
            move = f"{'abcdefghij'[f % 10]}{f // 10 + 1}-{'abcdefghij'[t % 10]}{t // 10 + 1}"
            res = client.post(f"/api/games/{token}/move", json={"move": move})
            assert res.status_code == 200, res.text
            state = res.json()
            sent.append(state)
            # What was sent depends only on the person's information state: shuffling the
            # opponent's hidden types on the server leaves the message unchanged.
            twin, kinds = hidden_types_permuted(match, rng)
            most_kinds = max(most_kinds, kinds)
            assert json.dumps(public_state(twin)) == json.dumps(state)
        assert state["result"] and match.game.is_over()
        # No message ever gave a type for an opponent piece the person had not seen revealed.
        for msg in sent:
            for cell in msg["board"]:
                if cell["owner"] == 1 - msg["you"] and not cell["revealed"]:
                    assert cell["type"] is None
        record = client.get(f"/api/games/{token}/record")
        assert record.status_code == 200 and "<stratego>" in record.text
        assert record.headers["content-disposition"].startswith("attachment")
    assert most_kinds >= 5  # the shuffles did move different types around


def test_bad_requests_are_refused_and_change_nothing(client):
    state = start(client)
    token = state["token"]
    match = matches(client)[token]
    before = snapshot(match.game)
    cases = [
        ("post", f"/api/games/{token}/move", {"move": "zz"}, 400, "not a move"),
        ("post", f"/api/games/{token}/move", {"move": "a1-a10"}, 400, "illegal"),
        ("post", f"/api/games/{token}/move", {"mov": "a1-a2"}, 422, None),
        ("post", f"/api/games/{token}/move", {"move": "a" * 50}, 422, None),
        ("get", f"/api/games/{token}/record", None, 409, "once the game is over"),
        ("post", "/api/games/not-a-token/move", {"move": "a1-a2"}, 404, "no game"),
        ("post", "/api/games", {"variant": "barrage", "color": "red", "placement": [-1] * 100}, 400, "wrong pieces"),
        ("post", "/api/games", {"variant": "chess", "color": "red", "placement": [-1] * 100}, 400, "unknown variant"),
        ("post", "/api/games", {"variant": "barrage", "color": "green", "placement": [-1] * 100}, 422, None),
    ]
    for method, path, body, status, why in cases:
        res = getattr(client, method)(path, json=body) if body is not None else getattr(client, method)(path)
        assert res.status_code == status, (path, body, res.text)
        if why:
            assert why in res.json()["detail"], res.json()
        assert snapshot(match.game) == before
    # The person's state is unchanged too, and a placement in the opponent's zone is refused.
    assert client.get(f"/api/games/{token}").json() == {k: v for k, v in state.items() if k != "token"}
    blue = client.post("/api/setup", json={"variant": "barrage", "color": "blue"}).json()["placement"]
    res = client.post("/api/games", json={"variant": "barrage", "color": "red", "placement": blue})
    assert res.status_code == 400 and "outside Red's zone" in res.json()["detail"]


def test_games_are_isolated_and_only_move_their_own_colour(client):
    a, b = start(client, color="red"), start(client, color="blue")
    assert a["token"] != b["token"] and len(a["token"]) >= 32
    games = matches(client)
    before_b = snapshot(games[b["token"]].game)
    f, t = a["legal"][0]
    move = f"{'abcdefghij'[f % 10]}{f // 10 + 1}-{'abcdefghij'[t % 10]}{t // 10 + 1}"
    assert client.post(f"/api/games/{a['token']}/move", json={"move": move}).status_code == 200
    assert snapshot(games[b["token"]].game) == before_b
    # In game b the person is Blue: a Red piece cannot be moved with b's token.
    res = client.post(f"/api/games/{b['token']}/move", json={"move": move})
    assert res.status_code == 400 and snapshot(games[b["token"]].game) == before_b
    # Resigning ends only that game; moves after the end are refused.
    assert client.post(f"/api/games/{b['token']}/resign").json()["result"] == "You lost (resignation)"
    assert client.post(f"/api/games/{b['token']}/resign").status_code == 400
    assert not games[a["token"]].game.is_over()


def test_page_and_options(client):
    page = client.get("/")
    assert page.status_code == 200 and 'id="board"' in page.text
    assert client.get("/static/app.js").status_code == 200
    opts = client.get("/api/options").json()
    assert opts["opponents"] == {"classic": "random", "barrage": "random"} and opts["variants"]["barrage"]["counts"][0] == 1
    assert len(opts["variants"]["classic"]["zones"][1]) == 40
    setup = client.post("/api/setup", json={"variant": "classic", "color": "blue", "source": "pool"}).json()
    assert sum(t >= 0 for t in setup["placement"]) == 40 and all(t < 0 for t in setup["placement"][:60])
