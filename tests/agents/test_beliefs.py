"""Public-information beliefs and determinisation, cross-checked against the true game and the engine."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.agents import PlayerView
from deepnash.game import BARRAGE, CLASSIC, Game
from deepnash.game import kernels as K
from deepnash.game.state import BatchState
from deepnash.infostate.beliefs import FIGHT, IMMOVABLE, hidden_counts, type_distributions
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


def _slow_sample_hidden(view, rng, weights, exclude, tilt_moved):
    """The draw of ``sample_hidden`` written plainly, one square at a time: the reference its compiled,
    batched kernel is checked against."""
    out = np.full(100, -1, dtype=np.int8)
    hidden = (view.owner == 1 - view.player) & ~view.revealed
    left = hidden_counts(view).astype(np.float64)
    for group, movable_only in ((hidden & view.moved, True), (hidden & ~view.moved, False)):
        squares = rng.permutation(np.flatnonzero(group))
        squares = squares[np.argsort(~exclude[squares].any(axis=1), kind="stable")]
        for sq in squares:
            p = left * (weights[sq] if tilt_moved or not movable_only else 1) * (~IMMOVABLE if movable_only else 1)
            kept = np.where(exclude[sq], 0.0, p)
            p = kept if kept.sum() > 0 else p
            out[sq] = rng.choice(12, p=p / p.sum())
            left[out[sq]] -= 1
    return out


@pytest.mark.parametrize("tilt_moved", [False, True])
def test_batched_draws_follow_the_slow_reference(tilt_moved):
    """With weights on the unmoved pieces (and the moved ones with ``tilt_moved``) and eliminations on some squares (one of them impossible to
    honour), the batched draws' marginals match a plain one-square-at-a-time sampler's, square by square."""
    g, history = _random_position(CLASSIC, 4, 60)
    view = PlayerView.of(g, g.turn, history)
    hidden = (view.owner == 1 - view.player) & ~view.revealed
    rng = np.random.default_rng(1)
    weights = np.where(hidden[:, None], rng.uniform(0.2, 3.0, (100, 12)), 1.0)
    exclude = np.zeros((100, 12), bool)
    squares = np.flatnonzero(hidden)
    exclude[squares[:6], 10] = True  # not the Marshal
    exclude[squares[6], 3:] = True  # a Scout or lower
    exclude[squares[7]] = True  # nothing at all: soft, draws as if nothing were ruled out
    n = 3000
    fast = sample_hidden(view, rng, weights, exclude, tilt_moved, n=n)
    slow = np.array([_slow_sample_hidden(view, rng, weights, exclude, tilt_moved) for _ in range(n)])
    for draws in (fast, slow):
        assert np.all(np.bincount(draws[:, squares].ravel(), minlength=12) == n * hidden_counts(view))
    freq = [np.stack([(d[:, squares] == t).mean(axis=0) for t in range(12)]) for d in (fast, slow)]
    assert np.abs(freq[0] - freq[1]).max() < 0.045  # 3,000 draws each: about 0.013 standard error at worst
    assert not (fast[:, squares[:6]] == 10).any() and (fast[:, squares[6]] <= 2).all()


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
