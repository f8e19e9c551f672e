"""The training loop: games from the actors, one R-NaD update per batch, checkpoints, logs, evaluations.

Source: ``docs/rnad.md`` §7.  Each update takes ``batch_games`` whole games,
pads them (``batch.to_trajectory``), lets ``rnad.RNaDLearner`` compute v-trace
over whole games and accumulate gradients chunk by chunk, averages the
gradients across data-parallel ranks, then applies the update.
"""

from __future__ import annotations

import hashlib
import math
import re
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .. import __version__
from ..agents import make_agent
from ..agents.base import check_setup_source, draw_setup
from ..game import get_variant
from ..nn import DeepNashNet
from ..nn.checkpoint import (CheckpointError, join_tensors, load_checkpoint, save_agent, save_checkpoint, starting_weights,
                         split_tensors)
from ..rnad import RNaDLearner
from . import distributed
from .actor import self_play_setups
from .batch import to_trajectory
from .bot_rival import tally_bots
from .config import TrainConfig
from .evaluate import network_versus
from .league import League
from .logs import RunLog
from .pool import ActorPool, LocalGames

#: Checkpoint group name of each learner network (the agent plays ``online``).
GROUPS = {"theta": "online", "theta_target": "target", "theta_reg": "reg", "theta_reg_prev": "reg_prev"}
#: The run's sub-directory holding its best-evaluated network as an agent checkpoint.
BEST = "best"


@dataclass
class Counters:
    """Totals over the whole run, carried across resumes."""

    learner_step: int = 0
    games: int = 0
    env_steps: int = 0
    seconds: float = 0.0


#: Above this many updates of games in flight (``TrainConfig.games_in_flight`` over ``batch_games``), ``train`` says
#: its games will be stale: 10 updates of ``--lr 5e-4`` halve a Classic game's trace within ten moves.
STALE_UPDATES = 8


def _meta(learner: RNaDLearner, cfg: TrainConfig, counters: Counters, world: int) -> dict:
    point = learner.schedule()
    return {
        "deepnash_version": __version__, "config": cfg.to_dict(), "net": cfg.net_config.to_dict(),
        "variant": cfg.variant, "counters": vars(counters).copy(), "world_size": world,
        "schedule": {"iteration": point.iteration, "step_in_iteration": point.step_in_iteration,
                     "alpha": point.alpha},
    }


def _save(out: Path, learner: RNaDLearner, cfg: TrainConfig, counters: Counters, rank_world: int) -> Path:
    groups = {GROUPS[name]: net.state_dict() for name, net in learner.networks().items()}
    opt_tensors, opt_skeleton = split_tensors(learner.optimizer.state_dict())
    groups["optimizer"] = opt_tensors
    groups["rng"] = {"torch": torch.get_rng_state()}
    meta = {**_meta(learner, cfg, counters, rank_world), "optimizer": opt_skeleton}
    return save_checkpoint(out, counters.learner_step, groups, meta)


def _best_win_rate(out: Path, cfg: TrainConfig) -> float:
    """The win rate of the run's best-evaluated network so far in evaluations like ``cfg``'s (-1 before
    any: a run resumed with another ``eval_opponent`` or ``eval_setup`` starts its best afresh).

    Raises:
        CheckpointError: ``out/best`` exists but is corrupt (it is left as it is).
    """
    if not (out / BEST).exists():
        return -1.0
    evaluation = load_checkpoint(out / BEST).meta["evaluation"]
    if (evaluation.get("opponent", "random"), evaluation.get("setup", "own")) != (cfg.eval_opponent, cfg.eval_setup):
        return -1.0
    return float(evaluation["win_rate"])


