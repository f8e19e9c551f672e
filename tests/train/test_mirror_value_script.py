"""docs/journal/scripts/mirror_value.py: the two reads it compares are the network's value on each position alone
and over the position and its mirror, on the same decisions, and its gap is the second's Brier score less the first's."""

import importlib.util
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from deepnash.nn import DeepNashNet, get_preset
from deepnash.train.human import load_games
from deepnash.train.value_check import positions

_spec = importlib.util.spec_from_file_location(
    "mirror_value", Path(__file__).resolve().parents[2] / "docs" / "journal" / "scripts" / "mirror_value.py")
mirror_value = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mirror_value)
SAMPLE = Path(__file__).parent / "data" / "gravon-sample.zip"  # 12 Classic games of 2014-3


def test_the_mirrored_read_is_scored_beside_the_plain_one_on_the_same_decisions():
    torch.manual_seed(0)
    net = DeepNashNet(replace(get_preset("tiny"), version=3)).eval()
    with torch.no_grad():  # give the head's squares weight, so that the mirror changes the value
        net.value_out.weight.normal_(0, 0.3)
    games = [g for g in load_games([str(SAMPLE)], "classic") if g.winner >= 0][:2]
    rows = mirror_value.compare(net, games, "classic")
    at = positions(games, "classic", mirror_value.with_mirror(net, True))
    whole = rows["all"]
    assert whole["n"] == len(at["won"]) == sum(r["n"] for name, r in rows.items() if name != "all")
    assert whole["mirror"] == pytest.approx(float(np.mean((at["p_win"] - at["won"]) ** 2)))
    assert whole["plain"] != pytest.approx(whole["mirror"], abs=1e-6)
    assert whole["gap"][0] == pytest.approx(whole["mirror"] - whole["plain"])
    assert whole["gap"][1] <= whole["gap"][0] <= whole["gap"][2]
    assert not net.config.mirror_value  # the network compared is left as it was
