"""Does knowing who plays help judge a position?  The material yardstick with each side's setup's track record.

People keep their setups, so a side's setup stands for its player.  This script adds to ``value-check``'s material
fit (``train.value_check.material_features``), for the mover's setup and optionally the opponent's, the setup's
record among the other games (the same setup, square for square or mirrored; a fitted game's own result left
out): ``logit((wins + 1) / (games - wins + 1))``, whether it was seen, and ``log(1 + games)``.  It fits on the
first ``--fit-games`` other games and scores the first ``--games`` held-out ones (``value-check``'s split, order
and fit), by moves to the end.  ``docs/journal/value-and-belief.md``, "What the value knows"::

    python docs/journal/scripts/setup_record.py ../shared/data/gravon --variant classic [--json]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

import numpy as np

from deepnash.infostate.setup_library import ZONE
from deepnash.train.human import HumanGame, load_games, split_games
from deepnash.train.value_check import BUCKETS, MaterialFit, positions


def setup_key(setup: np.ndarray) -> bytes:
    """One key for a deployment (``int8[100]``, own frame) and its mirror image (files reversed)."""
    zone = setup[:ZONE].reshape(-1, 10)
    return min(zone.tobytes(), zone[:, ::-1].tobytes())


def records(games: list[HumanGame]) -> tuple[Counter, Counter]:
    """``(games, wins)`` of each setup key over ``games``, both sides."""
    played, won = Counter(), Counter()
    for g in games:
        for side in (0, 1):
            k = setup_key(g.setup[side])
            played[k] += 1
            won[k] += g.winner == side
    return played, won


def record_features(games: list[HumanGame], at: dict, played: Counter, won: Counter, leave_out: bool,
                    both: bool) -> np.ndarray:
    """``float32[N, 3 or 6]``: the mover's setup's record (and the opponent's with ``both``) at ``at``'s positions
    (``train.value_check.positions`` of ``games``); ``leave_out`` takes each game's own result out of the counts."""
    per_game = np.zeros((len(games), 2, 3), np.float32)
    for i, g in enumerate(games):
        for side in (0, 1):
            k = setup_key(g.setup[side])
            n, w = played[k] - leave_out, won[k] - (leave_out and g.winner == side)
            per_game[i, side] = (np.log((w + 1) / (n - w + 1)), n > 0, np.log1p(n))
    mover = at["ply"] % 2  # Red moves first
    own = per_game[at["game"], mover]
    return np.concatenate([own, per_game[at["game"], 1 - mover]], 1) if both else own


def brier_by_bucket(p: np.ndarray, won: np.ndarray, to_end: np.ndarray) -> dict:
    out = {name: float(np.mean((p[s] - won[s]) ** 2)) for name, lo, hi in BUCKETS
           if (s := (to_end >= lo) & (to_end < hi)).any()}
    return {**out, "all": float(np.mean((p - won) ** 2))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", nargs="+", help="Gravon .xml files, .zip archives or folders")
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--held-out", type=float, default=0.05)
    ap.add_argument("--games", type=int, default=200, help="held-out games scored")
    ap.add_argument("--fit-games", type=int, default=1500)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    games = load_games(args.records, args.variant)
    held = sorted(split_games(games, args.held_out)[1], key=lambda g: g.key)[:args.games]
    scored = {g.key for g in held}
    others = sorted((g for g in games if g.key not in scored), key=lambda g: g.key)
    fit = others[:args.fit_games]
    played, won = records(others)
    fit_at, at = positions(fit, args.variant), positions(held, args.variant)
    result = {"decisions": int(len(at["won"])), "fit_decisions": int(len(fit_at["won"])),
              "seen": float(np.mean([played[setup_key(g.setup[s])] > 0 for g in held for s in (0, 1)]))}
    for name, extra in (("material", None), ("own_setup", False), ("both_setups", True)):
        x_fit, x = fit_at["features"], at["features"]
        if extra is not None:
            x_fit = np.concatenate([x_fit, record_features(fit, fit_at, played, won, True, extra)], 1)
            x = np.concatenate([x, record_features(held, at, played, won, False, extra)], 1)
        result[name] = brier_by_bucket(MaterialFit(x_fit, fit_at["won"]).p_win(x), at["won"], at["to_end"])
    if args.json:
        print(json.dumps(result))
        return
    print(f"{result['decisions']:,} held-out decisions; fit on {result['fit_decisions']:,}; "
          f"{result['seen']:.0%} of held-out sides' setups seen among the other games")
    print(f"{'fit':<12}" + "".join(f"{k:>9}" for k in result["material"]))
    for name in ("material", "own_setup", "both_setups"):
        print(f"{name:<12}" + "".join(f"{v:>9.3f}" for v in result[name].values()))


if __name__ == "__main__":
    main()
