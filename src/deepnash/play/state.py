"""The JSON the web client gets about its game, computed from the person's ``PlayerView`` only."""

from __future__ import annotations

from ..game.pieces import PLAYER_NAMES
from ..infostate.view import UNKNOWN
from .match import HumanMatch, describe_move, describe_outcome


def public_state(match: HumanMatch) -> dict:
    """Everything the person may know, as a JSON-ready dict.

    Keys: ``you`` (0 Red, 1 Blue), ``variant``, ``ply``, ``turn``, ``over``,
    ``result`` (text, ``""`` while playing), ``board`` (100 cells indexed by
    square ``row*10+col``, each ``{"owner": -1 empty | 0 | 1 | 2 lake, "type":
    0..11 or null when hidden, "revealed": bool, "moved": bool}``), ``legal``
    (``[from, to]`` pairs, empty unless it is the person's move), ``last``
    (``{"from", "to", "text"}`` or null), ``history`` (move texts with battle
    results) and ``lost`` (``[Red's, Blue's]`` piece counts per type).
    """
    view = match.view()
    board = []
    for sq in range(100):
        t = int(view.types[sq])
        board.append({
            "owner": int(view.owner[sq]),
            "type": None if t in (UNKNOWN, -1) else t,
            "revealed": bool(view.revealed[sq]),
            "moved": bool(view.moved[sq]),
        })
    last = match.last
    return {
        "you": match.human,
        "you_name": PLAYER_NAMES[match.human],
        "opponent": match.opponent.name,
        "variant": match.variant.name,
        "ply": view.ply,
        "turn": match.turn,
        "over": match.is_over(),
        "result": describe_outcome(match),
        "board": board,
        "legal": [[m.from_sq, m.to_sq] for m in view.legal_moves],
        "last": None if last is None else {
            "from": last.move.from_sq, "to": last.move.to_sq, "text": describe_move(last)},
        "history": [describe_move(r) for r in match.history],
        "lost": [list(c) for c in match.captured()],
    }
