"""Cross-check: the no-enumeration value bound against enumerating every hidden assignment."""

import math
from itertools import permutations

import numpy as np
import pytest

from deepnash.game import IllegalMoveError
from deepnash.infostate.beliefs import IMMOVABLE, hidden_counts
from deepnash.infostate.determinize import position
from deepnash.infostate.observe import move_rows, observe
from deepnash.infostate.view import push_recorded
from deepnash.testtime.public import PublicBoard
from deepnash.testtime.value_bounds import safe_replies, value_bounds
from test_threats import CHASE
from testtime_helpers import Played, small_variant

WEIGHTS = np.random.default_rng(7).normal(size=(82, 10, 10)).astype(np.float32)


def scrambled_value(obs):
    """A value function that reads every plane (so any difference between positions shows)."""
    return np.tanh(0.05 * np.tensordot(np.asarray(obs), WEIGHTS, axes=3)).astype(np.float32)


def exact_bounds(view):
    """max over every consistent hidden assignment h of min over safe replies, by brute force."""
    me, opp = view.player, 1 - view.player
    hidden = [int(s) for s in np.flatnonzero((view.owner == opp) & ~view.revealed)]
    bag = [t for t, n in enumerate(hidden_counts(view)) for _ in range(n)]
    rows = move_rows(view.history)
    best = {a: -math.inf for a in view.legal_moves}
    for types in set(permutations(bag)):
        if any(view.moved[s] and IMMOVABLE[t] for s, t in zip(hidden, types)):
            continue
        game = position(view, dict(zip(hidden, types)))
        for a in view.legal_moves:
            g1 = game.copy()
            rec_a = push_recorded(g1, a)
            if g1.is_over():
                best[a] = max(best[a], g1.outcome().returns()[me])
                continue
            public = PublicBoard.from_view(view)
            public.apply(rec_a)
            worst = math.inf
            for reply in safe_replies(public, opp):
                g2 = g1.copy()
                try:
                    rec_r = push_recorded(g2, reply)
                except IllegalMoveError:
                    continue
                if g2.is_over():
                    v = g2.outcome().returns()[me]
                else:
                    v = float(scrambled_value(observe(g2, np.concatenate([rows, move_rows([rec_a, rec_r])]), me)[None])[0])
                worst = min(worst, v)
            best[a] = max(best[a], worst)
    return best


@pytest.mark.parametrize("moves", [
    ["e4-e5", "f5-f4"],  # Red's Scout can run at the hidden a10 (best case: the Flag)
    ["e4-e5", "f5-f4", "e5-e4", "a10-a9"],  # Red's General can take the moved, hidden f4 (Scout or General)
])
def test_bound_agrees_with_the_enumeration_over_hidden_states(moves):
    g = Played(CHASE, small_variant())
    g.push(*moves)
    view = g.view(0)
    slow = exact_bounds(view)
    verdicts = set()
    for eps in (0.05, 0.2, -0.1, -0.25):  # thresholds that stop the look-ahead at different leaves
        vb = value_bounds(view, scrambled_value, eps_vb=eps)
        fast, sinks = vb.bounds, vb.value - eps
        assert fast.keys() == slow.keys()
        sunk = {a for a, b in slow.items() if b < sinks}
        assert vb.removed == (sunk if sunk != set(slow) else set())  # never every move
        for a in slow:  # the bound of the leaves scored lies between the threshold and the exact bound
            if a in sunk:
                assert slow[a] - 1e-6 <= fast[a] < sinks, (eps, str(a))
            else:
                assert sinks <= fast[a] <= slow[a] + 1e-6, (eps, str(a))
            verdicts.add(a in sunk)
    assert verdicts == {True, False}  # both verdicts were checked
