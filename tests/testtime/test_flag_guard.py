"""The Flag guard: races on complete boards against the exhaustive search, the guarding move, and the
search's use of both."""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.arena.raids import RAIDS, defence_exists
from deepnash.game import Game, Move
from deepnash.game.codes import code_of, owners, types
from deepnash.game.pieces import BOMB, CAPTAIN, FLAG, MARSHAL, MINER, SCOUT
from deepnash.game.squares import parse_square
from deepnash.infostate.view import PlayerView
from deepnash.testtime.flag_guard import (GUARD_HORIZON, HORIZON, MAY_MINE, UNSTOPPED, defender_steps,
                                          flag_danger, guarding_move, public_raids, raid_steps,
                                          scout_in_line, slack_after)
from deepnash.testtime.search.heuristics import guard as guard_module
from deepnash.testtime.search import Search, SearchConfig
from testtime_helpers import blocked, red_corner, uniform_logits, zero_value

DOI = next(r for r in RAIDS if r.name == "doi-b-file")


def _played(moves: list[str]) -> Game:
    game = DOI.game()
    for m in moves:
        game.push(m)
    return game


def _danger_after(game: Game, move: Move) -> float:
    """``flag_danger`` of Red's Flag after ``move``, on the complete board."""
    g = game.copy()
    g.push(move)
    return float(flag_danger(g.state.board[:1].copy(), np.array([g.turn]), 0)[0])


def _plain_steps(passable: np.ndarray, target: int) -> np.ndarray:
    """The slow reference: a breadth-first search over one board, square by square."""
    dist = np.full(100, HORIZON + 1)
    dist[target] = 0
    queue = deque([target])
    while queue:
        sq = queue.popleft()
        for nb in (sq + 10, sq - 10, sq + 1 if sq % 10 < 9 else -1, sq - 1 if sq % 10 else -1):
            if 0 <= nb < 100 and passable[nb] and dist[nb] > dist[sq] + 1 and dist[sq] < HORIZON:
                dist[nb] = dist[sq] + 1
                queue.append(nb)
    return dist


@settings(max_examples=40, deadline=None)
@given(st.lists(st.booleans(), min_size=100, max_size=100), st.integers(0, 99))
def test_raid_steps_agrees_with_a_plain_breadth_first_search(free, target):
    passable = np.array(free)
    np.testing.assert_array_equal(raid_steps(passable[None], np.array([target]))[0], _plain_steps(passable, target))


def _plain_defender_steps(cells: list[int], entry: int, guard: int) -> int:
    """The slow reference for ``defender_steps`` on one board (``cells``: 0 empty, 1 a movable piece, 2 in
    the way): Dijkstra from the defender, one move onto an empty square or the entry, two onto a piece."""
    if guard == entry:
        return 0
    best = {guard: 0}
    heap = [(0, guard)]
    while heap:
        d, sq = heapq.heappop(heap)
        if sq == entry:
            return min(d, GUARD_HORIZON + 1)
        if d > best[sq] or (sq != guard and cells[sq] == 2):
            continue
        for nb in (sq + 10, sq - 10, sq + 1 if sq % 10 < 9 else -1, sq - 1 if sq % 10 else -1):
            if 0 <= nb < 100 and (nb == entry or cells[nb] < 2):
                cost = d + (2 if cells[nb] == 1 and nb != entry else 1)
                if cost < best.get(nb, 1 << 30):
                    best[nb] = cost
                    heapq.heappush(heap, (cost, nb))
    return GUARD_HORIZON + 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=100, max_size=100), st.integers(0, 99), st.integers(0, 99))
def test_defender_steps_agree_with_a_plain_shortest_path(cells, entry, guard):
    kind = np.array(cells)
    entries = np.array([[entry, -1, -1, -1]])
    got = defender_steps((kind == 0)[None], (kind == 1)[None], entries, np.array([guard]))[0]
    assert got[0, 0] == min(_plain_defender_steps(cells, entry, guard), GUARD_HORIZON + 1)
    assert (got[1:] == GUARD_HORIZON + 1).all()


