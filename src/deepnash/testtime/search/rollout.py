"""The search's rollouts: ``k`` sampled states times ``m`` candidate moves in one ``VectorEnv`` batch, each game
played on by the network's own policy (both sides) and stepped together."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...env.actions import square_to_action
from ...env.vector import VectorEnv
from ...game import Move
from ...infostate.determinize import load_determinization
from ...infostate.observe import move_rows
from ...infostate.view import PlayerView

#: ``(obs float32[N, 82, 10, 10], follows) -> logits float32[N, 100]``: the network's policy heads (the
#: rollouts).  ``follows``, ``None`` or ``int64[N]``: at the displace step of a move, each row's row in the
#: previous call, its select step (the two observations differ in the step and selected-piece planes
#: alone), for a network that reuses work between them (``NetworkAgent``); others may ignore it.
LogitsFn = Callable[[np.ndarray, "np.ndarray | None"], np.ndarray]


class Rollouts:
    """The rollout batch of one player's search, kept between moves.

    Args:
        logits_fn: the policy heads (``LogitsFn``).
        threshold: the rollout policies drop actions below this probability and renormalise (0: the raw policy).
    """

    def __init__(self, logits_fn: LogitsFn, threshold: float):
        self.logits_fn, self.threshold = logits_fn, threshold
        self._env: VectorEnv | None = None
        self._asked: np.ndarray | None = None  # the rows of the last select-step call (``follows``)

    def load(self, view: PlayerView, hidden: np.ndarray, m: int) -> VectorEnv:
        """The batch of ``len(hidden) * m`` games: row ``s * m + c`` the game of ``view`` completed by
        ``hidden[s]`` (``int8[K, 100]``), its history resumed, ready for the ``c``-th candidate move."""
        k = len(hidden)
        if self._env is None or self._env.batch_size != k * m or self._env.variant != view.variant:
            self._env = VectorEnv(k * m, view.variant, setups="random", auto_reset=False)
        env, self._asked = self._env, None
        rows = move_rows(view.history)
        for s in range(k):
            load_determinization(view, hidden[s], env.state, s * m)
            for c in range(m):  # every candidate starts from the same sample
                if c:
                    env.state.copy_game(s * m, s * m + c)
                env.resume(s * m + c, rows)
        return env

    @staticmethod
    def play_candidates(env: VectorEnv, cands: list[Move], k: int, result: np.ndarray, drawn: np.ndarray,
                        me: int) -> None:
        """Play each row's candidate move (``cands``, player ``me``'s) as its select and displace steps."""
        first = np.array([[square_to_action(c.from_sq, me), square_to_action(c.to_sq, me)] for c in cands])
        for step in range(2):
            step_games(env, np.tile(first[:, step], k), result, drawn, me)

    def play_on(self, env: VectorEnv, plies: int, rng: np.random.Generator, result: np.ndarray,
                drawn: np.ndarray, me: int) -> None:
        """Let the policy play ``plies`` more moves (two steps each) in the live games."""
        for _ in range(2 * plies):
            live = np.isnan(result)
            if not live.any():
                break
            step_games(env, self.actions(env, live, rng), result, drawn, me)

    def actions(self, env: VectorEnv, live: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``int64[B]``: the rollout policy's action in each live game.  A game with one legal action
        (a selected piece with one square to go to, a player with one piece that can move) takes it
        without asking the network, whose policy gives it probability 1 there."""
        mask = env.mask
        select = env.substep[np.argmax(live)] == 0  # the games step together: every live row is at the same step
        actions = mask.argmax(axis=1)
        ask = live & (mask.sum(axis=1) > 1)
        rows, asked, self._asked = np.flatnonzero(ask), self._asked, None
        if len(rows):
            follows = None
            if not select and asked is not None and np.isin(rows, asked).all():
                follows = np.searchsorted(asked, rows)  # each game's select step, in the last call
            every = len(rows) == len(ask)  # no copy of the observations when every game asks
            logits = self.logits_fn(env.obs if every else env.obs[ask], follows)
            actions[ask] = sample_actions(logits, mask if every else mask[ask], rng, self.threshold)
            self._asked = rows if select else None
        return actions


def step_games(env: VectorEnv, actions: np.ndarray, result: np.ndarray, drawn: np.ndarray, me: int) -> None:
    """Play ``actions`` in the live games (``result`` NaN); a game that ends gets its result for ``me``
    in ``result``, and a draw is also marked in ``drawn``."""
    live = np.isnan(result)
    env.step(np.where(live, actions, 0))
    ended = live & env.done
    result[ended] = env.rewards[ended, me]
    drawn |= ended & (env.rewards[:, me] == 0)


def sample_actions(logits: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
                   threshold: float = 0.0) -> np.ndarray:
    """``int64[N]``: one action per row from the softmax of ``logits`` over ``mask``, less the actions
    below ``threshold`` (the most probable one always stays)."""
    z = np.where(mask, logits.astype(np.float64), -np.inf)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    p[(p < threshold) & (z < 0)] = 0.0
    cum = p.cumsum(axis=1)
    x = (1.0 - rng.random((len(p), 1))) * cum[:, -1:]  # in (0, total]: never lands on a zero entry
    return (cum < x).sum(axis=1)
