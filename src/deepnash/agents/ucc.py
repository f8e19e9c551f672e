"""The UCC 2012 protocol both ways (``docs/ucc.md``; the line codec is ``notation.ucc``).

* ``UCCAgent``: an external program speaking the protocol, as an ``Agent``:
  our engine referees (``arena.referee``), the program only plays.  A reply
  later than ``timeout`` seconds, a program that exits, an unreadable reply
  or a surrender raise ``AgentFailure`` (the referee scores a loss and records
  why); an illegal move is caught by the referee.
* ``serve_ucc``: any of our agents as a protocol-speaking program on
  stdin/stdout (``deepnash ucc-bot --agent SPEC``).  It rebuilds the public
  state of the game from the referee's announcements, so the agent gets the
  same ``PlayerView`` it would get from our own referee.
"""

from __future__ import annotations

import os
import queue
import shlex
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import IO

import numpy as np

from ..game import Move, Outcome, Termination, Variant
from ..game import kernels as K
from ..game.pieces import SCOUT
from ..infostate.determinize import position
from ..infostate.view import UNKNOWN, MoveRecord, PlayerView
from ..notation.ucc import (
    UCCProtocolError,
    MoveLine,
    format_board,
    format_move,
    format_move_line,
    format_setup,
    is_board_line,
    parse_move,
    parse_move_line,
    parse_setup,
)
from .base import Agent
from .failure import AgentFailure
from .registry import register_agent

_OUTCOME_OF_RESULT = {
    K.RESULT_MOVE: "OK", K.RESULT_ATTACKER_WON: "KILLS", K.RESULT_DEFENDER_WON: "DIES",
    K.RESULT_BOTH_REMOVED: "BOTHDIE", K.RESULT_FLAG_CAPTURED: "VICTORY_FLAG",
}
_RESULT_OF_OUTCOME = {v: k for k, v in _OUTCOME_OF_RESULT.items()}
COLOURS = ("RED", "BLUE")


def announce(record: MoveRecord, last: Outcome | None = None) -> str:
    """The referee's line for a played move; ``last`` is the outcome when this move ended the game."""
    outcome = _OUTCOME_OF_RESULT[record.result]
    if last is not None and last.termination == Termination.NO_MOVES and outcome != "VICTORY_FLAG":
        outcome = "VICTORY_ATTRITION"
    return format_move_line(MoveLine(record.move, outcome, record.attacker, record.defender))


