"""The test-time layer the network agent calls at every decision (all layers of ``docs/test-time.md``).

Per game: ``reset(player)``.  Per move (play phase), with the agent's view:

1. ``plan = layer.begin_turn(view)``: replays the new moves into the
   pointless-threat and memory trackers and decides which moves are
   pointless threats.
2. For each of the two steps, ``obs, notes = layer.observation(obs, view)``
   (eagerness and the memory heuristic rewrite the network's input), then
   ``policy, log = layer.policy(raw, legal, "select" | "displace", plan, ...)``:
   the move-level removals (pointless threats, then value bounds) applied to
   the step's actions, then thresholding and discretisation with the
   play-phase parameters.  A removal is skipped when it would leave no legal
   move.  Value bounds are computed lazily for the pieces in the policy's
   support only (the paper bounds "each action in the policy"), which keeps
   the number of value-network evaluations down.

In deployment only ``observation`` (eagerness has nothing to do there) and
``policy(..., "deploy")`` (threshold 0.03, 32 quanta) apply.

``stats`` counts the moves on which value bounds changed the policy
(the paper saw under 1.5% of turns).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..env.actions import action_to_square, square_to_action
from ..env.planes import P_NO_ATTACK
from ..game import Move
from ..infostate.view import PlayerView
from .config import TestTimeConfig
from .eagerness import apply_eagerness
from .explain import DecisionLog, LayerEffect
from .memory import MemoryHeuristic
from .policy import check_policy, project, remove_actions
from .threats import PointlessThreats
from .value_bounds import ValueFn, value_bounds

MOVE_LAYERS = ("threats", "value_bounds")


@dataclass
class TurnPlan:
    """The move-level decisions of one turn.

    Attributes:
        view: the agent's view the plan is for.
        allowed: the legal moves left after the move-level layers (so far: value bounds grows lazily).
        removed_by: for each move-level layer, the moves it removed.
        value: ``v(x)`` of the value-bounds look-ahead, once it ran.
        bounds: value upper bound per move bounded so far.
        evaluations: positions the value function scored for this turn.
        value_bounds_changed: value bounds removed an action with probability in this turn.
    """

    view: PlayerView
    allowed: frozenset[Move]
    removed_by: dict[str, frozenset[Move]] = field(default_factory=dict)
    value: float | None = None
    bounds: dict[Move, float] = field(default_factory=dict)
    evaluations: int = 0
    value_bounds_changed: bool = False
    _after_threats: frozenset[Move] = frozenset()
    _bounded: set[int] = field(default_factory=set)


@dataclass
class LayerStats:
    """Counters over the games played: moves planned, moves on which value bounds changed the
    policy, and positions the value function scored for value bounds."""

    turns: int = 0
    value_bounds_turns: int = 0
    evaluations: int = 0

    @property
    def value_bounds_share(self) -> float:
        """Share of turns on which value bounds changed the policy (0 before any turn)."""
        return self.value_bounds_turns / self.turns if self.turns else 0.0


class TestTimeLayer:
    """The test-time layer of one agent.

    Args:
        config: which layers run and their parameters.
        value_fn: ``float32[N, 82, 10, 10] -> float32[N]`` (the value head) for
            value bounds; without it that layer is skipped.
    """

    __test__ = False  # not a pytest test class

    def __init__(self, config: TestTimeConfig | None = None, value_fn: ValueFn | None = None) -> None:
        self.config = config or TestTimeConfig()
        self.value_fn = value_fn
        self.stats = LayerStats()
        self.player = 0
        self.threats = PointlessThreats(0, self.config.free_threats)
        self.memory = MemoryHeuristic()

    def reset(self, player: int) -> None:
        """Start a new game as ``player`` (0 Red, 1 Blue); ``stats`` carry over."""
        self.player = player
        self.threats = PointlessThreats(player, self.config.free_threats)
        self.memory = MemoryHeuristic()

    # -- observation ---------------------------------------------------------
    def observation(self, obs: np.ndarray, view: PlayerView | None = None) -> tuple[np.ndarray, list[LayerEffect]]:
        """The network input with eagerness and the memory heuristic applied.

        Args:
            obs: ``float32[82, 10, 10]``, the agent's observation (its frame).
            view: the agent's view (play phase); ``None`` in deployment.

        Returns:
            The new observation and a ``LayerEffect`` per layer that changed it.
        """
        notes = []
        if self.config.eagerness:
            new = apply_eagerness(obs, self.config.alpha_eag)
            r, r2 = float(obs[P_NO_ATTACK, 0, 0]), float(new[P_NO_ATTACK, 0, 0])
            if r2 != r:
                notes.append(LayerEffect("eagerness", detail=f"no-attack ratio {r:.3f} -> {r2:.3f}"))
            obs = new
        if self.config.memory and view is not None:
            self.memory.update(view)
            new = self.memory.apply(obs, self.player)
            squares = int((new != obs).reshape(len(obs), 100).any(0).sum())
            if squares:
                notes.append(LayerEffect("memory", detail=f"Pub rows rewritten on {squares} squares"))
            obs = new
        return obs, notes

    def _value(self, obs: np.ndarray) -> np.ndarray:
        """The value function on look-ahead observations, with eagerness applied when it is on."""
        return self.value_fn(apply_eagerness(obs, self.config.alpha_eag) if self.config.eagerness else obs)

    # -- moves ---------------------------------------------------------------
    def begin_turn(self, view: PlayerView) -> TurnPlan:
        """Start the move ``view.player`` is about to make: update the trackers, find pointless threats.

        Raises:
            ValueError: the view is not this agent's, or has no legal move.
        """
        if view.player != self.player:
            raise ValueError(f"view of player {view.player} given to the test-time layer of player {self.player}")
        if not view.legal_moves:
            raise ValueError(f"ply {view.ply}: no legal move to plan")
        allowed = frozenset(view.legal_moves)
        plan = TurnPlan(view, allowed)
        if self.config.memory:
            self.memory.update(view)
        if self.config.threats:
            cut = allowed & self.threats.banned(view)
            if cut and cut != allowed:
                allowed = allowed - cut
                plan.removed_by["threats"] = cut
        plan.allowed = plan._after_threats = allowed
        self.stats.turns += 1
        return plan

    def _bound(self, plan: TurnPlan, squares: set[int]) -> None:
        """Run value bounds on the moves of the pieces on ``squares`` not bounded yet, and update the plan."""
        squares = squares - plan._bounded
        plan._bounded |= squares
        moves = [m for m in plan.view.legal_moves if m.from_sq in squares]
        if not moves:
            return
        vb = value_bounds(plan.view, self._value, self.config.eps_vb, moves)
        plan.value, plan.evaluations = vb.value, plan.evaluations + vb.evaluations
        self.stats.evaluations += vb.evaluations
        plan.bounds.update(vb.bounds)
        cut = plan._after_threats & {m for m, b in plan.bounds.items() if b + self.config.eps_vb < vb.value}
        if cut and cut != plan._after_threats:
            plan.removed_by["value_bounds"] = frozenset(cut)
            plan.allowed = plan._after_threats - cut

    def policy(
        self,
        policy: np.ndarray,
        legal: np.ndarray,
        step: str,
        plan: TurnPlan | None = None,
        *,
        selected: int | None = None,
        notes: Sequence[LayerEffect] = (),
        value: float | None = None,
        ply: int = 0,
    ) -> tuple[np.ndarray, DecisionLog]:
        """Apply the layers to one decision's policy.

        Args:
            policy: ``float[100]`` the network's policy (0 on illegal actions), the agent's frame.
            legal: ``bool[100]`` the legal-action mask of this step.
            step: ``"deploy"``, ``"select"`` or ``"displace"``.
            plan: this move's ``begin_turn`` plan (select and displace steps).
            selected: the square selected in the select step (absolute), for ``"displace"``.
            notes: the observation's ``LayerEffect``s, copied into the log.
            value: the value estimate to log.
            ply: the move number to log.

        Returns:
            ``(float64[100] policy to sample from, DecisionLog)``.

        Raises:
            ValueError: bad policy or mask (see ``policy.check_policy``), an unknown
                step, a play step without ``plan``, or ``"displace"`` without ``selected``.
        """
        raw, legal = check_policy(policy, legal)
        if step not in ("deploy", "select", "displace"):
            raise ValueError(f"step {step!r}: expected deploy, select or displace")
        if step != "deploy" and plan is None:
            raise ValueError(f"the {step} step needs the turn's plan (begin_turn)")
        if step == "displace" and selected is None:
            raise ValueError("the displace step needs the selected square")
        phase = "deploy" if step == "deploy" else "play"
        log = DecisionLog(ply, self.player, step, raw, raw, list(notes), value)
        current, effects = raw, []
        while step != "deploy":
            current, effects = self._remove(raw, plan, step, selected)
            if not (self.config.value_bounds and self.value_fn is not None):
                break
            support = np.flatnonzero(project(current, phase, self.config)[1] > 0)
            pieces = {selected} if step == "displace" else {action_to_square(int(a), self.player) for a in support}
            if pieces <= plan._bounded:
                break
            self._bound(plan, pieces)
        log.effects += effects
        if any(e.layer == "value_bounds" for e in effects) and not plan.value_bounds_changed:
            plan.value_bounds_changed = True
            self.stats.value_bounds_turns += 1
        thresholded, final = project(current, phase, self.config)
        deploying = step == "deploy"
        eps = self.config.eps_thres_deploy if deploying else self.config.eps_thres_play
        quanta = self.config.n_disc_deploy if deploying else self.config.n_disc_play
        for layer, before, after, detail in (("threshold", current, thresholded, f"below {eps}"),
                                             ("discretize", thresholded, final, f"multiples of 1/{quanta}")):
            gone = (before > 0) & (after == 0)
            if gone.any() or not np.allclose(before, after):
                log.effects.append(LayerEffect(layer, tuple(np.flatnonzero(gone).tolist()), detail))
        log.final = final
        return final, log

    def _remove(self, raw: np.ndarray, plan: TurnPlan, step: str,
                selected: int | None) -> tuple[np.ndarray, list[LayerEffect]]:
        """The policy with the plan's move-level removals applied to this step's actions."""
        current, effects = raw, []
        for layer in MOVE_LAYERS:
            current, gone = remove_actions(current, self._actions_removed(plan, layer, step, selected))
            if gone.any():
                detail = f"v(x) {plan.value:+.3f}, margin {self.config.eps_vb}" if layer == "value_bounds" else ""
                effects.append(LayerEffect(layer, tuple(np.flatnonzero(gone).tolist()), detail))
        return current, effects

    def _actions_removed(self, plan: TurnPlan, layer: str, step: str, selected: int | None) -> np.ndarray:
        """``bool[100]``: the actions of this step whose moves were all removed by ``layer`` (or earlier)."""
        out = np.zeros(100, dtype=bool)
        cut = plan.removed_by.get(layer)
        if not cut:
            return out
        if step == "displace":
            for m in cut:
                if m.from_sq == selected:
                    out[square_to_action(m.to_sq, self.player)] = True
            return out
        gone = cut.union(*(plan.removed_by.get(e, frozenset()) for e in MOVE_LAYERS[:MOVE_LAYERS.index(layer)]))
        for sq in {m.from_sq for m in cut}:
            if all(k in gone for k in self._moves_of(plan, sq)):
                out[square_to_action(sq, self.player)] = True
        return out

    @staticmethod
    def _moves_of(plan: TurnPlan, sq: int) -> list[Move]:
        every = plan.allowed.union(*plan.removed_by.values())
        return [m for m in every if m.from_sq == sq]
