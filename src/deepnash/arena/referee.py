"""One refereed game: our engine judges, and a failing agent loses instead of stopping the match.

A failing agent is one that raises ``AgentFailure`` (an external program that
crashed, timed out, answered nonsense or surrendered), returns a setup the
variant does not allow, or returns an illegal move.  It loses the game and
the result carries the UCC 2012 manager's result code and the reason.  Any
other exception an agent raises is a bug in this process, not a forfeit: it
stops the game as ``AgentCrashed``, which names the agent, the ply and the game
(the arena plays its other games, then raises it; ``arena.match``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..agents.base import Agent
from ..agents.failure import AgentFailure
from ..game import Game, IllegalMoveError, InvalidSetupError, Termination, Variant
from ..game.state import deployment, deployment_types
from ..infostate.view import MoveRecord, PlayerView, push_recorded
from ..notation.gravon import GravonRecord, ResultType, record_from_game


class AgentCrashed(RuntimeError):
    """An agent raised an exception other than ``AgentFailure``; the message names the agent, its colour,
    the ply and the game's seed, and the original exception is the cause."""


def _crashed(name: str, player: int, ply: int, seed: int, error: Exception) -> AgentCrashed:
    return AgentCrashed(f"{name} ({'Red' if player == 0 else 'Blue'}) raised {type(error).__name__} at ply {ply} "
                        f"of the game of seed {seed}: {error}")


@dataclass(frozen=True)
class GameResult:
    """How one arena game ended.

    Attributes:
        players: the two agents' names, Red first.
        winner: 0 Red, 1 Blue, ``None`` for a draw.
        termination: ``Termination`` name in lower case, or ``"forfeit"`` when an agent failed.
        plies: moves played (both players).
        codes: the UCC manager's result for each side, Red first: ``VICTORY``,
            ``DEFEAT``, ``DRAW``, ``DRAW_DEFAULT`` (a move limit), or the
            failing side's ``AgentFailure`` code (``ILLEGAL``, ``TIMEOUT``, ...).
        reason: why the failing side lost, ``None`` otherwise.
        record: the game as a Gravon record (``None`` when a setup was refused).
        seconds: each side's thinking time, Red first: wall-clock seconds in its setup and moves.
        heuristics: each side's ``heuristic_counts``, Red first, where the agent keeps them (a searching network
            agent): ``searched`` moves, and how many of them each of its search's heuristics changed.
    """

    players: tuple[str, str]
    winner: int | None
    termination: str
    plies: int
    codes: tuple[str, str]
    reason: str | None = None
    record: GravonRecord | None = None
    seconds: tuple[float, float] = (0.0, 0.0)
    heuristics: tuple[dict[str, int], dict[str, int]] = ({}, {})

    def to_dict(self) -> dict:
        """Every attribute but ``record``, as JSON values (``from_dict`` reads it back)."""
        return {"players": list(self.players), "winner": self.winner, "termination": self.termination,
                "plies": self.plies, "codes": list(self.codes), "reason": self.reason, "seconds": list(self.seconds),
                "heuristics": [dict(h) for h in self.heuristics]}

    @classmethod
    def from_dict(cls, d: dict) -> "GameResult":
        """The result ``to_dict`` wrote, without its record.

        Raises:
            KeyError, TypeError, ValueError: ``d`` is not such a result.
        """
        winner = d["winner"]
        if winner not in (0, 1, None):
            raise ValueError(f"winner must be 0, 1 or null, got {winner!r}")
        players, codes, seconds = (tuple(d[k]) for k in ("players", "codes", "seconds"))
        if not len(players) == len(codes) == len(seconds) == 2:
            raise ValueError("players, codes and seconds need two entries each, Red first")
        heuristics = d.get("heuristics", [{}, {}])  # results written before the counts have none
        if len(heuristics) != 2:
            raise ValueError("heuristics needs two entries, Red first")
        return cls((str(players[0]), str(players[1])), winner, str(d["termination"]), int(d["plies"]),
                   (str(codes[0]), str(codes[1])), None if d["reason"] is None else str(d["reason"]), None,
                   (float(seconds[0]), float(seconds[1])),
                   tuple({str(k): int(v) for k, v in h.items()} for h in heuristics))


