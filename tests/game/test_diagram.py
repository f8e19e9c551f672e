"""ASCII diagrams: reading, writing, and the errors that name the square."""

import numpy as np
import pytest

from deepnash.game import BARRAGE, Game, InvalidPositionError
from deepnash.game.diagram import format_diagram, parse_diagram

EMPTY_ROWS = """
10 .. .. .. .. .. .. .. .. .. bF
 9 .. .. .. .. .. .. .. .. .. ..
 8 .. .. .. .. .. .. .. .. .. ..
 7 .. .. .. .. .. .. .. .. .. ..
 6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 4 .. .. .. .. .. .. .. .. .. ..
 3 .. .. .. .. r2 .. b5 .. .. ..
 2 .. .. .. .. .. .. .. .. .. ..
 1 rF .. .. .. .. .. .. .. .. ..
   a  b  c  d  e  f  g  h  i  j
"""


def test_squares_and_pieces():
    red, blue = parse_diagram(EMPTY_ROWS)
    assert red[0] == 0 and red[24] == 2 and blue[99] == 0 and blue[26] == 5
    assert (red >= 0).sum() == 2 and (blue >= 0).sum() == 2


def test_format_round_trips_random_positions():
    for seed in range(5):
        g = Game(BARRAGE if seed % 2 else "classic", seed=seed)
        for _ in range(3):
            if not g.is_over():
                g.push(g.legal_moves()[0])
        text = format_diagram(g.state.board[0])
        again = Game.from_diagram(text, g.variant)
        assert np.array_equal(again.state.board[0], g.state.board[0])
        assert format_diagram(again.state.board[0]) == text


def test_blue_to_move():
    g = Game.from_diagram(EMPTY_ROWS, turn=1)
    assert g.turn == 1 and {str(m) for m in g.legal_moves()} == {"g3-g4", "g3-g2", "g3-h3", "g3-f3"}


@pytest.mark.parametrize("change, message", [
    (lambda s: s.replace(" 7 .. .. .. .. .. .. .. .. .. ..\n", ""), "10 rows"),
    (lambda s: s.replace(" 2 .. .. .. .. .. .. .. .. .. ..", " 2 .. .. .. .."), "rank 2 needs 10 cells"),
    (lambda s: s.replace("r2 .. b5", "r2 .. x5"), "g3: unknown cell 'x5'"),
    (lambda s: s.replace("6 .. .. ~~", "6 .. .. .."), "c6 is a lake"),
    (lambda s: s.replace("3 .. .. ..", "3 .. .. ~~"), "c3 is not a lake"),
])
def test_errors_name_the_problem(change, message):
    with pytest.raises(InvalidPositionError, match=message):
        parse_diagram(change(EMPTY_ROWS))
