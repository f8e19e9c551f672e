"""The shipped agents' search chooses the moves recorded in ``data/search-golden.json``.

The file holds the move each shipped agent chose on positions of people's games with a fixed number of search
rounds (``search_golden.py`` says how it was made), recorded before the search was split into a core and
heuristic plug-ins: a refactor of the search must choose the same move on every position.
"""

from __future__ import annotations

import json

import pytest
import torch
from search_golden import GOLDEN, OPTIONS, decisions

GOLDEN_ROWS = json.loads(GOLDEN.read_text())
GAMES = sorted({row["game"] for row in GOLDEN_ROWS["positions"]})


def test_the_file_covers_both_variants_and_the_options_it_was_made_with():
    assert GOLDEN_ROWS["options"] == OPTIONS
    rows = GOLDEN_ROWS["positions"]
    assert len(rows) >= 300
    assert {row["game"].split("-", 1)[0] for row in rows} == {"barrage", "classic"}


@pytest.mark.parametrize("game", GAMES)
def test_the_search_chooses_the_recorded_moves(game):
    torch.set_num_threads(1)
    want = [row for row in GOLDEN_ROWS["positions"] if row["game"] == game]
    got = list(decisions(game))
    assert [(r["ply"]) for r in got] == [r["ply"] for r in want]
    differ = [(w["ply"], w["move"], g["move"]) for w, g in zip(want, got) if w["move"] != g["move"]]
    assert not differ, f"{game}: (ply, recorded, chosen) {differ}"
