"""Eagerness: make the agent feel the no-attack draw coming sooner.

Source: the DeepNash paper (arXiv), supplementary "Avoid repetitive play",
item "Eagerness", and Table 5 (``alpha_eag = 2``); ``docs/test-time.md`` §1.
The observation's no-attack ratio ``r`` (plane 78: moves since the last
attack / the variant's limit) is replaced by ``r' = 1 - (1 - r)**alpha_eag``.
"""

from __future__ import annotations

import numpy as np

from ..env.planes import NUM_PLANES, P_NO_ATTACK


def eager_ratio(r: float | np.ndarray, alpha: float) -> np.ndarray:
    """``1 - (1 - r)**alpha`` for ratios ``r`` in [0, 1] (0 stays 0, 1 stays 1).

    Raises:
        ValueError: ``alpha <= 0`` or a ratio outside [0, 1].
    """
    if not alpha > 0:
        raise ValueError(f"alpha_eag = {alpha!r}: must be > 0")
    r = np.asarray(r, dtype=np.float64)
    if np.any((r < 0) | (r > 1)) or not np.all(np.isfinite(r)):
        raise ValueError(f"no-attack ratio must lie in [0, 1], got {r.min()!r}..{r.max()!r}")
    return 1.0 - (1.0 - r) ** alpha


def apply_eagerness(obs: np.ndarray, alpha: float) -> np.ndarray:
    """Rewrite plane 78 of ``obs: float32[..., 82, 10, 10]`` with ``eager_ratio`` (returns a new array).

    Raises:
        ValueError: ``obs`` does not have 82 planes of 10x10, or plane 78 is out of [0, 1].
    """
    obs = np.asarray(obs, dtype=np.float32)
    if obs.shape[-3:] != (NUM_PLANES, 10, 10):
        raise ValueError(f"observation must end in ({NUM_PLANES}, 10, 10), got {obs.shape}")
    out = obs.copy()
    out[..., P_NO_ATTACK, :, :] = eager_ratio(obs[..., P_NO_ATTACK, :, :], alpha).astype(np.float32)
    return out
