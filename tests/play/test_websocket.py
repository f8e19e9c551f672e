"""The web app's WebSocket API: whole games against a bot, hidden information, and bad messages that change nothing."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from fastapi.testclient import TestClient
from play_helpers import snapshot

from deepnash.game import random_deployment
from deepnash.play.state import public_state
from deepnash.play.web import create_app

FILES = "abcdefghij"


@pytest.fixture
def client() -> TestClient:
    tables = {}  # the app's games, watched by these tests (a real server keeps them to itself)
    client = TestClient(create_app("random", lambda variant, player, rng: random_deployment(variant, player, rng), seed=5,
                                   tables=tables))
    client.tables = tables
    return client


def square(sq: int) -> str:
    return f"{FILES[sq % 10]}{sq // 10 + 1}"


def placement(client: TestClient, variant: str, color: str) -> list[int]:
    return client.post("/api/setup", json={"variant": variant, "color": color}).json()["placement"]


def receive(ws) -> dict:
    return json.loads(ws.receive_text())


def new_game(client: TestClient, ws, variant="barrage", color="red") -> dict:
    ws.send_json({"type": "new", "variant": variant, "color": color, "placement": placement(client, variant, color)})
    state = receive(ws)
    assert state["type"] == "state", state
    return state


def hidden_types_permuted(match, rng):
    """A twin of ``match`` whose opponent pieces that are still hidden have their types shuffled."""
    twin = copy.copy(match)
    twin._game = match._game.copy()
    board, flags = twin._game.state.board[0], twin._game.state.flags[0]
    opp = 1 - match.human
    hidden = [sq for sq in range(100) if board[sq] > 0 and (board[sq] - 1) // 12 == opp and not flags[sq] & 1]
    board[hidden] = rng.permutation(board[hidden])
    return twin, len(set(board[hidden].tolist()))  # how many hidden types were shuffled


def refused(ws, message, why: str) -> None:
    """Send ``message`` (dict, text or bytes) and check it is answered with an error containing ``why``."""
    if isinstance(message, dict):
        ws.send_json(message)
    elif isinstance(message, bytes):
        ws.send_bytes(message)
    else:
        ws.send_text(message)
    answer = receive(ws)
    assert answer["type"] == "error" and why in answer["error"], (message, answer)


@pytest.mark.parametrize("variant", ["barrage", "classic"])
def test_whole_games_over_the_websocket_never_reveal_hidden_opponent_types(client, variant):
    rng = np.random.default_rng(0)
    most_kinds = 0
    for color in ("red", "blue"):
        with client.websocket_connect("/ws") as ws:
            state = new_game(client, ws, variant, color)
            token = state["token"]
            match = client.tables[token].match
            assert state["you"] == match.human == ("red", "blue").index(color)
            sent = [state]
            while not state["over"] and len(sent) < 400:
                f, t = state["legal"][int(rng.integers(len(state["legal"])))]
                ply = state["ply"]
                ws.send_json({"type": "move", "move": f"{square(f)}-{square(t)}"})
                # First the person's move alone, then the position after the bot's reply.
                mine = receive(ws)
                assert mine["ply"] == ply + 1 and [mine["last"]["from"], mine["last"]["to"]] == [f, t]
                assert mine["legal"] == [] or mine["over"]
                state = receive(ws)
                assert state["turn"] == match.human or state["over"]
                assert state["ply"] == match._game.ply and state["history"][:ply + 1] == mine["history"]
                sent += [mine, state]
                # What was sent depends only on the person's information state: shuffling the
                # opponent's hidden types on the server leaves the message unchanged.
                twin, kinds = hidden_types_permuted(match, rng)
                most_kinds = max(most_kinds, kinds)
                assert state == {"type": "state", "token": token, **public_state(twin)}
            if not state["over"]:  # a long random game: end it
                ws.send_json({"type": "resign"})
                state = receive(ws)
                sent.append(state)
            assert state["over"] and state["result"] and match._game.is_over()
        # No message gave a type for an opponent piece the person had not seen revealed.
        board = match._game.state.board[0]
        for msg in sent:
            for sq, cell in enumerate(msg["board"]):
                if cell["owner"] == 1 - msg["you"] and not cell["revealed"]:
                    assert cell["type"] is None
                if cell["owner"] == 1 - msg["you"] and cell["type"] is not None and msg is sent[-1]:
                    assert cell["type"] == (board[sq] - 1) % 12  # what is shown of a revealed piece is true
        record = client.get(f"/api/games/{token}/record")
        assert record.status_code == 200 and "<stratego>" in record.text
    assert most_kinds >= 3  # the shuffles did move different types around


def test_malformed_foreign_and_out_of_turn_messages_are_refused_and_change_nothing(client):
    with client.websocket_connect("/ws") as other:
        theirs = new_game(client, other, color="blue")
    with client.websocket_connect("/ws") as ws:
        # Before the connection has a game.
        refused(ws, {"type": "move", "move": "a4-a5"}, "send 'new' or 'join' before 'move'")
        refused(ws, {"type": "join", "token": "not-a-token"}, "no game with this token")
        refused(ws, {"type": "new", "variant": "barrage", "color": "red", "placement": [-1] * 100}, "placement:")
        refused(ws, {"type": "new", "variant": "barrage", "color": "red", "placement": placement(client, "barrage", "blue")},
                "outside Red's zone")
        refused(ws, {"type": "new", "variant": "chess", "color": "red", "placement": [-1] * 100}, "unknown variant")
        assert len(client.tables) == 1  # no game was made
        state = new_game(client, ws)
        token = state["token"]
        match = client.tables[token].match
        before, before_theirs = snapshot(match._game), snapshot(client.tables[theirs["token"]].match._game)
        blue_piece = next(sq for sq, c in enumerate(state["board"]) if c["owner"] == 1)
        cases = [
            ("zz", "Invalid JSON"),
            ("[]", "Input should be an object"),
            ("{}", "discriminator 'type'"),
            ({"type": "fly"}, "does not match any of the expected tags"),
            ({"type": "move"}, "move: Field required"),
            ({"type": "move", "move": 5}, "move: Input should be a valid string"),
            ({"type": "move", "move": "a" * 50}, "at most 20 characters"),
            ({"type": "move", "move": "zz"}, "not a move"),
            ({"type": "move", "move": "a1-a10"}, "illegal"),
            (b'{"type": "state"}', "JSON text"),
            # Foreign tokens: a connection plays its own game only.
            ({"type": "move", "move": "a4-a5", "token": theirs["token"]}, "token: Extra inputs are not permitted"),
            ({"type": "join", "token": theirs["token"]}, "already plays a game"),
            ({"type": "new", "variant": "barrage", "placement": [-1] * 100}, "already plays a game"),
            # Out of turn: the opponent's pieces are not the person's to move.
            ({"type": "move", "move": f"{square(blue_piece)}-{square(blue_piece - 10)}"}, "illegal"),
        ]
        for message, why in cases:
            refused(ws, message, why)
            assert snapshot(match._game) == before
        ws.send_json({"type": "state"})
        assert receive(ws) == state
        # Between the person's move and the bot's reply, another move is refused (two connections
        # may play the same game); here the server is held at that moment.
        f, t = state["legal"][0]
        match.move(f"{square(f)}-{square(t)}")
        held = snapshot(match._game)
        bots = str(match._game.legal_moves()[0])  # legal for the bot, which is to move
        refused(ws, {"type": "move", "move": bots}, "it is Blue's turn, not yours")
        assert snapshot(match._game) == held
        match.reply()
        # After the end: moves and a second resignation are refused.
        ws.send_json({"type": "resign"})
        over = receive(ws)
        assert over["over"] and over["result"] == "You lost (resignation)"
        ended = snapshot(match._game)
        refused(ws, {"type": "move", "move": f"{square(f)}-{square(t)}"}, "game is over")
        refused(ws, {"type": "resign"}, "over")
        assert snapshot(match._game) == ended
    assert snapshot(client.tables[theirs["token"]].match._game) == before_theirs


def test_join_takes_up_a_game_from_another_connection(client):
    with client.websocket_connect("/ws") as first:
        state = new_game(client, first)
    with client.websocket_connect("/ws") as again:
        again.send_json({"type": "join", "token": state["token"]})
        assert receive(again) == state
        f, t = state["legal"][0]
        again.send_json({"type": "move", "move": f"{square(f)}-{square(t)}"})
        receive(again)
        after = receive(again)
    assert after["ply"] == state["ply"] + 2 and after["token"] == state["token"]
    assert client.tables[state["token"]].match._game.ply == after["ply"]
