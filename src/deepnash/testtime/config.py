"""Which test-time layers run, with the paper's parameters.

Source: the DeepNash paper (arXiv version), supplementary "Test Time
Improvements" and Table 5; ``docs/test-time.md``.  Every layer is on by
default so that the shipped agent plays as the paper's did; each can be
switched off alone so the arena can measure what it is worth.  Every field
is an option of the network agent's spec (``shipped:value_bounds=off,eps_vb=0.1``;
``agents.registry`` reads them from this dataclass).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


def option(default, text: str):
    """A config dataclass field with ``default`` and one line of help, ``metadata["help"]`` (what ``deepnash agents
    SPEC`` shows): what it does, its unit and range."""
    return field(default=default, metadata={"help": text})


#: The layers' switches, in the order they apply, e.g. ``shipped:threshold=off,value_bounds=off``.
LAYERS = ("threshold", "discretize", "eagerness", "threats", "memory", "value_bounds")


@dataclass(frozen=True)
class TestTimeConfig:
    """The test-time layer's switches and parameters (paper Table 5 defaults).

    Attributes:
        threshold: drop actions below ``eps_thres_*`` and renormalise (paper "Thresholding").
        discretize: round probabilities onto multiples of ``1/n_disc_*`` (paper "Discretization").
        eagerness: feed the network ``r' = 1 - (1 - r)**alpha_eag`` for the no-attack ratio ``r``.
        threats: avoid pointless threats (paper "Avoid pointless threats").
        memory: the memory heuristic's per-piece type eliminations in both Pub tensors.
        value_bounds: remove actions whose two-step value upper bound is below ``v(x) - eps_vb``.
        eps_thres_deploy, eps_thres_play: thresholds of the deployment and play phases (0.03, 0.03).
        n_disc_deploy, n_disc_play: discretisation quanta of the two phases (32, 16).
        alpha_eag: the eagerness exponent (2.0); 1.0 leaves ``r`` unchanged.
        eps_vb: the value-bounds margin (0.05), in units of the value head (returns in [-1, 1]).
        free_threats: back-and-forth threats allowed before the pointless-threat rule bites (3).
    """

    __test__ = False  # not a pytest test class

    threshold: bool = option(True, "drop actions below eps_thres_* and renormalise (with search: deployment only)")
    discretize: bool = option(True, "round probabilities onto multiples of 1/n_disc_* (with search: deployment only)")
    eagerness: bool = option(True, "feed the network 1 - (1 - r)**alpha_eag for the no-attack ratio r")
    threats: bool = option(True, "avoid pointless threats")
    memory: bool = option(True, "the memory heuristic's type eliminations in the observation")
    value_bounds: bool = option(True, "remove actions whose two-step value bound is below v - eps_vb (not with search)")
    eps_thres_deploy: float = option(0.03, "threshold of the deployment phase, in [0, 1)")
    eps_thres_play: float = option(0.03, "threshold of the play phase, in [0, 1)")
    n_disc_deploy: int = option(32, "discretisation quanta of the deployment phase, >= 1")
    n_disc_play: int = option(16, "discretisation quanta of the play phase, >= 1")
    alpha_eag: float = option(2.0, "eagerness exponent, > 0 (1: no change)")
    eps_vb: float = option(0.05, "value-bounds margin in value units, >= 0")
    free_threats: int = option(3, "back-and-forth threats allowed before the pointless-threat rule bites, >= 0")

    def __post_init__(self) -> None:
        for name in ("eps_thres_deploy", "eps_thres_play"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ValueError(f"{name} = {getattr(self, name)!r}: must be in [0, 1)")
        for name in ("n_disc_deploy", "n_disc_play"):
            if int(getattr(self, name)) != getattr(self, name) or getattr(self, name) < 1:
                raise ValueError(f"{name} = {getattr(self, name)!r}: must be an integer >= 1")
        if not self.alpha_eag > 0.0:
            raise ValueError(f"alpha_eag = {self.alpha_eag!r}: must be > 0")
        if not self.eps_vb >= 0.0:
            raise ValueError(f"eps_vb = {self.eps_vb!r}: must be >= 0")
        if self.free_threats < 0:
            raise ValueError(f"free_threats = {self.free_threats!r}: must be >= 0")

    @classmethod
    def all_off(cls) -> "TestTimeConfig":
        """Every layer off: the network's raw policy is played."""
        return cls(**{name: False for name in LAYERS})

    def without(self, layer: str) -> "TestTimeConfig":
        """This configuration with one layer switched off (for the arena's ablations).

        Raises:
            ValueError: ``layer`` is not one of ``LAYERS``.
        """
        if layer not in LAYERS:
            raise ValueError(f"unknown test-time layer {layer!r}; layers: {', '.join(LAYERS)}")
        return replace(self, **{layer: False})

    def enabled(self) -> tuple[str, ...]:
        """The names of the layers that are on, in ``LAYERS`` order."""
        return tuple(name for name in LAYERS if getattr(self, name))
