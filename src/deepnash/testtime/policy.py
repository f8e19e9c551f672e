"""Policy post-processing at test time: removing actions, thresholding and discretisation.

Source: the DeepNash paper (arXiv), supplementary "Post-processing of
policy" and Table 5; ``docs/test-time.md`` §5.  Thresholding and
discretisation are the learner's own fine-tuning projection
(``deepnash.rnad.projection``) run with the test-time parameters of the
phase: ``eps_thres`` 0.03 in both phases, ``n_disc`` 32 in deployment and 16
in play.
"""

from __future__ import annotations

import numpy as np
import torch

from ..rnad.projection import discretise, threshold
from .config import TestTimeConfig

PHASES = ("deploy", "play")


def check_policy(policy: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate a policy over the 100 actions and its legal-action mask.

    Returns ``(float64[100], bool[100])`` copies.

    Raises:
        ValueError: wrong shapes, negative or non-finite entries, no legal
            action, or probability on an illegal action.
    """
    p = np.asarray(policy, dtype=np.float64).reshape(-1)
    m = np.asarray(legal, dtype=bool).reshape(-1)
    if p.shape != (100,) or m.shape != (100,):
        raise ValueError(f"policy and legal mask must have 100 entries, got {p.shape[0]} and {m.shape[0]}")
    if not np.all(np.isfinite(p)) or p.min() < 0:
        raise ValueError("policy has negative or non-finite entries")
    if not m.any():
        raise ValueError("the legal-action mask has no legal action")
    if np.any(p[~m] > 0):
        bad = np.flatnonzero((p > 0) & ~m)[:5].tolist()
        raise ValueError(f"policy puts probability on illegal actions {bad}")
    if p.sum() <= 0:
        raise ValueError("policy has no probability on any legal action")
    return p / p.sum(), m


def remove_actions(policy: np.ndarray, remove: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Take the ``remove: bool[100]`` actions out of ``policy: float64[100]`` if anything else remains.

    Returns the renormalised policy and the mask of actions actually removed
    (all ``False`` when removing would leave no legal-looking support, i.e.
    the "unless the agent has no alternative" clause of the paper).
    """
    keep = policy * ~remove
    if keep.sum() <= 0:
        return policy, np.zeros_like(remove)
    return keep / keep.sum(), remove & (policy > 0)


def project(policy: np.ndarray, phase: str, config: TestTimeConfig) -> tuple[np.ndarray, np.ndarray]:
    """Threshold then discretise a policy with the phase's parameters (layers that are off are skipped).

    Args:
        policy: ``float64[100]`` probabilities (sum 1).
        phase: ``"deploy"`` or ``"play"``.

    Returns:
        ``(thresholded, projected)``: the policy after each of the two steps.

    Raises:
        ValueError: for an unknown ``phase``.
    """
    if phase not in PHASES:
        raise ValueError(f"phase {phase!r}: expected one of {PHASES}")
    eps = config.eps_thres_deploy if phase == "deploy" else config.eps_thres_play
    quanta = config.n_disc_deploy if phase == "deploy" else config.n_disc_play
    t = torch.from_numpy(policy)
    if config.threshold:
        t = threshold(t, eps)
    thresholded = t.numpy().copy()
    if config.discretize:
        t = discretise(t, quanta)
    return thresholded, t.numpy().copy()
