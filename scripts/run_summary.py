"""What a training run's TensorBoard scalars say, as text: for each tag, its median over the first and the last
quarter of the updates logged, and the updates a minute of wall time.  Reads ``RUN/tb`` (``deepnash train`` and
``deepnash pretrain`` write it); for a run on a lent machine whose ``tb`` folder did not come back, the same
lines are in the log of ``scripts/gpu_session.sh``, which calls this::

    python scripts/run_summary.py runs/classic-rl-gpu [--tag charts/importance_weight --tag losses/critic] [--json]

The tags read by default are those the Classic TRAINING.md quotes for an R-NaD run: the critic's loss, the
importance weight v-trace's traces see, the policy's entropy, the share of time the learner waited for games and
the agent steps a second.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

TAGS = ("losses/critic", "charts/importance_weight", "charts/policy_entropy", "charts/games_wait_share",
        "charts/agent_steps_per_s")


def read_scalars(run: Path) -> dict[str, list[tuple[float, int, float]]]:
    """``{tag: [(wall_time, step, value), ...]}`` of every scalar under ``run/tb``, sorted by step (a resumed run's
    later value wins where two event files log the same step).

    Raises:
        FileNotFoundError: ``run/tb`` holds no event file.
    """
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    files = sorted((run / "tb").glob("events.out.tfevents.*"))
    if not files:
        raise FileNotFoundError(f"{run / 'tb'}: no TensorBoard event file (is {run} a training run?)")
    out: dict[str, dict[int, tuple[float, int, float]]] = {}
    for f in files:
        acc = EventAccumulator(str(f), size_guidance={"scalars": 0})
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            for e in acc.Scalars(tag):
                out.setdefault(tag, {})[e.step] = (e.wall_time, e.step, e.value)
    return {tag: [rows[s] for s in sorted(rows)] for tag, rows in out.items()}


def summarise(scalars: dict[str, list[tuple[float, int, float]]], tags: tuple[str, ...]) -> dict:
    """``{"updates": [first, last], "updates_per_minute": float | None, "tags": {tag: {"first_quarter": median,
    "last_quarter": median, "n": count}}}``; a tag the run never logged is left out.  The rate is the steps logged
    over the wall time between the first and the last, within each event file's stretch (a resumed run's pause does
    not count), from the first tag present."""
    summary: dict = {"updates": None, "updates_per_minute": None, "tags": {}}
    for tag in tags:
        rows = scalars.get(tag)
        if not rows:
            continue
        values = np.array([v for _, _, v in rows])
        q = max(1, len(values) // 4)
        summary["tags"][tag] = {"first_quarter": float(np.median(values[:q])),
                                "last_quarter": float(np.median(values[-q:])), "n": len(values)}
        if summary["updates"] is None:
            summary["updates"] = [rows[0][1], rows[-1][1]]
            wall = np.array([w for w, _, _ in rows])
            step = np.array([s for _, s, _ in rows])
            gaps = np.diff(wall)
            keep = gaps < 10 * max(float(np.median(gaps)), 1e-9) if len(gaps) else gaps.astype(bool)
            seconds = float(gaps[keep].sum())
            if seconds > 0:
                summary["updates_per_minute"] = float(np.diff(step)[keep].sum()) / seconds * 60
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path, help="a training run's folder (the one holding tb/)")
    ap.add_argument("--tag", action="append", help=f"a scalar to summarise (repeatable; default: {', '.join(TAGS)})")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        summary = summarise(read_scalars(args.run), tuple(args.tag or TAGS))
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary))
        return 0
    if summary["updates"] is None:
        print(f"{args.run}: none of the tags asked for was logged")
        return 1
    first, last = summary["updates"]
    rate = summary["updates_per_minute"]
    print(f"{args.run}: updates {first} to {last}" + (f", {rate:.1f} a minute" if rate else ""))
    for tag, s in summary["tags"].items():
        print(f"  {tag}: median {s['first_quarter']:.4g} over the first quarter, {s['last_quarter']:.4g} over the "
              f"last ({s['n']} values)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
