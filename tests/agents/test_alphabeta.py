"""The sparring program (``agents.alphabeta``): it reads public information only, takes what is free, is
deterministic under a node or depth bound, and is reachable as an agent spec."""

import io

import numpy as np
import pytest

from deepnash.agents import AgentSpecError, make_agent
from deepnash.agents.alphabeta import BLUFF, AlphaBetaAgent, _chance, piece_values
from deepnash.agents.ucc import serve_ucc
from deepnash.game import BARRAGE, CLASSIC, Game
from deepnash.game import kernels as K
from deepnash.game.codes import EMPTY, LAKE, code_of
from deepnash.game.pieces import BOMB, FLAG, GENERAL, MARSHAL, MINER, SCOUT, SERGEANT, SPY
from deepnash.infostate.determinize import complete_state
from deepnash.infostate.view import PlayerView, push_recorded
from deepnash.notation.ucc import format_board, format_setup, parse_move

BOUNDED = "alphabeta:seconds=0,depth=3"


def _played(variant, seed, plies):
    """A game after ``plies`` random moves (stopping short of its end), and its records."""
    rng = np.random.default_rng(seed)
    g = Game(variant, seed=seed)
    history = []
    for _ in range(plies):
        move = g.legal_moves()[int(rng.integers(len(g.legal_moves())))]
        trial = g.copy()
        trial.push(move)
        if trial.is_over():
            break
        history.append(push_recorded(g, move))
    return g, tuple(history)


def _shuffled(g, view, rng):
    """The same game with the opponent's hidden pieces dealt again as public information allows: types
    permuted among the hidden pieces that have moved, and among those that have not."""
    opp = 1 - view.player
    types = np.array([g.piece_at(sq).type if view.owner[sq] == opp else -1 for sq in range(100)], dtype=np.int8)
    hidden = (view.owner == opp) & ~view.revealed
    for group in (hidden & view.moved, hidden & ~view.moved):
        squares = np.flatnonzero(group)
        types[squares] = rng.permutation(types[squares])
    return Game.from_state(view.variant, **complete_state(view, types))


def _agent(spec, variant, player, seed=7):
    a = make_agent(spec)
    a.reset(variant, player, seed)
    return a


@pytest.mark.parametrize("variant, plies, spec", [(CLASSIC, 60, BOUNDED), (CLASSIC, 160, BOUNDED),
                                                  (BARRAGE, 30, BOUNDED), (CLASSIC, 160, BOUNDED + ",belief=counts")])
def test_its_moves_do_not_depend_on_the_opponents_hidden_pieces(variant, plies, spec):
    g, history = _played(variant, plies, plies)
    view = PlayerView.of(g, g.turn, history)
    rng = np.random.default_rng(plies)
    for _ in range(3):
        other = _shuffled(g, view, rng)
        assert other.state.board[0].tolist() != g.state.board[0].tolist() or plies == 0
        twin = PlayerView.of(other, g.turn, history)
        assert _agent(spec, variant, g.turn).act(view) == _agent(spec, variant, g.turn).act(twin)


def test_it_is_deterministic_under_a_node_budget():
    g, history = _played(CLASSIC, 3, 80)
    view = PlayerView.of(g, g.turn, history)
    spec = "alphabeta:seconds=0,nodes=20000"
    first = _agent(spec, CLASSIC, g.turn, seed=1)
    moves = {_agent(spec, CLASSIC, g.turn, seed=s).act(view) for s in (1, 2, 3)}
    assert len(moves) == 1
    first.act(view)
    assert 0 < first.last["nodes"] <= 20000 + 1 and first.last["depth"] >= 2


def _position(pieces: dict[int, tuple[int, int, bool]], turn: int = 0) -> Game:
    """A Classic game from ``{square: (player, type, revealed)}`` (everything marked as moved but Bombs
    and Flags), ``turn`` to move."""
    board = np.full(100, EMPTY, np.int8)
    board[CLASSIC.lake_mask] = LAKE
    flags = np.zeros(100, np.uint8)
    for sq, (p, t, shown) in pieces.items():
        board[sq] = code_of(p, t)
        flags[sq] = (K.REVEALED if shown else 0) | (K.MOVED if t not in (FLAG, BOMB) else 0)
    return Game.from_state(CLASSIC, board, flags, turn=turn, ply=40, moves_since_attack=0)


