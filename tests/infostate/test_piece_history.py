"""The pieces' move history: a slow piece-by-piece tracker and the engine's moved flags agree with it, and the
records stream (``HumanDecisions``, for training) gives the planes the search rebuilds from a view."""

from __future__ import annotations

import numpy as np
import pytest

from deepnash.archives import packaged_archive_dir
from deepnash.game import CLASSIC, Game, Move
from deepnash.game import kernels as K
from deepnash.infostate.piece_history import FIRST, LAST, MOVES, history_of, history_planes
from deepnash.infostate.view import PlayerView, push_recorded
from deepnash.train.human import SELECT, HumanDecisions, load_games


def _slow_history(game: Game, moves: list[Move]) -> list[np.ndarray]:
    """Each piece as an object carried from square to square (the engine says who stands where after a
    battle): ``int32[3, 100]`` after each move."""
    at: dict[int, dict] = {}
    out = []
    for ply, m in enumerate(moves):
        mover = at.pop(m.from_sq, {"moves": 0, "first": -1, "last": -1})
        player = game.turn
        push_recorded(game, m)
        piece = game.piece_at(m.to_sq)
        if piece is not None and piece.player == player:
            at[m.to_sq] = {"moves": mover["moves"] + 1, "first": mover["first"] if mover["moves"] else ply, "last": ply}
        elif piece is None:
            at.pop(m.to_sq, None)
        h = np.zeros((3, 100), np.int32)
        h[FIRST:] = -1
        for sq, p in at.items():
            h[:, sq] = (p["moves"], p["first"], p["last"])
        out.append(h)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_the_history_follows_every_piece_as_a_slow_tracker_does_and_as_the_engine_flags_moved_pieces(seed):
    rng = np.random.default_rng(seed)
    game, slow_game = Game(CLASSIC, seed=seed), Game(CLASSIC, seed=seed)
    moves, records = [], []
    while not game.is_over() and len(moves) < 400:
        legal = game.legal_moves()
        attacks = [m for m in legal if game.piece_at(m.to_sq) is not None]
        m = attacks[0] if attacks and rng.random() < 0.5 else legal[rng.integers(len(legal))]  # many battles
        records.append(push_recorded(game, m))
        moves.append(m)
    slow = _slow_history(slow_game, moves)
    for k in sorted({len(moves) // 3, 2 * len(moves) // 3, len(moves)}):
        np.testing.assert_array_equal(history_of(records[:k]), slow[k - 1])
    final = history_of(records)
    flags = game.state.flags[0]
    on_board = game.state.board[0] > 0
    np.testing.assert_array_equal(final[MOVES] > 0, on_board & (flags & K.MOVED).astype(bool))
    assert (final[LAST] >= final[FIRST]).all() and final[MOVES].sum() <= len(moves)


def _view_planes(g) -> dict[int, np.ndarray]:
    """``history_planes`` as the search draws them from each view of recorded game ``g``, by ply."""
    game = Game(CLASSIC, g.setup[0], g.setup[1][::-1])
    records, out = [], {}
    for f, t in g.moves:
        view = PlayerView.of(game, game.turn, tuple(records))
        out[view.ply] = history_planes(history_of(view.history)[None], np.array([view.ply]),
                                       (view.owner == 1 - view.player)[None], np.array([view.player == 1]))[0]
        records.append(push_recorded(game, Move(int(f), int(t))))
        if game.is_over():
            break
    return out


def test_the_records_stream_gives_the_history_the_search_rebuilds_from_the_view():
    games = sorted(load_games(packaged_archive_dir() / "strados2014-0.zip", "classic"), key=lambda g: g.key)[:2]
    expected = [_view_planes(g) for g in games]
    stream = HumanDecisions(games, "classic", batch_size=64, slots=2, shuffle=False, phases=(SELECT,))
    checked = moved = 0
    for batch in stream:
        for k in range(len(batch)):
            want = expected[int(batch.game[k])][int(batch.ply[k])]
            np.testing.assert_allclose(batch.history[k], want, atol=1e-6)
            checked += 1
            moved += bool(want.any())
    assert checked == sum(len(e) for e in expected) and moved > checked // 2
