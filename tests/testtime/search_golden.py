"""Recorded search decisions: the move each shipped agent chooses on positions of people's games.

``python tests/testtime/search_golden.py`` rewrites ``data/search-golden.json``: for every ``EVERY[variant]``-th
position of the games in ``tests/train/data/gravon-sample.zip`` (every Barrage position of its 4 games, every
12th of its 12 Classic games), the move ``shipped:<variant>`` plays as the player to move, with the options its
``agent.json`` gives, a fixed number of search rounds instead of seconds (``OPTIONS``) and its generator seeded
from the position.  The test (``test_search_golden.py``) checks that the search chooses the same move on every
one: a change of the search's code that is meant to change no decision is checked against it.  Re-record it in
the commit of a change that is meant to change decisions, saying why.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import torch

from deepnash.agents.registry import make_agent
from deepnash.infostate.view import PlayerView
from deepnash.notation.gravon import read_records
from deepnash.notation.replay import record_variant
from testtime_helpers import record_positions

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "train" / "data" / "gravon-sample.zip"
GOLDEN = HERE / "data" / "search-golden.json"
#: Every how many plies a position is taken, per variant.
EVERY = {"barrage": 1, "classic": 12}
#: A fixed amount of search per move (no wall clock), in float32 so that no CPU's bfloat16 support matters.
OPTIONS = "search=on,rounds=1,seconds=1000,greedy=true,precision=float32"


def positions(only: str | None = None) -> Iterator[tuple[str, int, PlayerView]]:
    """``(game name, ply, view of the player to move)`` for every ``EVERY``-th position of the sample games (of the
    one named ``game``, e.g. ``barrage-2014.3-1006.xml``, if given)."""
    for record in read_records(SAMPLE):
        if only is not None and not record.source.endswith(":" + only):
            continue
        every = EVERY[record_variant(record).name]
        for ply, game, history in record_positions(record):
            if ply % every == 0 and len(game.legal_moves()) > 1:
                yield record.source.rsplit(":", 1)[-1], ply, PlayerView.of(game, game.turn, history)


def decisions(only: str | None = None, options: str = OPTIONS) -> Iterator[dict]:
    """``{"game", "ply", "move"}`` for each position of ``positions(only)``, each chosen by a fresh game of
    ``shipped:<variant>,<options>`` seeded from the position."""
    agents = {}
    for name, ply, view in positions(only):
        variant = view.variant.name
        if variant not in agents:
            agents[variant] = make_agent(f"shipped:{variant},{options}")
        agent = agents[variant]
        agent.reset(view.variant, view.player, seed=1000 * int(name.rsplit("-", 1)[-1].split(".")[0]) + ply)
        yield {"game": name, "ply": ply, "move": str(agent.act(view))}


def main() -> None:
    torch.set_num_threads(1)
    rows = []
    for row in decisions():
        rows.append(row)
        print(row["game"], row["ply"], row["move"], file=sys.stderr)
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps({"options": OPTIONS, "every": EVERY, "positions": rows}, indent=0) + "\n")
    print(f"{len(rows)} positions written to {GOLDEN}")


if __name__ == "__main__":
    main()
