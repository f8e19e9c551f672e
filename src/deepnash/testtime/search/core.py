"""Belief-sampled search: play the network forward from sampled hidden states, improve the policy.

Source: the regularised policy-improvement search of Sokota et al. (2025), the Stratego agent that followed
DeepNash; our reading of it, per move:

1. sample K complete states consistent with everything public from the belief (``Belief``; by default
   ``infostate.determinize.sample_hidden`` tilted by people's setups, less the memory heuristic's eliminations);
2. for each of the M candidate moves of highest prior and each sample, play the move, then let the network's
   policy play both sides for ``depth`` more moves, in one batch of K x M games (``rollout.Rollouts``), and score
   the leaf (``leaves.score_leaves``);
3. ``Q(a)`` is the mean leaf value for the player to move over the samples;
4. one regularised improvement step (``improvement.improve``).

Rounds of K samples repeat while the time allows (``SearchConfig.seconds``, or a game clock's budget); the same
samples serve every candidate, so their ``Q`` differences are measured on common ground.  Domain knowledge enters
only through the heuristics' hooks (``plugin``), each named in ``SearchResult.changed_by`` when it changed the
move chosen.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...game import Move
from ...infostate.determinize import sample_hidden
from ...infostate.setup_stats import deployment_weights
from ...infostate.view import PlayerView
from ..clock import GameClock, critical_move
from ..leaf import battle_scores, material_difference, piece_values, public_lead
from ..memory import MemoryHeuristic
from ..value_bounds import ValueFn
from .config import SearchConfig
from .improvement import improve
from .leaves import score_leaves
from .plugin import Leaves, Turn, pipeline
from .rollout import LogitsFn, Rollouts

#: A sampler of hidden states: ``(rng, n) -> int8[n, 100]``, ``n`` draws of a type for every opponent piece.
Sampler = Callable[[np.random.Generator, int], np.ndarray]

#: ``(view, exclude) -> Sampler``: for one position, the sampler, given the memory heuristic's eliminations
#: ``exclude: bool[100, 12]``; the work that serves every draw is done once (``testtime.belief``).
Belief = Callable[[PlayerView, np.ndarray], Sampler]

#: Draws of the belief that give the expected score of each candidate's battle (``SearchConfig.control_variate``).
BATTLE_DRAWS = 256


@dataclass(frozen=True)
class SearchResult:
    """One move's search.

    Attributes:
        prior: the network's policy over the allowed moves (sums to 1).
        q: the estimated ``Q`` of each candidate, for the player to move, in [-1, 1] (before ``adjust_q``).
        policy: the improved policy over the allowed moves (sums to 1).
        samples: determinisations used per candidate; ``rounds`` how many rounds; ``seconds`` the time spent.
        changed_by: the heuristics without whose work the policy's most probable move would be another
            (``Search.attribute``), in pipeline order; empty where none.
    """

    prior: dict[Move, float]
    q: dict[Move, float]
    policy: dict[Move, float]
    samples: int
    rounds: int
    seconds: float
    changed_by: tuple[str, ...] = ()


class Search:
    """The search of one player over a game: its belief, its heuristics, its rollout batch and its time budget.

    Args:
        logits_fn: the policy heads (``rollout.LogitsFn``), called on batches of rollout positions.
        value_fn: the value head (``value_bounds.ValueFn``), on the unfinished leaves where the leaf reads it.
        config: the settings (``SearchConfig``): its heuristics are those it switches on (``plugin.pipeline``).
        belief: the sampler of hidden states (``Belief``); ``None``: ``sample_hidden`` with the human setup
            statistics of the variant (none with ``belief=public``) and the memory heuristic's eliminations.
        clock: seconds, for the budget (default ``time.perf_counter``; tests pass a fake).
    """

    def __init__(self, logits_fn: LogitsFn, value_fn: ValueFn, config: SearchConfig | None = None,
                 belief: Belief | None = None, clock: Callable[[], float] = time.perf_counter):
        self.value_fn, self.config, self.clock = value_fn, config or SearchConfig(), clock
        self.heuristics = pipeline(self.config)
        self._belief, self._memory = belief, MemoryHeuristic()
        self._rollouts = Rollouts(logits_fn, self.config.rollout_threshold)
        self._weights: np.ndarray | None = None
        self._game_clock: GameClock | None = None
        self._round_seconds = 0.0  # the last round's time: whether a clock's budget pays for another

    def reset(self, variant, player: int, memory: MemoryHeuristic | None = None) -> None:
        """Start a new game as ``player``; ``memory``: the memory heuristic whose eliminations the samples keep to
        (the test-time layer's, so that an agent keeps one memory of the opponent's pieces), ``None``: a new one.

        Raises:
            ValueError: ``piece_values=people`` on a variant people's games give no values for.
        """
        cfg = self.config
        self._memory = MemoryHeuristic() if memory is None else memory
        self._game_clock = GameClock(cfg.clock, cfg.increment) if cfg.clock > 0 else None
        self._round_seconds = 0.0
        self._weights = None if cfg.belief == "public" else deployment_weights(variant, 1 - player)
        piece_values(cfg.piece_values, variant)  # a variant without the values fails here, not mid-game

    def sample(self, view: PlayerView, rng: np.random.Generator, n: int | None = None) -> np.ndarray:
        """``int8[100]``: one hidden state of the opponent (see ``Belief``); with ``n``, ``int8[n, 100]``."""
        draws = self._sampler(view)(rng, 1 if n is None else n)
        return draws[0] if n is None else draws

    def _sampler(self, view: PlayerView) -> Sampler:
        """Draws of hidden states for ``view``, less the types the memory heuristic rules out on each square."""
        self._memory.update(view)
        board = self._memory.board
        exclude = np.zeros((100, 12), dtype=bool)
        on = np.flatnonzero(board.piece >= 0)
        exclude[on] = self._memory.ruled_out[board.piece[on]]
        if self._belief is not None:
            return self._belief(view, exclude)
        return lambda rng, n: sample_hidden(view, rng, self._weights, exclude=exclude, n=n)

    @property
    def logits_fn(self) -> LogitsFn:
        """The policy heads the rollouts call (``rollout.LogitsFn``)."""
        return self._rollouts.logits_fn

    @logits_fn.setter
    def logits_fn(self, fn: LogitsFn) -> None:
        self._rollouts.logits_fn = fn

    @property
    def clock_left(self) -> float | None:
        """Seconds left on the game clock (``SearchConfig.clock``), ``None`` without one."""
        return None if self._game_clock is None else self._game_clock.left

    def step_size(self, view: PlayerView) -> float:
        """The improvement's ``alpha`` at ``view``'s position: ``SearchConfig.alpha`` as the heuristics set it."""
        return self._alpha(Turn(view, self.config, np.random.default_rng(0), {}))

    def _alpha(self, turn: Turn, skip: object = None) -> float:
        """``SearchConfig.alpha`` through every heuristic's ``step_size`` but ``skip``'s, in pipeline order."""
        alpha = self.config.alpha
        for h in self.heuristics:
            if h is not skip:
                alpha = h.step_size(turn, alpha)
        return alpha

    def run(self, view: PlayerView, prior: dict[Move, float], rng: np.random.Generator,
            started: float | None = None) -> SearchResult:
        """Search ``view``'s position (``view.player`` to move) from ``prior`` over its allowed moves.

        Args:
            started: when the move began, on ``clock`` (default: now): the time spent before, on the prior,
                counts against the move's budget and the game clock.

        Raises:
            ValueError: ``prior`` is empty, has no positive entry, or names an illegal move.
        """
        start = self.clock() if started is None else started
        cfg, hs = self.config, self.heuristics
        if not prior or max(prior.values()) <= 0:
            raise ValueError(f"ply {view.ply}: the search needs a prior with a move of positive probability")
        if not set(prior) <= set(view.legal_moves):
            raise ValueError(f"ply {view.ply}: the prior names illegal moves")
        turn = Turn(view, cfg, rng, dict(prior))
        for h in hs:
            h.begin(turn)
        entered = {}  # the moves each heuristic brought into the prior or the candidates
        for h in hs:
            extra = h.widen(turn)
            entered[h.name] = set(extra)
            turn.prior |= extra
        dropped = {h.name: h.prune(turn) for h in hs}
        out = set().union(*dropped.values())
        if not (out and any(p > 0 for m, p in turn.prior.items() if m not in out)):
            dropped = {}
        else:
            turn.prior = {m: 0.0 if m in out else p for m, p in turn.prior.items()}
        turn.ranked = sorted((m for m in turn.prior if turn.prior[m] > 0), key=lambda m: -turn.prior[m])
        turn.draw = self._sampler(view) if len(turn.ranked) > 1 else None
        proposals = [(h.name, p) for h in hs if (p := h.propose(turn)) is not None]
        forced = [p.move for _, p in proposals if turn.prior.get(p.move, 0) > 0]
        least = {p.move: p.least for _, p in proposals if p.least is not None}
        top_p = turn.prior[turn.ranked[0]]
        lifted = {m: f * top_p for m, f in least.items() if m in forced and turn.prior[m] < f * top_p}
        if lifted:
            raised = {m: lifted.get(m, p) for m, p in turn.prior.items()}
            total = sum(raised.values())
            turn.prior = {m: p / total for m, p in raised.items()}
        top = turn.ranked[:cfg.candidates]
        cands = list(dict.fromkeys(top[:cfg.candidates - len(set(forced) - set(top))] + forced))
        for name, p in proposals:
            if p.move in cands and p.move not in top:
                entered[name].add(p.move)
        total, deltas = np.zeros(len(cands)), {h.name: np.zeros(len(cands)) for h in hs}
        n = rounds = 0
        budget = cfg.seconds
        if self._game_clock is not None:
            budget = self._game_clock.budget(view.variant, view.ply, critical_move(view, cands))
        if turn.draw is not None and (self._game_clock is None or self.clock() + self._round_seconds <= start + budget):
            control = cfg.control_variate and cfg.leaf != "value"
            if control:  # the expected score of each candidate's own battle
                worth = piece_values(cfg.piece_values, view.variant)
                base = 0.0 if cfg.leaf == "gain" else public_lead(view, worth)
                expected = battle_scores(view, cands, turn.draw(rng, BATTLE_DRAWS), worth, base).mean(axis=0)
            while True:
                t0 = self.clock()
                hidden = turn.draw(rng, cfg.samples)
                total += self._round(turn, cands, hidden, deltas)
                if control:
                    total -= battle_scores(view, cands, hidden, worth, base).sum(axis=0) - cfg.samples * expected
                n += cfg.samples
                rounds += 1
                now = self.clock()
                self._round_seconds = now - t0
                if (cfg.rounds and rounds >= cfg.rounds) or now + self._round_seconds > start + budget:
                    break
        q = {m: float(total[i] / n) for i, m in enumerate(cands)} if n else {}
        bonus = {h.name: h.adjust_q(turn, q) for h in hs}
        adjusted = dict(q)
        for b in bonus.values():
            for m, v in b.items():
                adjusted[m] += v
        alpha = self._alpha(turn)
        policy = improve(turn.prior, adjusted, alpha, cfg.tau)
        dq = {h.name: dict(bonus[h.name]) for h in hs}  # each heuristic's part of the adjusted Q
        for h in hs:
            for i, m in enumerate(cands if n else ()):
                dq[h.name][m] = dq[h.name].get(m, 0.0) + deltas[h.name][i] / n
        changed = self.attribute(turn, policy, adjusted, alpha, dq, entered, dropped, prior)
        spent = self.clock() - start
        if self._game_clock is not None:
            self._game_clock.charge(spent)
        return SearchResult(dict(prior), q, policy, n, rounds, spent, changed)

    def attribute(self, turn: Turn, policy: dict[Move, float], adjusted: dict[Move, float], alpha: float,
                  dq: dict[str, dict[Move, float]], entered: dict[str, set[Move]], dropped: dict[str, set[Move]],
                  given: dict[Move, float]) -> tuple[str, ...]:
        """The heuristics that changed the policy's most probable move, in pipeline order: one that brought it
        into the prior or the candidates (``entered``), dropped the given prior's most probable move
        (``dropped``), or without whose share of ``Q`` (``dq``: its leaf terms, ``shape`` and ``adjust_q``) or of
        the step size the improved policy's most probable move would be another.  The shares are measured on the
        round's own samples, not by searching again: a heuristic that changed which states were sampled, or the
        draw term of the leaves (``Turn.draw_score``, ``draw_floor``, ``attack_delay``), is not seen there."""
        def best(p: dict[Move, float]) -> Move:
            return max(p, key=p.get)

        chosen, first, tau = best(policy), best(given), self.config.tau
        who = []
        for h in self.heuristics:
            name, share = h.name, {m: v for m, v in dq[h.name].items() if v != 0.0}
            without = self._alpha(turn, skip=h)
            if (chosen in entered[name] or (first in dropped.get(name, ()) and chosen != first)
                    or (share and best(improve(turn.prior, {m: v - share.get(m, 0.0) for m, v in adjusted.items()},
                                               alpha, tau)) != chosen)
                    or (without != alpha and best(improve(turn.prior, adjusted, without, tau)) != chosen)):
                who.append(name)
        return tuple(who)

    def _round(self, turn: Turn, cands: list[Move], hidden: np.ndarray, deltas: dict[str, np.ndarray]) -> np.ndarray:
        """The summed leaf values of each candidate over the determinisations ``hidden: int8[K, 100]``; each
        heuristic's leaf terms and shaping, summed the same way, are added to ``deltas`` (``float[M]`` each)."""
        cfg, view, hs, me = self.config, turn.view, self.heuristics, turn.view.player
        k, m = len(hidden), len(cands)
        env = self._rollouts.load(view, hidden, m)
        leaves = Leaves(env, np.full(k * m, np.nan), np.zeros(k * m, bool), k, m, me)
        worth = piece_values(cfg.piece_values, view.variant)
        root = material_difference(env.state.board, me, worth) if cfg.leaf == "gain" else None
        for h in hs:
            h.at_root(turn, leaves)
        self._rollouts.play_candidates(env, cands, k, leaves.result, leaves.drawn, me)
        for h in hs:
            h.after_move(turn, leaves)
        self._rollouts.play_on(env, cfg.depth, turn.rng, leaves.result, leaves.drawn, me)
        for h in hs:
            h.settle(turn, leaves)
        leaves.pending = leaves.live | leaves.drawn  # the games the rollouts did not decide
        rows = {h.name: np.zeros(k * m) for h in hs}
        score_leaves(turn, leaves, hs, lambda live: self._values_for(env, live, me), worth, root, rows)
        for h in hs:
            before = leaves.result.copy()
            h.shape(turn, leaves)
            rows[h.name] += leaves.result - before
        for name, d in rows.items():
            deltas[name] += d.reshape(k, m).sum(axis=0)
        return leaves.result.reshape(k, m).sum(axis=0)

    def _values_for(self, env, rows: np.ndarray, me: int) -> np.ndarray:
        """``float[R]``: the value head's judgement of the games ``rows`` (``bool[B]``) of ``env`` for player ``me``
        (the value is the player to move's, so it is negated where the opponent moves)."""
        value = self.value_fn(env.obs[rows])
        return np.where(env.player[rows] == me, value, -value)
