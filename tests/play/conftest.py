"""Fixtures for the play tests."""

from __future__ import annotations

import pytest

from deepnash.agents.registry import make_agent
from deepnash.play.terminal import PlaySession


@pytest.fixture
def session(tmp_path) -> PlaySession:
    """A Barrage session as Red against the random bot, deployed at random and started."""
    s = PlaySession(make_agent("random"), "barrage", 0, seed=7, save_to=tmp_path / "end.xml")
    assert not s.handle("random").error
    assert not s.handle("ready").error
    return s
