"""Nothing the person is told depends on the opponent's hidden pieces.

Two worlds differ only in how the opponent's (all hidden) pieces are arranged: the same squares
hold pieces, with the types shuffled.  Whatever the person sends (garbage, moves of every kind,
moves out of turn), the two games answer with the same error, word for word, or both accept it:
through ``HumanMatch`` and through the web server's WebSocket, where every reply, state messages
included, must be the same.  And no public attribute of a match or of the app reaches a full game.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastapi.testclient import TestClient

from deepnash.env import human_pool
from deepnash.game import Game, StrategoError, get_variant
from deepnash.game.errors import GameInProgressError
from deepnash.game.squares import square_name
from deepnash.play import web
from deepnash.play.match import HumanMatch


class _Fixed:
    """An opponent with a given setup that is never asked to move in these tests."""

    name = "fixed"

    def __init__(self, setup: np.ndarray):
        self.setup = setup

    def reset(self, variant, player, seed=None):
        pass

    def choose_setup(self):
        return self.setup

    def act(self, view):  # pragma: no cover - the person never lets it move here
        raise AssertionError("the opponent was asked to move")

    def game_over(self, outcome, view):
        pass


def _setups(shuffle_seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The person's (Red's) setup, and Blue's in two worlds: as a person deployed it, and shuffled."""
    pool = human_pool("classic").setups
    mine = pool[0].copy()
    theirs = np.full(100, -1, np.int8)
    theirs[99 - np.arange(100)] = pool[1]  # Blue's setup on its own rows
    shuffled = theirs.copy()
    occupied = np.flatnonzero(theirs >= 0)
    shuffled[occupied] = np.random.default_rng(shuffle_seed).permutation(theirs[occupied])
    return mine, theirs, shuffled


def _worlds(shuffle_seed: int) -> tuple[HumanMatch, HumanMatch]:
    mine, theirs, shuffled = _setups(shuffle_seed)
    variant = get_variant("classic")
    return HumanMatch(_Fixed(theirs), variant, 0, mine), HumanMatch(_Fixed(shuffled), variant, 0, mine)


def _answer(match: HumanMatch, text: str) -> str:
    try:
        match.move(text)
    except StrategoError as e:
        return f"{type(e).__name__}: {e}"
    return "accepted"


squares = st.integers(0, 99).map(square_name)
messages = st.one_of(st.text(max_size=12), st.tuples(squares, squares).map("-".join))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**16), st.lists(messages, min_size=1, max_size=25), st.data())
def test_error_texts_are_the_same_whatever_the_hidden_pieces(seed, texts, data):
    a, b = _worlds(seed)
    # bad messages at the start, the person to move
    for text in texts:
        if text in {str(m) for m in a.view().legal_moves}:
            continue
        assert _answer(a, text) == _answer(b, text), text
    # a legal move that attacks nothing (its outcome is public), then messages out of turn
    quiet = [m for m in a.view().legal_moves if a._game.piece_at(m.to_sq) is None]
    move = data.draw(st.sampled_from(quiet))
    assert _answer(a, str(move)) == _answer(b, str(move)) == "accepted"
    for text in texts:
        assert _answer(a, text) == _answer(b, text), text


# -- the same through the web server -----------------------------------------------------------------