def test_it_takes_a_shown_flag_and_a_hanging_piece():
    # Red's Scout beside Blue's revealed Flag; far away a Blue General could take Red's Marshal otherwise
    g = _position({0: (0, FLAG, False), 1: (0, BOMB, False), 10: (0, BOMB, False), 44: (0, SCOUT, True),
                   54: (1, FLAG, True), 90: (1, MARSHAL, False), 49: (0, MARSHAL, False), 59: (1, GENERAL, True)})
    view = PlayerView.of(g, 0)
    assert tuple(_agent(BOUNDED, CLASSIC, 0).act(view)) == (44, 54)
    # no Flag in reach: Red's General takes Blue's revealed Major for free (nothing of Blue's can strike back)
    g = _position({0: (0, FLAG, False), 1: (0, BOMB, False), 10: (0, BOMB, False), 44: (0, GENERAL, False),
                   45: (1, 7, True), 99: (1, FLAG, False), 89: (1, BOMB, False), 98: (1, BOMB, False),
                   70: (1, SERGEANT, True)})
    view = PlayerView.of(g, 0)
    assert tuple(_agent(BOUNDED, CLASSIC, 0).act(view)) == (44, 45)


def test_an_attack_on_a_known_piece_is_read_as_made_by_a_piece_that_beats_it():
    # Blue's four hidden pieces are its Spy and three Scouts, a quarter each by the counts; one stands next to
    # Red's Marshal. Blue knows its own piece: when it attacks the Marshal and the Marshal is revealed, it is
    # mostly the Spy (the Scouts' odds scaled by BLUFF); when Blue cannot know what it attacks, the counts' odds
    for shown in (True, False):
        g = _position({0: (0, FLAG, False), 1: (0, BOMB, False), 10: (0, BOMB, False), 44: (0, MARSHAL, shown),
                       45: (1, SPY, False), 95: (1, SCOUT, False), 96: (1, SCOUT, False), 97: (1, SCOUT, False),
                       99: (1, FLAG, False), 98: (1, BOMB, True)})
        agent = _agent(BOUNDED + ",belief=counts", CLASSIC, 0)
        view = PlayerView.of(g, 0)
        board = agent._board(view)
        odds, odds_moved, ev, evm, val, info, runner, dist_target, dist_flag, mobile, w = agent._tables(view, board)
        value, p_win, rest = _chance(board, 45, 44, 1, 0.0, odds, odds_moved, val, info, dist_flag)
        expected = 0.25 / (0.25 + BLUFF * 0.75) if shown else 0.25
        assert p_win == pytest.approx(expected, abs=1e-6)
        # the Spy's win: the Marshal lost, the Spy shown, the Marshal's being known no longer costs anything
        won = -val[0, MARSHAL] + info[1, SPY] + (info[0, MARSHAL] if shown else 0.0)
        assert value - rest == pytest.approx(p_win * won, abs=1e-6)


def test_it_sees_a_defender_taken_and_the_flag_behind_it_in_one_line():
    # Blue's Flag on j10 is its only unmoved piece (so tracking knows it), walled by a revealed Bomb on i10 and a
    # hidden Sergeant on j9 that Red's Captain beats whatever it is (Sergeant or Scout). Taking the defender is a
    # battle with a hidden piece; the search goes on from the likely win and finds the Flag behind it, worth more
    # than the revealed Colonel Red's Marshal could take instead
    g = _position({0: (0, FLAG, False), 1: (0, BOMB, False), 10: (0, BOMB, False), 22: (0, MARSHAL, False),
                   23: (1, 8, True), 79: (0, 6, False), 89: (1, SERGEANT, False), 60: (1, SCOUT, False),
                   98: (1, BOMB, True), 99: (1, FLAG, False)})
    view = PlayerView.of(g, 0)
    assert tuple(_agent(BOUNDED, CLASSIC, 0).act(view)) == (79, 89)


