"""Gravon XML: reading real and broken records, squares, and export then import of any game."""

import dataclasses
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.game import BARRAGE, CLASSIC, Game, Move, RecordError, Termination
from deepnash.notation import position_string
from deepnash.notation.field import format_field, parse_field, piece_char
from deepnash.notation.gravon import (
    GravonRecord, ResultType, UnsupportedVariantError, format_xml, gravon_square, parse_gravon_square,
    parse_records, read_records, record_from_game, record_variant, replay, write_xml,
)
from notation_helpers import DATA, random_game


def test_field_alphabet():
    assert (piece_char(0, 0), piece_char(0, 11), piece_char(0, 1), piece_char(0, 10)) == ("M", "B", "C", "L")
    assert (piece_char(1, 11), piece_char(1, 0)) == ("N", "Y")
    field = (DATA / "classic-flag.xml").read_text().split('content="')[1][:100]
    assert format_field(parse_field(field)) == field
    with pytest.raises(ValueError, match="'z' at j2"):
        parse_field(field[:19] + "z" + field[20:])


def test_squares():
    assert [parse_gravon_square(s) for s in ("A1", "B4", "K1", "K:", "J:", "J10", "I9")] == [0, 31, 9, 99, 99, 99, 88]
    assert all(parse_gravon_square(gravon_square(sq)) == sq for sq in range(100))
    assert gravon_square(99) == "K:" and gravon_square(8) == "I1"
    for bad in ("L1", "A0", "A11", "", "B"):
        with pytest.raises(ValueError, match="not a Gravon square"):
            parse_gravon_square(bad)


def test_real_classic_game():
    (rec,) = read_records(DATA / "classic-flag.xml")
    assert (rec.variant, rec.result_type, rec.winner, rec.players) == ("classic", 1, 1, ("Player 1", "Player 2"))
    assert len(rec.moves) == 24 and rec.moves[0] == Move.parse("f4-f5")
    g = replay(rec)
    assert g.outcome().termination == Termination.FLAG_CAPTURED and g.outcome().winner == 1
    assert g.move_stack == list(rec.moves)


def test_j_is_the_tenth_file():
    (rec,) = read_records(DATA / "j-file.xml")
    assert rec.moves[2] == Move.parse("j4-j6") and rec.result_type is None
    assert replay(rec).piece_at("j6").name == "Scout"


def test_broken_records_name_file_and_move():
    (rec,) = read_records(DATA / "broken-move.xml")
    with pytest.raises(RecordError, match=r"broken-move.xml: move 3: Red: a1-a2 is illegal: no piece on a1") as e:
        replay(rec)
    assert e.value.move == 3 and e.value.file.endswith("broken-move.xml")
    (rec,) = read_records(DATA / "after-end.xml")
    with pytest.raises(RecordError, match="move 3: .*already over"):
        replay(rec)
    (rec,) = read_records(DATA / "bad-setup.xml")
    with pytest.raises(RecordError, match=r"bad-setup.xml: Red setup has the wrong pieces for barrage: Bomb 2"):
        replay(rec)
    with pytest.raises(RecordError, match="Red has pieces outside its zone: a5"):
        replay(dataclasses.replace(rec, field=rec.field[:20] + "A" + rec.field[21:40] + "B" + rec.field[41:]))
    with pytest.raises(RecordError, match="truncated.xml: not well-formed XML"):
        list(read_records(DATA / "truncated.xml"))
    (rec,) = read_records(DATA / "after-end.xml")
    bad_square = format_xml(rec).replace('<move id="2" source="F7"', '<move id="2" source="L7"')
    with pytest.raises(RecordError, match="x.xml: move 2: 'L7' is not a Gravon square"):
        parse_records(bad_square, "x.xml")


def test_unsupported_types_are_read_but_not_replayed():
    (rec,) = read_records(DATA / "ultimate.xml")
    assert rec.variant == "ultimate lightning"
    with pytest.raises(UnsupportedVariantError, match="'ultimate lightning' is not supported"):
        replay(rec)


