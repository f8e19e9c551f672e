"""The one protocol every player implements, the plumbing the built-in bots share, and the game loop.

An agent acts on a ``PlayerView`` (``infostate.view``): what its player
knows, never the opponent's hidden types.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..game import Game, Move, Outcome, Variant, random_deployment
from ..infostate.view import MoveRecord, PlayerView, push_recorded

#: Where a built-in bot's setup comes from (agent spec option ``setup=...``).
SETUP_SOURCES = ("own", "random", "guarded", "human", "walled", "sheltered")


def check_setup_source(setup: str) -> str:
    """``setup`` unchanged if it is one of ``SETUP_SOURCES``.

    Raises:
        ValueError: naming the bad source and the choices.
    """
    if setup not in SETUP_SOURCES:
        raise ValueError(f"setup={setup!r}: choose one of {', '.join(SETUP_SOURCES)}")
    return setup


def check_disguise(source: str, disguised: bool) -> bool:
    """``disguised`` unchanged if it is false or ``source`` draws people's setups (``env.setups.PEOPLE_POOLS``),
    the only ones ``env.setups.disguise`` rearranges.

    Raises:
        ValueError: ``disguised`` with another source, naming it and the ones that can be disguised.
    """
    from ..env.setups import PEOPLE_POOLS

    if disguised and source not in PEOPLE_POOLS:
        raise ValueError(f"disguise=true rearranges people's setups: give setup={' or '.join(PEOPLE_POOLS)}, "
                         f"not setup={source}")
    return disguised


def draw_setup(source: str, variant: Variant, player: int, rng: np.random.Generator,
               disguised: bool = False) -> np.ndarray:
    """A setup ``int8[100]`` for ``player`` from ``source``: ``random`` (uniform legal), ``guarded``
    (Flag on the back row behind Bombs, the rest random), ``human`` (a Gravon setup from
    ``env.setups.human_pool``, rotated for Blue) or ``walled`` (one of those whose Flag stands on the back row with a Bomb
    on every neighbouring square, ``env.setups.walled_pool``: 1,319 of the 3,181 Classic ones) or ``sheltered``
    (one of those whose Flag is on the back row beside a Bomb, ``env.setups.flag_sheltered``).  ``disguised``: a
    people's setup with its lanes rearranged (``env.setups.disguise``), so that no library of people's setups
    knows it; setups that cannot be disguised are drawn again.

    Raises:
        ValueError: an unknown source, no such human setups for the variant (Barrage has one Bomb,
            which walls in no Flag), ``disguised`` with a source that is not people's, or no setup of the pool
            can be disguised.
    """
    check_disguise(source, disguised)
    if source == "random":
        return random_deployment(variant, player, rng)
    if source == "guarded":
        from .setups import guarded_deployment

        return guarded_deployment(variant, player, rng)
    from ..env.setups import PEOPLE_POOLS, disguise

    if source not in PEOPLE_POOLS:
        raise ValueError(f"unknown setup source {source!r}; choose one of {', '.join(SETUP_SOURCES[1:])}")
    setups = PEOPLE_POOLS[source](variant).setups
    for _ in range(100 if disguised else 1):
        red = setups[int(rng.integers(len(setups)))]
        if disguised:
            red = disguise(red, variant, rng, source)
        if red is not None:
            return red.copy() if player == 0 else red[::-1].copy()
    raise ValueError(f"disguise=true: 100 setups of setup={source} on {variant.name} drawn, none could be "
                     "rearranged to move its Flag and half its pieces")


class SeededBot:
    """Plumbing shared by the built-in bots: a generator seeded by ``reset``, the variant and colour,
    a setup and nothing to do at the end of a game. Subclasses implement ``act``.

    Args:
        setup: ``own`` (the bot's ``deploy``), or a ``draw_setup`` source: ``random``, ``guarded``, ``human``,
            ``walled``.
    """

    name = "bot"
    #: ``deploy(variant, player, rng) -> int8[100]``: the bot's own way to set up (random legal by default).
    deploy = staticmethod(random_deployment)

    def __init__(self, setup: str = "own") -> None:
        self.setup = check_setup_source(setup)
        self._rng = np.random.default_rng()
        self._variant: Variant | None = None
        self._player = 0

    def reset(self, variant: Variant, player: int, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self._variant = variant
        self._player = player

    def choose_setup(self) -> np.ndarray:
        if self.setup == "own":
            return self.deploy(self._variant, self._player, self._rng)
        return draw_setup(self.setup, self._variant, self._player, self._rng)

    def game_over(self, outcome: Outcome, view: PlayerView) -> None:
        pass


@runtime_checkable
class Agent(Protocol):
    """A Stratego player: bots, the network agent, a person, an external program.

    The match runner calls ``reset`` once per game, then ``choose_setup``, then
    ``act`` whenever the agent is to move, and ``game_over`` at the end.
    """

    name: str

    def reset(self, variant: Variant, player: int, seed: int | None = None) -> None:
        """Start a new game as ``player`` (0 Red, 1 Blue); ``seed`` makes the agent's choices reproducible."""

    def choose_setup(self) -> np.ndarray:
        """The deployment: ``int8[100]`` piece type per absolute square, -1 elsewhere (see ``game.deployment``)."""

    def act(self, view: PlayerView) -> Move:
        """Choose one of ``view.legal_moves``."""

    def game_over(self, outcome: Outcome, view: PlayerView) -> None:
        """Told how the game ended."""


def play_game(red: Agent, blue: Agent, variant: Variant, seed: int) -> tuple[Game, tuple[MoveRecord, ...]]:
    """Play one game between two agents and return the finished game and its move records.

    Agents are reset with seeds derived from ``seed``.  An agent that returns
    an illegal move raises ``IllegalMoveError`` (the arena turns it into a loss).
    """
    agents = (red, blue)
    for p, a in enumerate(agents):
        a.reset(variant, p, seed * 2 + p)
    game = Game(variant, agents[0].choose_setup(), agents[1].choose_setup())
    history: list[MoveRecord] = []
    while not game.is_over():
        p = game.turn
        history.append(push_recorded(game, agents[p].act(PlayerView.of(game, p, tuple(history)))))
    final = tuple(history)
    for p, a in enumerate(agents):
        a.game_over(game.outcome(), PlayerView.of(game, p, final))
    return game, final
