"""Replays of Gravon records: the frames, ``deepnash replay`` in the terminal, and ``POST /api/replay``."""

from __future__ import annotations

import dataclasses
import io
import zipfile

import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from deepnash.agents import RandomAgent, play_game
from deepnash.cli import app as cli
from deepnash.archives import packaged_archive_dir
from deepnash.game import get_variant
from deepnash.game import kernels as K
from deepnash.game.errors import RecordError
from deepnash.notation.field import format_field
from deepnash.notation.gravon import (
    format_xml,
    parse_records,
    record_from_game,
    replay,
)
from deepnash.play.frames import MAX_RECORD_BYTES, load_record, record_frames
from deepnash.play.match import describe_move
from deepnash.play.terminal import run
from deepnash.play.viewer import ReplaySession
from deepnash.play.web import create_app

ARCHIVE = packaged_archive_dir() / "strados2014-0.zip"  # its Classic games are packaged


def our_record(seed: int = 1, variant: str = "barrage"):
    """A random game's record and the game (``game.history``: its moves with their battles, as played)."""
    game, history = play_game(RandomAgent(), RandomAgent(), get_variant(variant), seed)
    game.history = history
    return record_from_game(game, players=("alice", "bob")), game


@pytest.fixture(scope="module")
def ours():
    return our_record()


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app("random", allow=["random"]))


def gravon_game(name: str = "classic-2014.0-5.xml") -> bytes:
    with zipfile.ZipFile(ARCHIVE) as z:
        return z.read(name)


# -- frames -----------------------------------------------------------------------------------
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**16), variant=st.sampled_from(["barrage", "classic"]), cut=st.floats(0, 1))
def test_every_frame_is_the_position_the_engine_reaches_after_that_many_moves(seed, variant, cut):
    record, game = our_record(seed, variant)
    frames = record_frames(record)
    assert len(frames) == len(record.moves) + 1 == game.ply + 1
    assert np.array_equal(frames.boards[-1], game.state.board[0])
    i = int(cut * len(record.moves))
    part = replay(dataclasses.replace(record, moves=record.moves[:i]))  # the slow way: a fresh replay of i moves
    assert np.array_equal(frames.boards[i], part.state.board[0])
    assert np.array_equal(frames.revealed[i], (part.state.flags[0] & K.REVEALED) != 0)
    assert list(frames.moves) == list(game.history)  # the battles as they were fought
    lost = frames.lost(len(frames) - 1)
    assert sum(map(sum, lost)) == int((frames.boards[0] > 0).sum() - (frames.boards[-1] > 0).sum())
    on_board = [np.bincount(b[b > 0] - 1, minlength=24) for b in (frames.boards[0], frames.boards[i])]
    assert list(frames.lost(i)) == [(on_board[0] - on_board[1])[12 * p:12 * p + 12].tolist() for p in (0, 1)]


def test_an_illegal_move_is_named_with_the_record_and_its_number(ours):
    record, _ = ours
    moves = list(record.moves)
    moves[4] = moves[4]._replace(to_sq=moves[4].from_sq)  # a piece moving onto its own square
    bad = dataclasses.replace(record, moves=tuple(moves), source="mine.xml")
    with pytest.raises(RecordError, match=r"^mine\.xml: move 5: ") as e:
        record_frames(bad)
    assert e.value.move == 5


def test_load_record_picks_a_game_of_an_archive_by_name_or_index(tmp_path):
    by_name = load_record(ARCHIVE, "classic-2014.0-5")
    assert by_name.source == f"{ARCHIVE}:classic-2014.0-5.xml" and by_name.variant == "classic"
    with zipfile.ZipFile(ARCHIVE) as z:
        first = min(n for n in z.namelist() if n.endswith(".xml"))
    assert load_record(ARCHIVE, "1").source.endswith(":" + first)
    for game, why in [(None, "pick one with --game"), ("0", "no game '0'"), ("nope", "no game 'nope'")]:
        with pytest.raises(RecordError, match=why):
            load_record(ARCHIVE, game)
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    with pytest.raises(RecordError, match="not a readable zip archive"):
        load_record(tmp_path / "bad.zip", "1")


# -- the terminal ---------------------------------------------------------------------------------
def test_replay_session_steps_jumps_and_refuses_bad_commands(ours):
    record, game = ours
    session = ReplaySession(record_frames(record))
    n = game.ply
    assert session.prompt == f"replay 0/{n}> "
    assert not session.handle("next").error and session.ply == 1
    assert not session.handle("").error and session.ply == 2  # Enter steps forward
    assert not session.handle("n 3").error and session.ply == 5
    assert not session.handle("prev").error and session.ply == 4
    assert not session.handle("goto 7").error and session.ply == 7
    assert not session.handle(str(n)).error and session.ply == n
    for bad in ("next", "fly", "goto x", "n -1", "n 0", f"{n + 1}", "prev 2 3"):
        assert session.handle(bad).error and session.ply == n, bad
    assert not session.handle("first").error and session.ply == 0
    assert session.handle("back").error and session.ply == 0
    assert session.handle("p 5").error and session.ply == 0
    assert not session.handle("last").error and session.ply == n
    assert session.handle("moves").message.count("\n") == n - 1 and f">{n:>4}." in session.handle("moves").message