@pytest.mark.parametrize("moves, raider", [
    ([], "b6"),  # a move to spare
    (["c7-c8", "b6-b5"], "b5"),  # one move wasted: held with nothing to spare
    (["e1-e2", "b6-b5"], "b5"),  # the Captain off the straight line: held all the same
    (["c7-c8", "b6-b5", "c8-c7", "b5-b4"], "b4"),  # two wasted: lost
])
def test_a_race_is_lost_exactly_where_the_exhaustive_search_finds_no_defence(moves, raider):
    """The lost game's position after a few moves: the race's danger is 1 (lost) where
    ``defence_exists`` (every piece known, every line of the raider) finds no defence, and below 1 where it
    finds one."""
    game = _played(moves)
    lost = flag_danger(game.state.board[:1].copy(), np.array([game.turn]), 0)[0] == 1.0
    assert lost == (not defence_exists(game, parse_square(raider), 16))


def _walled(*squares: str) -> Game:
    """The lost game's position with Red's Bombs of f2 and i2 (far from the raid), and one more Bomb, moved
    onto ``squares``."""
    game = DOI.game()
    board, flags = game.state.board[0].copy(), game.state.flags[0].copy()
    for name in ("f2", "i2"):
        board[parse_square(name)] = flags[parse_square(name)] = 0
    for name in squares:
        board[parse_square(name)] = code_of(0, BOMB)
    return Game.from_state(game.variant, board, flags, turn=0)


@pytest.mark.parametrize("walls", [("d1",), ("d1", "d2"), ("c2",), ("d1", "c2"), ("d2", "c2", "c3")])
def test_a_defender_walled_in_by_bombs_is_raced_by_the_way_round(walls):
    """The Captain on e1 must go round its own Bombs: the race is lost exactly where the exhaustive search
    finds no defence.  Counting rook steps straight through the Bombs called all of them held."""
    game = _walled(*walls)
    lost = flag_danger(game.state.board[:1].copy(), np.array([0]), 0)[0] == 1.0
    assert lost == (not defence_exists(game, parse_square("b6"), 16))


def test_a_raider_does_not_go_round_the_flag_through_another_entry():
    """Blue's Miner on e1 takes the Bomb on d1, then the Flag; Red's Major on d2 takes it on d1 if it stays
    put, so Red's Captain waits and the Flag holds (the exhaustive search agrees; Blue's Marshal on b2
    cannot pass the Bombs).  A path to the entry b1 through d1 and c2, shorter than the Major's way round
    the Marshal, once called that race lost whatever Red played (game 8 of the 2026-11-29 run against
    ``cautious``, where the Major then walked away)."""
    game = red_corner("""
         4 .. .. .. .. .. .. .. r6 .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 rB bM rB r8 .. .. .. .. .. ..
         1 rB rB rF rB b3 .. .. .. .. ..
    """, moved=["e1"], revealed=["b2"])
    assert defence_exists(game, parse_square("e1"), 12)
    assert _danger_after(game, Move.parse("h4-h3")) < 1.0
    assert _danger_after(game, Move.parse("d2-e2")) == 1.0


def test_a_lost_race_is_danger_one_and_a_raider_within_reach_is_none():
    game = _played(["c7-c8", "b6-b5", "c8-c7", "b5-b4"])
    board = game.state.board[:1].copy()
    assert flag_danger(board, np.array([0]), 0)[0] == 1.0
    board[0, parse_square("b3")] = board[0, parse_square("e1")]  # the Captain next to the Miner, Red to move
    board[0, parse_square("e1")] = 0
    assert flag_danger(board, np.array([0]), 0)[0] == 0.0  # taken at once (the Marshal and Colonel cannot pass Bombs)
    assert flag_danger(board, np.array([0]), 1)[0] == 0.0  # Blue has no raid on Blue's Flag
    red_movable = (owners(board) == 0) & ~np.isin(types(board), [FLAG, BOMB])
    board[red_movable] = 0  # Red has nothing left to move (its last piece fell in the candidate's battle)
    assert flag_danger(board, np.array([1]), 0)[0] == 0.0  # an unstopped raider is not raced


def test_the_guarding_move_brings_the_defender_that_is_in_time():
    """The Captain on e1 is the one in time; the one on c7 follows the Miner.  At the start of a game no
    piece has moved: nothing to answer."""
    assert guarding_move(PlayerView.of(DOI.game(), 0)) in {Move.parse("e1-e2"), Move.parse("e1-d1")}
    assert guarding_move(PlayerView.of(_played(["c7-c8", "b6-b5"]), 0)) in {Move.parse("e1-e2"), Move.parse("e1-d1")}
    assert guarding_move(PlayerView.of(Game("classic", seed=3), 0)) is None


