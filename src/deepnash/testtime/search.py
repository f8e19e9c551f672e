"""Belief-sampled search: play the network forward from sampled hidden states, improve the policy.

Source: the regularised policy-improvement search of Sokota et al. (2025), the Stratego agent that
followed DeepNash; our reading of it, per move:

1. sample K complete states consistent with everything public (``infostate.determinize``: revealed
   pieces keep their types, moved pieces are movable, the unrevealed counts are exact), with the
   human setup statistics tilting unmoved pieces and the memory heuristic's eliminations ruling
   types out;
2. for each of the M candidate moves of highest prior probability and each sample, play the move,
   then let the network's own policy play both sides for ``depth`` more moves, in one ``VectorEnv``
   batch of K x M games, and score the leaf with the value head, or by material (``leaf``; a
   finished game scores its result); with a Flag guard (``guard``), the leaf value also counts the
   race of any opponent piece to the player's Flag right after the candidate move (``flag_guard``);
3. ``Q(a)`` is the mean leaf value for the player to move over the samples;
4. one regularised improvement step: ``pi'(a) ∝ exp((log pi(a) + alpha Q(a)) / (1 + alpha tau))``.
   Moves outside the candidates take the prior-weighted mean ``Q`` of the candidates.

Rounds of K samples repeat while the time budget allows (the first always runs, unless a game clock's
budget, ``SearchConfig.clock``, cannot pay for it); the same samples
serve every candidate, so their ``Q`` differences are measured on common ground.  The belief is a
parameter (``Belief``): a learned model can replace the sampler.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..env.actions import square_to_action
from ..env.vector import VectorEnv
from ..game import Move
from ..game.pieces import MARSHAL, MINER, SCOUT, SPY
from ..infostate.beliefs import type_distributions
from ..infostate.determinize import load_determinization, sample_hidden
from ..infostate.observe import move_rows
from ..infostate.setup_stats import deployment_weights
from ..infostate.view import UNKNOWN, PlayerView
from .candidates import (approach_move, doomed_attacks, exposed, hanging_moves, hopeful_attack,
                         marshalled_moves, presses, spared_attacks, spied_moves)
from .clock import GameClock, critical_move
from .flag_guard import flag_danger, guarding_move
from .leaf import (PIECE_VALUES, attack_delay, battle_scores, counter_nearness, draw_nearness, flag_approach,
                   material_difference, movable_left, piece_values, public_lead)
from .memory import MemoryHeuristic
from .raid_solve import unguarding_moves
from .value_bounds import ValueFn

#: ``(obs float32[N, 82, 10, 10], follows) -> logits float32[N, 100]``: the network's policy heads (the
#: rollouts).  ``follows``, ``None`` or ``int64[N]``: at the displace step of a move, each row's row in the
#: previous call, its select step (the two observations differ in the step and selected-piece planes
#: alone), for a network that reuses work between them (``NetworkAgent``); others may ignore it.
LogitsFn = Callable[[np.ndarray, "np.ndarray | None"], np.ndarray]

#: A sampler of hidden states: ``(rng, n) -> int8[n, 100]``, ``n`` draws of a type for every opponent piece
#: (``sample_hidden``'s contract).
Sampler = Callable[[np.random.Generator, int], np.ndarray]

#: ``(view, exclude) -> Sampler``: for one position, the sampler, given the memory heuristic's eliminations
#: ``exclude: bool[100, 12]`` (``sample_hidden``'s, which a belief may use or not); the work that serves every
#: draw is done once (``testtime.belief``).
Belief = Callable[[PlayerView, np.ndarray], Sampler]

#: Where the search's samples come from (``SearchConfig.belief``), besides a belief network's directory.
BELIEF_SOURCES = ("heuristic", "public", "learned")


#: The number formats the rollouts' network may run in (``SearchConfig.precision``).
PRECISIONS = ("auto", "float32", "bfloat16")

#: How the search scores a leaf that is not the end of the game (``SearchConfig.leaf``).
LEAVES = ("value", "material", "progress", "gain")

#: Draws of the belief that give the expected score of each candidate's battle (``SearchConfig.control_variate``).
BATTLE_DRAWS = 256

#: How far ``Search.step_size`` lets ``alpha`` grow as a draw limit nears.
MAX_STEP_GAIN = 100.0

#: Against an opponent that does not press (``SearchConfig.passive``), how far beyond the unfinished lines of a round
#: a finished game scores at least: a loss at most the lowest leaf less this, a win at least the highest plus this
#: (and -1 and 1 where the leaves stay inside them).  There the draw term can score a leaf below -1, so a line that
#: drifted to the draw limit scored below the line that lost at once, and the search took it (against ``sure``, a
#: lone Marshal that traded itself for the opponent's Marshal and left no movable piece, twice in 200 games of seed
#: 610).  Against every opponent it went 35-1-4 in the first 40 games of ``cautious``'s seed 507, where the search
#: before went 39-0-1, so it stays with the passive ones, as ``movable_left``'s leaves do.
DECIDED_MARGIN = 0.1

#: Draws of the belief that choose ``approach_move`` (``SearchConfig.approach``).
APPROACH_DRAWS = 16

#: How near a draw limit (``counter_nearness``) the root must be for ``SearchConfig.approach`` to apply
#: against an opponent that presses: half the no-attack count, 100 plies in Classic, leaves a Miner time to walk.
APPROACH_NEARNESS = 0.5

#: Against an opponent ``passive`` takes for one that does not press, the ``approach_move`` enters with the top
#: move's prior, and its ``Q`` counts ``MARCH`` times ``SearchConfig.approach`` more (0.15 at the shipped 0.05),
#: unless it is ``exposed``: the step it gains is worth ``approach`` on average, less than the spread of two
#: plies of rollouts, so that a won ending was walked a step forward and a step back for hundreds of plies;
#: with the bonus it is played unless another move scores that much better, such as a capture.  Without the
#: exception the bonus walked revealed pieces up to the passive bot's Marshal, which took them: 2 games of 50
#: against ``sure`` lost with no piece left to move.
MARCH = 3.0

#: The least prior the guard's answer to a raid enters the improvement with (``SearchConfig.guard``), as a
#: fraction of the top move's: people seldom play the one quiet move that keeps the Flag, and a prior
#: hundreds of times below the top one outweighed a race the search found lost on every other move.  With
#: ``alpha`` 10 the answer still needs ``Q`` about 0.23 above the top move's to overtake it.  The
#: ``approach_move`` (``SearchConfig.approach``) enters with it too.
GUARD_PRIOR = 0.1


@dataclass(frozen=True)
class SearchConfig:
    """Settings of the search (agent spec options of the same names).

    Attributes:
        samples: K, determinisations per round.
        depth: moves played by the policy after the candidate move (both players), before the
            value head scores the position.
        candidates: M, the moves of highest prior probability whose ``Q`` is estimated; with ``contempt``
            above 0, the attack of highest prior that may not lose (public information alone,
            ``fight_odds``) is always one of them, in place of the M-th: an attack on an unknown piece
            is progress, a piece thrown away to reset the no-attack count is not.
        seconds: time budget per move; rounds stop once another would exceed it.  With ``clock``, unused.
        clock: seconds for the player's whole game (a ``clock.GameClock``), 0 for none: each move's budget is
            then what is left spread over the moves to come, three times as much for a critical move (a
            battle among the candidates, a raid on the Flag), and the time every move takes, network and
            search, is charged to it.  A move whose budget cannot pay for one more round plays the prior.
        increment: seconds added to ``clock`` after each move (0: none; needs ``clock``).
        rounds: most rounds per move (0: as many as the time allows).
        alpha: step size of the improvement.
        tau: its regularisation temperature (towards the prior).
        leaf: how a leaf that is not the end of the game is scored: ``value`` (the value head) or
            ``material`` (``tanh`` of the player's piece values less the opponent's, ``piece_values``,
            on the sampled complete state), for a network whose value head says little, or
            ``progress``: the material score times ``1 - r**2``, ``r`` how near the leaf is to a
            draw limit (``draw_nearness``), so that a lead is worth less the closer the draw:
            the side ahead attacks, and the side behind stalls; or ``gain``: ``progress`` with the
            material term measured from the root, ``tanh`` of the material the line wins or loses on
            the sample (``tanh(d_leaf - d_root) - r**2 tanh(d_leaf)``, ``d`` the material difference),
            so that a Marshal lost costs as much far ahead or far behind as level.  A rollout that
            ends drawn is scored as a leaf at the limit (``r = 1``), so that a draw is never worth
            more than the position one move before it.
        piece_values: what each piece is worth to the ``material``, ``progress`` and ``gain`` leaves:
            ``thesis``, the thesis seed's table (``beliefs.PIECE_VALUE``: Marshal 1, Sergeant 0.3, Bomb
            0.5); ``people``, the worth people's results give each type in the variant
            (``beliefs.PEOPLE_PIECE_VALUE``: Marshal 0.91, Sergeant 0.14, Bomb 0.06 in Classic), for which
            ``tanh`` of the material a line wins is the change of ``2 P(win) - 1`` people's games predict.
        value_weight: with a material leaf (``material``, ``progress``, ``gain``), the value head's judgement of
            each unfinished leaf (``P(win) - P(loss)`` for the player searching), times ``value_weight``, is added
            to its score (0: the value head is not read).  The material a line wins is the same on most quiet
            moves; the value tells them apart by what it learnt from people's results.
        contempt: how much worse than even a draw is for the player searching, in [0, 1], as chess
            engines' contempt: the draw term pulls a leaf towards ``-contempt`` instead of 0
            (``- r**2 (tanh(d_leaf) + contempt)``; a drawn rollout scores ``-contempt`` with
            ``value`` and ``material`` leaves), so that a player level or a little behind still
            attacks before a draw limit; the candidates always hold an attack (``candidates``); and the
            improvement's step grows as the root nears a draw limit (``Search.step_size``), so that ``Q``,
            not the prior, decides the last moves before a draw.  0: a draw is worth 0.
        guard: how much a raid on the player's Flag costs, in [0, 1] (``flag_guard``): a leaf's value ``v``
            becomes ``v (1 - guard D) - guard D``, ``D`` the ``flag_danger`` of its sample right after the
            candidate move (an opponent piece racing a defender to the Flag, a hidden one that may be a
            Miner also as a Miner at half weight; 1 when the race is lost), and
            the candidates always hold the ``guarding_move`` of the most pressing raid on public
            information, in place of the lowest-ranked one, with at least ``GUARD_PRIOR`` times the top
            move's prior.  0: raids are left to the rollouts.
        rollout_threshold: the rollout policies drop actions below this probability and renormalise, as
            the test-time layer's thresholding does for the agent's own play (0: the raw policy).
        belief: where the samples come from: ``heuristic``, the public information tilted by human
            setup statistics, less the memory heuristic's eliminations; ``public``, the same without the
            tilt (every placement the public information allows equally likely: an opponent that does not
            deploy as people do, such as the bots); ``learned``, the belief network
            shipped for the variant (``testtime.belief``); or the directory of a belief network's run
            or checkpoint (``deepnash pretrain-belief``).  The agent resolves it (``agents.network_agent``).
        rollouts: which network plays the rollouts and scores the leaves: ``own``, the agent's own (the one
            whose policy is the prior); ``shipped``, the network shipped for the variant; or a run or checkpoint
            directory (its ``target`` weights where it has them).  The prior stays the agent's own network's.
            The agent resolves it (``agents.network_agent``).
        control_variate: with the material leaves (``material``, ``progress``, ``gain``), correct each round's
            ``Q`` of a candidate that attacks a hidden piece by the battle's own score: the mean over the round's
            samples of what the battle alone scores (``battle_scores``) is replaced by its expectation over
            ``BATTLE_DRAWS`` draws of the belief.  The estimate stays unbiased and loses most of its spread:
            eight samples of a Marshal's attack on a piece that is a Bomb one time in three hit no Bomb one
            time in forty, and the search would then make that attack as if it were safe.
        precision: the number format of the rollouts' network and of the value at their leaves:
            ``float32``; ``bfloat16`` (weights and activations; the policy heads' choices are samples,
            which 8 bits of mantissa barely move, the leaf values move by about 0.007 on average, and
            oneDNN runs them about 1.7x faster where the CPU has AVX-512 BF16 instructions); ``auto``,
            ``bfloat16`` where oneDNN reports bfloat16 support, else ``float32``.  The root's prior
            and value bounds stay in ``float32``.  The agent applies it.
        spare: the lowest rank of the player's pieces kept from attacking an opponent piece that is hidden
            and has never moved while one of the opponent's Bombs is unrevealed (``spared_attacks``: 9, the
            General and the Marshal; 0: none): the search drops those attacks from the prior before it
            ranks the candidates, unless nothing else is allowed.  Eight samples and a prior that likes
            such attacks do not keep the pieces that win the game off the Bombs: against ``sure``, Bombs
            took 45 of the 76 Marshals and Generals the shipped agent lost in 40 games.  Against an opponent
            ``passive`` takes for one that does not press, whose unmoved pieces stay unmoved, those attacks are
            no attacks to come in the draw term either (``attack_delay``), nor ways to its Flag (``approach``).
        passive: after this many plies (0: never), an opponent that has not once lost or tied an attack is
            taken for one that does not press its lead (``presses``): the draw term no longer rewards the player
            behind for stalling, ``- r**2 (max(tanh(d_leaf), 0) + contempt)``, so that a draw is worth
            ``-contempt`` however far behind.  Against such a bot a lead does not win, and a draw is no rescue:
            most of the passive bots' last draws were stalled by a player behind on the piece table.  The
            bots risk no attack (``turtle`` and ``sure`` lost or tied none in 147 of 160 games); people had
            lost or tied one by ply 200 in all but 2 of 904 player-games that lasted longer (Gravon 2014-10),
            ``cautious`` and ``mcts`` by ply 184 in all of 400 games.
        approach: against an opponent that ``passive`` takes for one that does not press, and against any
            opponent once the root is ``APPROACH_NEARNESS`` near a draw limit, what a leaf gains for each rook step
            the player's nearest piece has come nearer the opponent's (sampled) Flag since the root
            (``flag_approach``; against an opponent that does not press, the pieces ``spare`` keeps from attacking
            unmoved pieces do not pass them; 0: nothing), so that quiet moves make progress where the few plies
            searched win no material.  With a won ending on the board (``turtle`` left with a General, six
            revealed Bombs and its Flag, against five Miners), the shipped agent shuffled for 1,600 plies, sent a
            piece onto a known Bomb each time the no-attack count neared its limit, and drew by the move limit.
            0.05 is a sixth of a Miner on the thesis's table: it decides among quiet moves and buys no material.
            The candidates then always hold the ``approach_move`` (over ``APPROACH_DRAWS`` draws of the belief), in
            place of the lowest-ranked one, with at least ``GUARD_PRIOR`` times the top move's prior: the prior
            seldom moves the back-row Miners that such an ending needs.  Against an opponent that does not press it
            enters with the top move's prior, and ``MARCH`` times ``approach`` added to its ``Q``, unless an opponent
            piece that may take the marching piece stands near (``exposed``; for a hidden one, an opponent that has
            attacked).  Against ``cautious``, the draws left are endings of the same kind: its Marshal alone beside
            its Bombs and Flag, and the agent's few pieces, a Miner among them, out of reach of both.
        sacrifice: whether the prior keeps the player's attacks that lose for certain on public information
            (``doomed_attacks``: a Scout on a revealed Bomb, a Captain on a revealed Major).  False: the search
            drops them from the prior before it ranks the candidates, as ``spare`` does, unless nothing else is
            allowed.  Such an attack wins nothing, learns nothing, and resets the no-attack count: the shipped
            agent made 99 of them in 200 games against ``cautious``, and against the passive bots threw a piece
            on a known Bomb each time the count neared its limit.
        spy_guard: drop from the prior the moves after which the player's Marshal, known to the opponent,
            stands next to an opponent piece that is or may be its Spy (``spied_moves``; where every move does,
            all but the least exposed), the guard's answer to a raid too.  A Spy takes the Marshal it attacks,
            and eight samples seldom put the Spy on the one square: against ``cautious``, whose Spy walks
            towards a revealed Marshal, the shipped agent lost its Marshal to the Spy in 8 of 28 games, each
            time by stepping or attacking next to it.
        general_guard: the same for the player's General and the opponent's Marshal, counting only opponent
            pieces that have moved or are revealed (``marshalled_moves``): against ``cautious``, the hidden
            Marshal took our revealed General in 4 of the 9 games lost in 200 of seed 507 (and in 31 of the
            186 won), each time after it had stepped or attacked next to it deep in the opponent's half (in
            three of the four it had moved); with the guard, in 4 games of 200, all won.
        hang_guard: drop from the prior the quiet moves that leave the moving piece hanging (``hanging_moves``):
            next to a revealed opponent piece that takes it, with none of the player's pieces beside it to take
            that piece back; where every move does, none is dropped.  ``cautious`` takes such a piece nearly
            every time (in 200 games of seed 507, 294 of the 324 such steps the shipped agent played were
            taken the next ply: 5.6 a lost game, 1.5 a won one); the rollouts' opponent, which plays as people
            do and fears a bluff, often does not, so the search does not see it.
        hold: drop from the prior the moves after which more raids on the player's Flag are forced than after
            the best move (``raid_solve.unguarding_moves``): each hidden opponent piece, raced as a Miner where
            it may be one (else as the weakest type it may be), as the strongest type it is at least a quarter
            of the time, and as a Scout where it may be one, and each revealed movable piece, against the
            player's pieces that stop it, solved exactly by retrograde analysis with one of them moving and
            the others standing.  Every legal move is raced, not only
            the prior's: where the prior holds none of the moves that force the fewest raids (the test-time
            layer's pointless threats and value bounds may take out the one move that blocks a Scout's run),
            those moves join it, each with the prior's least probability, before the others are dropped.
            ``guard`` weighs the races on a round's samples and brings in one answer; in 7 of the 14 games
            ``cautious`` won by taking the Flag, in 200 against ``shipped:classic``, the agent had played a
            move that lost a held race in the last 40 plies.
    """

    samples: int = 8
    depth: int = 6
    candidates: int = 6
    seconds: float = 1.0
    clock: float = 0.0
    increment: float = 0.0
    rounds: int = 0
    alpha: float = 3.0
    tau: float = 0.0
    rollout_threshold: float = 0.03
    leaf: str = "value"
    piece_values: str = "thesis"
    value_weight: float = 0.0
    belief: str = "heuristic"
    rollouts: str = "own"
    precision: str = "auto"
    contempt: float = 0.0
    guard: float = 0.0
    control_variate: bool = True
    spare: int = 0
    passive: int = 0
    approach: float = 0.0
    sacrifice: bool = True
    spy_guard: bool = False
    general_guard: bool = False
    hang_guard: bool = False
    hold: bool = False

    def __post_init__(self) -> None:
        for name in ("samples", "candidates"):
            if getattr(self, name) < 1:
                raise ValueError(f"search {name} must be at least 1, got {getattr(self, name)}")
        if not (self.spare == 0 or SPY < self.spare <= MARSHAL):
            raise ValueError(f"search spare must be 0 or a rank from {SCOUT} to {MARSHAL}, got {self.spare}")
        if self.depth < 0 or self.rounds < 0 or self.passive < 0:
            raise ValueError(f"search depth, rounds and passive must be >= 0, got {self.depth}, {self.rounds} and "
                             f"{self.passive}")
        if self.leaf not in LEAVES:
            raise ValueError(f"search leaf {self.leaf!r}: choose one of {', '.join(LEAVES)}")
        if self.piece_values not in PIECE_VALUES:
            raise ValueError(f"search piece_values {self.piece_values!r}: choose one of {', '.join(PIECE_VALUES)}")
        if self.precision not in PRECISIONS:
            raise ValueError(f"search precision {self.precision!r}: choose one of {', '.join(PRECISIONS)}")
        if not self.belief:
            raise ValueError(f"search belief: choose {', '.join(BELIEF_SOURCES)} or a belief network's directory")
        if not self.rollouts:
            raise ValueError("search rollouts: choose own, shipped or a checkpoint directory")
        if min(self.approach, self.value_weight) < 0:
            raise ValueError(f"search approach and value_weight must be >= 0, got {self.approach} and "
                             f"{self.value_weight}")
        for name in ("contempt", "guard"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"search {name} must be in [0, 1], got {getattr(self, name)}")
        if not 0 <= self.rollout_threshold < 1:
            raise ValueError(f"search rollout_threshold must be in [0, 1), got {self.rollout_threshold}")
        if not self.clock >= 0 or not self.increment >= 0 or (self.increment > 0 and not self.clock > 0):
            raise ValueError(f"search clock and increment must be >= 0 seconds, an increment with a clock, got "
                             f"{self.clock}, {self.increment}")
        if not self.seconds > 0 or not self.alpha >= 0 or not self.tau >= 0:
            raise ValueError(f"search needs seconds > 0, alpha >= 0 and tau >= 0, got "
                             f"{self.seconds}, {self.alpha}, {self.tau}")


@dataclass(frozen=True)
class SearchResult:
    """One move's search.

    Attributes:
        prior: the network's policy over the allowed moves (sums to 1).
        q: the estimated ``Q`` of each candidate, for the player to move, in [-1, 1].
        policy: the policy played over the allowed moves (sums to 1): the improved policy.
        samples: determinisations used per candidate; ``rounds`` how many rounds; ``seconds`` the time spent.
    """

    prior: dict[Move, float]
    q: dict[Move, float]
    policy: dict[Move, float]
    samples: int
    rounds: int
    seconds: float


def improve(prior: dict[Move, float], q: dict[Move, float], alpha: float, tau: float) -> dict[Move, float]:
    """The regularised improvement step ``pi'(a) ∝ exp((log pi(a) + alpha Q(a)) / (1 + alpha tau))``.

    Args:
        prior: ``pi`` over the moves (positive entries; zero-probability moves stay at zero).
        q: ``Q`` of some of the moves; the others take the ``pi``-weighted mean of these.

    Returns:
        ``pi'`` over the moves of ``prior``, summing to 1.

    Raises:
        ValueError: ``prior`` is empty or has no positive entry, or ``q`` names a move not in ``prior``.
    """
    if not prior or max(prior.values()) <= 0:
        raise ValueError("the prior needs a move of positive probability")
    if not set(q) <= set(prior):
        raise ValueError(f"Q given for moves outside the prior: {sorted(map(str, set(q) - set(prior)))}")
    mass = sum(prior[m] for m in q)
    baseline = sum(prior[m] * q[m] for m in q) / mass if mass > 0 else 0.0
    logits = {m: (math.log(p) + alpha * q.get(m, baseline)) / (1 + alpha * tau)
              for m, p in prior.items() if p > 0}
    top = max(logits.values())
    weights = {m: math.exp(v - top) for m, v in logits.items()}
    total = sum(weights.values())
    return {m: weights.get(m, 0.0) / total for m in prior}


class Search:
    """The search of one player over a game: its belief, its rollout batch and its time budget.

    Args:
        logits_fn: the policy heads (``LogitsFn``), called on batches of rollout positions.
        value_fn: the value head (``value_bounds.ValueFn``), called on the unfinished leaves with
            ``leaf="value"``.
        config: the settings.
        belief: the sampler of hidden states (``Belief``); ``None``: ``sample_hidden`` with the human
            setup statistics of the variant and the memory heuristic's eliminations.
        clock: seconds, for the budget (default ``time.perf_counter``; tests pass a fake).
    """

    def __init__(self, logits_fn: LogitsFn, value_fn: ValueFn, config: SearchConfig | None = None,
                 belief: Belief | None = None, clock: Callable[[], float] = time.perf_counter):
        self.logits_fn, self.value_fn = logits_fn, value_fn
        self.config, self.clock = config or SearchConfig(), clock
        self._belief = belief
        self._memory = MemoryHeuristic()
        self._env: VectorEnv | None = None
        self._weights: np.ndarray | None = None
        self._game_clock: GameClock | None = None
        self._round_seconds = 0.0  # the last round's time: whether a clock's budget pays for another
        self._asked: np.ndarray | None = None  # the rows of the last select-step rollout call (``follows``)

    def reset(self, variant, player: int) -> None:
        """Start a new game as ``player``.

        Raises:
            ValueError: ``piece_values=people`` on a variant people's games give no values for.
        """
        self._memory = MemoryHeuristic()
        cfg = self.config
        self._game_clock = GameClock(cfg.clock, cfg.increment) if cfg.clock > 0 else None
        self._round_seconds = 0.0
        self._weights = None if cfg.belief == "public" else deployment_weights(variant, 1 - player)
        piece_values(cfg.piece_values, variant)  # a variant without the values fails here, not mid-game

    def sample(self, view: PlayerView, rng: np.random.Generator, n: int | None = None) -> np.ndarray:
        """``int8[100]``: one hidden state of the opponent (see ``Belief``); with ``n``, ``int8[n, 100]``."""
        draws = self._sampler(view)(rng, 1 if n is None else n)
        return draws[0] if n is None else draws

    def _sampler(self, view: PlayerView) -> Sampler:
        """Draws of hidden states for ``view``, with what they need from the game so far worked out once."""
        exclude = self._ruled_out(view)
        if self._belief is not None:
            return self._belief(view, exclude)
        return lambda rng, n: sample_hidden(view, rng, self._weights, exclude=exclude, n=n)

    def _ruled_out(self, view: PlayerView) -> np.ndarray:
        """``bool[100, 12]``: the types the memory heuristic rules out on each square."""
        self._memory.update(view)
        board = self._memory.board
        out = np.zeros((100, 12), dtype=bool)
        on = np.flatnonzero(board.piece >= 0)
        out[on] = self._memory.ruled_out[board.piece[on]]
        return out

    @property
    def clock_left(self) -> float | None:
        """Seconds left on the game clock (``SearchConfig.clock``), ``None`` without one."""
        return None if self._game_clock is None else self._game_clock.left

    def run(self, view: PlayerView, prior: dict[Move, float], rng: np.random.Generator,
            started: float | None = None) -> SearchResult:
        """Search ``view``'s position (``view.player`` to move) from ``prior`` over its allowed moves.

        Args:
            started: when the move began, on ``clock`` (default: now): the time spent before, on the prior,
                counts against the move's budget and the game clock.

        Raises:
            ValueError: ``prior`` is empty, has no positive entry, or names an illegal move.
        """
        start = self.clock() if started is None else started
        cfg = self.config
        if not prior or max(prior.values()) <= 0:
            raise ValueError(f"ply {view.ply}: the search needs a prior with a move of positive probability")
        if not set(prior) <= set(view.legal_moves):
            raise ValueError(f"ply {view.ply}: the prior names illegal moves")
        given = prior
        unguarding = unguarding_moves(view, view.legal_moves) if cfg.hold else set()
        if unguarding and all(m in unguarding for m, p in prior.items() if p > 0):
            floor = min(p for p in prior.values() if p > 0)
            prior = prior | {m: floor for m in view.legal_moves if m not in unguarding}
        dropped = (spared_attacks(view, prior, cfg.spare) if cfg.spare else set()) | (
            set() if cfg.sacrifice else doomed_attacks(view, prior)) | (
            spied_moves(view, prior) if cfg.spy_guard else set()) | (
            marshalled_moves(view, prior) if cfg.general_guard else set()) | (
            hanging_moves(view, prior) if cfg.hang_guard else set()) | (
            unguarding & set(prior))
        if dropped and any(p > 0 for m, p in prior.items() if m not in dropped):
            prior = {m: 0.0 if m in dropped else p for m, p in prior.items()}
        ranked = sorted((m for m in prior if prior[m] > 0), key=lambda m: -prior[m])
        # a player that wants more than a draw weighs an attack; one that guards its Flag, the answer to a raid
        raid = guarding_move(view) if cfg.guard > 0 or self._game_clock is not None else None
        hopeful = hopeful_attack(view, ranked) if cfg.contempt > 0 else None
        meek = bool(cfg.passive) and view.ply >= cfg.passive and not presses(view)
        draw = self._sampler(view) if len(ranked) > 1 else None
        # against an opponent that does not press, or with a draw limit near, the quiet move that brings the
        # army nearest the opponent's Flag
        closing = cfg.approach > 0 and (meek or counter_nearness(view.moves_since_attack, view.ply, view.variant)
                                        >= APPROACH_NEARNESS)
        # against an opponent that does not press, its unmoved pieces stay unmoved: the pieces ``spare`` keeps off
        # them neither attack them nor pass them (``leaf.spared_squares``)
        spare = cfg.spare if meek else 0
        nearer = approach_move(view, ranked, draw(rng, APPROACH_DRAWS), spare) if closing and draw else None
        forced = [m for m in (hopeful, raid if cfg.guard > 0 else None, nearer)
                  if m is not None and prior.get(m, 0) > 0]
        march = meek and nearer is not None and not exposed(view, nearer)
        # of the top move's prior
        least = {raid: GUARD_PRIOR, nearer: 1.0 if march else GUARD_PRIOR}
        lifted = {m: least[m] * prior[ranked[0]] for m in (raid, nearer)
                  if m in forced and prior[m] < least[m] * prior[ranked[0]]}
        if lifted:
            raised = {m: lifted.get(m, p) for m, p in prior.items()}
            total = sum(raised.values())
            prior = {m: p / total for m, p in raised.items()}
        top = ranked[:cfg.candidates]
        cands = list(dict.fromkeys(top[:cfg.candidates - len(set(forced) - set(top))] + forced))
        total = np.zeros(len(cands))
        n = rounds = 0
        budget = cfg.seconds
        if self._game_clock is not None:
            budget = self._game_clock.budget(view.variant, view.ply, critical_move(view, cands, raid))
        if draw is not None and (self._game_clock is None or self.clock() + self._round_seconds <= start + budget):
            # squares whose hidden piece ``flag_danger`` also races as a Miner: the same every round
            may_mine = ((view.owner == 1 - view.player) & (view.types == UNKNOWN)
                        & (type_distributions(view)[:, MINER] > 0)) if cfg.guard > 0 else None
            control = cfg.control_variate and cfg.leaf != "value"
            if control:  # the expected score of each candidate's own battle
                worth = piece_values(cfg.piece_values, view.variant)
                base = 0.0 if cfg.leaf == "gain" else public_lead(view, worth)
                expected = battle_scores(view, cands, draw(rng, BATTLE_DRAWS), worth, base).mean(axis=0)
            while True:
                t0 = self.clock()
                hidden = draw(rng, cfg.samples)
                total += self._round(view, cands, hidden, rng, may_mine, meek, closing)
                if control:
                    total -= battle_scores(view, cands, hidden, worth, base).sum(axis=0) - cfg.samples * expected
                n += cfg.samples
                rounds += 1
                now = self.clock()
                self._round_seconds = now - t0
                if (cfg.rounds and rounds >= cfg.rounds) or now + self._round_seconds > start + budget:
                    break
        q = {m: float(total[i] / n) for i, m in enumerate(cands)} if n else {}
        marched = dict(q)
        if march and nearer in q:
            marched[nearer] += MARCH * cfg.approach
        policy = improve(prior, marched, self.step_size(view), cfg.tau)
        spent = self.clock() - start
        if self._game_clock is not None:
            self._game_clock.charge(spent)
        return SearchResult(dict(given), q, policy, n, rounds, spent)

    def step_size(self, view: PlayerView) -> float:
        """The improvement's ``alpha`` at ``view``'s position: ``SearchConfig.alpha``, and with ``contempt``
        above 0, ``alpha / (1 - r**2)`` for ``r`` the root's ``counter_nearness`` (at most ``MAX_STEP_GAIN``
        times ``alpha``): as a draw limit nears, the prior, people's moves that seldom met the limit, gives
        way to ``Q``, whose draw term is then the same on every sample."""
        cfg = self.config
        if cfg.contempt <= 0:
            return cfg.alpha
        r = float(counter_nearness(view.moves_since_attack, view.ply, view.variant))
        return cfg.alpha / max(1.0 - r * r, 1.0 / MAX_STEP_GAIN)

    def _round(self, view: PlayerView, cands: list[Move], hidden: np.ndarray, rng: np.random.Generator,
               may_mine: np.ndarray | None, meek: bool, closing: bool) -> np.ndarray:
        """The summed leaf values of each candidate over the determinisations ``hidden: int8[K, 100]``
        (``may_mine: bool[100]``, with ``guard``: the squares ``flag_danger`` also races as a Miner's;
        ``meek``: the opponent is taken for one that does not press, ``SearchConfig.passive``; ``closing``: a step
        nearer the opponent's Flag scores ``SearchConfig.approach``)."""
        cfg, me = self.config, view.player
        k, m = len(hidden), len(cands)
        env, self._asked = self._batch(view, k * m), None
        rows = move_rows(view.history)
        for s in range(k):
            load_determinization(view, hidden[s], env.state, s * m)
            for c in range(m):  # every candidate starts from the same sample
                if c:
                    env.state.copy_game(s * m, s * m + c)
                env.resume(s * m + c, rows)
        result = np.full(k * m, np.nan)  # the result for ``me`` of games that ended
        drawn = np.zeros(k * m, bool)  # games that ended drawn: scored as leaves at the draw limit
        # ``leaf=gain``: the material difference on each sample, before the candidate move
        worth = piece_values(cfg.piece_values, view.variant)
        root = material_difference(env.state.board, me, worth) if cfg.leaf == "gain" else None
        # ``approach``: how near the player's pieces are to the opponent's Flag on each sample, before the move
        # (the same for every candidate of a sample, so each sample's search is made once)
        spare = cfg.spare if meek else 0  # as in ``run``
        near_flag = (np.repeat(flag_approach(env.state.board[::m], me, env.state.flags[::m], spare), m)
                     if closing else None)
        first = np.array([[square_to_action(c.from_sq, me), square_to_action(c.to_sq, me)] for c in cands])
        for step in range(2):
            self._step(env, np.tile(first[:, step], k), result, drawn, me)
        # the raids after the candidate move, before the rollouts blur them (``flag_guard``)
        danger = (cfg.guard * flag_danger(env.state.board, env.player, me, may_mine) if cfg.guard > 0
                  else np.zeros(k * m))
        for _ in range(2 * cfg.depth):
            live = np.isnan(result)
            if not live.any():
                break
            self._step(env, self._rollout_actions(env, live, rng), result, drawn, me)
        live = np.isnan(result)
        if meek:  # a player left without a movable piece loses at its next turn, which the rollout did not reach;
            # scored as a leaf, the draw term (no attack to come) made it a draw
            mine, theirs = movable_left(env.state.board, me), movable_left(env.state.board, 1 - me)
            result[live & ~mine & theirs], result[live & mine & ~theirs] = -1.0, 1.0
            stuck = live & ~mine & ~theirs
            result[stuck], drawn = 0.0, drawn | stuck
            live = np.isnan(result)
        if cfg.leaf == "value":
            if live.any():
                result[live] = self._values_for(env, live, me)
            result[drawn] = -cfg.contempt
        elif (leaf := live | drawn).any():
            lead = material_difference(env.state.board[leaf], me, worth)
            if cfg.leaf == "material":
                near = np.zeros(leaf.sum())
            else:  # with contempt, the count goes on until the player's nearest attack can land
                delay = attack_delay(env.state.board[leaf], env.player[leaf], me, env.state.flags[leaf],
                                     spare) if cfg.contempt > 0 else 0
                near = draw_nearness(env.state.meta[leaf], view.variant, delay) ** 2
            near[drawn[leaf]] = 1.0
            gained = np.tanh(lead - root[leaf]) if cfg.leaf == "gain" else np.tanh(lead)
            behind = 0.0 if meek else -1.0  # the least a lead of the opponent's counts for in the draw term
            result[leaf] = gained - near * (np.maximum(np.tanh(lead), behind) + cfg.contempt)
            if near_flag is not None:  # against an opponent that does not press, a step nearer its Flag is progress
                result[leaf] += cfg.approach * (near_flag[leaf] - flag_approach(env.state.board[leaf], me,
                                                                                env.state.flags[leaf], spare))
            if cfg.value_weight > 0 and live.any():  # the value's judgement of the unfinished leaves
                result[live] += cfg.value_weight * self._values_for(env, live, me)
        pending = live | drawn  # the games the rollouts did not decide
        result[pending] = result[pending] * (1 - danger[pending]) - danger[pending]
        if meek and pending.any() and not pending.all():  # a lost game is worse than any unfinished line, a won one
            # better (against an opponent that presses, as before: measured, ``DECIDED_MARGIN``)
            decided = ~pending
            result[decided & (result < 0)] = min(-1.0, result[pending].min() - DECIDED_MARGIN)
            result[decided & (result > 0)] = max(1.0, result[pending].max() + DECIDED_MARGIN)
        return result.reshape(k, m).sum(axis=0)

    def _values_for(self, env: VectorEnv, rows: np.ndarray, me: int) -> np.ndarray:
        """``float[R]``: the value head's judgement of the games ``rows`` (``bool[B]``) of ``env`` for player ``me``
        (the value is the player to move's, so it is negated where the opponent moves)."""
        value = self.value_fn(env.obs[rows])
        return np.where(env.player[rows] == me, value, -value)

    def _rollout_actions(self, env: VectorEnv, live: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``int64[B]``: the rollout policy's action in each live game.  A game with one legal action
        (a selected piece with one square to go to, a player with one piece that can move) takes it
        without asking the network, whose policy gives it probability 1 there."""
        mask = env.mask
        select = env.substep[np.argmax(live)] == 0  # the games step together: every live row is at the same step
        actions = mask.argmax(axis=1)
        ask = live & (mask.sum(axis=1) > 1)
        rows, asked, self._asked = np.flatnonzero(ask), self._asked, None
        if len(rows):
            follows = None
            if not select and asked is not None and np.isin(rows, asked).all():
                follows = np.searchsorted(asked, rows)  # each game's select step, in the last call
            every = len(rows) == len(ask)  # no copy of the observations when every game asks
            logits = self.logits_fn(env.obs if every else env.obs[ask], follows)
            actions[ask] = _sample(logits, mask if every else mask[ask], rng, self.config.rollout_threshold)
            self._asked = rows if select else None
        return actions

    @staticmethod
    def _step(env: VectorEnv, actions: np.ndarray, result: np.ndarray, drawn: np.ndarray, me: int) -> None:
        """Play ``actions`` in the live games (``result`` NaN); a game that ends gets its result for ``me``
        in ``result``, and a draw is also marked in ``drawn``."""
        live = np.isnan(result)
        env.step(np.where(live, actions, 0))
        ended = live & env.done
        result[ended] = env.rewards[ended, me]
        drawn |= ended & (env.rewards[:, me] == 0)

    def _batch(self, view: PlayerView, size: int) -> VectorEnv:
        if self._env is None or self._env.batch_size != size or self._env.variant != view.variant:
            self._env = VectorEnv(size, view.variant, setups="random", auto_reset=False)
        return self._env


def _sample(logits: np.ndarray, mask: np.ndarray, rng: np.random.Generator, threshold: float = 0.0) -> np.ndarray:
    """``int64[N]``: one action per row from the softmax of ``logits`` over ``mask``, less the actions
    below ``threshold`` (the most probable one always stays)."""
    z = np.where(mask, logits.astype(np.float64), -np.inf)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    p[(p < threshold) & (z < 0)] = 0.0
    cum = p.cumsum(axis=1)
    x = (1.0 - rng.random((len(p), 1))) * cum[:, -1:]  # in (0, total]: never lands on a zero entry
    return (cum < x).sum(axis=1)
