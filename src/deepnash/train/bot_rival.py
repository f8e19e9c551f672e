"""A bot on one side of a self-play game: R-NaD's games against the passive bots (``TrainConfig.bots``).

Source: ``docs/rnad.md`` §7, "Games against bots".  A bot (any ``Agent``: ``turtle``, ``sure``,
``cautious``...) chooses from a ``PlayerView``, one game at a time, where ``VectorEnv`` keeps every game
as arrays.  ``BotSide`` keeps a ``Game`` beside one env slot: it replays every move played there, builds
the bot's ``PlayerView`` from it, and turns the bot's choices into the env's actions (the select and
displace steps of a move; where the bot's side deploys with actions, one deployment action per piece of
the setup the bot chose).  As with the league's past networks, the bot is part of the environment:
only the learner's side of the game is recorded.
"""

from __future__ import annotations

import numpy as np

from ..agents import Agent
from ..env import VectorEnv
from ..env.actions import action_to_square, square_to_action
from ..game import Game, Move
from ..infostate.view import MoveRecord, PlayerView, push_recorded


class BotSide:
    """``agent`` playing ``side`` in slot ``b`` of a ``VectorEnv``, for the game now starting there.

    Args:
        agent: the bot; ``reset`` is called here with ``seed``.
        name: the bot's agent spec, for messages and ``GameRecord.opponent``.
        env: the environment; slot ``b`` must be at the start of a game (deploying, or before Red's
            first move).
        b: the slot.
        side: 0 Red, 1 Blue.
        seed: seeds the bot's choices in this game.
    """

    def __init__(self, agent: Agent, name: str, env: VectorEnv, b: int, side: int, seed: int):
        self.agent, self.name, self.b, self.side = agent, name, b, side
        agent.reset(env.variant, side, seed)
        self.setup: np.ndarray | None = None  # the bot's deployment, asked for at its first deployment action
        self.game: Game | None = None  # the game beside the slot, from the end of the deployment on
        self.history: list[MoveRecord] = []
        self.target = -1  # the destination of the move whose piece the bot has just selected

    def action(self, env: VectorEnv) -> int:
        """The bot's action in its slot, where it is to act: ``int`` in 0..99, in its own frame.

        Raises:
            RuntimeError: the bot chose a move (or a setup) the environment does not allow.
        """
        b, p = self.b, self.side
        if env.deploying[b]:
            square = self._deploy_square(env)
        elif env.substep[b] == 0:
            self._follow(env)
            move = self.agent.act(PlayerView.of(self.game, p, tuple(self.history)))
            self.target = int(move.to_sq)
            square = int(move.from_sq)
        else:
            square = self.target
        action = square_to_action(square, p)
        if not env.mask[b, action]:
            raise RuntimeError(f"bot {self.name!r} in self-play slot {b} chose square {square} "
                               f"({'deployment' if env.deploying[b] else 'move'}), which the environment does "
                               "not allow")
        return action

    def played(self, env: VectorEnv, action: int) -> None:
        """Tell the bot the action about to be played in its slot (by either side), before ``env.step``: a
        move's second action replays the move on the bot's ``Game``."""
        b = self.b
        if env.deploying[b]:
            return
        self._follow(env)
        if env.substep[b] == 1:
            move = Move(int(env.selected[b]), action_to_square(int(action), int(env.player[b])))
            self.history.append(push_recorded(self.game, move))

    def finish(self) -> None:
        """Tell the bot how its game ended (``Agent.game_over``), once the slot's game is over."""
        if self.game is not None and self.game.is_over():
            self.agent.game_over(self.game.outcome(), PlayerView.of(self.game, self.side, tuple(self.history)))

    def _follow(self, env: VectorEnv) -> None:
        """Start the bot's ``Game`` from the slot's two setups once the deployment is over."""
        if self.game is None:
            self.game = Game(env.variant, env.setup[self.b, 0].copy(), env.setup[self.b, 1].copy())

    def _deploy_square(self, env: VectorEnv) -> int:
        """Where the bot's next deployment action puts the piece the env places next (``deploy_order``): a
        square of that type in the bot's setup not yet filled."""
        if self.setup is None:
            self.setup = np.asarray(self.agent.choose_setup(), dtype=np.int8)
        placed = env.setup[self.b, self.side]
        piece = env.deploy_order[int((placed >= 0).sum())]
        free = np.flatnonzero((self.setup == piece) & (placed < 0))
        if free.size == 0:
            raise RuntimeError(f"bot {self.name!r} in self-play slot {self.b}: its setup has no free square for "
                               f"piece type {int(piece)}")
        return int(free[0])


def tally_bots(results: dict[str, list[int]], games) -> dict[str, float]:
    """Add the learner's results in the games against bots among ``games`` (``GameRecord``s) to ``results``
    (bot spec -> [wins, draws, losses]); return each bot's mean score in them for the learner (win 1, draw
    1/2), for the bots it played."""
    points: dict[str, list[float]] = {}
    for g in games:
        if g.opponent:
            results.setdefault(g.opponent, [0, 0, 0])[g.outcome] += 1
            points.setdefault(g.opponent, []).append((2 - g.outcome) / 2)
    return {name: float(np.mean(p)) for name, p in points.items()}
