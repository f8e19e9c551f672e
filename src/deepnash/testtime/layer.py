"""The test-time layer the network agent calls at every decision (all layers of ``spec/test_time.md``).

Per game: ``reset(player)``.  Per move (play phase), with the agent's view:

1. ``plan = layer.begin_turn(view)``: replays the new moves into the
   pointless-threat and memory trackers and decides, once per move, which
   moves the move-level layers remove (pointless threats, then value bounds;
   a layer's removal is skipped when it would leave no move).
2. For each of the two steps, ``obs, notes = layer.observation(obs, view)``
   (eagerness and the memory heuristic rewrite the network's input), then
   ``policy, log = layer.policy(raw, legal, "select" | "displace", plan, ...)``:
   the plan's removals applied to the step's actions, then thresholding and
   discretisation with the play-phase parameters.

In deployment only ``observation`` (eagerness has nothing to do there) and
``policy(..., "deploy")`` (threshold 0.03, 32 quanta) apply.

``stats`` counts the moves on which value bounds changed the policy
(the paper saw under 1.5% of turns).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..agents.base import PlayerView
from ..env.actions import square_to_action
from ..game import Move
from .config import TestTimeConfig
from .eagerness import apply_eagerness
from .explain import DecisionLog, LayerEffect
from .memory import MemoryHeuristic
from .policy import check_policy, project, remove_actions
from .threats import PointlessThreats
from .value_bounds import ValueBounds, ValueFn, value_bounds

MOVE_LAYERS = ("threats", "value_bounds")


@dataclass
class TurnPlan:
    """The move-level decisions of one turn.

    Attributes:
        ply: the move number the plan is for.
        allowed: the legal moves left after the move-level layers.
        removed_by: for each move-level layer, the moves it removed.
        bounds: the value-bounds verdict, when that layer ran.
        value_bounds_changed: value bounds removed an action with probability in this turn.
    """

    ply: int
    allowed: frozenset[Move]
    removed_by: dict[str, frozenset[Move]] = field(default_factory=dict)
    bounds: ValueBounds | None = None
    value_bounds_changed: bool = False


@dataclass
class LayerStats:
    """Counters over the games played: moves planned, and moves on which value bounds changed the policy."""

    turns: int = 0
    value_bounds_turns: int = 0

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
            r, r2 = float(obs[78, 0, 0]), float(new[78, 0, 0])
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
        """Decide the move-level removals for the move ``view.player`` is about to make.

        Raises:
            ValueError: the view is not this agent's, or has no legal move.
        """
        if view.player != self.player:
            raise ValueError(f"view of player {view.player} given to the test-time layer of player {self.player}")
        if not view.legal_moves:
            raise ValueError(f"ply {view.ply}: no legal move to plan")
        allowed = frozenset(view.legal_moves)
        plan = TurnPlan(view.ply, allowed)
        bans: dict[str, frozenset[Move]] = {}
        if self.config.threats:
            bans["threats"] = self.threats.banned(view)
        if self.config.memory:
            self.memory.update(view)
        if self.config.value_bounds and self.value_fn is not None:
            plan.bounds = value_bounds(view, self._value, self.config.eps_vb)
            bans["value_bounds"] = plan.bounds.removed
        for layer in MOVE_LAYERS:
            cut = allowed & bans.get(layer, frozenset())
            if cut and cut != allowed:
                allowed = allowed - cut
                plan.removed_by[layer] = cut
        plan.allowed = allowed
        self.stats.turns += 1
        return plan

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
        log = DecisionLog(ply, self.player, step, raw, raw, list(notes), value)
        current = raw
        if step != "deploy":
            if plan is None:
                raise ValueError(f"the {step} step needs the turn's plan (begin_turn)")
            if step == "displace" and selected is None:
                raise ValueError("the displace step needs the selected square")
            for layer in MOVE_LAYERS:
                cut = self._actions_removed(plan, layer, step, selected)
                current, gone = remove_actions(current, cut)
                if gone.any():
                    log.effects.append(LayerEffect(layer, tuple(np.flatnonzero(gone).tolist()), self._why(plan, layer)))
                    if layer == "value_bounds" and not plan.value_bounds_changed:
                        plan.value_bounds_changed = True
                        self.stats.value_bounds_turns += 1
        thresholded, final = project(current, "deploy" if step == "deploy" else "play", self.config)
        for layer, before, after in (("threshold", current, thresholded), ("discretize", thresholded, final)):
            gone = (before > 0) & (after == 0)
            if gone.any() or not np.allclose(before, after):
                log.effects.append(LayerEffect(layer, tuple(np.flatnonzero(gone).tolist())))
        log.final = final
        return final, log

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

    def _why(self, plan: TurnPlan, layer: str) -> str:
        if layer == "value_bounds" and plan.bounds is not None:
            return f"v(x) {plan.bounds.value:+.3f}, margin {self.config.eps_vb}"
        return ""