def test_replay_through_run_shows_every_piece_the_move_and_its_battle(ours):
    record, game = ours
    frames = record_frames(record)
    battle = next(i for i, r in enumerate(frames.moves, start=1) if r.defender >= 0)
    lines = iter(["", f"goto {battle}", "jump", "back", "last"])
    out = io.StringIO()

    def read(prompt):
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    run(ReplaySession(frames), read, Console(file=out, width=120, color_system=None))
    text = out.getvalue()
    assert "alice (Red) against bob (Blue)" in text and f"{game.ply} moves" in text
    assert f"Move 1/{game.ply}: {describe_move(frames.moves[0])}" in text
    assert f"Move {battle}/{game.ply}: {describe_move(frames.moves[battle - 1])}" in text and " attacks " in text
    assert "'jump' is not a replay command" in text and f"Move {battle - 1}/{game.ply}" in text
    assert "End of the record" in text and text.rstrip().endswith("Goodbye.")
    first_board = text.split("Start position")[0].splitlines()[-12:-2]  # ranks 10..1 (then files, legend)
    shown = [cell for line in first_board for cell in line.split()[1:] if cell not in ("·", "~~")]
    assert len(shown) == 2 * 8 and "?" not in "".join(shown)  # Barrage: both sides' 8 pieces, none hidden


def test_cli_replay_reads_a_record_and_names_the_problem_in_a_bad_one(ours, tmp_path):
    record, game = ours
    (tmp_path / "g.xml").write_text(format_xml(record))
    result = CliRunner().invoke(cli, ["replay", str(tmp_path / "g.xml")], input="n\nlast\nq\n")
    assert result.exit_code == 0 and f"Move {game.ply}/{game.ply}" in result.output
    moves = list(record.moves)
    moves[2] = moves[1]  # Blue's piece, moved again on Red's turn
    (tmp_path / "bad.xml").write_text(format_xml(dataclasses.replace(record, moves=tuple(moves))))
    result = CliRunner().invoke(cli, ["replay", str(tmp_path / "bad.xml")])
    assert result.exit_code == 2 and f"{tmp_path / 'bad.xml'}: move 3: " in result.output
    assert "Traceback" not in result.output


# -- the browser's endpoint ---------------------------------------------------------------------------
def check_frames(data: dict, record) -> None:
    final = replay(record)
    assert len(data["frames"]) == len(record.moves) + 1 and data["frames"][0]["move"] is None
    assert data["frames"][-1]["field"] == format_field(final.state.board[0])
    assert data["frames"][0]["field"] == record.field
    for f, m in zip(data["frames"][1:], record.moves):
        assert (f["move"]["from"], f["move"]["to"]) == (m.from_sq, m.to_sq)
    revealed = np.flatnonzero(final.state.flags[0] & K.REVEALED).tolist()
    assert data["frames"][-1]["revealed"] == revealed


def test_replay_endpoint_on_our_own_record(client, ours):
    record, _ = ours
    res = client.post("/api/replay?name=ours.xml", content=format_xml(record))
    assert res.status_code == 200, res.text
    data = res.json()
    assert data["players"] == ["alice", "bob"] and data["source"] == "ours.xml" and data["games"] == 1
    check_frames(data, record)
    battles = [f["move"] for f in data["frames"][1:] if f["move"]["battle"]]
    assert battles and all(b["attacker"] is not None and b["defender"] is not None for b in battles)


def test_replay_endpoint_on_a_real_gravon_game(client):
    xml = gravon_game()
    (record,) = parse_records(xml, "classic-2014.0-5.xml")
    data = client.post("/api/replay?name=classic-2014.0-5.xml", content=xml).json()
    assert data["variant"] == "classic" and data["players"] == list(record.players)
    check_frames(data, record)


@pytest.mark.parametrize(("body", "status", "why"), [
    (b"", 400, "no record"),
    (b"<stratego><game type='classic'>", 400, "upload.xml: not well-formed XML"),
    (b"<stratego></stratego>", 400, "no <game> element"),
    (b"<game><field content='AB'/></game>", 400, "bad field: a field has 100 letters"),
    (b"x" * (MAX_RECORD_BYTES + 1), 413, "larger than 1024 KiB"),
])
def test_malformed_uploads_are_refused_saying_what_is_wrong(client, body, status, why):
    res = client.post("/api/replay", content=body)
    assert res.status_code == status and why in res.json()["detail"], res.text


def test_unreplayable_records_and_missing_games_name_the_problem(client, ours):
    record, _ = ours
    moves = list(record.moves)
    moves[2] = moves[1]
    res = client.post("/api/replay?name=bad.xml", content=format_xml(dataclasses.replace(record, moves=tuple(moves))))
    assert res.status_code == 422 and res.json()["detail"].startswith("bad.xml: move 3: ")
    res = client.post("/api/replay?name=g.xml&game=2", content=format_xml(record))
    assert res.status_code == 400 and "there is no game 2; the file holds 1" in res.json()["detail"]
