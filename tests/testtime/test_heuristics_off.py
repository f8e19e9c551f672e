"""Each of the search's heuristics switched off alone changes nothing but what it did.

On positions of people's Classic games, ``shipped:classic`` (one round a move, float32) searches once with every
heuristic it ships and once with one of them off.  Where that heuristic did nothing on a position (no move
widened, dropped, proposed or drawn for, no fact another one reads, no leaf term, shaping or bonus that moved a
number), the search's result is the same to the last bit; and every other heuristic's own decisions (what it drops and
widens) are the same on every position where the one switched off did not widen the prior.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from search_golden import positions

from deepnash.agents.registry import make_agent
from deepnash.testtime.search import HEURISTICS

#: Positions of the sample's Classic games: every 12th ply of these games (``search_golden.positions``).
GAMES = ("classic-2014.3-1054.xml",)
OPTIONS = "search=on,rounds=1,seconds=1000,greedy=true,precision=float32"


class Record:
    """What the heuristics did in one search: each one's decisions, which acted at all, which widened the prior."""

    def __init__(self):
        self.acted: set[str] = set()
        self.widened = False
        self.decisions: dict[str, list] = {}
        self.published: dict[str, dict] = {}  # the facts each one told the others

    def close(self) -> None:
        """Facts count as acting where the opponent is taken for one that does not press: only then are they
        read (``spare``'s rank by ``contempt`` and ``approach``, ``passive``'s own)."""
        if any(facts.get("meek") for facts in self.published.values()):
            self.acted.update(name for name, facts in self.published.items() if facts)


class Recorder:
    """Wraps each heuristic's hooks to record into ``record`` (a new ``Record`` per search)."""

    def __init__(self, search):
        self.record = Record()
        for h in search.heuristics:
            self._wrap(h)

    def _wrap(self, h) -> None:
        name, rec = h.name, self
        widen, prune, propose, begin = h.widen, h.prune, h.propose, h.begin
        leaf_term, shape, adjust_q, step_size = h.leaf_term, h.shape, h.adjust_q, h.step_size

        def on_begin(turn):
            facts = dict(turn.facts)
            terms = (turn.draw_score, turn.draw_floor, turn.attack_delay)
            begin(turn)
            rec.record.published[name] = {k: v for k, v in turn.facts.items() if facts.get(k, None) != v}
            if (turn.draw_score, turn.draw_floor, turn.attack_delay) != terms:
                rec.record.acted.add(name)

        def on_widen(turn):
            out = widen(turn)
            rec.record.decisions.setdefault(name, []).append(("widen", sorted(map(str, out))))
            rec.record.acted.update([name] if out else [])
            rec.record.widened |= bool(out)
            return out

        def on_prune(turn):
            out = prune(turn)
            rec.record.decisions.setdefault(name, []).append(("prune", sorted(map(str, out))))
            rec.record.acted.update([name] if out else [])
            return out

        def on_propose(turn):
            state = turn.rng.bit_generator.state
            out = propose(turn)
            rec.record.decisions.setdefault(name, []).append(("propose", None if out is None else (str(out.move), out.least)))
            if out is not None or turn.rng.bit_generator.state != state:
                rec.record.acted.add(name)
            return out

        def on_leaf_term(turn, leaves, rows):
            out = leaf_term(turn, leaves, rows)
            if out is not None and np.any(out != 0):
                rec.record.acted.add(name)
            return out

        def on_shape(turn, leaves):
            before = leaves.result.copy()
            shape(turn, leaves)
            if not np.array_equal(before, leaves.result):
                rec.record.acted.add(name)

        def on_adjust_q(turn, q):
            out = adjust_q(turn, q)
            rec.record.acted.update([name] if any(out.values()) else [])
            return out

        def on_step_size(turn, alpha):
            out = step_size(turn, alpha)
            rec.record.acted.update([name] if out != alpha else [])
            return out

        h.begin, h.widen, h.prune, h.propose = on_begin, on_widen, on_prune, on_propose
        h.leaf_term, h.shape, h.adjust_q, h.step_size = on_leaf_term, on_shape, on_adjust_q, on_step_size


def searched(off: str | None) -> tuple[list, list[Record]]:
    """The search results of ``shipped:classic`` on the positions, with heuristic ``off`` switched off, and what its
    heuristics did."""
    switch = "" if off is None else "".join(f",{k}={v}" for k, v in HEURISTICS[off].off.items())
    agent = make_agent(f"shipped:classic,{OPTIONS}{switch}")
    assert off not in {h.name for h in agent.search.heuristics}
    results, records = [], []
    run, recorder = agent.search.run, Recorder(agent.search)

    def recorded(view, prior, rng, started=None):
        recorder.record = Record()
        results.append(run(view, prior, rng, started))
        recorder.record.close()
        records.append(recorder.record)
        return results[-1]

    agent.search.run = recorded
    for game in GAMES:
        for name, ply, view in positions(game):
            agent.reset(view.variant, view.player, seed=ply)
            agent.act(view)
    return results, records


@pytest.fixture(scope="module")
def everything_on():
    torch.set_num_threads(1)
    return searched(None)


def test_the_shipped_agent_runs_every_heuristic(everything_on):
    agent = make_agent("shipped:classic")
    assert {h.name for h in agent.search.heuristics} == set(HEURISTICS)


@pytest.mark.parametrize("name", sorted(HEURISTICS))
def test_a_heuristic_switched_off_changes_only_what_it_did(everything_on, name):
    torch.set_num_threads(1)
    on, on_records = everything_on
    off, off_records = searched(name)
    assert len(on) == len(off) >= 30
    idle = [i for i, r in enumerate(on_records) if name not in r.acted]
    for i in idle:
        assert (on[i].q, on[i].policy, on[i].samples) == (off[i].q, off[i].policy, off[i].samples), i
        assert name not in on[i].changed_by
    # what the others drop and widen is theirs alone, on the same prior (which only a widening changes)
    for i, (a, b) in enumerate(zip(on_records, off_records)):
        if a.widened and name == "hold":
            continue
        for other, decisions in b.decisions.items():
            assert [d for d in a.decisions[other] if d[0] != "propose"] == \
                [d for d in decisions if d[0] != "propose"], (other, i)
