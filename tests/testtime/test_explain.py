"""The decision log: raw policy, each layer's effect, value, action; readable and JSON-ready."""

import json

import numpy as np

from deepnash.testtime import DecisionLog, LayerEffect, TestTimeConfig, TestTimeLayer, format_decision
from test_value_bounds import blunder_view
from testtime_helpers import piece_count_value


def test_a_logged_decision_shows_what_each_layer_did():
    view = blunder_view()
    layer = TestTimeLayer(TestTimeConfig(), value_fn=piece_count_value)
    layer.reset(0)
    plan = layer.begin_turn(view)
    dest = np.zeros(100, bool)
    dest[[m.to_sq for m in view.legal_moves if m.from_sq == 44]] = True
    raw = np.where(dest, 1.0, 0.0)
    raw[54] = 10.0  # the network likes the blunder e6 best
    raw /= raw.sum()
    final, log = layer.policy(raw, dest, "displace", plan, selected=44, value=0.0, ply=view.ply)
    log.action = int(np.argmax(final))
    text = format_decision(log)
    assert text.splitlines()[0].startswith("ply 0 Red displace  value +0.000")
    assert "raw:   e6 " in text  # the raw favourite...
    assert "value_bounds: removed e6,e7" in text or "value_bounds: removed e7,e6" in text  # ...cut, and why
    d = json.loads(json.dumps(log.to_dict()))
    assert d["raw"]["e6"] > 0.5 and "e6" not in d["final"]
    assert abs(sum(d["final"].values()) - 1) < 1e-3
    assert [e["layer"] for e in d["effects"]][0] == "value_bounds"


def test_blue_actions_are_named_in_blues_frame():
    raw = np.zeros(100)
    raw[0] = 1.0  # Blue's action 0 is the absolute square 99, j10
    log = DecisionLog(3, 1, "select", raw, raw, [LayerEffect("threats", (0,), "")])
    assert "j10" in format_decision(log) and log.to_dict()["effects"][0]["removed"] == ["j10"]
    assert log.changed("threats") and not log.changed("memory")
