"""Setup strings: a player's deployment as text, e.g. Classic's ``"2S2.../.../.../..."``.

A setup string lists the deployment zone in *setup order* (``state.player_zone``):
the front row first, each row from the player's own left, one character per
square from ``PIECE_CHARS`` (``"FS23456789MB"``: Flag, Spy, Scout, ...,
Marshal ``M``, Bomb ``B``) or ``.`` for an empty square, rows joined by ``/``.
Classic fills its 4 rows of 10; Barrage places 8 pieces and leaves 32 dots.
"""

from __future__ import annotations

from ..game.errors import InvalidSetupError
from ..game.pieces import PIECE_CHARS, PLAYER_NAMES
from ..game.state import deployment, deployment_types
from ..game.variant import Variant, get_variant

EMPTY_CHAR = "."
ROW_SEPARATOR = "/"


def parse_setup(text: str, variant: Variant | str = "classic", player: int = 0) -> list[int]:
    """Parse a setup string into setup-order piece types (``list[int]``, -1 empty).

    The result feeds ``Game.from_setups`` or ``state.deployment``.

    Raises:
        InvalidSetupError: wrong number of rows or squares per row, an unknown
            character (the message names its row and column), or an army that is
            not the variant's.
    """
    v = get_variant(variant)
    who = PLAYER_NAMES[player]
    rows = text.strip().split(ROW_SEPARATOR)
    if len(rows) != v.deploy_rows:
        raise InvalidSetupError(f"{who} setup {text!r} has {len(rows)} rows, {v.name} deploys on {v.deploy_rows}")
    types: list[int] = []
    for r, row in enumerate(rows, start=1):
        if len(row) != 10:
            raise InvalidSetupError(f"{who} setup row {r} ({row!r}) has {len(row)} squares, expected 10")
        for c, ch in enumerate(row, start=1):
            if ch == EMPTY_CHAR:
                types.append(-1)
                continue
            t = PIECE_CHARS.find(ch.upper())
            if t < 0:
                raise InvalidSetupError(
                    f"{who} setup row {r} column {c}: {ch!r} is no piece; use {PIECE_CHARS!r} or {EMPTY_CHAR!r}"
                )
            types.append(t)
    deployment(v, player, types)  # counts, lakes: raises InvalidSetupError naming what is wrong
    return types


def format_setup(types: list[int], variant: Variant | str = "classic", player: int = 0) -> str:
    """Setup-order piece types (-1 empty) to a setup string (inverse of ``parse_setup``).

    Raises:
        InvalidSetupError: the types are not a legal setup for the variant.
    """
    v = get_variant(variant)
    deployment(v, player, types)
    chars = "".join(EMPTY_CHAR if t < 0 else PIECE_CHARS[t] for t in types)
    return ROW_SEPARATOR.join(chars[i : i + 10] for i in range(0, len(chars), 10))


def setup_string(game, player: int) -> str:
    """The setup string ``player`` (0 Red, 1 Blue) started ``game`` (a ``Game``) with."""
    return format_setup(deployment_types(game.variant, player, game.setups[player]), game.variant, player)
