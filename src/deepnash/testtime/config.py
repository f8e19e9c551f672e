"""Which test-time layers run, with the paper's parameters, and the agent-spec options that switch them.

Source: the DeepNash paper (arXiv version), supplementary "Test Time
Improvements" and Table 5; ``spec/test_time.md``.  Every layer is on by
default so that the shipped agent plays as the paper's did; each can be
switched off alone so the arena can measure what it is worth.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

#: The switch names accepted in agent specs, e.g. ``shipped:threshold=off,value_bounds=off``.
LAYERS = ("threshold", "discretize", "eagerness", "threats", "memory", "value_bounds")

_ON = ("on", "1", "true", "yes")
_OFF = ("off", "0", "false", "no")


class TestTimeOptionError(ValueError):
    """An agent-spec option of the test-time layer that is unknown or has a bad value."""

    __test__ = False  # not a pytest test class


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

    threshold: bool = True
    discretize: bool = True
    eagerness: bool = True
    threats: bool = True
    memory: bool = True
    value_bounds: bool = True
    eps_thres_deploy: float = 0.03
    eps_thres_play: float = 0.03
    n_disc_deploy: int = 32
    n_disc_play: int = 16
    alpha_eag: float = 2.0
    eps_vb: float = 0.05
    free_threats: int = 3

    def __post_init__(self) -> None:
        for name in ("eps_thres_deploy", "eps_thres_play"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise TestTimeOptionError(f"{name} = {getattr(self, name)!r}: must be in [0, 1)")
        for name in ("n_disc_deploy", "n_disc_play"):
            if int(getattr(self, name)) != getattr(self, name) or getattr(self, name) < 1:
                raise TestTimeOptionError(f"{name} = {getattr(self, name)!r}: must be an integer >= 1")
        if not self.alpha_eag > 0.0:
            raise TestTimeOptionError(f"alpha_eag = {self.alpha_eag!r}: must be > 0")
        if not self.eps_vb >= 0.0:
            raise TestTimeOptionError(f"eps_vb = {self.eps_vb!r}: must be >= 0")
        if self.free_threats < 0:
            raise TestTimeOptionError(f"free_threats = {self.free_threats!r}: must be >= 0")

    @classmethod
    def all_off(cls) -> "TestTimeConfig":
        """Every layer off: the network's raw policy is played."""
        return cls(**{name: False for name in LAYERS})

    def without(self, layer: str) -> "TestTimeConfig":
        """This configuration with one layer switched off (for the arena's ablations).

        Raises:
            TestTimeOptionError: ``layer`` is not one of ``LAYERS``.
        """
        if layer not in LAYERS:
            raise TestTimeOptionError(f"unknown test-time layer {layer!r}; layers: {', '.join(LAYERS)}")
        return replace(self, **{layer: False})

    def enabled(self) -> tuple[str, ...]:
        """The names of the layers that are on, in ``LAYERS`` order."""
        return tuple(name for name in LAYERS if getattr(self, name))

    @classmethod
    def from_options(cls, options: Mapping[str, object]) -> "TestTimeConfig":
        """Build a configuration from agent-spec options (layer switches and parameters).

        Switch values may be ``on/off``, ``true/false``, ``yes/no``, ``1/0`` or a
        ``bool``; parameters (``eps_vb``, ``alpha_eag``, ...) are numbers or
        numeric strings.  ``discretise`` is accepted for ``discretize``.

        Raises:
            TestTimeOptionError: unknown option name or a value that cannot be read.
        """
        types = {f.name: f.type for f in fields(cls)}
        kwargs: dict[str, object] = {}
        for raw_key, value in options.items():
            key = str(raw_key).strip().lower().replace("-", "_")
            key = "discretize" if key == "discretise" else key
            if key not in types:
                raise TestTimeOptionError(
                    f"unknown test-time option {raw_key!r}; options: {', '.join(types)}"
                )
            kwargs[key] = _convert(key, value, types[key])
        return cls(**kwargs)


def _convert(key: str, value: object, kind: str) -> object:
    if kind == "bool":
        if isinstance(value, bool):
            return value
        low = str(value).strip().lower()
        if low in _ON:
            return True
        if low in _OFF:
            return False
        raise TestTimeOptionError(f"test-time option {key}={value!r}: expected on or off")
    try:
        return int(value) if kind == "int" else float(value)
    except (TypeError, ValueError):
        raise TestTimeOptionError(f"test-time option {key}={value!r}: expected a number") from None


def parse_options(text: str) -> TestTimeConfig:
    """Read ``"threshold=off,value_bounds=off,eps_vb=0.1"`` (the options part of an agent spec).

    Items without ``=`` are rejected; an empty string gives the defaults.

    Raises:
        TestTimeOptionError: an item that is not ``key=value``, or an unknown key or bad value.
    """
    options: dict[str, str] = {}
    for item in (p.strip() for p in text.split(",")):
        if not item:
            continue
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise TestTimeOptionError(f"test-time options {text!r}: item {item!r} is not key=value")
        options[key.strip()] = value.strip()
    return TestTimeConfig.from_options(options)
