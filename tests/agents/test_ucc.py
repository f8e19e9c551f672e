"""The UCC 2012 protocol codec and the bot side's reconstruction of the public state."""

import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from deepnash.agents import PlayerView, RandomAgent
from deepnash.agents.ucc import PublicState, announce, serve_ucc
from deepnash.game import BARRAGE, CLASSIC, Game, Move, random_deployment
from deepnash.infostate.view import push_recorded
from deepnash.notation.ucc import (
    UCCProtocolError,
    format_board,
    format_move,
    format_setup,
    parse_move,
    parse_move_line,
    parse_setup,
)


@st.composite
def straight_moves(draw):
    f = draw(st.integers(0, 99))
    horizontal = draw(st.booleans())
    line = [f // 10 * 10 + c for c in range(10)] if horizontal else [r * 10 + f % 10 for r in range(10)]
    t = draw(st.sampled_from([sq for sq in line if sq != f]))
    return Move(f, t)


@given(straight_moves())
def test_move_round_trip(move):
    assert parse_move(format_move(move)) == move


def test_coordinates_put_red_at_the_top():
    """y is our row: Red's back row (rank 1) is y=0 at the top, and UP goes towards it."""
    assert format_move(Move(10, 20)) == "0 1 DOWN"  # a2-a3: Red advancing goes DOWN the printed board
    assert parse_move("9 9 UP 3") == Move(99, 69)
    assert parse_move("4 0 RIGHT") == Move(4, 5)
    g = Game(CLASSIC, seed=0)
    v = PlayerView.of(g, 0)
    rows = format_board(v.owner, v.types, 0)
    assert rows[0][0] in "Fs987654321B"  # Red's own piece on a1, top left
    assert rows[9] == "#" * 10 and rows[4] == "..++..++.."


@pytest.mark.parametrize("text, words", [
    ("1 2", "a move is"), ("a b UP", "integers"), ("1 1 NORTH", "direction"), ("0 0 UP", "leaves the board"),
    ("12 0 UP", "off the board"), ("3 3 LEFT 0", "off the board"),
])
def test_bad_moves_are_reported(text, words):
    with pytest.raises(UCCProtocolError, match=words):
        parse_move(text)


def test_move_lines():
    line = parse_move_line("3 6 UP KILLS 1 s")
    assert line.move == Move(63, 53) and (line.outcome, line.attacker, line.defender) == ("KILLS", 10, 1)
    with pytest.raises(UCCProtocolError, match="needs the attacker"):
        parse_move_line("3 6 UP DIES 1")
    with pytest.raises(UCCProtocolError, match="not a piece"):
        parse_move_line("3 6 UP DIES 1 X")
    with pytest.raises(UCCProtocolError, match="OUTCOME"):
        parse_move_line("3 6 UP")


@pytest.mark.parametrize("variant", [CLASSIC, BARRAGE])
@pytest.mark.parametrize("player", [0, 1])
def test_setup_round_trip(variant, player):
    placed = random_deployment(variant, player, np.random.default_rng(player))
    rows = format_setup(placed, player)
    assert len(rows) == 4 and all(len(r) == 10 for r in rows)
    assert np.array_equal(parse_setup(rows, player), placed)
    with pytest.raises(UCCProtocolError):
        parse_setup(rows[:3], player)


@pytest.mark.parametrize("me", [0, 1])
def test_public_state_rebuilt_from_announcements_matches_the_referees_view(me):
    """Feeding a whole random game's announcements to ``PublicState`` gives, at each of the player's
    turns, the same public arrays and legal moves as ``PlayerView.of`` on the true game."""
    variant = CLASSIC.with_rules(two_squares=False, more_squares=False)
    rng = np.random.default_rng(me)
    g = Game(variant, seed=10 + me)
    state = PublicState(variant, me, g.setups[me])
    history = []
    first_board = True
    while not g.is_over():
        if g.turn == me:
            truth = PlayerView.of(g, me, tuple(history))
            if first_board:
                state.place_opponent(format_board(truth.owner, truth.types, me))
                first_board = False
            mine = state.view()
            for field in ("owner", "types", "revealed", "moved"):
                assert np.array_equal(getattr(mine, field), getattr(truth, field)), (field, g.ply)
            assert mine.legal_moves == truth.legal_moves
            assert mine.history == truth.history and mine.moves_since_attack == truth.moves_since_attack
        moves = g.legal_moves()
        record = push_recorded(g, moves[int(rng.integers(len(moves)))])
        history.append(record)
        if not g.is_over():
            state.apply(parse_move_line(announce(record)))


def test_serve_ucc_plays_the_protocol():
    """A scripted referee conversation: setup, START, a board, one move reply, QUIT."""
    blue = Game(BARRAGE, seed=4).setups[1]
    out = io.StringIO()
    agent = RandomAgent()  # the same agent and seed as the bot's, to know its setup in advance
    agent.reset(BARRAGE, 0, 9)
    own = agent.choose_setup()
    g = Game(BARRAGE, own, blue)
    view = PlayerView.of(g, 0)
    board = format_board(view.owner, view.types, 0)
    stdin = io.StringIO("\n".join(["RED blue 10 10", "START", *board, "QUIT"]) + "\n")
    serve_ucc(RandomAgent(), BARRAGE, stdin, out, seed=9)
    lines = out.getvalue().splitlines()
    assert lines[:4] == format_setup(own, 0)
    assert parse_move(lines[4]) in view.legal_moves
    with pytest.raises(UCCProtocolError, match="RED"):
        serve_ucc(RandomAgent(), BARRAGE, io.StringIO("HELLO\n"), io.StringIO())
