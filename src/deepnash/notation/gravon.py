"""Gravon XML game records: read (files, folders, gravon.de's monthly ``.zip`` archives) and write.

``notation.replay`` plays them through the engine (``replay`` is re-exported here).

A record, as gravon.de stores it (``docs/rules.md``, "Record formats")::

    <stratego>
     <game type="classic">
      <field content="...100 letters (notation.field)..."/>
      <move id="1" source="B4" target="B5"/>
      ...
      <player id="1">Player 1</player>
      <player id="2">Player 2</player>
      <result type="1" winner="2"/>
     </game>
    </stratego>

Squares are a file letter ``A B C D E F G H I K`` (no ``J``; some old files use
``J`` for the tenth file, which is read the same as ``K``) and a rank ``1``..``9``
or ``:`` (the character after ``9``) for rank 10; ``10`` is read too.  Player
1 is Red, player 2 Blue, winner 3 means nobody won.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from xml.etree import ElementTree
from xml.sax.saxutils import escape, quoteattr

from ..game.errors import RecordError
from ..game.game import Move
from .field import parse_field
from .record import GravonRecord, ResultType, record_from_game
from .replay import REPETITION_RULES, UnsupportedVariantError, record_variant, replay

__all__ = [
    "REPETITION_RULES", "GravonRecord", "ResultType", "UnsupportedVariantError", "format_xml", "gravon_square",
    "parse_gravon_square", "parse_records", "read_records", "record_from_game", "record_variant", "replay", "write_xml",
]

GRAVON_FILES = "ABCDEFGHIK"
#: ``J`` in old files names the tenth file.
FILE_ALIASES = {"J": 9}


# -- reading -------------------------------------------------------------------------
def _square_table() -> dict[str, int]:
    table = {}
    for col, letter in [*enumerate(GRAVON_FILES), *((c, a) for a, c in FILE_ALIASES.items())]:
        for row in range(10):
            for rank in {str(row + 1), chr(ord("1") + row)}:
                table[letter + rank] = table[letter.lower() + rank] = row * 10 + col
    return table


_SQUARE_OF = _square_table()


def parse_gravon_square(text: str) -> int:
    """A Gravon square (``"B4"``, ``"K:"``, ``"J10"``) to its index ``row*10+col``.

    Raises:
        ValueError: if ``text`` is not a Gravon square.
    """
    sq = _SQUARE_OF.get(text)
    if sq is None:
        raise ValueError(_not_a_square(text))
    return sq


def _not_a_square(text: str) -> str:
    return f"{text!r} is not a Gravon square (files {GRAVON_FILES}, ranks 1..9 and ':')"


def gravon_square(sq: int) -> str:
    """Index ``row*10+col`` to Gravon's name: ``gravon_square(99) == "K:"``."""
    return GRAVON_FILES[sq % 10] + chr(ord("1") + sq // 10)


def parse_records(text: str | bytes, source: str = "") -> list[GravonRecord]:
    """Every game in one XML document.

    Raises:
        RecordError: malformed XML, a missing or bad field, a bad square (the
            message names ``source`` and the move number).
    """
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as e:
        raise RecordError(f"not well-formed XML ({e})", file=source) from None
    games = [root] if root.tag == "game" else root.findall("game")
    if not games:
        raise RecordError("no <game> element", file=source)
    return [_parse_game(el, source, i) for i, el in enumerate(games, start=1)]


def _parse_game(el: ElementTree.Element, source: str, index: int) -> GravonRecord:
    where = f"{source} game {index}" if index > 1 else source
    field_el = el.find("field")
    content = None if field_el is None else field_el.get("content")
    if content is None:
        raise RecordError("no <field content=...>", file=where)
    try:
        parse_field(content)
    except ValueError as e:
        raise RecordError(f"bad field: {e}", file=where) from None
    moves = []
    for n, m in enumerate(el.findall("move"), start=1):
        frm, to = m.get("source", ""), m.get("target", "")
        if frm not in _SQUARE_OF or to not in _SQUARE_OF:
            raise RecordError(_not_a_square(frm if frm not in _SQUARE_OF else to), file=where, move=n)
        moves.append(Move(_SQUARE_OF[frm], _SQUARE_OF[to]))
    players = {p.get("id"): (p.text or "").strip() for p in el.findall("player")}
    result = el.find("result")
    rtype = winner = None
    if result is not None:
        try:
            rtype = int(result.get("type", ""))
            winner = {1: 0, 2: 1}.get(int(result.get("winner", "3")))
        except ValueError:
            raise RecordError(f"bad <result> {result.attrib}", file=where) from None
    return GravonRecord(
        variant=el.get("type", "classic"), field=content, moves=tuple(moves), result_type=rtype, winner=winner,
        players=(players.get("1", "Red"), players.get("2", "Blue")), source=source, game=index,
    )


def read_records(
    paths: str | Path | Iterable[str | Path], on_error: Callable[[RecordError], None] | None = None
) -> Iterator[GravonRecord]:
    """Every record in ``.xml`` files, ``.zip`` archives of them and folders of either (recursively, sorted).

    Args:
        paths: one path or several.
        on_error: called with the ``RecordError`` of each unreadable file, and
            reading goes on; by default the error is raised.

    Raises:
        RecordError: an unreadable file (when ``on_error`` is not given).
        FileNotFoundError: a path that does not exist.
    """
    for path in [paths] if isinstance(paths, (str, Path)) else paths:
        for source, read in _documents(Path(path)):
            try:
                yield from parse_records(read(), source)
            except RecordError as e:
                if on_error is None:
                    raise
                on_error(e)


def _documents(path: Path) -> Iterator[tuple[str, Callable[[], bytes]]]:
    if path.is_dir():
        for p in sorted(path.rglob("*")):
            if p.suffix.lower() in (".xml", ".zip"):
                yield from _documents(p)
    elif path.suffix.lower() == ".zip":
        with zipfile.ZipFile(path) as z:
            for name in sorted(n for n in z.namelist() if n.lower().endswith(".xml")):
                yield f"{path}:{name}", lambda name=name: z.read(name)
    elif path.exists():
        yield str(path), path.read_bytes
    else:
        raise FileNotFoundError(f"{path}: no such file or folder")


# -- writing ---------------------------------------------------------------------------
def format_xml(record: GravonRecord) -> str:
    """The record as a Gravon XML document (``read_records`` reads it back to an equal record)."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<stratego>", f" <game type={quoteattr(record.variant)}>",
             f'  <field content="{record.field}"/>']
    lines += [
        f'  <move id="{n}" source="{gravon_square(m.from_sq)}" target="{gravon_square(m.to_sq)}"/>'
        for n, m in enumerate(record.moves, start=1)
    ]
    lines += [f'  <player id="{i}">{escape(name)}</player>' for i, name in enumerate(record.players, start=1)]
    if record.result_type is not None:
        winner = 3 if record.winner is None else record.winner + 1
        lines.append(f'  <result type="{record.result_type}" winner="{winner}"/>')
    return "\n".join(lines + [" </game>", "</stratego>", ""])


def write_xml(record: GravonRecord, path: str | Path) -> None:
    """Write ``format_xml(record)`` to ``path`` (UTF-8)."""
    Path(path).write_text(format_xml(record), encoding="utf-8")
