"""``deepnash play``: the terminal game, split into session logic (``PlaySession``) and I/O (``run``).

``PlaySession.handle(line)`` takes one line the person typed and returns a
``Reply``; it never reads or prints, so tests drive it with scripted lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
from rich.console import Console, RenderableType
from rich.text import Text

from ..agents.base import Agent
from ..game.errors import InvalidMoveError, StrategoError
from ..game.pieces import PIECE_LABELS, PIECE_NAMES, PLAYER_NAMES
from ..game.squares import parse_square
from .deploy import SetupBuilder, SetupDraw
from .match import HumanMatch, describe_move, describe_outcome
from .record import save_record
from .render import piece_counts, play_screen, setup_board

SETUP_HELP = """Deployment commands:
  random              a random setup
  pool                a setup from the pool of human setups
  place SQ PIECE      put a piece on a square, e.g. "place b1 F" (or just "b1 F")
  remove SQ           empty a square
  swap SQ SQ          exchange two squares, e.g. "swap a1 j4"
  clear               start from an empty zone
  show                redraw the board
  ready               start the game (every piece must be placed)
  quit                leave
Pieces: F Flag, S Spy, 2 Scout, 3 Miner, 4..9, 10 Marshal, B Bomb."""

PLAY_HELP = """Game commands:
  b4-b5               move a piece (Scouts may go further: b4-b8); "b4 b5" and "b4xb5" work too
  history             list every move so far with battle results
  save FILE           write the record as Gravon XML (once the game is over)
  resign              give up the game
  show                redraw the board
  quit                leave (a game still running counts as resigned)"""


@dataclass
class Reply:
    """What the person sees after a line: a ``message``, an optional ``screen`` to draw, and ``done`` when the session ends."""

    message: str
    screen: RenderableType | None = None
    error: bool = False
    done: bool = False


class PlaySession:
    """One terminal session: deploy, then play ``opponent`` until the game ends.

    Args:
        opponent: any ``Agent``.
        variant: a variant name or ``Variant``.
        human: the person's colour, 0 Red or 1 Blue.
        pool: source of human setups for ``pool`` (``None``: the command says none is available).
        seed: seeds random setups and the agent.
        save_to: where the record is written when the game ends (Gravon XML), or ``None``.
    """

    def __init__(self, opponent: Agent, variant, human: int, *, pool: SetupDraw | None = None,
                 seed: int | None = None, save_to: str | Path | None = None):
        self.opponent = opponent
        self.builder = SetupBuilder(variant, human)
        self.human = human
        self.pool = pool
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.save_to = Path(save_to) if save_to else None
        self.match: HumanMatch | None = None

    # -- screens -------------------------------------------------------------
    @property
    def prompt(self) -> str:
        if self.match is None:
            return "setup> "
        return "game over> " if self.match.is_over() else f"move {self.match.ply + 1}> "

    def screen(self) -> RenderableType:
        """The current board: the deployment being built, or the game as the person knows it."""
        if self.match is None:
            left = piece_counts(self.builder.remaining())
            return Text.assemble(setup_board(self.builder), f"\nStill to place: {left}\n")
        m = self.match
        status = describe_outcome(m) or f"Your move ({PLAYER_NAMES[self.human]})."
        return play_screen(m.view(), m.last, m.captured(), status)

    def welcome(self) -> Reply:
        who = PLAYER_NAMES[self.human]
        return Reply(f"You play {who} against {self.opponent.name} ({self.builder.variant.name}). "
                     f"Deploy your pieces; type help for commands.", self.screen())

    # -- input -----------------------------------------------------------------
    def handle(self, line: str) -> Reply:
        """Act on one line of input; bad input gets ``Reply(error=True)`` and changes nothing."""
        words = line.strip().split()
        if not words:
            return Reply("Type help for commands.")
        cmd = words[0].lower()
        if cmd in ("quit", "exit"):
            return self._quit()
        try:
            if self.match is None:
                return self._setup(cmd, words)
            return self._play(cmd, words, line.strip())
        except StrategoError as e:
            return Reply(str(e), error=True)

    def _setup(self, cmd: str, words: list[str]) -> Reply:
        b = self.builder
        if cmd == "help":
            return Reply(SETUP_HELP)
        if cmd == "show":
            return Reply("", self.screen())
        if cmd == "random":
            b.randomise(self.rng)
            return Reply("Random setup.", self.screen())
        if cmd == "pool":
            if self.pool is None:
                return Reply("No pool of human setups is available; try random.", error=True)
            b.load(self.pool(b.variant, self.human, self.rng))
            return Reply("A human setup from the pool.", self.screen())
        if cmd == "clear":
            b.clear()
            return Reply("Zone cleared.", self.screen())
        if cmd == "ready":
            setup = b.finish()
            self.match = HumanMatch(self.opponent, b.variant, self.human, setup, self.seed)
            return Reply(self._after_moves(list(self.match.history), "The game begins."), self.screen())
        args = words[1:]
        if cmd == "place" and len(args) == 2:
            b.place(*args)
            return Reply(f"{PIECE_NAMES[b.placed[parse_square(args[0])]]} on {args[0].lower()}.", self.screen())
        if len(words) == 2 and words[1].upper() in PIECE_LABELS:
            b.place(*words)
            return Reply(f"{PIECE_NAMES[b.placed[parse_square(words[0])]]} on {words[0].lower()}.", self.screen())
        if cmd == "remove" and len(args) == 1:
            b.remove(args[0])
            return Reply(f"{args[0].lower()} emptied.", self.screen())
        if cmd == "swap" and len(args) == 2:
            b.swap(*args)
            return Reply(f"Swapped {args[0].lower()} and {args[1].lower()}.", self.screen())
        return Reply(f"{' '.join(words)!r} is not a deployment command; type help.", error=True)

    def _play(self, cmd: str, words: list[str], line: str) -> Reply:
        m = self.match
        if cmd == "help":
            return Reply(PLAY_HELP)
        if cmd == "show":
            return Reply("", self.screen())
        if cmd == "history":
            lines = [f"{i + 1:>4}. {describe_move(r)}" for i, r in enumerate(m.history)]
            return Reply("\n".join(lines) or "No moves yet.")
        if cmd == "save":
            if len(words) != 2:
                return Reply("Write save FILE, e.g. save game.xml", error=True)
            if not m.is_over():
                return Reply("The record shows the opponent's setup, so it can be saved once the game is over.",
                             error=True)
            return self._save(Path(words[1]))
        if cmd == "resign":
            m.resign()
            return Reply(self._finish("You resigned."), self.screen())
        if m.is_over():
            return Reply(f"The game is over ({describe_outcome(m)}). Type save FILE, history or quit.", error=True)
        try:
            played = m.play(line)
        except InvalidMoveError as e:
            return Reply(f"{e}; or type help for commands", error=True)
        return Reply(self._after_moves(played, ""), self.screen())

    def _after_moves(self, played, lead: str) -> str:
        lines = [lead] if lead else []
        lines += [describe_move(r) for r in played]
        if self.match.is_over():
            lines.append(self._finish(""))
        return "\n".join(line for line in lines if line)

    def _finish(self, lead: str) -> str:
        lines = [lead, f"Game over: {describe_outcome(self.match)}."]
        if self.save_to is not None:
            lines.append(self._save(self.save_to).message)
        return "\n".join(line for line in lines if line)

    def _save(self, path: Path) -> Reply:
        try:
            save_record(self.match, path)
        except OSError as e:
            return Reply(f"Could not save the record to {path}: {e.strerror or e}", error=True)
        return Reply(f"Record saved to {path} (Gravon XML).")

    def _quit(self) -> Reply:
        if self.match is not None and not self.match.is_over():
            self.match.resign()
            return Reply(self._finish("You left; the game counts as resigned."), done=True)
        return Reply("Goodbye.", done=True)


class Session(Protocol):
    """What ``run`` drives: ``PlaySession``, or ``viewer.ReplaySession``."""

    @property
    def prompt(self) -> str: ...

    def welcome(self) -> Reply: ...

    def handle(self, line: str) -> Reply: ...


def run(session: Session, read: Callable[[str], str] = input, console: Console | None = None) -> None:
    """Drive ``session`` from ``read(prompt)`` (``input`` by default), printing to ``console``, until it is
    done or input ends (which counts as ``quit``)."""
    console = console or Console(highlight=False)

    def show(reply: Reply) -> None:
        if reply.screen is not None:
            console.print(reply.screen)
        if reply.message:
            console.print(Text(reply.message, style="bold red" if reply.error else ""))

    show(session.welcome())
    while True:
        try:
            line = read(session.prompt)
        except (EOFError, KeyboardInterrupt):
            show(session.handle("quit"))
            return
        reply = session.handle(line)
        show(reply)
        if reply.done:
            return


def make_session(opponent: str | None, variant: str, color: str, save_to: str | None,
                 seed: int | None) -> PlaySession:
    """The session ``deepnash play`` runs, from its command-line options (human setups from ``env.setups``).

    Raises:
        AgentSpecError: a bad opponent spec.  ValueError: an unknown variant or colour.
    """
    from ..agents.registry import make_agent
    from .deploy import draw_human_setup
    from .match import default_opponent

    colors = {"red": 0, "blue": 1}
    if color.lower() not in colors:
        raise ValueError(f"colour {color!r}: choose red or blue")
    agent = make_agent(opponent or default_opponent(variant))
    return PlaySession(agent, variant, colors[color.lower()], pool=draw_human_setup, seed=seed, save_to=save_to)
