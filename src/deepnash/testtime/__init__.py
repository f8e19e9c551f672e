"""The test-time layer: what DeepNash adds to its network's policy when it plays (``docs/test-time.md``).

One module per layer: ``policy`` (thresholding and discretisation, the
learner's projection with the test-time parameters), ``eagerness``,
``threats`` (no pointless threats), ``memory`` (the memory heuristic),
``value_bounds`` (two-step look-ahead with the value network); ``search``
(belief-sampled rollouts and a regularised policy-improvement step, the
network agent's ``search=on``), with ``candidates`` (the moves it weighs:
guards that drop moves, moves it always adds), ``leaf`` (how it scores a
leaf), ``belief`` (a learned sampler), ``clock`` (a game clock) and the Flag's
defence (``flag_guard``, ``raid_solve``); ``layer``
ties them together for the network agent, ``explain`` logs each decision and
``config`` holds the switches and parameters (``TestTimeConfig``).
"""

from .config import LAYERS, TestTimeConfig
from .explain import DecisionLog, LayerEffect, explain_to, format_decision
from .layer import LayerStats, TestTimeLayer, TurnPlan

__all__ = [
    "LAYERS", "DecisionLog", "LayerEffect", "LayerStats", "TestTimeConfig", "TestTimeLayer",
    "TurnPlan", "explain_to", "format_decision",
]
