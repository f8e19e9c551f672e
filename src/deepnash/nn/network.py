"""The DeepNash network: a pyramid torso and the deployment, selection, displacement and value heads.

Source: the DeepNash paper (arXiv version), supplementary "Network
Architecture", "Network Modules" and "Neural Implementation"; restated in
``docs/network.md``.  The observation layout is ``docs/observation.md``.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from ..env.planes import NUM_PLANES, P_LENGTH, P_NO_ATTACK, P_PHASE, P_PRIVATE, P_PUB_OPP, P_PUB_OWN, P_SELECTED, P_STEP
from ..game.pieces import FLAG
from .config import NetConfig
from .pyramid import Conv2d, Pyramid

#: Own one-hot type planes of Spy..Marshal (types 1..10: the movable types, all but Flag and Bomb).
OWN_MOVABLE = slice(P_PRIVATE + 1, P_PRIVATE + 11)
NUM_ACTIONS = 100

#: A version-2 value head's classes, in the order of its logits: the result for the player to move.
WDL = ("win", "draw", "loss")
WIN, DRAW, LOSS = range(3)

#: Inputs a version-3 value read-out takes beside the head's 100 squares (``material``).
MATERIAL_FEATURES = 52
#: Width of a version-3 read-out's hidden layer on ``material`` (SiLU units: none falls silent).
MATERIAL_HIDDEN = 64
#: Dropout on a version-3 read-out's 100 squares in training: the board's features can tell one game
#: from another, and the value must not learn the games' results by heart.
SQUARES_DROPOUT = 0.5

#: Phase codes returned by ``phases``.
DEPLOY, SELECT, DISPLACE = 0, 1, 2


def phases(obs: torch.Tensor) -> torch.Tensor:
    """``int64[N]``: ``DEPLOY``, ``SELECT`` or ``DISPLACE`` for each observation ``float32[N, 82, 10, 10]``."""
    deploy = obs[:, P_PHASE, 0, 0] > 0.5
    displace = obs[:, P_STEP, 0, 0] > 0.5
    out = torch.full(deploy.shape, SELECT, dtype=torch.long, device=obs.device)
    out[displace] = DISPLACE
    out[deploy] = DEPLOY
    return out


def material(obs: torch.Tensor) -> torch.Tensor:
    """``float32[N, 52]``: what the observation ``float32[N, 82, 10, 10]`` states of the material, for a
    version-3 value read-out, counts over 10:

    - 0-11: the player's pieces of each type (planes 1-12);
    - 12-23: the opponent's pieces of each type: its revealed pieces, plus its hidden pieces spread as an
      unmoved hidden piece's public distribution (planes 13-24, eq. 6: the hidden counts over the hidden
      pieces).  Exact, but where the last hidden pieces that can move are all of one type: a moved one then
      looks revealed and counts twice;
    - 24-35 and 36-47: the opponent's and the player's revealed pieces of each type (one-hot public planes);
    - 48 and 49: the opponent's and the player's moved pieces still hidden;
    - 50 and 51: the game-length and no-attack ratios (planes 77 and 78).
    """
    own = obs[:, P_PRIVATE:P_PRIVATE + 12].sum(dim=(2, 3))
    pub = obs[:, P_PUB_OPP:P_PUB_OPP + 12]
    opp_revealed, opp_hidden, opp_unmoved = _public_pieces(pub)
    own_revealed, own_hidden, own_unmoved = _public_pieces(obs[:, P_PUB_OWN:P_PUB_OWN + 12])
    spread = (pub * opp_unmoved[:, None]).sum(dim=(2, 3)) / opp_unmoved.sum(dim=(1, 2)).clamp(min=1)[:, None]
    opponent = opp_revealed + spread * opp_hidden.sum(dim=(1, 2))[:, None]
    moved = [(hidden - unmoved).sum(dim=(1, 2))[:, None]
             for hidden, unmoved in ((opp_hidden, opp_unmoved), (own_hidden, own_unmoved))]
    counts = torch.cat([own, opponent, opp_revealed, own_revealed, *moved], dim=1) / 10.0
    return torch.cat([counts, obs[:, P_LENGTH:P_NO_ATTACK + 1, 0, 0]], dim=1)


def _public_pieces(pub: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One side's public planes ``float32[N, 12, 10, 10]`` (eq. 6) read as ``(revealed pieces by type
    float32[N, 12], hidden pieces float32[N, 10, 10], unmoved hidden pieces float32[N, 10, 10])``: a
    revealed piece's planes are one-hot, and only an unmoved piece may be the Flag, which never moves."""
    revealed = (pub.amax(dim=1) > 0.999).to(pub.dtype)
    hidden = (pub.sum(dim=1) > 0.5).to(pub.dtype) * (1 - revealed)
    unmoved = hidden * (pub[:, FLAG] > 0).to(pub.dtype)
    return (pub * revealed[:, None]).sum(dim=(2, 3)), hidden, unmoved


