"""What each piece is worth in people's games: the material values of the search's ``piece_values=people``.

Fits the material yardstick of ``deepnash value-check`` (a logistic regression of winning on, per piece
type, the mover's pieces less the opponent's, and the ply; ``train.value_check.MaterialFit``) on the
move decisions of the decisive games of the training split (the games ``value-check --held-out`` does
not score), and prints half of each type's coefficient: with those values, ``tanh`` of a change of
material is the change of ``2 P(win) - 1`` the fit predicts from level (``tanh(z / 2) = 2 sigmoid(z) - 1``).
``infostate.beliefs.PEOPLE_PIECE_VALUE`` holds what it printed::

    python scripts/piece_values.py "$DEEPNASH_GRAVON" --variant classic --games 1500
    python scripts/piece_values.py "$DEEPNASH_GRAVON" --variant barrage --games 0

The packaged games hold every Barrage game of the shared months, so the Barrage row comes out the same
from them (``deepnash/data/gravon``).  ``--json`` prints ``variant``, ``games``, ``decisions`` and ``values``
(per type, 3 decimals).
"""

from __future__ import annotations

import argparse
import json

from deepnash.game.pieces import PIECE_NAMES
from deepnash.train.human import load_games, split_games
from deepnash.train.value_check import MaterialFit, positions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", help="Gravon records: a folder, an archive or an XML file")
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--held-out", type=float, default=0.05, help="the share value-check holds out (left out here)")
    ap.add_argument("--games", type=int, default=1500, help="fit on at most this many games (0: all)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    train, _ = split_games(load_games(args.records, args.variant), args.held_out)
    games = train[:args.games] if args.games else train
    at = positions(games, args.variant)
    fit = MaterialFit(at["features"], at["won"])
    values = fit.weights.numpy()[:len(PIECE_NAMES)] / 2
    decisive, decisions = sum(g.winner >= 0 for g in games), int(len(at["won"]))
    if args.json:
        print(json.dumps({"variant": args.variant, "games": decisive, "decisions": decisions,
                          "values": [round(float(v), 3) for v in values]}))
        return
    print(f"{args.variant}: {decisive} decisive games, {decisions} move decisions")
    for name, v in zip(PIECE_NAMES, values):
        print(f"  {name:10s} {v:6.3f}")
    print("np.array([" + ", ".join(f"{max(v, 0.0):.3f}" for v in values) + "])")


if __name__ == "__main__":
    main()
