"""The ``deepnash`` entry point: no command fails silently.

Bad input ends with ``error: ...`` on stderr and status 2; a bug ends with its traceback, a line
naming the command, and status 1; usage errors keep typer's status 2.  Run as the installed
console script, and in process through ``cli.main``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from deepnash import cli


def test_the_console_script_reports_a_missing_folder(tmp_path):
    exe = Path(sys.executable).with_name("deepnash")  # installed beside this interpreter
    r = subprocess.run([exe, "demo", "--path", str(tmp_path / "nowhere")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip() == f"error: {tmp_path / 'nowhere'}: no such file or folder"


@pytest.mark.parametrize(("argv", "status", "says"), [
    (["random-game", "--variant", "chess"], 2, "error: unknown variant 'chess'"),
    (["arena", "random", "nonsense:x=1"], 2, "unknown agent 'nonsense'"),
    (["random-game", "--moves", "3"], 2, "No such option: --moves"),
    # a training bound that is not positive is refused before any record is read (it read them for minutes)
    (["pretrain", "--variant", "classic", "--minutes", "-1", "/nowhere"], 2, "--minutes must be > 0, got -1"),
    (["pretrain-belief", "--steps", "0", "/nowhere"], 2, "--steps must be at least 1, got 0"),
    (["train", "--minutes", "0"], 2, "--minutes must be > 0, got 0"),
    (["arena", "random", "random", "--workers", "0"], 2, "workers must be at least 1, got 0"),
    (["random-game", "--seed", "-5"], 2, "Invalid value for '--seed'"),
])
def test_bad_input_names_what_is_wrong(capsys, argv, status, says):
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == status and says in err and "Traceback" not in err


def test_a_bug_prints_its_traceback_and_the_command(capsys, monkeypatch):
    import deepnash.agents

    def broken(*args, **kwargs):
        raise ZeroDivisionError("the engine divided by zero")

    monkeypatch.setattr(deepnash.agents, "play_game", broken)
    with pytest.raises(SystemExit) as stop:
        cli.main(["random-game", "--seed", "3"])
    err = capsys.readouterr().err
    assert stop.value.code == 1 and "Traceback" in err and "in broken" in err
    assert err.rstrip().endswith(
        "error: deepnash random-game failed unexpectedly: ZeroDivisionError: the engine divided by zero")


def test_success_exits_zero(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["random-game", "--seed", "1", "--json"])
    assert stop.value.code == 0 and '"termination"' in capsys.readouterr().out
