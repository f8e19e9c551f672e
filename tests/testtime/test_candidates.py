"""Which moves the search weighs (``testtime.candidates``): the guards drop what they must from the prior, and
only that, on hand-built positions; the search then plays none of the dropped moves, unless nothing else is left."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from deepnash.agents import PlayerView
from deepnash.game import Game, Move, Variant
from deepnash.game import kernels as K
from deepnash.game.pieces import BOMB, FLAG, GENERAL, LIEUTENANT, MARSHAL, MINER, SCOUT, SERGEANT, SPY
from deepnash.testtime.candidates import (doomed_attacks, hanging_moves, hopeful_attack,
                                          marshalled_moves, spared_attacks, spied_moves)
from deepnash.testtime.search import Search, SearchConfig
from testtime_helpers import Played, one_round, uniform_logits, zero_value


#: one of Blue's six pieces, all unmoved and hidden.
BOMBED_DUEL = Variant("duel", piece_counts=tuple({FLAG: 1, BOMB: 2, SCOUT: 1, MINER: 1, MARSHAL: 1}.get(t, 0)
                                                 for t in range(12)))
MARSHAL_AND_MINER_BY_UNMOVED_PIECES = """
        10 .. b3 bM .. .. .. .. .. bB bF
         9 .. .. .. .. .. .. .. .. .. ..
         8 b2 .. .. .. bB .. .. .. .. ..
         7 r3 .. .. .. rM .. .. .. .. ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 .. .. .. .. .. .. .. .. .. ..
         1 rF rB rB .. .. .. .. .. .. r2
           a  b  c  d  e  f  g  h  i  j
        """


def test_spare_keeps_the_marshal_and_the_general_off_unmoved_pieces_while_a_bomb_is_hidden():
    """``spare=9``: the Marshal's attack on the unmoved hidden piece on e8 leaves the prior, however much
    the prior likes it, while the Miner's on a8 stays; once the piece on e8 has moved, or no Bomb is left
    hidden, the attack is allowed again; an attack that is the only move allowed stays."""
    diagram, army = MARSHAL_AND_MINER_BY_UNMOVED_PIECES, BOMBED_DUEL
    view = PlayerView.of(Game.from_diagram(diagram, army), 0)
    marshal, miner = Move.parse("e7-e8"), Move.parse("a7-a8")
    assert spared_attacks(view, view.legal_moves, GENERAL) == {marshal}
    assert spared_attacks(view, view.legal_moves, MINER) == {marshal, miner}
    prior = {m: (0.9 if m == marshal else 0.1 / (len(view.legal_moves) - 1)) for m in view.legal_moves}
    for spare in (0, GENERAL):
        search = Search(uniform_logits, zero_value, SearchConfig(samples=2, depth=0, candidates=2, rounds=1,
                                                                  leaf="gain", spare=spare))
        search.reset(army, 0)
        result = search.run(view, prior, np.random.default_rng(0))
        assert result.prior == prior
        assert (result.policy[marshal] > 0.5) == (spare == 0)
        assert (marshal in result.q) == (spare == 0) and len(result.q) == 2
        assert math.isclose(sum(result.policy.values()), 1.0)
    assert search.run(view, {marshal: 1.0}, np.random.default_rng(0)).policy == {marshal: 1.0}

    game = Game.from_diagram(diagram.replace("8 b2 .. .. .. bB", "8 bB .. .. .. b2"), army)
    flags = game.state.flags[0].copy()
    flags[74] |= K.MOVED  # the Scout on e8 has moved, so it is no Bomb
    moved = PlayerView.of(Game.from_state(army, game.state.board[0], flags, turn=0), 0)
    assert spared_attacks(moved, moved.legal_moves, GENERAL) == set()
    no_bombs = Variant("duel", piece_counts=tuple({FLAG: 1, SCOUT: 1, MINER: 1, MARSHAL: 1}.get(t, 0)
                                                  for t in range(12)))
    bombless = PlayerView.of(Game.from_diagram(diagram.replace("bB", "..").replace("rB", ".."), no_bombs), 0)
    assert spared_attacks(bombless, bombless.legal_moves, GENERAL) == set()
    for bad in (1, 11):
        with pytest.raises(ValueError, match="spare"):
            SearchConfig(spare=bad)


THROWS_BY_REVEALED_BOMBS = """
        10 .. .. .. .. .. .. .. .. bB bF
         9 .. .. .. .. .. .. .. .. r3 ..
         8 bB .. .. .. bB .. .. .. .. ..
         7 r2 .. .. .. rM .. .. .. .. ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 .. .. .. .. .. .. .. .. .. ..
         1 rF rB rB rB .. .. .. .. .. ..
           a  b  c  d  e  f  g  h  i  j
        """


def test_no_sacrifice_drops_the_attacks_that_lose_for_certain_on_public_information():
    """``sacrifice=False``: the Scout's attack on the revealed Bomb on a8 and the Marshal's on the one on e8
    leave the prior, however much the prior likes them; the Miner's on the revealed Bomb on i10 stays, and
    so does an attack on the Bombs while they are hidden; a doomed attack that is the only move allowed
    stays.  ``hopeful_attack`` never picks a doomed attack."""
    army = Variant("duel", piece_counts=tuple({FLAG: 1, BOMB: 3, SCOUT: 1, MINER: 1, MARSHAL: 1}.get(t, 0)
                                              for t in range(12)))
    game = Game.from_diagram(THROWS_BY_REVEALED_BOMBS, army)
    scout, marshal, miner = Move.parse("a7-a8"), Move.parse("e7-e8"), Move.parse("i9-i10")
    assert doomed_attacks(PlayerView.of(game, 0), game.legal_moves()) == set()  # the Bombs are hidden
    view = Played(THROWS_BY_REVEALED_BOMBS, army, reveal=("a8", "e8", "i10")).view(0)
    assert doomed_attacks(view, view.legal_moves) == {scout, marshal}
    assert hopeful_attack(view, [marshal, scout, miner]) == miner
    assert hopeful_attack(view, [marshal, scout]) is None
    rest = 0.1 / (len(view.legal_moves) - 2)
    prior = {m: 0.5 if m == marshal else 0.4 if m == scout else rest for m in view.legal_moves}
    for sacrifice in (True, False):
        result = one_round(view, prior, sacrifice=sacrifice)
        assert result.prior == prior
        if sacrifice:
            assert result.policy == pytest.approx(prior) and {scout, marshal} <= set(result.q)
        else:
            assert result.policy[scout] == result.policy[marshal] == 0.0
            assert not {scout, marshal} & set(result.q)
            assert result.policy[miner] == pytest.approx(1 / (len(view.legal_moves) - 2))
        assert math.isclose(sum(result.policy.values()), 1.0)
    assert one_round(view, {marshal: 0.6, scout: 0.4}, sacrifice=False).policy == {marshal: 0.6, scout: 0.4}


MARSHAL_BESIDE_HIDDEN = """
        10 bM .. .. .. .. .. .. .. bB bF
         9 .. .. .. .. .. .. .. .. .. ..
         8 .. .. .. .. .. .. .. .. .. ..
         7 .. .. .. .. .. .. .. .. .. ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 .. .. .. .. b2 .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 .. .. .. .. rM bS b2 .. .. ..
         1 rF rB rS .. .. r2 .. .. .. r2
           a  b  c  d  e  f  g  h  i  j
        """


MARSHAL_AMONG_HIDDEN = """
        10 bM .. .. .. .. .. .. .. bB bF
         9 .. .. .. .. .. .. .. .. .. ..
         8 .. .. .. .. .. .. .. .. .. ..
         7 .. .. .. .. .. .. .. .. .. ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. .. .. b2 b2 .. .. .. .. ..
         2 .. .. b2 .. rM bS b2 .. .. ..
         1 rF .. .. .. rB .. .. .. .. ..
           a  b  c  d  e  f  g  h  i  j
        """


def test_the_spy_guard_keeps_a_known_marshal_from_standing_beside_a_piece_that_may_be_the_spy():
    """``spy_guard``: with Red's Marshal on e2 revealed, every move after which it stands next to a piece that may
    be Blue's Spy leaves the prior (e2-e3 beside e4; the Marshal's attack on f2, which leaves it beside g2; every
    move of another piece but the attack on f2, the piece beside it), and the search plays none of them; a
    hidden Marshal risks only its own attack, which reveals it; once the Spy is known on f2, only standing
    beside f2 counts; where every move leaves the Marshal beside such a piece, those beside more of them go."""
    army = Variant("duel", piece_counts=tuple({FLAG: 1, BOMB: 1, SPY: 1, SCOUT: 2, MARSHAL: 1}.get(t, 0)
                                              for t in range(12)))

    def view_with(*shown):
        return Played(MARSHAL_BESIDE_HIDDEN, army, reveal=shown).view(0)

    safe = {Move.parse(m) for m in ("e2-d2", "e2-e1", "f1-f2")}
    view = view_with("e2")
    assert set(view.legal_moves) - spied_moves(view, view.legal_moves) == safe
    hidden = view_with()
    assert spied_moves(hidden, hidden.legal_moves) == {Move.parse("e2-f2")}
    known = view_with("e2", "f2")
    assert set(known.legal_moves) - spied_moves(known, known.legal_moves) == safe | {Move.parse("e2-e3"),
                                                                                      Move.parse("e2-f2")}
    crowded = replace(army, piece_counts=tuple({FLAG: 1, BOMB: 1, SPY: 1, SCOUT: 4, MARSHAL: 1}.get(t, 0)
                                               for t in range(12)))
    among = Played(MARSHAL_AMONG_HIDDEN, crowded, reveal=("e2",)).view(0)
    assert set(among.legal_moves) == {Move.parse(m) for m in ("e2-d2", "e2-e3", "e2-f2")}
    assert spied_moves(among, among.legal_moves) == {Move.parse("e2-d2")}  # beside c2 and d3, the others beside one
    prior = {m: (0.5 if m == Move.parse("e2-e3") else 1.0) for m in view.legal_moves}
    total = sum(prior.values())
    prior = {m: p / total for m, p in prior.items()}
    for guarded in (False, True):
        result = one_round(view, prior, spy_guard=guarded)
        if guarded:
            assert {m for m, p in result.policy.items() if p > 0} == safe
        else:
            assert result.policy == pytest.approx(prior)


GENERAL_NEAR_MOVED = """
        10 b9 .. .. .. .. .. .. .. bB bF
         9 b2 .. .. .. .. .. .. .. .. ..
         8 .. .. .. .. .. .. .. .. .. ..
         7 .. .. .. .. .. .. .. .. .. ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 .. .. .. .. .. .. bM .. .. ..
         3 .. .. .. .. b2 .. .. .. .. ..
         2 .. .. .. .. .. r9 .. .. .. ..
         1 rF rB rM .. .. .. .. .. r2 r2
           a  b  c  d  e  f  g  h  i  j
        """


def test_the_general_guard_keeps_a_known_general_from_a_moved_piece_that_may_be_the_marshal():
    """``general_guard``: Blue's hidden Marshal has stepped g4-g3.  With Red's General on f2 revealed, f2-g2 and
    f2-f3 end beside g3 and leave the prior; f2-e2, beside the unmoved e3, stays (only moved pieces count); a
    hidden General risks nothing here."""
    army = Variant("duel", piece_counts=tuple({FLAG: 1, BOMB: 1, SCOUT: 2, GENERAL: 1, MARSHAL: 1}.get(t, 0)
                                              for t in range(12)))

    def view_with(*shown):
        played = Played(GENERAL_NEAR_MOVED, army, reveal=shown)
        played.push("i1-i2", "g4-g3")
        return played.view(0)

    exposed = {Move.parse("f2-g2"), Move.parse("f2-f3")}
    view = view_with("f2")
    assert Move.parse("f2-e2") in view.legal_moves and exposed <= set(view.legal_moves)
    assert marshalled_moves(view, view.legal_moves) == exposed
    hidden = view_with()
    assert marshalled_moves(hidden, hidden.legal_moves) == set()
    prior = {m: 1.0 / len(view.legal_moves) for m in view.legal_moves}
    for guarded in (False, True):
        kept = {m for m, p in one_round(view, prior, general_guard=guarded).policy.items() if p > 0}
        assert kept == (set(view.legal_moves) - exposed if guarded else set(view.legal_moves))


LIEUTENANT_BY_GENERAL = """
        10 .. .. .. .. .. .. .. .. bB bF
         9 .. .. .. .. .. .. .. .. .. b2
         8 .. .. .. .. .. .. .. .. .. ..
         7 .. .. .. .. .. .. .. .. .. ..
         6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
         4 .. .. .. .. b9 b2 .. .. .. ..
         3 .. .. .. r5 .. r4 .. .. .. ..
         2 .. .. .. .. rM .. .. .. .. ..
         1 rF rB .. .. .. .. .. .. r2 r2
           a  b  c  d  e  f  g  h  i  j
        """


def test_the_hang_guard_keeps_a_piece_from_stepping_where_a_revealed_piece_takes_it_unanswered():
    """``hang_guard``: Blue's General on e4 is revealed.  d3-d4 leaves Red's Lieutenant beside it with nothing to
    take it back: dropped.  d3-e3 and f3-e3 stand beside it too, but Red's Marshal on e2 takes the General back
    there; the Sergeant's f3xf4 is an attack (its battle settles it), and the Marshal's e2-e3 fears nothing.
    With the General hidden, nothing is dropped: the guard reads public information alone."""
    army = Variant("duel", piece_counts=tuple(
        {FLAG: 1, BOMB: 1, SCOUT: 3, LIEUTENANT: 1, SERGEANT: 1, GENERAL: 1, MARSHAL: 1}.get(t, 0) for t in range(12)))
    view = Played(LIEUTENANT_BY_GENERAL, army, reveal=("e4",)).view(0)
    legal = {str(m) for m in view.legal_moves}
    assert {"d3-d4", "d3-e3", "f3-e3", "f3-f4", "e2-e3"} <= legal
    assert {str(m) for m in hanging_moves(view, view.legal_moves)} == {"d3-d4"}
    hidden = Played(LIEUTENANT_BY_GENERAL, army).view(0)
    assert hanging_moves(hidden, hidden.legal_moves) == set()
    prior = {m: 1.0 / len(view.legal_moves) for m in view.legal_moves}
    for guarded in (False, True):
        kept = {str(m) for m, p in one_round(view, prior, hang_guard=guarded).policy.items() if p > 0}
        assert kept == (legal - {"d3-d4"} if guarded else legal)
    only = {Move.parse("d3-d4"): 1.0}  # where every move of the prior hangs, none is dropped
    assert one_round(view, only, hang_guard=True).policy[Move.parse("d3-d4")] == pytest.approx(1.0)