def test_the_guard_takes_a_raider_beside_the_flag_before_it_widens_another_race():
    """Blue's Miner on b2 takes the Bomb on a2 or steps to b1, then the Flag; Red's Sergeant beside it
    must take it now, though by the entries its race is lost (it cannot stand beside a2 in time).  The
    Major's race, which the Colonel holds with a move to spare, comes second."""
    game = red_corner("""
         4 .. .. .. .. b7 .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 rB b3 r4 .. .. .. .. .. .. ..
         1 rF .. .. .. .. .. .. r8 .. ..
    """, revealed=["b2", "e4"])
    assert guarding_move(PlayerView.of(game, 0)) == Move.parse("c2-b2")


def test_the_guard_answers_where_every_move_leaves_no_defender():
    """Red's last movable piece, a Sergeant on e1, lands next to a revealed Blue Captain on each of its moves
    (d1, e2, f1), so after any of them Red has no defender of the race of Blue's revealed Miner on a5: each
    race is unstopped, and the guard still names a move (``shipped:classic`` against ``mcts``, seed 503, game
    101, stopped at ply 263 on this)."""
    game = red_corner("""
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 rB .. .. b6 .. b6 .. .. .. ..
         1 rF rB .. .. r4 .. .. .. .. ..
    """, moved=["e1"], revealed=["d2", "f2", "a5"], placed={"a5": code_of(1, MINER)})
    view = PlayerView.of(game, 0)
    quiet = list(view.legal_moves)
    raids = public_raids(view)
    assert len(quiet) == 3 and (slack_after(view, quiet, raids) == UNSTOPPED).all()
    assert guarding_move(view) in quiet


def test_the_guard_moves_a_blocker_out_of_the_defenders_way():
    """With the Miner on c3, every move of the Lieutenant loses the race; the Scout stepping to c1 opens
    d2-c2-b2 and holds it (game 54 of the 2026-11-29 run against ``cautious``, where the guard proposed the
    Lieutenant's moves alone)."""
    game = blocked("c3")
    lieutenant = [m for m in game.legal_moves() if m.from_sq == parse_square("d2")]
    assert all(_danger_after(game, m) == 1.0 for m in lieutenant)
    assert guarding_move(PlayerView.of(game, 0)) == Move.parse("c2-c1")
    assert _danger_after(game, Move.parse("c2-c1")) < 1.0


@pytest.mark.parametrize("miner", ["a3", "b3", "c3", "a4", "b4", "c4", "a5", "b5"])
def test_the_guard_answer_leaves_the_race_as_wide_as_any_quiet_move(miner):
    """Every piece known, so public information is the whole board: the guard's answer leaves a danger no
    move onto an empty square beats."""
    game = blocked(miner)
    move = guarding_move(PlayerView.of(game, 0))
    quiet = [m for m in game.legal_moves() if game.state.board[0, m.to_sq] == 0]
    assert move in quiet
    assert _danger_after(game, move) == min(_danger_after(game, m) for m in quiet)


def test_a_hidden_piece_that_may_be_a_miner_is_raced_as_one():
    """The lost race of the lost game with a Captain, which no Bomb lets through, in place of the Miner: no
    danger on that board, unless the raider's square is marked as one that may hold a Miner, where the lost
    race counts at its weight."""
    game = _played(["c7-c8", "b6-b5", "c8-c7", "b5-b4"])
    board = game.state.board[:1].copy()
    board[0, parse_square("b4")] = code_of(1, CAPTAIN)
    may_mine = np.zeros(100, dtype=bool)
    assert flag_danger(board, np.array([0]), 0, may_mine)[0] == 0.0
    may_mine[parse_square("b4")] = True
    assert flag_danger(board, np.array([0]), 0, may_mine)[0] == MAY_MINE


def _plain_scout_in_line(board: np.ndarray, player: int) -> bool:
    """The slow reference for ``scout_in_line``: walk each row and column from the Flag, square by square."""
    flag = [sq for sq in range(100) if board[sq] == code_of(player, FLAG)]
    if not flag:
        return False
    row, col = divmod(flag[0], 10)
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        r, c = row + dr, col + dc
        while 0 <= r < 10 and 0 <= c < 10 and board[r * 10 + c] == 0:
            r, c = r + dr, c + dc
        if 0 <= r < 10 and 0 <= c < 10 and board[r * 10 + c] == code_of(1 - player, SCOUT):
            return True
    return False


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0, 0, 0, code_of(1, SCOUT), code_of(0, SCOUT), code_of(1, MINER), -1]),
                min_size=100, max_size=100), st.integers(0, 99), st.integers(0, 1))
