"""A crash loses no game: the real server is killed (SIGKILL) while 20 games are in progress, started
again on the same database, and every person reconnects with the token and plays to the end.

Half the clients have a move in flight when the server dies.  After the restart each one's game must
continue the history it was shown (a move it was never answered may or may not have been played; the
agent's reply to it is played on reconnection), and each finished record must hold exactly the moves
the client was shown, and replay under the engine to the result it was told.
"""

from __future__ import annotations

import importlib.util
import signal
import threading
from pathlib import Path

import pytest

from deepnash.game.pieces import PLAYER_NAMES
from deepnash.notation.gravon import parse_records
from deepnash.play.frames import record_frames, result_text

spec = importlib.util.spec_from_file_location("bench_serve", Path(__file__).parents[2] / "benchmarks" / "bench_serve.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

GAMES = 20


def moves_shown(state: dict) -> list[str]:
    """The moves a state message shows, as ``b4-b5`` (its ``history``: ``"Red b4-b5: ..."``)."""
    return [text.split(" ")[1].rstrip(":") for text in state["history"]]


def run_all(players, work) -> None:
    """``work(player)`` for every player at once, in threads; fails if one raised or hung."""
    failures = []

    def call(p):
        try:
            work(p)
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(repr(e))

    threads = [threading.Thread(target=call, args=(p,), daemon=True) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a client hung"
    assert not failures, failures


def test_games_survive_a_killed_server_and_replay_move_for_move(tmp_path):
    db, port = tmp_path / "games.sqlite3", bench.free_port()
    server = bench.start_server(db, port, "--allow", "random", "--allow", "greedy")
    players = [bench.Player(port, k, "barrage", ("red", "blue")[k % 2], ("random", "greedy")[k // 2 % 2], timeout=30)
               for k in range(GAMES)]
    in_flight = set(range(0, GAMES, 2))
    try:
        def before(p):
            assert p.start() is not None, p.error_texts
            p.play(3)
            if players.index(p) in in_flight and not p.state["over"]:
                p.send_move()  # the server dies before, while or after it plays this move

        run_all(players, before)
    finally:
        bench.stop_server(server, signal.SIGKILL)
    shown_before = [moves_shown(p.state) for p in players]
    for p in players:
        p.close()

    server = bench.start_server(db, port, "--allow", "random", "--allow", "greedy")
    try:
        def after(p):
            state = p.rejoin()
            assert state is not None, p.error_texts
            p.play(None)

        run_all(players, after)
        records = [parse_records(p.record().encode(), p.token)[0] for p in players]
    finally:
        bench.stop_server(server)
    for k, (p, before_kill, record) in enumerate(zip(players, shown_before, records)):
        assert (p.lost, p.reordered, p.errors) == (0, 0, 0), (k, p.error_texts)
        assert p.state["over"], k
        shown = moves_shown(p.state)
        assert shown[:len(before_kill)] == before_kill, k  # nothing shown before the crash was lost
        assert [str(m) for m in record.moves] == shown, k  # the record is the game as the client saw it
        frames = record_frames(record)  # and it replays under the engine
        assert len(frames) == len(shown) + 1
        you = PLAYER_NAMES[p.state["you"]]
        told = p.state["result"]
        if told.startswith("You won"):
            assert result_text(record).startswith(f"{you} won"), (k, told, result_text(record))
        elif told.startswith("You lost"):
            assert result_text(record).startswith(f"{PLAYER_NAMES[1 - p.state['you']]} won"), k
        else:
            assert told.startswith("Draw") and result_text(record).startswith("draw"), (k, told)


@pytest.mark.parametrize("kind", ["foreign", "newer", "garbage", "folder"])
def test_a_database_that_is_not_ours_stops_the_server_and_is_left_as_it_was(tmp_path, kind, capsys):
    import sqlite3

    from deepnash.cli import main
    from deepnash.play.store import APPLICATION_ID

    path = tmp_path / "games.sqlite3"
    if kind == "garbage":
        path.write_bytes(b"these are not the games you are looking for\n" * 50)
    elif kind == "folder":
        path.mkdir()
    else:
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
            conn.execute("INSERT INTO customers (name) VALUES ('Ada')")
            if kind == "newer":
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute("PRAGMA user_version = 99")
        conn.close()
    before = sorted((f.name, f.read_bytes(), f.stat().st_mtime_ns) for f in tmp_path.iterdir() if f.is_file())
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--db", str(path), "--allow", "random", "--port", str(bench.free_port())])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"error: {path}: "), err
    assert {"foreign": "not a deepnash server database (application id 0x0, it holds the tables customers)",
            "newer": "schema version 99 is newer than this deepnash's (1)",
            "garbage": "not a readable SQLite database (file is not a database)",
            "folder": "is a folder, not a database file"}[kind] in err
    after = sorted((f.name, f.read_bytes(), f.stat().st_mtime_ns) for f in tmp_path.iterdir() if f.is_file())
    assert after == before  # not a byte written, no journal left beside it


def test_only_sqlite_urls_are_accepted(capsys):
    from deepnash.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["serve", "--db", "postgresql://club@127.0.0.1/games", "--allow", "random"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip() == ("error: postgresql://club@127.0.0.1/games: only SQLite databases are "
                                               "supported: give a file path or sqlite:///PATH")
