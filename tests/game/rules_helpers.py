"""Shared helpers of the rules tests: the kernels and the reference engine side by side, and perft."""

from __future__ import annotations

import numpy as np

from deepnash.game import BatchState, Game, Variant, get_variant
from deepnash.game import kernels as K
from deepnash.game.diagram import format_diagram, parse_diagram
from rules_reference import RefGame, Pc


def both_from_diagram(text: str, variant: Variant | str = "classic", turn: int = 0) -> tuple[Game, RefGame]:
    """The same hand-built position as a kernel ``Game`` and as a ``RefGame``."""
    v = get_variant(variant)
    red, blue = parse_diagram(text, v)
    return Game(v, red, blue, turn=turn), RefGame.start(v, red, blue, turn)


def ref_board(ref: RefGame) -> np.ndarray:
    """The reference board in the kernels' codes."""
    out = np.zeros(100, dtype=np.int8)
    for sq, x in enumerate(ref.board):
        out[sq] = K.LAKE if x == "lake" else 0 if x is None else 1 + 12 * x.owner + x.type
    return out


def ref_flags(ref: RefGame) -> np.ndarray:
    out = np.zeros(100, dtype=np.uint8)
    for sq, x in enumerate(ref.board):
        if isinstance(x, Pc):
            out[sq] = (K.REVEALED if x.id in ref.revealed else 0) | (K.MOVED if x.id in ref.moved else 0)
    return out


def assert_same(game: Game, ref: RefGame, where: str = "") -> None:
    """The kernel game and the reference agree on everything public and private."""
    board = game.state.board[0]
    assert np.array_equal(board, ref_board(ref)), f"{where}\nkernels:\n{format_diagram(board)}\n" \
        f"reference:\n{format_diagram(ref_board(ref))}"
    assert np.array_equal(game.state.flags[0], ref_flags(ref)), where
    meta = game.state.meta[0]
    assert (game.turn, game.ply, game.moves_since_attack) == (ref.turn, ref.ply, ref.since_attack), where
    assert bool(meta[K.M_DONE]) == ref.done, where
    if ref.done:
        out = game.outcome()
        assert (int(out.termination), out.winner) == (ref.termination, ref.winner), where
    else:
        assert [tuple(m) for m in game.legal_moves()] == ref.legal_moves(), where


def kernel_perft(game: Game, depth: int) -> list[int]:
    """Legal move sequences of length 1..depth from ``game`` (a finished game has none), via the kernels."""
    s = BatchState(depth, game.variant)
    game.state.copy_game(0, 0, s)
    bufs = np.empty((depth, K.MAX_MOVES, 2), dtype=np.int16)
    counts = [0] * depth

    def walk(level: int) -> None:
        if s.meta[level, K.M_DONE]:
            return
        n = K.legal_moves(*s.arrays, level, s.meta[level, K.M_TO_MOVE], bufs[level])
        counts[level] += n
        if level + 1 < depth:
            for f, t in bufs[level, :n]:
                s.copy_game(level, level + 1)
                K.apply_move(s.board, s.flags, s.meta, s.hist, s.zob, s.chase, s.rules, level + 1, f, t)
                walk(level + 1)

    walk(0)
    return counts


def ref_perft(ref: RefGame, depth: int) -> list[int]:
    """``kernel_perft`` computed by the reference engine."""
    counts = [0] * depth

    def walk(g: RefGame, level: int) -> None:
        if g.done:
            return
        moves = g.legal_moves()
        counts[level] += len(moves)
        if level + 1 < depth:
            for f, t in moves:
                child = g.copy()
                child.push(f, t)
                walk(child, level + 1)

    walk(ref, 0)
    return counts
