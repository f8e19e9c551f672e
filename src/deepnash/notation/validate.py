"""Replay every game of a set of Gravon records and tally what happened (``deepnash validate-records``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ..game import kernels as K
from ..game.errors import GameOverError, RecordError
from ..game.game import Game, Move, Outcome, Termination
from ..game.pieces import PLAYER_NAMES
from .gravon import read_records
from .position import result_string
from .record import GravonRecord, ResultType
from .replay import UnsupportedVariantError, record_variant, replay

#: Result types that the rules decide, and the termination each one means.
RULE_ENDINGS = {
    ResultType.FLAG_CAPTURED: Termination.FLAG_CAPTURED,
    ResultType.UNABLE_TO_MOVE: Termination.NO_MOVES,
    ResultType.BOTH_UNABLE_TO_MOVE: Termination.BOTH_STUCK,
}


def validate_records(paths: Iterable[str | Path], rules: str = "none") -> dict:
    """Read and replay every record under ``paths`` (files, folders, zips); never raises for a bad record.

    A record *ended as recorded* when its result type is one the rules decide
    (flag captured, unable to move, both unable to move) and the engine ends
    the game the same way with the same winner, or when its result type is
    one the rules do not decide (forfeit, agreed tie, missing player or clock)
    and the engine's game goes on (``*``).  Gravon declares "unable to move" as soon
    as a player's last movable piece falls, one move before the engine would
    (a player loses when it is to move and cannot): such records count as
    ended as recorded, and are counted in ``declared_early``.  In a few of
    these the loser's only moves left are the ones the ISF two-squares rule
    (three back-and-forth moves) forbids, though the record was played under
    looser rules: they too count as ended as recorded, in
    ``declared_early_two_squares``.  A record that says "unable to move"
    while the loser still has a legal move under every repetition rule set
    is wrong about its ending; it is listed in ``declared_with_moves_left``
    (with those moves) and not counted as ended as recorded.

    Returns:
        A JSON-ready dict: ``games_read``, ``replayed`` (every move legal),
        ``ended_as_recorded``, ``declared_early``, ``declared_early_two_squares``,
        ``declared_with_moves_left`` (``{file, game, moves, loser, legal}``), ``failed`` (a list of
        ``{file, game, move, kind, reason}``; ``kind`` is ``unreadable``,
        ``bad_setup``, ``illegal_move`` or ``move_after_end``; ``move`` is
        1-based or ``None``), ``end_mismatches`` (``{file, game, moves,
        expected, got}``), ``by_variant`` (game type to ``{games_read,
        replayed, ended_as_recorded, supported}``, and ``why`` for an unsupported one), ``rules``.

    Raises:
        ValueError: an unknown ``rules`` name (see ``replay.REPETITION_RULES``).
        FileNotFoundError: a path that does not exist.
    """
    failed: list[dict] = []
    mismatches: list[dict] = []
    by_variant: dict[str, dict] = {}
    early = early_two_squares = 0
    moves_left: list[dict] = []

    def unreadable(e: RecordError) -> None:
        failed.append({"file": e.file, "game": None, "move": e.move, "kind": "unreadable", "reason": e.reason})

    for record in read_records(paths, on_error=unreadable):
        tally = by_variant.setdefault(
            record.variant, {"games_read": 0, "replayed": 0, "ended_as_recorded": 0, "supported": True}
        )
        tally["games_read"] += 1
        try:
            game = replay(record, variant=record_variant(record, rules))
        except UnsupportedVariantError as e:
            tally["supported"] = False
            tally["why"] = e.reason.split(": ", 1)[-1]
            continue
        except RecordError as e:
            failed.append({"file": record.source, "game": record.game, "move": e.move, "kind": _kind(e),
                           "reason": e.reason})
            continue
        tally["replayed"] += 1
        got = result_string(game.outcome())
        if got == _expected(record) or _declared_early(record, game):
            tally["ended_as_recorded"] += 1
            early += got != _expected(record)
        elif _declared_early(record, _replay_isf(record)):
            tally["ended_as_recorded"] += 1
            early_two_squares += 1
        elif record.result_type == ResultType.UNABLE_TO_MOVE and record.winner is not None and not game.is_over():
            loser = 1 - record.winner
            buf = np.empty((K.MAX_MOVES, 2), dtype=np.int16)
            n = K.legal_moves(*game.state.arrays, 0, loser, buf)
            legal = [str(Move(int(f), int(t))) for f, t in buf[:n]]
            moves_left.append({"file": record.source, "game": record.game, "moves": len(record.moves),
                               "loser": PLAYER_NAMES[loser], "legal": legal})
        else:
            mismatches.append({"file": record.source, "game": record.game, "moves": len(record.moves),
                               "expected": _expected(record), "got": got})
    tallies = by_variant.values()
    return {
        "games_read": sum(t["games_read"] for t in tallies),
        "replayed": sum(t["replayed"] for t in tallies),
        "ended_as_recorded": sum(t["ended_as_recorded"] for t in tallies),
        "declared_early": early,
        "declared_early_two_squares": early_two_squares,
        "declared_with_moves_left": moves_left,
        "failed": failed,
        "end_mismatches": mismatches,
        "by_variant": dict(sorted(by_variant.items())),
        "rules": rules,
    }


def _kind(e: RecordError) -> str:
    if e.move is None:
        return "bad_setup"
    return "move_after_end" if isinstance(e.__cause__, GameOverError) else "illegal_move"


def _expected(record: GravonRecord) -> str:
    """The ending the record states, as a ``result_string``: ``*`` for one the rules do not decide."""
    if record.result_type not in RULE_ENDINGS:
        return result_string(None)
    return result_string(Outcome(RULE_ENDINGS[ResultType(record.result_type)], record.winner))


def _replay_isf(record: GravonRecord) -> Game | None:
    """The record replayed under the ISF repetition rules, or ``None`` when it breaks them."""
    try:
        return replay(record, variant=record_variant(record, "isf"))
    except RecordError:
        return None


def _declared_early(record: GravonRecord, game: Game | None) -> bool:
    """The record says the loser was unable to move, and it is: it has just moved and has no legal move left."""
    if game is None or record.result_type != ResultType.UNABLE_TO_MOVE or record.winner is None or game.is_over():
        return False
    loser = 1 - record.winner
    return game.turn != loser and not K.has_legal_move(*game.state.arrays, 0, loser)


def format_report(result: dict) -> str:
    """``validate_records``'s result as text: a line per game type, then each failure and mismatch."""
    lines = [f"{'game type':<20} {'read':>6} {'replayed':>9} {'ended as recorded':>18}"]
    for name, t in result["by_variant"].items():
        if t["supported"]:
            lines.append(f"{name:<20} {t['games_read']:>6} {t['replayed']:>9} {t['ended_as_recorded']:>18}")
        else:
            lines.append(f"{name:<20} {t['games_read']:>6}   skipped: {t['why']}")
    lines.append(f"{'all':<20} {result['games_read']:>6} {result['replayed']:>9} {result['ended_as_recorded']:>18}")
    if result["declared_early"]:
        lines.append(f"({result['declared_early']} 'unable to move' games were declared by Gravon as the loser's "
                     "last movable piece fell, one move before the rules end them)")
    if result["declared_early_two_squares"]:
        lines.append(f"({result['declared_early_two_squares']} more were declared as the loser's last moves "
                     "left were ones the ISF two-squares rule forbids)")
    for m in result["declared_with_moves_left"]:
        lines.append(f"DECLARED WITH MOVES LEFT {m['file']} after {m['moves']} moves: the record says {m['loser']} "
                     f"was unable to move, but it has {', '.join(m['legal'])}")
    for f in result["failed"]:
        where = f["file"] + (f" game {f['game']}" if f["game"] and f["game"] > 1 else "")
        move = f" move {f['move']}" if f["move"] else ""
        lines.append(f"FAILED {where}{move} [{f['kind']}]: {f['reason']}")
    for m in result["end_mismatches"]:
        lines.append(f"END MISMATCH {m['file']} after {m['moves']} moves: record says {m['expected']}, "
                     f"engine says {m['got']}")
    return "\n".join(lines)
