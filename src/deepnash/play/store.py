"""The web server's games in an SQLite database (the standard library's ``sqlite3``), move by move.

Every game is written as it is played: its row when it starts (variant, the person's colour, both
setups, the opponent's agent spec, the agent's seed and the SHA-256 of its token; never the token
itself), then each accepted move, each in a transaction committed before the move is answered.  A
restarted server reads the games in progress back (``unfinished``) and a finished game's record
stays readable (``find``).

The database is WAL-journalled with ``synchronous=FULL``: a committed move survives a killed
process and a power cut.  A file that is not this schema (another program's SQLite database, a
newer schema version, not SQLite at all, unreadable) is refused by ``open`` with ``DatabaseError``
before anything is written to it.

Schema, version ``SCHEMA_VERSION`` (``PRAGMA user_version``; ``PRAGMA application_id`` is
``APPLICATION_ID``)::

    games(id, token_sha256 UNIQUE, variant, human 0|1, red_setup, blue_setup (JSON int[100], -1 empty),
          opponent (agent spec), agent_seed, status 'playing'|'over'|'expired', resigned 0|1,
          result (text once over), created, updated (Unix seconds))
    moves(game -> games.id, ply 1.., player 0|1, move 'b4-b5'; primary key (game, ply))
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import numpy as np

from ..infostate.view import MoveRecord

#: ``PRAGMA application_id`` of a deepnash server database (the bytes ``DNsv``).
APPLICATION_ID = 0x444E7376
#: ``PRAGMA user_version`` of the schema this code writes and reads.
SCHEMA_VERSION = 1

_SCHEMA = f"""
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    token_sha256 TEXT NOT NULL UNIQUE,
    variant TEXT NOT NULL,
    human INTEGER NOT NULL CHECK (human IN (0, 1)),
    red_setup TEXT NOT NULL,
    blue_setup TEXT NOT NULL,
    opponent TEXT NOT NULL,
    agent_seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('playing', 'over', 'expired')),
    resigned INTEGER NOT NULL DEFAULT 0 CHECK (resigned IN (0, 1)),
    result TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX games_by_status ON games (status);
