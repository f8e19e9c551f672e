"""What the runs that learn from records share (``deepnash pretrain``, ``deepnash pretrain-belief``): their
checkpoints, their resumption, and the loop that bounds them by updates or minutes.

A run's checkpoint holds its network under ``online``, the optimiser's tensors under ``optimizer`` (its
skeleton in the manifest) and torch's random state under ``rng``; the manifest names the run's ``kind``,
so that one command never resumes the other's run.  The loop takes one update at a time until the
bound, checkpoints every few minutes and on the way out (also after SIGTERM), and reports on the
held-out games every few minutes and at the end.
"""

from __future__ import annotations

import math
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from ..nn.checkpoint import Checkpoint, CheckpointError, join_tensors, load_checkpoint, save_checkpoint, split_tensors
from ..rnad.optim import load_moments
from .logs import RunLog


@dataclass(frozen=True)
class RecordsRunConfig:
    """What a run that learns from records is given, whatever it learns.

    Attributes:
        net: the network preset.
        variant: ``"classic"`` or ``"barrage"``.
        batch_size: decisions (positions) per update.
        learning_rate: Adam's step size.
        validation: share of the games held out for validation (split by game, ``human.split_games``:
            the same games in every run).
        slots: games replayed at once by the stream (more slots: fewer decisions of one game per shuffled buffer).
        buffer: decisions shuffled together.
        sample: the share of each game's decisions the stream emits (``HumanDecisions``): with many
            ``slots``, a small share keeps the network from learning the games in flight by heart.
            Refitting the shipped Classic network's value head for 6 minutes (``--value-only``), 512
            slots and every decision end at a validation Brier of 0.307 (training cross-entropy 0.27:
            the games in flight learnt by heart), 4,096 slots and an eighth of them at 0.213.
        mirror: reflect half of every batch left to right.
        checkpoint_minutes: wall-clock minutes between checkpoints.
        eval_minutes: wall-clock minutes between validation reports.
        eval_games: validation games scored in each report (0: all of them).
        seed: seeds the network, the stream and the mirroring.
        records: the Gravon files, zips or folders the run learns from (absolute paths; a resumed run
            reads them again, so its split is the same).
    """

    net: str = "small"
    variant: str = "classic"
    batch_size: int = 256
    learning_rate: float = 1e-3
    validation: float = 0.05
    slots: int = 4096
    buffer: int = 16384
    sample: float = 0.125
    mirror: bool = True
    checkpoint_minutes: float = 5.0
    eval_minutes: float = 15.0
    eval_games: int = 200
    seed: int = 0
    records: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        name = type(self).__name__
        for field in ("batch_size", "slots", "buffer"):
            if getattr(self, field) < 1:
                raise ValueError(f"{name}.{field} must be at least 1, got {getattr(self, field)}")
        if not 0 < self.sample <= 1:
            raise ValueError(f"{name}.sample must be in (0, 1], got {self.sample}")
        if self.eval_games < 0 or self.learning_rate <= 0:
            raise ValueError(f"{name}: eval_games must be >= 0 and learning_rate > 0")

    def to_dict(self) -> dict:
        """JSON-ready dict (the run's resume reads it back)."""
        return asdict(self)


@dataclass
class RunCounters:
    """Totals over the whole run, carried across resumes: ``step`` updates, ``items`` learnt from (decisions,
    positions), ``seconds`` of training."""

    step: int = 0
    items: int = 0
    seconds: float = 0.0


def split_run(cfg: RecordsRunConfig, games: list, out: str | Path, steps: int | None, minutes: float | None,
              resume: bool) -> tuple[Path, list, list]:
    """Check a run's bounds and directory, and split ``games`` (``HumanGame`` s) for it.

    Returns:
        ``(out, training games, validation games)``: the validation games sorted by key, the first
        ``cfg.eval_games`` of them (all with 0).

    Raises:
        ValueError: no bound, or no training games.
        FileExistsError: a fresh run into a directory that holds checkpoints.
    """
    from .human import split_games

    if steps is None and minutes is None:
        raise ValueError("give steps or minutes (or both) to bound the run")
    out = Path(out)
    if not resume and (out / "latest").exists():
        raise FileExistsError(f"{out} already holds a run; resume it with --resume {out}")
    train_games, val_games = split_games(games, cfg.validation)
    if not train_games:
        raise ValueError(f"no {cfg.variant} training games among {len(games)} games")
    return out, train_games, sorted(val_games, key=lambda g: g.key)[:cfg.eval_games or None]