@contextmanager
def _world(blue: np.ndarray, database: str = ":memory:") -> Iterator[tuple[TestClient, object]]:
    """A server whose every opponent deploys ``blue`` (and is never asked to move), and a WebSocket to it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(web, "make_agent", lambda spec: _Fixed(blue))
        with TestClient(web.create_app("random", allow=["random"], database=database, seed=1)) as client:
            with client.websocket_connect("/ws") as ws:
                yield client, ws


def _reply(ws, message, keep_token: bool = False) -> dict:
    if isinstance(message, str):
        ws.send_text(message)
    else:
        ws.send_json(message)
    answer = ws.receive_json()
    if not keep_token:
        answer.pop("token", None)  # each game's own secret, different in every world
    return answer


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                       max_size=3), max_leaves=6)
ws_messages = st.one_of(
    st.text(max_size=20),
    json_values,
    st.tuples(squares, squares).map(lambda ft: {"type": "move", "move": "-".join(ft)}),
    messages.map(lambda text: {"type": "move", "move": text}),
    st.sampled_from([{"type": "state"}, {"type": "join", "token": "nope"}, {"type": "move"},
                     {"type": "new", "variant": "classic", "placement": [0] * 100}, {"type": "resign", "x": 1}]),
)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16), st.lists(ws_messages, min_size=1, max_size=20))
def test_websocket_replies_are_the_same_whatever_the_hidden_pieces(seed, sent):
    """Every reply of the WebSocket (errors and states), before and after the game ends, is the same
    in both worlds; only the game's token differs."""
    mine, theirs, shuffled = _setups(seed)
    legal = {str(m) for m in HumanMatch(_Fixed(theirs), "classic", 0, mine).view().legal_moves}
    start = {"type": "new", "variant": "classic", "color": "red", "placement": mine.tolist()}
    replies = []
    for blue in (theirs, shuffled):
        with _world(blue) as (_, ws):
            got = [_reply(ws, start)]
            for msg in sent:
                if isinstance(msg, dict) and msg.get("type") == "move" and msg.get("move") in legal:
                    continue  # a legal move may start a battle, whose outcome is the point of the game
                got.append(_reply(ws, msg))
            got.append(_reply(ws, {"type": "resign"}))
            got += [_reply(ws, msg) for msg in sent]  # out of turn for good: the game is over
        replies.append(got)
    assert replies[0] == replies[1]
    assert replies[0][-1]["type"] in ("error", "state")


# -- no public attribute reaches a full game -------------------------------------------------------------

def _reaches(obj, kinds: tuple[type, ...], seen: set[int], depth: int = 0) -> bool:
    """Whether ``obj`` or anything reachable from its public attributes and items is one of ``kinds``."""
    if isinstance(obj, kinds):
        return True
    if id(obj) in seen or depth > 6 or isinstance(obj, (str, bytes, int, float, np.ndarray, type)):
        return False
    seen.add(id(obj))
    if isinstance(obj, dict):
        children = list(obj.values())
    elif isinstance(obj, (list, tuple, set)):
        children = list(obj)
    else:
        children = [v for k, v in getattr(obj, "__dict__", {}).items() if not k.startswith("_")]
    return any(_reaches(c, kinds, seen, depth + 1) for c in children)


def test_no_public_attribute_exposes_the_full_game():
    a, _ = _worlds(0)
    assert not _reaches(a, (Game,), set())
    with pytest.raises(GameInProgressError, match="once the game is over"):
        a.finished_game()
    with _world(_setups(0)[1]) as (client, ws):
        _reply(ws, {"type": "new", "variant": "classic", "color": "red", "placement": _setups(0)[0].tolist()})
        app = client.app
        shared = [app.state._state, *app.routes]  # what the app shares with whoever embeds it
        assert not any(_reaches(x, (Game, HumanMatch), set()) for x in shared)
    a.resign()
    assert isinstance(a.finished_game(), Game)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**16), st.lists(ws_messages, min_size=1, max_size=12), st.integers(0, 12))
def test_replies_after_a_restart_are_the_same_whatever_the_hidden_pieces(seed, sent, restart_at):
    """The same across a restart: the server stops after ``restart_at`` messages, another one starts on the
    same database, and the person joins with the token; what the join and every later message answer is
    the same in both worlds (the database holds the hidden setup; no message reveals it)."""
    mine, theirs, shuffled = _setups(seed)
    legal = {str(m) for m in HumanMatch(_Fixed(theirs), "classic", 0, mine).view().legal_moves}
    sent = [m for m in sent if not (isinstance(m, dict) and m.get("type") == "move" and m.get("move") in legal)]
    start = {"type": "new", "variant": "classic", "color": "red", "placement": mine.tolist()}
    replies = []
    for blue in (theirs, shuffled):
        with tempfile.TemporaryDirectory() as folder:
            db = str(Path(folder) / "games.sqlite3")
            with _world(blue, db) as (_, ws):
                first = _reply(ws, start, keep_token=True)
                token = first.pop("token")
                got = [first] + [_reply(ws, msg) for msg in sent[:restart_at]]
            with _world(blue, db) as (_, ws):  # the restarted server
                got += [_reply(ws, {"type": "join", "token": token})] + [_reply(ws, msg) for msg in sent[restart_at:]]
                got += [_reply(ws, {"type": "resign"})]
        replies.append(got)
    assert replies[0] == replies[1]
    assert replies[0][len(sent[:restart_at]) + 1]["type"] == "state"  # the join took the game up again
