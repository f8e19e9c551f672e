"""``observe_reply`` (the look-ahead's compiled inner step) against the slow path it replaces:
copy the game, push the move, record it, and ``observe`` the result."""

from __future__ import annotations

import numpy as np
import pytest

from deepnash.game import Game, IllegalMoveError, get_variant
from deepnash.game.state import random_deployment
from deepnash.infostate.observe import ILLEGAL, OBSERVED, OVER, move_ring, move_rows, observe, observe_reply
from deepnash.infostate.view import push_recorded


def _candidates(game: Game):
    """The legal moves and those only a repetition rule forbids."""
    v = game.variant.with_rules(two_squares=False, more_squares=False)
    free = Game.from_state(v, game.state.board[0].copy(), game.state.flags[0].copy(), turn=game.turn)
    return set(game.legal_moves()) | {m for m in free.legal_moves() if not game.is_legal(m)}


@pytest.mark.parametrize("variant,seed", [("barrage", 1), ("barrage", 2), ("classic", 3)])
def test_the_observation_after_each_reply_is_observes(variant, seed):
    rng = np.random.default_rng(seed)
    v = get_variant(variant)
    game = Game(v, random_deployment(v, 0, rng), random_deployment(v, 1, rng))
    scratch, out = game.copy(), np.empty((82, 10, 10), np.float32)
    records, seen = [], {OBSERVED: 0, ILLEGAL: 0, OVER: 0}
    while not game.is_over() and game.ply < 120:
        ring, count = move_ring(move_rows(records))
        for move in sorted(_candidates(game)):
            for me in (0, 1):
                before = game.state.board.copy()
                code = observe_reply(game, scratch, move, ring, count, me, out)
                np.testing.assert_array_equal(game.state.board, before)  # the position is left alone
                seen[code] += 1
                after = game.copy()
                try:
                    rec = push_recorded(after, move)
                except IllegalMoveError:
                    assert code == ILLEGAL, move
                    continue
                if after.is_over():
                    assert code == OVER and scratch.outcome() == after.outcome(), move
                    continue
                assert code == OBSERVED, move
                np.testing.assert_array_equal(out, observe(after, move_rows(records + [rec]), me))
        # mostly back and forth, so that the repetition rules come into play
        legal = game.legal_moves()
        own_last = records[-2].move if len(records) > 1 else None  # the mover's own last move
        back = [m for m in legal if own_last and (m.to_sq, m.from_sq) == tuple(own_last)]
        move = back[0] if back and rng.random() < 0.7 else legal[rng.integers(len(legal))]
        records.append(push_recorded(game, move))
    assert min(seen.values()) > 0 or variant == "classic", seen
    with pytest.raises(ValueError, match="C-contiguous"):  # a copy would take the writes
        observe_reply(game, scratch, move, ring, count, 0, np.empty((10, 10, 82), np.float32).transpose(2, 0, 1))
    assert seen[OBSERVED] > 0 and game.ply > 40  # the move ring wrapped
