"""``deepnash serve``: play any agent in a browser, with every game kept in a database as it is played.

A FastAPI app serving one static page (``static/``), a WebSocket per game and
a little HTTP.  The server is the only authority on each game; a game is
reached by an unguessable token, acts only for the person's colour, and every
state it sends is ``state.public_state`` (the person's information state).
Bad input is answered with an error that says what was wrong, and changes
nothing.  The games live in a mapping that no attribute of the app exposes,
and a match hands out its full game only once it is over (``HumanMatch``).

Every game is written to a database (``store.GameStore``: SQLite) as it is played: each accepted
move is committed before it is answered.  A restarted server on the same database takes every game
in progress up again when its person joins with the token (the agent rebuilt from its spec and seed,
``HumanMatch.resume``), and finished games' records stay downloadable.  At most ``max_games`` games
are in progress at once: a new game beyond that is refused, none is ever dropped; a game in progress
that no message has touched for ``expire_after`` seconds is abandoned (``expired``), and only those.
The agents think in a pool of ``think_threads`` threads of their own, so the lobby, the replay viewer
and people's moves, which run in the web framework's pool, stay answered while agents think.

HTTP:
    ``GET /api/options``               variants (piece counts, lakes, zones); ``opponents``: the default
                                       opponent per variant; ``choices``: per variant, the opponents a
                                       browser may pick (the allow-list, default first); ``about``: a
                                       line on each; ``pool``: whether human setups are on offer
    ``POST /api/setup``                ``{variant, color, source: random|pool}`` -> ``{placement: int[100]}``
    ``GET /api/games/{token}/record``  Gravon XML, once the game is over (409 before, and for an expired game)
    ``POST /api/replay``               an uploaded Gravon XML record -> its frames (``replay_api``)

WebSocket ``/ws`` (JSON text messages; one connection plays one game):
    client -> server
        ``{"type": "new", "variant", "color": "red"|"blue", "placement": int[100], "opponent"}``  start a
            game; ``opponent`` (optional: the variant's default) must be one of the variant's ``choices``
        ``{"type": "join", "token"}``      take up a game again (after a reload, a dropped connection or a
                                           restart of the server)
        ``{"type": "move", "move": "b4-b5"}``
        ``{"type": "resign"}``
        ``{"type": "state"}``              ask for the state again
    server -> client
        ``{"type": "state", "token", ...public_state}``  after ``new``/``join``/``state``; after a
            move twice: once with the person's move played, once with the agent's reply
        ``{"type": "error", "error": text}``               the message was refused; nothing changed
"""

from __future__ import annotations

import asyncio
import os
import secrets
import threading
import time
from collections.abc import Callable, MutableMapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Annotated, Literal

import numpy as np
from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..agents.registry import make_agent
from ..game.errors import StrategoError
from ..game.game import Termination
from ..game.variant import VARIANTS, get_variant
from ..notation.gravon import format_xml
from .deploy import SetupBuilder, SetupDraw
from .match import RECORD_WAITS, HumanMatch, describe_outcome, replay_moves
from .opponents import opponent_choices, refusal, summaries
from .record import game_record
from .replay_api import router as replay_router
from .state import public_state
from .store import GameStore, StoredGame, token_hash

STATIC = files(__package__) / "static"
COLORS = {"red": 0, "blue": 1}
NO_GAME = "no game with this token"


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


def _expired(seconds: float) -> str:
    idle = f"{seconds:g} seconds" if seconds < 120 else f"{seconds / 60:g} minutes"
    return f"this game expired: no message reached it for {idle}; start a new one"