class UCCAgent:
    """An external program speaking the UCC 2012 protocol, played as an ``Agent``.

    Args:
        command: the program (a path, or a command line split with ``shlex``), started once per game.
        timeout: seconds allowed per move reply (the competition used 2).
        setup_timeout: seconds allowed for starting up and sending the setup.
    """

    name = "ucc"

    def __init__(self, command: str, timeout: float = 2.0, setup_timeout: float = 30.0):
        self.command = shlex.split(command)
        self.timeout = timeout
        self.setup_timeout = setup_timeout
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._stderr: list[str] = []
        self._player = 0
        self._variant: Variant | None = None
        self._sent = 0  # history records already announced

    # -- process plumbing ------------------------------------------------------------
    def _start(self) -> None:
        self.close()
        try:
            # its own session, so that ``close`` stops whatever the program started too (a child that
            # keeps the pipes open would otherwise block reading them)
            self._proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True, bufsize=1, start_new_session=True)
        except OSError as e:
            raise AgentFailure("CRASH", f"cannot start {self.command[0]!r}: {e}") from None
        self._lines = queue.Queue()
        self._stderr = []
        threading.Thread(target=_pump, args=(self._proc.stdout, self._lines.put), daemon=True).start()
        threading.Thread(target=_pump, args=(self._proc.stderr, self._keep_stderr), daemon=True).start()

    def _keep_stderr(self, line: str | None) -> None:
        if line is not None:
            self._stderr = (self._stderr + [line.rstrip()])[-5:]

    def _send(self, *lines: str) -> None:
        try:
            self._proc.stdin.write("".join(f"{s}\n" for s in lines))
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise AgentFailure("CRASH", self._died()) from None

    def _read(self, timeout: float, what: str) -> str:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AgentFailure("TIMEOUT", f"no {what} within {timeout:g} s") from None
        if line is None:
            raise AgentFailure("CRASH", self._died())
        return line.strip()

    def _died(self) -> str:
        tail = f"; stderr: {' | '.join(self._stderr)}" if self._stderr else ""
        try:
            code = self._proc.wait(timeout=2) if self._proc else None
        except subprocess.TimeoutExpired:
            return f"the program closed its pipes but did not exit{tail}"
        return f"the program exited (code {code}){tail}"

    def close(self) -> None:
        """Stop the program if it still runs."""
        if self._proc is not None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)  # the program and anything it started
            except (ProcessLookupError, PermissionError):
                pass
            self._proc.wait()
            for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
                try:
                    stream.close()
                except (OSError, ValueError):  # a pipe the program closed: nothing left to flush into
                    pass
            self._proc = None

    # -- the Agent protocol ------------------------------------------------------------
    def reset(self, variant: Variant, player: int, seed: int | None = None) -> None:
        self._variant = variant
        self._player = player
        self._sent = 0
        self._start()

    def choose_setup(self) -> np.ndarray:
        self._send(f"{COLOURS[self._player]} {COLOURS[1 - self._player].lower()} 10 10")
        rows = [self._read(self.setup_timeout, "setup line") for _ in range(4)]
        try:
            return parse_setup(rows, self._player)
        except UCCProtocolError as e:
            raise AgentFailure("BAD_SETUP", str(e)) from None

    def act(self, view: PlayerView) -> Move:
        lines = [announce(r) for r in view.history[self._sent:]] or ["START"]
        self._sent = len(view.history)
        self._send(*lines, *format_board(view.owner, view.types, self._player))
        reply = self._read(self.timeout, "move")
        if reply.upper() == "SURRENDER":
            raise AgentFailure("SURRENDER", "the program surrendered")
        try:
            return parse_move(reply)
        except UCCProtocolError as e:
            raise AgentFailure("BAD_RESPONSE", str(e)) from None

    def game_over(self, outcome: Outcome, view: PlayerView) -> None:
        if self._proc is None or self._proc.poll() is not None:
            return
        rest = view.history[self._sent:]
        lines = [announce(r, outcome if k == len(rest) - 1 else None) for k, r in enumerate(rest)]
        result = "DRAW" if outcome.winner is None else ("VICTORY" if outcome.winner == self._player else "DEFEAT")
        try:
            self._send(*lines, f"QUIT {result}")
        except AgentFailure:
            pass


def _pump(stream: IO[str], put: Callable[[str | None], None]) -> None:
    """Forward the program's lines to ``put``, then ``None`` at the end (or once ``close`` shut the pipe)."""
    try:
        for line in stream:
            put(line)
    except (OSError, ValueError):  # the pipe was closed under us: the game is over for this program
        pass
    put(None)