def test_a_scout_in_line_agrees_with_a_walk_from_the_flag(cells, flag, player):
    board = np.array(cells, dtype=np.int8)
    board[flag] = code_of(player, FLAG)
    assert scout_in_line(board[None], player)[0] == _plain_scout_in_line(board, player)


def test_a_scout_with_a_clear_line_to_the_flag_is_a_lost_race_when_it_moves_next():
    """Blue's Scout on e5, Red's Flag on e1 behind e2 to e4: lost with Blue to move, though Red's Marshal
    stands beside e2; not with Red to move, nor with the Marshal in the way."""
    game = red_corner("""
         4 .. .. .. .. .. .. .. .. .. ..
         3 .. .. .. .. .. .. .. .. .. ..
         2 .. .. .. rM .. .. .. .. .. ..
         1 .. .. .. rB rF rB .. .. .. ..
    """, placed={"e5": code_of(1, SCOUT)})
    board = game.state.board[:1].copy()
    assert flag_danger(board, np.array([1]), 0)[0] == 1.0  # the Marshal beside e2 wins a race of steps
    assert flag_danger(board, np.array([0]), 0)[0] == 0.0
    board[0, parse_square("e3")] = code_of(0, MARSHAL)
    board[0, parse_square("d2")] = 0
    assert flag_danger(board, np.array([1]), 0)[0] == 0.0


def _prior_against_e1(view: PlayerView, weight: float) -> dict[Move, float]:
    """A prior over ``view``'s moves that gives the moves of the Captain on e1 ``weight`` times the others'."""
    prior = {m: (weight if m.from_sq == parse_square("e1") else 1.0) for m in view.legal_moves}
    total = sum(prior.values())
    return {m: p / total for m, p in prior.items()}


def test_the_guard_brings_in_the_defence_and_scores_a_lost_race_as_a_loss():
    """One move wasted already: with ``guard=1`` the Captain's move joins candidates that the prior fills
    with moves of the other Captain, and every move that lets the Miner through is scored a loss."""
    view = PlayerView.of(_played(["c7-c8", "b6-b5"]), 0)
    prior = _prior_against_e1(view, 1e-3)

    def q_of(guard: float) -> dict[Move, float]:
        config = SearchConfig(samples=2, depth=0, candidates=3, rounds=1, leaf="gain", guard=guard)
        search = Search(uniform_logits, zero_value, config)
        search.reset(view.variant, 0)
        return search.run(view, prior, np.random.default_rng(0)).q

    plain, guarded = q_of(0.0), q_of(1.0)
    assert all(m.from_sq != parse_square("e1") for m in plain)
    defence = [m for m in guarded if m.from_sq == parse_square("e1")]
    assert len(defence) == 1 and guarded[defence[0]] > -0.2
    assert all(q == pytest.approx(-1.0) for m, q in guarded.items() if m not in defence)
    with pytest.raises(ValueError, match="guard"):
        SearchConfig(guard=2.0)


def test_the_guard_answer_enters_with_a_tenth_of_the_top_prior(monkeypatch):
    """People almost never play the Captain's step that keeps the Flag (a prior of one in a million here):
    the search, which scores every other move a lost race, plays it only because the answer enters the
    improvement with at least ``GUARD_PRIOR`` times the top move's prior."""
    view = PlayerView.of(_played(["c7-c8", "b6-b5"]), 0)
    prior = _prior_against_e1(view, 1e-6)

    def chosen() -> Move:
        config = SearchConfig(samples=2, depth=0, candidates=3, rounds=1, leaf="gain", guard=1.0, alpha=10.0)
        search = Search(uniform_logits, zero_value, config)
        search.reset(view.variant, 0)
        result = search.run(view, prior, np.random.default_rng(0))
        assert result.prior == prior  # the prior as given, in the result
        return max(result.policy, key=result.policy.get)

    assert chosen().from_sq == parse_square("e1")
    monkeypatch.setattr(guard_module, "GUARD_PRIOR", 0.0)
    assert chosen().from_sq != parse_square("e1")


