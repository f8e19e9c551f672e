"""Confidence intervals and ratings for match results.

* ``wilson``: the Wilson score interval for a binomial proportion
  (E. B. Wilson, 1927), better behaved than the normal interval near 0 and 1.
* ``bradley_terry``: Bradley–Terry strengths fitted by the MM algorithm
  (Hunter, 2004, "MM algorithms for generalized Bradley–Terry models"), a draw
  counting as half a win for each side and one virtual draw per pair that
  played keeping perfect scores finite; reported on the Elo scale
  (``400 * log10(strength)``), centred on a mean of 0.
* ``rating_intervals``: percentile bootstrap of those ratings, resampling each
  pair's games.
"""

from __future__ import annotations

import math

import numpy as np


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """``(low, high)``: Wilson score interval of ``successes / n`` (95% for ``z=1.96``); ``(0, 1)`` when ``n == 0``.

    Raises:
        ValueError: ``successes`` outside ``0..n``.
    """
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in 0..n, got {successes} of {n}")
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def bradley_terry(wdl: np.ndarray, iterations: int = 2000, tol: float = 1e-10) -> np.ndarray:
    """Elo-scale ratings ``float64[K]`` from ``wdl: float[K, K, 3]`` (wins, draws, losses of row vs column).

    The score of ``i`` over ``j`` is ``wins + draws/2 + 1/2`` (the last half is
    the virtual draw); ratings are centred on a mean of 0.  Agents that met
    nobody get 0.
    """
    wdl = np.asarray(wdl, dtype=np.float64)
    games = wdl.sum(axis=2) + wdl.sum(axis=2).T
    met = games > 0
    # score[i, j]: i's wins and half draws against j, over the games filed under (i, j) and (j, i).
    score = wdl[..., 0] + wdl[..., 1] / 2 + (wdl[..., 2] + wdl[..., 1] / 2).T
    w = np.where(met, score + 0.5, 0.0)
    n = np.where(met, games + 1.0, 0.0)
    gamma = np.ones(len(wdl))
    for _ in range(iterations):
        denom = (n / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = np.where(denom > 0, w.sum(axis=1) / np.where(denom > 0, denom, 1.0), 1.0)
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - gamma)) < tol:
            gamma = new
            break
        gamma = new
    ratings = 400 * np.log10(gamma)
    return ratings - ratings.mean()


def rating_intervals(
    wdl: np.ndarray, samples: int = 200, level: float = 0.95, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rating, low, high)``: ``bradley_terry`` ratings and percentile-bootstrap bounds (each ``float64[K]``)."""
    wdl = np.asarray(wdl, dtype=np.float64)
    rng = np.random.default_rng(seed)
    base = bradley_terry(wdl)
    draws = np.empty((samples, len(wdl)))
    for s in range(samples):
        boot = np.zeros_like(wdl)
        for i in range(len(wdl)):
            for j in range(len(wdl)):
                n = int(wdl[i, j].sum())
                if n:
                    boot[i, j] = rng.multinomial(n, wdl[i, j] / n)
        draws[s] = bradley_terry(boot, iterations=500, tol=1e-8)
    tail = (1 - level) / 2 * 100
    return base, np.percentile(draws, tail, axis=0), np.percentile(draws, 100 - tail, axis=0)
