"""The terminal game driven line by line through ``PlaySession.handle`` and through ``run``'s I/O."""

from __future__ import annotations

import io

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rich.console import Console

from deepnash.agents.registry import make_agent
from deepnash.game import Move, square_name
from deepnash.game.errors import StrategoError
from deepnash.notation.gravon import read_records, replay
from deepnash.play.terminal import PlaySession, run

from play_helpers import random_legal, snapshot

COMMANDS = {"help", "show", "history", "save", "resign", "quit", "exit"}


def play_out(session: PlaySession, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    typed = []
    while not session.match._game.is_over():
        line = random_legal(session, rng)
        reply = session.handle(line)
        assert not reply.error, reply.message
        typed.append(line)
    return typed


def test_whole_game_to_the_end_saves_a_record_that_replays(session, tmp_path):
    typed = play_out(session)
    game = session.match._game
    assert game.is_over() and session.prompt == "game over> "
    # Every line the person typed is in the game, in order, between the bot's replies.
    mine = [str(m) for i, m in enumerate(game.move_stack) if i % 2 == 0]
    assert mine == typed
    # The record written at the end reads back to the same game.
    (record,) = read_records(tmp_path / "end.xml")
    assert [str(m) for m in record.moves] == [str(m) for m in game.move_stack]
    assert record.winner == game.outcome().winner
    assert replay(record).outcome() == game.outcome()
    # After the end: moves are refused, history lists every move, save works on demand.
    assert session.handle("a1-a2").error
    assert len(session.handle("history").message.splitlines()) == game.ply
    assert not session.handle(f"save {tmp_path / 'again.xml'}").error
    assert (tmp_path / "again.xml").read_text() == (tmp_path / "end.xml").read_text()


def test_run_reads_lines_and_prints_the_board_until_input_ends():
    session = PlaySession(make_agent("random"), "barrage", 1, seed=3)
    out = io.StringIO()
    lines = iter(["random", "ready", "nonsense", "help"])
    prompts = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    run(session, read, Console(file=out, width=100, color_system=None))
    text = out.getvalue()
    assert prompts[:3] == ["setup> ", "setup> ", "move 2> "]  # Blue: Red's bot moved first
    assert "'nonsense' is not a move" in text and "Game commands" in text
    assert "You left; the game counts as resigned." in text and "You lost (resignation)" in text
    assert text.count(" a   b   c ") == 0 and text.count("j   i   h") >= 2  # Blue sees the board from its side


def test_illegal_move_names_the_reason_and_changes_nothing(session):
    game = session.match._game
    pieces = {sq: game.piece_at(sq) for sq in range(100) if game.piece_at(sq)}
    empty = next(square_name(sq) for sq in range(100) if sq not in pieces and not game.is_lake(sq))
    theirs = next(square_name(sq) for sq, p in pieces.items() if p.player == 1)
    flag = next(square_name(sq) for sq, p in pieces.items() if p.player == 0 and p.name == "Flag")
    before = snapshot(game)
    for line, why in [(f"{empty}-a5", f"no piece on {empty}"), (f"{theirs}-a5", "belongs to Blue"),
                      (f"{flag}-a5", "a Flag never moves"), ("b4-b55", "is not a square"),
                      ("k1-k2", "is not a square"), ("a1", "not a move")]:
        reply = session.handle(line)
        assert reply.error and why in reply.message, (line, reply.message)
        assert snapshot(game) == before


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.text(alphabet="abcdefghijk0123456789-x :", max_size=12))
def test_any_bad_line_is_answered_with_an_error_and_changes_nothing(session, line):
    words = line.split()
    assume(words and words[0].lower() not in COMMANDS)
    try:
        assume(not session.match._game.is_legal(Move.parse(line)))
    except StrategoError:
        pass
    before = snapshot(session.match._game)
    reply = session.handle(line)
    assert reply.error and reply.message
    assert snapshot(session.match._game) == before


def test_save_is_refused_while_the_opponent_setup_is_secret(session, tmp_path):
    reply = session.handle(f"save {tmp_path / 'mid.xml'}")
    assert reply.error and "once the game is over" in reply.message
    assert not (tmp_path / "mid.xml").exists()


def test_resign_ends_the_game_for_the_opponent():
    s = PlaySession(make_agent("random"), "classic", 0, seed=1)
    s.handle("random")
    s.handle("ready")
    reply = s.handle("resign")
    assert "You lost (resignation)" in reply.message
    assert s.match._game.outcome().winner == 1


def test_square_by_square_deployment():
    s = PlaySession(make_agent("random"), "barrage", 0, seed=1)
    pieces = ["F", "B", "S", "2", "2", "3", "9", "10"]
    for sq, p in zip(["a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1"][:-1], pieces[:-1]):
        assert not s.handle(f"place {sq} {p}").error
    reply = s.handle("ready")
    assert reply.error and "still to place: 1 Marshal" in reply.message and s.match is None
    for bad, why in [("place a2 F", "no Flag left"), ("place a5 10", "outside Red's deployment zone"),
                     ("place a3 Q", "unknown piece"), ("frobnicate", "not a deployment command")]:
        placed = s.builder.placed.copy()
        reply = s.handle(bad)
        assert reply.error and why in reply.message, reply.message
        assert (s.builder.placed == placed).all()
    assert not s.handle("h1 10").error
    assert not s.handle("swap a1 j4").error
    assert not s.handle("ready").error
    flag = s.match._game.piece_at("j4")
    assert flag is not None and flag.name == "Flag" and flag.player == 0


def test_pool_command_uses_the_given_setup_source():
    seen = []

    def pool(variant, player, rng):
        from deepnash.game import random_deployment

        seen.append((variant.name, player))
        return random_deployment(variant, player, rng)

    s = PlaySession(make_agent("random"), "barrage", 1, pool=pool, seed=2)
    assert not s.handle("pool").error and s.builder.is_complete()
    assert seen == [("barrage", 1)]
    assert PlaySession(make_agent("random"), "barrage", 1).handle("pool").error
