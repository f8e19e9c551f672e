"""The search's policy improvement: one regularised step from the prior towards the estimated ``Q``."""

from __future__ import annotations

import math

from ...game import Move


def improve(prior: dict[Move, float], q: dict[Move, float], alpha: float, tau: float) -> dict[Move, float]:
    """The regularised improvement step ``pi'(a) ∝ exp((log pi(a) + alpha Q(a)) / (1 + alpha tau))``.

    Args:
        prior: ``pi`` over the moves (positive entries; zero-probability moves stay at zero).
        q: ``Q`` of some of the moves; the others take the ``pi``-weighted mean of these.

    Returns:
        ``pi'`` over the moves of ``prior``, summing to 1.

    Raises:
        ValueError: ``prior`` is empty or has no positive entry, or ``q`` names a move not in ``prior``.
    """
    if not prior or max(prior.values()) <= 0:
        raise ValueError("the prior needs a move of positive probability")
    if not set(q) <= set(prior):
        raise ValueError(f"Q given for moves outside the prior: {sorted(map(str, set(q) - set(prior)))}")
    mass = sum(prior[m] for m in q)
    baseline = sum(prior[m] * q[m] for m in q) / mass if mass > 0 else 0.0
    logits = {m: (math.log(p) + alpha * q.get(m, baseline)) / (1 + alpha * tau)
              for m, p in prior.items() if p > 0}
    top = max(logits.values())
    weights = {m: math.exp(v - top) for m, v in logits.items()}
    total = sum(weights.values())
    return {m: weights.get(m, 0.0) / total for m in prior}
