"""Setup strings: round trips over random deployments, and errors that say where."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.game import Game, InvalidSetupError
from deepnash.game.state import deployment, deployment_types, random_deployment
from deepnash.game.variant import get_variant
from deepnash.notation import format_setup, parse_setup, setup_string

CLASSIC_RED = "2S32M9B237/4523B6B542/6B37822436/8B5F4B7625"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["classic", "barrage"]), st.integers(0, 1), st.integers(0, 2**32 - 1))
def test_random_setups_round_trip(variant, player, seed):
    v = get_variant(variant)
    types = deployment_types(v, player, random_deployment(v, player, np.random.default_rng(seed)))
    text = format_setup(types, v, player)
    assert text.count("/") == v.deploy_rows - 1
    assert parse_setup(text, v, player) == types
    assert format_setup(parse_setup(text, v, player), v, player) == text


def test_front_row_first_from_the_players_left():
    g = Game.from_setups("classic", parse_setup(CLASSIC_RED), parse_setup(CLASSIC_RED, player=1))
    # Red's first row is rank 4 from file a; Blue's first row is rank 7 from file j (Blue's left).
    red = ["Scout", "Spy", "Major", "Colonel", "Flag"]
    assert [g.piece_at(s).name for s in ("a4", "b4", "j4", "a1", "d1")] == red
    assert [g.piece_at(s).name for s in ("j7", "i7", "a7", "j10", "g10")] == red
    assert setup_string(g, 0) == CLASSIC_RED == setup_string(g, 1)


def test_barrage_leaves_dots():
    text = "....F..B../.....2..S./........../.2..3.9M.."
    types = parse_setup(text, "barrage")
    assert sum(t >= 0 for t in types) == 8
    placed = deployment(get_variant("barrage"), 0, types)
    assert placed[34] == 0 and placed[7] == 10  # the Flag on e4, the Marshal on h1


@pytest.mark.parametrize(
    "text, message",
    [
        (CLASSIC_RED.rsplit("/", 1)[0], "has 3 rows"),
        (CLASSIC_RED.replace("2S32M9B237", "2S32M9B23"), "row 1 ('2S32M9B23') has 9 squares"),
        (CLASSIC_RED.replace("6B37822436", "6B3782X436"), "row 3 column 7: 'X' is no piece"),
        (CLASSIC_RED.replace("2S32M9B237", "2S32M9S237"), "Spy 2 (want 1), Bomb 5 (want 6)"),
    ],
)
def test_bad_setups_say_what_and_where(text, message):
    with pytest.raises(InvalidSetupError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_setup(text)