class PublicState:
    """The public state of a game as one player sees it, rebuilt from protocol announcements.

    Holds ``owner``/``types``/``revealed``/``moved`` as ``PlayerView`` does and
    the move history; ``view`` builds the ``PlayerView`` with legal moves from
    the engine's kernels (no repetition rules: the 2012 referee had none).
    """

    def __init__(self, variant: Variant, player: int, own: np.ndarray):
        self.variant = variant.with_rules(two_squares=False, more_squares=False, max_moves=0,
                                          max_moves_without_attack=0)
        self.player = player
        self.owner = np.full(100, -1, dtype=np.int8)
        self.owner[list(variant.lakes)] = 2
        self.types = np.full(100, -1, dtype=np.int8)
        own_sq = np.flatnonzero(own >= 0)
        self.owner[own_sq] = player
        self.types[own_sq] = own[own_sq]
        self.revealed = np.zeros(100, dtype=bool)
        self.moved = np.zeros(100, dtype=bool)
        self.history: list[MoveRecord] = []
        self.since_attack = 0
        self._opponent_placed = False

    def place_opponent(self, rows: list[str]) -> None:
        """Mark the opponent's pieces (``#``) from the first board the referee shows."""
        if self._opponent_placed:
            return
        for sq, c in enumerate("".join(r.strip() for r in rows)):
            if c == "#" and self.owner[sq] != 1 - self.player:
                self.owner[sq] = 1 - self.player
                self.types[sq] = UNKNOWN
        self._opponent_placed = True

    def apply(self, line: MoveLine) -> None:
        """Play an announced move (ours or the opponent's) on the public state.

        Raises:
            UCCProtocolError: the move starts from a square without a piece.
        """
        f, t = line.move
        if self.owner[f] < 0 and not self._opponent_placed:
            # Red's first move reaches Blue before Blue's first board: the piece must be Red's.
            self.owner[f], self.types[f] = 1 - self.player, UNKNOWN
        mover = int(self.owner[f])
        if mover not in (0, 1):
            raise UCCProtocolError(f"announced move {format_move(line.move)}: no piece on ({f % 10}, {f // 10})")
        kind = line.outcome
        battle = kind in ("KILLS", "DIES", "BOTHDIE") or (kind.startswith("VICTORY") and self.owner[t] in (0, 1))
        result = _RESULT_OF_OUTCOME.get(kind, K.RESULT_FLAG_CAPTURED if kind == "VICTORY_FLAG" else K.RESULT_MOVE)
        if kind == "VICTORY_ATTRITION":
            result = K.RESULT_ATTACKER_WON if battle else K.RESULT_MOVE
        a_type = line.attacker if line.attacker >= 0 else int(self.types[f])
        d_type = line.defender if line.defender >= 0 else int(self.types[t])
        self.history.append(MoveRecord(line.move, mover, a_type if battle else -1, d_type if battle else -1, result))
        self.since_attack = 0 if battle else self.since_attack + 1
        long_move = abs(t - f) not in (1, 10)
        if long_move and a_type == UNKNOWN:
            a_type = SCOUT  # only a Scout moves more than one square
        piece = (mover, a_type, self.revealed[f] or long_move or battle)
        self._clear(f)
        if result in (K.RESULT_MOVE, K.RESULT_ATTACKER_WON, K.RESULT_FLAG_CAPTURED):
            self.owner[t], self.types[t], self.revealed[t] = piece
            self.moved[t] = True
        elif result == K.RESULT_DEFENDER_WON:
            self.types[t], self.revealed[t] = d_type, True
        else:
            self._clear(t)

    def _clear(self, sq: int) -> None:
        self.owner[sq], self.types[sq], self.revealed[sq], self.moved[sq] = -1, -1, False, False

    def view(self) -> PlayerView:
        """The ``PlayerView`` of the player, who is to move.

        Its legal moves come from a game built from the view (``determinize.position``):
        they do not depend on the types the opponent's hidden pieces get there.

        Raises:
            UCCProtocolError: the announced moves leave more opponent pieces, or more
                moved ones, than its army allows.
        """
        view = PlayerView(
            player=self.player, variant=self.variant, owner=self.owner.copy(), types=self.types.copy(),
            revealed=self.revealed.copy(), moved=self.moved.copy(), legal_moves=(),
            history=tuple(self.history), ply=len(self.history), moves_since_attack=self.since_attack,
        )
        try:
            game = position(view)
        except ValueError as e:
            raise UCCProtocolError(f"the announced game does not fit the {self.variant.name} army: {e}") from None
        if game is None:
            raise UCCProtocolError(f"the opponent has more moved pieces than movable ones in the {self.variant.name} army")
        return replace(view, legal_moves=tuple(game.legal_moves()))


def serve_ucc(agent: Agent, variant: Variant, stdin: IO[str], stdout: IO[str], seed: int | None = None) -> None:
    """Play one game as a UCC 2012 bot: read the referee on ``stdin``, answer on ``stdout``.

    Returns at ``QUIT`` or end of input.  Raises ``UCCProtocolError`` for a
    line it cannot understand (the referee then sees the bot exit).
    """
    def say(*lines: str) -> None:
        stdout.write("".join(f"{s}\n" for s in lines))
        stdout.flush()

    state: PublicState | None = None
    board: list[str] = []
    for raw in stdin:
        line = raw.strip()
        if not line:
            continue
        word = line.split()[0]
        if state is None:
            if word not in COLOURS:
                raise UCCProtocolError(f"{line!r}: expected 'RED|BLUE <opponent> 10 10' first")
            player = COLOURS.index(word)
            agent.reset(variant, player, seed)
            own = np.asarray(agent.choose_setup(), dtype=np.int8)
            state = PublicState(variant, player, own)
            say(*format_setup(own, player))
        elif word == "QUIT":
            return
        elif word == "START":
            continue
        elif is_board_line(line):
            board.append(line)
            if len(board) == 10:
                state.place_opponent(board)
                board = []
                view = state.view()
                say(format_move(agent.act(view)) if view.legal_moves else "SURRENDER")
        else:
            state.apply(parse_move_line(line))


register_agent("ucc", UCCAgent, takes_path=True, summary="an external program speaking the UCC 2012 protocol")
