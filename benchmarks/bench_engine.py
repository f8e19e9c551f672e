"""Random-play speed of the rules engine (issue 2's speed target).

Plays uniformly random Classic games with the Numba kernels ``random_playout``
(one game at a time, slot 0) and ``random_playout_batch`` (B games stepped in
turn) and prints moves per second on one core, the mean game length and how
the games ended.  Numba compile time is excluded: every kernel is warmed up
on a few games first.  Moves per second are measured in the CPU time of the
benchmark's thread (``time.thread_time``), so that other work on a shared
machine does not lower them; the ``wall_`` keys give the wall-clock figures.

    python benchmarks/bench_engine.py            # a table
    python benchmarks/bench_engine.py --json     # one JSON object (stable keys)

JSON keys: ``moves_per_s_rules_on``, ``moves_per_s_rules_off`` (one game at a
time, Classic, both repetition rules on / off), ``moves_per_s_batch_rules_on``
(B = ``--batch``), ``moves_per_s_batch_rules_off``, the same four as
``wall_moves_per_s_*``, ``mean_game_length`` (rules
on, one game at a time), ``mean_game_length_rules_off``, ``terminations`` and
``terminations_rules_off`` (count per ``TERM_*`` name), ``games``, ``batch``,
``seed``, ``variant``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from deepnash.game import BatchState, get_variant
from deepnash.game import kernels as K

TERM_NAMES = {getattr(K, n): n[5:].lower() for n in dir(K) if n.startswith("TERM_") and n != "TERM_NONE"}


def _terminations(ends: np.ndarray) -> dict[str, int]:
    return {TERM_NAMES[int(c)]: int(n) for c, n in zip(*np.unique(ends, return_counts=True))}


def _timed(kernel, *args) -> tuple[float, float]:
    """(CPU moves/s, wall moves/s) of one kernel call that returns its number of moves."""
    c0, w0 = time.thread_time(), time.perf_counter()
    total = kernel(*args)
    return total / (time.thread_time() - c0), total / (time.perf_counter() - w0)


def run_single(variant, games: int) -> tuple[tuple[float, float], np.ndarray, np.ndarray]:
    """Play ``games`` games one at a time; returns ((CPU, wall) moves/s, lengths, termination codes)."""
    s = BatchState(1, variant)
    lengths = np.zeros(games, dtype=np.int32)
    ends = np.zeros(games, dtype=np.int32)
    args = (s.board, s.flags, s.meta, s.hist, s.zob, s.chase, s.rules, s.lakes, s.counts, *s.deploy)
    return _timed(K.random_playout, *args, games, lengths, ends), lengths, ends


def run_batch(variant, batch: int) -> tuple[tuple[float, float], np.ndarray, np.ndarray]:
    """Play one game in each of ``batch`` slots, stepped in turn; returns ((CPU, wall) moves/s, lengths, codes)."""
    s = BatchState(batch, variant)
    lengths = np.zeros(batch, dtype=np.int32)
    ends = np.zeros(batch, dtype=np.int32)
    args = (s.board, s.flags, s.meta, s.hist, s.zob, s.chase, s.rules, s.lakes, s.counts, *s.deploy)
    return _timed(K.random_playout_batch, *args, lengths, ends), lengths, ends


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="classic", help="classic or barrage (default classic)")
    ap.add_argument("--games", type=int, default=300, help="games per one-at-a-time run (default 300)")
    ap.add_argument("--batch", type=int, default=1024, help="games in the batched run (default 1024)")
    ap.add_argument("--seed", type=int, default=0, help="seed of Numba's generator")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args()
    if a.games < 1 or a.batch < 1:
        ap.error("--games and --batch must be at least 1")

    on = get_variant(a.variant)
    off = on.with_rules(two_squares=False, more_squares=False)
    K.seed_numba(a.seed)
    for v in (on, off):  # compile and warm up
        run_single(v, 3)
        run_batch(v, 8)
    K.seed_numba(a.seed)
    mps_on, len_on, end_on = run_single(on, a.games)
    mps_off, len_off, end_off = run_single(off, a.games)
    mps_b_on, _, _ = run_batch(on, a.batch)
    mps_b_off, _, _ = run_batch(off, a.batch)
    out = {
        "variant": on.name,
        "games": a.games,
        "batch": a.batch,
        "seed": a.seed,
        "cpu_count": os.cpu_count(),
        "moves_per_s_rules_on": round(mps_on[0]),
        "moves_per_s_rules_off": round(mps_off[0]),
        "moves_per_s_batch_rules_on": round(mps_b_on[0]),
        "moves_per_s_batch_rules_off": round(mps_b_off[0]),
        "wall_moves_per_s_rules_on": round(mps_on[1]),
        "wall_moves_per_s_rules_off": round(mps_off[1]),
        "wall_moves_per_s_batch_rules_on": round(mps_b_on[1]),
        "wall_moves_per_s_batch_rules_off": round(mps_b_off[1]),
        "mean_game_length": float(len_on.mean()),
        "mean_game_length_rules_off": float(len_off.mean()),
        "terminations": _terminations(end_on),
        "terminations_rules_off": _terminations(end_off),
    }
    if a.json:
        print(json.dumps(out))
        return
    print(f"{on.name}, random play, one core ({a.games} games one at a time, batch of {a.batch})")
    print("  moves/s (thread CPU time; wall clock in brackets)")
    for label, single, batched in (("on ", mps_on, mps_b_on), ("off", mps_off, mps_b_off)):
        print(f"  rules {label}: {single[0]:11,.0f} ({single[1]:11,.0f}) one at a time, "
              f"{batched[0]:11,.0f} ({batched[1]:11,.0f}) batched")
    print(f"  mean game length: {len_on.mean():.1f} moves (rules on), {len_off.mean():.1f} (off)")
    print(f"  terminations (rules on) : {out['terminations']}")
    print(f"  terminations (rules off): {out['terminations_rules_off']}")


if __name__ == "__main__":
    main()