class Table:
    """One game being played: its token, its match, its row in the database and the lock that
    serialises the work on it.

    Args:
        saved: how many of the match's moves the database holds.
        saved_over: whether the database holds the end of the game.

    Attributes:
        touched: ``time.monotonic()`` of the last message that reached the game.
        expired: after how many idle seconds the game was abandoned (``None``: it was not); every
            message to an abandoned game is refused.
    """

    def __init__(self, token: str, match: HumanMatch, store: GameStore, game_id: int, saved: int,
                 saved_over: bool):
        self.token = token
        self.match = match
        self.store = store
        self.game_id = game_id
        self.saved = saved
        self._saved_over = saved_over
        self.lock = asyncio.Lock()
        self.touched = time.monotonic()
        self.expired: float | None = None

    def message(self) -> dict:
        """The ``state`` message: the token and the person's information state (call under ``lock``)."""
        return {"type": "state", "token": self.token, **public_state(self.match)}

    def run(self, action: Callable[[HumanMatch], object] | None) -> dict:
        """``action(match)`` (``None``: nothing), its moves committed, then the state message (call under
        ``lock``).  A ``StrategoError`` becomes ``Refused``, and so does any message to an expired game."""
        if self.expired is not None:
            raise Refused(_expired(self.expired))
        self.touched = time.monotonic()
        try:
            if action is not None:
                action(self.match)
        except StrategoError as e:
            raise Refused(str(e)) from None
        finally:
            self.save()
        return self.message()

    def save(self) -> None:
        """Commit the moves played since the last save, and the end of the game once it is over."""
        m = self.match
        over = m.is_over()
        if len(m.history) == self.saved and over == self._saved_over:
            return
        resigned = over and m.outcome().termination == Termination.RESIGNATION
        self.store.append(self.game_id, self.saved + 1, m.history[self.saved:], describe_outcome(m) if over else "",
                          resigned)
        self.saved, self._saved_over = len(m.history), over


def _explain(error: ValidationError) -> str:
    """One line per problem: ``placement: List should have at least 100 items``."""
    parts = []
    for e in error.errors(include_url=False):
        where = ".".join(str(x) for x in e["loc"][1:])  # loc[0] is the message type
        parts.append(f"{where}: {e['msg']}" if where else e["msg"])
    return "malformed message: " + "; ".join(parts)


