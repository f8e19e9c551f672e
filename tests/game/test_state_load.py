"""``BatchState.load``, the one constructor of positions: it rebuilds any reachable state exactly
(the Zobrist hash included, which ``apply_move`` keeps incrementally) and refuses broken invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.game import BARRAGE, CLASSIC, Game, InvalidPositionError
from deepnash.game import kernels as K
from deepnash.game.codes import code_of
from deepnash.game.pieces import BOMB, FLAG, SCOUT
from deepnash.game.state import BatchState, Chase, LastMove


def _parts(game: Game) -> dict:
    """Everything ``load`` takes, read back from a game's arrays."""
    s, m = game.state, game.state.meta[0]
    chase = None
    if m[K.M_CHASE]:
        n = int(m[K.M_CHASE_N])
        chase = Chase(int(m[K.M_CHASER]), int(m[K.M_CHASE_SQ]), n, s.chase[0, :min(n, K.CHASE_CAPACITY)].tolist())
    last = None
    if m[K.M_LAST_FROM] >= 0:
        last = LastMove(*(int(m[i]) for i in (K.M_LAST_FROM, K.M_LAST_TO, K.M_LAST_ATTACKER, K.M_LAST_DEFENDER,
                                                K.M_LAST_RESULT)))
    return dict(board=s.board[0].copy(), flags=s.flags[0].copy(), turn=int(m[K.M_TO_MOVE]), ply=int(m[K.M_PLY]),
                moves_since_attack=int(m[K.M_SINCE_ATTACK]), history=s.hist[0].copy(), chase=chase, last_move=last)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 300), classic=st.booleans())
def test_load_rebuilds_every_reachable_state(seed, plies, classic):
    game = Game(CLASSIC if classic else BARRAGE, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(plies):  # a game in progress: load continues games, ended ones keep their result elsewhere
        moves = game.legal_moves()
        after = game.copy()
        after.push(moves[int(rng.integers(len(moves)))])
        if after.is_over():
            break
        game = after
    copy = BatchState(2, game.variant)
    copy.load(1, **_parts(game))
    for name in ("board", "flags", "hist", "zob"):
        np.testing.assert_array_equal(getattr(copy, name)[1], getattr(game.state, name)[0], err_msg=name)
    assert copy.zob[1] == K.board_hash(copy.board, 1)
    meta, want = copy.meta[1], game.state.meta[0]
    live = np.ones(K.NUM_META, bool)
    if not want[K.M_CHASE]:  # an ended chase leaves its square and count behind; nothing reads them
        live[[K.M_CHASER, K.M_CHASE_SQ, K.M_CHASE_N]] = False
    np.testing.assert_array_equal(meta[live], want[live])
    n = min(int(want[K.M_CHASE_N]), K.CHASE_CAPACITY) if want[K.M_CHASE] else 0
    np.testing.assert_array_equal(copy.chase[1, :n], game.state.chase[0, :n])


def test_load_ends_a_game_whose_player_to_move_is_stuck():
    board = np.zeros(100, np.int8)
    board[list(CLASSIC.lakes)] = -1
    board[0], board[99], board[98] = code_of(0, FLAG), code_of(1, FLAG), code_of(1, SCOUT)
    game = Game.from_state(CLASSIC, board, turn=0)
    assert game.is_over() and game.outcome().winner == 1


def _start() -> dict:
    return _parts(Game(CLASSIC, seed=3))


@pytest.mark.parametrize("change, part", [
    (lambda p: p["board"].__setitem__(42, 0), "board: c5 is not a lake"),
    (lambda p: p["board"].__setitem__(0, 40), "board: a1 holds 40"),
    (lambda p: p["board"].__setitem__(np.flatnonzero(p["board"] == 0)[0], code_of(0, FLAG)), "Red has 2 of piece F"),
    (lambda p: p["flags"].__setitem__(np.flatnonzero(p["board"] == 0)[0], K.REVEALED), "flags: .* holds no piece"),
    (lambda p: p["flags"].__setitem__(np.flatnonzero(p["board"] == code_of(1, BOMB))[0], K.MOVED),
     "flags: the Flag or Bomb"),
    (lambda p: p["flags"].__setitem__(0, 4), "flags: a1 has flags 4"),
    (lambda p: p.update(turn=2), "turn: 2"),
    (lambda p: p.update(ply=3, moves_since_attack=4), "counters: 4 moves without an attack"),
    (lambda p: p.update(history=np.zeros((2, K.HISTORY + 1, 2), np.int8)), "history: shape"),
    (lambda p: p.update(chase=Chase(0, 44, 3, [1, 2])), "chase: 2 hashes for 3 boards"),
])
def test_load_refuses_a_broken_invariant_and_names_the_part(change, part):
    parts = _start()
    change(parts)
    state = BatchState(1, CLASSIC)
    before = state.board.copy()
    with pytest.raises(InvalidPositionError, match=part):
        state.load(0, **parts)
    np.testing.assert_array_equal(state.board, before)  # nothing written
