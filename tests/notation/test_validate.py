"""Validating records: tallies and failures on the golden files, and every shared Gravon game through the command."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepnash.archives import ARCHIVE_ENV
from deepnash.cli import app
from deepnash.notation.validate import format_report, validate_records
from notation_helpers import DATA

ARCHIVES = Path(os.environ.get(ARCHIVE_ENV) or "no-gravon-archives")  # the 14 shared months (CI sets it)


def test_golden_files():
    r = validate_records([DATA])
    assert (r["games_read"], r["replayed"], r["ended_as_recorded"], r["declared_early"]) == (8, 4, 4, 1)
    assert r["by_variant"] == {
        "barrage": {"games_read": 5, "replayed": 2, "ended_as_recorded": 2, "supported": True},
        "classic": {"games_read": 2, "replayed": 2, "ended_as_recorded": 2, "supported": True},
        "ultimate lightning": {"games_read": 1, "replayed": 0, "ended_as_recorded": 0, "supported": False,
                               "why": "its pieces also move diagonally (moves such as f9-g8), which the rules "
                                      "engine does not play"},
    }
    failed = {f["file"].rsplit("/", 1)[-1]: (f["game"], f["move"], f["kind"]) for f in r["failed"]}
    assert failed == {"after-end.xml": (1, 3, "move_after_end"), "bad-setup.xml": (1, None, "bad_setup"),
                      "broken-move.xml": (1, 3, "illegal_move"), "truncated.xml": (None, None, "unreadable")}
    assert r["end_mismatches"] == []
    text = format_report(r)
    assert "broken-move.xml move 3 [illegal_move]: Red: a1-a2 is illegal: no piece on a1" in text
    assert "ultimate lightning" in text and "skipped: its pieces also move diagonally" in text


def test_a_truncated_game_is_an_end_mismatch(tmp_path):
    """A record cut short after its last move but still claiming a captured flag."""
    text = (DATA / "classic-flag.xml").read_text()
    last = text.index('  <move id="24"')
    (tmp_path / "cut.xml").write_text(text[:last] + text[text.index("  <player"):])
    r = validate_records([tmp_path])
    assert r["replayed"] == 1 and r["ended_as_recorded"] == 0
    assert r["end_mismatches"][0]["expected"] == "flag_captured:blue" and r["end_mismatches"][0]["got"] == "*"


def test_command_reports_failures_with_status_1():
    result = CliRunner().invoke(app, ["validate-records", str(DATA), "--json"])
    assert result.exit_code == 1
    assert len(json.loads(result.output)["failed"]) == 4
    result = CliRunner().invoke(app, ["validate-records", str(DATA / "classic-flag.xml")])
    assert result.exit_code == 0 and "classic" in result.output
    result = CliRunner().invoke(app, ["validate-records", str(DATA), "--rules", "fide"])
    assert result.exit_code == 2 and "unknown repetition rules" in result.output


def test_demo_prints_moves_and_board():
    result = CliRunner().invoke(app, ["demo", "--path", str(DATA / "classic-flag.xml")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "classic-flag.xml" in lines[0] and lines[1].startswith("1. f4-f5 i7-i6 3. f5-f6")
    assert "after 24 moves: Blue wins (flag captured)" in lines[-1]
    assert len(lines) == 2 + 13
    bad = CliRunner().invoke(app, ["demo", "--path", str(DATA), "--game", "0"])  # after-end.xml
    assert bad.exit_code == 2 and "already over" in bad.output
    assert CliRunner().invoke(app, ["demo", "--path", str(DATA), "--game", "99"]).exit_code == 2


@pytest.mark.skipif(not ARCHIVES.is_dir(), reason=f"the shared Gravon archives are not at {ARCHIVES}")
def test_every_shared_classic_and_barrage_game_replays():
    """The 14 shared months: every readable Classic and Barrage game replays, and every ending is accounted for.

    Duell games replay too; Ultimate Lightning (diagonal moves) and Classicfree (armies of any make-up,
    anywhere) cannot, and say why.  The one record without a setup fails as unreadable (status 1, naming the file).  Of the "unable to move"
    endings that the rules reach one move later, four are explained only by the ISF two-squares rule (the
    loser's last moves left shuttle back), and one is wrong: Red's Captain (6) on f1 can still take Blue's Lieutenant (5) on f2.
    """
    command = [sys.executable, "-c", "from deepnash.cli import app; app()", "validate-records", str(ARCHIVES), "--json"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=300)
    r = json.loads(out.stdout)
    assert out.returncode == 1
    assert [(f["file"].rsplit("/", 1)[-1], f["kind"], f["reason"]) for f in r["failed"]] == [
        ("strados2014-9.zip:classic-2014.9-2525.xml", "unreadable", "no <field content=...>")]
    assert r["end_mismatches"] == []
    assert r["declared_early_two_squares"] == 4
    assert [(m["file"].rsplit("/", 1)[-1], m["loser"], m["legal"]) for m in r["declared_with_moves_left"]] == [
        ("strados2014-10.zip:classic-2014.10-2587.xml", "Red", ["f1-f2", "f1-e1"])]
    supported = {k: v for k, v in r["by_variant"].items() if v["supported"]}
    assert set(supported) == {"classic", "barrage", "duell"}
    assert {k: v["games_read"] for k, v in r["by_variant"].items() if not v["supported"]} == {
        "ultimate lightning": 52, "classicfree": 46}
    assert all(v["replayed"] == v["games_read"] for v in supported.values())
    assert supported["barrage"]["ended_as_recorded"] == supported["barrage"]["games_read"] == 1436
    assert supported["duell"]["ended_as_recorded"] == supported["duell"]["games_read"] == 31
    assert supported["classic"]["ended_as_recorded"] == supported["classic"]["games_read"] - 1 == 12298
    assert r["replayed"] == sum(v["games_read"] for v in supported.values())
