"""Flag raids: the positions, the raider, the exhaustive proof of a defence, and the shipped agent in them."""

from __future__ import annotations

import json

import pytest

from deepnash import cli
import numpy as np

from deepnash.arena.raids import (RAID_RULES, RAIDS, RECORD_STEPS, _steps_left, defence_exists, last_defence, play_raid,
                                  raider_move, record_raid, run_raid)
from deepnash.game import Game
from deepnash.game.codes import owners, types
from deepnash.game.pieces import FLAG
from deepnash.game.squares import parse_square
from deepnash.notation.gravon import write_xml
from deepnash.infostate.beliefs import hidden_counts
from deepnash.infostate.view import PlayerView


def _raid(name: str):
    return next(r for r in RAIDS if r.name == name)


def test_the_raids_cover_both_variants_and_hide_the_raider():
    assert {r.variant for r in RAIDS} == {"classic", "barrage"}
    for raid in RAIDS:
        game = raid.game()
        view = PlayerView.of(game, 0)
        sq = parse_square(raid.raider)
        assert view.owner[sq] == 1 and view.moved[sq] and not view.revealed[sq], raid.name
        # the pieces missing from the board count as taken: the hidden counts add up
        assert hidden_counts(view).sum() == ((view.owner == 1) & ~view.revealed).sum(), raid.name


def test_the_raider_goes_straight_at_the_flag():
    game = _raid("doi-b-file").game()
    game.push("c7-c8")
    assert str(raider_move(game, parse_square("b6"))) in {"b6-b5", "b6-a6"}  # six moves from a1 either way


@pytest.mark.parametrize("raid", RAIDS, ids=lambda r: r.name)
def test_every_raid_has_a_defence(raid):
    assert defence_exists(raid.game(), parse_square(raid.raider), raid.plies)


def test_the_exhaustive_search_refutes_taking_the_scout():
    """``lieutenant-to-g1``: the Major has no move to spare, so taking the Scout beside it loses the Flag,
    and so does standing still."""
    for first in ("a4-a5", "d1-c1"):
        game = _raid("lieutenant-to-g1").game()
        game.push(first)
        game.push("j6-j5")
        assert not defence_exists(game, parse_square("j5"), 22), first


@pytest.mark.parametrize("raid", RAIDS, ids=lambda r: r.name)
def test_the_shipped_agent_keeps_its_flag(raid):
    """One search round per move (``rounds=1``) makes the tries independent of the machine's speed."""
    agent = _agent(f"shipped:{raid.variant},rounds=1")
    for seed in (0, 1):
        assert run_raid(agent, raid, seed).kept, seed


@pytest.mark.parametrize("raid", RAIDS, ids=lambda r: r.name)
def test_without_the_guard_the_shipped_agent_loses_its_flag(raid):
    assert not run_raid(_agent(f"shipped:{raid.variant},rounds=1,guard=0,hold=false"), raid, 0).kept


@pytest.mark.parametrize("raid", [r for r in RAIDS if r.variant == "classic"], ids=lambda r: r.name)
def test_the_solved_races_alone_keep_the_flag(raid):
    """``hold``, which ``shipped:classic`` plays, keeps the Flag without the guard: it drops the moves that lose
    the race."""
    assert run_raid(_agent("shipped:classic,rounds=1,guard=0"), raid, 0).kept


def _agent(spec: str):
    from deepnash.agents.registry import make_agent

    return make_agent(spec)


def test_the_flag_defence_command_reports_every_raid(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["flag-defence", "shipped:classic,rounds=1", "--tries", "1", "--seed", "5", "--no-prove", "--json"])
    assert stop.value.code == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["raids"]) == {r.name for r in RAIDS if r.variant == "classic"}
    assert report["played"] == len(report["raids"]) and report["all_kept"]
    with pytest.raises(SystemExit) as stop:
        cli.main(["flag-defence", "random", "--variant", "chess"])
    assert stop.value.code == 2


def test_a_record_s_raid_is_the_capturing_piece_near_the_flag_it_took(games):
    """``record_raid``: the position before the loser's move from which the capturing piece stayed within
    ``RECORD_STEPS`` of the Flag, the loser as Red (the board turned round when it was Blue), nothing for a
    game that ended otherwise."""
    _, result = games
    raids = 0
    # (a game whose capturing piece came from beyond RECORD_STEPS in its last move, a Scout's run, has no raid)
    for g, raid in _read_captures(result, record_raid):
        raids += 1
        ply = int(raid.name.rsplit("-ply", 1)[1])
        position = raid.game()
        board = position.state.board[0]
        loser = 1 - g.winner
        true = _position_at(g.record, ply)
        if loser == 1:  # turned round, colours swapped
            true = np.where(true > 0, np.where(owners(true) == 0, true + 12, true - 12), true)[::-1]
        assert np.array_equal(board, true)
        raider = parse_square(raid.raider)
        assert owners(board)[raider] == 1 and position.piece_at(raider).moved
        assert (types(board) == FLAG)[owners(board) == 0].sum() == 1
        assert 0 <= _steps_left(position, raider) <= RECORD_STEPS
        assert raid.plies == 2 * (_steps_left(position, raider) + 4)
        assert position.turn == 0 and not position.is_over()
    assert raids