def _codes(winner: int | None, termination: Termination | None) -> tuple[str, str]:
    if winner is None:
        draw = "DRAW_DEFAULT" if termination in (Termination.MOVE_LIMIT, Termination.NO_ATTACK_LIMIT) else "DRAW"
        return (draw, draw)
    return ("VICTORY", "DEFEAT") if winner == 0 else ("DEFEAT", "VICTORY")


def _setup(agent: Agent, variant: Variant, player: int) -> np.ndarray:
    try:
        placed = np.asarray(agent.choose_setup(), dtype=np.int8)
        if placed.shape != (100,):
            raise InvalidSetupError(f"a setup is int8[100], got shape {placed.shape}")
        deployment(variant, player, deployment_types(variant, player, placed))
        if np.any(placed[[sq for sq in range(100) if sq not in variant.deploy_squares(player)]] >= 0):
            raise InvalidSetupError("pieces outside the deployment zone")
    except InvalidSetupError as e:
        raise AgentFailure("BAD_SETUP", str(e)) from None
    return placed


def referee_game(red: Agent, blue: Agent, variant: Variant, seed: int) -> GameResult:
    """Play one game between ``red`` and ``blue`` under ``variant`` and judge it.

    Agents are reset with seeds ``2*seed`` (Red) and ``2*seed+1`` (Blue), as in
    ``agents.play_game``, so a game reproduces from its seed.  Every agent is
    told the outcome (``game_over``) even when the other one failed, and an
    agent with a ``close()`` method (an external program) has it called after
    the game.
    """
    agents = (red, blue)
    names = (red.name, blue.name)
    history: list[MoveRecord] = []
    game: Game | None = None
    failure: tuple[int, AgentFailure] | None = None
    seconds = [0.0, 0.0]
    try:
        setups = []
        for p, a in enumerate(agents):
            try:
                a.reset(variant, p, seed * 2 + p)
                start = time.perf_counter()
                setups.append(_setup(a, variant, p))
                seconds[p] += time.perf_counter() - start
            except AgentFailure as e:
                failure = (p, e)
                break
            except Exception as e:
                raise _crashed(names[p], p, 0, seed, e) from e
        if failure is None:
            game = Game(variant, setups[0], setups[1])
            while not game.is_over():
                p = game.turn
                try:
                    view = PlayerView.of(game, p, tuple(history))
                    start = time.perf_counter()
                    move = agents[p].act(view)
                    seconds[p] += time.perf_counter() - start
                    history.append(push_recorded(game, move))
                except AgentFailure as e:
                    failure = (p, e)
                except IllegalMoveError as e:
                    failure = (p, AgentFailure("ILLEGAL", str(e)))
                except Exception as e:
                    raise _crashed(names[p], p, game.ply, seed, e) from e
                if failure is not None:
                    game.resign(p)
    finally:
        _tell_outcome(agents, game, tuple(history))
        for a in agents:
            close = getattr(a, "close", None)  # agents holding a process or file release it here
            if close is not None:
                close()
    counts = tuple(dict(getattr(a, "heuristic_counts", {})) for a in agents)
    if failure is not None:
        p, e = failure
        codes = ["VICTORY", "VICTORY"]
        codes[p] = e.code
        record = None if game is None else record_from_game(game, players=names, result_type=int(ResultType.FORFEIT))
        return GameResult(names, 1 - p, "forfeit", 0 if game is None else game.ply, tuple(codes),
                          f"{names[p]} ({'Red' if p == 0 else 'Blue'}): {e.reason}", record, tuple(seconds), counts)
    out = game.outcome()
    return GameResult(names, out.winner, out.termination.name.lower(), game.ply,
                      _codes(out.winner, out.termination), None, record_from_game(game, players=names), tuple(seconds),
                      counts)


def _tell_outcome(agents: tuple[Agent, Agent], game: Game | None, history: tuple[MoveRecord, ...]) -> None:
    if game is None or not game.is_over():
        return
    for p, a in enumerate(agents):
        a.game_over(game.outcome(), PlayerView.of(game, p, history))
