"""Normal-form R-NaD: the paper's matching-pennies fixed points and an independent fixed-point solve."""

import json
import subprocess
import sys

import numpy as np
import pytest

from deepnash.rnad.normal_form import MATCHING_PENNIES, run

# DeepNash (Science 2022 and arXiv), Fig. 3 text: from pi_reg = [0.999, 0.001], eta = 0.2, the first
# fixed point is pi^0 = [0.896, 0.104], pi^1 = [0.263, 0.737]. (The exact value of pi^0(H) is
# 0.89690...: the paper truncates it; it agrees to within 1e-3.)
PAPER_FIRST_FIXED_POINT = [[0.896, 0.104], [0.263, 0.737]]


def best_response_fixed_point(payoff, reg, eta, iters=4000):
    """Independent check, no dynamics: the fixed point satisfies pi^i(a) ~ pi_reg^i(a) exp(Q_game^i(a) / eta),
    solved by damped fixed-point iteration of that closed form."""
    p, q = reg[0].copy(), reg[1].copy()
    for _ in range(iters):
        p_new = reg[0] * np.exp(payoff @ q / eta)
        p_new /= p_new.sum()
        q_new = reg[1] * np.exp(-(payoff.T @ p) / eta)
        q_new /= q_new.sum()
        p, q = 0.95 * p + 0.05 * p_new, 0.95 * q + 0.05 * q_new
    return p, q


def test_cli_prints_the_papers_matching_pennies_fixed_points():
    out = subprocess.run([sys.executable, "-c", "from deepnash.cli import app; app()", "normal-form", "--json"],
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    assert len(result["iterations"]) == 3
    first = np.array(result["iterations"][0]["fixed_point"])
    np.testing.assert_allclose(first, PAPER_FIRST_FIXED_POINT, atol=1e-3)
    # Each iteration's fixed point is the closed-form fixed point for its regularisation policy.
    for row in result["iterations"]:
        reg = tuple(np.array(r) for r in row["regularisation"])
        p, q = best_response_fixed_point(MATCHING_PENNIES, reg, 0.2)
        np.testing.assert_allclose(row["fixed_point"], [p, q], atol=1e-6)
    # The next iteration starts from the previous fixed point.
    for a, b in zip(result["iterations"], result["iterations"][1:]):
        np.testing.assert_allclose(b["regularisation"], a["fixed_point"])


def test_lyapunov_decreases_at_rate_eta_and_fixed_points_approach_nash():
    rng = np.random.default_rng(3)
    payoff = rng.normal(size=(3, 2))
    start = (np.array([0.7, 0.2, 0.1]), np.array([0.9, 0.1]))
    eta = 0.5
    its = run(payoff, start, eta=eta, iterations=4)
    for it in its:
        big = it.lyapunov > 1e-9
        # d/dtau H <= -eta H  =>  H(tau) <= H(0) exp(-eta tau)
        assert np.all(it.lyapunov[big] <= it.lyapunov[0] * np.exp(-eta * it.times[big]) * (1 + 1e-6))
        p, q = best_response_fixed_point(payoff, it.regularisation, eta)
        np.testing.assert_allclose(it.fixed_point[0], p, atol=1e-6)
        np.testing.assert_allclose(it.fixed_point[1], q, atol=1e-6)
    # Exploitability of the fixed points in the original game decreases.
    def nash_conv(p, q):
        return float((payoff @ q).max() - p @ payoff @ q + p @ payoff @ q - (p @ payoff).min())
    gaps = [nash_conv(*it.fixed_point) for it in its]
    assert gaps[-1] < gaps[0]


def test_bad_arguments():
    with pytest.raises(ValueError, match="player 0"):
        run(MATCHING_PENNIES, (np.array([0.5, 0.6]), np.array([0.5, 0.5])))
    with pytest.raises(ValueError, match="eta"):
        run(MATCHING_PENNIES, eta=0.0)
    with pytest.raises(ValueError, match="payoff"):
        run(np.zeros(3))
