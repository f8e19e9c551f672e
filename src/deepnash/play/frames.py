"""A recorded game as frames to step through: the whole board after every move.

A record is public once its game is over, so frames show every piece of both
sides.  ``deepnash replay`` (``play.viewer``) and the browser's replay mode
(``POST /api/replay``) are front ends over ``record_frames``; the records are
read by ``notation.gravon`` and checked move by move by ``notation.replay``.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..game import kernels as K
from ..game.errors import RecordError
from ..game.game import BattleResult, Game
from ..game.pieces import PLAYER_NAMES
from ..infostate.view import MoveRecord, losses, push_recorded
from ..notation.field import format_field
from ..notation.gravon import GravonRecord, ResultType, parse_records, replay
from .match import describe_move

#: The largest record the browser may upload (bytes); Gravon games are a few tens of KiB.
MAX_RECORD_BYTES = 1 << 20


@dataclass(frozen=True)
class Frames:
    """A record played through the engine, one frame per ply.

    Attributes:
        record: the game.
        boards: ``int8[N+1, 100]`` board codes (``game.codes``),
            ``boards[0]`` the start position and ``boards[i]`` the position after move ``i``.
        revealed: ``bool[N+1, 100]``: the piece on the square is known to its opponent.
        moves: ``N`` records; ``moves[i-1]`` is move ``i`` with the types its battle revealed.
    """

    record: GravonRecord
    boards: np.ndarray
    revealed: np.ndarray
    moves: tuple[MoveRecord, ...]

    def __len__(self) -> int:
        """Frames: moves + 1."""
        return len(self.boards)

    def lost(self, ply: int) -> tuple[list[int], list[int]]:
        """Pieces taken off the board by move ``ply``, as type counts ``(Red's, Blue's)`` (12 ints each)."""
        red, blue = losses(self.moves[:ply]).tolist()
        return red, blue

    def as_json(self) -> dict:
        """The frames for the browser (``POST /api/replay``).

        Keys: ``source``, ``variant``, ``players`` (Red's name, Blue's), ``result`` (``result_text``),
        and ``frames``: ``N+1`` objects ``{"field": the 100-letter Gravon field of the board
        (``notation.field``), "revealed": squares whose piece its opponent knows, "move": null for the
        start, else {"from", "to", "player", "text", "attacker", "defender", "battle"}}``, where
        ``attacker``/``defender`` are the types a battle revealed (null without one) and ``battle`` is
        ``attacker won``, ``defender won``, ``both removed``, ``flag captured`` or null.
        """
        frames = []
        for i in range(len(self)):
            move = None
            if i:
                r = self.moves[i - 1]
                battle = r.defender >= 0
                move = {"from": r.move.from_sq, "to": r.move.to_sq, "player": r.player, "text": describe_move(r),
                        "attacker": r.attacker if battle else None, "defender": r.defender if battle else None,
                        "battle": BattleResult(r.result).name.lower().replace("_", " ") if battle else None}
            frames.append({"field": format_field(self.boards[i]),
                           "revealed": [int(sq) for sq in np.flatnonzero(self.revealed[i])], "move": move})
        rec = self.record
        return {"source": rec.source, "variant": rec.variant, "players": list(rec.players),
                "result": result_text(rec), "frames": frames}


def record_frames(record: GravonRecord) -> Frames:
    """Play ``record`` through the engine (``notation.replay``, no repetition rule) and keep every position.

    Raises:
        RecordError: an unsupported game type, a setup that is not the variant's, or an illegal
            move; the message names the record and the move number.
    """
    game = replay(record)  # checks the whole record first, with its errors
    game = Game(game.variant, *game.setups)
    boards = np.empty((len(record.moves) + 1, 100), dtype=np.int8)
    revealed = np.empty((len(record.moves) + 1, 100), dtype=bool)
    moves = []
    for i in range(len(record.moves) + 1):
        boards[i] = game.state.board[0]
        revealed[i] = (game.state.flags[0] & K.REVEALED) != 0
        if i < len(record.moves):
            moves.append(push_recorded(game, record.moves[i]))
    return Frames(record, boards, revealed, tuple(moves))


def result_text(record: GravonRecord) -> str:
    """The record's own result: ``"Blue won (flag captured)"``, ``"draw (tie agreed)"``, ``"no result recorded"``."""
    if record.result_type is None:
        return "no result recorded"
    try:
        how = ResultType(record.result_type).name.lower().replace("_", " ")
    except ValueError:
        how = f"result code {record.result_type}"
    if record.winner is None:
        return f"draw ({how})"
    return f"{PLAYER_NAMES[record.winner]} won ({how})"


def load_record(path: str | Path, game: str | None = None) -> GravonRecord:
    """One record from a Gravon ``.xml`` file or a ``.zip`` archive of them.

    Args:
        path: the file.
        game: which game: in a ``.zip``, a member's name (``classic-2014.0-5.xml``, ``.xml`` optional)
            or its 1-based index among the archive's XML files in name order; in an ``.xml`` holding
            several games, a 1-based index.  ``None``: the first game of an ``.xml``; required for a ``.zip``.

    Raises:
        FileNotFoundError: no such file.
        RecordError: a damaged archive, no such game, malformed XML (naming the record).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    if path.suffix.lower() != ".zip":
        records = parse_records(path.read_bytes(), str(path))
        return records[_index(game, len(records), str(path), "games") if game is not None else 0]
    try:
        with zipfile.ZipFile(path) as z:
            names = sorted(n for n in z.namelist() if n.lower().endswith(".xml"))
            if game is None:
                raise RecordError(f"the archive holds {len(names)} games; pick one with --game NAME or INDEX"
                                  + (f", e.g. --game {names[0]}" if names else ""), file=str(path))
            if game in names or f"{game}.xml" in names:
                name = game if game in names else f"{game}.xml"
            else:
                name = names[_index(game, len(names), str(path), "XML files")]
            return parse_records(z.read(name), f"{path}:{name}")[0]
    except zipfile.BadZipFile as e:
        raise RecordError(f"not a readable zip archive ({e})", file=str(path)) from None


def _index(game: str, count: int, source: str, what: str) -> int:
    if not game.isdigit() or not 1 <= int(game) <= count:
        raise RecordError(f"no game {game!r}: it holds {count} {what} (give a name or an index 1..{count})",
                          file=source)
    return int(game) - 1
