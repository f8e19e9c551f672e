"""``hunt.hunting_move`` and the search's ``hunt`` option: a piece that beats a revealed officer sent at it."""

import pytest

from deepnash.game import Game
from deepnash.game.codes import code_of
from deepnash.game.pieces import COLONEL, GENERAL, MARSHAL
from deepnash.infostate.view import PlayerView
from deepnash.testtime.hunt import HUNT_REACH, hunting_move
from deepnash.testtime.search import SearchConfig
from testtime_helpers import best_searched, red_corner


def _colonel(hunters: dict[str, int], revealed: bool = True) -> Game:
    """Blue's Colonel on d3 (revealed, or moved and hidden) among Red's Bombs, Flag, Sergeant and Lieutenant
    on rows 1 and 2; Red's ``hunters`` (square: type) placed on the board."""
    placed = {sq: code_of(0, kind) for sq, kind in hunters.items()} | {"d3": code_of(1, COLONEL)}
    return red_corner("""
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 rB .. .. r4 r5 .. .. .. .. ..
         1 rF rB .. .. .. .. .. .. .. ..
    """, moved=[] if revealed else ["d3"], revealed=["d3"] if revealed else [], placed=placed)


def _hunt(game: Game) -> str | None:
    view = PlayerView.of(game, 0)
    found = hunting_move(view, view.legal_moves)
    return None if found is None else str(found)


@pytest.mark.parametrize("hunters, move", [
    ({"g3": GENERAL}, "g3-f3"),  # three steps along row 3
    ({"e3": GENERAL}, "e3-d3"),  # side by side: the attack
    ({"g3": GENERAL, "a3": MARSHAL}, "g3-f3"),  # equally near: the weaker hunter goes
    ({"g3": GENERAL, "b3": MARSHAL}, "b3-c3"),  # the nearer one goes
    ({"d1": GENERAL}, "d1-c1"),  # round its own Sergeant and Lieutenant on d2 and e2: c1, c2, c3
    ({"g3": COLONEL}, None),  # a tie is no hunt
    ({"a10": GENERAL}, None),  # ten steps away: beyond the reach
])
def test_hunting_move_sends_the_nearest_piece_that_beats_the_revealed_officer(hunters, move):
    assert _hunt(_colonel(hunters)) == move


def test_hunting_move_needs_a_revealed_quarry_and_a_move_left_to_it():
    assert _hunt(_colonel({"g3": GENERAL}, revealed=False)) is None  # moved, but its rank is not known
    game = _colonel({"g3": GENERAL, "a3": MARSHAL})
    view = PlayerView.of(game, 0)
    # the General's steps are not among the moves allowed: the Marshal, as near, goes instead
    allowed = [m for m in view.legal_moves if not str(m).startswith("g3")]
    assert str(hunting_move(view, allowed)) == "a3-b3"
    assert hunting_move(view, view.legal_moves, reach=2) is None  # both three steps away
    assert HUNT_REACH >= 3


def test_the_search_plays_the_hunting_move_with_hunt_and_not_without():
    view = PlayerView.of(_colonel({"g3": GENERAL}), 0)
    assert best_searched(view, hunt=0.15) == {"g3-f3"}
    assert best_searched(view, hunt=0.0) != {"g3-f3"}


def test_hunt_must_not_be_negative():
    with pytest.raises(ValueError, match="hunt"):
        SearchConfig(hunt=-0.1)
