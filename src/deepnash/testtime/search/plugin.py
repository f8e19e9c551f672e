"""The protocol between the search's core and its heuristics.

A heuristic is domain knowledge the core does not have: which moves not to weigh, which move to weigh
always, what a leaf is worth beyond its material or value.  Each one is a class with a small config
dataclass of its own (its agent spec options), registered by name with ``register``; the core
(``core.Search``) calls its hooks, every heuristic's hook in ``PIPELINE`` order, at fixed points of a move:

1. ``begin``: once per move, before anything else, to look at the position (``Turn.facts`` holds what one
   heuristic tells the others: a heuristic that reads another's fact names it in ``reads``);
2. ``widen`` and ``prune``: moves added to the prior, and moves dropped from it before the candidates are
   ranked (unless nothing would be left);
3. ``propose``: a move that always joins the candidates, with the least prior it enters the improvement with;
4. per round of rollouts: ``at_root`` (each sample before the candidate move), ``after_move`` (right after it),
   ``settle`` (games the rollouts left unfinished but decided), ``leaf_term`` (a term added to the material
   leaves), ``shape`` (the leaf values, after every term);
5. ``adjust_q`` (a bonus to a candidate's ``Q``) and ``step_size`` (the improvement's ``alpha``).

The base class's hooks do nothing, so a heuristic overrides only those it needs, and switching one off
(its option at its off value, ``enabled``) changes nothing but what its hooks did.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ...game import Move
from ...infostate.view import PlayerView

if TYPE_CHECKING:
    from ...env.vector import VectorEnv
    from .config import SearchConfig


@dataclass
class Turn:
    """One move's search as the heuristics see it.

    Attributes:
        view: the position, ``view.player`` to move.
        config: the search's settings.
        rng: the search's generator; a heuristic that draws from it does so in the same order every move.
        prior: the policy over the allowed moves, as the stages so far left it.
        ranked: the moves of positive prior, most probable first (after ``prune``).
        draw: draws of hidden states (``Sampler``), ``None`` where one move is left and nothing is searched.
        facts: what a heuristic tells the others this move (e.g. ``"meek"``: the opponent is taken for one
            that does not press).
        draw_score: what a draw is worth less than 0 to the player searching, in [0, 1]: a drawn rollout
            scores ``-draw_score`` and the draw term of the ``progress`` and ``gain`` leaves pulls towards it.
        draw_floor: the least the player's lead counts for in the draw term (``tanh`` units; -1: any lead).
        attack_delay: ``(boards int8[R, 100], to_move int[R], flags uint8[R, 100]) -> int[R]``, plies before the
            player's next attack can land on each leaf, added to the draw counters (``None``: 0).
    """

    view: PlayerView
    config: SearchConfig
    rng: np.random.Generator
    prior: dict[Move, float]
    ranked: list[Move] = field(default_factory=list)
    draw: object = None
    facts: dict[str, object] = field(default_factory=dict)
    draw_score: float = 0.0
    draw_floor: float = -1.0
    attack_delay: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None


@dataclass
class Leaves:
    """One round of rollouts: ``k`` samples times ``m`` candidates, row ``s * m + c`` the ``c``-th candidate on
    the ``s``-th sample.

    Attributes:
        env: the rollout games.
        result: ``float64[k * m]``, each game's value for the player searching: NaN while unscored.
        drawn: ``bool[k * m]``, the games that ended drawn or were settled as draws.
        me: the player searching.
        pending: ``bool[k * m]``, once settled: the games the rollouts did not decide (scored as leaves).
        state: each heuristic's arrays for this round, by its name (``at_root``'s and ``after_move``'s).
    """

    env: VectorEnv
    result: np.ndarray
    drawn: np.ndarray
    k: int
    m: int
    me: int
    pending: np.ndarray | None = None
    state: dict[str, object] = field(default_factory=dict)

    @property
    def live(self) -> np.ndarray:
        """``bool[k * m]``: the games not yet scored."""
        return np.isnan(self.result)


@dataclass(frozen=True)
class Proposal:
    """A move a heuristic adds to the candidates; ``least``: the least prior it enters the improvement with, as
    a fraction of the top move's (``None``: its own)."""

    move: Move
    least: float | None = None


class Heuristic:
    """A heuristic of the search: its hooks (each a no-op here), its name and its config dataclass.

    Class attributes:
        name: the name it is registered, measured and reported under.
        options: its config dataclass (frozen; its fields are agent spec options, ``SearchConfig`` holds them).
        off: the spec options, as strings, that switch it off (``enabled`` is then false).
        reads: the heuristics whose ``Turn.facts`` it reads.
    """

    name: ClassVar[str] = ""
    options: ClassVar[type]
    off: ClassVar[dict[str, str]] = {}
    reads: ClassVar[tuple[str, ...]] = ()

    def __init__(self, config: SearchConfig):
        self.config = config

    @staticmethod
    def enabled(config: SearchConfig) -> bool:
        """Whether ``config`` switches it on."""
        raise NotImplementedError

    def begin(self, turn: Turn) -> None:
        """Look at the position, once per move, before every other hook."""

    def widen(self, turn: Turn) -> dict[Move, float]:
        """Legal moves to add to ``turn.prior``, with their probability (unnormalised)."""
        return {}

    def prune(self, turn: Turn) -> set[Move]:
        """Moves of ``turn.prior`` to drop before the candidates are ranked."""
        return set()

    def propose(self, turn: Turn) -> Proposal | None:
        """A move that joins the candidates, in place of the lowest-ranked one."""
        return None

    def at_root(self, turn: Turn, leaves: Leaves) -> None:
        """Each sample before the candidate move is played (``leaves.env``'s rows ``::m``)."""

    def after_move(self, turn: Turn, leaves: Leaves) -> None:
        """Each game right after its candidate move, before the rollouts."""

    def settle(self, turn: Turn, leaves: Leaves) -> None:
        """Score, in ``leaves.result`` (and ``leaves.drawn``), unfinished games that are decided."""

    def leaf_term(self, turn: Turn, leaves: Leaves, rows: np.ndarray) -> np.ndarray | None:
        """``float[R]``: a term added to the material leaves ``rows`` (``bool[k * m]``)."""
        return None

    def shape(self, turn: Turn, leaves: Leaves) -> None:
        """Change the scored ``leaves.result`` in place, after every leaf term."""

    def adjust_q(self, turn: Turn, q: dict[Move, float]) -> dict[Move, float]:
        """Bonuses added to the candidates' ``Q`` before the improvement."""
        return {}

    def step_size(self, turn: Turn, alpha: float) -> float:
        """The improvement's ``alpha``, given the one so far."""
        return alpha


#: The heuristics by name, in the order their hooks run (``PIPELINE``).
HEURISTICS: dict[str, type[Heuristic]] = {}


def register(cls: type[Heuristic]) -> type[Heuristic]:
    """Class decorator: make ``cls`` a heuristic of the search under ``cls.name``.

    Raises:
        ValueError: the name is empty or taken.
    """
    if not cls.name or cls.name in HEURISTICS:
        raise ValueError(f"heuristic {cls.name!r}: give it a name of its own")
    HEURISTICS[cls.name] = cls
    return cls


def pipeline(config: SearchConfig) -> list[Heuristic]:
    """The heuristics ``config`` switches on, in registration order (``heuristics.PIPELINE``)."""
    return [cls(config) for cls in HEURISTICS.values() if cls.enabled(config)]
