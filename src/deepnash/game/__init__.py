"""The Stratego rules: pieces, variants, the batched state, the kernels and the ``Game`` API."""

from .errors import (
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidSetupError,
    RecordError,
    StrategoError,
)
from .game import BattleResult, Game, Move, Outcome, Piece, Termination
from .pieces import PIECE_CHARS, PIECE_NAMES
from .squares import parse_square, square_name
from .state import BatchState, deployment, random_deployment
from .variant import BARRAGE, CLASSIC, Variant, get_variant

__all__ = [
    "BARRAGE", "CLASSIC", "BatchState", "BattleResult", "Game", "GameOverError", "IllegalMoveError",
    "InvalidMoveError", "InvalidPositionError", "InvalidSetupError", "Move", "Outcome", "PIECE_CHARS",
    "PIECE_NAMES", "Piece", "RecordError", "StrategoError", "Termination", "Variant", "deployment",
    "get_variant", "parse_square", "random_deployment", "square_name",
]
