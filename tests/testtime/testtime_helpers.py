"""Hand-built positions and a hand-made value function for the test-time layer's tests."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from deepnash.game import Game, Move, Variant, parse_square
from deepnash.game import kernels as K
from deepnash.game.codes import code_of
from deepnash.game.pieces import MINER
from deepnash.infostate.view import MoveRecord, PlayerView, push_recorded
from deepnash.notation.field import field_placements
from deepnash.notation.replay import record_variant, replay
from deepnash.testtime.search import Search, SearchConfig

#: A small army (Flag, Scout, General, 3 Bombs) so that whole positions fit in a diagram.
SMALL = (1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 3)


def small_variant(two_squares: bool = True) -> Variant:
    return Variant("small", piece_counts=SMALL, two_squares=two_squares, more_squares=two_squares)


class Played:
    """A hand-built game plus the move records a match runner would keep."""

    def __init__(self, diagram: str, variant: Variant | str, reveal: tuple[str, ...] = ()):
        self.game = Game.from_diagram(diagram, variant)
        for name in reveal:
            self.game.state.flags[0, parse_square(name)] |= K.REVEALED
        self.history: list[MoveRecord] = []

    def push(self, *moves: str) -> None:
        for m in moves:
            self.history.append(push_recorded(self.game, Move.parse(m)))

    def view(self, player: int | None = None) -> PlayerView:
        p = self.game.turn if player is None else player
        return PlayerView.of(self.game, p, tuple(self.history))


def uniform_logits(obs: np.ndarray, follows: np.ndarray | None = None) -> np.ndarray:
    """A policy with no preference: zero logits for every action."""
    return np.zeros((len(obs), 100), dtype=np.float32)


def zero_value(obs: np.ndarray) -> np.ndarray:
    """A value function that knows nothing: 0 everywhere."""
    return np.zeros(len(obs), dtype=np.float32)


def one_round(view: PlayerView, prior: Mapping[Move, float], **options):
    """The ``SearchResult`` of one round of 2 samples over 3 candidates from ``prior`` at ``view``, looking no further
    than the move, with no preference, no value and ``alpha`` 0 unless ``options`` (``SearchConfig`` fields) say."""
    search = Search(uniform_logits, zero_value, SearchConfig(**{"samples": 2, "depth": 0, "candidates": 3,
                                                                "rounds": 1, "alpha": 0.0, **options}))
    search.reset(view.variant, view.player)
    return search.run(view, dict(prior), np.random.default_rng(0))


def best_searched(view: PlayerView, **options) -> set[str]:
    """The moves of highest probability in the policy of ``one_round`` with ``alpha`` 10 and ``options``
    (``SearchConfig`` fields) from a uniform prior over ``view``'s legal moves."""
    prior = {m: 1.0 / len(view.legal_moves) for m in view.legal_moves}
    policy = one_round(view, prior, **{"alpha": 10.0, **options}).policy
    top = max(policy.values())
    return {str(m) for m, p in policy.items() if p >= top - 1e-9}


def piece_count_value(obs: np.ndarray) -> np.ndarray:
    """A transparent value function: 0.1 per own piece minus 0.1 per opponent piece, from the planes.

    Own pieces are the private planes 1..12, the opponent's the Pub planes 13..24
    (each of its squares sums to 1), so the value depends on public information only.
    """
    obs = np.asarray(obs)
    own = obs[:, 1:13].sum(axis=(1, 2, 3))
    opp = obs[:, 13:25].sum(axis=(1, 2, 3))
    return (0.1 * (own - opp)).astype(np.float32)


def red_corner(lower: str, moved: Sequence[str] = (), revealed: Sequence[str] = (),
               placed: Mapping[str, int] | None = None) -> Game:
    """A Classic position, Red to move: Blue's Flag on j10 beside a Bomb, the lakes, ``lower`` (the
    diagram's rows 4 to 1) and the board codes of ``placed`` by square; the pieces on ``moved`` have moved,
    those on ``revealed`` have moved and are revealed, every other piece is hidden and unmoved."""
    game = Game.from_diagram("""
        10 .. .. .. .. .. .. .. .. bB bF
         9 .. .. .. .. .. .. .. .. .. ..
         8 .. .. .. .. .. .. .. .. .. ..
         7 .. .. .. .. .. .. .. .. .. ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
    """ + lower)
    board = game.state.board[0].copy()
    for sq, code in (placed or {}).items():
        board[parse_square(sq)] = code
    flags = np.zeros(100, np.uint8)
    flags[[parse_square(sq) for sq in moved]] = 2
    flags[[parse_square(sq) for sq in revealed]] = 3
    return Game.from_state(game.variant, board, flags, turn=0)


def blocked(miner: str) -> Game:
    """Red's Lieutenant on d2 behind Red's own Scout on c2, on its way to the Bombs round the Flag on a1;
    Blue's Miner (revealed) on ``miner``."""
    return red_corner("""
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 rB .. r2 r5 .. .. .. .. .. ..
         1 rF rB .. rB .. .. .. .. r9 ..
    """, revealed=[miner], placed={miner: code_of(1, MINER)})


def record_positions(record) -> Iterator[tuple[int, Game, tuple]]:
    """``(ply, game, history)`` before each move of a Gravon ``record`` replayed in the engine, while the game runs
    (``history``: the ``MoveRecord``s so far)."""
    final = replay(record)
    game = Game(record_variant(record), *field_placements(record.field))
    history = []
    for ply, move in enumerate(final.move_stack):
        if game.is_over():
            return
        yield ply, game, tuple(history)
        history.append(push_recorded(game, move))
