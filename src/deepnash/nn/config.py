"""Network configuration and presets.

The paper (``docs/network.md``) fixes the widths (C=256 outer, 320 inner) and
the heads' block counts (policy heads N=1, M=0; value head N=0, M=0) but not
the torso's N and M; those, and all widths, are fields here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields


#: Network versions this deepnash builds and reads, and what each one's value head is.
NET_VERSIONS = {1: "scalar value head (squared error)", 2: "win/draw/loss value head (cross-entropy)",
                3: "win/draw/loss value head that also reads the public material counts"}


@dataclass(frozen=True)
class NetConfig:
    """Shape of a ``DeepNashNet``.

    Attributes:
        channels: torso outer width C (paper: 256); also the width of the embedding the heads read.
        inner_channels: torso inner width at 5×5 (paper: 320).
        torso_outer: torso N, outer resblocks at 10×10 (not given in the paper).
        torso_inner: torso M, inner resblocks at 5×5 (not given in the paper).
        head_channels: outer width of the four heads (paper: 256).
        head_outer: policy heads' N (paper: 1); the value head always uses N=0.
        relu_logits: apply ReLU to the policy logits as the paper states (default off:
            a ReLU on logits leaves every negative-preference action tied at 0).
        version: the network version, which fixes the value head (``docs/network.md``):
            1, a scalar (ReLU, then a linear map to one number), trained by squared error; 2, win,
            draw and loss logits (no ReLU), trained by cross-entropy on the result, the scalar value
            being P(win) - P(loss); 3, version 2 whose read-out also takes the material counts the
            observation states (``network.MATERIAL_FEATURES``), so that counting pieces is one linear
            map away.  A configuration stored without a version is version 1 (``from_dict``): every
            checkpoint written before versions existed.
        mirror_value: the value read for play and scoring (``DeepNashNet.value`` and ``value_probabilities``)
            is the mean over the position and its left-right mirror, the board's one symmetry (test-time
            augmentation, as AlphaGo averaged over the Go board's eight).  Not a shape: the weights are the
            same, ``forward`` and ``value_logits`` (what training reads) see the position as given, and
            ``deepnash export --mirror-value`` sets it on an exported agent.
    """

    channels: int = 256
    inner_channels: int = 320
    torso_outer: int = 2
    torso_inner: int = 2
    head_channels: int = 256
    head_outer: int = 1
    relu_logits: bool = False
    version: int = 2
    mirror_value: bool = False

    def __post_init__(self) -> None:
        if self.version not in NET_VERSIONS:
            raise ValueError(f"NetConfig.version must be one of {sorted(NET_VERSIONS)}, got {self.version!r}")
        for name in ("channels", "inner_channels", "head_channels"):
            if getattr(self, name) < 2:
                raise ValueError(f"NetConfig.{name} must be at least 2, got {getattr(self, name)}")
        for name in ("torso_outer", "torso_inner", "head_outer"):
            if getattr(self, name) < 0:
                raise ValueError(f"NetConfig.{name} must be non-negative, got {getattr(self, name)}")

    def to_dict(self) -> dict:
        """The fields as a JSON-ready dict (``from_dict`` reads it back); ``mirror_value`` only where set, so
        that a deepnash written before it reads every checkpoint it would read the same way."""
        d = asdict(self)
        if not self.mirror_value:
            del d["mirror_value"]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "NetConfig":
        """A stored configuration; one without ``version`` is version 1 (written before versions existed).

        Raises:
            ValueError: an unknown field or version (the message names the field).
        """
        unknown = set(d) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown network fields {sorted(unknown)}: written by a newer deepnash?")
        return cls(**{"version": 1, **d})


#: Named configurations: ``paper`` has the paper's widths; ``small`` and ``tiny`` learn on a CPU.
PRESETS: dict[str, NetConfig] = {
    "paper": NetConfig(),
    "small": NetConfig(channels=48, inner_channels=64, torso_outer=1, torso_inner=1,
                       head_channels=32, head_outer=1),
    "tiny": NetConfig(channels=16, inner_channels=24, torso_outer=1, torso_inner=0,
                      head_channels=8, head_outer=0),
}


def get_preset(name: str) -> NetConfig:
    """The ``NetConfig`` called ``name``.

    Raises:
        ValueError: for an unknown preset, listing the known ones.
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown network preset {name!r}; known: {', '.join(PRESETS)}") from None
