"""Determinised Monte-Carlo tree search, after the thesis seed (chapter 4).

Per decision the bot builds ``determinizations`` complete states consistent
with the public information (``determinize``, section 4.4.2) and searches
each with ``sims / determinizations`` simulations; the root visit counts are
summed over the trees and the most visited move is played.

* Selection: PUCT (section 4.2.2), ``Q + c * P * sqrt(N) / (1 + n)``, with
  ``Q`` the mean value for the player to move at the parent.
* Prior and pruning (sections 4.2.3, 4.3.2): at the root, the cautious bot's
  public-information move scores; below it, where the state is complete,
  a full-information score (winning attacks first, losing attacks last,
  forward moves before backward ones).  Moves scoring under the mean are
  pruned, then all but the ``width`` best; the prior is a softmax of the
  scores over the survivors.
* Evaluation (section 4.3.1): ``rollouts`` continuations of ``depth`` moves
  in which both sides take winnable battles (``rollout.rollout_value``),
  averaged.

Defaults follow the thesis' Table 4.1 (``c`` 0.2, 9 rollouts, 5 moves ahead)
with 200 simulations; ``sims`` is the search budget.
"""

from __future__ import annotations

import math

import numpy as np

from ..game import Move
from ..game import kernels as K
from ..game.codes import type_of
from ..infostate.beliefs import FIGHT, PIECE_VALUE
from ..infostate.determinize import determinize
from ..infostate.setup_stats import deployment_weights
from ..infostate.view import PlayerView
from .base import SeededBot
from .heuristic import CautiousAgent
from .registry import register_agent
from .rollout import copy_slot, rollout_value
from .setups import guarded_deployment


class _Node:
    __slots__ = ("slot", "player", "moves", "prior", "children", "visits", "value", "terminal")

    def __init__(self, slot: int, player: int, terminal: bool):
        self.slot = slot
        self.player = player  # to move here
        self.terminal = terminal
        self.moves: list[tuple[int, int]] | None = None  # None until expanded
        self.prior = np.zeros(0)
        self.children: list[_Node | None] = []
        self.visits = 0
        self.value = 0.0  # summed, for the player who moved into this node


