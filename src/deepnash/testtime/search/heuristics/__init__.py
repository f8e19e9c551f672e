"""The search's Stratego heuristics, one module each (``plugin.Heuristic``), registered on import in the order
their hooks run: the prior's guards, then the moves proposed (``contempt``, ``guard``, ``approach``: the order of
the candidates they add), then the leaves' shaping (``guard``'s risk before ``passive``'s decided games)."""

from . import spare, sacrifice, spy_guard, general_guard, hang_guard, hold, contempt, guard, approach, passive
from ..plugin import HEURISTICS

#: Each heuristic's config dataclass, in pipeline order: ``config.SearchConfig`` holds their options.
OPTIONS = tuple(cls.options for cls in HEURISTICS.values())

__all__ = ["OPTIONS", "approach", "contempt", "general_guard", "guard", "hang_guard", "hold", "passive", "sacrifice",
           "spare", "spy_guard"]
