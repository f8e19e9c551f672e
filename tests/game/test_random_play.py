"""Property-based random play: the kernels against the reference engine, and invariants at every move."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_helpers import assert_same
from rules_reference import RefGame

from deepnash.game import BatchState, Game, get_variant, random_deployment
from deepnash.game import kernels as K
from deepnash.game.pieces import BOMB, FLAG


def counts(board: np.ndarray) -> np.ndarray:
    return np.bincount(board[board > 0], minlength=25)


def immobile(board: np.ndarray) -> set[tuple[int, int]]:
    """(square, code) of every Flag and Bomb."""
    return {(sq, int(v)) for sq, v in enumerate(board) if v > 0 and (v - 1) % 12 in (FLAG, BOMB)}


games = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32 - 1),
    "variant": st.sampled_from(["barrage", "classic"]),
    "two_squares": st.booleans(),
    "more_squares": st.booleans(),
    "max_moves": st.sampled_from([2000, 350]),
    "max_moves_without_attack": st.sampled_from([200, 30]),
})


@settings(max_examples=12, deadline=None)
@given(games)
def test_random_play_matches_reference_and_keeps_invariants(spec):
    base = get_variant(spec.pop("variant"))
    seed = spec.pop("seed")
    v = base.with_rules(name=f"{base.name}-test", **spec)
    rng = np.random.default_rng(seed)
    red, blue = random_deployment(v, 0, rng), random_deployment(v, 1, rng)
    game, ref, pick = Game(v, red, blue), RefGame.start(v, red, blue), random.Random(seed)
    known = {}  # square -> True when the piece on it must be revealed, kept from the rules' wording alone
    board = game.state.board[0]
    while not game.is_over():
        before, fixed = counts(board), immobile(board)
        move = pick.choice(game.legal_moves())
        attack = board[move.to_sq] > 0
        result = game.push(move)
        assert int(result) == ref.push(move.from_sq, move.to_sq)
        assert_same(game, ref, f"seed {seed}, ply {game.ply}, {move}")
        # piece counts only fall, and only in a battle
        after = counts(board)
        assert (after <= before).all() and (attack or (after == before).all())
        assert (board[list(v.lakes)] == K.LAKE).all() and ((board > 0).sum() == after.sum())
        assert immobile(board) <= fixed  # Flags and Bombs never move (they can only be taken)
        long_move = abs(move.to_sq // 10 - move.from_sq // 10) + abs(move.to_sq % 10 - move.from_sq % 10) > 1
        was_known = known.pop(move.from_sq, False)
        if not attack:
            known[move.to_sq] = was_known or long_move
        else:
            known[move.to_sq] = True  # whoever survives on the square was in a battle
        flags = game.state.flags[0]
        revealed = {sq for sq in range(100) if board[sq] > 0 and flags[sq] & K.REVEALED}
        assert revealed == {sq for sq, k in known.items() if k and board[sq] > 0}
        # the draw limits hold
        assert game.ply <= v.max_moves and game.moves_since_attack <= v.max_moves_without_attack
        if game.ply % 97 == 0 and not game.is_over():
            legal = {tuple(m) for m in game.legal_moves()}
            assert {(f, t) for f in range(100) for t in range(100) if game.is_legal((f, t))} == legal
    out = game.outcome()
    if out.termination.name in ("MOVE_LIMIT", "NO_ATTACK_LIMIT", "BOTH_STUCK"):
        assert out.winner is None
    else:
        assert out.winner is not None


def test_batch_kernels_match_the_single_game_api():
    v = get_variant("barrage")
    n = 6
    rng = np.random.default_rng(7)
    setups = [(random_deployment(v, 0, rng), random_deployment(v, 1, rng)) for _ in range(n)]
    batch = BatchState(n, v)
    singles = []
    for b, (red, blue) in enumerate(setups):
        batch.reset(b, red, blue)
        singles.append(Game(v, red, blue))
    pick = random.Random(7)
    buf = np.empty((K.MAX_MOVES, 2), dtype=np.int16)
    while not all(g.is_over() for g in singles):
        for b, g in enumerate(singles):
            if g.is_over():
                continue
            count = K.legal_moves(*batch.arrays, b, batch.meta[b, K.M_TO_MOVE], buf)
            assert [tuple(m) for m in buf[:count]] == [tuple(m) for m in g.legal_moves()]
            assert K.has_legal_move(*batch.arrays, b, batch.meta[b, K.M_TO_MOVE])
            f, t = buf[pick.randrange(count)]
            s = batch
            K.apply_move(s.board, s.flags, s.meta, s.hist, s.zob, s.chase, s.rules, b, f, t)
            g.push((f, t))
            for name in ("board", "flags", "meta", "hist", "zob"):
                assert np.array_equal(getattr(batch, name)[b], getattr(g.state, name)[0]), name


def test_random_playout_kernels_report_consistent_games():
    v = get_variant("classic")
    K.seed_numba(11)
    s = BatchState(8, v)
    lengths = np.zeros(8, dtype=np.int32)
    ends = np.zeros(8, dtype=np.int32)
    args = (s.board, s.flags, s.meta, s.hist, s.zob, s.chase, s.rules, s.lakes, s.counts, *s.deploy)
    total = K.random_playout_batch(*args, lengths, ends)
    assert total == lengths.sum() and (lengths > 0).all() and (lengths <= v.max_moves).all()
    assert (s.meta[:, K.M_DONE] == 1).all() and set(ends) <= {1, 2, 3, 4, 5}
    one = BatchState(1, v)
    args = (one.board, one.flags, one.meta, one.hist, one.zob, one.chase, one.rules, one.lakes, one.counts, *one.deploy)
    total = K.random_playout(*args, 8, lengths, ends)
    assert total == lengths.sum() and (lengths > 0).all() and set(ends) <= {1, 2, 3, 4, 5}
