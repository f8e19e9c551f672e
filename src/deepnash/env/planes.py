"""The layout of the 82-plane observation (``docs/observation.md``, the DeepNash paper's Table 4).

``obs: float32[82, 10, 10]`` in the observer's frame (Blue's view rotated 180
degrees, so plane square ``j = row*10+col`` is absolute square ``j`` for Red
and ``99 - j`` for Blue).  Plane order (this project's choice; the content is the paper's):

==========  =====================================================================
planes      content
==========  =====================================================================
0           lakes
1..12       own private information Prv_i: one-hot type ``t`` of each own piece
13..24      opponent public information Pub_-i (paper eq. 6; 0 during deployment)
25..36      own public information Pub_i (paper eq. 6; 0 during deployment)
37..76      Mov planes of the last 40 moves, newest first (paper eq. 7)
77          game length / max game length (``variant.max_moves``, 2000 if disabled)
78          moves since last attack / ``variant.max_moves_without_attack`` (200 if disabled)
79          phase: 1 deployment, 0 play
80          step within a move: 0 select, 1 displace
81          the selected piece: 1 on its square during the displace step
==========  =====================================================================
"""

from __future__ import annotations

import numpy as np

NUM_PLANES = 82
P_LAKE = 0
P_PRIVATE = 1
P_PUB_OPP = 13
P_PUB_OWN = 25
P_MOVES = 37
NUM_MOVE_PLANES = 40
P_LENGTH = 77
P_NO_ATTACK = 78
P_PHASE = 79
P_STEP = 80
P_SELECTED = 81

#: Denominators used when a variant disables a draw limit (the paper's values).
DEFAULT_MAX_MOVES = 2000
DEFAULT_MAX_NO_ATTACK = 200


def counter_scale(variant) -> np.ndarray:
    """``float32[2]``: the factors of planes ``P_LENGTH`` (moves played) and ``P_NO_ATTACK`` (moves without an
    attack): one over the ``variant``'s draw limits, or over the paper's defaults where a limit is off."""
    return np.array([1.0 / (variant.max_moves or DEFAULT_MAX_MOVES),
                     1.0 / (variant.max_moves_without_attack or DEFAULT_MAX_NO_ATTACK)], np.float32)
