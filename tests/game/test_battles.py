"""Hand-built positions for every battle rule, Scout moves, illegal moves and the end of the game.

Every position is drawn as an ASCII diagram (``deepnash.game.diagram``).
"""

import pytest
from rules_helpers import assert_same, both_from_diagram

from deepnash.game import CLASSIC, BattleResult, Game, GameOverError, IllegalMoveError, Termination
from deepnash.game.pieces import BOMB, FLAG, MARSHAL, MINER, PIECE_CHARS, SCOUT, SPY

# Red's piece A on e3 faces Blue's piece D on e4; both Flags are far away.
DUEL = """
10 .. .. .. .. .. .. .. .. .. bF
 9 .. .. .. .. .. .. .. .. .. ..
 8 .. .. .. .. .. .. .. .. .. ..
 7 .. .. .. .. .. .. .. .. .. b3
 6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 4 .. .. .. .. bD .. .. .. .. ..
 3 .. .. .. .. rA .. .. .. .. ..
 2 .. .. .. .. .. .. .. .. .. ..
 1 r3 rF .. .. .. .. .. .. .. ..
   a  b  c  d  e  f  g  h  i  j
"""


def duel(attacker: int, defender: int):
    text = DUEL.replace("rA", "r" + PIECE_CHARS[attacker]).replace("bD", "b" + PIECE_CHARS[defender])
    return both_from_diagram(text)


def fight(attacker: int, defender: int):
    game, ref = duel(attacker, defender)
    result = game.push("e3-e4")
    ref.push(34 - 10, 34)
    assert_same(game, ref, f"{PIECE_CHARS[attacker]} attacks {PIECE_CHARS[defender]}")
    return game, result


MOVABLE = range(SPY, MARSHAL + 1)


def test_spy_attacking_marshal_wins():
    game, result = fight(SPY, MARSHAL)
    assert result == BattleResult.ATTACKER_WON
    assert game.piece_at("e4") == (0, SPY, True, True) and game.piece_at("e3") is None


def test_marshal_attacking_spy_wins():
    game, result = fight(MARSHAL, SPY)
    assert result == BattleResult.ATTACKER_WON and game.piece_at("e4").type == MARSHAL


@pytest.mark.parametrize("defender", [t for t in MOVABLE if t != MARSHAL])
def test_spy_loses_attacking_anything_but_the_marshal(defender):
    game, result = fight(SPY, defender)
    expected = BattleResult.BOTH_REMOVED if defender == SPY else BattleResult.DEFENDER_WON
    assert result == expected


def test_miner_defuses_a_bomb():
    game, result = fight(MINER, BOMB)
    assert result == BattleResult.ATTACKER_WON
    assert game.piece_at("e4") == (0, MINER, True, True)


@pytest.mark.parametrize("attacker", [t for t in MOVABLE if t != MINER])
def test_others_die_on_a_bomb(attacker):
    game, result = fight(attacker, BOMB)
    assert result == BattleResult.DEFENDER_WON
    assert game.piece_at("e3") is None
    assert game.piece_at("e4") == (1, BOMB, True, False)  # the Bomb is now known


@pytest.mark.parametrize("rank", MOVABLE)
def test_equal_ranks_both_removed(rank):
    game, result = fight(rank, rank)
    assert result == BattleResult.BOTH_REMOVED
    assert game.piece_at("e3") is None and game.piece_at("e4") is None


@pytest.mark.parametrize("attacker, defender", [
    (a, d) for a in MOVABLE for d in MOVABLE if a != d and (a, d) != (SPY, MARSHAL)
])
def test_higher_rank_wins(attacker, defender):
    game, result = fight(attacker, defender)
    assert result == (BattleResult.ATTACKER_WON if attacker > defender else BattleResult.DEFENDER_WON)
    winner = attacker if attacker > defender else defender
    assert game.piece_at("e4") == (0 if attacker > defender else 1, winner, True, attacker > defender)
    assert game.piece_at("e3") is None


@pytest.mark.parametrize("attacker", MOVABLE)
def test_any_piece_captures_the_flag(attacker):
    game, result = fight(attacker, FLAG)
    assert result == BattleResult.FLAG_CAPTURED
    assert game.outcome().termination == Termination.FLAG_CAPTURED and game.outcome().winner == 0
    assert game.outcome().returns() == (1.0, -1.0) and game.legal_moves() == []
    with pytest.raises(GameOverError):
        game.push("a1-a2")


SCOUTS = """
10 .. .. .. .. .. .. .. .. .. bF
 9 .. .. .. .. b4 .. .. .. .. ..
 8 .. .. .. .. .. .. .. .. .. ..
 7 .. .. .. .. .. .. .. .. .. ..
 6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 4 .. .. .. .. .. .. .. .. .. ..
 3 .. .. r5 .. r2 .. .. .. .. ..
 2 .. .. .. .. .. .. .. .. .. ..
 1 rF .. .. .. .. .. .. .. .. rB
   a  b  c  d  e  f  g  h  i  j
"""


