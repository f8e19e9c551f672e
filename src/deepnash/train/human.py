"""Human games as training data: every decision of either player of Gravon records, as our agent sees it.

A ``HumanGame`` is a Gravon record in compact form (both setups, the moves,
the winner).  ``HumanDecisions`` replays many of them at once through
``VectorEnv`` — the same kernels and the same 82-plane encoder the agent
plays with — one game per slot: each player deploys its recorded setup with
the 40 deployment actions in the paper's order (Red and Blue alternate), then
each recorded move is played as select + displace.  At every step it emits,
for the acting player:

- ``obs``: ``float32[82, 10, 10]``, its observation (``deepnash.env.planes``);
- ``mask``: ``bool[100]``, the legal-action mask;
- ``target``: ``bool[100]``, the human's action: one square for a select or
  displace step; for a deployment step, every square of its setup that holds
  the type being placed and is still empty (identical pieces are
  interchangeable, so any of them reproduces the recorded setup);
- ``action``: ``int64``, the action the replay plays (one of ``target``);
- ``value``: ``float32``, the game's result for that player (+1 won, -1 lost,
  0 no winner), the value head's target;
- ``phase``: ``int8``, 0 deployment, 1 selection, 2 displacement;
- ``own_types``, ``opponent_types``: ``int8[100]``, the true type (0..11) of each
  of the acting player's pieces and of each of the opponent's, in the acting
  player's frame, -1 where it has none: the ground truth a record gives of every
  hidden piece, which the player's observation does not;
- ``opponent_origins``: ``int8[100]``, the square (in the acting player's frame) each opponent piece
  was deployed on, -1 where the opponent has no piece: public, since every move is seen;
- ``opponent_evidence``: ``int8[100]``, by deployment square in the acting player's frame, what is
  public of the opponent piece deployed there: its type 0..11 once a battle or a Scout's long move
  revealed it (on the board or taken), ``MOVED`` if it has moved unrevealed, ``NOT_DEPLOYED`` if no piece
  was deployed there, -1 otherwise (the evidence ``infostate.setup_library`` weighs setups by).

Nothing is stored but the records' moves: observations are encoded as the
games are replayed, about 1,500 decisions a second on one core (the encoding
is most of the cost; ``sample`` below skips it for the decisions not kept).  Records are
replayed with no repetition rule and no draw limit (``record_variant(...,
"none")``), as Gravon's server played them; a game whose deployment or moves
the engine refuses is dropped where it fails and counted in ``skipped``.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..env import VectorEnv
from ..env.actions import deploy_order
from ..env.planes import NUM_PLANES
from ..game import Variant, get_variant
from ..game import codes
from ..game.errors import RecordError
from ..game.kernels import M_PLY, REVEALED
from ..infostate.setup_library import MOVED, NOT_DEPLOYED
from ..notation.field import field_placements
from ..notation.gravon import read_records
from ..notation.record import GravonRecord
from ..notation.replay import UnsupportedVariantError, record_variant

#: ``phase`` codes of a decision.
DEPLOY, SELECT, DISPLACE = 0, 1, 2
PHASE_NAMES = ("deployment", "selection", "displacement")


@dataclass(frozen=True)
class HumanGame:
    """One recorded game, compact.

    Attributes:
        key: ``"ARCHIVE:MEMBER#GAME"``, unique per game; the train/validation split hashes it.
        variant: the record's game type, lower case (``"classic"``, ``"barrage"``).
        setup: ``int8[2, 100]``: each player's piece types in its own frame (Blue's rotated 180°), -1 empty.
        moves: ``int16[N, 2]``: (from, to) absolute squares, Red's move first.
        winner: 0 Red, 1 Blue, -1 no winner recorded (draw, or no result).
    """

    key: str
    variant: str
    setup: np.ndarray
    moves: np.ndarray
    winner: int

    @classmethod
    def from_record(cls, record: GravonRecord) -> "HumanGame":
        """The record in compact form.

        Raises:
            RecordError: the record's field cannot be read.
        """
        try:
            red, blue = field_placements(record.field)
        except ValueError as e:
            raise RecordError(f"bad field: {e}", file=record.source) from None
        moves = np.array([(m.from_sq, m.to_sq) for m in record.moves], dtype=np.int16).reshape(-1, 2)
        return cls(key=f"{Path(record.source).name}#{record.game}", variant=record.variant.lower(),
                   setup=np.stack([red, blue[::-1]]).astype(np.int8), moves=moves,
                   winner=-1 if record.winner is None else int(record.winner))

    @property
    def decisions(self) -> int:
        """Decisions of both players: one per placed piece, two per move."""
        return int((self.setup >= 0).sum()) + 2 * len(self.moves)


def load_games(paths: str | Path | Iterable[str | Path], variant: str | None = None,
               skipped: Counter | None = None) -> list[HumanGame]:
    """Every readable game of the records under ``paths`` (``.xml``, ``.zip``, folders), in the file order.

    Args:
        paths: Gravon records.
        variant: keep only this game type (``"classic"``, ``"barrage"``); ``None`` keeps every supported one.
        skipped: if given, counts what was left out: ``unreadable`` files and records, ``unsupported``
            game types, ``other_variant``.

    Raises:
        FileNotFoundError: a path that does not exist.
        ValueError: an unknown ``variant``.
    """
    if variant is not None:
        get_variant(variant)
    skipped = Counter() if skipped is None else skipped
    out = []
    for record in read_records(paths, on_error=lambda e: skipped.update(["unreadable"])):
        try:
            record_variant(record)
        except UnsupportedVariantError:
            skipped["unsupported"] += 1
            continue
        if variant is not None and record.variant.lower() != variant:
            skipped["other_variant"] += 1
            continue
        try:
            out.append(HumanGame.from_record(record))
        except RecordError:
            skipped["unreadable"] += 1
    return out


def split_games(games: list[HumanGame], validation: float = 0.05) -> tuple[list[HumanGame], list[HumanGame]]:
    """Split by game, deterministically: a game is in validation when the CRC-32 of its key falls in the
    lowest ``validation`` share (the same game lands on the same side in every run and on every machine).

    Returns:
        ``(training, validation)``, each in the input order.

    Raises:
        ValueError: ``validation`` outside [0, 1].
    """
    if not 0.0 <= validation <= 1.0:
        raise ValueError(f"validation share must be in [0, 1], got {validation}")
    cut = int(validation * 2**32)
    held = [zlib.crc32(g.key.encode()) < cut for g in games]
    return [g for g, h in zip(games, held) if not h], [g for g, h in zip(games, held) if h]


@dataclass
class DecisionBatch:
    """A batch of ``N`` decisions (see the module docstring for each field).

    Attributes:
        obs: ``float32[N, 82, 10, 10]``.
        mask, target: ``bool[N, 100]``.
        action: ``int64[N]``.
        value: ``float32[N]``.
        phase: ``int8[N]``.
        game: ``int64[N]``: the game's index in the stream's list.
        ply: ``int32[N]``: moves played before the decision (0 during deployment).
        own_types, opponent_types: ``int8[N, 100]``: the true piece types (0..11) of the acting player
            and of the opponent, in the acting player's frame; -1 where it has no piece.
        opponent_origins, opponent_evidence: ``int8[N, 100]`` (module docstring).

    ``obs`` has no planes (``float32[N, 0, 10, 10]``) from a stream made with ``observe=False``.
    """

    obs: np.ndarray
    mask: np.ndarray
    target: np.ndarray
    action: np.ndarray
    value: np.ndarray
    phase: np.ndarray
    game: np.ndarray
    ply: np.ndarray
    own_types: np.ndarray
    opponent_types: np.ndarray
    opponent_origins: np.ndarray
    opponent_evidence: np.ndarray

    def __len__(self) -> int:
        return len(self.action)

    @classmethod
    def empty(cls, n: int, planes: int = NUM_PLANES) -> "DecisionBatch":
        """Room for ``n`` decisions of ``planes`` observation planes (contents undefined)."""
        return cls(np.empty((n, planes, 10, 10), np.float32), np.empty((n, 100), bool),
                   np.empty((n, 100), bool), np.empty(n, np.int64), np.empty(n, np.float32),
                   np.empty(n, np.int8), np.empty(n, np.int64), np.empty(n, np.int32),
                   *(np.empty((n, 100), np.int8) for _ in range(4)))

    def take(self, idx: np.ndarray) -> "DecisionBatch":
        """The decisions at ``idx``, copied."""
        return DecisionBatch(*(np.take(getattr(self, f), idx, axis=0) for f in _FIELDS))


_FIELDS = ("obs", "mask", "target", "action", "value", "phase", "game", "ply", "own_types", "opponent_types",
           "opponent_origins", "opponent_evidence")


class _Origins:
    """Each replayed game's pieces followed from their deployment squares, and what is public of each
    (``opponent_origins`` and ``opponent_evidence`` of the module docstring), in absolute squares; every
    method takes arrays of slots.

    Attributes:
        origin: ``int8[B, 100]``: the deployment square of the piece on each square, -1 where none.
        evidence: ``int8[B, 2, 100]``: per side and deployment square, what is public of that piece.
    """

    def __init__(self, slots: int):
        self.origin = np.full((slots, 100), -1, np.int8)
        self.evidence = np.full((slots, 2, 100), NOT_DEPLOYED, np.int8)

    def reset(self, b: int) -> None:
        self.origin[b] = -1
        self.evidence[b] = NOT_DEPLOYED

    def deployed(self, b: np.ndarray, side: np.ndarray, square: np.ndarray) -> None:
        self.origin[b, square] = square
        self.evidence[b, side, square] = -1

    def moved(self, b: np.ndarray, f: np.ndarray, t: np.ndarray, attacker: np.ndarray, defender: np.ndarray,
              board: np.ndarray, flags: np.ndarray) -> None:
        """After the moves ``f``-``t`` of games ``b``: ``attacker`` and ``defender`` are the board codes on
        ``f`` and ``t`` before them, ``board`` and ``flags`` the state's arrays after them."""
        side = codes.owner_of(attacker)
        o, d = self.origin[b, f], self.origin[b, t]
        after = board[b, t]
        self.origin[b, f] = -1
        self.origin[b, t] = np.where(after == attacker, o, np.where(after == codes.EMPTY, -1, d))
        battle = defender > 0  # a battle shows both pieces; a Scout's move of more than one square shows it
        shown = battle | ((after == attacker) & (flags[b, t] & REVEALED > 0))
        ev = self.evidence[b, side, o]
        self.evidence[b, side, o] = np.where(shown, codes.type_of(attacker), np.where(ev == -1, MOVED, ev))
        self.evidence[b[battle], 1 - side[battle], d[battle]] = codes.type_of(defender[battle])

    def view(self, b: np.ndarray, player: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(opponent_origins, opponent_evidence)``, each ``int8[len(b), 100]``, of games ``b`` for ``player``
        in its frame (``owner``: ``int8[len(b), 100]``, each square's owner)."""
        origins = np.where(owner == (1 - player)[:, None], self.origin[b], -1).astype(np.int8)
        evidence = self.evidence[b, 1 - player]
        blue = player == 1  # Blue's frame is the board turned round
        origins[blue] = np.where(origins[blue] >= 0, 99 - origins[blue], -1)[:, ::-1]
        evidence[blue] = evidence[blue][:, ::-1]
        return origins, evidence


class HumanDecisions:
    """A stream of ``DecisionBatch`` es from recorded games (see the module docstring).

    Args:
        games: the games (all of ``variant``).
        variant: ``"classic"``, ``"barrage"`` or a ``Variant``.
        batch_size: decisions per batch.
        slots: games replayed at once (one ``VectorEnv`` slot each); more slots mix more games per batch.
        shuffle: draw the games in a random order each pass and shuffle decisions in a buffer of
            ``buffer`` decisions; off, games are taken in order and decisions come in replay order.
        epochs: passes over the games; ``None`` repeats forever (training).
        seed: seeds the game order, the order in which identical pieces are deployed and the buffer.
        buffer: decisions held for shuffling.
        observe: encode observations; off, every field but ``obs`` is filled, several times faster
            (for statistics of the positions, such as ``value_check``'s material counts).
        sample: the share of decisions emitted, each drawn independently (1: every one).  A game's
            decisions are strongly correlated, and they share its result: with every decision of a
            few hundred games in flight at once, a value head learns to recognise those games rather
            than to judge positions (training loss far below validation loss).  Many ``slots`` and a
            small ``sample`` spread each game's decisions over many more batches among many more games.
        phases: the phases emitted (``DEPLOY``, ``SELECT``, ``DISPLACE``; default all); the others are
            replayed but neither encoded nor emitted (``value_check`` and the belief want one position
            per move: ``(SELECT,)``).

    Attributes:
        skipped: ``Counter`` of games dropped where the engine refused them (``illegal_action``,
            ``wrong_player``), and ``decisions`` emitted, ``games`` finished.

    Raises:
        ValueError: a game of another variant, or sizes below 1.
    """

    def __init__(self, games: list[HumanGame], variant: Variant | str, *, batch_size: int = 256, slots: int = 64,
                 shuffle: bool = True, epochs: int | None = 1, seed: int = 0, buffer: int = 8192,
                 observe: bool = True, sample: float = 1.0, phases: Iterable[int] = (DEPLOY, SELECT, DISPLACE)):
        self.variant = get_variant(variant)
        for name, n in (("batch_size", batch_size), ("slots", slots), ("buffer", buffer)):
            if n < 1:
                raise ValueError(f"{name} must be at least 1, got {n}")
        wrong = [g.key for g in games if g.variant != self.variant.name]
        if wrong:
            raise ValueError(f"{len(wrong)} games are not {self.variant.name} (first: {wrong[0]})")
        self.games = games
        self.batch_size, self.slots, self.shuffle, self.epochs = batch_size, slots, shuffle, epochs
        self.buffer = max(buffer, batch_size) if shuffle else batch_size
        self.rng = np.random.default_rng(seed)
        self.observe = observe
        if not 0 < sample <= 1:
            raise ValueError(f"sample must be in (0, 1], got {sample}")
        self.sample = sample
        self.phases = np.zeros(3, bool)
        wanted = list(phases)
        if not wanted or not set(wanted) <= {DEPLOY, SELECT, DISPLACE}:
            raise ValueError(f"phases must be a non-empty subset of {DEPLOY, SELECT, DISPLACE}, got {wanted}")
        self.phases[wanted] = True
        self.skipped: Counter = Counter()
        self.decisions = 0
        self.games_done = 0
        self._order = deploy_order(self.variant)

    def _game_order(self) -> Iterator[int]:
        epoch = 0
        while self.epochs is None or epoch < self.epochs:
            order = self.rng.permutation(len(self.games)) if self.shuffle else np.arange(len(self.games))
            yield from (int(i) for i in order)
            epoch += 1
            if not self.games:
                return

    def _script(self, g: HumanGame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A game's actions in replay order, each in its actor's frame, the actor of each, and for
        deployment steps the type placed (-1 for moves)."""
        n = len(self._order)
        actions = np.empty(2 * n + 2 * len(g.moves), np.int64)
        actor = np.empty_like(actions, dtype=np.int8)
        placed = np.full(len(actions), -1, np.int8)
        for p in (0, 1):
            squares = np.empty(n, np.int64)
            for t in np.unique(self._order):
                where = np.flatnonzero(g.setup[p] == t)
                slots = np.flatnonzero(self._order == t)
                if len(where) != len(slots):
                    return None
                squares[slots] = self.rng.permutation(where) if self.shuffle else where
            actions[p:2 * n:2] = squares
            actor[p:2 * n:2] = p
            placed[p:2 * n:2] = self._order
        who = np.arange(len(g.moves)) % 2
        frame = np.where(who[:, None] == 0, g.moves, 99 - g.moves.astype(np.int64))
        actions[2 * n:] = frame.reshape(-1)
        actor[2 * n:] = np.repeat(who, 2)
        return actions, actor, placed

    def __iter__(self) -> Iterator[DecisionBatch]:
        B = self.slots
        # no repetition rule, no draw limit: the records were played that way
        v = self.variant.with_rules(max_moves=0, max_moves_without_attack=0, two_squares=False, more_squares=False)
        every = self.sample >= 1 and self.phases.all()  # the env may encode every slot itself
        env = VectorEnv(B, v, setups="learned", seed=int(self.rng.integers(2**31)), auto_reset=False,
                        observe=self.observe and every)
        order = self._game_order()
        scripts: list = [None] * B
        tracker = _Origins(B)
        gid = np.full(B, -1, np.int64)
        ptr = np.zeros(B, np.int64)
        types = np.full((B, 2, 100), -1, np.int8)
        result = np.zeros((B, 2), np.float32)
        outcome = {-1: (0.0, 0.0), 0: (1.0, -1.0), 1: (-1.0, 1.0)}

        def load(b: int, reset: bool = True) -> None:
            """Put the next game with a usable setup into slot ``b`` (or leave it idle)."""
            scripts[b], gid[b] = None, -1
            for i in order:
                script = self._script(self.games[i])
                if script is None:
                    self.skipped["bad_setup"] += 1
                    continue
                if reset:
                    env.reset_slot(b)
                scripts[b], gid[b], ptr[b] = script, i, 0
                tracker.reset(b)
                types[b] = self.games[i].setup
                result[b] = outcome[self.games[i].winner]
                return

        for b in range(B):
            load(b, reset=False)
        buf = DecisionBatch.empty(self.buffer + B, NUM_PLANES if self.observe else 0)
        held = 0
        while (gid >= 0).any():
            live = np.flatnonzero(gid >= 0)
            obs, mask, player = env.observe()  # obs: not written when not observing
            actions = env.random_actions().copy()  # idle slots play anything legal (or nothing, once over)
            placed = np.empty(len(live), np.int8)
            refused = []
            for j, b in enumerate(live):
                acts, actor, kinds = scripts[b]
                k = ptr[b]
                actions[b], placed[j] = acts[k], kinds[k]
                if actor[k] != player[b] or not mask[b, acts[k]]:
                    refused.append(b)
                    self.skipped["wrong_player" if actor[k] != player[b] else "illegal_action"] += 1
            if refused:  # drop those games and look again (nothing emitted, nothing stepped)
                for b in refused:
                    load(b)
                continue
            phase = np.where(placed >= 0, DEPLOY, np.where(env.substep[live] == 0, SELECT, DISPLACE))
            square = np.where(player[live] == 0, actions[live], 99 - actions[live])  # absolute
            dep = phase == DEPLOY
            tracker.deployed(live[dep], player[live[dep]], square[dep])
            moving = live[phase == DISPLACE]  # the moves this step plays: from, to, the pieces there before
            f, t = env.selected[moving].astype(np.int64), square[phase == DISPLACE]
            attacker = env.state.board[moving, f].astype(np.int64)
            defender = env.state.board[moving, t].astype(np.int64)
            kept = self.phases[phase]
            if self.sample < 1:
                kept &= self.rng.random(live.size) < self.sample
            emit, placed, phase = live[kept], placed[kept], phase[kept]
            n, m = held, held + emit.size
            p = player[emit].astype(np.int64)
            a = actions[emit]
            if self.observe and every:
                np.take(obs, emit, axis=0, out=buf.obs[n:m])
            elif self.observe:  # the env encodes nothing itself: only the decisions kept
                for k, b in enumerate(emit):
                    env.encode(b, int(p[k]), out=buf.obs[n + k])
            np.take(mask, emit, axis=0, out=buf.mask[n:m])
            target = buf.target[n:m]
            target[:] = False
            target[np.arange(emit.size), a] = True
            dep = placed >= 0
            if dep.any():
                target[dep] = buf.mask[n:m][dep] & (types[emit[dep], p[dep]] == placed[dep][:, None])
            buf.action[n:m] = a
            buf.value[n:m] = result[emit, p]
            buf.phase[n:m] = phase
            buf.game[n:m] = gid[emit]
            buf.ply[n:m] = env.state.meta[emit, M_PLY]
            board = env.state.board[emit]
            owner, kind = codes.owners(board), codes.types(board)
            blue = p == 1  # Blue's frame is the board turned round: square s is 99 - s
            for out, side in ((buf.own_types[n:m], p), (buf.opponent_types[n:m], 1 - p)):
                out[:] = np.where(owner == side[:, None], kind, -1)
                out[blue] = out[blue, ::-1]
            buf.opponent_origins[n:m], buf.opponent_evidence[n:m] = tracker.view(emit, p, owner)
            held = m
            self.decisions += emit.size
            env.step(actions)
            tracker.moved(moving, f, t, attacker, defender, env.state.board, env.state.flags)
            ptr[live] += 1
            for b in live:
                if ptr[b] >= len(scripts[b][0]) or env.done[b]:
                    self.games_done += 1
                    load(b)
            if held >= self.buffer:
                held = yield from self._drain(buf, held, final=False)
        yield from self._drain(buf, held, final=True)

    def _drain(self, buf: DecisionBatch, held: int, final: bool) -> Iterator[DecisionBatch]:
        """Emit the buffer's first ``held`` decisions as batches (shuffled if asked); keep a partial
        batch at the front unless ``final``.  Returns how many decisions the buffer still holds."""
        order = self.rng.permutation(held) if self.shuffle else np.arange(held)
        full = held // self.batch_size * self.batch_size
        for i in range(0, full, self.batch_size):
            yield buf.take(order[i:i + self.batch_size])
        rest = order[full:]
        if not len(rest):
            return 0
        if final:
            yield buf.take(rest)
            return 0
        kept = buf.take(rest)
        for f in _FIELDS:
            getattr(buf, f)[:len(rest)] = getattr(kept, f)
        return len(rest)
