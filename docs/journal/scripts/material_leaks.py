"""Where an agent loses its material: arena games read battle by battle.

For each folder of ``deepnash arena --out`` games (``*.result.json`` beside ``*.xml``) and the agent named by
``--agent`` (a spec prefix: ``alphabeta`` matches ``alphabeta:belief=learned``), it prints the agent's
wins-draws-losses and endings, the mean material balance (people's piece values, ``beliefs.PEOPLE_PIECE_VALUE``;
the agent's pieces less the opponent's) at plies 100, 200 and 300, the material each side lost per game by who
attacked and what each side knew of the two pieces (a revealed piece is known, a hidden one has moved or not),
and how the agent's Marshal died.  ``docs/journal/sparring.md``, "Where alphabeta loses its material"::

    python docs/journal/scripts/material_leaks.py runs/ablation-ab/all runs/ab-learned [--agent alphabeta] [--plies 300] [--top 8] [--games N]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np

from deepnash.game import Game
from deepnash.game import kernels as K
from deepnash.game.codes import owners, types
from deepnash.game.pieces import MARSHAL, PIECE_NAMES
from deepnash.infostate.beliefs import PEOPLE_PIECE_VALUE
from deepnash.notation.gravon import read_records
from deepnash.notation.replay import replay

MARKS = (100, 200, 300)


def knowledge(piece) -> str:
    return "known" if piece.revealed else ("hidden moved" if piece.moved else "hidden unmoved")


def read(folder: Path, agent: str, plies: int, games: int | None = None) -> dict:
    """Counters over the first ``games`` games in ``folder`` (all: ``None``), by name: results, balances at
    ``MARKS``, losses by kind of battle, how the agent's Marshal died."""
    values = PEOPLE_PIECE_VALUE["classic"]
    out = {"games": 0, "results": Counter(), "balance": {m: [] for m in MARKS}, "lost": Counter(),
           "marshal": Counter()}
    for path in sorted(folder.glob("*.result.json"))[:games]:
        result = json.loads(path.read_text())["result"]
        side = next(i for i, p in enumerate(result["players"]) if p.startswith(agent))
        final = replay(next(iter(read_records(path.with_name(path.name.replace(".result.json", ".xml"))))))
        if final.variant.name != "classic":
            continue
        out["games"] += 1
        won = "W" if result["winner"] == side else "D" if result["winner"] is None else "L"
        out["results"][(won, result["termination"])] += 1
        game = Game(final.variant, *final.setups)
        for ply, move in enumerate(final.move_stack):
            if ply in out["balance"]:
                board = game.state.board[0]
                kind, owner = types(board), owners(board)
                mine = values[kind[(owner == side) & (kind >= 0)]].sum()
                out["balance"][ply].append(mine - values[kind[(owner == 1 - side) & (kind >= 0)]].sum())
            attacker, defender = game.piece_at(move.from_sq), game.piece_at(move.to_sq)
            res = game.push(move)
            if defender is None or ply >= plies:
                continue
            who = "agent" if attacker.player == side else "opponent"
            battle = f"{who} attacks: {knowledge(attacker)} -> {knowledge(defender)}"
            dead = [attacker] if res == K.RESULT_DEFENDER_WON else [attacker, defender] \
                if res == K.RESULT_BOTH_REMOVED else [defender]
            for piece in dead:
                owner_name = "agent" if piece.player == side else "opponent"
                out["lost"][(owner_name, battle)] += values[piece.type]
                if owner_name == "agent" and piece.type == MARSHAL:
                    other = defender if piece is attacker else attacker
                    out["marshal"][f"{'attacking' if piece is attacker else 'attacked by'} {PIECE_NAMES[other.type]}"] += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--agent", default="alphabeta")
    ap.add_argument("--plies", type=int, default=300, help="count battles before this ply")
    ap.add_argument("--top", type=int, default=8, help="kinds of battle printed, the costliest first")
    ap.add_argument("--games", type=int, default=None, help="only the first games of each folder, by name")
    args = ap.parse_args()
    for folder in args.folders:
        r = read(folder, args.agent, args.plies, args.games)
        n = max(r["games"], 1)
        wdl = [sum(v for (k, _), v in r["results"].items() if k == c) for c in "WDL"]
        print(f"\n{folder}: {r['games']} games, {args.agent} {wdl[0]}-{wdl[1]}-{wdl[2]}; "
              + ", ".join(f"{k} {t}: {v}" for (k, t), v in sorted(r["results"].items())))
        print("  balance (mean ± standard error, games) " + ", ".join(
            f"ply {m}: {np.mean(v):+.2f} ± {np.std(v, ddof=1) / np.sqrt(len(v)) if len(v) > 1 else 0:.2f} ({len(v)})"
            for m, v in r["balance"].items() if v))
        print(f"  material lost per game before ply {args.plies}:")
        for (owner, battle), v in sorted(r["lost"].items(), key=lambda kv: -kv[1])[:args.top]:
            print(f"    {owner:8s} {v / n:5.2f}  {battle}")
        print("  the agent's Marshal: " + ", ".join(f"{k} {v}" for k, v in r["marshal"].most_common()))


if __name__ == "__main__":
    main()
