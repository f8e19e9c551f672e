"""``deepnash serve``: play any agent in a browser.

A FastAPI app serving one static page (``static/``), a WebSocket per game and
a little HTTP.  The server is the only authority on each game; a game is
reached by an unguessable token, acts only for the person's colour, and every
state it sends is ``state.public_state`` (the person's information state).
Bad input is answered with an error that says what was wrong, and changes
nothing.  The games live in a mapping that no attribute of the app exposes,
and a match hands out its full game only once it is over (``HumanMatch``).

HTTP:
    ``GET /api/options``               variants (piece counts, lakes, zones); ``opponents``: the default
                                       opponent per variant; ``choices``: per variant, the opponents a
                                       browser may pick (the allow-list, default first); ``about``: a
                                       line on each; ``pool``: whether human setups are on offer
    ``POST /api/setup``                ``{variant, color, source: random|pool}`` -> ``{placement: int[100]}``
    ``GET /api/games/{token}/record``  Gravon XML, once the game is over
    ``POST /api/replay``               an uploaded Gravon XML record -> its frames (``replay_api``)

WebSocket ``/ws`` (JSON text messages; one connection plays one game):
    client -> server
        ``{"type": "new", "variant", "color": "red"|"blue", "placement": int[100], "opponent"}``  start a
            game; ``opponent`` (optional: the variant's default) must be one of the variant's ``choices``
        ``{"type": "join", "token"}``      take up a game again (after a reload or a dropped connection)
        ``{"type": "move", "move": "b4-b5"}``
        ``{"type": "resign"}``
        ``{"type": "state"}``              ask for the state again
    server -> client
        ``{"type": "state", "token", ...public_state}``  after ``new``/``join``/``state``; after a
            move twice: once with the person's move played, once with the agent's reply
        ``{"type": "error", "error": text}``               the message was refused; nothing changed
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import MutableMapping, Sequence
from importlib.resources import files
from typing import Annotated, Literal

import numpy as np
from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..agents.registry import make_agent
from ..game.errors import GameInProgressError, StrategoError
from ..game.variant import VARIANTS, get_variant
from .deploy import SetupBuilder, SetupDraw
from .match import HumanMatch
from .opponents import opponent_choices, refusal, summaries
from .record import record_xml
from .replay_api import router as replay_router
from .state import public_state

STATIC = files(__package__) / "static"
COLORS = {"red": 0, "blue": 1}


class SetupRequest(BaseModel):
    variant: str = "classic"
    color: Literal["red", "blue"] = "red"
    source: Literal["random", "pool"] = "random"


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewGame(_Message):
    type: Literal["new"]
    variant: str = Field("classic", max_length=40)
    color: Literal["red", "blue"] = "red"
    placement: list[int] = Field(min_length=100, max_length=100)
    opponent: str | None = Field(None, max_length=200)


class Join(_Message):
    type: Literal["join"]
    token: str = Field(max_length=64)


class MoveMessage(_Message):
    type: Literal["move"]
    move: str = Field(max_length=20)


class Resign(_Message):
    type: Literal["resign"]


class StateRequest(_Message):
    type: Literal["state"]


MESSAGE = TypeAdapter(Annotated[NewGame | Join | MoveMessage | Resign | StateRequest, Field(discriminator="type")])


class Refused(Exception):
    """A client message that is answered with an error and changes nothing."""


class Table:
    """One game, its token and the lock that serialises the work on it."""

    def __init__(self, token: str, match: HumanMatch):
        self.token = token
        self.match = match
        self.lock = threading.Lock()

    def message(self) -> dict:
        """The ``state`` message: the token and the person's information state (call under ``lock``)."""
        return {"type": "state", "token": self.token, **public_state(self.match)}

    def run(self, action) -> dict:
        """``action(match)`` under the lock, then the state message; a ``StrategoError`` becomes ``Refused``."""
        with self.lock:
            try:
                action(self.match)
            except StrategoError as e:
                raise Refused(str(e)) from None
            return self.message()


def _explain(error: ValidationError) -> str:
    """One line per problem: ``placement: List should have at least 100 items``."""
    parts = []
    for e in error.errors(include_url=False):
        where = ".".join(str(x) for x in e["loc"][1:])  # loc[0] is the message type
        parts.append(f"{where}: {e['msg']}" if where else e["msg"])
    return "malformed message: " + "; ".join(parts)


