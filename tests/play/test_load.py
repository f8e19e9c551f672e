"""A bounded load test on loopback: concurrent WebSocket clients each play their own game against the
server over real sockets, and no message of one game reaches another, and none is lost.

Each client starts a game, then plays legal moves chosen from its own state messages.  Every
message it receives must carry its own token, and after each move it must receive exactly the two
states the protocol promises (its move, then the bot's reply), with the ply growing by one each.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import numpy as np
import uvicorn
import websocket

from deepnash.game import random_deployment
from deepnash.play.web import create_app

CLIENTS = 12
MOVES = 15


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _client(url: str, base: str, k: int, out: dict) -> None:
    import urllib.request

    rng = np.random.default_rng(k)
    req = urllib.request.Request(f"{base}/api/setup", data=json.dumps({"variant": "barrage", "color": "red"}).encode(),
                                 headers={"Content-Type": "application/json"})
    placement = json.loads(urllib.request.urlopen(req, timeout=30).read())["placement"]
    ws = websocket.create_connection(url, timeout=30)
    received, plies = [], []
    try:
        ws.send(json.dumps({"type": "new", "variant": "barrage", "color": "red", "placement": placement}))
        state = json.loads(ws.recv())
        received.append(state)
        token = state["token"]
        for _ in range(MOVES):
            if state["over"] or not state["legal"]:
                break
            f, t = state["legal"][int(rng.integers(len(state["legal"])))]
            ws.send(json.dumps({"type": "move", "move": f"{'abcdefghij'[f % 10]}{f // 10 + 1}-"
                                                        f"{'abcdefghij'[t % 10]}{t // 10 + 1}"}))
            mine = json.loads(ws.recv())
            received.append(mine)
            plies.append(mine["ply"])
            if mine["over"]:
                break
            state = json.loads(ws.recv())
            received.append(state)
            plies.append(state["ply"])
        out[k] = {"token": token, "received": received, "plies": plies}
    finally:
        ws.close()


def test_concurrent_games_over_loopback_stay_isolated():
    port = _free_port()
    app = create_app("random", lambda variant, player, rng: random_deployment(variant, player, rng), seed=3)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws="wsproto"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the server did not start"
    out: dict = {}
    try:
        clients = [threading.Thread(target=_client, args=(f"ws://127.0.0.1:{port}/ws", f"http://127.0.0.1:{port}", k, out))
                   for k in range(CLIENTS)]
        for c in clients:
            c.start()
        for c in clients:
            c.join(timeout=120)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
    assert sorted(out) == list(range(CLIENTS)), "a client did not finish"
    tokens = [r["token"] for r in out.values()]
    assert len(set(tokens)) == CLIENTS  # one game each
    for r in out.values():
        assert all(m["type"] == "state" and m["token"] == r["token"] for m in r["received"])
        assert r["plies"] == list(range(1, len(r["plies"]) + 1))  # every state arrived, in order
    assert sum(len(r["received"]) for r in out.values()) > CLIENTS * MOVES
