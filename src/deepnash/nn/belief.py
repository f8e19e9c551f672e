"""The belief network: what each hidden opponent piece is, from the player's observation alone.

The search plays forward from complete states drawn to agree with what the player knows
(``testtime.search``).  The public information (the observation's planes 13-24, the closed form of
the DeepNash paper's equation 6) says which types a piece can still have, weighted by how many of
each are left; people's records say more: where the Flag and the Bombs usually stand, which pieces
advance early, which run from a known Captain.  A ``BeliefNet`` reads the same 82 planes as the
policy (``docs/observation.md``) and gives, for every opponent piece on the board, a distribution
over its type, zero on the types public information rules out.  It is trained on Gravon records,
whose setups give every hidden piece's true type at every decision (``train.belief``), as the
learned belief of Sokota et al. (2025) is.

Shapes: observations ``float32[N, 82, 10, 10]`` in the player's frame; beliefs ``float32[N, 100, 12]``
(square in the player's frame, then type, ``docs/observation.md``'s type order).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path

import torch
from torch import nn

from ..env.planes import NUM_PLANES, P_PUB_OPP
from ..game.pieces import NUM_TYPES
from .checkpoint import CheckpointError, load_checkpoint
from .pyramid import Pyramid

#: The checkpoint ``kind`` of a belief network (``train.belief`` writes it).
BELIEF_KIND = "belief"
#: A public probability at or above this leaves nothing to guess: the piece is revealed, or its type forced.
KNOWN = 1 - 1e-6


@dataclass(frozen=True)
class BeliefConfig:
    """Shape of a ``BeliefNet``: a pyramid torso (``nn.pyramid``) and a 3×3 convolution to 12 types.

    Attributes:
        channels: outer width (at 10×10).
        inner_channels: inner width (at 5×5).
        outer: outer residual blocks.
        inner: inner residual blocks.
    """

    channels: int = 48
    inner_channels: int = 64
    outer: int = 1
    inner: int = 1

    def __post_init__(self) -> None:
        for f in fields(self):
            low = 2 if f.name.endswith("channels") else 0
            if getattr(self, f.name) < low:
                raise ValueError(f"BeliefConfig.{f.name} must be at least {low}, got {getattr(self, f.name)}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "BeliefConfig":
        """A stored configuration.

        Raises:
            ValueError: an unknown field (written by a newer deepnash).
        """
        unknown = set(d) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown belief network fields {sorted(unknown)}: written by a newer deepnash?")
        return cls(**d)


#: Named belief networks (``docs/network.md`` gives what each measured); ``tiny`` is for tests.
BELIEF_PRESETS = {"small": BeliefConfig(), "medium": BeliefConfig(channels=64, inner_channels=96, outer=2, inner=2),
                  "tiny": BeliefConfig(channels=8, inner_channels=8, outer=0, inner=0)}


def public_belief(obs: torch.Tensor) -> torch.Tensor:
    """``float32[N, 100, 12]``: the public information's type distribution of each opponent piece (planes
    13-24 of ``obs: float32[N, 82, 10, 10]``), all zero where the player sees no opponent piece."""
    return obs[:, P_PUB_OPP:P_PUB_OPP + NUM_TYPES].reshape(len(obs), NUM_TYPES, 100).transpose(1, 2).float()


def hidden_pieces(public: torch.Tensor) -> torch.Tensor:
    """``bool[N, 100]``: the squares whose opponent piece's type is uncertain under ``public_belief``
    (an opponent piece there, not revealed, its type not forced by the counts)."""
    top = public.max(dim=2).values
    return (top > 0) & (top < KNOWN)


class BeliefNet(nn.Module):
    """Observation → each opponent piece's type distribution.

    Args:
        config: the shape (``BeliefConfig``).
    """

    def __init__(self, config: BeliefConfig | None = None):
        super().__init__()
        self.config = cfg = config or BeliefConfig()
        self.torso = Pyramid(NUM_PLANES, cfg.channels, cfg.inner_channels, cfg.outer, cfg.inner)
        self.out = nn.Conv2d(cfg.channels, NUM_TYPES, 3, padding=1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """``float32[N, 100, 12]`` log-probabilities of each opponent piece's type.

        On a square holding an opponent piece, the types public information rules out (a count
        used up, a Bomb or Flag on a piece that has moved, anything but a revealed piece's type) are
        at ``-inf`` and the others sum to 1; on the other squares every type has ``log(1/12)``.

        Raises:
            ValueError: ``obs`` is not ``[N, 82, 10, 10]``.
        """
        if obs.dim() != 4 or tuple(obs.shape[1:]) != (NUM_PLANES, 10, 10):
            raise ValueError(f"BeliefNet expects observations [N, 82, 10, 10], got {list(obs.shape)}")
        obs = obs.to(self.out.weight.dtype, memory_format=torch.channels_last)
        logits = self.out(self.torso(obs)).reshape(len(obs), NUM_TYPES, 100).transpose(1, 2)
        public = public_belief(obs) > 0
        empty = ~public.any(dim=2, keepdim=True)  # no opponent piece: uniform
        logits = logits.masked_fill(empty, 0.0).masked_fill(~(public | empty), float("-inf"))
        return torch.log_softmax(logits, dim=2)


def belief_loss(log_belief: torch.Tensor, obs: torch.Tensor, truth: torch.Tensor) -> torch.Tensor:
    """The mean negative log-likelihood (nats per hidden piece) of the true types.

    Args:
        log_belief: ``float32[N, 100, 12]`` (``BeliefNet``'s output).
        obs: the observations it read, ``float32[N, 82, 10, 10]``.
        truth: ``int64[N, 100]``: each opponent piece's true type in the same frame (-1 where none).

    Returns:
        A scalar; 0 when no piece is hidden.
    """
    hidden = hidden_pieces(public_belief(obs)) & (truth >= 0)
    if not bool(hidden.any()):
        return log_belief.nan_to_num(neginf=0.0).sum() * 0.0  # keeps the graph: backward() still works
    picked = log_belief.gather(2, truth.clamp(min=0).unsqueeze(2)).squeeze(2)
    return -picked[hidden].mean()


def load_belief(path: str | Path) -> tuple[BeliefNet, dict]:
    """The belief network saved in a checkpoint (a run or checkpoint directory of ``deepnash pretrain-belief``)
    and its metadata.

    Raises:
        CheckpointError: the checkpoint is missing, corrupt, not a belief network's, or its weights do
            not fit the shape its manifest gives.
    """
    ck = load_checkpoint(path)
    if ck.meta.get("kind") != BELIEF_KIND:
        raise CheckpointError(f"{ck.path}: not a belief network (kind {ck.meta.get('kind')!r}); "
                              "deepnash pretrain-belief writes them")
    try:
        net = BeliefNet(BeliefConfig.from_dict(ck.meta["belief_net"]))
        net.load_state_dict(ck.groups["online"])
    except (KeyError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{ck.path}: cannot build its belief network ({str(e).splitlines()[-1].strip()})") from None
    return net.eval(), ck.meta
