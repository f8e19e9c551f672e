"""Speed of reading and replaying Gravon records (``deepnash validate-records``'s work).

Reads every record under the given paths (default: ``archives.default_archive_dir()``),
then replays every Classic and Barrage game through the engine, and prints the
seconds each step took, games per second and moves per second.  Numba compile
time is excluded: one game is replayed first.

    python benchmarks/bench_records.py                 # a table
    python benchmarks/bench_records.py PATH... --json  # one JSON object

JSON keys: ``games``, ``moves``, ``read_s``, ``replay_s``, ``games_per_s_read``,
``games_per_s_replay``, ``moves_per_s_replay``, ``rules``, ``failed`` (games with a move the rules forbid).
"""

from __future__ import annotations

import argparse
import json
import time

from deepnash.game import RecordError
from deepnash.archives import default_archive_dir
from deepnash.notation.gravon import read_records, record_variant, replay


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="Gravon .xml files, .zip archives or folders")
    parser.add_argument("--rules", default="none", help="repetition rules: none, gravon, isf")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    start = time.perf_counter()
    records = [r for r in read_records(args.paths or [default_archive_dir()], on_error=lambda e: None)
               if r.variant in ("classic", "barrage")]
    read_s = time.perf_counter() - start
    replay(records[0], variant=record_variant(records[0], args.rules))  # compile
    start = time.perf_counter()
    failed = 0
    for r in records:
        try:
            replay(r, variant=record_variant(r, args.rules))
        except RecordError:  # a move the chosen repetition rules forbid
            failed += 1
    replay_s = time.perf_counter() - start
    moves = sum(len(r.moves) for r in records)
    out = {
        "games": len(records), "moves": moves, "read_s": round(read_s, 3), "replay_s": round(replay_s, 3),
        "games_per_s_read": round(len(records) / read_s), "games_per_s_replay": round(len(records) / replay_s),
        "moves_per_s_replay": round(moves / replay_s), "rules": args.rules, "failed": failed,
    }
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:<20} {v}")


if __name__ == "__main__":
    main()