def test_scout_moves_any_distance_but_not_through_pieces_or_lakes():
    game, _ = both_from_diagram(SCOUTS)
    scout = {str(m) for m in game.legal_moves() if m.from_sq == 24}
    assert scout == {"e3-e4", "e3-e5", "e3-e6", "e3-e7", "e3-e8", "e3-e9",  # ends by attacking e9
                     "e3-e2", "e3-e1", "e3-f3", "e3-g3", "e3-h3", "e3-i3", "e3-j3", "e3-d3"}
    piece = {str(m) for m in game.legal_moves() if m.from_sq == 22}
    assert piece == {"c3-c4", "c3-c2", "c3-d3", "c3-b3"}  # c4 is free, c5 is a lake
    for bad in ("c3-c5", "c3-a3", "e3-b3", "e3-c3", "e3-e10", "j1-j2", "a1-a2", "e3-f4"):
        assert not game.is_legal(bad), bad


def test_scout_long_move_reveals_it_but_a_single_step_does_not():
    game, ref = both_from_diagram(SCOUTS)
    game.push("e3-e4")
    assert game.piece_at("e4") == (0, SCOUT, False, True)
    game.push("e9-e10")
    game.push("e4-e7")
    assert game.piece_at("e7") == (0, SCOUT, True, True)


def test_scout_long_attack():
    game, ref = both_from_diagram(SCOUTS)
    assert game.push("e3-e9") == BattleResult.DEFENDER_WON  # a Sergeant beats a Scout
    ref.push(24, 84)
    assert_same(game, ref)
    assert game.piece_at("e9") == (1, 4, True, False) and game.piece_at("e3") is None


@pytest.mark.parametrize("move, why", [
    ("e3-a3", "a Scout cannot move from e3 to a3"),
    ("c3-c5", "c5 is a lake"),
    ("c3-e3", "e3 holds your own piece"),
    ("j1-j2", "a Bomb never moves"),
    ("a1-a2", "a Flag never moves"),
    ("e9-e8", "the piece on e9 belongs to Blue"),
    ("f3-f4", "no piece on f3"),
    ("c3-d4", "a Lieutenant cannot move from c3 to d4"),
])
def test_illegal_moves_say_why(move, why):
    game, _ = both_from_diagram(SCOUTS)
    with pytest.raises(IllegalMoveError, match=why):
        game.push(move)
    assert game.ply == 0  # unchanged


STUCK = """
10 .. .. .. .. .. .. .. .. bB bF
 9 .. .. .. .. .. .. .. .. .. bB
 8 .. .. .. .. .. .. .. .. .. ..
 7 .. .. .. .. .. .. .. .. .. ..
 6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
 4 .. .. .. .. .. .. .. .. .. ..
 3 .. .. .. .. .. .. .. .. .. ..
 2 rB .. .. .. .. .. .. .. .. ..
 1 rF rB .. .. .. .. .. .. .. b9
   a  b  c  d  e  f  g  h  i  j
"""


def test_player_without_moves_loses_at_once():
    game, ref = both_from_diagram(STUCK)  # Red has only a Flag and Bombs
    assert_same(game, ref)
    assert game.outcome().termination == Termination.NO_MOVES and game.outcome().winner == 1


def test_player_left_without_moves_after_a_battle_loses():
    game, ref = both_from_diagram(STUCK.replace("rB .. .. .. .. .. .. .. .. ..", "rB .. .. .. .. .. .. .. .. r9"))
    game.push("j2-j1")  # both Generals fall; Red has no movable piece and Blue to move still has none
    ref.push(19, 9)
    assert_same(game, ref)
    assert game.outcome().termination == Termination.BOTH_STUCK and game.outcome().winner is None


def test_blocked_pieces_count_as_no_move():
    text = STUCK.replace(" 2 rB .. ..", " 2 rB r5 rB").replace(" 3 .. ..", " 3 .. rB").replace("rF rB .. ", "rF rB rB ")
    game, ref = both_from_diagram(text)  # the Lieutenant on b2 is walled in by its own Bombs
    assert_same(game, ref)
    assert game.outcome().termination == Termination.NO_MOVES and game.outcome().winner == 1


def test_draw_limits():
    short = CLASSIC.with_rules(max_moves=9, max_moves_without_attack=0, name="short")
    game = Game(short, seed=3)
    while not game.is_over():
        game.push(game.legal_moves()[0])
    assert game.ply == 9 and game.outcome().termination == Termination.MOVE_LIMIT
    quiet = CLASSIC.with_rules(max_moves=0, max_moves_without_attack=6, name="quiet")
    game, ref = both_from_diagram(SCOUTS, quiet)
    for move in ("e3-e4", "e9-e8", "e4-e3", "e8-e9", "c3-c4"):
        game.push(move)
    assert not game.is_over()
    game.push("e9-e8")
    assert game.outcome().termination == Termination.NO_ATTACK_LIMIT and game.outcome().returns() == (0.0, 0.0)