def create_app(opponent: str | None = None, pool: SetupDraw | None = None, *, allow: Sequence[str] | None = None,
               database: str = ":memory:", max_games: int = 256, expire_after: float = 3600.0,
               think_threads: int | None = None, seed: int | None = None,
               tables: MutableMapping[str, Table] | None = None) -> FastAPI:
    """The web app; each new game plays a fresh agent made from the spec the person picked.

    Args:
        opponent: agent spec of the default opponent (see ``agents.registry``); ``None``: the first
            of ``allow``, by default the shipped trained agent when it loads, else ``random``.
        pool: source of human setups for ``source: pool`` (``None``: refused with 404).
        allow: the opponent specs a browser may pick, besides ``opponent``; ``None``: the built-in
            bots and the shipped agent (``opponents.opponent_choices``).  A browser picks one of these
            strings and can name no other spec.
        database: where the games are kept (``store.GameStore``): a file path, ``sqlite:///PATH``, or
            ``:memory:`` (the default: gone with the process).  The games in progress that a file
            holds are taken up again, each when its person joins with the token.
        max_games: games in progress at once (at least 1); a new game beyond it is refused with
            ``the server is full: N games in progress, try again later``.
        expire_after: seconds without a message after which a game in progress is abandoned (> 0).
        think_threads: threads in which the agents choose their setups and moves, apart from the web
            framework's; ``None``: twice the CPU cores.
        seed: seeds random setups and agents (for tests); ``None`` for fresh entropy.
        tables: where the app keeps the games it is playing, token -> ``Table``.  ``None``: a dict of its
            own that nothing outside the app can reach.  Pass your own only to referee the server
            (tests): a ``Table``'s match holds the full game, hidden pieces included.

    Raises:
        AgentSpecError: if ``opponent`` or one of ``allow`` is not a valid spec (checked once here).
        DatabaseError: ``database`` is not SQLite, or a file that is not this server's schema
            (``store.GameStore``); nothing is written to it then.
        ValueError: ``max_games``, ``expire_after`` or ``think_threads`` out of range.
    """
    if max_games < 1 or not expire_after > 0 or (think_threads is not None and think_threads < 1):
        raise ValueError(f"max_games must be >= 1 (got {max_games}), expire_after > 0 s (got {expire_after}) "
                         f"and think_threads >= 1 (got {think_threads})")
    choices = opponent_choices(opponent, allow)
    about = summaries(choices)
    store = GameStore(database)
    thinking = ThreadPoolExecutor(think_threads or 2 * (os.cpu_count() or 1), thread_name_prefix="deepnash-agent")

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        yield
        thinking.shutdown(wait=True, cancel_futures=True)
        store.close()

    app = FastAPI(title="DeepNash: play Stratego", docs_url=None, redoc_url=None, lifespan=lifespan)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    app.include_router(replay_router)
    tables = {} if tables is None else tables
    app.state.choices = choices  # variant -> the opponent specs a browser may pick
    rng = np.random.default_rng(seed)
    guard = threading.Lock()  # tables, dormant, starting and rng
    # The games in progress the database held at start, token hash -> [game id, time last touched];
    # each becomes a Table when its person joins.
    started = time.monotonic()
    dormant = {h: [game_id, started] for h, game_id in store.unfinished().items()}
    starting = 0  # new games being set up
    restoring: dict[str, asyncio.Future] = {}  # token hash -> the game being taken up again

    async def think(fn, *args):
        """``fn(*args)`` in the agents' pool."""
        return await asyncio.get_running_loop().run_in_executor(thinking, fn, *args)

    def variant_of(name: str):
        try:
            return get_variant(name)
        except ValueError as e:
            raise HTTPException(400, str(e)) from None

    def sweep() -> None:
        """Forget the finished games (the database has them) and abandon the idle ones (call under ``guard``)."""
        now = time.monotonic()
        idle = []
        for token, table in list(tables.items()):
            if table.match.is_over():
                del tables[token]
            elif now - table.touched > expire_after:
                del tables[token]
                table.expired = expire_after
                idle.append(table.game_id)
        for h, (game_id, touched) in list(dormant.items()):
            if now - touched > expire_after:
                del dormant[h]
                idle.append(game_id)
        if idle:
            store.expire(idle)

    def reserve() -> int:
        """Make room for a new game, or refuse it; the agent's seed."""
        nonlocal starting
        with guard:
            sweep()
            playing = len(tables) + len(dormant) + starting
            if playing >= max_games:
                raise Refused(f"the server is full: {playing} games in progress, try again later")
            starting += 1
            return int(rng.integers(2**31))

    def new_table(msg: NewGame, agent_seed: int) -> Table:
        """Set up the game (the agent chooses its setup, and moves if it is Red), and write it down."""
        nonlocal starting
        try:
            try:
                variant = get_variant(msg.variant)
            except ValueError as e:
                raise Refused(str(e)) from None
            spec = msg.opponent if msg.opponent is not None else choices[variant.name][0]
            if (why := refusal(spec, variant.name, choices)) is not None:
                raise Refused(why)
            human = COLORS[msg.color]
            builder = SetupBuilder(variant, human)
            try:
                builder.load(np.asarray(msg.placement, dtype=np.int64))
                match = HumanMatch(make_agent(spec), variant, human, builder.finish(), agent_seed)
            except StrategoError as e:
                raise Refused(f"placement: {e}") from None
            token = secrets.token_urlsafe(24)
            game_id = store.create(token, variant.name, human, match.setups(), spec, agent_seed)
            table = Table(token, match, store, game_id, 0, False)
            table.save()
            with guard:
                tables[token] = table
            return table
        finally:
            with guard:
                starting -= 1

    def restore(token: str, stored: StoredGame) -> Table:
        """The stored game as a ``Table``, its agent rebuilt and brought to the last position; if the
        server stopped while the agent was to move, it moves now."""
        try:
            match = HumanMatch.resume(make_agent(stored.opponent), stored.variant, stored.human, stored.setups,
                                      stored.agent_seed, stored.moves, stored.resigned)
        except ValueError as e:
            raise Refused(f"this game cannot be taken up again: {e}") from None
        table = Table(token, match, store, stored.id, len(stored.moves), stored.status == "over")
        table.save()
        if stored.status == "playing":
            with guard:
                if dormant.pop(token_hash(token), None) is not None:
                    tables[token] = table
                else:  # abandoned by a sweep while it was being taken up
                    table.expired = expire_after
        return table

    async def load(token: str) -> Table:
        stored = await run_in_threadpool(store.find, token)
        if stored is None:
            raise Refused(NO_GAME)
        if stored.status == "expired":
            raise Refused(_expired(expire_after))
        return await think(restore, token, stored)

    async def join(token: str) -> Table:
        """The game reached by ``token``: one being played, else one the database holds."""
        with guard:
            table = tables.get(token)
        if table is not None:
            return table
        h = token_hash(token)
        if h not in restoring:
            restoring[h] = asyncio.ensure_future(load(token))
            restoring[h].add_done_callback(lambda _: restoring.pop(h, None))
        return await asyncio.shield(restoring[h])

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return (STATIC / "index.html").read_text(encoding="utf-8")

    variants = {name: {"counts": list(v.piece_counts), "lakes": list(v.lakes),
                       "zones": [list(v.deploy_squares(p)) for p in (0, 1)]} for name, v in VARIANTS.items()}
    offer = JSONResponse({"variants": variants, "opponents": {name: specs[0] for name, specs in choices.items()},
                          "choices": choices, "about": about, "pool": pool is not None}).body

    @app.get("/api/options")
    async def options() -> Response:
        return Response(offer, media_type="application/json")  # made once, answered without a thread

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
        stored = store.find(token)
        if stored is None:
            raise HTTPException(404, NO_GAME)
        if stored.status != "over":
            raise HTTPException(409, RECORD_WAITS if stored.status == "playing" else
                                "this game expired unfinished; a record is kept of finished games only")
        game, _ = replay_moves(get_variant(stored.variant), stored.setups, stored.moves)
        if stored.resigned:
            game.resign(stored.human)
        xml = format_xml(game_record(game, stored.human, stored.opponent))
        return Response(xml, media_type="application/xml",
                        headers={"Content-Disposition": 'attachment; filename="deepnash-game.xml"'})

    async def act(table: Table, action, pool) -> dict:
        """``table.run(action)`` in ``pool`` (``run_in_threadpool`` or ``think``), one message at a time."""
        async with table.lock:
            return await pool(table.run, action)

    async def handle(ws: WebSocket, table: Table | None, text: str) -> Table | None:
        """Act on one client message and send the answers; returns the connection's game."""
        msg = MESSAGE.validate_json(text)
        if isinstance(msg, (NewGame, Join)):
            if table is not None:
                raise Refused("this connection already plays a game; open a new connection for another")
            if isinstance(msg, NewGame):
                table = await think(new_table, msg, await run_in_threadpool(reserve))
            else:
                table = await join(msg.token)
            await ws.send_json(await act(table, None, run_in_threadpool))
            return table
        if table is None:
            raise Refused(f"no game on this connection: send 'new' or 'join' before '{msg.type}'")
        if isinstance(msg, MoveMessage):
            await ws.send_json(await act(table, lambda m: m.move(msg.move), run_in_threadpool))
            await ws.send_json(await act(table, HumanMatch.reply, think))
        elif isinstance(msg, Resign):
            await ws.send_json(await act(table, HumanMatch.resign, run_in_threadpool))
        else:
            await ws.send_json(await act(table, None, run_in_threadpool))
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
