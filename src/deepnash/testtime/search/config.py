"""The search's settings: the core's options, and every heuristic's (``heuristics``), in one frozen dataclass
whose fields are the agent spec's options.  Each field carries one line of help (``metadata["help"]``), with its
unit and range; ``deepnash agents SPEC`` lists them (``agents.registry.agent_options``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..config import option
from ..leaf import PIECE_VALUES
from .heuristics import OPTIONS

#: Where the search's samples come from (``belief``), besides a belief network's directory.
BELIEF_SOURCES = ("heuristic", "public", "learned")

#: The number formats the rollouts' network may run in (``precision``).
PRECISIONS = ("auto", "float32", "bfloat16")

#: How the search scores a leaf that is not the end of the game (``leaf``; ``leaves.score_leaves``).
LEAVES = ("value", "material", "progress", "gain")


@dataclass(frozen=True)
class CoreOptions:
    """The search's own options (``core.Search``)."""

    samples: int = option(8, "K: hidden states sampled from the belief per round, >= 1")
    depth: int = option(6, "moves each side's policy plays after the candidate move before the leaf, >= 0")
    candidates: int = option(6, "M: moves of highest prior whose Q is estimated, >= 1")
    seconds: float = option(1.0, "time per move, seconds > 0 (unused with clock)")
    clock: float = option(0.0, "seconds for the whole game, spread over the moves to come (0: none)")
    increment: float = option(0.0, "seconds added to the clock after each move, >= 0 (needs clock)")
    rounds: int = option(0, "most rounds of K samples per move (0: as many as the time allows)")
    alpha: float = option(3.0, "step size of the regularised improvement, >= 0")
    tau: float = option(0.0, "its regularisation temperature towards the prior, >= 0")
    rollout_threshold: float = option(0.03, "rollout policies drop actions below this probability, in [0, 1)")
    leaf: str = option("value", f"how an unfinished leaf is scored: {', '.join(LEAVES)}")
    piece_values: str = option("thesis", f"what each piece is worth to the material leaves: {', '.join(PIECE_VALUES)}")
    value_weight: float = option(0.0, "with a material leaf, weight of the value head's P(win) - P(loss), >= 0")
    control_variate: bool = option(True, "with a material leaf, take each attack's luck out of Q by its expectation")
    belief: str = option("heuristic", f"where samples come from: {', '.join(BELIEF_SOURCES)} or a belief network's "
                                     "directory")
    rollouts: str = option("own", "network of the rollouts and leaves: own, shipped or a checkpoint directory")
    precision: str = option("auto", f"number format of the rollouts: {', '.join(PRECISIONS)}")

    def check(self) -> None:
        for name in ("samples", "candidates"):
            if getattr(self, name) < 1:
                raise ValueError(f"search {name} must be at least 1, got {getattr(self, name)}")
        if self.depth < 0 or self.rounds < 0:
            raise ValueError(f"search depth and rounds must be >= 0, got {self.depth} and {self.rounds}")
        for name, choices in (("leaf", LEAVES), ("piece_values", PIECE_VALUES), ("precision", PRECISIONS)):
            if getattr(self, name) not in choices:
                raise ValueError(f"search {name} {getattr(self, name)!r}: choose one of {', '.join(choices)}")
        if not self.belief:
            raise ValueError(f"search belief: choose {', '.join(BELIEF_SOURCES)} or a belief network's directory")
        if not self.rollouts:
            raise ValueError("search rollouts: choose own, shipped or a checkpoint directory")
        if self.value_weight < 0:
            raise ValueError(f"search value_weight must be >= 0, got {self.value_weight}")
        if not 0 <= self.rollout_threshold < 1:
            raise ValueError(f"search rollout_threshold must be in [0, 1), got {self.rollout_threshold}")
        if not self.clock >= 0 or not self.increment >= 0 or (self.increment > 0 and not self.clock > 0):
            raise ValueError(f"search clock and increment must be >= 0 seconds, an increment with a clock, got "
                             f"{self.clock}, {self.increment}")
        if not self.seconds > 0 or not self.alpha >= 0 or not self.tau >= 0:
            raise ValueError(f"search needs seconds > 0, alpha >= 0 and tau >= 0, got "
                             f"{self.seconds}, {self.alpha}, {self.tau}")


@dataclass(frozen=True)
class SearchConfig(*reversed(OPTIONS), CoreOptions):
    """Settings of the search: ``CoreOptions`` and each heuristic's options (``heuristics``), one field per agent
    spec option of the same name; each field's ``metadata["help"]`` says what it is.

    Raises:
        ValueError: from any part's ``check``: an option out of its range, naming it.
    """

    def __post_init__(self) -> None:
        for part in (CoreOptions, *OPTIONS):
            if hasattr(part, "check"):
                part.check(self)