class _Head(nn.Module):
    """A pyramid head (N outer blocks, M=0) and its final 3×3, 1-channel convolution."""

    def __init__(self, c_in: int, channels: int, outer: int):
        super().__init__()
        self.pyramid = Pyramid(c_in, channels, channels, outer, 0)
        self.out = Conv2d(channels, 1, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out.fused(self.pyramid(x)).flatten(1)  # [N, 100]


class DeepNashNet(nn.Module):
    """Observation → (logits over the 100 squares, value).

    The head that produces each row's logits is chosen from the observation's
    phase and step planes: deployment head in deployment, selection head at
    step 0 of a move, displacement head at step 1.  Each head runs only on the
    rows of its phase.  Logits are *not* masked; mask illegal actions with
    ``-inf`` before the softmax (``masked_log_policy``).

    Head inputs (paper): deployment ← embedding; selection ← embedding ⊕ tiled
    no-attack ratio; displacement and value ← embedding ⊕ no-attack ratio ⊕
    one-hot of the selected piece (10 channels: its square, its movable type).
    The value head's no-attack ratio is zeroed in deployment and its one-hot in
    deployment and at step 0, so one value head serves all phases.

    The value head's read-out depends on ``config.version``: version 1 maps the
    head's 100 squares through a ReLU to one number; version 2 maps them
    linearly to win, draw and loss logits (``value_logits``), and the value is
    P(win) - P(loss), in [-1, 1], for the player to move.  A version-2 head has no
    ReLU to fall silent, and its cross-entropy keeps a gradient on every target.
    Version 3 is version 2 whose linear map also reads ``material(obs)`` (the piece counts,
    revealed and moved pieces the planes state) and 64 SiLU units on them; a fresh version-3
    read-out gives the head's squares zero weight, so it starts from the material and lets the
    board in only as far as that pays (the torso's features can tell one game from another, and
    a value that learns games by heart does not judge positions).

    Args:
        config: widths and block counts (``NetConfig``).
    """

    def __init__(self, config: NetConfig | None = None):
        super().__init__()
        self.config = cfg = config or NetConfig()
        c, hc = cfg.channels, cfg.head_channels
        self.torso = Pyramid(NUM_PLANES, c, cfg.inner_channels, cfg.torso_outer, cfg.torso_inner)
        self.deploy_head = _Head(c, hc, cfg.head_outer)
        self.select_head = _Head(c + 1, hc, cfg.head_outer)
        self.displace_head = _Head(c + 11, hc, cfg.head_outer)
        self.value_head = _Head(c + 11, hc, 0)
        extra = MATERIAL_FEATURES + MATERIAL_HIDDEN if cfg.version >= 3 else 0
        if cfg.version >= 3:
            self.material_hidden = nn.Linear(MATERIAL_FEATURES, MATERIAL_HIDDEN)
        self.value_out = nn.Linear(NUM_ACTIONS + extra, 1 if cfg.version == 1 else len(WDL))
        self._quiet_squares()

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Run the network.

        Args:
            obs: ``float32[N, 82, 10, 10]`` observations (``docs/observation.md``); other float
                dtypes (e.g. float16 as stored by the actors) are converted to the weights' dtype.

        Returns:
            ``(logits float32[N, 100], value float32[N])``.

        Raises:
            ValueError: if ``obs`` is not ``[N, 82, 10, 10]``.
        """
        parts = self._embed(obs)
        return self._logits(*parts), self._value(*parts)

    def logits(self, obs: torch.Tensor, stem: torch.Tensor | None = None) -> torch.Tensor:
        """``float32[N, 100]``: the policy heads alone, the same numbers as ``forward(obs)[0]`` without
        the value head's work (for an agent that needs no value; at batch size 1 a fifth of the cost).

        Args:
            obs: ``float[N, 82, 10, 10]`` observations.
            stem: ``stem(obs)`` where the caller has it (``displaced_stem``), saving the torso's first
                convolution; ``None``: computed here.

        Raises:
            ValueError: if ``obs`` is not ``[N, 82, 10, 10]``.
        """
        return self._logits(*self._embed(obs, stem))

    def stem(self, obs: torch.Tensor) -> torch.Tensor:
        """The torso's first convolution on ``obs`` (``[N, 82, 10, 10]``), before its ReLU: ``[N, C, 10, 10]``
        in the weights' dtype, channels-last, for ``logits(obs, stem=...)`` and ``displaced_stem``."""
        return self.torso.stem.fused(self._input(obs))

    def displaced_stem(self, select_stem: torch.Tensor, obs: torch.Tensor) -> torch.Tensor:
        """``stem(obs)`` for displace-step observations ``obs`` (``[N, 82, 10, 10]``), from ``select_stem``, the
        stem of the select-step observations they follow (``[N, C, 10, 10]``, row for row).

        The two steps of a move differ in the step and selected-piece planes alone (``docs/observation.md``),
        and the convolution is linear: the displace step's stem is the select step's plus the convolution of
        those two planes, about 2/82 of the work.  A rollout's displace step reuses its select step's
        convolution this way (``testtime.search``).
        """
        x = self._input(obs)[:, P_STEP:P_SELECTED + 1]
        weight = self.torso.stem.weight[:, P_STEP:P_SELECTED + 1]
        return select_stem + F.conv2d(x, weight, padding=self.torso.stem.padding)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """``float32[N]``: the value head alone, the same numbers as ``forward(obs)[1]`` without the
        policy heads' work (for look-ahead, which scores many positions and needs no policy); with
        ``config.mirror_value``, the mean of that over each position and its left-right mirror.

        Raises:
            ValueError: if ``obs`` is not ``[N, 82, 10, 10]``.
        """
        return self._read(obs, self._value)

    def value_probabilities(self, obs: torch.Tensor) -> torch.Tensor:
        """``float32[N, 3]``: the win, draw and loss probabilities (``WDL``'s order, for the player to move) of a
        version-2 or later network, over each position and its mirror with ``config.mirror_value``
        (``value`` is their win less their loss).

        Raises:
            ValueError: a version-1 network, or ``obs`` not ``[N, 82, 10, 10]``.
        """
        if self.config.version == 1:
            raise ValueError("a version-1 network has a scalar value head: it has no win/draw/loss probabilities")
        return self._read(obs, lambda *parts: torch.softmax(self._value_out(*parts).float(), dim=1))

    def _read(self, obs: torch.Tensor, head) -> torch.Tensor:
        """``head(*self._embed(obs))``, or with ``config.mirror_value`` its mean over each position and the position
        reflected left to right, in one call on ``2N`` rows (every plane is a 10×10 board or a constant, and the
        board, its lakes included, is symmetric about its middle file)."""
        if not self.config.mirror_value:
            return head(*self._embed(obs))
        _check_shape(obs)
        out = head(*self._embed(torch.cat([obs, obs.flip(3)])))
        return (out[:len(obs)] + out[len(obs):]) / 2

    def value_logits(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(policy logits float32[N, 100], value logits float32[N, 3])``: the win, draw and loss logits
        (in ``WDL``'s order, for the player to move) of a version-2 network, for its cross-entropy.

        Raises:
            ValueError: a version-1 network (it has no such logits), or ``obs`` not ``[N, 82, 10, 10]``.
        """
        if self.config.version == 1:
            raise ValueError("a version-1 network has a scalar value head: it has no win/draw/loss logits")
        parts = self._embed(obs)
        return self._logits(*parts), self._value_out(*parts)

    def train_value_only(self) -> list[torch.nn.Parameter]:
        """Freeze the torso and the policy heads (``requires_grad`` off) and return the value head's
        parameters, the only ones left to train."""
        head = set(map(id, [p for m in self._value_modules() for p in m.parameters()]))
        for p in self.parameters():
            p.requires_grad_(id(p) in head)
        return [p for p in self.parameters() if id(p) in head]

    def reset_value_head(self) -> None:
        """Give the value head fresh random weights (the torso and the policy heads keep theirs)."""
        for module in self._value_modules():
            for part in module.modules():
                if hasattr(part, "reset_parameters"):
                    part.reset_parameters()
        self._quiet_squares()

    def _value_modules(self) -> list[nn.Module]:
        """The value head's modules: its pyramid, its read-out and (version 3) the read-out's hidden layer."""
        return [self.value_head, self.value_out, *([self.material_hidden] if self.config.version >= 3 else [])]

    @torch.no_grad()
    def _quiet_squares(self) -> None:
        """A version-3 read-out starts with no weight on the head's 100 squares (``material`` only)."""
        if self.config.version >= 3:
            self.value_out.weight[:, :NUM_ACTIONS] = 0.0

    def _input(self, obs: torch.Tensor) -> torch.Tensor:
        """``obs`` checked, in the weights' dtype and channels-last (oneDNN's convolutions run about twice
        as fast on narrow layers with channels-last activations)."""
        _check_shape(obs)
        return obs.to(self.value_out.weight.dtype, memory_format=torch.channels_last)

    def _embed(self, obs: torch.Tensor, stem: torch.Tensor | None = None):
        """The torso's work, which every head reads: ``(obs, embedding, phase, no-attack plane, selected
        one-hot [N, 10, 10, 10], 0 on rows not at the displace step)``; ``stem``: ``self.stem(obs)``, if known."""
        obs = self._input(obs)
        emb = self.torso(obs, stem)
        phase = phases(obs)
        no_attack = obs[:, P_NO_ATTACK:P_NO_ATTACK + 1]
        if bool((phase == DISPLACE).any()):
            step2 = (phase == DISPLACE).to(obs.dtype)[:, None, None, None]
            selected = obs[:, P_SELECTED:P_SELECTED + 1] * obs[:, OWN_MOVABLE] * step2
        else:  # no displace step (the look-ahead's batches): no product to compute
            selected = obs.new_zeros(obs.shape[0], 10, 10, 10).permute(0, 3, 1, 2)
        return obs, emb, phase, no_attack, selected

    def _logits(self, obs, emb, phase, no_attack, selected) -> torch.Tensor:
        """Each row's logits from the head of its phase (a batch of one phase, as the rollouts send, in one
        call on the whole batch)."""
        logits = obs.new_zeros(obs.shape[0], NUM_ACTIONS)
        for code, head, extra in (
            (DEPLOY, self.deploy_head, ()),
            (SELECT, self.select_head, (no_attack,)),
            (DISPLACE, self.displace_head, (no_attack, selected)),
        ):
            on = phase == code
            if not bool(on.any()):
                continue
            rows = None if bool(on.all()) else on.nonzero().squeeze(1)
            parts = [t if rows is None else t[rows] for t in (emb, *extra)]
            x = torch.cat(parts, dim=1).contiguous(memory_format=torch.channels_last) if extra else parts[0]
            out = head(x)
            out = F.relu(out) if self.config.relu_logits else out
            if rows is None:
                return out
            logits = logits.index_copy(0, rows, out)
        return logits

    def _value_out(self, obs, emb, phase, no_attack, selected) -> torch.Tensor:
        """The value head's read-out: ``[N, 1]`` (version 1) or the win/draw/loss logits ``[N, 3]``.  Its
        input: the embedding, the no-attack ratio (0 in deployment) and the selected one-hot (and from
        version 3, ``material(obs)`` and its hidden layer)."""
        play = (phase != DEPLOY).to(obs.dtype)[:, None, None, None]
        squares = self.value_head(torch.cat([emb, no_attack * play, selected], dim=1))
        if self.config.version == 1:
            return self.value_out(F.relu(squares))
        if self.config.version >= 3:
            counts = material(obs.float()).to(obs.dtype)  # its thresholds and sums need float32
            squares = F.dropout(squares, SQUARES_DROPOUT, self.training)
            squares = torch.cat([squares, counts, F.silu(self.material_hidden(counts))], dim=1)
        return self.value_out(squares)

    def _value(self, *parts) -> torch.Tensor:
        """``float32[N]``: the scalar value, P(win) - P(loss) for a version-2 network."""
        out = self._value_out(*parts)
        if self.config.version == 1:
            return out.squeeze(1)
        p = torch.softmax(out, dim=1)
        return p[:, WIN] - p[:, LOSS]


def _check_shape(obs: torch.Tensor) -> None:
    """Raise ``ValueError`` unless ``obs`` is ``[N, 82, 10, 10]``."""
    if obs.dim() != 4 or tuple(obs.shape[1:]) != (NUM_PLANES, 10, 10):
        raise ValueError(f"DeepNashNet expects observations [N, 82, 10, 10], got {list(obs.shape)}")


def masked_log_policy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``float32[N, 100]`` log-probabilities: ``log_softmax`` of ``logits`` with illegal actions at ``-inf``.

    Args:
        logits: ``float32[N, 100]``.
        mask: ``bool[N, 100]`` legal-action mask; every row needs a legal action.

    Raises:
        ValueError: if some row of ``mask`` has no legal action.
    """
    if not bool(mask.any(dim=1).all()):
        raise ValueError("legal-action mask has a row with no legal action")
    return torch.log_softmax(logits.masked_fill(~mask, float("-inf")), dim=1)


def parameter_count(module: nn.Module) -> int:
    """Number of trainable parameters of ``module``."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad)
