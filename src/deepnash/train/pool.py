"""Where the learner gets games: self-play in its own process, or actor processes feeding a bounded queue.

Actor processes (``torch.multiprocessing``, spawn) each run ``SelfPlay`` with a
private copy of the network and push finished games into a queue of at most
``queue_games`` games (a full queue makes the actors wait).  The learner
publishes its weights into shared memory every ``sync_every`` updates; actors
pick up a new version between steps.  The league's past networks (``TrainConfig.league``)
travel the same way; each actor makes its own bots (``TrainConfig.bots``).  Source: ``docs/rnad.md`` §7.
"""

from __future__ import annotations

import copy
import os
import queue as queue_mod

import torch
import torch.multiprocessing as mp
from torch import nn

from .actor import GameRecord, SelfPlay, self_play_setups
from .config import TrainConfig


class LocalGames:
    """Self-play inside the learner's process (``actors = 0``): games are played when asked for."""

    def __init__(self, net: nn.Module, cfg: TrainConfig, seed: int, device: torch.device):
        self.net = copy.deepcopy(net).requires_grad_(False).eval()
        self.selfplay = SelfPlay(self.net, cfg.variant, cfg.envs, seed, cfg.max_steps, device,
                                 self_play_setups(cfg.setups, cfg.variant), cfg.league, cfg.bots, cfg.bot_share)
        self._spare: list[GameRecord] = []

    def set_league(self, members: list[tuple[int, nn.Module]]) -> None:
        """Draw rivals from these ``(key, network)`` past networks from now on (``SelfPlay.set_league``)."""
        device = self.selfplay.device
        self.selfplay.set_league([(key, copy.deepcopy(m).requires_grad_(False).to(device)) for key, m in members])

    @property
    def env_steps(self) -> int:
        """Agent steps played so far."""
        return self.selfplay.env_steps

    def publish(self, net: nn.Module) -> None:
        """Play with ``net``'s current weights from now on."""
        self.net.load_state_dict(net.state_dict())

    def get(self, n: int) -> list[GameRecord]:
        """The next ``n`` finished games."""
        while len(self._spare) < n:
            self._spare.extend(self.selfplay.step())
        out, self._spare = self._spare[:n], self._spare[n:]
        return out

    def close(self) -> None:
        """Nothing to stop."""


def _actor_main(index: int, cfg: TrainConfig, shared: nn.Module, version, lock, games, steps, seed: int,
                parent: int, league: list[nn.Module], league_keys, league_version) -> None:
    torch.set_num_threads(1)
    net = copy.deepcopy(shared).eval()
    seen = league_seen = -1
    selfplay = SelfPlay(net, cfg.variant, cfg.envs, seed + 7919 * (index + 1), cfg.max_steps,
                        setups=self_play_setups(cfg.setups, cfg.variant), league_share=cfg.league, bots=cfg.bots,
                        bot_share=cfg.bot_share)
    counted = 0
    while os.getppid() == parent:
        if version.value != seen:
            with lock:
                net.load_state_dict(shared.state_dict())
                seen = version.value
        if league_version.value != league_seen:
            with lock:
                members = [(int(key), copy.deepcopy(member)) for key, member in zip(league_keys, league) if key >= 0]
                league_seen = league_version.value
            selfplay.set_league(members)
        for game in selfplay.step():
            while os.getppid() == parent:
                try:
                    games.put(game, timeout=1.0)
                    break
                except queue_mod.Full:
                    continue
        with steps.get_lock():
            steps.value += selfplay.env_steps - counted
        counted = selfplay.env_steps


class ActorPool:
    """``cfg.actors`` actor processes playing into a bounded queue."""

    def __init__(self, net: nn.Module, cfg: TrainConfig, seed: int):
        ctx = mp.get_context("spawn")
        self.shared = copy.deepcopy(net).cpu().requires_grad_(False).share_memory()
        self.version = ctx.Value("q", 0)
        self.lock = ctx.Lock()
        self.games = ctx.Queue(maxsize=cfg.queue_games)
        self._steps = ctx.Value("q", 0)
        self.league = [copy.deepcopy(self.shared).share_memory() for _ in range(cfg.league_size if cfg.league else 0)]
        self.league_keys = ctx.Array("q", [-1] * len(self.league))
        self.league_version = ctx.Value("q", 0)
        self.procs = [
            ctx.Process(target=_actor_main, daemon=True,
                        args=(i, cfg, self.shared, self.version, self.lock, self.games, self._steps, seed,
                              os.getpid(), self.league, self.league_keys, self.league_version))
            for i in range(cfg.actors)
        ]
        for p in self.procs:
            p.start()

    @property
    def env_steps(self) -> int:
        """Agent steps played by all actors so far."""
        return int(self._steps.value)

    def publish(self, net: nn.Module) -> None:
        """Copy ``net``'s weights to shared memory; actors load them before their next step."""
        with self.lock:
            for dst, src in zip(self.shared.state_dict().values(), net.state_dict().values()):
                dst.copy_(src.detach().cpu())
            self.version.value += 1

    def set_league(self, members: list[tuple[int, nn.Module]]) -> None:
        """Copy the league's ``(key, network)`` past networks to shared memory; actors draw rivals from them
        after their next step.

        Raises:
            ValueError: more members than ``TrainConfig.league_size`` (none when ``league`` is 0).
        """
        if len(members) > len(self.league):
            raise ValueError(f"a league of {len(members)} networks: this pool holds at most {len(self.league)}")
        with self.lock:
            for i, slot in enumerate(self.league):
                key, member = members[i] if i < len(members) else (-1, None)
                if member is not None:
                    for dst, src in zip(slot.state_dict().values(), member.state_dict().values()):
                        dst.copy_(src.detach().cpu())
                self.league_keys[i] = key
            self.league_version.value += 1

    def get(self, n: int) -> list[GameRecord]:
        """The next ``n`` finished games (waits for them).

        Raises:
            RuntimeError: every actor process has died.
        """
        out = []
        while len(out) < n:
            try:
                out.append(self.games.get(timeout=5.0))
            except queue_mod.Empty:
                if not any(p.is_alive() for p in self.procs):
                    codes = [p.exitcode for p in self.procs]
                    raise RuntimeError(f"all actor processes died (exit codes {codes})") from None
        return out

    def close(self) -> None:
        """Stop the actor processes."""
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            p.join(timeout=5)
