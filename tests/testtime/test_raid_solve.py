"""Races to the Flag solved exactly: the retrograde tables against a plain recursive search, positions of
lost games against the engine's exhaustive search, and ``hold`` in the search."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.arena.raids import RAIDS, defence_exists
from deepnash.game.codes import code_of, owners
from deepnash.game.pieces import CAPTAIN, MAJOR, MARSHAL, MINER, SCOUT
from deepnash.game.squares import parse_square
from deepnash.infostate.view import PlayerView
from deepnash.notation.position import game_from_position
from deepnash.testtime.raid_solve import (STRONG_TAIL, forced_raids, solve_dynamic, solve_static, strong_type,
                                         unguarding_moves)
from deepnash.testtime.search import Search, SearchConfig
from testtime_helpers import blocked, red_corner, uniform_logits, zero_value

#: ``shipped:classic,hold=true`` (Red) against ``cautious``, game 90 of seed 506, before Red's ply 176 (the
#: approximate ``hold`` of 2026-11-30): Blue's hidden piece on i5 is about to run down the i-file at Red's Flag
#: on j1 (Bombs on i1 and j2), beside which Blue's revealed Marshal stands on i2.  The Sergeant on h2 cannot
#: stop a Miner that goes round by j4 without stepping onto i3, next to that Marshal; Red's Marshal, on g4,
#: stops it if it heads for the i-file now.  Red played g4-f4, and lost its Flag at ply 199.
LOST_J1 = ("classic[max_moves=0,max_moves_without_attack=0,two_squares=0,more_squares=0] BEFBFEBEBM/"
           "GBCJGAHFXB/DAAAAAAAAA/AAAAAALAAA/AA__RA__QA/AA__AA__AA/AAPQAARUAA/AAPTAAQQAA/NAQPAAANAA/NAOPANNYNA "
           "0000000000/0000000031/0000000000/0000003000/0000200020/0000000000/0000000200/0000002200/0000000000/"
           "0000000000 r 176 0 h4-g4,f6-f7,e6-f6,e5-e6,e4-e5,d4-e4,c4-d4/f3-f2,f4-f3,f5-e5,f6-f5,f5-f4,e5-f5,"
           "g9-g8 - f3-f2:443 *")

#: Game 101 of the same run, before Blue's ply 313: Blue's Flag on e10 behind Bombs on d10, f10 and e9, a
#: hidden Red piece running up the f-file (f7).  Only the Marshal's d8-e8 stops it; Blue played d7-e7.
LOST_E10 = ("classic[max_moves=0,max_moves_without_attack=0,two_squares=0,more_squares=0] AAAAABMBAA/"
            "BAAAAABAAA/AAABAAAAAA/AAAAAAAAAB/AA__AA__AA/AA__AA__AA/AAATAEAAAA/AAAXAAAAAA/AANNNAAAAV/"
            "NAQNYNAGJA 0000010000/1000000000/0000000000/0000000000/0000000000/0000000000/0003020000/"
            "0003000000/0010100003/1000010230 b 313 10 f6-f7,f5-f6,f4-f5,g4-f4,h4-g4,f9-e9,a9-c9/c7-d7,b7-c7,"
            "b6-b7,b5-b6,b4-b5,b3-b4,b2-b3 - f6-f7 *")


def _neighbours(sq: int) -> list[int]:
    row, col = divmod(sq, 10)
    return [r * 10 + c for r, c in ((row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1))
            if 0 <= r < 10 and 0 <= c < 10]


def _moves(r: int, d: int | None, passable, through) -> list[int]:
    """Where the raider on ``r`` may move with the defender on ``d``: the passable squares next to it or, for a
    Scout (``through`` given), in a straight line across squares of ``through`` and short of the defender."""
    out = []
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        row, col = divmod(r, 10)
        while True:
            row, col = row + dr, col + dc
            s = row * 10 + col
            if not (0 <= row < 10 and 0 <= col < 10) or not passable[s] or s == d:
                break
            out.append(s)
            if through is None or not through[s]:
                break
    return out


def _plain_raid(passable, caught, free, goal, through=None):
    """The slow reference, square by square: ``raider(r, d, n)``, the raider on ``r`` to move takes the Flag
    within ``n`` moves against the defender on ``d`` (``None``: no defender)."""

    @lru_cache(maxsize=None)
    def raider(r: int, d: int | None, n: int) -> bool:
        if n == 0:
            return False
        return any(s == goal or player(s, d, n - 1) for s in _moves(r, d, passable, through))

    @lru_cache(maxsize=None)
    def player(r: int, d: int | None, n: int) -> bool:
        if caught[r] or (d is not None and r in _neighbours(d)):
            return False  # a stopper takes the raider
        if not raider(r, d, n):
            return False  # a pass holds
        return d is None or all(raider(r, t, n) for t in _neighbours(d) if free[t] and t != r)

    return raider


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 7), st.booleans())
def test_the_tables_agree_with_a_plain_recursive_search(seed, horizon, scout):
    """From the raider's starting square, against the defender on its square or one next to it; a raider that
    steps, or a Scout that runs across the squares it may pass through."""
    rng = np.random.default_rng(seed)
    passable = rng.random(100) < 0.7
    free = passable & (rng.random(100) < 0.8)
    caught = rng.random(100) < 0.1
    goal = int(rng.integers(100))
    passable[goal] = True
    through = passable & (rng.random(100) < 0.8) if scout else None
    if scout:
        through[goal] = False
    raider = _plain_raid(passable, caught, free, goal, through)
    runs = None if through is None else through[None]
    static = solve_static(passable[None], caught[None], np.array([goal]), horizon, runs)[0]
    for r in rng.choice(np.flatnonzero(passable), size=4, replace=False).tolist():
        assert static[r] == raider(r, None, horizon), r
        for d in rng.choice(np.flatnonzero(free), size=3, replace=False).tolist():
            if d == r:
                continue
            table = solve_dynamic(passable[None], caught[None], free[None], np.array([goal]), np.array([r]),
                                  np.array([d]), horizon, runs)[0]
            for start in [d] + [t for t in _neighbours(d) if free[t] and t != r]:
                assert table[r, start] == raider(r, start, horizon), (r, d, start)


def _kept(view: PlayerView) -> set[str]:
    dropped = unguarding_moves(view, view.legal_moves)
    return {str(m) for m in view.legal_moves if m not in dropped}


#: ``shipped:classic,hold=true`` (Blue) against ``cautious``, game 61 of seed 506 (second run), before Blue's ply
#: 401, far ahead on material: Red's revealed Scout on a10 has an open row to Blue's Flag on d10.  Only the
#: Colonel's b9-b10 closes it; Blue played b9-b8, and the Scout ran a10-d10.
LOST_D10 = ("classic[max_moves=0,max_moves_without_attack=0,two_squares=0,more_squares=0] AAAAAABBMB/"
            "AXAAAAAABA/BAAAAAAABA/AAVAAAAAAA/AA__AA__AA/AA__AA__AA/AAAAAAAAAA/AAAAAAAAAA/AVANANANLA/"
            "DAAYNRNRQQ 0000001100/0300000000/0000000000/0030000000/0000000000/0000000000/0000000000/"
            "0000000000/0301010030/3000100000 b 401 33 a9-a10,a10-a9,b10-a10,b9-b10,c9-b9,b9-c9,a9-b9/"
            "b10-b9,c10-b10,c9-c10,c10-c9,b10-c10,c10-b10,b10-c10 - a9-a10 *")

#: Game 139 of that run, before Blue's ply 697: Blue's Flag on e10 (a Bomb on d10), Red's hidden piece on g9,
#: moved, on public information a Captain or stronger.  Only f10-f9 keeps it from walking in by f10;
#: Blue played f10-g10, and Red's piece, a Captain, took the Flag.
LOST_E10_OPEN = ("classic[max_moves=0,max_moves_without_attack=0,two_squares=0,more_squares=0] AAAAABMBAA/"
                 "AABAAABAAA/AAAAAAABAA/AALBAAAAAA/AA__AA__AA/AA__AA__AA/AAAAAAAAAA/AAAAAAAAAA/AAAAAAHAAA/"
                 "AAANYXAAAA 0000000100/0000000000/0000000000/0030000000/0000000000/0000000000/0000000000/"
                 "0000000000/0000002000/0001030000 b 697 116 g10-g9,h10-g10,g10-h10,h10-g10,i10-h10,j10-i10,"
                 "j9-j10/f9-f10,f10-f9,f9-f10,g9-f9,h9-g9,i9-h9,i10-i9 - g10-g9 *")

#: ``shipped:classic,belief=learned`` (Red) against ``cautious``, game 38 of seed 506, before Red's ply 192: Red's
#: Flag on b1 between Bombs on a1 and c1, its Sergeant on b2 in front, Blue's hidden moved piece on b3 above it.
#: Raced as a Miner alone, the Sergeant stops it; it was a Captain, which took the Sergeant and then the Flag.
#: Only d2-c2 puts Red's Captain beside b2 in time; Red played f9-e9.
LOST_B1 = ("classic[max_moves=0,max_moves_without_attack=0,two_squares=0,more_squares=0] BMBEHEDBDG/"
           "AFAHACDHED/QTAKAAAAAI/XAAAAAAAAA/RV__AA__AA/AA__AA__AA/AAUALANIAA/AAANAAAAAA/AAAAAJNAAA/"
           "AAAANNYNAA 0000000000/0200000000/3200000001/2000000000/2300000000/0000000000/0000300300/"
           "0000000000/0000031000/0000000000 r 192 10 f8-f9,g8-f8,h8-g8,i8-h8,a2-b2,i9-i8,i10-i9/b4-b3,"
           "b6-b5,b7-b6,b5-b4,a6-a5,b3-a3,b4-b3 - b4-b3 *")


@pytest.mark.parametrize("text, kept", [(LOST_J1, {"g4-g3", "g4-h4"}), (LOST_E10, {"d8-e8"}),
                                        (LOST_D10, {"b9-b10"}), (LOST_E10_OPEN, {"f10-f9"}),
                                        (LOST_B1, {"d2-c2"})])
def test_hold_keeps_the_one_move_that_stops_the_raider_of_a_lost_game(text, kept):
    game = game_from_position(text)
    assert _kept(PlayerView.of(game, game.turn)) == kept


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 8), min_size=12, max_size=12))
def test_the_strong_raider_is_the_strongest_type_reached_with_a_quarter_of_the_odds(counts):
    """``strong_type``, against a plain sum: the piece is that type or stronger with probability at least
    ``STRONG_TAIL``, and the next stronger type is not reached; -1 where no type above the Miner is."""
    dist = np.array(counts, dtype=float) / max(sum(counts), 1)
    at_least = {t: dist[t:MARSHAL + 1].sum() for t in range(MINER + 1, MARSHAL + 1)}
    reached = [t for t, p in at_least.items() if p >= STRONG_TAIL - 1e-9]
    assert strong_type(dist) == (max(reached) if reached else -1)


def _holds_on_the_board(game, move, raider: int, plies: int) -> bool:
    """The engine's exhaustive search (``arena.raids.defence_exists``), every piece known: after ``move``, the
    player keeps its Flag against every reply of the raider."""
    after = game.copy()
    after.push(move)
    for reply in [m for m in after.legal_moves() if m.from_sq == raider]:
        g = after.copy()
        g.push(reply)
        if g.is_over():
            if g.outcome().winner == 1 - game.turn:
                return False
        elif owners(g.state.board)[0, reply.to_sq] == 1 - game.turn and not defence_exists(g, reply.to_sq, plies):
            return False
    return True


@pytest.mark.parametrize("miner", ["c3", "d3"])
def test_every_move_is_judged_as_the_engines_exhaustive_search_judges_it(miner):
    """Blue's revealed Miner against Red's Lieutenant behind its own Scout (``testtime_helpers.blocked``):
    after each of Red's moves, the raid is forced exactly where the engine's search finds no defence.  With
    the Miner on c3 only the Scout's step out of the Lieutenant's way and its attack on the Miner, which it
    loses, clearing the way as well, hold."""
    game = blocked(miner)
    view = PlayerView.of(game, 0)
    raiders, forced = forced_raids(view, view.legal_moves)
    column = raiders.tolist().index(parse_square(miner))
    for move, row in zip(view.legal_moves, forced):
        assert (not row[column]) == _holds_on_the_board(game, move, parse_square(miner), 12), str(move)
    if miner == "c3":
        assert _kept(view) == {"c2-c1", "c2-c3"}


@pytest.mark.parametrize("shown, major, dropped", [(False, False, {"b3-b4"}), (True, False, set()),
                                                  (True, True, {"b3-b4", "b3-a3"})])
def test_a_defender_that_may_be_lost_counts_as_gone(shown, major, dropped):
    """Red's Lieutenant on b3 alone stops Blue's Miner on d3.  Its attack on the hidden piece on b4, which may
    beat it, may leave no defender, and goes; on a revealed Scout it wins for certain and stays in time, as
    do its quiet steps and the Scout's moves, unless a revealed Blue Major on a4 takes it where it lands
    (b4 or a3)."""
    game = red_corner("""
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. r5 .. b3 .. .. .. .. .. ..
         2 rB .. .. .. .. .. .. .. .. ..
         1 rF rB .. .. .. .. .. .. .. r2
    """, revealed=["d3"] + (["b4"] if shown else []) + (["a4"] if major else []),
        placed={"b4": code_of(1, SCOUT if shown else CAPTAIN), **({"a4": code_of(1, MAJOR)} if major else {})})
    view = PlayerView.of(game, 0)
    assert {str(m) for m in unguarding_moves(view, view.legal_moves)} == dropped


def test_a_raid_from_beyond_the_horizon_is_not_raced():
    game = next(r for r in RAIDS if r.name == "doi-b-file").game()
    view = PlayerView.of(game, 0)
    raiders, forced = forced_raids(view, view.legal_moves, horizon=3)
    assert parse_square("b6") not in raiders.tolist()
    raiders, forced = forced_raids(view, view.legal_moves)
    assert parse_square("b6") in raiders.tolist()
    assert forced.shape == (len(view.legal_moves), len(raiders))


def test_hold_keeps_the_search_to_the_move_that_stops_the_raider():
    game = game_from_position(LOST_E10)
    view = PlayerView.of(game, game.turn)
    prior = {m: 1.0 / len(view.legal_moves) for m in view.legal_moves}
    for hold in (False, True):
        search = Search(uniform_logits, zero_value, SearchConfig(samples=2, depth=0, candidates=3, rounds=1, alpha=0.0,
                                                      hold=hold))
        search.reset(view.variant, game.turn)
        played = {str(m) for m, p in search.run(view, prior, np.random.default_rng(0)).policy.items() if p > 0}
        assert (played == {"d8-e8"}) == hold


#: ``shipped:classic,hunt=0.15`` (Red) against ``cautious``, game 44 of seed 506, before Red's ply 334: Blue's
#: revealed Scout on j6 has Red's Marshal on i5 beside the open j-file down to Red's Flag on j1.  Only i5-j5
#: closes it, and the test-time layer had taken that move out of the prior; Red played i5-i4, and the
#: Scout ran j6-j1.
LOST_J1_FILE = ("classic[max_moves=0,max_moves_without_attack=0,two_squares=0,more_squares=0] APBGEEEGBM/"
                "ABABAIAAAA/AAABAACAAA/AAAAJAAAAA/AA__AQ__LA/AA__QQ__AP/AAOXUPRAAA/AAAASAAAAA/AAAAANANAA/"
                "AAANAANYNN 0310000000/0101000000/0001002000/0000200000/0000020030/0000220003/0000232000/"
                "0000200000/0000000000/0000000001 r 334 71 j5-i5,j4-j5,i4-j4,i5-i4,i6-i5,i7-i6,i8-i7/i6-j6,j6-i6,"
                "j7-j6,h7-j7,h8-h7,d8-e8,h7-h8 - i6-j6 *")


def test_hold_brings_back_the_one_move_that_stops_the_raider_where_the_prior_left_it_out():
    game = game_from_position(LOST_J1_FILE)
    view = PlayerView.of(game, game.turn)
    assert _kept(view) == {"i5-j5"}
    given = [m for m in view.legal_moves if str(m) != "i5-j5"]
    prior = {m: 1.0 / len(given) for m in given}
    for hold in (False, True):
        search = Search(uniform_logits, zero_value, SearchConfig(samples=2, depth=0, candidates=3, rounds=1, alpha=0.0,
                                                      hold=hold))
        search.reset(view.variant, game.turn)
        result = search.run(view, prior, np.random.default_rng(0))
        played = {str(m) for m, p in result.policy.items() if p > 0}
        assert (played == {"i5-j5"}) == hold
        assert result.prior == prior  # the prior as given
