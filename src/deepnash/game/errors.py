"""The engine's error types. All are ``ValueError`` subclasses and say what and where."""

from __future__ import annotations


class StrategoError(ValueError):
    """Base class of every error the rules engine and its formats raise."""


class IllegalMoveError(StrategoError):
    """A well-formed move that the rules forbid in the current position."""


class InvalidMoveError(StrategoError):
    """A move that cannot be parsed (bad square, bad syntax)."""


class InvalidSetupError(StrategoError):
    """A deployment that is not a legal setup for the variant."""


class InvalidPositionError(StrategoError):
    """A position string that cannot be parsed or describes an impossible state."""


class GameOverError(StrategoError):
    """A move was pushed onto a game that has already ended."""


class GameInProgressError(StrategoError):
    """Something that shows hidden pieces (the full game, its record) was asked for before the game ended."""


class RecordError(StrategoError):
    """A game record (Gravon XML, ...) that is malformed or cannot be replayed.

    Attributes:
        file: the file (or archive member) the record came from, if known.
        move: the 1-based move number at fault, if any.
    """

    def __init__(self, message: str, *, file: str | None = None, move: int | None = None):
        where = []
        if file:
            where.append(str(file))
        if move is not None:
            where.append(f"move {move}")
        super().__init__(f"{': '.join(where)}: {message}" if where else message)
        self.file = file
        self.move = move
        self.reason = message
