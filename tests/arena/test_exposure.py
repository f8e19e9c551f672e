"""How findable a captured Flag was: the raider's Flag inference on the true Flag, move by move."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

from deepnash.arena.exposure import flag_exposure
from deepnash.cli import app
from deepnash.notation.gravon import read_records, write_xml


def test_the_exposure_reads_the_raider_s_odds_of_the_true_flag_until_it_falls(games):
    out, result = games
    captured = [g for g in result.matches[0].games if g.termination == "flag_captured"]
    assert captured
    for g in captured:
        e = flag_exposure(g.record)
        assert e.player == 1 - g.winner and e.captured_at == g.plies - 1
        assert np.all(e.plies % 2 == g.winner)  # the raider's own turns: Red moves at even plies
        assert np.all((0 <= e.p_flag) & (e.p_flag <= 1)) and np.all(e.rank >= 1)
        if e.known_from is not None:
            after = e.plies >= e.known_from
            assert np.all(e.rank[after] == 1)
            assert e.known_from == e.plies[0] or e.rank[np.flatnonzero(after)[0] - 1] > 1
            assert str(e.known_from) in e.describe()
        else:
            assert e.rank[-1] > 1


def test_arena_explain_ends_a_game_whose_flag_fell_with_its_exposure(games):
    out, result = games
    for path in sorted(out.glob("*.xml")):
        record = next(iter(read_records(path)))
        lines = path.with_suffix(".explain.jsonl").read_text().splitlines()
        e = flag_exposure(record)
        if e is None:
            assert not any("flag_exposure" in line for line in lines)
        else:
            assert json.loads(lines[-1])["flag_exposure"] == json.loads(json.dumps(e.to_dict()))


def test_replay_explain_says_it_in_one_line_and_nothing_for_other_endings(games, tmp_path):
    out, result = games
    for g in result.matches[0].games:
        path = tmp_path / "game.xml"
        write_xml(g.record, path)
        r = CliRunner().invoke(app, ["replay", str(path), "--explain"])
        assert r.exit_code == 0, r.output
        if g.termination == "flag_captured":
            assert "Flag" in r.output and f"ply {g.plies - 1}" in r.output
            assert len(r.output.strip().splitlines()) == 2  # and where the Flag could last have been saved
        else:
            assert r.output.strip() == "no Flag was captured in this game"


def test_the_setup_exposure_script_reads_each_pool_before_and_after_the_bombs_beside_the_flag():
    """``scripts/setup_exposure.py``: for both readers (tracking's Flag odds, the belief network) the true Flag's
    odds are a probability, and it is the likeliest piece no more often than it is among the three likeliest;
    revealing the Bombs beside a walled Flag raises its odds under tracking; Barrage has no walled Flags."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "setup_exposure.py"
    for variant in ("classic", "barrage"):
        run = subprocess.run([sys.executable, str(script), "--variant", variant, "--setups", "20", "--json"],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        pools = json.loads(run.stdout)
        read = {name: row for name, row in pools.items() if "error" not in row}
        assert "human" in read and (variant == "barrage") == ("error" in pools["walled"])
        for row in read.values():
            assert row["setups"] == 20
            for stage in ("start", "bombs"):
                assert set(row[stage]) == {"tracking", "belief"}
                for r in row[stage].values():
                    assert 0 < r["median_p"] < 1 and 0 < r["mean_p"] < 1 and 0 <= r["likeliest"] <= r["top3"] <= 1
        if variant == "classic":
            walled = read["walled"]
            assert walled["bombs"]["tracking"]["mean_p"] > walled["start"]["tracking"]["mean_p"]
