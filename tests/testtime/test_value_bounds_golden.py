"""Value bounds removes exactly the moves recorded in ``data/value-bounds-golden.json``.

The file holds the decisions of the implementation that scored every look-ahead leaf, on human
games with the networks it was written with (``value_bounds_golden.py`` says how it was made).  Moves whose
bound lay within ``NEAR`` of the threshold are left out: float noise between CPUs may tip them.
"""

from __future__ import annotations

import json

import pytest
import torch
from value_bounds_golden import EPS, GAMES, GOLDEN, decisions, value_fn

from deepnash.testtime.value_bounds import value_bounds


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text())


def test_the_same_moves_are_removed_with_fewer_positions_scored(golden):
    torch.set_num_threads(1)
    fns = {name: value_fn(name) for name in GAMES}
    rows = golden["decisions"]
    seen = [(name, ply, view) for name, ply, view in decisions()]
    assert [(name, ply) for name, ply, _ in seen] == [(r["game"], r["ply"]) for r in rows]
    scored = 0
    for (name, ply, view), row in zip(seen, rows):
        vb = value_bounds(view, fns[view.variant.name], EPS)
        near = set(row["near"])
        assert abs(vb.value - row["value"]) < 1e-4, (name, ply)
        assert {str(m) for m in vb.removed} - near == set(row["removed"]) - near, (name, ply)
        scored += vb.evaluations
    assert sum(bool(r["removed"]) for r in rows) >= 50  # the file exercises removals, not only keeps
    assert scored < 0.6 * sum(r["evaluations"] for r in rows)  # 26,702 of 47,683 when written
