"""Move-matching yardstick: "move the piece you moved last, and keep going straight".

Scores the rule on the same decisions and with the same definitions as ``deepnash move-match``
(selection top-1; displacement top-1 given the human's selection; the exact move), so a network's
figures can be read against it.  Where the rule says nothing (the last-moved piece is gone or
cannot move, or straight ahead is not a legal destination) it counts the expected accuracy of a
uniform guess over the legal choices.

    python scripts/last_piece_rule.py "$DEEPNASH_GRAVON" --variant classic --held-out 0.05 --games 200
"""

from __future__ import annotations

import argparse
import json

from deepnash.game import Game, get_variant
from deepnash.train.human import load_games, split_games


def score(games, variant: str) -> dict:
    v = get_variant(variant).with_rules(max_moves=0, max_moves_without_attack=0, two_squares=False,
                                        more_squares=False)
    sel = disp = move = n = 0.0
    for g in games:
        game = Game(v, g.setup[0].copy(), g.setup[1][::-1].copy())
        last = {0: None, 1: None}  # each player's last move (from, to)
        for k, (f, t) in enumerate(g.moves.tolist()):
            p = k % 2
            legal = game.legal_moves()
            pieces = sorted({m.from_sq for m in legal})
            prev = last[p]
            rule_sel = prev[1] if prev is not None and prev[1] in pieces else None
            s_hit = float(rule_sel == f) if rule_sel is not None else 1.0 / len(pieces)
            targets = [m.to_sq for m in legal if m.from_sq == f]
            ahead = None
            if prev is not None and prev[1] == f:
                d = prev[1] - prev[0]
                step = (10 if abs(d) >= 10 else 1) * (1 if d > 0 else -1)  # one square on in the same direction
                ahead = f + step if f + step in targets else None
            d_hit = float(ahead == t) if ahead is not None else 1.0 / len(targets)
            sel, disp, move, n = sel + s_hit, disp + d_hit, move + s_hit * d_hit, n + 1
            game.push((f, t))
            last[p] = (f, t)
    return {"moves": int(n), "selection_top1": sel / n, "displacement_top1": disp / n, "move_top1": move / n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+")
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--held-out", type=float, default=0.0, help="only the games pretrain's split holds out")
    ap.add_argument("--games", type=int, default=0, help="the first N games (sorted by name; 0: all)")
    a = ap.parse_args()
    games = load_games(a.records, a.variant)
    if a.held_out:
        games = split_games(games, a.held_out)[1]
    games = sorted(games, key=lambda g: g.key)[:a.games or None]
    print(json.dumps({"games": len(games), **score(games, a.variant)}))


if __name__ == "__main__":
    main()
