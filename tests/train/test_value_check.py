"""``deepnash value-check``: the positions it scores, cross-checked against the engine's own replay, the
material yardstick, and the command's stable JSON."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from deepnash.archives import packaged_archive_dir
from deepnash.notation.gravon import read_records, replay
from deepnash.train.human import load_games
from deepnash.train.value_check import BUCKETS, MaterialFit, brier_gap, positions

BARRAGE = packaged_archive_dir() / "strados2014-1.zip"
NETWORK = Path(__file__).parents[1] / "testtime" / "data" / "classic-network"  # a small Classic network


def test_positions_count_the_material_the_engine_counts_from_the_movers_side():
    """The slow way: replay each record through ``Game`` to the ply, count each side's pieces by type."""
    games = [g for g in load_games(BARRAGE, "barrage") if g.winner >= 0][:6]
    records = {f"{Path(r.source).name}#{r.game}": r for r in read_records(BARRAGE)}
    at = positions(games, "barrage")
    assert len(at["won"]) == sum(len(g.moves) for g in games)
    order = np.lexsort((at["ply"], at["game"]))  # the stream interleaves its games: sort by game, then ply
    at = {k: v[order] for k, v in at.items() if len(v) == len(order)}
    start = 0
    for i, g in enumerate(games):
        n = len(g.moves)
        assert (at["game"][start:start + n] == i).all()
        assert np.array_equal(at["ply"][start:start + n], np.arange(n))
        assert np.array_equal(at["to_end"][start:start + n], n - np.arange(n))
        assert np.array_equal(at["won"][start:start + n], np.arange(n) % 2 == g.winner)
        for ply in sorted({0, n // 3, n // 2, n - 1}):
            game = replay(dataclasses.replace(records[g.key], moves=records[g.key].moves[:ply]))
            mover = game.turn
            count = np.zeros((2, 12))
            for sq in range(100):
                piece = game.piece_at(sq)
                if piece is not None:
                    count[int(piece.player != mover), int(piece.type)] += 1
            assert np.array_equal(at["features"][start + ply, :12], count[0] - count[1]), (g.key, ply)
            assert at["features"][start + ply, 12] == pytest.approx(ply / 100)
        start += n


def test_the_material_fit_learns_who_is_ahead():
    at = positions(load_games(BARRAGE, "barrage"), "barrage")
    fit = MaterialFit(at["features"], at["won"])
    p = fit.p_win(at["features"])
    late = at["to_end"] < 10
    assert np.mean((p - at["won"]) ** 2) < 0.25 and np.mean((p[late] - at["won"][late]) ** 2) < 0.2
    assert fit.weights[10] > 0  # a Marshal more is good for the mover


def test_the_brier_gap_is_the_difference_of_the_scores_with_an_interval_over_games():
    rng = np.random.default_rng(3)
    game = rng.integers(0, 30, 600)
    won = (game % 2 == 0) ^ (rng.random(600) < 0.1)  # a game's decisions mostly share its result
    off = rng.normal(0, 0.3, 30)  # how far the guess is off differs from game to game
    p, q = np.clip(np.abs(won - np.abs(off[game] + rng.normal(0, 0.05, 600))), 0, 1), np.full(600, 0.5)
    gap, low, high = brier_gap(p, q, won, game)
    slow = sum((p[i] - won[i]) ** 2 - (q[i] - won[i]) ** 2 for i in range(600)) / 600
    assert gap == pytest.approx(slow) and low <= gap <= high < 0  # the informed guess beats the coin, on these games
    assert brier_gap(q, q, won, game) == (0.0, 0.0, 0.0)
    assert brier_gap(q, p, won, game) == pytest.approx((-gap, -high, -low))
    # the games are the samples: a decision counted twice over changes neither the gap nor its interval
    twice = np.repeat(np.arange(600), 2)
    assert brier_gap(p[twice], q[twice], won[twice], game[twice]) == pytest.approx((gap, low, high))
    # and fewer games, each with as many decisions, leave a wider interval
    few = game < 6
    _, low6, high6 = brier_gap(p[few], q[few], won[few], game[few])
    assert high6 - low6 > high - low
    with pytest.raises(ValueError, match="no decision"):
        brier_gap(p[:0], q[:0], won[:0], game[:0])


def test_the_command_prints_the_stable_json(tmp_path):
    command = [sys.executable, "-c", "from deepnash.cli import main; main()", "value-check",
               f"checkpoint:{NETWORK}", str(packaged_archive_dir() / "strados2014-0.zip"), "--games", "8",
               "--fit", str(packaged_archive_dir() / "strados2014-0.zip"), "--fit-games", "40", "--belief", "none", "--json"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert {"decisions", "brier", "log_loss", "buckets", "material_brier", "belief_nll", "network_belief_nll",
            "heuristic_belief_nll", "public_belief_nll", "belief_phases"} <= set(r)
    assert list(r["buckets"]) == [name for name, _, _ in BUCKETS] == ["0-10", "10-30", "30-80", "80-200", "200-end"]
    assert sum(b["n"] for b in r["buckets"].values()) == r["decisions"] > 0
    assert all({"n", "games", "brier", "material_brier", "brier_gap"} <= set(b) for b in r["buckets"].values() if b["n"])
    assert all(0 < b["games"] <= r["games"] for b in r["buckets"].values() if b["n"])
    gap, low, high = r["brier_gap"]
    assert low <= gap <= high and gap == pytest.approx(r["brier"] - r["material_brier"])
    assert 0 <= r["brier"] <= 1 and 0 <= r["material_brier"] <= 1 and r["fit_games"] <= 40
    assert r["belief"] == "none" and r["network_belief_nll"] is None  # the learned belief: people's setups alone
    assert r["library"].endswith("setup_library.npz") and 0 < r["belief_nll"] < r["heuristic_belief_nll"]
    assert 0.5 < r["heuristic_belief_nll"] < r["public_belief_nll"] < np.log(12)  # where people deploy is worth knowing
    assert sum(p["n"] for p in r["belief_phases"].values()) == r["hidden_pieces"] > 0
    text = subprocess.run(command[:-1], capture_output=True, text=True, timeout=600)
    assert text.returncode == 0 and "heuristic sampler" in text.stdout and "200-end" in text.stdout
    bot = subprocess.run([*command[:3], "value-check", "random", str(BARRAGE)], capture_output=True, text=True)
    assert bot.returncode == 2 and "not a network agent" in bot.stderr
