"""Perft: legal-move counts to a small depth from fixed positions, kept as golden files.

Each golden position is a start diagram plus the moves played from it; its
counts, with the repetition rules on and off, must come out the same from the
kernels and from the pure-Python reference engine (``rules_reference``).
Regenerate (only after a deliberate rules change) with
``python tests/game/test_perft.py``, which picks the positions afresh.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from rules_helpers import kernel_perft, ref_perft
from rules_reference import RefGame
from test_repetition import CHASE, ROUND

from deepnash.game import Game, Move, get_variant, random_deployment
from deepnash.game.diagram import format_diagram, parse_diagram

GOLDEN = Path(__file__).parent / "golden" / "perft.json"


def variants(name: str):
    on = get_variant(name)
    return {"rules_on": on, "rules_off": on.with_rules(two_squares=False, more_squares=False)}


def load() -> list[dict]:
    return json.loads(GOLDEN.read_text())["positions"]


def position(entry: dict, rules: str) -> tuple[Game, RefGame]:
    v = variants(entry["variant"])[rules]
    red, blue = parse_diagram(entry["diagram"], v)
    game, ref = Game(v, red, blue), RefGame.start(v, red, blue)
    for text in entry["moves"]:
        m = Move.parse(text)
        game.push(m)
        ref.push(m.from_sq, m.to_sq)
    return game, ref


@pytest.mark.parametrize("rules", ["rules_on", "rules_off"])
@pytest.mark.parametrize("entry", load(), ids=lambda e: e["name"])
def test_perft_matches_golden_and_reference(entry, rules):
    game, ref = position(entry, rules)
    counts = kernel_perft(game, entry["depth"])
    assert counts == entry[rules], f"kernels disagree with {GOLDEN.name}"
    assert ref_perft(ref, entry["depth"]) == counts, "the reference engine disagrees with the kernels"


def test_golden_positions_exercise_the_repetition_rules():
    differ = [e["name"] for e in load() if e["rules_on"] != e["rules_off"]]
    assert {"two-squares", "more-squares"} <= {n.split("@")[0] for n in differ}


# -- regeneration ---------------------------------------------------------------------------------
def _random_line(variant: str, seed: int, plies: int) -> tuple[str, list[str]]:
    v = get_variant(variant)
    rng = np.random.default_rng(seed)
    game = Game(v, random_deployment(v, 0, rng), random_deployment(v, 1, rng))
    diagram = format_diagram(game.state.board[0])
    pick = random.Random(seed)
    moves = []
    while len(moves) < plies and not game.is_over():
        m = pick.choice(game.legal_moves())
        game.push(m)
        moves.append(str(m))
    return diagram, moves


def _where_two_squares_bites(variant: str, seed: int) -> tuple[str, list[str]]:
    """A random line stopped two plies before the two-squares rule alone first removes a move."""
    v = get_variant(variant).with_rules(more_squares=False)
    free = v.with_rules(two_squares=False)
    for s in range(seed, seed + 1000):
        rng = np.random.default_rng(s)
        red, blue = random_deployment(v, 0, rng), random_deployment(v, 1, rng)
        game, pick, moves = Game(v, red, blue), random.Random(s), []
        while not game.is_over() and len(moves) < 400:
            relaxed = Game(free, red, blue)
            game.state.copy_game(0, 0, relaxed.state)
            if len(relaxed.legal_moves()) != len(game.legal_moves()) and len(moves) >= 2:
                return format_diagram(Game(v, red, blue).state.board[0]), moves[:-2]
            m = pick.choice(game.legal_moves())
            game.push(m)
            moves.append(str(m))
    raise RuntimeError("no two-squares position found")


def regenerate() -> None:
    specs = [
        ("classic-start", "classic", _random_line("classic", 1, 0), 5),
        ("classic-midgame", "classic", _random_line("classic", 2, 150), 3),
        ("barrage-start", "barrage", _random_line("barrage", 3, 0), 3),
        ("barrage-midgame", "barrage", _random_line("barrage", 4, 40), 3),
        ("two-squares@barrage", "barrage", _where_two_squares_bites("barrage", 5), 3),
        ("more-squares@chase", "classic", (CHASE, ROUND[:6]), 3),  # random play hardly ever meets it
    ]
    out = []
    for name, variant, (diagram, moves), depth in specs:
        entry = {"name": name, "variant": variant, "diagram": diagram, "moves": moves, "depth": depth}
        for rules in ("rules_on", "rules_off"):
            game, ref = position(entry, rules)
            entry[rules] = kernel_perft(game, depth)
            assert ref_perft(ref, depth) == entry[rules], (name, rules)
        out.append(entry)
        print(name, entry["rules_on"], entry["rules_off"])
    GOLDEN.write_text(json.dumps({"positions": out}, indent=1) + "\n")


if __name__ == "__main__":
    regenerate()
