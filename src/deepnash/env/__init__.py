"""The DeepNash observation (82 planes), the 100-square action space with the two-step move,
setup sources, the batched ``VectorEnv`` and a PettingZoo AEC environment."""

from .actions import (
    NUM_ACTIONS, IllegalActionError, action_to_square, actions_to_move, deploy_order, move_to_actions,
    square_to_action,
)
from .planes import NUM_PLANES
from .setups import SetupPool, human_pool
from .vector import VectorEnv

__all__ = [
    "NUM_ACTIONS", "NUM_PLANES", "IllegalActionError", "SetupPool", "VectorEnv", "action_to_square",
    "actions_to_move", "deploy_order", "human_pool", "move_to_actions", "square_to_action",
]
