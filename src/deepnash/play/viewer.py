"""``deepnash replay``: step through a recorded game in the terminal.

``ReplaySession.handle(line)`` takes one typed line and returns a ``terminal.Reply``;
``terminal.run`` drives it from the keyboard, tests from scripted lines.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from ..game.pieces import PLAYER_NAMES
from .frames import Frames, result_text
from .match import describe_move
from .render import piece_counts, record_board
from .terminal import Reply

REPLAY_HELP = """Replay commands:
  next [K]  (or n, or just Enter)   forward one move, or K moves
  prev [K]  (or p, back, b)         back one move, or K moves
  N  (or goto N)                    the position after move N (0: the start)
  first, last                       the start, the end
  moves                             list every move, with battle results
  show                              redraw the board
  quit  (or q)                      leave"""

LEGEND = "*  known to its opponent (revealed in a battle)    ~~ lake    yellow: the move just played"


class ReplaySession:
    """A record's frames and the position shown, ``ply`` (0: the start, ``len(frames) - 1``: the end)."""

    def __init__(self, frames: Frames):
        self.frames = frames
        self.ply = 0

    @property
    def total(self) -> int:
        """Moves in the record."""
        return len(self.frames) - 1

    @property
    def prompt(self) -> str:
        return f"replay {self.ply}/{self.total}> "

    def screen(self) -> RenderableType:
        """The board after move ``ply``, every piece shown, the move just played and its battle, lost pieces."""
        f, i = self.frames, self.ply
        last = f.moves[i - 1] if i else None
        lines = [record_board(f.boards[i], f.revealed[i], last), Text(LEGEND, style="dim")]
        if last is None:
            lines.append(Text(f"Start position ({self.total} moves to come)", style="bold"))
        else:
            lines.append(Text(f"Move {i}/{self.total}: {describe_move(last)}", style="bold"))
        lost = f.lost(i)
        lines += [Text(f"{PLAYER_NAMES[p]} lost: {piece_counts(lost[p])}") for p in (0, 1)]
        if i == self.total:
            lines.append(Text(f"End of the record: {result_text(f.record)}.", style="bold green"))
        return Group(*lines)

    def welcome(self) -> Reply:
        r = self.frames.record
        return Reply(f"{r.source or 'record'}: {r.variant}, {r.players[0]} (Red) against {r.players[1]} (Blue), "
                     f"{self.total} moves, {result_text(r)}. Enter steps forward; type help for commands.",
                     self.screen())

    def handle(self, line: str) -> Reply:
        """Act on one line; a bad line gets ``Reply(error=True)`` and the position stays where it was."""
        words = line.strip().lower().split()
        cmd, args = (words[0], words[1:]) if words else ("next", [])
        if cmd in ("quit", "q", "exit"):
            return Reply("Goodbye.", done=True)
        if cmd == "help":
            return Reply(REPLAY_HELP)
        if cmd == "show":
            return Reply("", self.screen())
        if cmd == "moves":
            lines = [f"{'>' if n == self.ply else ' '}{n:>4}. {describe_move(r)}"
                     for n, r in enumerate(self.frames.moves, start=1)]
            return Reply("\n".join(lines) or "The record has no moves.")
        if cmd.isdigit() and not args:
            return self._go(int(cmd))
        if cmd == "goto" and len(args) == 1 and args[0].isdigit():
            return self._go(int(args[0]))
        if cmd in ("first", "start") and not args:
            return self._go(0)
        if cmd in ("last", "end") and not args:
            return self._go(self.total)
        steps = {"next": 1, "n": 1, "prev": -1, "p": -1, "back": -1, "b": -1}
        if cmd in steps and len(args) <= 1 and all(a.isdigit() and int(a) > 0 for a in args):
            return self._step(steps[cmd] * (int(args[0]) if args else 1))
        return Reply(f"{line.strip()!r} is not a replay command; type help.", error=True)

    def _go(self, ply: int) -> Reply:
        if ply > self.total:
            return Reply(f"there is no move {ply}: the record has {self.total} moves", error=True)
        self.ply = ply
        return Reply("", self.screen())

    def _step(self, delta: int) -> Reply:
        if delta > 0 and self.ply == self.total:
            return Reply(f"This is the end of the record (move {self.total}); type first, prev or N.", error=True)
        if delta < 0 and self.ply == 0:
            return Reply("This is the start position; type next, last or N.", error=True)
        return self._go(min(max(self.ply + delta, 0), self.total))
