"""Learning the belief from people's games (``deepnash pretrain-belief``) and measuring beliefs.

Every move decision of a Gravon record is a position where the player to move sees the opponent's
pieces and the record knows each one's true type (``HumanDecisions``' ``opponent_types``).  A
``BeliefNet`` learns those types by cross-entropy on the pieces still hidden, from both players'
sides; half of every batch is mirrored left to right.  Like the value, the belief sees a game's
hidden pieces over and over, so the stream replays thousands of games at once and keeps a random
share of their decisions (``sample``).

``belief_nll`` scores beliefs per hidden piece: the network's, the learned one (the network and people's setups,
``infostate.setup_library``), the public information's closed
form (planes 13-24 of the observation), and the heuristic sampler's (``search``'s default): the
public form tilted by where people deploy each type (``infostate.setup_stats``) on the pieces that
have not moved, renormalised per piece.  The heuristic sampler also drops types the memory
heuristic rules out; those eliminations are rare and are left out here.

The run directory holds checkpoints of kind ``belief`` (``nn.belief.load_belief`` reads them); the
search takes one with ``belief=DIR`` (``docs/test-time.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .. import __version__
from ..infostate.setup_library import SetupLibrary, library_belief
from ..infostate.setup_stats import sampler_belief
from ..nn.belief import BELIEF_KIND, BELIEF_PRESETS, BeliefNet, belief_loss, hidden_pieces, load_belief, public_belief
from ..nn.checkpoint import CheckpointError
from .human import SELECT, DecisionBatch, HumanDecisions, HumanGame
from .logs import RunLog
from .supervised import RecordsRunConfig, RunCounters, load_run, restore_run, run_updates, save_run, split_run

#: Game phases for the belief's scores, by moves played: ``(name, lowest, highest)``, the highest not included.
PHASES = (("opening", 0, 50), ("middle", 50, 200), ("late", 200, math.inf))
#: The beliefs ``belief_nll`` scores, by the name its results use: the learned belief (people's setups over the
#: belief network, or over the heuristic sampler without one), the belief network alone, the public
#: information and the heuristic sampler.
BELIEFS = ("learned", "network", "public", "sampler")

_EPS = 1e-6


@dataclass(frozen=True)
class BeliefTrainConfig(RecordsRunConfig):
    """A belief-learning run: the fields of ``RecordsRunConfig``, ``net`` naming a belief preset
    (``nn.belief.BELIEF_PRESETS``), and:

    Attributes:
        init: start from the belief network of this checkpoint (a run or checkpoint directory), of the
            same preset (to go on learning at another rate, say).
    """

    eval_games: int = 100
    init: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.net not in BELIEF_PRESETS:
            raise ValueError(f"unknown belief preset {self.net!r}; known: {', '.join(BELIEF_PRESETS)}")


def mirror_rows(obs: torch.Tensor, truth: torch.Tensor, rows: torch.Tensor) -> None:
    """Reflect positions ``rows`` left to right in place: the files of every plane of ``obs float32[N, 82, 10,
    10]`` and of the squares of ``truth int64[N, 100]`` (square ``r*10+c`` becomes ``r*10+9-c``)."""
    if rows.numel() == 0:
        return
    obs[rows] = obs[rows].flip(-1)
    truth[rows] = truth[rows].view(-1, 10, 10).flip(-1).reshape(-1, 100)


def belief_update(net: BeliefNet, opt: torch.optim.Optimizer, obs: np.ndarray, truth: np.ndarray,
                  mirror: bool, device: torch.device) -> float:
    """One update on positions ``obs float32[N, 82, 10, 10]`` with true opponent types ``truth int8[N, 100]``
    (``DecisionBatch``'s); returns the loss (nats per hidden piece)."""
    x = torch.from_numpy(obs).to(device)
    y = torch.from_numpy(truth.astype(np.int64)).to(device)
    if mirror:
        mirror_rows(x, y, torch.nonzero(torch.rand(len(x)) < 0.5).squeeze(1).to(device))
    loss = belief_loss(net(x), x, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return float(loss.detach())


@torch.inference_mode()
def belief_nll(batch: DecisionBatch, variant: str, net: BeliefNet | None = None,
               library: SetupLibrary | None = None) -> dict[str, np.ndarray]:
    """Each hidden opponent piece's negative log-likelihood of its true type, under each belief.

    Args:
        batch: the positions (``obs``, ``opponent_types``, and for ``library`` ``opponent_origins`` and
            ``opponent_evidence``).
        net: the belief network (``None``: not scored).
        library: people's setups, weighed over the network's belief, or over the heuristic sampler's without
            one (``infostate.setup_library``): the learned belief.

    Returns:
        ``row`` (``int64[H]``: each hidden piece's position) and per name of ``BELIEFS`` (``network`` only with
        ``net``, ``learned`` only with ``library``) ``float64[H]`` nats.
    """
    x = torch.from_numpy(np.asarray(batch.obs, np.float32))
    truth = batch.opponent_types
    public = public_belief(x)
    hidden = hidden_pieces(public).numpy() & (truth >= 0)
    rows, squares = np.nonzero(hidden)
    types = truth[rows, squares].astype(np.int64)
    pub = public.double().numpy()

    def nll(belief: np.ndarray) -> np.ndarray:
        return -np.log(np.maximum(belief[rows, squares, types], _EPS))

    sampler = sampler_belief(pub, variant)
    out = {"row": rows.astype(np.int64), "public": nll(pub), "sampler": nll(sampler)}
    base = sampler
    if net is not None:
        device = next(net.parameters()).device
        base = net(x.to(device)).exp().double().cpu().numpy()
        out["network"] = nll(base)
    if library is not None:
        out["learned"] = nll(library_belief(library, base, batch.opponent_origins, batch.opponent_evidence))
    return out


def belief_metrics(net: BeliefNet | None, games: list[HumanGame], variant: str, batch_size: int = 512) -> dict:
    """The beliefs' mean negative log-likelihood of the true hidden types at every move decision of ``games``.

    Returns:
        ``positions``, ``hidden_pieces``, per name of ``BELIEFS`` its mean nats per hidden piece (``network``
        ``None`` without ``net``), and ``phases`` (per ``PHASES`` name: ``n`` and the same means).
    """
    parts: dict[str, list] = {"ply": []}
    positions = 0
    for batch in HumanDecisions(games, variant, batch_size=batch_size, slots=64, shuffle=False, phases=(SELECT,)):
        scored = belief_nll(batch, variant, net)
        parts["ply"].append(batch.ply[scored.pop("row")].astype(np.int64))
        for k, v in scored.items():
            parts.setdefault(k, []).append(v)
        positions += len(batch)
    nll = {k: np.concatenate(v) if v else np.zeros(0) for k, v in parts.items()}
    ply = nll.pop("ply")
    return {"positions": positions, **summarise_nll(nll, ply)}


def summarise_nll(nll: dict[str, np.ndarray], ply: np.ndarray) -> dict:
    """Mean nats per hidden piece of each belief, overall and by game phase.

    Args:
        nll: per name of ``BELIEFS`` (those scored) ``float64[H]``, as ``belief_nll`` gives them.
        ply: ``int64[H]``: the ply of each hidden piece's position.

    Returns:
        ``hidden_pieces``, per name of ``BELIEFS`` its mean (``None`` where not scored or no piece), and
        ``phases`` (per ``PHASES`` name: ``n`` and the same means).
    """
    def means(select: np.ndarray) -> dict:
        return {k: float(nll[k][select].mean()) if k in nll and select.any() else None for k in BELIEFS}

    return {"hidden_pieces": int(len(ply)), **means(np.ones(len(ply), bool)),
            "phases": {name: {"n": int(((ply >= lo) & (ply < hi)).sum()), **means((ply >= lo) & (ply < hi))}
                       for name, lo, hi in PHASES}}


def format_belief_metrics(r: dict) -> str:
    """``belief_metrics``' result as a table (nats per hidden piece; lower is better)."""
    names = [k for k in BELIEFS if r[k] is not None]
    lines = [f"{r['hidden_pieces']:,} hidden pieces in {r['positions']:,} positions (nats per hidden piece)",
             f"{'phase':<9} {'n':>9} " + " ".join(f"{k:>8}" for k in names)]
    for name, row in [*r["phases"].items(), ("all", {"n": r["hidden_pieces"], **{k: r[k] for k in names}})]:
        if row["n"]:
            lines.append(f"{name:<9} {row['n']:>9,} " + " ".join(f"{row[k]:>8.3f}" for k in names))
    return "\n".join(lines)


def start_from(net: BeliefNet, path: str | Path, variant: str) -> None:
    """Load into ``net`` the belief network of checkpoint ``path``, which must have learnt ``variant``, as
    ``pretrain --init`` asks of a policy (``nn.checkpoint.starting_weights``).

    Raises:
        CheckpointError: no belief network in ``path``, one of another shape, or one of another variant.
    """
    start, meta = load_belief(path)
    if start.config != net.config:
        raise CheckpointError(f"{path}: its belief network {start.config} does not fit this run's {net.config}")
    if meta.get("variant", variant) != variant:
        raise CheckpointError(f"{path}: its belief network learnt {meta['variant']}, this run learns {variant}")
    net.load_state_dict(start.state_dict())


def _meta(cfg: BeliefTrainConfig, net: BeliefNet, counters: RunCounters, evaluation: dict | None) -> dict:
    meta = {"deepnash_version": __version__, "kind": BELIEF_KIND, "config": cfg.to_dict(),
            "belief_net": net.config.to_dict(), "variant": cfg.variant,
            "counters": {"step": counters.step, "positions": counters.items, "seconds": counters.seconds}}
    return meta if evaluation is None else {**meta, "evaluation": evaluation}


def resume_belief_config(path: str | Path) -> BeliefTrainConfig:
    """The ``BeliefTrainConfig`` of the run in ``path``.

    Raises:
        CheckpointError: no valid checkpoint there, or not a belief run's.
    """
    return BeliefTrainConfig(**load_run(path, BELIEF_KIND, "pretrain-belief").meta["config"])


def pretrain_belief(cfg: BeliefTrainConfig, games: list[HumanGame], out: str | Path, *, steps: int | None = None,
                    minutes: float | None = None, resume: bool = False, device: str = "cpu",
                    progress: bool = True) -> dict:
    """Learn the belief from ``games`` until ``steps`` updates in all or ``minutes`` of this invocation.

    Args:
        cfg: the run's configuration (on resume: ``resume_belief_config(out)``).
        games: every usable game of ``cfg.variant``; split here into training and validation.
        out: the run directory (checkpoints, ``tb/``).
        resume: continue the run in ``out``.

    Returns:
        ``out``, the counters, the last loss, ``train_games``/``validation_games`` and ``validation``
        (``belief_metrics`` on up to ``cfg.eval_games`` validation games, also stored in the last checkpoint).

    Raises:
        ValueError: no bound, or no training games.
        FileExistsError: a fresh run into a directory that holds checkpoints.
        CheckpointError: ``resume`` and the checkpoint is missing, corrupt or not a belief run's.
    """
    out, train_games, val_games = split_run(cfg, games, out, steps, minutes, resume)
    dev = torch.device(device)
    torch.manual_seed(cfg.seed)
    net = BeliefNet(BELIEF_PRESETS[cfg.net]).to(dev)
    if cfg.init and not resume:
        start_from(net, cfg.init, cfg.variant)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    counters = RunCounters()
    if resume:
        stored = restore_run(load_run(out, BELIEF_KIND, "pretrain-belief"), net, opt)
        counters = RunCounters(stored["step"], stored["positions"], stored["seconds"])
    source = HumanDecisions(train_games, cfg.variant, batch_size=cfg.batch_size, slots=cfg.slots, buffer=cfg.buffer,
                            epochs=None, seed=cfg.seed + 7919 * counters.step, sample=cfg.sample, phases=(SELECT,))
    stream = iter(source)

    def update() -> tuple[int, dict[str, float]]:
        batch = next(stream)
        return len(batch), {"belief": belief_update(net, opt, batch.obs, batch.opponent_types, cfg.mirror, dev)}

    runlog = RunLog(out, steps, counters.step, progress=progress, label="belief")
    net.train()
    losses, evaluation = run_updates(
        update, counters, runlog, steps=steps, minutes=minutes,
        save=lambda evaluation: save_run(out, net, opt, counters.step, _meta(cfg, net, counters, evaluation)),
        evaluate=(lambda: _report(net, val_games, cfg, counters, runlog)) if val_games else None,
        checkpoint_minutes=cfg.checkpoint_minutes, eval_minutes=cfg.eval_minutes,
        games_done=lambda: source.games_done, unit="positions")
    return {"out": str(out), "variant": cfg.variant, "preset": cfg.net, "step": counters.step,
            "positions": counters.items, "seconds": counters.seconds, "loss": losses.get("belief", math.nan),
            "train_games": len(train_games), "validation_games": len(val_games), "validation": evaluation}


def _report(net: BeliefNet, games: list[HumanGame], cfg: BeliefTrainConfig, counters: RunCounters,
            runlog: RunLog) -> dict:
    net.eval()
    r = belief_metrics(net, games, cfg.variant)
    net.train()
    runlog.scalars(counters.step, {f"validation/belief_{k}": r[k] for k in BELIEFS if r[k] is not None})
    runlog.message(f"step {counters.step}: validation belief {r['network']:.3f} nats per hidden piece "
                   f"(public {r['public']:.3f}, heuristic sampler {r['sampler']:.3f})")
    return r
