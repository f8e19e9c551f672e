"""Variants as data: the army, the deployment zone, the lakes, draw limits, repetition rules.

Sources: ``docs/rules.md`` (Classic, Barrage, the ISF two-squares and
more-squares rules, the DeepNash paper's draw limits).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .pieces import BARRAGE_COUNTS, CLASSIC_COUNTS, NUM_TYPES, FLAG

#: The eight lake squares of the standard board (0-indexed ``row*10+col``; c5 d5 g5 h5 c6 d6 g6 h6).
STANDARD_LAKES = (42, 43, 46, 47, 52, 53, 56, 57)

# Indices into the int32 rules vector handed to the kernels.
R_TWO_SQUARES, R_TWO_SQUARES_LIMIT, R_MORE_SQUARES, R_MAX_MOVES, R_MAX_NO_ATTACK = range(5)
NUM_RULES = 5

#: Most moves per player remembered for the two-squares rule (bounds ``two_squares_limit``).
MAX_TWO_SQUARES_LIMIT = 7


@dataclass(frozen=True)
class Variant:
    """A Stratego variant.

    Attributes:
        name: short name (``"classic"``, ``"barrage"``, or a user's own).
        piece_counts: pieces of each type ``t`` per player (12 ints, at least one Flag).
        deploy_rows: rows each player deploys in (Red ranks ``1..deploy_rows``, Blue the mirror).
        lakes: lake squares as ``row*10+col`` indices (symmetric under 180-degree rotation).
        max_moves: total moves (both players) after which the game is drawn; 0 disables.
        max_moves_without_attack: consecutive moves without an attack after which it is drawn; 0 disables.
        two_squares: enforce the ISF two-squares rule (Scout-aware).
        two_squares_limit: consecutive back-and-forth moves allowed (ISF: 3; the 4th is illegal).
        more_squares: enforce the more-squares (chasing) rule.
    """

    name: str
    piece_counts: tuple[int, ...] = CLASSIC_COUNTS
    deploy_rows: int = 4
    lakes: tuple[int, ...] = STANDARD_LAKES
    max_moves: int = 2000
    max_moves_without_attack: int = 200
    two_squares: bool = True
    two_squares_limit: int = 3
    more_squares: bool = True
    _rules: np.ndarray = field(init=False, repr=False, compare=False, hash=False)
    _zones: tuple[tuple[int, ...], tuple[int, ...]] = field(init=False, repr=False, compare=False, hash=False)
    _lake_mask: np.ndarray = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        counts = tuple(int(c) for c in self.piece_counts)
        object.__setattr__(self, "piece_counts", counts)
        object.__setattr__(self, "lakes", tuple(sorted(int(s) for s in self.lakes)))
        if len(counts) != NUM_TYPES or min(counts) < 0:
            raise ValueError(f"variant {self.name!r}: piece_counts needs {NUM_TYPES} non-negative ints")
        if counts[FLAG] < 1:
            raise ValueError(f"variant {self.name!r}: each army needs a Flag")
        if not 1 <= self.deploy_rows <= 5:
            raise ValueError(f"variant {self.name!r}: deploy_rows must be 1..5")
        zones = tuple(tuple(r * 10 + c for r in rows for c in range(10) if r * 10 + c not in self.lakes)
                      for rows in (range(self.deploy_rows), range(10 - self.deploy_rows, 10)))
        object.__setattr__(self, "_zones", zones)  # computed once: every game state reads them
        if sum(counts) > len(self.deploy_squares(0)):
            raise ValueError(
                f"variant {self.name!r}: {sum(counts)} pieces do not fit on "
                f"{len(self.deploy_squares(0))} deployment squares"
            )
        if any(not 0 <= s < 100 for s in self.lakes) or set(self.lakes) != {99 - s for s in self.lakes}:
            raise ValueError(f"variant {self.name!r}: lakes must be squares 0..99, symmetric under rotation")
        lake_mask = np.zeros(100, dtype=bool)
        lake_mask[list(self.lakes)] = True
        lake_mask.setflags(write=False)
        object.__setattr__(self, "_lake_mask", lake_mask)
        if not 1 <= self.two_squares_limit <= MAX_TWO_SQUARES_LIMIT:
            raise ValueError(f"variant {self.name!r}: two_squares_limit must be 1..{MAX_TWO_SQUARES_LIMIT}")
        rules = np.zeros(NUM_RULES, dtype=np.int32)
        rules[R_TWO_SQUARES] = int(self.two_squares)
        rules[R_TWO_SQUARES_LIMIT] = self.two_squares_limit
        rules[R_MORE_SQUARES] = int(self.more_squares)
        rules[R_MAX_MOVES] = self.max_moves
        rules[R_MAX_NO_ATTACK] = self.max_moves_without_attack
        object.__setattr__(self, "_rules", rules)

    @property
    def num_pieces(self) -> int:
        """Pieces per army."""
        return sum(self.piece_counts)

    @property
    def lake_mask(self) -> np.ndarray:
        """``bool[100]`` (read-only): whether each square is a lake."""
        return self._lake_mask

    @property
    def rules_array(self) -> np.ndarray:
        """``int32[NUM_RULES]``: the switches and limits as the kernels read them."""
        return self._rules

    def deploy_squares(self, player: int) -> tuple[int, ...]:
        """Squares (``row*10+col``, ascending) where ``player`` (0 Red, 1 Blue) may deploy, lakes excluded."""
        return self._zones[player]

    def with_rules(self, **changes) -> "Variant":
        """A copy with some fields changed, e.g. ``CLASSIC.with_rules(two_squares=False)``."""
        return replace(self, **changes)


CLASSIC = Variant("classic")
BARRAGE = Variant("barrage", piece_counts=BARRAGE_COUNTS)
VARIANTS = {"classic": CLASSIC, "barrage": BARRAGE}
#: Gravon's "Duell": 10 pieces each (Flag, Spy, 2 Scouts, 2 Miners, General, Marshal, 2 Bombs) set up
#: anywhere in the usual four rows.  Its records replay (``notation.replay``); it is not offered for play.
DUELL = Variant("duell", piece_counts=(1, 1, 2, 2, 0, 0, 0, 0, 0, 1, 1, 2))


def get_variant(name: str | Variant) -> Variant:
    """The built-in variant called ``name`` (a ``Variant`` is returned as is).

    Raises:
        ValueError: for an unknown name.
    """
    if isinstance(name, Variant):
        return name
    try:
        return VARIANTS[name.lower()]
    except KeyError:
        raise ValueError(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}") from None
