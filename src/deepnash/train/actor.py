"""Actors: batched self-play on ``VectorEnv`` recording whole games for the learner.

Source: ``docs/rnad.md`` §7 (actors play whole games into a queue) and the
DeepNash paper's "Infrastructure and Setup".  One batched network call per
environment step; each action is sampled from the network's policy restricted
to the legal-action mask, and that policy is recorded as the behaviour policy mu.
A share of the games can pit the network against a frozen past network of the
league (``docs/rnad.md`` §7, "A league of past networks"), and another share
against a bot (``bot_rival``, "Games against bots"): only the learner's side of
those games is recorded, the rival being part of the environment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..agents import make_agent
from ..env import VectorEnv
from ..env.setups import PEOPLE_POOLS, SetupSource
from ..game import Termination
from ..nn import masked_log_policy
from .bot_rival import BotSide

#: ``TrainConfig.setups``: where self-play's setups come from.
SELF_PLAY_SETUPS = ("own", "random", "human", "walled", "sheltered")


def self_play_setups(name: str, variant) -> SetupSource:
    """The ``VectorEnv`` setup source of ``TrainConfig.setups``: ``own`` (the deployment head, which then
    learns too), ``random`` (uniform legal), ``human`` (``human_pool``), ``walled`` (``walled_pool``,
    the setups ``shipped:classic`` plays) or ``sheltered`` (``sheltered_pool``, those ``shipped:barrage``
    plays).  With a drawn setup R-NaD trains the move policy alone.

    Raises:
        ValueError: an unknown name, or no such setups for the variant.
    """
    if name not in SELF_PLAY_SETUPS:
        raise ValueError(f"setups={name!r}: choose one of {', '.join(SELF_PLAY_SETUPS)}")
    if name in PEOPLE_POOLS:
        return PEOPLE_POOLS[name](variant)
    return "learned" if name == "own" else name


def check_shares(league_share: float, bot_share: float, bots: Sequence[str]) -> None:
    """Check the shares of the games played against the league and against bots.

    Raises:
        ValueError: a share outside [0, 1], the two summing to more than 1, or ``bot_share`` without ``bots``.
    """
    for name, share in (("league", league_share), ("bot", bot_share)):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"the {name} share of the games must be within [0, 1], got {share}")
    if league_share + bot_share > 1.0:
        raise ValueError(f"the league's and the bots' shares of the games sum to {league_share + bot_share}, over 1")
    if bot_share > 0 and not bots:
        raise ValueError(f"a bot share of {bot_share} with no bots: name them (TrainConfig.bots, --bot)")


@dataclass(frozen=True)
class GameRecord:
    """One whole self-play game, ``T`` agent steps (deployment, then select/displace pairs).

    Attributes:
        obs: ``float16[T, 82, 10, 10]`` the acting player's observation (float16 is exact
            enough for every plane and halves the memory).
        legal: ``bool[T, 100]`` legal-action mask.
        player: ``int8[T]`` acting player (0 Red, 1 Blue).
        action: ``int64[T]`` action taken (acting player's frame).
        behaviour: ``float32[T, 100]`` policy the action was sampled from.
        rewards: ``float32[T, 2]`` (Red, Blue) rewards after each action; non-zero only at the end.
        winner: 0, 1, or -1 for a draw (and for a game cut at ``max_steps``).
        termination: a ``game.Termination`` code, or -1 for a game cut at ``max_steps``.
        moves: moves (plies) played.
        side: the one player the network played in a game against a past network of the league or a bot
            (only its steps are recorded, ``player`` is ``side`` throughout); -1 for self-play (both sides).
        rival: the league key of that past network (``SelfPlay.set_league``); -1 otherwise.
        opponent: the bot's agent spec in a game against a bot (``SelfPlay``'s ``bots``); "" otherwise.
    """

    obs: np.ndarray
    legal: np.ndarray
    player: np.ndarray
    action: np.ndarray
    behaviour: np.ndarray
    rewards: np.ndarray
    winner: int
    termination: int
    moves: int
    side: int = -1
    rival: int = -1
    opponent: str = ""

    @property
    def steps(self) -> int:
        """T, the number of agent steps."""
        return int(self.action.shape[0])

    @property
    def outcome(self) -> int:
        """The result for the recorded side of a game against a rival: 0 won, 1 drawn, 2 lost.

        Raises:
            ValueError: a self-play game (both sides recorded).
        """
        if self.side < 0:
            raise ValueError("a self-play game has no one side to score")
        return 1 if self.winner < 0 else (0 if self.winner == self.side else 2)

    @property
    def ending(self) -> str:
        """How the game ended: a lower-case ``Termination`` name, or ``"truncated"``."""
        return "truncated" if self.termination < 0 else Termination(self.termination).name.lower()


class _Slot:
    """The steps recorded so far in one env slot, and who plays its game."""

    __slots__ = ("obs", "legal", "player", "action", "behaviour", "skip", "played", "side", "rival", "rival_key",
                 "bot")

    def __init__(self) -> None:
        self.obs, self.legal, self.player, self.action, self.behaviour = [], [], [], [], []
        self.skip = False  # the running game was cut at max_steps; wait for the slot's next game
        self.played = 0  # agent steps of the running game, both sides'
        self.side, self.rival, self.rival_key = -1, None, -1  # self-play until ``SelfPlay`` draws a rival
        self.bot: BotSide | None = None

    def record(self, obs, legal, player, action, behaviour) -> None:
        self.obs.append(obs)
        self.legal.append(legal)
        self.player.append(player)
        self.action.append(action)
        self.behaviour.append(behaviour)

    def finish(self, final_rewards: np.ndarray, winner: int, termination: int, moves: int) -> GameRecord:
        t = len(self.action)
        rewards = np.zeros((t, 2), dtype=np.float32)
        rewards[-1] = final_rewards
        rec = GameRecord(np.stack(self.obs), np.stack(self.legal), np.asarray(self.player, np.int8),
                         np.asarray(self.action, np.int64), np.stack(self.behaviour), rewards,
                         winner, termination, moves, self.side, self.rival_key,
                         self.bot.name if self.bot is not None else "")
        self.__init__()
        return rec


class SelfPlay:
    """``num_envs`` games of one network against itself, or against frozen past networks, stepped together.

    Args:
        net: maps ``float32[N, 82, 10, 10]`` to ``(logits [N, 100], value [N])``; used in eval mode
            without gradients.  Where its class defines ``logits(obs)`` (``DeepNashNet.logits``, the
            policy heads alone), self-play calls that: the value is not needed to act.
        variant: ``"classic"``, ``"barrage"`` or a ``Variant``.
        num_envs: B, games played at once.
        seed: seeds the environment and the action sampling.
        max_steps: a game still running after this many agent steps (both sides') is recorded as a draw
            (termination -1) and the slot finishes it with random actions, unrecorded
            (the paper's t_max); 0 never cuts.
        device: where the network runs.
        setups: where both players' setups come from (``VectorEnv``'s ``setups``): ``"learned"``, the
            deployment head (its deployment steps are recorded), ``"random"`` or a ``SetupPool``
            (``self_play_setups`` maps ``TrainConfig.setups`` to these).
        league_share: the probability that a new game pits ``net`` against a past network of the league
            (``set_league``), on a side drawn at random; 0 (the default) is pure self-play.
        bots: agent specs of the bots ``net`` may play (``turtle``, ``sure``...): each game against a bot
            draws one of them, with equal chances.
        bot_share: the probability that a new game pits ``net`` against one of ``bots``, on a side drawn at
            random (``bot_rival.BotSide``); 0 (the default): none.

    Raises:
        ValueError: ``num_envs`` below 1, a negative ``max_steps``, a ``league_share`` or ``bot_share``
            outside [0, 1], the two summing to more than 1, or ``bot_share`` without ``bots``.
        AgentSpecError: one of ``bots`` is not an agent spec.
    """

    def __init__(self, net: nn.Module, variant, num_envs: int, seed: int = 0, max_steps: int = 0,
                 device: str | torch.device = "cpu", setups: SetupSource = "learned", league_share: float = 0.0,
                 bots: Sequence[str] = (), bot_share: float = 0.0):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if max_steps < 0:
            raise ValueError(f"max_steps must be 0 (no limit) or positive, got {max_steps}")
        check_shares(league_share, bot_share, bots)
        self.net = net
        self.device = torch.device(device)
        self.env = VectorEnv(num_envs, variant, setups=setups, seed=seed)
        self.max_steps = max_steps
        self.generator = torch.Generator(device=self.device).manual_seed(seed)
        self.slots = [_Slot() for _ in range(num_envs)]
        self.env_steps = 0  # agent steps played by the network (recorded steps), over all slots
        self.league_share = league_share
        self.league: list[tuple[int, nn.Module]] = []
        self.bots, self.bot_share = tuple(bots), bot_share
        self._bot_agents = {(0, i): make_agent(spec) for i, spec in enumerate(self.bots)}  # (slot, bot): its agent
        self._rng = np.random.default_rng(seed)
        for b in range(num_envs):  # the first games' rivals (no league yet: bots only)
            self._draw_rival(b)

    def set_league(self, members: list[tuple[int, nn.Module]]) -> None:
        """The past networks new games may draw as ``net``'s rival: ``(key, network)`` pairs, the key an int
        that ``GameRecord.rival`` reports (the learner step the network was taken at).  Games under way keep
        their rival, games not yet begun draw one; the networks are used in eval mode without gradients."""
        self.league = [(int(key), rival.eval()) for key, rival in members]
        for b, slot in enumerate(self.slots):
            if slot.played == 0 and slot.rival is None and slot.bot is None and not slot.skip:
                self._draw_rival(b)

    def _draw_rival(self, b: int) -> None:
        """Who plays ``net`` in slot ``b``'s next game: itself, a bot (``bot_share`` of the games) or a league
        member (``league_share``)."""
        slot = self.slots[b]
        bots = self.bot_share if self.bots else 0.0
        league = self.league_share if self.league else 0.0
        if bots + league <= 0:
            return
        u = self._rng.random()
        if u < bots:
            i = int(self._rng.integers(len(self.bots)))
            slot.side = int(self._rng.integers(2))
            if (b, i) not in self._bot_agents:  # one agent a slot: a bot keeps its game's state
                self._bot_agents[b, i] = make_agent(self.bots[i])
            slot.bot = BotSide(self._bot_agents[b, i], self.bots[i], self.env, b, 1 - slot.side,
                               int(self._rng.integers(2**31)))
        elif u < bots + league:
            slot.rival_key, slot.rival = self.league[int(self._rng.integers(len(self.league)))]
            slot.side = int(self._rng.integers(2))

    def _policy(self, net: nn.Module, rows: np.ndarray, every: bool) -> tuple[torch.Tensor, torch.Tensor]:
        """``net``'s legal policy ``[len(rows), 100]`` in the games ``rows`` (all of them when ``every``), and the
        observations it read."""
        env = self.env
        obs = torch.from_numpy(env.obs if every else env.obs[rows]).to(self.device)
        mask = torch.from_numpy(env.mask if every else env.mask[rows]).to(self.device)
        logits_of = net.logits if callable(getattr(type(net), "logits", None)) else (lambda x: net(x)[0])
        if net.training:  # switching modes walks every submodule: only when needed
            net.eval()
            logits = logits_of(obs)
            net.train()
        else:
            logits = logits_of(obs)
        return masked_log_policy(logits.float(), mask).exp(), obs

    def _sample(self, probs: torch.Tensor) -> np.ndarray:
        return torch.multinomial(probs, 1, generator=self.generator).squeeze(1).cpu().numpy()

    @torch.no_grad()
    def step(self) -> list[GameRecord]:
        """Play one agent step in every game; return the games that ended (recorded whole).

        Slots whose game was cut at ``max_steps`` finish it with the environment's uniformly
        random actions (no network call, nothing recorded).  In a game against a league member or a bot,
        the rival plays its side, unrecorded.

        Raises:
            RuntimeError: a bot chose a move the environment does not allow (``BotSide.action``).
        """
        env = self.env
        live = np.array([not s.skip for s in self.slots])
        actions = env.random_actions().copy() if not live.all() else np.zeros(len(self.slots), np.int64)
        theirs = np.array([(s.rival is not None or s.bot is not None) and s.side != env.player[b]
                           for b, s in enumerate(self.slots)])
        rows = np.flatnonzero(live & ~theirs)
        if len(rows):
            probs, obs = self._policy(self.net, rows, len(rows) == len(live))
            actions[rows] = self._sample(probs)
            probs = probs.cpu().numpy()
            obs16 = obs.half().cpu().numpy()
            for i, b in enumerate(rows):
                self.slots[b].record(obs16[i], env.mask[b].copy(), env.player[b], actions[b], probs[i])
        rival_rows = np.flatnonzero(live & theirs)
        bot_rows = [b for b in rival_rows if self.slots[b].bot is not None]
        for b in bot_rows:
            actions[b] = self.slots[b].bot.action(env)
        net_rows = [b for b in rival_rows if self.slots[b].bot is None]
        for key in {self.slots[b].rival_key for b in net_rows}:
            group = np.array([b for b in net_rows if self.slots[b].rival_key == key])
            actions[group] = self._sample(self._policy(self.slots[group[0]].rival, group, False)[0])
        for b in np.flatnonzero(live):
            if self.slots[b].bot is not None:
                self.slots[b].bot.played(env, actions[b])
        env.step(actions)
        self.env_steps += len(rows)
        finished = []
        for b, slot in enumerate(self.slots):
            slot.played += 1
            if env.done[b]:
                if slot.bot is not None:
                    slot.bot.finish()
                if not slot.skip and slot.action:
                    finished.append(slot.finish(env.rewards[b], int(env.winner[b]), int(env.termination[b]),
                                                int(env.length[b])))
                else:
                    slot.__init__()
                self._draw_rival(b)
            elif self.max_steps and not slot.skip and slot.played >= self.max_steps:
                if slot.action:
                    finished.append(slot.finish(np.zeros(2, np.float32), -1, -1, -1))
                else:
                    slot.__init__()
                slot.skip = True
        return finished

    def play(self, games: int) -> list[GameRecord]:
        """Step until at least ``games`` games have finished; return them (possibly a few more)."""
        out: list[GameRecord] = []
        while len(out) < games:
            out.extend(self.step())
        return out
