"""Behaviour cloning from human games (``deepnash pretrain``) and move-matching (``deepnash move-match``).

The network learns what people played: each policy head by the cross-entropy
of the human action under the legal-action mask, the value head by the
cross-entropy of its win/draw/loss logits on the game's result (the squared
error of a version-1 scalar), or on the ``init`` network's value for the games
of ``PretrainConfig.value_teacher`` (value distillation).  A deployment step's "human action" is
the set of squares of the recorded setup that hold the type being placed
(``train.human``), so its loss is ``-log`` of the probability the policy gives
that set.  Decisions come from ``train.human.HumanDecisions``; with ``mirror``
half of every batch is reflected left to right (the board and its lakes are
symmetric, so a mirrored position is a position of the same game).

The run directory is an agent (``checkpoint:DIR``): its checkpoints hold the
network under ``online`` (with the optimiser and counters for ``--resume``),
written atomically as ``deepnash train`` writes them.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from .. import __version__
from ..agents.network_agent import load_network
from ..nn import DeepNashNet, NetConfig, get_preset, masked_log_policy
from ..nn.checkpoint import starting_weights
from .evaluate import versus_random
from .human import DISPLACE, PHASE_NAMES, SELECT, DecisionBatch, HumanDecisions, HumanGame, load_games
from .logs import RunLog
from .supervised import RecordsRunConfig, RunCounters, load_run, restore_run, run_updates, save_run, split_run

#: Bins of the value head's calibration table (predicted probability of winning).
CALIBRATION_BINS = 10


@dataclass(frozen=True)
class PretrainConfig(RecordsRunConfig):
    """A behaviour-cloning run: the fields of ``RecordsRunConfig`` (a run stored before ``slots`` and
    ``sample`` existed used 512 slots and every decision) and these.

    Attributes:
        net: network preset (``nn.PRESETS``).
        value_weight: weight of the value loss beside the policy loss.
        random_games: games against the uniformly random bot (raw policy, sampled; ``evaluate.versus_random``)
            played when the run starts and when it ends, to show what the run changed (0: none).
        init: start from the online network of this checkpoint (a run or checkpoint directory, or
            ``shipped/<variant>``'s) instead of random weights; its network must be the preset's.
        value_only: train the value head alone on the games' results, the torso and the policy
            heads frozen: the policy stays exactly as ``init`` left it (e.g. to give a self-play
            agent whose value head says little a value the look-ahead can use).  With ``init``, the
            value head starts from fresh random weights.
        net_version: the network version (``NetConfig.version``: 2, the win/draw/loss value head; 3, the
            same reading the material counts too; 1, the scalar one).  A run stored without one is version 1.
        value_teacher: records (files, zips, folders; absolute paths) read beside ``records`` whose decisions
            teach the value what the ``init`` network's value says of them instead of their games' results
            (value distillation; ``value_targets``): e.g. the agent's own games, which reach the positions its
            search's rollouts reach, where people's results say nothing.  Needs ``init``.
    """

    net: str = "tiny"
    value_weight: float = 0.5
    random_games: int = 200
    init: str | None = None
    value_only: bool = False
    net_version: int = 2
    value_teacher: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        self.net_config  # an unknown preset or version raises here
        if self.random_games < 0 or self.value_weight < 0:
            raise ValueError("PretrainConfig: random_games and value_weight must be >= 0")
        if self.value_teacher and not self.init:
            raise ValueError("PretrainConfig: value_teacher needs init, the network whose value teaches")

    @property
    def net_config(self) -> NetConfig:
        """The network's ``NetConfig``: the preset at ``net_version``."""
        return replace(get_preset(self.net), version=self.net_version)


def trained_parameters(net: DeepNashNet, cfg: PretrainConfig) -> list[torch.nn.Parameter]:
    """The parameters the run updates: all, or with ``value_only`` the value head's (the others are
    frozen: ``requires_grad`` off)."""
    return net.train_value_only() if cfg.value_only else list(net.parameters())


def mirror_batch(obs: torch.Tensor, mask: torch.Tensor, target: torch.Tensor, rows: torch.Tensor) -> None:
    """Reflect decisions ``rows`` left to right in place: every plane's files, and the 100 squares of
    the mask and target (square ``r*10+c`` becomes ``r*10+9-c``).  Shapes as in ``DecisionBatch``."""
    if rows.numel() == 0:
        return
    obs[rows] = obs[rows].flip(-1)
    for t in (mask, target):
        t[rows] = t[rows].view(-1, 10, 10).flip(-1).reshape(-1, 100)


def policy_loss(logits: torch.Tensor, mask: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """``float32[N]``: ``-log`` of the policy's probability of the human action set ``target`` (bool[N, 100])."""
    log_policy = masked_log_policy(logits, mask)
    return -torch.logsumexp(log_policy.masked_fill(~target, float("-inf")), dim=1)


def value_loss(value: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """The value head's loss: the mean cross-entropy of win/draw/loss logits ``float32[N, 3]`` (version 2 and
    later), or the mean squared error of a scalar ``float32[N]`` (version 1).

    Args:
        target: the games' results ``float32[N]`` (+1 won, 0 drawn, -1 lost for the player to move), or for
            win/draw/loss logits also the probabilities ``float32[N, 3]`` to learn (``value_targets``).
    """
    if value.dim() == 1:
        return F.mse_loss(value, target)
    if target.dim() == 2:
        return F.cross_entropy(value, target)
    return F.cross_entropy(value, (1 - target).round().long())  # +1 -> 0 (win), 0 -> 1 (draw), -1 -> 2 (loss)


@torch.no_grad()
def value_targets(result: torch.Tensor, obs: torch.Tensor, taught: torch.Tensor, teacher: DeepNashNet,
                  student_version: int) -> torch.Tensor:
    """The value targets of a batch whose decisions ``taught`` (``bool[N]``) learn the ``teacher``'s value
    (value distillation, Hinton et al. 2015) and the others their games' ``result`` (``float32[N]``).

    For a version-1 (scalar) student: ``float32[N]``, the teacher's value ``P(win) - P(loss)`` on the taught rows.
    For a win/draw/loss student: ``float32[N, 3]`` probabilities: a result's one-hot, the teacher's
    win/draw/loss probabilities, or from a version-1 teacher's scalar ``v``: ``((1 + v) / 2, 0, (1 - v) / 2)``.
    ``obs`` (``float32[N, 82, 10, 10]``) is what both networks see.
    """
    rows = torch.nonzero(taught).squeeze(1)
    if student_version == 1:
        out = result.clone()
        if rows.numel():
            out[rows] = teacher.value(obs[rows]).float()
        return out
    out = F.one_hot((1 - result).round().long(), 3).float()
    if rows.numel():
        if teacher.config.version == 1:
            v = teacher.value(obs[rows]).float().clamp(-1, 1)
            out[rows] = torch.stack([(1 + v) / 2, torch.zeros_like(v), (1 - v) / 2], 1)
        else:
            out[rows] = teacher.value_probabilities(obs[rows])
    return out


def bc_update(net: DeepNashNet, opt: torch.optim.Optimizer, batch: DecisionBatch, cfg: PretrainConfig,
              device: torch.device, teacher: tuple[DeepNashNet, np.ndarray] | None = None) -> dict[str, float]:
    """One behaviour-cloning update on ``batch`` (mirroring a random half when ``cfg.mirror``).

    ``teacher``: ``(network, bool[games])``: the decisions of the stream's games marked true learn the
    network's value instead of their results (``value_targets``).

    Returns:
        ``{"policy": mean cross-entropy of the human actions, "value": the value loss}``: for a version-2
        network the cross-entropy of its win/draw/loss logits on the results (``value_loss``), for a
        version-1 network the squared error of its scalar.
    """
    obs = torch.from_numpy(batch.obs).to(device)
    mask = torch.from_numpy(batch.mask).to(device)
    target = torch.from_numpy(batch.target).to(device)
    if cfg.mirror:
        mirror_batch(obs, mask, target, torch.nonzero(torch.rand(len(batch)) < 0.5).squeeze(1).to(device))
    result = torch.from_numpy(batch.value).to(device)
    if teacher is not None:
        taught = torch.from_numpy(teacher[1][batch.game]).to(device)
        result = value_targets(result, obs, taught, teacher[0], net.config.version)
    logits, value = net(obs) if net.config.version == 1 else net.value_logits(obs)
    lp = policy_loss(logits, mask, target).mean()
    lv = value_loss(value, result)
    opt.zero_grad(set_to_none=True)
    (lv if cfg.value_only else lp + cfg.value_weight * lv).backward()
    opt.step()
    return {"policy": float(lp.detach()), "value": float(lv.detach())}


class _Scores:
    """Sums over decisions for ``imitation_metrics``."""

    def __init__(self) -> None:
        self.n = np.zeros(3)
        self.top1 = np.zeros(3)
        self.top3 = np.zeros(3)
        self.ce = np.zeros(3)
        self.uniform = np.zeros(3)
        self.selection_hit: dict[tuple[int, int], bool] = {}
        self.moves = self.moves_hit = 0
        self.brier = 0.0
        self.decisive = 0
        self.bins = np.zeros((CALIBRATION_BINS, 3))  # decisions, sum of predictions, wins

    def add(self, batch: DecisionBatch, logits: torch.Tensor, value: torch.Tensor) -> None:
        mask, target = torch.from_numpy(batch.mask), torch.from_numpy(batch.target)
        ce = policy_loss(logits, mask, target).numpy()
        top = masked_log_policy(logits, mask).topk(3, dim=1).indices
        hits = target.gather(1, top).numpy()
        legal = batch.mask.sum(1)
        chance = (batch.target & batch.mask).sum(1) / legal
        for ph in range(3):
            rows = batch.phase == ph
            self.n[ph] += rows.sum()
            self.top1[ph] += hits[rows, 0].sum()
            self.top3[ph] += hits[rows].any(1).sum()
            self.ce[ph] += ce[rows].sum()
            self.uniform[ph] += chance[rows].sum()
        for i in np.flatnonzero(batch.phase == SELECT):
            self.selection_hit[(int(batch.game[i]), int(batch.ply[i]))] = bool(hits[i, 0])
        for i in np.flatnonzero(batch.phase == DISPLACE):
            key = (int(batch.game[i]), int(batch.ply[i]))
            self.moves += 1
            self.moves_hit += bool(hits[i, 0]) and self.selection_hit.pop(key, False)
        decisive = batch.value != 0
        p_win = ((value.numpy().clip(-1, 1) + 1) / 2)[decisive]
        won = (batch.value[decisive] > 0).astype(np.float64)
        self.brier += float(((p_win - won) ** 2).sum())
        self.decisive += int(decisive.sum())
        b = np.minimum((p_win * CALIBRATION_BINS).astype(int), CALIBRATION_BINS - 1)
        np.add.at(self.bins, b, np.stack([np.ones_like(won), p_win, won], 1))

    def report(self) -> dict:
        names = PHASE_NAMES
        n = np.maximum(self.n, 1)
        return {
            "decisions": {k: int(v) for k, v in zip(names, self.n)},
            "top1": {k: float(v) for k, v in zip(names, self.top1 / n)},
            "top3": {k: float(v) for k, v in zip(names, self.top3 / n)},
            "uniform_top1": {k: float(v) for k, v in zip(names, self.uniform / n)},
            "cross_entropy": {**{k: float(v) for k, v in zip(names, self.ce / n)},
                              "all": float(self.ce.sum() / max(self.n.sum(), 1))},
            "move_top1": self.moves_hit / max(self.moves, 1),
            "value_brier": self.brier / max(self.decisive, 1),
            "calibration": [
                {"predicted": [i / CALIBRATION_BINS, (i + 1) / CALIBRATION_BINS], "decisions": int(c),
                 "mean_predicted": float(s / c) if c else None, "won": float(w / c) if c else None}
                for i, (c, s, w) in enumerate(self.bins)],
        }


@torch.no_grad()
def imitation_metrics(net: torch.nn.Module, games: list[HumanGame], variant: str,
                      batch_size: int = 512) -> dict:
    """How well ``net``'s raw policy matches the people of ``games`` (its argmax over legal actions).

    Returns:
        ``games`` (scored), ``skipped`` (games the engine refused, by reason), and per phase
        (``deployment``, ``selection``, ``displacement``): ``decisions``, ``top1``, ``top3`` (the human
        action among the policy's 1 or 3 most probable legal actions; in deployment any square
        holding the type being placed counts), ``uniform_top1`` (the same for a uniform policy over
        legal actions), ``cross_entropy`` (nats, plus ``all`` over every decision); ``move_top1``
        (selection and displacement both right); ``value_brier`` (the Brier score of the value head
        read as P(win) = (v + 1) / 2, over decisions of games with a winner) and ``calibration``
        (per bin of that prediction: decisions, mean prediction, share won).
    """
    was_training = net.training
    net.eval()
    device = next(net.parameters()).device
    stream = HumanDecisions(games, variant, batch_size=batch_size, shuffle=False, epochs=1)
    scores = _Scores()
    for batch in stream:
        logits, value = net(torch.from_numpy(batch.obs).to(device))
        scores.add(batch, logits.float().cpu(), value.float().cpu())
    net.train(was_training)
    return {"games": stream.games_done, "skipped": dict(stream.skipped), **scores.report()}


def format_metrics(r: dict) -> str:
    """``imitation_metrics``' result as a table: per phase top-1, top-3, uniform top-1, cross-entropy."""
    lines = [f"{'':<14}{'decisions':>10}{'top-1':>8}{'top-3':>8}{'uniform':>9}{'x-entropy':>10}"]
    for k in ("deployment", "selection", "displacement"):
        lines.append(f"{k:<14}{r['decisions'][k]:>10,}{r['top1'][k]:>8.1%}{r['top3'][k]:>8.1%}"
                     f"{r['uniform_top1'][k]:>9.1%}{r['cross_entropy'][k]:>10.3f}")
    lines.append(f"whole move top-1 {r['move_top1']:.1%}; value Brier {r['value_brier']:.3f} over games with a winner")
    return "\n".join(lines)


def _counters(counters: RunCounters) -> dict:
    """The counters as a pretraining checkpoint stores them (``items`` are decisions)."""
    return {"step": counters.step, "decisions": counters.items, "seconds": counters.seconds}


def _meta(cfg: PretrainConfig, counters: RunCounters, evaluation: dict | None) -> dict:
    meta = {"deepnash_version": __version__, "kind": "pretrain", "config": cfg.to_dict(),
            "net": cfg.net_config.to_dict(), "variant": cfg.variant, "counters": _counters(counters)}
    return meta if evaluation is None else {**meta, "evaluation": evaluation}


def resume_pretrain_config(path: str | Path) -> PretrainConfig:
    """The ``PretrainConfig`` of the behaviour-cloning run in ``path``.

    Raises:
        CheckpointError: no valid checkpoint there, or not one of ``deepnash pretrain``.
    """
    stored = load_run(path, "pretrain", "pretrain").meta["config"]
    return PretrainConfig(**{"net_version": 1, "sample": 1.0, **stored})  # a run from before these fields


def pretrain(cfg: PretrainConfig, games: list[HumanGame], out: str | Path, *, steps: int | None = None,
             minutes: float | None = None, resume: bool = False, device: str = "cpu",
             progress: bool = True) -> dict:
    """Behaviour-clone ``games`` until ``steps`` updates in all or ``minutes`` of this invocation.

    Args:
        cfg: the run's configuration (on resume: ``resume_pretrain_config(out)``).
        games: every usable game of ``cfg.variant``; split here into training and validation, with the games
            of ``cfg.value_teacher`` (read here), whose value targets come from the ``cfg.init`` network.
        out: the run directory (checkpoints, ``tb/``); an agent, ``checkpoint:OUT``.
        steps, minutes: bounds (at least one).
        resume: continue the run in ``out`` (the stream starts a fresh shuffle).
        device: ``cpu``, ``cuda``...
        progress: show the progress bar.

    Returns:
        ``out``, counters, the last losses, ``train_games``/``validation_games``, ``validation``:
        ``imitation_metrics`` on up to ``cfg.eval_games`` validation games (also stored in the
        last checkpoint's manifest under ``evaluation``), and unless ``cfg.random_games`` is 0,
        ``vs_random``: ``{"before": ..., "after": ...}``, ``versus_random`` results of the network as
        this invocation found it and as it leaves it (the same games).

    Raises:
        ValueError: no bound, or no training games.
        FileExistsError: a fresh run into a directory that holds checkpoints.
        CheckpointError: ``resume`` and the checkpoint is missing, corrupt or not a pretraining one, or
            ``cfg.value_teacher`` and the ``cfg.init`` checkpoint is.
        FileNotFoundError: a ``cfg.value_teacher`` path that does not exist.
    """
    taught = load_games(list(cfg.value_teacher), cfg.variant) if cfg.value_teacher else []
    out, train_games, val_games = split_run(cfg, games + taught, out, steps, minutes, resume)
    dev = torch.device(device)
    torch.manual_seed(cfg.seed)
    net = DeepNashNet(cfg.net_config).to(dev)
    if cfg.init and not resume:
        net.load_state_dict(starting_weights(cfg.init, cfg.net_config.to_dict(), cfg.net, cfg.variant,
                                             on_upgrade=lambda line: print(line, file=sys.stderr, flush=True)))
        if cfg.value_only:  # a value head that says nothing may be dead (ReLUs that never fire): start it afresh
            net.reset_value_head()
    opt = torch.optim.Adam(trained_parameters(net, cfg), lr=cfg.learning_rate)
    counters = RunCounters()
    if resume:
        stored = restore_run(load_run(out, "pretrain", "pretrain"), net, opt)
        counters = RunCounters(stored["step"], stored["decisions"], stored["seconds"])
    source = HumanDecisions(train_games, cfg.variant, batch_size=cfg.batch_size, slots=cfg.slots,
                            buffer=cfg.buffer, epochs=None, seed=cfg.seed + 7919 * counters.step,
                            sample=cfg.sample)
    stream = iter(source)
    teacher = None
    if taught:
        ids = set(map(id, taught))
        teacher = (load_network(cfg.init)[0].to(dev).eval(), np.array([id(g) in ids for g in train_games]))
    vs_random = {}
    if cfg.random_games:
        vs_random["before"] = versus_random(net, cfg.variant, cfg.random_games, seed=cfg.seed)
    runlog = RunLog(out, steps, counters.step, progress=progress, label="pretrain")

    def update() -> tuple[int, dict[str, float]]:
        batch = next(stream)
        return len(batch), bc_update(net, opt, batch, cfg, dev, teacher)

    net.train()
    losses, evaluation = run_updates(
        update, counters, runlog, steps=steps, minutes=minutes,
        save=lambda evaluation: save_run(out, net, opt, counters.step, _meta(cfg, counters, evaluation)),
        evaluate=(lambda: _report(net, val_games, cfg, counters, runlog)) if val_games else None,
        checkpoint_minutes=cfg.checkpoint_minutes, eval_minutes=cfg.eval_minutes,
        games_done=lambda: source.games_done, unit="decisions")
    if cfg.random_games:
        vs_random["after"] = versus_random(net, cfg.variant, cfg.random_games, seed=cfg.seed)
    return {"out": str(out), "variant": cfg.variant, "preset": cfg.net, **_counters(counters),
            "loss_policy": losses.get("policy", math.nan), "loss_value": losses.get("value", math.nan),
            "train_games": len(train_games), "validation_games": len(val_games), "validation": evaluation,
            **({"vs_random": vs_random} if vs_random else {})}


def _report(net: DeepNashNet, games: list[HumanGame], cfg: PretrainConfig, counters: RunCounters,
            runlog: RunLog) -> dict:
    r = imitation_metrics(net, games, cfg.variant)
    scalars = {f"validation/top1_{k}": v for k, v in r["top1"].items()}
    scalars.update({f"validation/top3_{k}": v for k, v in r["top3"].items()})
    scalars.update({"validation/cross_entropy": r["cross_entropy"]["all"], "validation/move_top1": r["move_top1"],
                    "validation/value_brier": r["value_brier"]})
    runlog.scalars(counters.step, scalars)
    runlog.message(f"step {counters.step}: validation top-1 " + ", ".join(
        f"{k} {v:.1%}" for k, v in r["top1"].items()) + f", move {r['move_top1']:.1%}, "
        f"cross-entropy {r['cross_entropy']['all']:.3f}, value Brier {r['value_brier']:.3f}")
    return r
