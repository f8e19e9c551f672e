"""A game between a person and an agent, kept by the one authority that knows every piece.

The person's moves come in as text or ``Move``; the agent answers at once.
Everything meant for the person is computed from ``PlayerView.of(game, human)``,
so the opponent's hidden types never leave this module: the full game is a
private attribute, and ``finished_game`` hands it out only once the game is over.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..agents.base import Agent
from ..agents.registry import AgentSpecError, make_agent
from ..game import BattleResult, Game, Move, Outcome, Variant, get_variant
from ..game.errors import GameInProgressError, GameOverError, IllegalMoveError
from ..game.pieces import PIECE_NAMES, PLAYER_NAMES
from ..infostate.view import MoveRecord, PlayerView, losses, push_recorded

#: Why a game's record is refused while the game goes on.
RECORD_WAITS = "the record shows the opponent's setup; it is available once the game is over"


class HumanMatch:
    """A person (``human``: 0 Red, 1 Blue) against ``opponent`` on ``variant``.

    Args:
        opponent: any ``Agent``; it is reset here as the other colour and asked for its setup.
        variant: a ``Variant`` or its name.
        human: the person's colour, 0 Red (moves first) or 1 Blue.
        setup: the person's deployment, ``int8[100]`` (see ``game.deployment``).
        seed: seeds the agent's choices.

    Raises:
        InvalidSetupError: if ``setup`` is not a legal deployment for the person.
    """

    def __init__(self, opponent: Agent, variant: Variant | str, human: int, setup: np.ndarray,
                 seed: int | None = None):
        theirs = self._begin(opponent, variant, human, seed)
        red, blue = (setup, theirs) if human == 0 else (theirs, setup)
        self._game = Game(self.variant, red, blue)
        self.reply()

    def _begin(self, opponent: Agent, variant: Variant | str, human: int, seed: int | None) -> np.ndarray:
        """Set the players, reset the agent as the other colour and return the setup it chooses."""
        if human not in (0, 1):
            raise ValueError(f"human colour must be 0 (Red) or 1 (Blue), got {human!r}")
        self.variant = get_variant(variant)
        self.human = human
        self.opponent = opponent
        self.history: list[MoveRecord] = []
        self._told = False
        opponent.reset(self.variant, 1 - human, seed)
        return opponent.choose_setup()

    @classmethod
    def resume(cls, opponent: Agent, variant: Variant | str, human: int, setups: tuple[np.ndarray, np.ndarray],
               seed: int | None, moves: Sequence[Move | str], resigned: bool = False) -> HumanMatch:
        """The match a record describes, with ``opponent`` in the state it had at the last position, and
        its reply played if it is to move there (the record stopped between the person's move and it).

        The agent is reset with ``seed`` and draws its setup as at the start (the stored ``setups`` are
        the ones played).  If the game goes on, the moves are then replayed through it: at each of its
        turns it is asked for a move, which is discarded for the recorded one, so that whatever it keeps
        from move to move (its random stream, the test-time layer's trackers) is as it was.  A seeded
        agent whose choices depend only on its seed and views (the bots) then plays on exactly as it
        would have; a searching agent pays its thinking time again for each of its moves.

        Args:
            opponent: a fresh agent, built from the spec the game was started with.
            variant: a ``Variant`` or its name.
            human: the person's colour, 0 Red or 1 Blue.
            setups: ``(Red's, Blue's)`` deployments, ``int8[100]`` each.
            seed: the seed the agent was reset with when the game started.
            moves: the moves played, in order (``"b4-b5"`` or ``Move``).
            resigned: the person resigned after the last move.

        Raises:
            InvalidSetupError: a setup is not legal.
            IllegalMoveError, InvalidMoveError, GameOverError: a move does not fit the game (a damaged record).
        """
        match = cls.__new__(cls)
        match._begin(opponent, variant, human, seed)
        game, history = replay_moves(match.variant, setups, moves)
        if not resigned and not game.is_over():
            def catch_up(g: Game, played: list[MoveRecord]) -> None:
                if g.turn != human:
                    opponent.act(PlayerView.of(g, g.turn, tuple(played)))

            game, history = replay_moves(match.variant, setups, moves, catch_up)
        match._game, match.history = game, history
        if resigned:
            match.resign()
        else:
            match.reply()
        return match

    # -- acting --------------------------------------------------------------
    def play(self, move: Move | str) -> list[MoveRecord]:
        """Play the person's ``move`` (e.g. ``"b4-b5"``), then the agent's reply.

        Returns:
            The records of the moves played by this call (the person's, then the agent's, if any).

        Raises:
            InvalidMoveError: ``move`` is not two squares.
            GameOverError: the game has ended.
            IllegalMoveError: the move is not legal now (the game is unchanged).
        """
        start = len(self.history)
        self.move(move)
        self.reply()
        return self.history[start:]

    def move(self, move: Move | str) -> MoveRecord:
        """Play the person's ``move`` only; the agent answers when ``reply`` is called.

        Raises:
            InvalidMoveError: ``move`` is not two squares.
            GameOverError: the game has ended.
            IllegalMoveError: it is not the person's turn, or the move is not legal now (the game is unchanged).
        """
        if not self._game.is_over() and self._game.turn != self.human:
            raise IllegalMoveError(f"it is {PLAYER_NAMES[self._game.turn]}'s turn, not yours")
        self._push(move)
        return self.history[-1]

    def resign(self) -> None:
        """The person gives up.

        Raises:
            GameOverError: the game has already ended.
        """
        self._game.resign(self.human)
        self._tell_opponent()

    def reply(self) -> None:
        """Let the agent play until it is the person's turn or the game is over (no-op if it already is)."""
        while not self._game.is_over() and self._game.turn != self.human:
            p = self._game.turn
            self._push(self.opponent.act(PlayerView.of(self._game, p, tuple(self.history))))
        if self._game.is_over():
            self._tell_opponent()

    def _push(self, move: Move | str) -> None:
        if isinstance(move, str):
            move = Move.parse(move)
        if self._game.is_over():
            raise GameOverError(f"the game is over ({describe_outcome(self)}); no more moves")
        self.history.append(push_recorded(self._game, move))

    def _tell_opponent(self) -> None:
        if not self._told:
            self._told = True
            self.opponent.game_over(self._game.outcome(), PlayerView.of(self._game, 1 - self.human, tuple(self.history)))

    # -- what the person may see ----------------------------------------------
    def view(self) -> PlayerView:
        """The person's information state (opponent's hidden pieces have type ``UNKNOWN``)."""
        return PlayerView.of(self._game, self.human, tuple(self.history))

    @property
    def turn(self) -> int:
        """The player to move, 0 Red or 1 Blue."""
        return self._game.turn

    @property
    def ply(self) -> int:
        """Moves played so far, by both players."""
        return self._game.ply

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._game.is_over()

    def outcome(self) -> Outcome | None:
        """The ``Outcome`` once the game is over (public to both players), else ``None``."""
        return self._game.outcome()

    def finished_game(self) -> Game:
        """The full game, both setups included, for its record.

        Raises:
            GameInProgressError: the game is not over; until then the opponent's pieces stay hidden.
        """
        if not self._game.is_over():
            raise GameInProgressError(RECORD_WAITS)
        return self._game

    def setups(self) -> tuple[np.ndarray, np.ndarray]:
        """Both deployments ``(Red's, Blue's)``, ``int8[100]`` each, the opponent's hidden pieces included:
        for the server's own database (``store``), never for the person."""
        red, blue = self._game.setups
        return red.copy(), blue.copy()

    @property
    def last(self) -> MoveRecord | None:
        """The last move played, by either side."""
        return self.history[-1] if self.history else None

    def captured(self) -> tuple[list[int], list[int]]:
        """Pieces taken off the board so far, as type counts ``(Red's, Blue's)`` (12 ints each).

        Computed from the battles in the public history (``infostate.view.losses``).
        """
        red, blue = losses(self.history).tolist()
        return red, blue


def replay_moves(variant: Variant, setups: tuple[np.ndarray, np.ndarray], moves: Sequence[Move | str],
                 before: Callable[[Game, list[MoveRecord]], None] | None = None) -> tuple[Game, list[MoveRecord]]:
    """The game from ``setups`` (``(Red's, Blue's)``, ``int8[100]`` each) after ``moves``, and their records;
    ``before(game, records so far)`` is called ahead of each move.

    Raises:
        InvalidSetupError: a setup is not legal.
        IllegalMoveError, InvalidMoveError, GameOverError: a move does not fit the game.
    """
    game = Game(variant, *setups)
    history: list[MoveRecord] = []
    for move in moves:
        if before is not None:
            before(game, history)
        history.append(push_recorded(game, Move.parse(move) if isinstance(move, str) else move))
    return game, history


def describe_move(r: MoveRecord) -> str:
    """``"Red b4-b5"`` or, for a battle, ``"Red b4-b5: Scout attacks Bomb, Bomb wins"``."""
    text = f"{PLAYER_NAMES[r.player]} {r.move}"
    if r.defender < 0:
        return text
    a, d = PIECE_NAMES[r.attacker], PIECE_NAMES[r.defender]
    verdict = {
        BattleResult.ATTACKER_WON: f"{a} wins",
        BattleResult.DEFENDER_WON: f"{d} wins",
        BattleResult.BOTH_REMOVED: "both removed",
        BattleResult.FLAG_CAPTURED: "the Flag is captured",
    }[BattleResult(r.result)]
    return f"{text}: {a} attacks {d}, {verdict}"


def describe_outcome(match: HumanMatch) -> str:
    """``"You won (flag captured)"``, ``"You lost (resignation)"``, ``"Draw (move limit)"``; ``""`` while playing."""
    out = match.outcome()
    if out is None:
        return ""
    how = out.termination.name.lower().replace("_", " ")
    if out.winner is None:
        return f"Draw ({how})"
    return f"{'You won' if out.winner == match.human else 'You lost'} ({how})"


def default_opponent(variant: Variant | str) -> str:
    """The opponent spec used when none is given: the shipped trained agent for ``variant`` when it
    loads (``shipped:variant=NAME``), else ``"random"``."""
    spec = f"shipped:variant={get_variant(variant).name}"
    try:
        make_agent(spec)
    except AgentSpecError:
        return "random"
    return spec
