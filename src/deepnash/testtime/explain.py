"""Why the agent played what it played: one record per decision and a readable rendering of it.

A ``DecisionLog`` holds the network's raw policy over the 100 actions, what
each test-time layer removed or changed, the policy finally sampled from,
the value estimate and the action taken.  ``format_decision`` turns it into
a few lines for ``--explain``; ``DecisionLog.to_dict`` into JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..env.actions import action_to_square
from ..game import square_name

STEPS = ("deploy", "select", "displace")


@dataclass(frozen=True)
class LayerEffect:
    """What one layer did to one decision.

    Attributes:
        layer: a ``config.LAYERS`` name.
        removed: actions (the player's frame, 0..99) it took out of the policy's support.
        detail: a short human-readable note (e.g. ``"no-attack ratio 0.250 -> 0.438"``).
    """

    layer: str
    removed: tuple[int, ...] = ()
    detail: str = ""


@dataclass
class DecisionLog:
    """One decision of the agent.

    Attributes:
        ply: moves played before this decision.
        player: 0 Red, 1 Blue.
        step: ``"deploy"``, ``"select"`` or ``"displace"``.
        raw: ``float64[100]`` the network's policy over legal actions.
        final: ``float64[100]`` the policy after every layer.
        effects: one entry per layer that changed the observation or the policy, in order.
        value: the value head's estimate for the player (in [-1, 1]), if known.
        action: the action finally chosen (the player's frame), once known.
    """

    ply: int
    player: int
    step: str
    raw: np.ndarray
    final: np.ndarray
    effects: list[LayerEffect] = field(default_factory=list)
    value: float | None = None
    action: int | None = None

    def changed(self, layer: str) -> bool:
        """True when ``layer`` removed an action or changed something in this decision."""
        return any(e.layer == layer for e in self.effects)

    def to_dict(self) -> dict:
        """A JSON-ready dict (policies as ``{square name: probability}`` over their support)."""
        return {
            "ply": self.ply, "player": self.player, "step": self.step, "value": self.value,
            "action": None if self.action is None else self._name(self.action),
            "raw": self._support(self.raw), "final": self._support(self.final),
            "effects": [{"layer": e.layer, "removed": [self._name(a) for a in e.removed], "detail": e.detail}
                        for e in self.effects],
        }

    def _name(self, action: int) -> str:
        return square_name(action_to_square(int(action), self.player))

    def _support(self, policy: np.ndarray) -> dict[str, float]:
        order = np.argsort(-policy, kind="stable")
        return {self._name(a): round(float(policy[a]), 4) for a in order if policy[a] > 0}


def format_decision(log: DecisionLog, top: int = 5) -> str:
    """A few lines describing ``log``: step, value, the top actions before and after, each layer's effect."""
    who = ("Red", "Blue")[log.player]
    head = f"ply {log.ply} {who} {log.step}"
    if log.value is not None:
        head += f"  value {log.value:+.3f}"
    if log.action is not None:
        head += f"  -> {log._name(log.action)}"

    def best(policy: np.ndarray) -> str:
        items = list(log._support(policy).items())
        more = f" (+{len(items) - top} more)" if len(items) > top else ""
        return " ".join(f"{k} {v:.3f}" for k, v in items[:top]) + more

    lines = [head, f"  raw:   {best(log.raw)}", f"  final: {best(log.final)}"]
    for e in log.effects:
        removed = " removed " + ",".join(log._name(a) for a in e.removed) if e.removed else ""
        lines.append(f"  {e.layer}:{removed}{' ' + e.detail if e.detail else ''}")
    return "\n".join(lines)


def explain_to(agent: object, write, as_json: bool = False) -> bool:
    """Send every decision of ``agent`` to ``write(text)``: ``format_decision`` lines, or one JSON object
    per line with ``as_json``.  Returns False (and does nothing) for agents that keep no decision log
    (only the network agent does)."""
    if not hasattr(agent, "on_decision"):
        return False
    if as_json:
        import json

        agent.on_decision = lambda log: write(json.dumps(log.to_dict()) + "\n")
    else:
        agent.on_decision = lambda log: write(format_decision(log) + "\n")
    return True