def _tag(cfg: TrainConfig) -> str:
    """The evaluation as a TensorBoard tag part: the opponent (``mcts:sims=50`` -> ``mcts_sims_50``),
    then the setup source unless ``own`` (``cautious_walled``)."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", cfg.eval_opponent)
    return name if cfg.eval_setup == "own" else f"{name}_{cfg.eval_setup}"


def _evaluate(learner: RNaDLearner, cfg: TrainConfig, counters: Counters, world: int, seed: int,
              out: Path, best: float, runlog: RunLog) -> tuple[dict[str, dict], float]:
    """Play the online and the target network against ``cfg.eval_opponent`` from ``cfg.eval_setup``'s
    setups (same games); keep the best one.

    A network that beats every earlier evaluation of the run is written to ``out/best`` as a
    compact agent checkpoint (``checkpoint:OUT/best``), its evaluation (with its opponent and setup
    source) in the manifest.

    Returns:
        ``({"online": result, "target": result}, best win rate so far)``.
    """
    nets = {"online": learner.theta, "target": learner.theta_target}
    opponent = cfg.eval_opponent
    results = {w: network_versus(net, opponent, cfg.variant, cfg.eval_games, seed=seed, setup=cfg.eval_setup)
               for w, net in nets.items()}
    step = counters.learner_step
    runlog.scalars(step, {f"eval/win_rate_vs_{_tag(cfg)}": results["online"]["win_rate"],
                          f"eval/target_win_rate_vs_{_tag(cfg)}": results["target"]["win_rate"]})
    deployed = "" if cfg.eval_setup == "own" else f" from {cfg.eval_setup} setups"
    runlog.message(f"step {step}: vs {opponent}{deployed} (win-draw-loss) " + ", ".join(
        f"{w} {r['wins']}-{r['draws']}-{r['losses']}" for w, r in results.items()))
    weights = max(results, key=lambda w: results[w]["win_rate"])
    if results[weights]["win_rate"] > best:
        best = results[weights]["win_rate"]
        meta = {**_meta(learner, cfg, counters, world),
                "evaluation": {"weights": weights, "seed": seed, "opponent": opponent, "setup": cfg.eval_setup,
                               **results[weights]}}
        save_agent(out / BEST, step, nets[weights].state_dict(), meta)
        runlog.message(f"step {step}: new best, the {weights} network ({best:.1%}) in {out / BEST}")
    return results, best


def _restore(path: Path, learner: RNaDLearner) -> Counters:
    ck = load_checkpoint(path)
    missing = [g for g in (*GROUPS.values(), "optimizer", "rng") if g not in ck.groups]
    if missing:
        raise CheckpointError(f"{ck.path}: not a training checkpoint (missing {', '.join(missing)})")
    counters = Counters(**ck.meta["counters"])
    state = {name: ck.groups[g] for name, g in GROUPS.items()}
    state["optimizer"] = join_tensors(ck.meta["optimizer"], ck.groups["optimizer"])
    state["learner_step"] = counters.learner_step
    learner.load_state_dict(state)
    torch.set_rng_state(ck.groups["rng"]["torch"])
    return counters


def init_networks(learner: RNaDLearner, cfg: TrainConfig) -> None:
    """Set the learner's four networks to the ``online`` network of the checkpoint ``cfg.init`` (with
    ``cfg.value_only``, all four with one fresh value head).

    Raises:
        CheckpointError: the checkpoint is missing, corrupt or holds no ``online`` network.
        ValueError: its network is not of ``cfg.net``'s shape.
    """
    weights = starting_weights(cfg.init, cfg.net_config.to_dict(), cfg.net, cfg.variant,
                               on_upgrade=lambda line: print(line, file=sys.stderr, flush=True))
    if cfg.value_only:  # a value head that says nothing may be dead (ReLUs that never fire): start it afresh
        learner.theta.load_state_dict(weights)
        learner.theta.reset_value_head()
        weights = learner.theta.state_dict()
    for net in learner.networks().values():
        net.load_state_dict(weights)


def init_network(path: str | Path) -> tuple[str, int]:
    """The network preset (its ``config.net``) and version (``config.net_version``; 1 where it names none) of
    the checkpoint at ``path``.

    Raises:
        CheckpointError: no valid checkpoint there, or none that names its preset.
    """
    config = load_checkpoint(path).meta.get("config", {})
    name = config.get("net")
    if not isinstance(name, str):
        raise CheckpointError(f"{Path(path)}: the manifest names no network preset")
    return name, int(config.get("net_version", 1))


def resume_config(path: str | Path) -> TrainConfig:
    """The ``TrainConfig`` a run was started with (read from its latest checkpoint).

    Raises:
        CheckpointError: no valid checkpoint at ``path``.
    """
    return TrainConfig.from_dict(load_checkpoint(path).meta["config"])


def _entropy(games) -> float:
    mu = np.concatenate([g.behaviour for g in games])
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(-np.nansum(np.where(mu > 0, mu * np.log(mu), 0.0), axis=1).mean())


def train(cfg: TrainConfig, out: str | Path, *, steps: int | None = None, minutes: float | None = None,
          resume: bool = False, device: str = "cpu", progress: bool = True) -> dict:
    """Train until ``steps`` learner steps in all (counting resumed ones) or ``minutes`` of wall-clock time.

    Args:
        cfg: the run's configuration (on resume, pass ``resume_config(out)``).
        out: the run directory: checkpoints, ``latest``, TensorBoard files under ``tb/`` and, once
            evaluations run, ``best/``: the network (online or target) with the best evaluation so far,
            as an agent checkpoint (its evaluation under ``evaluation`` in the manifest).
        steps: stop once the learner has made this many updates in all.
        minutes: stop after this many minutes of this invocation.
        resume: continue the run in ``out`` from its latest checkpoint.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``...; under torchrun each rank takes ``cuda:LOCAL_RANK``.
        progress: show the progress bar.

    Returns:
        A summary: counters, last losses, ``params_sha256`` (digest of the online network's
        parameters: equal on every rank of a data-parallel run) and, unless ``cfg.eval_games`` is 0,
        the final evaluation (``eval`` and ``eval_target``: ``cfg.eval_games`` games of
        ``network_versus`` against ``cfg.eval_opponent``, named under ``eval_opponent``, by the online
        and the target network) and ``best_win_rate``, the rate of the run's best-evaluated network,
        kept in ``out/best``; with ``cfg.league``, ``league``: the learner's wins, draws and losses against
        each past network of its league, keyed by the learner step it was taken at (``train.league``); with
        ``cfg.bots``, ``bots``: its wins, draws and losses against each bot, keyed by its spec.

    Raises:
        CheckpointError: ``resume`` and the checkpoint (or ``out/best``) is missing or corrupt (nothing is
            written then).
        FileExistsError: a fresh run into a directory that already holds checkpoints.
        ValueError: neither ``steps`` nor ``minutes`` given.
        AgentSpecError: ``cfg.eval_opponent`` or one of ``cfg.bots`` is not an agent spec (before anything is
            written).
        ValueError: ``cfg.eval_setup`` or ``cfg.setups`` is not a setup source or has no setups for the
            variant (likewise).
    """
    if steps is None and minutes is None:
        raise ValueError("give steps or minutes (or both) to bound the run")
    for spec in dict.fromkeys((cfg.eval_opponent, *cfg.bots)):  # a bad spec fails now, not at the first
        make_agent(spec)                                            # evaluation or in an actor
    if check_setup_source(cfg.eval_setup) != "own":
        draw_setup(cfg.eval_setup, get_variant(cfg.variant), 0, np.random.default_rng(0))
    self_play_setups(cfg.setups, cfg.variant)
    out = Path(out)
    dev = torch.device(device)
    rank = distributed.init(dev)
    if dev.type == "cuda" and rank.world > 1:
        dev = torch.device("cuda", rank.local_rank)
    if not resume and (out / "latest").exists():
        raise FileExistsError(f"{out} already holds a training run; resume it with --resume {out}")
    torch.manual_seed(cfg.seed + rank.rank)
    learner = RNaDLearner(lambda: DeepNashNet(cfg.net_config), cfg.rnad, dev)
    if cfg.init and not resume:
        init_networks(learner, cfg)
    if cfg.value_only:
        learner.theta.train_value_only()
    counters = _restore(out, learner) if resume else Counters()
    best = _best_win_rate(out, cfg) if resume else -1.0
    distributed.broadcast_modules(list(learner.networks().values()), rank.world)
    seed = cfg.seed + 1_000_003 * counters.learner_step + 7 * rank.rank
    source = (ActorPool(learner.theta, cfg, seed) if cfg.actors else LocalGames(learner.theta, cfg, seed, dev))
    league = League(cfg.league_size)
    bot_results: dict[str, list[int]] = {}  # bot spec -> the learner's [wins, draws, losses] against it
    iteration = learner.schedule().iteration
    if cfg.league:
        league.join(counters.learner_step, learner.theta)
        source.set_league(league.members)
    runlog = RunLog(out, steps, counters.learner_step, enabled=rank.main, progress=progress)
    if cfg.games_in_flight > STALE_UPDATES * cfg.batch_games:
        runlog.message(f"note: {cfg.games_in_flight} games in flight for {cfg.batch_games} an update: a game will be "
                       f"some {cfg.games_in_flight // cfg.batch_games} updates old when the learner reads it, which "
                       "cuts v-trace's traces (charts/importance_weight); fewer --envs or --actors, or more "
                       "--batch-games, keep games fresher")
    stop_requested = []
    old = signal.signal(signal.SIGTERM, lambda *_: stop_requested.append(True))
    start = time.monotonic()
    last_ckpt = last_eval = start
    waited = 0.0  # seconds this invocation's learner spent waiting for (or, without actors, playing) games
    env_steps0 = env_steps_seen = source.env_steps
    step0 = counters.learner_step  # updates of earlier invocations do not count towards this one's rate
    metrics: dict[str, float] = {}
    final_eval: dict[str, dict] = {}
    try:
        while True:
            elapsed = time.monotonic() - start
            done = (steps is not None and counters.learner_step >= steps) or \
                   (minutes is not None and elapsed >= 60 * minutes) or bool(stop_requested)
            if distributed.any_rank(done, rank.world, dev):
                break
            asked = time.monotonic()
            games = source.get(cfg.batch_games)
            waited += time.monotonic() - asked
            metrics = learner.accumulate_gradients(to_trajectory(games), cfg.chunk)
            distributed.average_gradients(learner.theta, rank.world)
            metrics.update(learner.apply_update())
            counters.learner_step = learner.learner_step
            if counters.learner_step % cfg.sync_every == 0:
                source.publish(learner.theta)
            if cfg.league and learner.schedule().iteration != iteration:  # a new R-NaD iteration: its start joins
                iteration = learner.schedule().iteration
                league.join(counters.learner_step, learner.theta)
                source.set_league(league.members)
            counters.games += len(games) * rank.world
            counters.env_steps += (source.env_steps - env_steps_seen) * rank.world
            env_steps_seen = source.env_steps
            now = time.monotonic()
            sps = (source.env_steps - env_steps0) / max(now - start, 1e-9)
            endings = Counter(g.ending for g in games)
            scalars = {"losses/critic": metrics["loss_critic"], "losses/policy": metrics["loss_policy"],
                       "charts/alpha": metrics["alpha"], "charts/iteration": metrics["iteration"],
                       "charts/grad_norm": metrics["grad_norm"], "charts/policy_entropy": _entropy(games),
                       "charts/outside_band": metrics["outside_band"],
                       "charts/importance_weight": metrics["importance_weight"],
                       "charts/game_moves": float(np.mean([g.moves for g in games])),
                       "charts/game_steps": float(np.mean([g.steps for g in games])),
                       "charts/agent_steps_per_s": sps,
                       "charts/updates_per_s": (counters.learner_step - step0) / max(now - start, 1e-9),
                       "charts/games_wait_share": waited / max(now - start, 1e-9)}
            scalars.update({f"endings/{k}": v / len(games) for k, v in endings.items()})
            league_score = league.score(games)
            if league_score is not None:
                scalars["league/score"] = league_score
            scalars.update({f"bots/{name}": score for name, score in tally_bots(bot_results, games).items()})
            runlog.scalars(counters.learner_step, scalars)
            runlog.progress(counters.learner_step, counters.games, sps * rank.world,
                            f"critic {metrics['loss_critic']:.3f}")
            if not all(math.isfinite(metrics[k]) for k in ("loss_critic", "loss_policy")):
                raise FloatingPointError(f"non-finite loss at learner step {counters.learner_step}: {metrics}")
            if rank.main and now - last_ckpt >= 60 * cfg.checkpoint_minutes:
                counters.seconds += now - last_ckpt
                last_ckpt = now
                _save(out, learner, cfg, counters, rank.world)
            if rank.main and cfg.eval_games and now - last_eval >= 60 * cfg.eval_minutes:
                best = _evaluate(learner, cfg, counters, rank.world, counters.learner_step, out, best, runlog)[1]
                last_eval = time.monotonic()
        if rank.main:
            counters.seconds += time.monotonic() - last_ckpt
            path = _save(out, learner, cfg, counters, rank.world)
            runlog.message(f"checkpoint {path}")
            if cfg.eval_games:  # the final evaluation
                final_eval, best = _evaluate(learner, cfg, counters, rank.world, 10**6 + counters.learner_step,
                                             out, best, runlog)
    finally:
        signal.signal(signal.SIGTERM, old)
        source.close()
        runlog.close()
    digest = hashlib.sha256(b"".join(p.detach().cpu().numpy().tobytes() for p in learner.theta.parameters()))
    summary = {"out": str(out), "variant": cfg.variant, "preset": cfg.net, "rank": rank.rank, "world_size": rank.world,
               **vars(counters), "loss_critic": metrics.get("loss_critic"), "loss_policy": metrics.get("loss_policy"),
               "params_sha256": digest.hexdigest()}
    if cfg.league:
        summary["league"] = {str(key): dict(zip(("wins", "draws", "losses"), wdl))
                             for key, wdl in league.results.items()}
    if cfg.bots:
        summary["bots"] = {name: dict(zip(("wins", "draws", "losses"), wdl)) for name, wdl in bot_results.items()}
    if final_eval:
        summary.update(eval=final_eval["online"], eval_target=final_eval["target"], eval_opponent=cfg.eval_opponent,
                       best_win_rate=best)
    distributed.shutdown()
    return summary
