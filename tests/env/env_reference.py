"""A slow, obviously-correct observation built from the setups and the move history alone.

Nothing here calls the env's kernels: pieces are tracked as Python objects,
battles resolved by the rules as written in ``spec/rules.md``, and every plane
filled square by square from ``spec/observation.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

F, SPY, MINER, MARSHAL, B = 0, 1, 3, 10, 11


@dataclass
class P:
    owner: int
    type: int
    revealed: bool = False
    moved: bool = False


def replay(red: np.ndarray, blue: np.ndarray, moves: list[tuple[int, int]]):
    """Pieces by square after ``moves``, plus (from, to, attacker type or None) per move and the
    number of moves since the last attack."""
    board = {}
    for owner, setup in ((0, red), (1, blue)):
        for sq in range(100):
            if setup[sq] >= 0:
                board[sq] = P(owner, int(setup[sq]))
    log, since = [], 0
    for f, t in moves:
        a = board.pop(f)
        a.moved = True
        if abs(t - f) not in (1, 10):
            a.revealed = True
        d = board.get(t)
        if d is None:
            board[t] = a
            log.append((f, t, None))
            since += 1
            continue
        log.append((f, t, a.type))
        since = 0
        a.revealed = d.revealed = True
        if d.type == F:
            board[t] = a
        elif d.type == B:
            if a.type == MINER:
                board[t] = a
        elif a.type == SPY and d.type == MARSHAL:
            board[t] = a
        elif a.type > d.type:
            board[t] = a
        elif a.type == d.type:
            del board[t]
    return board, log, since


def public(board: dict, owner: int) -> dict:
    """Equation 6: square -> 12 probabilities for ``owner``'s pieces."""
    hidden = [0] * 12
    for p in board.values():
        if p.owner == owner and not p.revealed:
            hidden[p.type] += 1
    out = {}
    for sq, p in board.items():
        if p.owner != owner:
            continue
        if p.revealed:
            row = [1.0 if k == p.type else 0.0 for k in range(12)]
        elif p.moved:
            den = sum(hidden[k] for k in range(12) if k not in (F, B))
            row = [0.0 if k in (F, B) else hidden[k] / den for k in range(12)]
        else:
            row = [hidden[k] / sum(hidden) for k in range(12)]
        out[sq] = row
    return out


def observation(lakes, red, blue, moves, player, *, deploying=False, step=0, selected=-1,
                max_moves=2000, max_no_attack=200) -> np.ndarray:
    """``float32[82, 10, 10]`` for ``player``.  While ``deploying``, ``red``/``blue`` hold the pieces
    placed so far and ``moves`` is empty."""
    obs = np.zeros((82, 100))
    view = (lambda sq: sq) if player == 0 else (lambda sq: 99 - sq)
    for sq in lakes:
        obs[0, view(sq)] = 1
    board, log, since = replay(red, blue, moves)
    for sq, p in board.items():
        if p.owner == player:
            obs[1 + p.type, view(sq)] = 1
    if not deploying:
        for base, owner in ((13, 1 - player), (25, player)):
            for sq, row in public(board, owner).items():
                obs[base:base + 12, view(sq)] = row
    for k, (f, t, a) in enumerate(reversed(log[-40:])):
        obs[37 + k, view(f)] = -1 if a is None else -(2 + a / 12)
        obs[37 + k, view(t)] = 1
    obs[77] = len(moves) / max_moves
    obs[78] = since / max_no_attack
    obs[79] = 1.0 if deploying else 0.0
    obs[80] = step
    if step == 1:
        obs[81, view(selected)] = 1
    return obs.reshape(82, 10, 10).astype(np.float32)