def test_folders_and_zips(tmp_path):
    errors = []
    folder = list(read_records(DATA, on_error=errors.append))
    assert len(folder) == 8 and [e.file for e in errors] == [str(DATA / "truncated.xml")]
    archive = tmp_path / "month.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for name in ("classic-flag.xml", "barrage-flag.xml"):
            z.write(DATA / name, f"inner/{name}")
    zipped = list(read_records(archive))
    assert [r.source for r in zipped] == [f"{archive}:inner/barrage-flag.xml", f"{archive}:inner/classic-flag.xml"]
    assert [r.moves for r in zipped] == [next(read_records(DATA / n)).moves for n in ("barrage-flag.xml",
                                                                                        "classic-flag.xml")]
    with pytest.raises(FileNotFoundError):
        list(read_records(tmp_path / "nothing.xml"))


def test_real_records_write_back_identically(tmp_path):
    for name in ("classic-flag.xml", "barrage-flag.xml", "classic-unable.xml"):
        (rec,) = read_records(DATA / name)
        write_xml(rec, tmp_path / name)
        (again,) = read_records(tmp_path / name)
        assert dataclasses.replace(again, source=rec.source) == rec


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([CLASSIC, BARRAGE]), st.integers(0, 2**31), st.integers(0, 600), st.booleans())
def test_export_then_import_reproduces_any_game(variant, seed, moves, resign):
    g = random_game(variant, seed, moves)
    if resign and not g.is_over():
        g.resign(g.turn)
    rec = record_from_game(g, players=("Ann <a&b>", 'Bo "B"'))
    (back,) = parse_records(format_xml(rec))
    assert back == rec
    again = replay(back, variant=g.variant)
    resigned = g.outcome() is not None and g.outcome().termination == Termination.RESIGNATION
    # A resignation is not a move: the record keeps it as its result, the replayed game goes on.
    assert position_string(again).split()[:9] == position_string(g).split()[:9]
    assert (position_string(again) == position_string(g)) != resigned
    assert again.move_stack == g.move_stack
    # Replayed with Gravon's relaxed rules the moves are all still legal and the board is the same.
    relaxed = replay(back)
    assert position_string(relaxed).split()[1:3] == position_string(g).split()[1:3]
    if g.is_over():
        assert rec.winner == g.outcome().winner and rec.result_type is not None


def test_record_from_game_results():
    g = random_game(BARRAGE, 11, 5000)
    assert record_from_game(g).result_type == int({Termination.FLAG_CAPTURED: ResultType.FLAG_CAPTURED,
                                                   Termination.NO_MOVES: ResultType.UNABLE_TO_MOVE,
                                                   Termination.BOTH_STUCK: ResultType.BOTH_UNABLE_TO_MOVE,
                                                   Termination.MOVE_LIMIT: ResultType.TIE_AGREED,
                                                   Termination.NO_ATTACK_LIMIT: ResultType.TIE_AGREED,
                                                   }[g.outcome().termination])
    ongoing = record_from_game(Game(CLASSIC, seed=1))
    assert ongoing.result_type is None and ongoing.winner is None and "<result" not in format_xml(ongoing)
    from deepnash.notation import game_from_position

    with pytest.raises(ValueError, match="not played from its setups"):
        record_from_game(game_from_position(position_string(random_game(CLASSIC, 1, 5))))


def test_record_variant_rules():
    rec = GravonRecord("Classic", "", ())
    v = record_variant(rec)
    assert (v.two_squares, v.more_squares, v.max_moves, v.max_moves_without_attack) == (False, False, 0, 0)
    v = record_variant(rec, "gravon")
    assert (v.two_squares, v.two_squares_limit, v.more_squares) == (True, 5, True)
    with pytest.raises(ValueError, match="unknown repetition rules"):
        record_variant(rec, "fide")
