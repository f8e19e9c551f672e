"""External programs speaking the UCC 2012 protocol, refereed by our engine through the arena.

``BOT`` is a tiny protocol bot written here: it sends a fixed setup (Barrage
unless told) and answers each board with a random step of one of its movable
pieces onto an empty or ``#`` square.  ``MODE`` makes it misbehave after
``AFTER`` moves: exit, close its pipes, hang (with a child holding its pipes),
flood its output, answer garbage or an illegal move.
"""

import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from deepnash.agents.registry import make_agent
from deepnash.arena import referee_game, run_match
from deepnash.env import human_pool
from deepnash.game import BARRAGE
from deepnash.notation.gravon import read_records, replay
from deepnash.notation.ucc import format_setup

RELAXED = BARRAGE.with_rules(two_squares=False, more_squares=False)

BOT = '''#!{python}
import random, subprocess, sys, time
MODE, AFTER = {mode!r}, {after}
if MODE == "exit-at-once":
    sys.exit(0)
random.seed(1)
def say(s):
    sys.stdout.write(s + "\\n"); sys.stdout.flush()
colour = sys.stdin.readline().split()[0]
if MODE == "crash-at-setup":
    sys.exit(3)
rows = {rows!r}
if MODE == "bad-setup":
    rows[3] = "FB1298s99."
for r in (rows if colour == "RED" else rows[::-1]):
    say(r)
board, moves = [], 0
for line in sys.stdin:
    line = line.strip()
    if line.startswith("QUIT"):
        break
    if len(line) != 10 or " " in line:
        continue
    board.append(line)
    if len(board) < 10:
        continue
    if moves >= AFTER:
        if MODE == "crash":
            sys.exit(4)
        if MODE == "silent":
            time.sleep(60)
        if MODE == "illegal":
            say("4 4 RIGHT")  # into or out of a lake, or no piece of ours: never legal
            board = []
            continue
        if MODE == "nonsense":
            say("hello referee")
        if MODE == "close-pipes":
            import os; os.close(1); os.close(0); time.sleep(60)
        if MODE == "hang-child":  # a child that inherits the pipes and outlives the bot's own answer time
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            time.sleep(60)
        if MODE == "flood":
            for _ in range(20000):
                sys.stdout.write("x" * 100 + "\\n")
            sys.stdout.flush(); time.sleep(60)
    options = []
    for y in range(10):
        for x in range(10):
            if board[y][x] in "12345678s9":
                for dx, dy, name in ((0, -1, "UP"), (0, 1, "DOWN"), (-1, 0, "LEFT"), (1, 0, "RIGHT")):
                    tx, ty = x + dx, y + dy
                    if 0 <= tx < 10 and 0 <= ty < 10 and board[ty][tx] in ".#":
                        options.append("%d %d %s" % (x, y, name))
    say(random.choice(options) if options else "SURRENDER")
    board, moves = [], moves + 1
'''


BARRAGE_ROWS = ["..........", "..........", "..........", "FB1298s9.."]


def _classic_rows() -> list[str]:
    return format_setup(human_pool("classic").setups[0], 0)


def _bot(tmp_path: Path, mode: str, after: int = 0, rows: list[str] | None = None) -> str:
    path = tmp_path / f"bot_{mode}_{after}_{len(''.join(rows or BARRAGE_ROWS).replace('.', ''))}.py"
    path.write_text(BOT.format(python=sys.executable, mode=mode, after=after, rows=rows or BARRAGE_ROWS))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_a_well_behaved_script_bot_plays_whole_games(tmp_path):
    out = tmp_path / "games"
    m = run_match(f"ucc:{_bot(tmp_path, 'good', 10**9)}", "random", 2, RELAXED, seed=1, out=out)
    assert m.failures == [] and m.wins + m.draws + m.losses == 2
    for rec in read_records(out):
        assert replay(rec, variant=RELAXED).is_over()


@pytest.mark.parametrize("mode, after, code, words", [
    ("crash-at-setup", 0, "CRASH", "exited"),
    ("bad-setup", 0, "BAD_SETUP", "wrong pieces"),
    ("crash", 3, "CRASH", "exited"),
    ("silent", 2, "TIMEOUT", "no move within 0.5 s"),
    ("illegal", 1, "ILLEGAL", "illegal"),
    ("nonsense", 0, "BAD_RESPONSE", "hello referee"),
    ("exit-at-once", 0, "CRASH", "exited (code 0)"),
    ("crash", 0, "CRASH", "exited"),  # right after its setup
    ("close-pipes", 2, "CRASH", "closed its pipes"),
    ("hang-child", 1, "TIMEOUT", "no move within 0.5 s"),
    ("flood", 1, "BAD_RESPONSE", "xxxx"),
])
def test_a_failing_bot_loses_with_the_reason_recorded(tmp_path, mode, after, code, words):
    for colour in (0, 1):
        bot = make_agent(f"ucc:{_bot(tmp_path, mode, after)},timeout=0.5")
        other = make_agent("random")
        result = referee_game(*((bot, other) if colour == 0 else (other, bot)), RELAXED, seed=2)
        assert result.winner == 1 - colour and result.termination == "forfeit"
        assert result.codes[colour] == code and result.codes[1 - colour] == "VICTORY"
        assert words in result.reason and ("Red" if colour == 0 else "Blue") in result.reason
        assert bot._proc is None  # the program was stopped


@pytest.mark.parametrize("variant", ["barrage", "classic"])
def test_the_arena_command_finishes_with_every_misbehaving_bot_recorded(tmp_path, variant):
    """``deepnash arena ucc:BOT ... random``: each misbehaving program loses its games with the reason
    recorded, the table is printed and the command exits 0, however the program fails."""
    rows = BARRAGE_ROWS if variant == "barrage" else _classic_rows()
    modes = [("exit-at-once", 0), ("crash", 3), ("close-pipes", 1), ("hang-child", 1), ("flood", 1), ("nonsense", 2)]
    bots = [f"ucc:{_bot(tmp_path, m, a, rows)},timeout=0.5,setup_timeout=5" for m, a in modes]
    exe = shutil.which("deepnash", path=str(Path(sys.executable).parent))
    for bot in bots:
        out = subprocess.run([exe, "arena", bot, "random", "--games", "2", "--variant", variant, "--json",
                              "--relax-repetition"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        pair = json.loads(out.stdout)["pairs"][0]
        assert pair["games"] == 2 and pair["wins"] == 0 and len(pair["failures"]) == 2, pair
        assert all(bot in f for f in pair["failures"])
        assert pair["endings"] == {"forfeit": {"losses": 2}}, pair


def test_deepnash_ucc_bot_plays_through_our_referee(tmp_path):
    """Our own agents, served by ``deepnash ucc-bot``, as external opponents: whole games, no failures."""
    exe = shutil.which("deepnash", path=str(Path(sys.executable).parent))
    wrapper = tmp_path / "greedy_bot.sh"
    wrapper.write_text(f"#!/bin/sh\nexec {exe} ucc-bot --agent greedy --variant barrage --seed 5\n")
    wrapper.chmod(0o755)
    m = run_match(f"ucc:{wrapper},setup_timeout=60,timeout=10", "random", 2, RELAXED, seed=3)
    assert m.failures == []
    assert all(g.termination != "forfeit" and g.plies > 0 for g in m.games)
