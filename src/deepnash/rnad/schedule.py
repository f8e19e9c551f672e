"""The entropy schedule: where a learner step falls among the R-NaD iterations.

Source: DeepNash (arXiv) R-NaD section, the interpolation
``alpha_n = min(1, 2n / Delta_m)`` between the reward transforms of the
previous and the current regularisation policies; ``docs/rnad.md`` §3.
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import ScheduleConfig


@dataclass(frozen=True)
class SchedulePoint:
    """Position of one learner step in the schedule.

    Attributes:
        iteration: R-NaD iteration index m (0-based).
        step_in_iteration: n, learner steps since iteration m began (0-based).
        iteration_size: Delta_m, the length of iteration m in learner steps.
        alpha: ``min(1, 2n / Delta_m)``, weight of the current regularisation policy.
        switch: True at the last step of the iteration, after whose update
            ``theta_reg_prev <- theta_reg`` and ``theta_reg <- theta_target``.
    """

    iteration: int
    step_in_iteration: int
    iteration_size: int
    alpha: float
    switch: bool


def schedule_point(config: ScheduleConfig, learner_step: int) -> SchedulePoint:
    """Locate ``learner_step`` (0-based count of updates done so far) in the schedule.

    Raises:
        ValueError: if ``learner_step`` is negative.
    """
    if learner_step < 0:
        raise ValueError(f"learner_step = {learner_step}: must be >= 0")
    start, iteration = 0, 0
    runs = list(zip(config.sizes, config.repeats))
    for k, (size, repeats) in enumerate(runs):
        last_run = k == len(runs) - 1
        span = size * repeats
        if last_run or learner_step < start + span:
            done = (learner_step - start) // size
            iteration += done
            n = learner_step - start - done * size
            return SchedulePoint(iteration, n, size, min(1.0, 2.0 * n / size), n == size - 1)
        start += span
        iteration += repeats
    raise AssertionError("unreachable: the last run repeats forever")
