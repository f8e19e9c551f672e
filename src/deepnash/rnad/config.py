"""Frozen configuration of the R-NaD learner; defaults are the paper's (Table 3).

Sources: DeepNash, arXiv version, "Methods: additional information", Table 3
(hyperparameters) and the R-NaD section (iteration schedule); ``docs/rnad.md``
sections 2, 4, 5 and 6. Every class validates itself on construction and
raises :class:`ValueError` naming the offending field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


def _check(ok: bool, owner: str, name: str, value: object, rule: str) -> None:
    if not ok:
        raise ValueError(f"{owner}.{name} = {value!r}: must be {rule}")


@dataclass(frozen=True)
class AdamConfig:
    """Adam with element-wise update clipping (``docs/rnad.md`` §4, Table 3).

    Attributes:
        learning_rate: step size (paper: 5e-5).
        b1: first-moment decay; the paper uses 0 (no momentum).
        b2: second-moment decay (paper: 0.999).
        eps: added to the root of the second moment (paper: 1e-8).
        clip: every element of the update (after scaling by the learning
            rate) is clipped to ``[-clip, clip]`` (paper c_clip_gradient: 10000).
    """

    learning_rate: float = 5e-5
    b1: float = 0.0
    b2: float = 0.999
    eps: float = 1e-8
    clip: float = 10_000.0

    def __post_init__(self) -> None:
        _check(self.learning_rate > 0, "AdamConfig", "learning_rate", self.learning_rate, "> 0")
        _check(0 <= self.b1 < 1, "AdamConfig", "b1", self.b1, "in [0, 1)")
        _check(0 <= self.b2 < 1, "AdamConfig", "b2", self.b2, "in [0, 1)")
        _check(self.eps > 0, "AdamConfig", "eps", self.eps, "> 0")
        _check(self.clip > 0, "AdamConfig", "clip", self.clip, "> 0")


@dataclass(frozen=True)
class NeuRDConfig:
    """The NeuRD policy loss (``docs/rnad.md`` §4, Table 3).

    Attributes:
        beta: half-width of the band on legal-mean-centred logits inside which
            the advantage pushes a logit (paper: 2.0).
        clip: advantages are clipped to ``[-clip, clip]`` (paper c_clip_neurd: 10000).
    """

    beta: float = 2.0
    clip: float = 10_000.0

    def __post_init__(self) -> None:
        _check(self.beta > 0, "NeuRDConfig", "beta", self.beta, "> 0")
        _check(self.clip > 0, "NeuRDConfig", "clip", self.clip, "> 0")


@dataclass(frozen=True)
class FineTuneConfig:
    """Policy projection used by v-trace from a given learner step on (``docs/rnad.md`` §6).

    Attributes:
        from_step: first learner step at which the projection is applied;
            ``None`` (the default) never applies it.
        threshold: probabilities below it are dropped (paper eps_thres: 0.03).
        quanta: number of probability quanta of the discretisation (paper n_disc: 32).
    """

    from_step: int | None = None
    threshold: float = 0.03
    quanta: int = 32

    def __post_init__(self) -> None:
        _check(self.from_step is None or self.from_step >= 0, "FineTuneConfig", "from_step",
               self.from_step, "None or >= 0")
        _check(0 <= self.threshold < 1, "FineTuneConfig", "threshold", self.threshold, "in [0, 1)")
        _check(self.quanta >= 1, "FineTuneConfig", "quanta", self.quanta, ">= 1")

    def active(self, learner_step: int) -> bool:
        """Whether the projection applies at ``learner_step``."""
        return self.from_step is not None and learner_step >= self.from_step


@dataclass(frozen=True)
class ScheduleConfig:
    """Lengths of the R-NaD iterations (``docs/rnad.md`` §3).

    Iteration sizes are given as runs: ``sizes[k]`` learner steps, repeated
    ``repeats[k]`` times; the last size then repeats forever. The paper's
    schedule is 100 iterations of 10k steps, 65 of 100k, then 35k ones (the
    first 166 iterations make 7.535M steps; the paper's run stopped at 7.21M,
    inside the 100k phase).

    Attributes:
        sizes: learner steps per iteration, one per run (each >= 1).
        repeats: how many iterations each run lasts (each >= 1), same length as ``sizes``.
    """

    sizes: tuple[int, ...] = (10_000, 100_000, 35_000)
    repeats: tuple[int, ...] = (100, 65, 1)

    def __post_init__(self) -> None:
        _check(len(self.sizes) >= 1, "ScheduleConfig", "sizes", self.sizes, "non-empty")
        _check(len(self.sizes) == len(self.repeats), "ScheduleConfig", "repeats", self.repeats,
               f"the same length as sizes ({len(self.sizes)})")
        _check(all(int(s) == s and s >= 1 for s in self.sizes), "ScheduleConfig", "sizes",
               self.sizes, "integers >= 1")
        _check(all(int(r) == r and r >= 1 for r in self.repeats), "ScheduleConfig", "repeats",
               self.repeats, "integers >= 1")


@dataclass(frozen=True)
class RNaDConfig:
    """Everything the learner needs besides the network (Table 3 defaults).

    Attributes:
        eta: strength of the reward transform (paper: 0.2).
        gamma_avg: step of the target network's moving average (paper: 0.001).
        rho_bar: v-trace clip on the value-target importance weight. The
            paper's table says 1; the reference implementation uses infinity
            and its maintainers confirmed it (OpenSpiel issue 968): default inf.
        c_bar: v-trace clip on the trace-cutting weight (paper: 1).
        batch_size: full trajectories per learner step (paper: 768); used by
            actors, not by the learner, which takes whatever batch it is given.
        max_trajectory_length: t_max, steps per trajectory (paper: 3600); used by actors.
        schedule: iteration lengths.
        adam: optimiser.
        neurd: policy loss.
        finetune: fine-tuning projection.
        hold_reg_iterations: iterations after the first during which the regularisation policies
            stay the network the learner started from (0: the paper's schedule, where each iteration's
            end moves them to the target network).  With a behaviour-cloned start, this keeps
            self-play regularised towards how people play for that long (human-regularised RL,
            as piKL).
    """

    eta: float = 0.2
    gamma_avg: float = 0.001
    rho_bar: float = math.inf
    c_bar: float = 1.0
    batch_size: int = 768
    max_trajectory_length: int = 3600
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)
    adam: AdamConfig = field(default_factory=AdamConfig)
    neurd: NeuRDConfig = field(default_factory=NeuRDConfig)
    finetune: FineTuneConfig = field(default_factory=FineTuneConfig)
    hold_reg_iterations: int = 0

    def __post_init__(self) -> None:
        _check(self.eta > 0, "RNaDConfig", "eta", self.eta, "> 0")
        _check(self.hold_reg_iterations >= 0, "RNaDConfig", "hold_reg_iterations", self.hold_reg_iterations, ">= 0")
        _check(0 < self.gamma_avg <= 1, "RNaDConfig", "gamma_avg", self.gamma_avg, "in (0, 1]")
        _check(self.rho_bar > 0, "RNaDConfig", "rho_bar", self.rho_bar, "> 0")
        _check(self.c_bar > 0, "RNaDConfig", "c_bar", self.c_bar, "> 0")
        _check(self.batch_size >= 1, "RNaDConfig", "batch_size", self.batch_size, ">= 1")
        _check(self.max_trajectory_length >= 1, "RNaDConfig", "max_trajectory_length",
               self.max_trajectory_length, ">= 1")
