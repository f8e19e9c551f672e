"""The two-squares rule (ISF 10.1, Scout-aware) and the more-squares rule (chasing), on hand-built positions."""

import pytest
from rules_helpers import assert_same, both_from_diagram

from deepnash.game import CLASSIC, IllegalMoveError, parse_square
from deepnash.game import kernels as K

NO_CHASE = CLASSIC.with_rules(more_squares=False, name="two-squares only")
NO_TWO = CLASSIC.with_rules(two_squares=False, name="more-squares only")
NEITHER = CLASSIC.with_rules(two_squares=False, more_squares=False, name="no repetition rules")

OPEN = """
10 .. .. .. .. .. .. .. .. .. bF
 9 .. .. .. .. .. .. .. .. .. b4
 8 .. .. .. .. .. .. .. .. .. ..
 7 .. .. .. .. .. .. .. .. .. ..
 6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 4 .. .. .. .. .. .. .. .. .. ..
 3 .. .. .. .. r8 .. .. .. .. ..
 2 r2 .. .. .. .. .. .. .. .. ..
 1 rF .. .. .. .. .. .. .. .. ..
   a  b  c  d  e  f  g  h  i  j
"""
BLUE_SHUFFLE = ["j9-i9", "i9-i8", "i8-h8", "h8-h7", "h7-i7", "i7-i8", "i8-j8", "j8-j7"]


def play(game, ref, red_moves):
    """Red plays ``red_moves``; Blue answers with the next quiet move of ``BLUE_SHUFFLE``."""
    for i, m in enumerate(red_moves):
        for move in (m, BLUE_SHUFFLE[i]):
            game.push(move)
            ref.push(*(parse_square(s) for s in move.split("-")))
        assert_same(game, ref, f"after {move}")


def test_fourth_move_between_the_same_two_squares_is_illegal():
    game, ref = both_from_diagram(OPEN, NO_CHASE)
    play(game, ref, ["e3-e4", "e4-e3", "e3-e4"])
    assert not game.is_legal("e4-e3")
    with pytest.raises(IllegalMoveError, match="two-squares"):
        game.push("e4-e3")
    assert game.is_legal("e4-e5") and game.is_legal("e4-f4")


def test_moving_another_piece_resets_the_count():
    game, ref = both_from_diagram(OPEN, NO_CHASE)
    play(game, ref, ["e3-e4", "e4-e3", "a2-a3", "e3-e4"])
    assert game.is_legal("e4-e3")


def test_rule_off_and_longer_limit():
    for variant, plies in ((NEITHER, 7), (CLASSIC.with_rules(two_squares_limit=5, name="five"), 5)):
        game, ref = both_from_diagram(OPEN, variant)
        play(game, ref, ["e3-e4", "e4-e3"] * (plies // 2) + ["e3-e4"] * (plies % 2))
        assert game.is_legal("e4-e3" if plies % 2 else "e3-e4") == (variant is NEITHER), variant.name
    game, ref = both_from_diagram(OPEN, CLASSIC.with_rules(two_squares_limit=5, name="five"))
    play(game, ref, ["e3-e4", "e4-e3"] * 2 + ["e3-e4"])
    assert not game.is_legal("e4-e3")


def test_attacks_count_as_moves():
    text = OPEN.replace(" 9 .. .. .. .. .. ..", " 9 .. .. .. .. b2 ..")
    game, ref = both_from_diagram(text, NO_CHASE)
    for move in ("e3-e4", "j9-i9", "e4-e3", "e9-e4", "e3-e4", "i9-i8"):  # the third is an attack
        game.push(move)
        ref.push(*(parse_square(s) for s in move.split("-")))
    assert_same(game, ref)
    assert not game.is_legal("e4-e3")


# Scouts: moves along one line, alternating, whose segments all cross one square border.
@pytest.mark.parametrize("moves, last, legal", [
    (["a2-a6", "a6-a3", "a3-a6"], "a6-a2", False),  # all four cross a3|a4, a4|a5 and a5|a6
    (["a2-a3", "a3-a2", "a2-a4"], "a4-a2", False),  # a2|a3 crossed by all four
    (["a5-a6", "a6-a2", "a2-a4"], "a4-a2", True),  # a5|a6 is not crossed by a2-a4: no common border
    (["a2-a6", "a6-a2", "a2-a6"], "a6-b6", True),  # a different line
    (["a2-a6", "a6-a2", "a2-a4"], "a4-a6", True),  # same direction twice is not back and forth
])
def test_scout_aware_two_squares(moves, last, legal):
    text = OPEN.replace(" 2 r2", " 2 ..").replace(f" {moves[0][1]} ..", f" {moves[0][1]} r2", 1)
    game, ref = both_from_diagram(text, NO_CHASE)
    play(game, ref, moves)
    assert game.is_legal(last) == legal
    assert ((parse_square(last[:2]), parse_square(last[3:])) in ref.legal_moves()) == legal


# More-squares: Red's Colonel chases Blue's Major round the square f3 g3 g4 f4.
CHASE = OPEN.replace(" 3 .. .. .. .. r8", " 3 .. .. .. .. ..").replace(
    " 2 r2 .. .. .. .. ..", " 2 r2 .. .. .. .. r8").replace(" 3 .. .. .. .. .. .. ..", " 3 .. .. .. .. .. .. b7")


def chase(variant, moves):
    game, ref = both_from_diagram(CHASE, variant)
    for move in moves:
        game.push(move)
        ref.push(*(parse_square(s) for s in move.split("-")))
        assert_same(game, ref, f"after {move}")
    return game


ROUND = ["f2-f3", "g3-g4", "f3-g3", "g4-f4", "g3-g4", "f4-f3", "g4-f4", "f3-g3"]


def test_chaser_may_not_recreate_a_board_of_the_chase():
    game = chase(CLASSIC, ROUND)
    assert game.state.meta[0, K.M_CHASE] == 1 and game.state.meta[0, K.M_CHASER] == 0
    assert not game.is_legal("f4-f3")  # back to the board after the first threat
    with pytest.raises(IllegalMoveError, match="more-squares"):
        game.push("f4-f3")
    assert game.is_legal("f4-e4")  # not a threat: allowed, and it ends the chase
    game.push("f4-e4")
    assert game.state.meta[0, K.M_CHASE] == 0


def test_without_the_rule_the_chase_goes_on():
    assert chase(NO_CHASE, ROUND).is_legal("f4-f3")


def test_an_attack_or_another_move_ends_the_chase():
    game = chase(CLASSIC, ROUND[:3] + ["j9-j8"])  # Blue does not run: the chase is over
    assert game.state.meta[0, K.M_CHASE] == 0
    game = chase(CLASSIC, ROUND[:3] + ["g4-g3"])  # Blue attacks the chaser
    assert game.state.meta[0, K.M_CHASE] == 0


def test_returning_to_the_square_just_left_is_allowed_unless_it_breaks_two_squares():
    seesaw = ["f2-f3", "g3-g2", "f3-f2", "g2-g3"]  # the board after f2-f3 comes round again
    assert chase(NO_TWO, seesaw).is_legal("f2-f3")
    assert chase(CLASSIC, seesaw).is_legal("f2-f3")
    again = seesaw + ["f2-f3", "g3-g2"]
    assert chase(NO_TWO, again).is_legal("f3-f2")
    assert not chase(CLASSIC, again).is_legal("f3-f2")  # the fourth move between f2 and f3
