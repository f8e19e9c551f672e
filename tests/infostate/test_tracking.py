"""Piece tracking and Flag inference (``infostate.tracking``) against the true game: what public information
allows always contains the truth, and the sets and odds respect the counts left."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.game import BARRAGE, CLASSIC, Game
from deepnash.game import kernels as K
from deepnash.game.pieces import BOMB, FLAG, NUM_TYPES
from deepnash.infostate.beliefs import IMMOVABLE, hidden_counts
from deepnash.infostate.tracking import bomb_lift, flag_odds, possible_types, prior_flag_odds, type_odds
from deepnash.infostate.view import PlayerView, push_recorded


def _played(variant, seed, plies):
    """A game after ``plies`` random moves (or its end), and its records."""
    rng = np.random.default_rng(seed)
    g = Game(variant, seed=seed)
    history = []
    for _ in range(plies):
        if g.is_over():
            break
        moves = g.legal_moves()
        history.append(push_recorded(g, moves[int(rng.integers(len(moves)))]))
    return g, tuple(history)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 400), player=st.integers(0, 1),
       barrage=st.booleans())
def test_the_true_type_is_always_possible_and_the_sets_respect_the_counts(seed, plies, player, barrage):
    g, history = _played(BARRAGE if barrage else CLASSIC, seed, plies)
    view = PlayerView.of(g, player, history)
    possible = possible_types(view)
    opp = view.owner == 1 - player
    assert not possible[~opp].any()
    for sq in np.flatnonzero(opp):
        assert possible[sq, g.piece_at(int(sq)).type], (sq, g.piece_at(int(sq)))
    hidden = opp & ~view.revealed
    counts = hidden_counts(view)
    assert not possible[hidden & view.moved][:, IMMOVABLE].any()
    assert np.all(possible[hidden].sum(axis=0) >= counts)  # every type left has room
    assert not possible[hidden][:, counts == 0].any()  # and no type that is used up
    flag = flag_odds(view, possible)
    assert flag.sum() == pytest.approx(0.0 if view.taken()[1 - player, FLAG] else 1.0)
    assert np.all(flag[~possible[:, FLAG]] == 0)
    # from the setup statistics, or from any prior (a belief network's marginals): the sets and counts hold
    prior = np.random.default_rng(seed).uniform(1e-4, 1.0, (100, 12))
    for odds in (type_odds(view, possible, flag), type_odds(view, possible, prior_flag_odds(view, possible, prior),
                                                            prior)):
        assert np.allclose(odds[hidden].sum(axis=1), 1.0)
        assert np.allclose(odds[hidden].sum(axis=0), counts, atol=1e-4)
        assert np.all(odds[~possible] == 0)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 400), player=st.integers(0, 1),
       barrage=st.booleans())
def test_what_we_infer_of_the_opponent_s_reasoning_is_what_it_reasons(seed, plies, player, barrage):
    """``PlayerView.opponent_view``: tracking our pieces from our own view, as the opponent would, gives exactly
    the sets and Flag odds that the opponent's true view gives, though that view knows the opponent's pieces."""
    g, history = _played(BARRAGE if barrage else CLASSIC, seed, plies)
    ours, theirs = PlayerView.of(g, player, history), PlayerView.of(g, 1 - player, history)
    mirror = ours.opponent_view()
    assert mirror.player == theirs.player
    assert np.array_equal(mirror.types[mirror.owner == player], theirs.types[theirs.owner == player])
    possible = possible_types(mirror)
    assert np.array_equal(possible, possible_types(theirs))
    assert np.array_equal(flag_odds(mirror, possible), flag_odds(theirs, possible))


def test_counts_propagate_to_a_fixpoint():
    """Facts about some pieces decide others: the one piece that may be the Flag is it, and when six of
    Barrage's eight pieces cannot be Bomb or Flag the other two are exactly those."""
    view = PlayerView.of(Game(BARRAGE, seed=3), 0)
    hidden = np.flatnonzero(view.owner == 1)
    assert len(hidden) == 8
    no_flag = np.zeros((100, NUM_TYPES), bool)
    no_flag[hidden[1:], FLAG] = True
    possible = possible_types(view, exclude=no_flag)
    assert possible[hidden[0]].tolist() == [t == FLAG for t in range(NUM_TYPES)]
    assert not possible[hidden[1:], FLAG].any() and possible[hidden[1:], BOMB].all()
    still = np.zeros((100, NUM_TYPES), bool)
    still[hidden[2:]] = IMMOVABLE
    possible = possible_types(view, exclude=still)
    assert np.flatnonzero(possible[hidden[0]]).tolist() == [FLAG, BOMB]
    assert np.flatnonzero(possible[hidden[1]]).tolist() == [FLAG, BOMB]
    impossible = np.zeros((100, NUM_TYPES), bool)
    impossible[hidden, FLAG] = True
    with pytest.raises(ValueError, match="no assignment"):
        possible_types(view, exclude=impossible)


def test_the_flag_is_likelier_beside_a_public_bomb():
    """Showing one of the opponent's Bombs (as a battle would) raises the Flag odds of its neighbours."""
    assert bomb_lift(CLASSIC) > 1.5
    g = Game(CLASSIC, seed=5)
    view = PlayerView.of(g, 0)
    bomb = next(sq for sq in range(60, 100) if g.piece_at(sq).type == BOMB)
    revealed, kinds = view.revealed.copy(), view.types.copy()
    revealed[bomb], kinds[bomb] = True, BOMB
    shown = replace(view, revealed=revealed, types=kinds)
    beside = [int(s) for s in K.NEIGHBOUR[bomb] if s >= 0 and view.owner[s] == 1]
    before = flag_odds(view, possible_types(view))
    after = flag_odds(shown, possible_types(shown))
    assert all(after[s] > before[s] for s in beside)
