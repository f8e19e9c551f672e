"""Board diagrams: a golden final position, hidden information per viewer, and a cross-check with game.diagram."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.game import BARRAGE, CLASSIC
from deepnash.game.diagram import parse_diagram
from deepnash.notation.board import board_diagram
from deepnash.notation.gravon import read_records, replay
from notation_helpers import DATA, random_game


def test_golden_final_board():
    (rec,) = read_records(DATA / "classic-flag.xml")
    g = replay(rec)
    expected = (DATA / "classic-flag-final.txt").read_text()
    assert "\n\n".join(board_diagram(g, v) for v in (None, 0, 1)) + "\n" == expected


def _cells(diagram: str) -> list[list[str]]:
    return [line.split()[1:] for line in diagram.splitlines()[1:11]]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([CLASSIC, BARRAGE]), st.integers(0, 2**31), st.integers(0, 300))
def test_omniscient_view_is_the_board(variant, seed, moves):
    """Lower-casing the owner letters gives a diagram that game.diagram reads back to the same pieces."""
    g = random_game(variant, seed, moves)
    lines = board_diagram(g).splitlines()[:-1]
    plain = "\n".join(" ".join(c[0].lower() + c[1:] for c in line.split()) for line in lines)
    red, blue = parse_diagram(plain, variant)
    board = g.state.board[0]
    np.testing.assert_array_equal(red, np.where((board >= 1) & (board <= 12), board - 1, -1))
    np.testing.assert_array_equal(blue, np.where(board >= 13, board - 13, -1))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([CLASSIC, BARRAGE]), st.integers(0, 2**31), st.integers(0, 300), st.sampled_from([0, 1]))
def test_a_player_sees_only_what_it_may(variant, seed, moves, viewer):
    g = random_game(variant, seed, moves)
    rows = _cells(board_diagram(g, viewer))
    if viewer == 1:  # Blue's view is the board turned round: rank 1 on top, file j first
        rows = [r[::-1] for r in rows[::-1]]
    omniscient = _cells(board_diagram(g))
    for i, (seen, true) in enumerate(zip(rows, omniscient, strict=True)):
        for j, (a, b) in enumerate(zip(seen, true, strict=True)):
            piece = g.piece_at((9 - i) * 10 + j)
            hidden = piece is not None and piece.player != viewer and not piece.revealed
            assert a == (b[0] + ("+" if piece.moved else "?") if hidden else b)
            assert b[0].isupper() == bool(piece and piece.revealed)


def test_bad_viewer():
    with pytest.raises(ValueError, match="viewer must be 0"):
        board_diagram(random_game(BARRAGE, 0, 0), viewer=2)
