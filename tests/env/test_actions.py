"""Action <-> square <-> Move conversions in the acting player's frame."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deepnash.env import action_to_square, actions_to_move, move_to_actions, square_to_action
from deepnash.game import Move

squares = st.integers(0, 99)


@given(squares, squares, st.sampled_from([0, 1]))
def test_round_trip_and_rotation(f, t, player):
    move = Move(f, t)
    sel, disp = move_to_actions(move, player)
    assert actions_to_move(sel, disp, player) == move
    assert action_to_square(square_to_action(f, player), player) == f
    assert (sel, disp) == ((f, t) if player == 0 else (99 - f, 99 - t))


def test_blue_plays_upwards_in_its_frame():
    # Blue's a7-a6 (rows 6 -> 5) is, seen from Blue, a move up the board from its own side.
    sel, disp = move_to_actions(Move.parse("a7-a6"), 1)
    assert sel // 10 == 3 and disp // 10 == 4


@pytest.mark.parametrize("bad", [-1, 100])
def test_off_board_is_rejected(bad):
    with pytest.raises(ValueError, match=f"action {bad} is off the board"):
        action_to_square(bad, 0)
    with pytest.raises(ValueError, match=f"square {bad} is off the board"):
        square_to_action(bad, 1)