def test_values_follow_the_pieces_left():
    g, history = _played(CLASSIC, 1, 0)
    view = PlayerView.of(g, 0, history)
    base = piece_values(view)
    assert np.allclose(base[0], base[1])
    taken = view.taken_before.copy()
    taken[1, SPY] = 1  # Blue's Spy is gone: Red's Marshal is safer, and worth more
    taken[0, MINER] = 3  # Red has two Miners left while Blue keeps its Bombs: each worth more
    after = piece_values(PlayerView(**{**view.__dict__, "taken_before": taken}))
    assert after[0, MARSHAL] > base[0, MARSHAL] and after[1, MARSHAL] == base[1, MARSHAL]
    assert after[0, MINER] > base[0, MINER]


def test_the_spec_and_its_errors():
    agent = make_agent("alphabeta:time=0.1,depth=4,setup=human")
    assert isinstance(agent, AlphaBetaAgent) and agent.seconds == 0.1 and agent.depth == 4
    for bad, match in (("alphabeta:seconds=-1", "seconds"), ("alphabeta:seconds=0", "bound"),
                       ("alphabeta:depth=500", "depth"), ("alphabeta:setup=nowhere", "setup"),
                       ("alphabeta:width=3", "unknown option"), ("alphabeta:belief=nowhere", "belief")):
        with pytest.raises(AgentSpecError, match=match):
            make_agent(bad)


@pytest.mark.parametrize("variant", [CLASSIC, BARRAGE])
def test_it_sets_up_as_people_do_and_plays_both_variants(variant):
    agent = _agent("alphabeta:seconds=0,depth=2", variant, 1)
    setup = agent.choose_setup()
    assert np.bincount(setup[setup >= 0], minlength=12).tolist() == list(variant.piece_counts)
    g = Game(variant, _agent("random", variant, 0).choose_setup(), setup)
    g.push(g.legal_moves()[0])
    move = agent.act(PlayerView.of(g, 1))
    assert move in g.legal_moves()


def test_its_own_setups_are_walled_and_disguised_unless_asked_not_to():
    """``setup=own`` walls the Flag in on the back row (Classic) and, disguised by default, deploys no setup of the
    pool as people recorded it (nor its mirror), so a library of recorded setups cannot name it; with
    ``disguise=false`` every setup is one of the pool's."""
    from deepnash.env.setups import walled_pool

    pool = {s.tobytes() for s in walled_pool(CLASSIC).setups}
    pool |= {s.reshape(10, 10)[:, ::-1].reshape(100).tobytes() for s in walled_pool(CLASSIC).setups}
    for seed in range(5):
        hidden = _agent("alphabeta:seconds=0,depth=2", CLASSIC, 0, seed=seed).choose_setup()
        plain = _agent("alphabeta:seconds=0,depth=2,disguise=false", CLASSIC, 0, seed=seed).choose_setup()
        row, col = divmod(int(np.flatnonzero(hidden == FLAG)[0]), 10)
        beside = [10 + col] + [col + d for d in (-1, 1) if 0 <= col + d < 10]
        assert row == 0 and all(hidden[n] == BOMB for n in beside)
        assert hidden.tobytes() not in pool and plain.tobytes() in pool


def test_it_plays_as_a_ucc_bot():
    """``deepnash ucc-bot --agent alphabeta`` serves the agent the registry builds: a scripted referee
    conversation (setup, START, a board, one move reply, QUIT), as ``test_ucc`` plays it with the random bot."""
    blue = Game(BARRAGE, seed=4).setups[1]
    own = _agent(BOUNDED, BARRAGE, 0, seed=9).choose_setup()
    view = PlayerView.of(Game(BARRAGE, own, blue), 0)
    stdin = io.StringIO("\n".join(["RED blue 10 10", "START", *format_board(view.owner, view.types, 0), "QUIT"]) + "\n")
    out = io.StringIO()
    serve_ucc(make_agent(BOUNDED), BARRAGE, stdin, out, seed=9)
    lines = out.getvalue().splitlines()
    assert lines[:4] == format_setup(own, 0)
    assert parse_move(lines[4]) in view.legal_moves
