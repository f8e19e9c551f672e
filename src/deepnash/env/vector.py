"""``VectorEnv``: B games of Stratego stepped together by one Numba call, in the paper's action space."""

from __future__ import annotations

import numpy as np

from ..game import BatchState, Variant, get_variant
from ..game import kernels as GK
from . import kernels as K
from .actions import NUM_ACTIONS, IllegalActionError, deploy_order
from .encode import encode
from .planes import NUM_MOVE_PLANES, NUM_PLANES, counter_scale
from .setups import SetupSource, source_code


class VectorEnv:
    """B Stratego games with the DeepNash observation and two-step action space (``docs/observation.md``).

    Every buffer below is preallocated and rewritten in place by ``reset`` and
    ``step``; hand them to PyTorch zero-copy (``torch.from_numpy(env.obs)``) and
    copy what you keep before the next ``step``.  Treat them as read-only: the
    displace step's observation is written by updating only planes 80 and 81
    of the select step's one.

    Attributes:
        obs: ``float32[B, 82, 10, 10]``: the acting player's observation of each game
            (layout in ``deepnash.env.planes``; not written when ``observe=False``).
        mask: ``bool[B, 100]``: the acting player's legal-action mask (its frame).
        player: ``int8[B]``: the acting player, 0 Red / 1 Blue.
        rewards: ``float32[B, 2]``: (Red, Blue) rewards of the last ``step``.
        done: ``bool[B]``: games that ended in the last ``step``.
        winner: ``int8[B]``: winner (0, 1, or -1 draw) of the game that ended in that slot.
        termination: ``int8[B]``: its ``game.Termination`` code; ``length: int32[B]`` its moves.
        state: the engine's ``BatchState`` (board, flags, meta, ...) of the running games.
        setup: ``int8[B, 2, 100]``: each game's two deployments (type per absolute square, -1 empty).
        moves, move_count: the ring of the last 40 moves (from, to, attacker type or -1) and
            the number of moves recorded (see ``deepnash.env.encode``).
        deploying, substep, selected: ``[B]``: 1 in the deployment phase; 0 select / 1
            displace step; the selected absolute square (-1 none).

    Step semantics: ``step(actions)`` applies ``actions[b]``, chosen by
    ``player[b]`` from ``mask[b]``, to game ``b``.  A deployment action places
    the next piece of ``deploy_order``; a play-phase action first selects a
    piece, then its destination, and only the second action plays the move (the
    turn passes then).  When that action ends game ``b`` (a captured Flag, a
    player without legal moves, a draw limit; also the last deployment action
    if the resulting position is already over) then ``rewards[b]`` holds
    (+1, -1), (-1, +1) or (0, 0) for (Red, Blue), ``done[b]`` is True and
    ``winner/termination/length[b]`` describe that game; every other step has
    rewards 0.  The slot is reset in the same call: ``obs/mask/player[b]``
    already show the first step of the next game.  An action that does not end
    the game never has a non-zero reward.

    Args:
        batch_size: B, the number of games.
        variant: ``"classic"``, ``"barrage"`` or a ``Variant``.
        setups: each player's setup source, one for both or a (Red, Blue) pair:
            ``"learned"`` (the player deploys with its own actions; Red and Blue
            alternate, Red first, when both do), ``"random"`` (uniformly random
            legal setups) or a ``setups.SetupPool``.
        seed: seeds every random draw (setups, ``random_actions``); the same seed
            and actions give the same run.
        observe: False skips writing observations (masks, rewards still kept).
        auto_reset: False keeps a finished game as it ended (its mask all False, its
            actions ignored) until ``reset``; for single-game wrappers.

    Raises:
        ValueError: a batch size below 1, an unknown variant or setup source.

    Example::

        env = VectorEnv(1024, "classic", seed=0)
        obs, mask, player = env.observe()
        env.step(env.random_actions())
    """

    def __init__(
        self,
        batch_size: int,
        variant: Variant | str = "classic",
        *,
        setups: SetupSource | tuple[SetupSource, SetupSource] = "learned",
        seed: int = 0,
        observe: bool = True,
        auto_reset: bool = True,
    ):
        self.variant = get_variant(variant)
        self.state = BatchState(batch_size, self.variant)
        self.batch_size = b = batch_size
        self.observe_enabled = bool(observe)
        self.auto_reset = bool(auto_reset)
        pair = setups if isinstance(setups, tuple) else (setups, setups)
        if len(pair) != 2:
            raise ValueError(f"setups needs one source or a (red, blue) pair, got {len(pair)} entries")
        self.setup_sources = pair
        modes = np.array([source_code(s, self.variant) for s in pair], dtype=np.int64)
        pools = [s.setups if modes[i] == K.SRC_POOL else np.zeros((0, 100), np.int8) for i, s in enumerate(pair)]
        pool_hi = np.cumsum([len(p) for p in pools]).astype(np.int64)
        pool_lo = pool_hi - np.array([len(p) for p in pools], dtype=np.int64)
        scale = counter_scale(self.variant)
        self.deploy_order = deploy_order(self.variant)
        self._cfg = K.EnvConfig(self.deploy_order, self.state.deploy[0], modes,
                                np.ascontiguousarray(np.concatenate(pools + [np.zeros((1, 100), np.int8)])),
                                pool_lo, pool_hi, scale)

        self.obs = np.zeros((b, NUM_PLANES, 10, 10), dtype=np.float32)
        self.mask = np.zeros((b, NUM_ACTIONS), dtype=bool)
        self.player = np.zeros(b, dtype=np.int8)
        self.rewards = np.zeros((b, 2), dtype=np.float32)
        self.done = np.zeros(b, dtype=bool)
        self.winner = np.full(b, -1, dtype=np.int8)
        self.termination = np.zeros(b, dtype=np.int8)
        self.length = np.zeros(b, dtype=np.int32)
        self._outs = K.Outputs(self.obs.reshape(b, NUM_PLANES, 100), self.mask, self.player, self.rewards,
                               self.done, self.winner, self.termination, self.length)

        self.setup = np.full((b, 2, 100), -1, dtype=np.int8)
        self.moves = np.zeros((b, NUM_MOVE_PLANES, 3), dtype=np.int16)
        self.move_count = np.zeros(b, dtype=np.int64)
        self.deploying = np.zeros(b, dtype=np.int8)
        self._dstep = np.zeros(b, dtype=np.int32)
        self.substep = np.zeros(b, dtype=np.int8)
        self.selected = np.full(b, -1, dtype=np.int16)
        self._rng = np.zeros(b, dtype=np.uint64)
        self._action_rng = np.zeros(b, dtype=np.uint64)
        self._actions = np.zeros(b, dtype=np.int64)
        self._legal = np.zeros((b, GK.MAX_MOVES, 2), dtype=np.int16)
        self._nlegal = np.zeros(b, dtype=np.int32)
        s = self.state
        self._st = K.EngineState(s.board, s.flags, s.meta, s.hist, s.zob, s.chase, s.rules, s.lakes)
        self._es = K.EnvState(self.setup, self.moves, self.move_count, self.deploying, self._dstep, self.substep,
                              self.selected, self._rng, self._legal, self._nlegal)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start a new game in every slot (re-seeding first if ``seed`` is given); returns ``observe()``.

        Raises:
            RuntimeError: the setup sources only give positions that are over before the first move.
        """
        if seed is not None:
            K.seed_rng(self._rng, seed)
            K.seed_rng(self._action_rng, seed ^ 0x5A5A5A5A)
        bad = K.reset_all(self._st, self._es, self._cfg, self._outs, self.observe_enabled)
        if bad >= 0:
            raise RuntimeError(f"slot {bad}: {K.MAX_REDRAWS} setup draws all gave games over before the first move")
        return self.observe()

    def reset_slot(self, b: int) -> None:
        """Start a new game in slot ``b`` alone, whatever state its game is in (the other slots go on).

        Raises:
            IndexError: ``b`` is not a slot.
            RuntimeError: the setup sources only give positions that are over before the first move.
        """
        if not 0 <= b < self.batch_size:
            raise IndexError(f"slot {b} is not in 0..{self.batch_size - 1}")
        if not K.reset_one(self._st, self._es, self._cfg, self._outs, b, self.observe_enabled):
            raise RuntimeError(f"slot {b}: {K.MAX_REDRAWS} setup draws all gave games over before the first move")

    def resume(self, b: int, moves: np.ndarray) -> None:
        """Continue in slot ``b`` the play-phase position the caller has written into ``state[b]``
        (board, flags, meta, repetition state: e.g. ``infostate.determinize.load_determinization``).

        The slot goes to the select step of the player to move, with a fresh mask and observation;
        its ``setup`` row is left as it was (no record is kept of a resumed game's deployment).

        Args:
            b: the slot.
            moves: ``int16[n, 3]``: the game's last moves (from, to, attacker type or -1), oldest
                first, as ``infostate.observe.move_rows`` gives them; only the last 40 are kept.

        Raises:
            IndexError: ``b`` is not a slot.
            ValueError: ``moves`` is not ``[n, 3]``, or the state is not a running game.
        """
        if not 0 <= b < self.batch_size:
            raise IndexError(f"slot {b} is not in 0..{self.batch_size - 1}")
        rows = np.asarray(moves, dtype=np.int16)
        if rows.ndim != 2 or rows.shape[1] != 3:
            raise ValueError(f"moves must be [n, 3], got {list(rows.shape)}")
        if self.state.meta[b, GK.M_DONE] != 0:
            raise ValueError(f"slot {b}: the position written there is already over")
        rows = rows[-NUM_MOVE_PLANES:]
        n = len(rows)
        self.moves[b] = 0
        self.moves[b, np.arange(n) % NUM_MOVE_PLANES] = rows
        self.move_count[b] = n
        K.resume_one(self._st, self._es, self._cfg, self._outs, b, self.observe_enabled)

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(obs float32[B,82,10,10], mask bool[B,100], player int8[B])``: the live buffers, not copies."""
        return self.obs, self.mask, self.player

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play one action in every game (see the class docstring); returns ``(rewards, done)``.

        Args:
            actions: ``int[B]``: for each game an action 0..99 in ``player[b]``'s frame with
                ``mask[b, action]`` set.

        Raises:
            ValueError: ``actions`` does not have shape ``(B,)``.
            IllegalActionError: some action of a running game is not legal (nothing is changed;
                names the game).
        """
        a = np.asarray(actions)
        if a.shape != (self.batch_size,):
            raise ValueError(f"actions must have shape ({self.batch_size},), got {a.shape}")
        if a.dtype != np.int64:
            a = a.astype(np.int64)
        r = K.step(self._st, self._es, self._cfg, self._outs, a, self.observe_enabled, self.auto_reset)
        if r >= 0:
            phase = "deployment" if self.deploying[r] else ("select" if self.substep[r] == 0 else "displace")
            raise IllegalActionError(
                f"game {r}: action {int(a[r])} is not legal for player {int(self.player[r])} "
                f"({phase} step); legal: {np.flatnonzero(self.mask[r]).tolist()}")
        if r <= -2:
            raise RuntimeError(f"slot {-2 - r}: setup draws all gave games over before the first move")
        return self.rewards, self.done

    def random_actions(self) -> np.ndarray:
        """``int64[B]``: a uniformly random legal action per game (the env's own seeded generator).
        The array is reused by the next call."""
        K.random_actions(self.mask, self._action_rng, self._actions)
        return self._actions

    def random_move_actions(self) -> np.ndarray:
        """``int64[B]``: the uniformly random bot's action per game: every legal *move* equally
        likely over its two steps (a piece is selected in proportion to its number of moves), the
        same distribution as ``agents.RandomAgent``; -1 where a game has no legal action.
        Uses the env's own seeded generator; the array is reused by the next call."""
        K.random_move_actions(self._es, self.mask, self.player, self._action_rng, self._actions)
        return self._actions

    def encode(self, b: int, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """``float32[82, 10, 10]``: ``player``'s observation of game ``b`` now, whoever is to act
        (the step and selected-piece planes are the acting player's own; 0 for the other one)."""
        out = np.zeros((NUM_PLANES, 10, 10), np.float32) if out is None else out
        m = self.state.meta
        mine = int(self.player[b]) == player
        encode(self.state.board, self.state.flags, m[b, GK.M_PLY], m[b, GK.M_SINCE_ATTACK], self.moves,
               self.move_count, bool(self.deploying[b]), int(self.substep[b]) if mine else 0,
               int(self.selected[b]), self._cfg.scale, b, player, out.reshape(1, NUM_PLANES, 100)[0])
        return out
