"""Error texts never depend on the opponent's hidden pieces.

Two worlds differ only in how the opponent's (all hidden) pieces are arranged: the same squares
hold pieces, with the types shuffled.  Whatever the person sends (garbage, moves of every kind,
moves out of turn), the two games answer with the same error, word for word, or both accept it.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.env import human_pool
from deepnash.game import StrategoError, get_variant
from deepnash.game.squares import square_name
from deepnash.play.match import HumanMatch


class _Fixed:
    """An opponent with a given setup that is never asked to move in these tests."""

    name = "fixed"

    def __init__(self, setup: np.ndarray):
        self.setup = setup

    def reset(self, variant, player, seed=None):
        pass

    def choose_setup(self):
        return self.setup

    def act(self, view):  # pragma: no cover - the person never lets it move here
        raise AssertionError("the opponent was asked to move")

    def game_over(self, outcome, view):
        pass


def _worlds(shuffle_seed: int) -> tuple[HumanMatch, HumanMatch]:
    pool = human_pool("classic").setups
    mine = pool[0].copy()
    theirs_red_frame = pool[1]
    theirs = np.full(100, -1, np.int8)
    theirs[99 - np.arange(100)] = theirs_red_frame  # Blue's setup on its own rows
    shuffled = theirs.copy()
    occupied = np.flatnonzero(theirs >= 0)
    shuffled[occupied] = np.random.default_rng(shuffle_seed).permutation(theirs[occupied])
    variant = get_variant("classic")
    return HumanMatch(_Fixed(theirs), variant, 0, mine), HumanMatch(_Fixed(shuffled), variant, 0, mine)


def _answer(match: HumanMatch, text: str) -> str:
    try:
        match.move(text)
    except StrategoError as e:
        return f"{type(e).__name__}: {e}"
    return "accepted"


squares = st.integers(0, 99).map(square_name)
messages = st.one_of(st.text(max_size=12), st.tuples(squares, squares).map("-".join))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**16), st.lists(messages, min_size=1, max_size=25), st.data())
def test_error_texts_are_the_same_whatever_the_hidden_pieces(seed, texts, data):
    a, b = _worlds(seed)
    # bad messages at the start, the person to move
    for text in texts:
        if text in {str(m) for m in a.view().legal_moves}:
            continue
        assert _answer(a, text) == _answer(b, text), text
    # a legal move that attacks nothing (its outcome is public), then messages out of turn
    quiet = [m for m in a.view().legal_moves if a.game.piece_at(m.to_sq) is None]
    move = data.draw(st.sampled_from(quiet))
    assert _answer(a, str(move)) == _answer(b, str(move)) == "accepted"
    for text in texts:
        assert _answer(a, text) == _answer(b, text), text