def save_run(out: Path, net: torch.nn.Module, opt: torch.optim.Optimizer, step: int, meta: dict) -> Path:
    """Checkpoint ``net``, ``opt`` and torch's random state with ``meta`` (the caller's: kind, config, counters...).

    Returns:
        The written checkpoint directory.
    """
    opt_tensors, opt_skeleton = split_tensors(opt.state_dict())
    return save_checkpoint(out, step, {"online": net.state_dict(), "optimizer": opt_tensors,
                                       "rng": {"torch": torch.get_rng_state()}}, {**meta, "optimizer": opt_skeleton})


def load_run(path: str | Path, kind: str, command: str) -> Checkpoint:
    """The latest checkpoint of the run at ``path``.

    Raises:
        CheckpointError: no valid checkpoint there, or not of ``kind`` (the message names ``command``).
    """
    ck = load_checkpoint(path)
    if ck.meta.get("kind") != kind:
        raise CheckpointError(f"{ck.path}: not a deepnash {command} checkpoint")
    return ck


def restore_run(ck: Checkpoint, net: torch.nn.Module, opt: torch.optim.Optimizer) -> dict:
    """Put the run's network, optimiser and random state back; returns its stored counters.  The optimiser's
    moments come from the checkpoint, its hyperparameters stay ``opt``'s own (``--resume DIR --lr X`` applies)."""
    net.load_state_dict(ck.groups["online"])
    load_moments(opt, join_tensors(ck.meta["optimizer"], ck.groups["optimizer"]))
    torch.set_rng_state(ck.groups["rng"]["torch"])
    return ck.meta["counters"]


def run_updates(update: Callable[[], tuple[int, dict[str, float]]], counters: RunCounters, runlog: RunLog, *,
                steps: int | None, minutes: float | None, save: Callable[[dict | None], Path],
                evaluate: Callable[[], dict] | None, checkpoint_minutes: float, eval_minutes: float,
                games_done: Callable[[], int], unit: str) -> tuple[dict[str, float], dict | None]:
    """Call ``update`` until ``counters.step`` reaches ``steps`` or ``minutes`` pass (or SIGTERM comes).

    Args:
        update: one update; returns the items it learnt from and its losses by name (the first one
            shows on the progress bar).
        save: checkpoints the run with the given evaluation (or ``None``).
        evaluate: the report on held-out games (``None``: none).
        games_done: the stream's finished games, for the progress bar.
        unit: what an item is, plural (``decisions``), for the rates.

    Returns:
        ``(the last losses, the last evaluation)``; the run is checkpointed with it.

    Raises:
        FloatingPointError: a loss is not finite (the checkpoint before it stays the latest).
    """
    stop_requested: list[bool] = []
    old = signal.signal(signal.SIGTERM, lambda *_: stop_requested.append(True))
    start = last_ckpt = last_eval = time.monotonic()
    step0, items0 = counters.step, counters.items
    losses: dict[str, float] = {}
    evaluation = None
    try:
        while not ((steps is not None and counters.step >= steps)
                   or (minutes is not None and time.monotonic() - start >= 60 * minutes) or stop_requested):
            n, losses = update()
            if not all(math.isfinite(v) for v in losses.values()):
                raise FloatingPointError(f"non-finite loss at step {counters.step}: {losses}")
            counters.step += 1
            counters.items += n
            now = time.monotonic()
            rate = (counters.items - items0) / max(now - start, 1e-9)
            runlog.scalars(counters.step, {**{f"losses/{k}": v for k, v in losses.items()},
                                           f"charts/{unit}_per_s": rate,
                                           "charts/updates_per_s": (counters.step - step0) / max(now - start, 1e-9)})
            name, first = next(iter(losses.items()))
            runlog.progress(counters.step, games_done(), rate, f"{name} {first:.3f}", unit=f"{unit}/s")
            if now - last_ckpt >= 60 * checkpoint_minutes:
                counters.seconds += now - last_ckpt
                last_ckpt = now
                save(None)
            if evaluate is not None and now - last_eval >= 60 * eval_minutes:
                evaluation = evaluate()
                last_eval = time.monotonic()
        if evaluate is not None:
            evaluation = evaluate()
        counters.seconds += time.monotonic() - last_ckpt
        runlog.message(f"checkpoint {save(evaluation)}")
    finally:
        signal.signal(signal.SIGTERM, old)
        runlog.close()
    return losses, evaluation