def _read_captures(result, read):
    """``(game, read(record))`` for each game of the tournament ``result`` that ended with a Flag captured and that
    ``read`` finds something in; ``read`` must give ``None`` for every other ending."""
    for g in result.matches[0].games:
        found = read(g.record)
        if g.termination != "flag_captured":
            assert found is None
        elif found is not None:
            yield g, found


def _position_at(record, ply: int) -> np.ndarray:
    from deepnash.notation.replay import replay

    final = replay(record)
    game = Game(final.variant, *final.setups)
    for move in final.move_stack[:ply]:
        game.push(move)
    return game.state.board[0].copy()


def test_the_flag_defence_command_plays_the_raids_of_records(games, tmp_path, capsys):
    _, result = games
    for i, g in enumerate(result.matches[0].games):
        write_xml(g.record, tmp_path / f"game-{i}.xml")
    with pytest.raises(SystemExit) as stop:
        cli.main(["flag-defence", "random", "--variant", "barrage", "--records", str(tmp_path), "--tries", "1",
                  "--no-prove", "--json"])
    assert stop.value.code == 0
    report = json.loads(capsys.readouterr().out)
    expected = [f"game-{i}-ply{r.name.rsplit('-ply', 1)[1]}" for i, g in enumerate(result.matches[0].games)
                if (r := record_raid(g.record))]
    assert sorted(report["raids"]) == sorted(expected) and report["played"] == len(expected)
    with pytest.raises(SystemExit) as stop:
        cli.main(["flag-defence", "random", "--records", str(tmp_path / "missing.xml")])
    assert stop.value.code == 2


class _Scripted:
    """An agent that plays a record's moves: the one at the view's ply."""

    def __init__(self, record):
        from deepnash.notation.replay import replay

        self.moves = replay(record).move_stack

    def reset(self, variant, player, seed=None):
        pass

    def act(self, view):
        return self.moves[view.ply]


def test_a_record_s_raid_played_on_as_the_game_went_loses_the_flag_when_it_fell(games):
    """``play_raid`` starts from the game as it stood: both sides playing the record's moves take the Flag at the
    record's last move, and a defender that plays nothing of the record is still at the raid's ply to begin."""
    _, result = games
    played = 0
    for g, raid in _read_captures(result, record_raid):
        script = _Scripted(g.record)
        tried = play_raid(script, script, raid, 0, plies=10_000)
        assert not tried.kept and tried.ending == "lost"
        assert list(tried.moves) == [str(m) for m in script.moves[raid.ply:]]
        short = play_raid(script, script, raid, 0, plies=1)
        assert short.kept and short.ending == "held" and list(short.moves) == [str(script.moves[raid.ply])]
        played += 1
    assert played


def test_a_raider_agent_plays_only_raids_drawn_from_records(games, tmp_path, capsys):
    _, result = games
    for i, g in enumerate(result.matches[0].games):
        write_xml(g.record, tmp_path / f"game-{i}.xml")
    with pytest.raises(SystemExit) as stop:
        cli.main(["flag-defence", "random", "--raider", "random", "--no-prove"])
    assert stop.value.code == 2
    with pytest.raises(SystemExit) as stop:
        cli.main(["flag-defence", "random", "--variant", "barrage", "--records", str(tmp_path), "--raider", "greedy",
                  "--plies", "30", "--tries", "2", "--no-prove", "--json"])
    assert stop.value.code == 0
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert report["raider"] == "greedy" and report["plies"] == 30 and report["played"] == 2 * len(report["raids"])
    for row in report["raids"].values():
        assert set(row["endings"]) <= {"held", "lost", "won", "other ending"}
        assert row["kept"] == row["tries"] - row["endings"].get("lost", 0)


def test_the_last_defence_is_the_loser_s_last_turn_that_could_stop_the_raider_alone(games):
    """``last_defence``: at its ply the loser is to move and a defence against the capturing piece alone exists; at
    every later turn of the loser before the capture none does; the reply is the record's next move."""
    from deepnash.notation.replay import replay

    _, result = games
    found = 0
    for g, defence in _read_captures(result, last_defence):
        found += 1
        final = replay(g.record)
        moves = final.move_stack
        assert defence.player == 1 - g.winner and defence.move == moves[defence.ply]
        assert defence.reply == moves[defence.ply + 1]
        squares = [0] * len(moves)  # the raider's square before each ply (Red moves at even plies)
        squares[-1] = moves[-1].from_sq
        for ply in range(len(moves) - 2, -1, -1):
            ours = ply % 2 == g.winner and moves[ply].to_sq == squares[ply + 1]
            squares[ply] = moves[ply].from_sq if ours else squares[ply + 1]
        rules = final.variant.with_rules(**RAID_RULES)
        game = Game(final.variant, *final.setups)
        for ply, move in enumerate(moves[:-1]):
            if ply >= defence.ply and ply % 2 == defence.player:
                position = Game.from_state(rules, game.state.board[0], game.state.flags[0], turn=defence.player)
                left = _steps_left(position, squares[ply])
                proven = left < 0 or defence_exists(position, squares[ply], 2 * (left + 4))
                assert proven == (ply == defence.ply), ply
            game.push(move)
        assert f"ply {defence.ply}" in defence.describe() and str(defence.reply) in defence.describe()
    assert found
