"""Public-information beliefs and determinisation, cross-checked against the true game and the engine."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.agents import PlayerView
from deepnash.game import BARRAGE, CLASSIC, Game
from deepnash.game import kernels as K
from deepnash.game.state import BatchState
from deepnash.infostate.beliefs import FIGHT, hidden_counts, type_distributions
from deepnash.infostate.determinize import determinize, sample_hidden
from deepnash.infostate.view import push_recorded


def _random_position(variant, seed, plies):
    """A game after ``plies`` random moves (or its end) and its move records."""
    rng = np.random.default_rng(seed)
    g = Game(variant, seed=seed)
    history = []
    for _ in range(plies):
        if g.is_over():
            break
        moves = g.legal_moves()
        history.append(push_recorded(g, moves[int(rng.integers(len(moves)))]))
    return g, tuple(history)


def test_fight_table_matches_the_engine():
    """FIGHT[a, d] agrees with the kernel's battle result for every movable attacker and every defender."""
    for a in range(1, 11):
        for d in range(12):
            s = BatchState(1, CLASSIC)
            red = np.full(100, -1, np.int8)
            blue = np.full(100, -1, np.int8)
            red[0], red[9], blue[10], blue[99] = a, 0, d, 0
            if d == 0:
                blue[99] = 4  # Blue's flag is the defender; keep one movable piece elsewhere
            s.reset(0, red, blue)
            result = K.apply_move(s.board, s.flags, s.meta, s.hist, s.zob, s.chase, s.rules, 0, 0, 10)
            expect = {K.RESULT_ATTACKER_WON: 1, K.RESULT_FLAG_CAPTURED: 1, K.RESULT_BOTH_REMOVED: 0,
                      K.RESULT_DEFENDER_WON: -1}[int(result)]
            assert FIGHT[a, d] == expect, (a, d)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 300), player=st.integers(0, 1))
def test_hidden_counts_equal_the_true_hidden_pieces(seed, plies, player):
    g, history = _random_position(CLASSIC, seed, plies)
    view = PlayerView.of(g, player, history)
    opp = 1 - player
    hidden = [g.piece_at(sq).type for sq in range(100)
              if g.piece_at(sq) and g.piece_at(sq).player == opp and not g.piece_at(sq).revealed]
    assert hidden_counts(view).tolist() == np.bincount(hidden, minlength=12).tolist()
    dist = type_distributions(view)
    opp_sq = view.owner == opp
    assert np.allclose(dist[opp_sq].sum(axis=1), 1.0)
    assert np.all(dist[~opp_sq] == 0)
    assert np.all(dist[opp_sq & view.moved][:, [0, 11]] == 0)  # moved pieces are neither Flag nor Bomb


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 200))
def test_samples_are_consistent_with_public_information(seed, plies):
    g, history = _random_position(BARRAGE, seed, plies)
    view = PlayerView.of(g, g.turn, history)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        s = sample_hidden(view, rng)
        opp = view.owner == 1 - view.player
        assert np.all((s >= 0) == opp)
        assert np.all(s[opp & view.revealed] == view.types[opp & view.revealed])
        assert not np.isin(s[opp & view.moved], (0, 11)).any()
        assert np.bincount(s[opp & ~view.revealed], minlength=12).tolist() == hidden_counts(view).tolist()


def test_type_distributions_match_sampling_frequencies():
    """The closed-form marginals agree with the frequencies of uniform determinisations (slow, obvious check)."""
    g, history = _random_position(CLASSIC, 11, 120)
    view = PlayerView.of(g, g.turn, history)
    rng = np.random.default_rng(0)
    n = 1500
    freq = np.zeros((100, 12))
    for _ in range(n):
        s = sample_hidden(view, rng)
        sq = np.flatnonzero(s >= 0)
        freq[sq, s[sq]] += 1
    assert np.abs(freq / n - type_distributions(view)).max() < 0.05


def test_determinised_state_keeps_everything_the_player_knows():
    g, history = _random_position(CLASSIC, 5, 80)
    view = PlayerView.of(g, g.turn, history)
    state = determinize(view, np.random.default_rng(1), samples=3)
    true = g.state.board[0]
    me = view.owner == view.player
    known = me | view.revealed | (view.owner < 0) | (view.owner == 2)
    buf = np.empty((K.MAX_MOVES, 2), np.int16)
    for b in range(3):
        assert np.array_equal(state.board[b][known], true[known])
        assert np.array_equal(state.flags[b], g.state.flags[0])
        n = K.legal_moves(*state.arrays, b, view.player, buf)
        assert set(view.legal_moves) <= {(int(f), int(t)) for f, t in buf[:n]}


def test_bad_weights_are_rejected():
    g = Game(CLASSIC, seed=0)
    with pytest.raises(ValueError, match="weights"):
        sample_hidden(PlayerView.of(g, 0), np.random.default_rng(0), np.zeros((100, 12)))
