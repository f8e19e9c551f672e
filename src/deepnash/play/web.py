"""``deepnash serve``: play any agent in a browser.

A FastAPI app serving one static page (``static/``) and a JSON API.  The
server is the only authority on each game; a game is reached by an
unguessable token, acts only for the person's colour, and every reply is
``state.public_state`` (the person's information state).  Bad requests get a
4xx answer whose ``detail`` says what was wrong, and change nothing.

Endpoints:
    ``GET /api/options``                       variants (piece counts, lakes, zones), opponent per variant, pool
    ``POST /api/setup``                        ``{variant, color, source: random|pool}`` -> ``{placement: int[100]}``
    ``POST /api/games``                        ``{variant, color, placement: int[100]}`` -> state with ``token``
    ``GET /api/games/{token}``                 the state
    ``POST /api/games/{token}/move``           ``{move: "b4-b5"}`` -> state
    ``POST /api/games/{token}/resign``         -> state
    ``GET /api/games/{token}/record``          Gravon XML, once the game is over
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from importlib.resources import files
from typing import Literal

import numpy as np
from fastapi import FastAPI, HTTPException
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from ..agents.registry import make_agent
from ..game.errors import StrategoError
from ..game.variant import VARIANTS, get_variant
from .deploy import SetupBuilder, SetupDraw
from .match import HumanMatch, default_opponent
from .record import record_xml
from .state import public_state

STATIC = files(__package__) / "static"
COLORS = {"red": 0, "blue": 1}


class SetupRequest(BaseModel):
    variant: str = "classic"
    color: Literal["red", "blue"] = "red"
    source: Literal["random", "pool"] = "random"


class NewGame(BaseModel):
    variant: str = "classic"
    color: Literal["red", "blue"] = "red"
    placement: list[int] = Field(min_length=100, max_length=100)


class MoveRequest(BaseModel):
    move: str = Field(max_length=20)


class _Table:
    """One game and the lock that serialises requests to it."""

    def __init__(self, match: HumanMatch):
        self.match = match
        self.lock = threading.Lock()


def create_app(opponent: str | None = None, pool: SetupDraw | None = None, *, max_games: int = 256,
               seed: int | None = None) -> FastAPI:
    """The web app; each new game plays a fresh agent made from the opponent spec.

    Args:
        opponent: agent spec of the opponent (see ``agents.registry``); ``None``: per variant, the
            shipped trained agent when it loads, else ``random`` (``match.default_opponent``).
        pool: source of human setups for ``source: pool`` (``None``: refused with 404).
        max_games: games kept at once; the oldest is dropped when a new one would exceed it.
        seed: seeds random setups and agents (for tests); ``None`` for fresh entropy.

    Raises:
        AgentSpecError: if ``opponent`` is not a valid spec (checked once here).
    """
    specs = {name: opponent or default_opponent(name) for name in VARIANTS}
    for spec in set(specs.values()):
        make_agent(spec)
    app = FastAPI(title="DeepNash: play Stratego", docs_url=None, redoc_url=None)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    tables: OrderedDict[str, _Table] = OrderedDict()
    app.state.tables = tables  # token -> game; read by tests and by whoever embeds the app
    rng = np.random.default_rng(seed)
    guard = threading.Lock()

    def variant_of(name: str):
        try:
            return get_variant(name)
        except ValueError as e:
            raise HTTPException(400, str(e)) from None

    def table(token: str) -> _Table:
        with guard:
            t = tables.get(token)
        if t is None:
            raise HTTPException(404, "no game with this token (it may have expired)")
        return t

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
        return {"variants": variants, "opponents": specs, "pool": pool is not None}

    @app.post("/api/setup")
    def setup(req: SetupRequest) -> dict:
        variant = variant_of(req.variant)
        builder = SetupBuilder(variant, COLORS[req.color])
        if req.source == "pool":
            if pool is None:
                raise HTTPException(404, "no pool of human setups on this server")
            builder.load(pool(variant, COLORS[req.color], rng))
        else:
            builder.randomise(rng)
        return {"placement": builder.placed.tolist()}

    @app.post("/api/games")
    def new_game(req: NewGame) -> dict:
        variant = variant_of(req.variant)
        human = COLORS[req.color]
        builder = SetupBuilder(variant, human)
        try:
            builder.load(np.asarray(req.placement, dtype=np.int64))
            match = HumanMatch(make_agent(specs[variant.name]), variant, human, builder.finish(), int(rng.integers(2**31)))
        except StrategoError as e:
            raise HTTPException(400, f"placement: {e}") from None
        token = secrets.token_urlsafe(24)
        with guard:
            tables[token] = _Table(match)
            while len(tables) > max_games:
                tables.popitem(last=False)
        return {"token": token, **public_state(match)}

    @app.get("/api/games/{token}")
    def get_game(token: str) -> dict:
        t = table(token)
        with t.lock:
            return public_state(t.match)

    @app.post("/api/games/{token}/move")
    def move(token: str, req: MoveRequest) -> dict:
        t = table(token)
        with t.lock:
            try:
                t.match.play(req.move)
            except StrategoError as e:
                raise HTTPException(400, str(e)) from None
            return public_state(t.match)

    @app.post("/api/games/{token}/resign")
    def resign(token: str) -> dict:
        t = table(token)
        with t.lock:
            try:
                t.match.resign()
            except StrategoError as e:
                raise HTTPException(400, str(e)) from None
            return public_state(t.match)

    @app.get("/api/games/{token}/record")
    def record(token: str) -> Response:
        t = table(token)
        with t.lock:
            if not t.match.game.is_over():
                raise HTTPException(409, "the record shows the opponent's setup; it is available once the game is over")
            xml = record_xml(t.match)
        return Response(xml, media_type="application/xml",
                        headers={"Content-Disposition": 'attachment; filename="deepnash-game.xml"'})

    return app