def prune(scores: np.ndarray, width: int, temperature: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """``(kept indices, prior)``: drop moves scoring under the mean, keep the ``width`` best, softmax the rest."""
    keep = np.flatnonzero(scores >= scores.mean() - 1e-12)
    keep = keep[np.argsort(-scores[keep], kind="stable")][:width]
    z = np.exp((scores[keep] - scores[keep].max()) / temperature)
    return keep, z / z.sum()


def full_info_scores(board: np.ndarray, player: int, moves: np.ndarray) -> np.ndarray:
    """Heuristic scores of ``moves: int[M, 2]`` in a complete state ``board: int8[100]`` (thesis 4.3.2)."""
    f, t = moves[:, 0].astype(np.int64), moves[:, 1].astype(np.int64)
    a = type_of(board[f])
    target = board[t]
    attack = target > 0
    result = np.where(attack, FIGHT[a, np.where(attack, type_of(target), 0)], 0)
    ahead = (t // 10 - f // 10) * (1 if player == 0 else -1)
    return np.where(attack, 1.0 + result * (0.5 + PIECE_VALUE[type_of(target)]), 0.5 + 0.1 * ahead)


class MCTSAgent(SeededBot):
    """Determinised MCTS with a heuristic prior, pruning and short greedy rollouts.

    Args:
        sims: simulations per decision (the search budget), split over the determinisations.
        determinizations: complete states searched per decision.
        rollouts: continuations per new node.
        depth: moves per continuation.
        c: PUCT exploration constant.
        width: children kept per node after pruning.
        setup_stats: sample the opponent's unmoved hidden pieces with the human (Gravon) setup
            statistics (``setup_stats.deployment_weights``) instead of uniformly.
        setup: where its setups come from (``base.SeededBot``).
    """

    name = "mcts"
    deploy = staticmethod(guarded_deployment)

    def __init__(self, sims: int = 200, determinizations: int = 4, rollouts: int = 9, depth: int = 5,
                 c: float = 0.2, width: int = 5, setup_stats: bool = True, setup: str = "own"):
        if sims < 1 or determinizations < 1 or rollouts < 1 or depth < 0 or width < 1 or c < 0:
            raise ValueError("mcts: sims, determinizations, rollouts and width must be >= 1, depth and c >= 0")
        self.sims, self.determinizations = sims, determinizations
        super().__init__(setup)
        self.rollouts, self.depth, self.c, self.width = rollouts, depth, c, width
        self._root_scorer = CautiousAgent()
        self._moves = np.empty((K.MAX_MOVES, 2), dtype=np.int16)
        self.setup_stats = setup_stats
        self._weights: np.ndarray | None = None

    def reset(self, variant, player: int, seed: int | None = None) -> None:
        super().reset(variant, player, seed)
        self._weights = deployment_weights(variant, 1 - player) if self.setup_stats else None


    def act(self, view: PlayerView) -> Move:
        if len(view.legal_moves) == 1:
            return view.legal_moves[0]
        keep, prior = prune(self._root_scorer.scores(view), self.width)
        if len(keep) == 1:
            return view.legal_moves[int(keep[0])]
        visits = np.zeros(len(keep))
        values = np.zeros(len(keep))
        per_tree = max(1, self.sims // self.determinizations)
        K.seed_numba(int(self._rng.integers(2**31)))
        for _ in range(self.determinizations):
            n, v = self._search(view, keep, prior, per_tree)
            visits += n
            values += v
        q = values / np.maximum(visits, 1)
        best = np.flatnonzero(visits == visits.max())
        return view.legal_moves[int(keep[best[np.argmax(q[best])]])]

    def _search(self, view: PlayerView, keep: np.ndarray, prior: np.ndarray, sims: int):
        s = determinize(view, self._rng, 1, extra_slots=sims + 2, weights=self._weights)
        arrays = (s.board, s.flags, s.meta, s.hist, s.zob, s.chase)
        work = sims + 1
        root = _Node(0, view.player, False)
        root.moves = [tuple(view.legal_moves[int(k)]) for k in keep]
        root.prior = prior
        root.children = [None] * len(keep)
        used = 1
        for _ in range(sims):
            node, path = root, [root]
            while True:
                i = self._select(node)
                child = node.children[i]
                if child is None:
                    copy_slot(*arrays, node.slot, used)
                    f, t = node.moves[i]
                    K.apply_move(*arrays[:6], s.rules, used, f, t)
                    child = _Node(used, int(s.meta[used, K.M_TO_MOVE]), bool(s.meta[used, K.M_DONE]))
                    node.children[i] = child
                    used += 1
                    path.append(child)
                    break
                path.append(child)
                node = child
                if node.terminal:
                    break
                if node.moves is None:
                    self._expand(node, s)
            leaf = path[-1]
            value = rollout_value(*arrays, s.rules, leaf.slot, work, self.rollouts, self.depth, True,
                                  view.player, PIECE_VALUE)
            for parent, n in zip(path, path[1:]):
                n.visits += 1
                n.value += value if parent.player == view.player else -value
            root.visits += 1
        return (np.array([c.visits if c else 0 for c in root.children], dtype=float),
                np.array([c.value if c else 0.0 for c in root.children]))

    def _expand(self, node: _Node, s) -> None:
        n = K.legal_moves(*s.arrays, node.slot, node.player, self._moves)
        moves = self._moves[:n].copy()
        keep, prior = prune(full_info_scores(s.board[node.slot], node.player, moves), self.width)
        node.moves = [(int(moves[k, 0]), int(moves[k, 1])) for k in keep]
        node.prior = prior
        node.children = [None] * len(keep)

    def _select(self, node: _Node) -> int:
        best, best_i = -math.inf, 0
        sqrt_n = math.sqrt(node.visits + 1)
        for i, child in enumerate(node.children):
            if child is None:
                u = self.c * node.prior[i] * sqrt_n + 10.0 * node.prior[i]  # unvisited: by prior, first
            else:
                u = child.value / child.visits + self.c * node.prior[i] * sqrt_n / (1 + child.visits)
            if u > best:
                best, best_i = u, i
        return best_i


register_agent("mcts", MCTSAgent, aliases={"iterations": "sims", "simulations": "sims"},
               summary="thesis-style determinised MCTS: PUCT, heuristic prior, pruning, short rollouts")
