"""Recorded value-bounds decisions: what the layer removed on human games, for regression tests.

``python tests/testtime/value_bounds_golden.py`` rewrites ``data/value-bounds-golden.json``: for
every 3rd position of the games in ``tests/train/data/gravon-sample.zip`` (4 Barrage games with the
Barrage network shipped until 2026-11-25, kept in ``data/barrage-network``, 2 Classic games with the
Classic network shipped until 2026-11-26, kept in ``data/classic-network``), the view of the player to move, every
legal move bounded (``value_bounds(view, value_fn, moves=None)``), and the moves removed, the
value ``v(x)``, the evaluations made and the moves whose bound is within ``NEAR`` of the threshold.  The file in the repository was
written by the implementation that evaluated every look-ahead leaf (commit before "value bounds
at batch speed"); the test checks that the current one removes exactly the same moves.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import torch

from deepnash.agents.network_agent import load_network
from deepnash.infostate.view import PlayerView
from deepnash.notation.gravon import read_records
from deepnash.notation.replay import record_variant
from testtime_helpers import record_positions

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "train" / "data" / "gravon-sample.zip"
GOLDEN = HERE / "data" / "value-bounds-golden.json"
EVERY = 3
GAMES = {"barrage": 4, "classic": 2}
EPS = 0.05
#: Moves whose bound is this close to the removal threshold are not compared (float noise across CPUs).
NEAR = 1e-4
#: The networks the file was written with: a newer shipped network would remove other moves.
NETWORKS = {"barrage": HERE / "data" / "barrage-network", "classic": HERE / "data" / "classic-network"}


def value_fn(variant: str):
    """The value head of the network the file was written with for ``variant`` (``NETWORKS``), as a ``ValueFn``."""
    net = load_network(NETWORKS[variant])[0].eval()

    @torch.no_grad()
    def values(obs):
        return net.value(torch.from_numpy(obs)).numpy()

    return values


def decisions() -> Iterator[tuple[str, int, PlayerView]]:
    """``(game name, ply, view of the player to move)`` for every ``EVERY``-th position of the sample games."""
    taken = dict.fromkeys(GAMES, 0)
    for record in read_records(SAMPLE):
        variant = record_variant(record)
        if taken.get(variant.name, 1 << 30) >= GAMES[variant.name]:
            continue
        taken[variant.name] += 1
        for ply, game, history in record_positions(record):
            if ply % EVERY == 0 and game.legal_moves():
                name = record.source.rsplit("/", 1)[-1]  # the archive's file name and the member
                yield f"{name}#{variant.name}", ply, PlayerView.of(game, game.turn, history)


def main() -> None:
    from deepnash.testtime.value_bounds import value_bounds

    torch.set_num_threads(1)
    fns = {name: value_fn(name) for name in GAMES}
    rows = []
    for name, ply, view in decisions():
        vb = value_bounds(view, fns[view.variant.name], EPS)
        margin = {str(m): b + EPS - vb.value for m, b in vb.bounds.items()}
        rows.append({"game": name, "ply": ply, "value": vb.value, "evaluations": vb.evaluations,
                     "removed": sorted(str(m) for m in vb.removed),
                     "near": sorted(m for m, d in margin.items() if abs(d) < NEAR)})
    GOLDEN.write_text(json.dumps({"every": EVERY, "games": GAMES, "eps_vb": EPS, "decisions": rows}, indent=1) + "\n")
    print(f"{len(rows)} decisions, {sum(bool(r['removed']) for r in rows)} with removals, "
          f"{sum(r['evaluations'] for r in rows)} evaluations -> {GOLDEN}")


if __name__ == "__main__":
    main()