def create_app(opponent: str | None = None, pool: SetupDraw | None = None, *, allow: Sequence[str] | None = None,
               max_games: int = 256, seed: int | None = None,
               tables: MutableMapping[str, Table] | None = None) -> FastAPI:
    """The web app; each new game plays a fresh agent made from the spec the person picked.

    Args:
        opponent: agent spec of the default opponent (see ``agents.registry``); ``None``: the first
            of ``allow``, by default the shipped trained agent when it loads, else ``random``.
        pool: source of human setups for ``source: pool`` (``None``: refused with 404).
        allow: the opponent specs a browser may pick, besides ``opponent``; ``None``: the built-in
            bots and the shipped agent (``opponents.opponent_choices``).  A browser picks one of these
            strings and can name no other spec.
        max_games: games kept at once; the oldest is dropped when a new one would exceed it.
        seed: seeds random setups and agents (for tests); ``None`` for fresh entropy.
        tables: where the app keeps its games, token -> ``Table`` (oldest first).  ``None``: a dict of
            its own that nothing outside the app can reach.  Pass your own only to referee the server
            (tests): a ``Table``'s match holds the full game, hidden pieces included.

    Raises:
        AgentSpecError: if ``opponent`` or one of ``allow`` is not a valid spec (checked once here).
    """
    choices = opponent_choices(opponent, allow)
    about = summaries(choices)
    app = FastAPI(title="DeepNash: play Stratego", docs_url=None, redoc_url=None)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    app.include_router(replay_router)
    tables = {} if tables is None else tables
    app.state.choices = choices  # variant -> the opponent specs a browser may pick
    rng = np.random.default_rng(seed)
    guard = threading.Lock()

    def variant_of(name: str):
        try:
            return get_variant(name)
        except ValueError as e:
            raise HTTPException(400, str(e)) from None

    def find(token: str) -> Table | None:
        with guard:
            return tables.get(token)

    def new_table(msg: NewGame) -> Table:
        try:
            variant = get_variant(msg.variant)
        except ValueError as e:
            raise Refused(str(e)) from None
        spec = msg.opponent if msg.opponent is not None else choices[variant.name][0]
        if (why := refusal(spec, variant.name, choices)) is not None:
            raise Refused(why)
        human = COLORS[msg.color]
        builder = SetupBuilder(variant, human)
        with guard:
            agent_seed = int(rng.integers(2**31))
        try:
            builder.load(np.asarray(msg.placement, dtype=np.int64))
            match = HumanMatch(make_agent(spec), variant, human, builder.finish(), agent_seed)
        except StrategoError as e:
            raise Refused(f"placement: {e}") from None
        table = Table(secrets.token_urlsafe(24), match)
        with guard:
            tables[table.token] = table
            while len(tables) > max_games:
                del tables[next(iter(tables))]
        return table

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return (STATIC / "index.html").read_text(encoding="utf-8")

    @app.get("/api/options")
    def options() -> dict:
        variants = {
            name: {"counts": list(v.piece_counts), "lakes": list(v.lakes),
                   "zones": [list(v.deploy_squares(p)) for p in (0, 1)]}
            for name, v in VARIANTS.items()
        }
        return {"variants": variants, "opponents": {name: specs[0] for name, specs in choices.items()},
                "choices": choices, "about": about, "pool": pool is not None}

    @app.post("/api/setup")
    def setup(req: SetupRequest) -> dict:
        variant = variant_of(req.variant)
        builder = SetupBuilder(variant, COLORS[req.color])
        with guard:
            if req.source == "pool":
                if pool is None:
                    raise HTTPException(404, "no pool of human setups on this server")
                builder.load(pool(variant, COLORS[req.color], rng))
            else:
                builder.randomise(rng)
        return {"placement": builder.placed.tolist()}

    @app.get("/api/games/{token}/record")
    def record(token: str) -> Response:
        table = find(token)
        if table is None:
            raise HTTPException(404, "no game with this token (it may have expired)")
        with table.lock:
            try:
                xml = record_xml(table.match)
            except GameInProgressError as e:
                raise HTTPException(409, str(e)) from None
        return Response(xml, media_type="application/xml",
                        headers={"Content-Disposition": 'attachment; filename="deepnash-game.xml"'})

    async def handle(ws: WebSocket, table: Table | None, text: str) -> Table | None:
        """Act on one client message and send the answers; returns the connection's game."""
        msg = MESSAGE.validate_json(text)
        if isinstance(msg, (NewGame, Join)):
            if table is not None:
                raise Refused("this connection already plays a game; open a new connection for another")
            if isinstance(msg, NewGame):
                table = await run_in_threadpool(new_table, msg)
            elif (table := find(msg.token)) is None:
                raise Refused("no game with this token (it may have expired)")
            await ws.send_json(await run_in_threadpool(table.run, lambda m: None))
            return table
        if table is None:
            raise Refused(f"no game on this connection: send 'new' or 'join' before '{msg.type}'")
        if isinstance(msg, MoveMessage):
            await ws.send_json(await run_in_threadpool(table.run, lambda m: m.move(msg.move)))
            await ws.send_json(await run_in_threadpool(table.run, HumanMatch.reply))
        elif isinstance(msg, Resign):
            await ws.send_json(await run_in_threadpool(table.run, HumanMatch.resign))
        else:
            await ws.send_json(await run_in_threadpool(table.run, lambda m: None))
        return table

    @app.websocket("/ws")
    async def play(ws: WebSocket) -> None:
        await ws.accept()
        table = None
        try:
            while True:
                frame = await ws.receive()
                if frame["type"] == "websocket.disconnect":
                    return
                try:
                    if frame.get("text") is None:
                        raise Refused("send JSON text messages, not binary ones")
                    table = await handle(ws, table, frame["text"])
                except ValidationError as e:
                    await ws.send_json({"type": "error", "error": _explain(e)})
                except Refused as e:
                    await ws.send_json({"type": "error", "error": str(e)})
        except WebSocketDisconnect:
            return

    return app
