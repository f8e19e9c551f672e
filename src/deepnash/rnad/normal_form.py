"""Normal-form R-NaD: reward transform, replicator dynamics to the fixed point, regularisation update.

Source: DeepNash (Science 2022 / arXiv), "R-NaD" in normal-form games and
Fig. 3 (matching pennies from pi_reg = [0.999, 0.001], eta = 0.2);
``docs/rnad.md`` §1. Exact up to the integrator's step (RK4 on log-policies).

Player 0 chooses the row of ``payoff`` and receives ``payoff[a0, a1]``;
player 1 chooses the column and receives ``-payoff[a0, a1]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MATCHING_PENNIES = np.array([[1.0, -1.0], [-1.0, 1.0]])
"""Matching pennies, actions [H, T]: player 0 wins 1 when the coins match (the paper's Fig. 3A)."""


@dataclass(frozen=True)
class Iteration:
    """One R-NaD iteration of a normal-form game.

    Attributes:
        regularisation: ``(pi_reg^0 [n0], pi_reg^1 [n1])``, also where the dynamics start.
        fixed_point: ``(pi_fix^0, pi_fix^1)`` of the dynamics on the transformed reward.
        times: ``[K]`` dynamics time tau of each recorded point (from 0).
        path: ``(pi^0 [K, n0], pi^1 [K, n1])`` policies along the dynamics.
        lyapunov: ``[K]`` ``H(pi) = sum_i KL(pi_fix^i || pi^i)`` along the path.
    """

    regularisation: tuple[np.ndarray, np.ndarray]
    fixed_point: tuple[np.ndarray, np.ndarray]
    times: np.ndarray
    path: tuple[np.ndarray, np.ndarray]
    lyapunov: np.ndarray


def _distribution(x: np.ndarray, name: str, n: int) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.shape != (n,) or np.any(x <= 0) or not np.isclose(x.sum(), 1.0, atol=1e-9):
        raise ValueError(f"{name} must be {n} positive probabilities summing to 1, got {x.tolist()}")
    return x / x.sum()


def transformed_fitness(payoff: np.ndarray, pi: tuple[np.ndarray, np.ndarray],
                        reg: tuple[np.ndarray, np.ndarray], eta: float) -> tuple[np.ndarray, np.ndarray]:
    """``Q^i(a) = E_{a^-i ~ pi^-i} r^i(pi, a, a^-i)`` under the reward transform (``docs/rnad.md`` §1).

    The opponent's ``+eta log(pi^-i / pi_reg^-i)`` term is the same for every
    action of i; it is included so the values are the transformed game's.
    """
    p, q = pi
    kl_p = float(np.sum(p * np.log(p / reg[0])))
    kl_q = float(np.sum(q * np.log(q / reg[1])))
    q0 = payoff @ q - eta * np.log(p / reg[0]) + eta * kl_q
    q1 = -(payoff.T @ p) - eta * np.log(q / reg[1]) + eta * kl_p
    return q0, q1


def _normalise(lg: np.ndarray) -> np.ndarray:
    top = lg.max()
    return lg - (top + np.log(np.exp(lg - top).sum()))


def _field(payoff, logs, reg, eta):
    pi = tuple(np.exp(_normalise(lg)) for lg in logs)
    fit = transformed_fitness(payoff, pi, reg, eta)
    # Replicator dynamics in log space: d log pi(a) / dtau = Q(a) - sum_b pi(b) Q(b).
    return tuple(f - np.dot(p, f) for f, p in zip(fit, pi))


def replicator_fixed_point(payoff: np.ndarray, reg: tuple[np.ndarray, np.ndarray], eta: float, *,
                           dt: float = 0.05, tol: float = 1e-10, max_time: float = 2_000.0
                           ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Integrate the replicator dynamics from ``reg`` until the field is below ``tol``.

    Returns:
        ``(times [K], (pi^0 [K, n0], pi^1 [K, n1]))``; the last point is the fixed point.

    Raises:
        RuntimeError: if the dynamics have not converged by ``max_time``.
    """
    logs = tuple(np.log(r) for r in reg)
    times, path0, path1 = [0.0], [reg[0]], [reg[1]]
    tau = 0.0
    while True:
        k1 = _field(payoff, logs, reg, eta)
        if max(np.abs(k).max() for k in k1) < tol:
            return np.array(times), (np.array(path0), np.array(path1))
        if tau >= max_time:
            raise RuntimeError(f"replicator dynamics did not converge to tol {tol} by tau = {max_time}")
        k2 = _field(payoff, tuple(lg + 0.5 * dt * k for lg, k in zip(logs, k1)), reg, eta)
        k3 = _field(payoff, tuple(lg + 0.5 * dt * k for lg, k in zip(logs, k2)), reg, eta)
        k4 = _field(payoff, tuple(lg + dt * k for lg, k in zip(logs, k3)), reg, eta)
        logs = tuple(lg + dt / 6 * (a + 2 * b + 2 * c + d) for lg, a, b, c, d in zip(logs, k1, k2, k3, k4))
        logs = tuple(_normalise(lg) for lg in logs)
        tau += dt
        times.append(tau)
        path0.append(np.exp(logs[0]))
        path1.append(np.exp(logs[1]))


def lyapunov(fixed: tuple[np.ndarray, np.ndarray], path: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """``H(pi) = sum_i KL(pi_fix^i || pi^i)`` for each row of the path, ``[K]``."""
    return sum(np.sum(f * (np.log(f) - np.log(p)), axis=-1) for f, p in zip(fixed, path))


def run(payoff: np.ndarray = MATCHING_PENNIES, start: tuple[np.ndarray, np.ndarray] | None = None,
        eta: float = 0.2, iterations: int = 3, dt: float = 0.05) -> list[Iteration]:
    """Normal-form R-NaD: ``iterations`` rounds of dynamics to the fixed point, then pi_reg <- pi_fix.

    Args:
        payoff: ``[n0, n1]`` player 0's payoff (player 1 gets its negation).
        start: initial regularisation policies; default uniform.
        eta: reward-transform strength (> 0).
        iterations: number of R-NaD iterations (>= 1).
        dt: integrator step in dynamics time.

    Raises:
        ValueError: on a malformed payoff, start policy, eta or iteration count.
    """
    payoff = np.asarray(payoff, dtype=np.float64)
    if payoff.ndim != 2 or min(payoff.shape) < 1 or not np.all(np.isfinite(payoff)):
        raise ValueError(f"payoff must be a finite [n0, n1] matrix, got shape {payoff.shape}")
    n0, n1 = payoff.shape
    if start is None:
        start = (np.full(n0, 1.0 / n0), np.full(n1, 1.0 / n1))
    reg = (_distribution(start[0], "start policy of player 0", n0), _distribution(start[1], "start policy of player 1", n1))
    if not eta > 0:
        raise ValueError(f"eta = {eta!r}: must be > 0")
    if iterations < 1:
        raise ValueError(f"iterations = {iterations!r}: must be >= 1")
    out = []
    for _ in range(iterations):
        times, path = replicator_fixed_point(payoff, reg, eta, dt=dt)
        fixed = (path[0][-1], path[1][-1])
        out.append(Iteration(reg, fixed, times, path, lyapunov(fixed, path)))
        reg = fixed
    return out
