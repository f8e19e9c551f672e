"""Position strings: a game read back from its string continues exactly as the original."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.game import BARRAGE, CLASSIC, Game, InvalidPositionError
from deepnash.game import kernels as K
from deepnash.notation import game_from_position, position_string
from deepnash.notation.field import CHAR_OF_CODE
from notation_helpers import continue_both, random_game

VARIANTS = [CLASSIC, BARRAGE, CLASSIC.with_rules(two_squares=False, more_squares=False),
            BARRAGE.with_rules(max_moves=150, two_squares_limit=2)]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**31), st.integers(0, 400))
def test_read_back_continues_identically(variant, seed, moves):
    g = random_game(variant, seed, moves)
    text = position_string(g)
    h = game_from_position(text)
    assert position_string(h) == text
    assert h.variant == g.variant
    s, t = g.state, h.state
    for name in ("board", "flags", "hist", "zob"):
        np.testing.assert_array_equal(getattr(s, name), getattr(t, name))
    live = [K.M_TO_MOVE, K.M_PLY, K.M_SINCE_ATTACK, K.M_DONE, K.M_WINNER, K.M_TERMINATION, K.M_CHASE,
            K.M_LAST_FROM, K.M_LAST_TO, K.M_LAST_ATTACKER, K.M_LAST_DEFENDER, K.M_LAST_RESULT]
    np.testing.assert_array_equal(s.meta[0, live], t.meta[0, live])
    if s.meta[0, K.M_CHASE]:
        n = min(int(s.meta[0, K.M_CHASE_N]), K.CHASE_CAPACITY)
        np.testing.assert_array_equal(s.chase[0, :n], t.chase[0, :n])
    continue_both(g, h, seed + 1, 300)


def test_chases_are_carried():
    """Random Classic games with the more-squares rule often hold a running chase; its hashes travel."""
    texts = [position_string(random_game(CLASSIC, seed, 60)) for seed in range(40)]
    chased = [t for t in texts if t.split()[7] != "-"]
    assert chased, "no random game had a running chase"
    for t in chased:
        chaser, square, n, hashes = t.split()[7].split(":")
        assert chaser in "rb" and len(hashes.split(",")) == min(int(n), K.CHASE_CAPACITY)
        assert position_string(game_from_position(t)) == t


def test_start_position():
    g = Game("barrage", seed=7)
    text = position_string(g)
    fields = text.split()
    assert fields[0] == "barrage" and fields[3:] == ["r", "0", "0", "-/-", "-", "-", "*"]
    assert fields[2] == "/".join(["0" * 10] * 10)
    assert fields[1].split("/")[4] == "AA__AA__AA"
    h = game_from_position(text)
    np.testing.assert_array_equal(h.setups[0], g.setups[0])
    np.testing.assert_array_equal(h.setups[1], g.setups[1])


def test_finished_and_resigned_games():
    g = random_game(BARRAGE, 3, 5000)
    assert g.is_over()
    text = position_string(g)
    h = game_from_position(text)
    assert h.outcome() == g.outcome() and h.legal_moves() == []
    r = random_game(CLASSIC, 4, 10)
    r.resign(1)
    text = position_string(r)
    assert text.endswith(" resignation:red")
    assert game_from_position(text).outcome() == r.outcome()


def test_rule_overrides_are_written_and_read():
    v = CLASSIC.with_rules(two_squares=False, max_moves=300)
    text = position_string(Game(v, seed=1))
    assert text.split()[0] == "classic[max_moves=300,two_squares=0]"
    assert game_from_position(text).variant == v


def test_a_stuck_side_to_move_ends_the_game_at_once():
    g = Game(BARRAGE, seed=2)
    fields = position_string(g).split()
    board = list(fields[1].replace("/", ""))
    # Leave Red only its Flag and Bomb: Red, to move, cannot move and loses.
    flag, bomb = CHAR_OF_CODE[1], CHAR_OF_CODE[12]
    board = [c if c in (flag, bomb) or not "B" <= c <= "M" else "A" for c in board]
    fields[1] = "/".join("".join(board[i:i + 10]) for i in range(0, 100, 10))
    h = game_from_position(" ".join(fields))
    assert h.outcome().winner == 1


def _with(field: int, value: str) -> str:
    fields = position_string(Game(CLASSIC, seed=5)).split()
    fields[field] = value
    return " ".join(fields)


@pytest.mark.parametrize(
    "text, message",
    [
        ("classic r 0", "10 space-separated fields"),
        (_with(0, "chess"), "unknown variant 'chess'"),
        (_with(0, "classic[moves=3]"), "'moves=3' is not one of"),
        (_with(1, "A" * 100), "10 ranks of 10"),
        (_with(1, "/".join(["A" * 10] * 10)), "c5 is not a lake"),
        (_with(1, "/".join(["Z" * 10] + ["A" * 10] * 9)), "'Z' at a1"),
        (_with(1, "/".join(["MMAAAAAAAA"] + ["A" * 10] * 3 + ["AA__AA__AA"] * 2 + ["A" * 10] * 4)),
         "Red has 2 of piece F"),
        (_with(2, "/".join(["0" * 10] * 5 + ["0000000001"] + ["0" * 10] * 4)), "j6 has flags 1 but holds no piece"),
        (_with(3, "x"), "neither 'r'"),
        (_with(4, "-1"), "not a non-negative integer"),
        (_with(5, "3"), "3 moves without an attack but only 0"),
        (_with(6, "a4-a5"), "Red's and Blue's moves"),
        (_with(6, "a4-z5/-"), "'z5' is not a square"),
        (_with(7, "r:e5:2:0123456789abcdef"), "1 hashes for 2 boards"),
        (_with(7, "r:e5:1:0123456789abcdeg"), "hash 1"),
        (_with(8, "e4-e5:3X1"), "is not attacker, defender, result"),
        (_with(9, "flag_captured:draw"), "flag_captured cannot end with draw"),
        (_with(9, "won"), "is not '*'"),
    ],
)
def test_bad_positions_say_which_field(text, message):
    with pytest.raises(InvalidPositionError, match=message.replace("[", r"\[").replace("*", r"\*")):
        game_from_position(text)


def test_custom_variant_needs_to_be_given():
    v = CLASSIC.with_rules(name="mine")
    text = position_string(Game(v, seed=1))
    with pytest.raises(InvalidPositionError, match="pass variant="):
        game_from_position(text)
    assert position_string(game_from_position(text, variant=v)) == text
