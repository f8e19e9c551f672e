"""What each of a searching agent's heuristics is worth: the agent, and the agent with each heuristic off in turn,
against one opponent, with how often each heuristic changed a move.

Usage: ``python scripts/ablation.py [--agent shipped:classic] [--opponent mcts] [--games 100] [--seed 950]
[--variant classic] [--workers 2] [--out runs/ablation] [--only guard,hold] [--json]``

Each row is a ``deepnash arena`` match of ``--games`` games, both colours, on the same seed, saved under
``--out/<row>`` and resumed from there (a stopped run goes on where it stopped).  The table gives the row's
wins-draws-losses, its win rate with the 95% Wilson interval, and, for the agent as given, how often each
heuristic changed the move it played (``SearchResult.changed_by``, per searched move).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path


def rows(agent: str, only: list[str] | None) -> dict[str, str]:
    """``{row: spec}``: ``all`` (the agent as given) and, for each heuristic its search runs (or those of ``only``),
    the agent with that heuristic off (``Heuristic.off``)."""
    from deepnash.agents.registry import make_agent
    from deepnash.testtime.search import HEURISTICS

    search = getattr(make_agent(agent), "search", None)
    if search is None:
        raise SystemExit(f"{agent}: not a searching agent; give one with search=on")
    names = [h.name for h in search.heuristics if only is None or h.name in only]
    unknown = sorted(set(only or ()) - set(names))
    if unknown:
        raise SystemExit(f"--only names heuristics {agent} does not run: {', '.join(unknown)}")
    out = {"all": agent}
    for name in names:
        out[f"{name} off"] = agent + "".join(f",{k}={v}" for k, v in HEURISTICS[name].off.items())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agent", default="shipped:classic")
    ap.add_argument("--opponent", default="mcts")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=950)
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--max-moves", type=int, default=None, help="moves before a draw (default: the variant's)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="runs/ablation")
    ap.add_argument("--only", default=None, help="comma-separated heuristics (default: every one the agent runs)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # the games share the cores: one thread each
    from deepnash.arena import run_tournament
    from deepnash.game import get_variant

    variant = get_variant(args.variant)
    if args.max_moves is not None:
        variant = variant.with_rules(max_moves=args.max_moves)
    table = {}
    for row, spec in rows(args.agent, args.only.split(",") if args.only else None).items():
        out = Path(args.out) / row.replace(" ", "-")
        pair = run_tournament([spec, args.opponent], args.games, variant, args.seed, args.workers, out,
                              resume=out.is_dir()).to_dict()["pairs"][0]
        table[row] = {k: pair[k] for k in ("a", "games", "wins", "draws", "losses", "win_rate", "win_low",
                                           "win_high", "heuristics", "endings")}
        if not args.json:
            print(f"{row}: {pair['wins']}-{pair['draws']}-{pair['losses']}", flush=True)
    if args.json:
        print(json.dumps(table))
        return
    counts = table["all"]["heuristics"]["a"]
    searched = counts.get("searched", 0)
    print(f"\n| row | games | W-D-L | win rate [95%] | moves it changed (of {searched} searched, all on) |")
    print("|---|---|---|---|---|")
    for row, r in table.items():
        name = row.removesuffix(" off")
        share = "" if row == "all" else f"{counts.get(name, 0)} ({counts.get(name, 0) / max(searched, 1):.1%})"
        print(f"| {row} | {r['games']} | {r['wins']}-{r['draws']}-{r['losses']} | {100 * r['win_rate']:.1f}% "
              f"[{100 * r['win_low']:.1f}, {100 * r['win_high']:.1f}] | {share} |")


if __name__ == "__main__":
    main()