CREATE TABLE moves (
    game INTEGER NOT NULL REFERENCES games (id),
    ply INTEGER NOT NULL CHECK (ply >= 1),
    player INTEGER NOT NULL CHECK (player IN (0, 1)),
    move TEXT NOT NULL,
    PRIMARY KEY (game, ply)
) WITHOUT ROWID;
PRAGMA application_id = {APPLICATION_ID};
PRAGMA user_version = {SCHEMA_VERSION};
"""


class DatabaseError(ValueError):
    """The database cannot be used: the message names the file (or URL) and why."""


@dataclass(frozen=True)
class StoredGame:
    """One game as the database holds it.

    Attributes:
        id: its row id.
        variant: the variant's name.
        human: the person's colour, 0 Red or 1 Blue.
        setups: ``(Red's, Blue's)`` deployments, ``int8[100]`` each (piece type per square, -1 empty).
        opponent: the agent spec the person picked.
        agent_seed: the seed the agent was reset with.
        status: ``playing``, ``over`` or ``expired``.
        resigned: the person resigned (the moves alone do not say so).
        moves: the moves played, in order, as text (``b4-b5``).
    """

    id: int
    variant: str
    human: int
    setups: tuple[np.ndarray, np.ndarray]
    opponent: str
    agent_seed: int
    status: str
    resigned: bool
    moves: tuple[str, ...]


def token_hash(token: str) -> str:
    """The SHA-256 of ``token`` in hex: what the database keeps instead of the token.

    Tokens are 192 random bits (``secrets.token_urlsafe(24)``), so an unsalted hash cannot be inverted.
    """
    return hashlib.sha256(token.encode()).hexdigest()


def database_path(url: str) -> str:
    """The SQLite file a ``--db`` value names: a path, or ``sqlite:///PATH`` (``sqlite:////abs/path``
    for an absolute one); ``:memory:`` for a database that lives as long as the process.

    Raises:
        DatabaseError: another kind of URL (``postgresql://...``): only SQLite is supported.
    """
    if url == ":memory:" or "://" not in url:
        return url
    scheme, _, rest = url.partition("://")
    if scheme.lower() != "sqlite" or not rest.startswith("/") or rest == "/":
        raise DatabaseError(f"{url}: only SQLite databases are supported: give a file path or sqlite:///PATH")
    return rest[1:]


def _check_existing(path: Path) -> None:
    """Read ``path``'s header pragmas on a read-only connection; raise ``DatabaseError`` if it is not ours."""
    try:
        with path.open("rb") as f:
            f.read(16)
        conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
    except OSError as e:
        raise DatabaseError(f"{path}: cannot read it ({e.strerror or e})") from None
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    except sqlite3.DatabaseError as e:
        raise DatabaseError(f"{path}: not a readable SQLite database ({e})") from None
    finally:
        conn.close()
    if app_id != APPLICATION_ID:
        if app_id == 0 and not tables:
            return  # an empty SQLite database: ours to set up
        held = f"it holds the tables {', '.join(tables)}" if tables else "it holds no tables"
        raise DatabaseError(f"{path}: not a deepnash server database (application id {app_id:#x}, {held})")
    if version > SCHEMA_VERSION:
        raise DatabaseError(f"{path}: schema version {version} is newer than this deepnash's ({SCHEMA_VERSION}); "
                            "upgrade deepnash to use it")
    if version != SCHEMA_VERSION or not {"games", "moves"} <= set(tables):
        raise DatabaseError(f"{path}: a deepnash server database with schema version {version} and the tables "
                            f"{', '.join(tables) or 'none'}; this deepnash reads version {SCHEMA_VERSION} only")


class GameStore:
    """The games of one server in one database; safe to call from any thread (one connection, one lock).

    Args:
        url: ``database_path``'s argument: a file path, ``sqlite:///PATH`` or ``:memory:``.  A missing
            file is created with the schema (its folder must exist); an existing one is checked first.

    Raises:
        DatabaseError: the URL is not SQLite's, or the file is not this schema (see the module
            docstring), or cannot be opened; the message names it and why.  Nothing is written to it then.
    """

    def __init__(self, url: str = ":memory:"):
        path = database_path(url)
        self.path = path
        if path != ":memory:":
            file = Path(path)
            if file.is_dir():
                raise DatabaseError(f"{file}: is a folder, not a database file")
            if not file.parent.is_dir():
                raise DatabaseError(f"{file}: the folder {file.parent} does not exist")
            if file.exists() and file.stat().st_size > 0:
                _check_existing(file)
        try:
            self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = FULL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            if not self._conn.execute("PRAGMA application_id").fetchone()[0]:
                self._conn.executescript(f"BEGIN; {_SCHEMA} COMMIT;")
        except sqlite3.Error as e:
            raise DatabaseError(f"{path}: cannot open it ({e})") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the connection (everything is already committed)."""
        with self._lock:
            self._conn.close()

    def _write(self, statements: Sequence[tuple[str, Sequence]]) -> list[int]:
        """Run ``(sql, parameters)`` pairs in one committed transaction; the ``lastrowid`` of each."""
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                rows = []
                for sql, params in statements:
                    cur.execute(sql, params)
                    rows.append(cur.lastrowid)
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            return rows

    def create(self, token: str, variant: str, human: int, setups: tuple[np.ndarray, np.ndarray], opponent: str,
               agent_seed: int) -> int:
        """A new game, in progress and with no move yet (``append`` adds them); its id."""
        now = time.time()
        (game_id,) = self._write([(
            "INSERT INTO games (token_sha256, variant, human, red_setup, blue_setup, opponent, agent_seed, status, "
            "created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, 'playing', ?, ?)",
            (token_hash(token), variant, human, json.dumps(setups[0].tolist()), json.dumps(setups[1].tolist()),
             opponent, agent_seed, now, now))])
        return game_id

    def append(self, game_id: int, first_ply: int, moves: Sequence[MoveRecord], result: str = "",
               resigned: bool = False) -> None:
        """Commit ``moves`` as plies ``first_ply``, ``first_ply + 1``, ...; with ``result`` (the outcome's
        text), the game is over too (``resigned``: the person gave up)."""
        rows = [("INSERT INTO moves (game, ply, player, move) VALUES (?, ?, ?, ?)",
                 (game_id, first_ply + i, r.player, str(r.move))) for i, r in enumerate(moves)]
        status = "over" if result else "playing"
        rows.append(("UPDATE games SET status = ?, result = ?, resigned = ?, updated = ? WHERE id = ? AND status = 'playing'",
                     (status, result, int(resigned), time.time(), game_id)))
        self._write(rows)

    def expire(self, game_ids: Sequence[int]) -> None:
        """Mark games abandoned: they stay in the database, unfinished, and can no longer be played."""
        now = time.time()
        self._write([("UPDATE games SET status = 'expired', updated = ? WHERE id = ? AND status = 'playing'",
                      (now, i)) for i in game_ids])

    def unfinished(self) -> dict[str, int]:
        """The games in progress: token hash -> game id."""
        with self._lock:
            return dict(self._conn.execute("SELECT token_sha256, id FROM games WHERE status = 'playing'"))

    def find(self, token: str) -> StoredGame | None:
        """The game reached by ``token`` with its moves, or ``None``."""
        with self._lock:
            row = self._conn.execute(
                "SELECT id, variant, human, red_setup, blue_setup, opponent, agent_seed, status, resigned "
                "FROM games WHERE token_sha256 = ?", (token_hash(token),)).fetchone()
            if row is None:
                return None
            moves = tuple(m for (m,) in self._conn.execute(
                "SELECT move FROM moves WHERE game = ? ORDER BY ply", (row[0],)))
        setups = tuple(np.asarray(json.loads(s), dtype=np.int8) for s in row[3:5])
        return StoredGame(row[0], row[1], row[2], setups, row[5], row[6], row[7], bool(row[8]), moves)
