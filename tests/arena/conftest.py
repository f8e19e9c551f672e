"""Fixtures shared by the arena's tests."""

from __future__ import annotations

import pytest

from deepnash.arena import run_tournament
from deepnash.game import BARRAGE


@pytest.fixture(scope="session")
def games(tmp_path_factory):
    """Six Barrage games of ``greedy`` against ``random`` (several end with a Flag captured), with their records
    and explain logs in the folder returned beside the ``TournamentResult``."""
    out = tmp_path_factory.mktemp("barrage-games")
    result = run_tournament(["greedy", "random"], 6, BARRAGE, 11, 1, str(out), explain=True)
    return out, result
