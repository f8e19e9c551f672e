"""A league of past networks for the learner to play (``TrainConfig.league``).

Source: ``docs/rnad.md`` §7, "A league of past networks".  DeepNash trained by
self-play alone; playing frozen earlier versions too (fictitious play's league,
as AlphaStar's) keeps the learner from forgetting how to beat them, and its score
against the network it started from (a human prior) says whether it has moved
past it.
"""

from __future__ import annotations

import copy

import numpy as np
import torch


class League:
    """The past networks the learner plays in ``TrainConfig.league`` of its games (``docs/rnad.md`` §7).

    The first member (the network the run started from: for a fresh run, the ``init`` prior) stays; each
    later one joins at the start of an R-NaD iteration and the oldest of them leaves once the league holds
    ``size``.  Members are frozen CPU copies keyed by the learner step they were taken at.
    """

    def __init__(self, size: int):
        if size < 1:
            raise ValueError(f"a league holds at least one network, got size {size}")
        self.size = size
        self.members: list[tuple[int, torch.nn.Module]] = []
        self.results: dict[int, list[int]] = {}  # key -> [wins, draws, losses] of the learner against it

    def join(self, key: int, net: torch.nn.Module) -> None:
        """Add a frozen copy of ``net``, taken at learner step ``key`` (with ``size`` 1, only the first joins)."""
        frozen = copy.deepcopy(net).cpu().requires_grad_(False).eval()
        if len(self.members) == self.size:
            if self.size == 1:
                return
            del self.members[1]
        self.members.append((key, frozen))

    def score(self, games) -> float | None:
        """Tally the learner's results in the league's games among ``games``; return its mean score in them
        (win 1, draw 1/2), ``None`` if there were none."""
        points = []
        for g in games:
            if g.rival < 0:
                continue
            self.results.setdefault(g.rival, [0, 0, 0])[g.outcome] += 1
            points.append((2 - g.outcome) / 2)
        return float(np.mean(points)) if points else None
