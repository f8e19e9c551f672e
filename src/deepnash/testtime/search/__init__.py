"""The belief-sampled search (``core``), its settings (``config``), its rollouts and leaves, and its Stratego
heuristics as plug-ins (``plugin``, ``heuristics``)."""

from .config import BELIEF_SOURCES, LEAVES, PRECISIONS, SearchConfig
from .core import Belief, Sampler, Search, SearchResult
from .improvement import improve
from .plugin import HEURISTICS, Heuristic
from .rollout import LogitsFn

__all__ = ["BELIEF_SOURCES", "HEURISTICS", "LEAVES", "PRECISIONS", "Belief", "Heuristic", "LogitsFn", "Sampler",
           "Search", "SearchConfig", "SearchResult", "improve"]
