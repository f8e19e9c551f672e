"""The network agent: plays a trained DeepNash network (deployment head, then select + displace).

Agent specs: ``checkpoint:DIR`` (a training run or checkpoint directory) and
``shipped`` / ``shipped:barrage`` for the weights shipped in ``deepnash/data/``.
Options: ``weights=online|target`` (which network of the checkpoint),
``greedy=true`` (argmax instead of sampling from the policy), ``setup=human`` (deploy
from a setup people played instead of the deployment head; also ``random``, ``guarded``), every field of
``TestTimeConfig`` (the layers' switches ``value_bounds=off`` ... and their
parameters ``eps_vb=0.1`` ...), and ``search=on`` with every field of
``SearchConfig`` (``samples``, ``depth``, ``candidates``, ``seconds``, ...).

The observation is rebuilt from the ``PlayerView`` alone (``infostate.observe``).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from ..env.actions import action_to_square, deploy_order, square_to_action
from ..env.planes import P_STEP
from ..game import Move, Outcome, Variant, get_variant
from ..game import kernels as K
from ..game.codes import code_of
from ..game.pieces import FLAG
from ..infostate.observe import observe_deployment, observe_view
from ..infostate.setup_library import LIBRARY_FILE, SetupLibrary
from ..infostate.tracking import flag_odds, possible_types
from ..infostate.view import PlayerView
from ..nn import DeepNashNet, NetConfig, masked_log_policy
from ..testtime import DecisionLog, LayerEffect, TestTimeConfig, TestTimeLayer, TurnPlan
from ..testtime.belief import LearnedBelief, people_marginals
from ..testtime.search import Belief, Search, SearchConfig
from .base import check_disguise, check_setup_source, draw_setup
from .registry import AgentSpecError, register_agent

if TYPE_CHECKING:
    from ..nn.checkpoint import Checkpoint

#: Where shipped weights live: ``deepnash/data/shipped/<variant>/`` (a checkpoint directory).
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "data" / "shipped"
#: Beside shipped weights, the options its agent plays with unless the spec says otherwise (optional).
SHIPPED_OPTIONS = "agent.json"
#: The variant ``shipped`` plays when the spec names none.
SHIPPED_VARIANT = "barrage"


class NetworkAgent:
    """Plays with a ``DeepNashNet``: deploys with the deployment head, moves by select then displace.

    Args:
        net: the network (put in eval mode; runs on CPU).
        greedy: take the most probable action instead of sampling the policy.
        name: shown in tables (the registry sets it to the spec string).
        testtime: the test-time layer's switches (``deepnash.testtime``); ``None`` plays the raw policy.
        setup: ``own`` deploys with the deployment head; ``human``, ``guarded`` or ``random`` draws the
            setup from that source instead (``agents.base.draw_setup``), with the seed given to ``reset``.
        disguise: rearrange the lanes of the people's setup drawn (``env.setups.disguise``), so that an
            opponent holding the setups people played cannot tell where the Flag and Bombs stand.
        search: plays each move from the belief-sampled search's improved policy
            (``testtime.search``) instead of the step policies; the observation layers
            (eagerness, memory) and the removal of pointless threats still apply, thresholding and
            discretisation shape the deployment alone, and value bounds do not apply (``SEARCH_SKIPS``:
            a spec turns them off, and refuses them asked for).  ``None``: no search.
        belief: the search's sampler of hidden states (``testtime.search.Belief``, e.g. ``learned_belief``);
            ``None``: the heuristic one.
        rollout_net: the network that plays the search's rollouts and scores its leaves
            (``SearchConfig.rollouts``, ``rollout_source``); ``None``: ``net``.

    Attributes:
        on_decision: called with each decision's ``testtime.DecisionLog`` (for ``--explain``), if set.
        testtime: the ``TestTimeLayer`` (its ``stats`` count value-bounds interventions), or ``None``.
        heuristic_counts: this game's moves chosen by the search (``"searched"``), and how many of them each of
            its heuristics changed (``SearchResult.changed_by``); the arena reports them.
    """

    def __init__(self, net: DeepNashNet, greedy: bool = False, name: str = "network",
                 testtime: TestTimeConfig | None = None, search: SearchConfig | None = None,
                 setup: str = "own", belief: Belief | None = None, disguise: bool = False,
                 rollout_net: DeepNashNet | None = None):
        self.net = net.eval()
        self.setup = check_setup_source(setup)
        self.disguise = check_disguise(setup, disguise)
        self.greedy = greedy
        self.name = name
        # --- test-time layer ---
        self.testtime = None if testtime is None else TestTimeLayer(testtime, self._values)
        self.on_decision = None
        self._gen = torch.Generator().manual_seed(0)
        self.search = None if search is None else Search(self._logits, self._leaf_values, search, belief=belief)
        rollout_net = self.net if rollout_net is None else rollout_net.eval()
        self._rollout_net = self.net if search is None else rollout_network(rollout_net, search.precision)
        self._select_stem: torch.Tensor | None = None  # the last select-step rollout batch's (``_logits``)
        self._rng = np.random.default_rng(0)
        self._variant: Variant | None = None
        self._player = 0
        self.heuristic_counts: dict[str, int] = {}

    def reset(self, variant: Variant, player: int, seed: int | None = None) -> None:
        self._variant = get_variant(variant)
        self._player = player
        if self.testtime is not None:
            self.testtime.reset(player)
        self._gen.manual_seed(seed if seed is not None else int(torch.seed() % 2**62))
        self._rng = np.random.default_rng(seed)
        self.heuristic_counts = {}
        if self.search is not None:  # one memory of the opponent's pieces, the layer's, where there is a layer
            self.search.reset(self._variant, player, None if self.testtime is None else self.testtime.memory)

    def _values(self, obs: np.ndarray) -> np.ndarray:
        """``float32[N]``: the value head on ``obs: float32[N, 82, 10, 10]`` (value bounds' look-ahead)."""
        return _value_rows(self.net, obs)

    def _leaf_values(self, obs: np.ndarray) -> np.ndarray:
        """``float32[N]``: the value head on the search's leaves ``obs: float32[N, 82, 10, 10]``, in the
        rollouts' number format (``SearchConfig.precision``: bfloat16 moves the shipped Classic value by
        about 0.007 on average, where its standard deviation is 0.19)."""
        return _value_rows(self._rollout_net, obs)

    @torch.inference_mode()
    def _logits(self, obs: np.ndarray, follows: np.ndarray | None = None) -> np.ndarray:
        """``float32[N, 100]``: the policy heads on ``obs: float32[N, 82, 10, 10]`` (the search's rollouts, in
        the number format of its ``precision``; ``testtime.search.LogitsFn``).

        A batch at the select step keeps its torso's first convolution; a batch at the displace step whose
        ``follows: int64[N]`` gives, for each row, its row in that select batch starts from it
        (``DeepNashNet.displaced_stem``)."""
        net, x = self._rollout_net, _padded(obs)
        select = not obs[:, P_STEP].any()
        if follows is not None and self._select_stem is not None and not select:
            rows = np.zeros(len(x), dtype=np.int64)
            rows[:len(obs)] = follows
            stem = net.displaced_stem(self._select_stem[torch.from_numpy(rows)], x)
        else:
            stem = net.stem(x)
        self._select_stem = stem if select else None
        return net.logits(x, stem=stem).float().numpy()[:len(obs)]

    @torch.inference_mode()
    def _choose(self, obs: np.ndarray, mask: np.ndarray, step: str = "deploy", view: PlayerView | None = None,
                plan: TurnPlan | None = None, selected: int | None = None) -> int:
        notes = []
        if self.testtime is not None:
            obs, notes = self.testtime.observation(obs, view)
        x = torch.from_numpy(obs)[None]
        logged = self.testtime is not None and self.on_decision is not None
        logits, value = self.net(x) if logged else (self.net.logits(x), None)  # the value only for the log
        probs = masked_log_policy(logits, torch.from_numpy(mask)[None]).exp()[0]
        log: DecisionLog | None = None
        if self.testtime is not None:
            final, log = self.testtime.policy(probs.double().numpy(), mask, step, plan, selected=selected, notes=notes,
                                              value=None if value is None else float(value[0]),
                                              ply=view.ply if view else 0)
            probs = torch.from_numpy(final)
        action = int(probs.argmax()) if self.greedy else int(torch.multinomial(probs, 1, generator=self._gen))
        if log is not None and self.on_decision is not None:
            log.action = action
            self.on_decision(log)
        return action

    def choose_setup(self) -> np.ndarray:
        """Place the pieces one by one in the paper's order with the deployment head (or draw the
        setup from the ``setup`` source)."""
        v, p = self._variant, self._player
        if self.setup != "own":
            return draw_setup(self.setup, v, p, self._rng, disguised=self.disguise)
        board = np.zeros((1, 100), np.int8)
        for s in v.lakes:
            board[0, s] = K.LAKE
        zone = np.asarray(v.deploy_squares(0))  # the player's own zone, in its frame
        placed = np.full(100, -1, np.int8)
        for t in deploy_order(v):
            obs = observe_deployment(v, p, board)
            mask = np.zeros(100, bool)
            mask[zone] = board[0, [action_to_square(a, p) for a in zone]] == K.EMPTY
            sq = action_to_square(self._choose(obs, mask), p)
            board[0, sq] = code_of(p, t)
            placed[sq] = t
        return placed

    def act(self, view: PlayerView) -> Move:
        """Select a piece, then its destination, each from the network's policy over legal actions
        (with ``search``, from the search's improved policy over whole moves)."""
        p = view.player
        started = None if self.search is None else self.search.clock()
        plan = None if self.testtime is None else self.testtime.begin_turn(view)
        if self.search is not None:
            return self._act_by_search(view, plan, started)
        sel_mask = np.zeros(100, bool)
        for m in view.legal_moves:
            sel_mask[square_to_action(m.from_sq, p)] = True
        src = action_to_square(self._choose(observe_view(view), sel_mask, "select", view, plan), p)
        dst_mask = np.zeros(100, bool)
        for m in view.legal_moves:
            if m.from_sq == src:
                dst_mask[square_to_action(m.to_sq, p)] = True
        dst = action_to_square(self._choose(observe_view(view, 1, src), dst_mask, "displace", view, plan, src), p)
        return Move(src, dst)

    @torch.inference_mode()
    def _act_by_search(self, view: PlayerView, plan: TurnPlan | None, started: float) -> Move:
        """One move from the search (``testtime.search``): the network's move policy over the
        allowed moves as the prior, then the improved policy, sampled (or its argmax when greedy).
        The move's time counts from ``started`` (on the search's clock)."""
        p = view.player
        allowed = sorted(plan.allowed if plan is not None else view.legal_moves)
        pieces = sorted({m.from_sq for m in allowed})
        obs = [observe_view(view)] + [observe_view(view, 1, sq) for sq in pieces]
        notes = []
        if self.testtime is not None:
            changed = [self.testtime.observation(o, view) for o in obs]
            obs, notes = [o for o, _ in changed], changed[0][1]
        logits, value = self.net(torch.from_numpy(np.stack(obs)))
        row = {sq: i + 1 for i, sq in enumerate(pieces)}  # each piece's displace step, after the select step
        legal = np.zeros((len(obs), 100), bool)
        for m in view.legal_moves:
            legal[0, square_to_action(m.from_sq, p)] = True
            if m.from_sq in row:
                legal[row[m.from_sq], square_to_action(m.to_sq, p)] = True
        policy = masked_log_policy(logits, torch.from_numpy(legal)).exp().double().numpy()
        prior = {m: policy[0, square_to_action(m.from_sq, p)] * policy[row[m.from_sq], square_to_action(m.to_sq, p)]
                 for m in allowed}
        total = sum(prior.values())
        prior = {m: q / total for m, q in prior.items()} if total > 0 else {m: 1 / len(allowed) for m in allowed}
        result = self.search.run(view, prior, self._rng, started)
        moves = list(result.policy)
        weights = np.array([result.policy[m] for m in moves])
        move = moves[int(weights.argmax())] if self.greedy else moves[int(self._rng.choice(len(moves), p=weights))]
        for name in ("searched", *result.changed_by):
            self.heuristic_counts[name] = self.heuristic_counts.get(name, 0) + 1
        if self.on_decision is not None:
            self._log_search(view, result, move, policy, row, notes, float(value[0]))
        return move

    def _log_search(self, view, result, move: Move, policy: np.ndarray, row: dict[int, int], notes,
                    value: float) -> None:
        """The search's move as two ``DecisionLog``s (select, displace): the network's step policies as
        ``raw``, the improved policy's marginal and conditional as ``final``, and ``Q`` in the detail."""
        p = view.player
        best = sorted(result.q, key=lambda m: -result.q[m])
        detail = (", ".join(f"{m} Q {result.q[m]:+.3f} prior {result.prior[m]:.3f} -> {result.policy[m]:.3f}"
                            for m in best)
                  + f"; {result.samples} samples in {result.rounds} rounds, {result.seconds:.2f} s"
                  + f"; changed by {', '.join(result.changed_by) or 'no heuristic'}"
                  + flag_exposure_note(view))
        sel = np.zeros(100)
        for m, q in result.policy.items():
            sel[square_to_action(m.from_sq, p)] += q
        disp = np.zeros(100)
        for m, q in result.policy.items():
            if m.from_sq == move.from_sq and q > 0:
                disp[square_to_action(m.to_sq, p)] = q / sel[square_to_action(move.from_sq, p)]
        effect = [LayerEffect("search", detail=detail)]
        for step, raw, final, action in (
                ("select", policy[0], sel, square_to_action(move.from_sq, p)),
                ("displace", policy[row[move.from_sq]], disp, square_to_action(move.to_sq, p))):
            log = DecisionLog(view.ply, p, step, raw, final, list(notes) + effect, value, action)
            self.on_decision(log)

    def game_over(self, outcome: Outcome, view: PlayerView) -> None:
        pass


def flag_exposure_note(view: PlayerView) -> str:
    """``"; our Flag in the opponent's eyes: P 0.31, its likeliest of 7"``: the odds a reasoning opponent gives our
    Flag from public information (``tracking.flag_odds`` on ``PlayerView.opponent_view``) and their rank among
    our pieces that may be it; ``""`` when we have no Flag on the board."""
    flag = np.flatnonzero((view.owner == view.player) & (view.types == FLAG))
    if not len(flag):
        return ""
    mirror = view.opponent_view()
    possible = possible_types(mirror)
    odds = flag_odds(mirror, possible)
    p = odds[flag[0]]
    rank = 1 + int((odds > p).sum())
    place = "its likeliest" if rank == 1 else f"its number {rank}"
    return f"; our Flag in the opponent's eyes: P {p:.2f}, {place} of {int(possible[:, FLAG].sum())}"


def load_network(path: str | Path, weights: str = "online") -> tuple[DeepNashNet, dict]:
    """The network saved in a checkpoint (run directory or checkpoint directory) and its metadata.

    The network is built at the version its manifest gives (``NetConfig.from_dict``: none given is
    version 1), so a checkpoint written before network versions existed loads as it did.

    Raises:
        CheckpointError: the checkpoint is missing or corrupt, or its weights do not fit the network
            its manifest describes (a version mix-up among them).
        ValueError: ``weights`` names no network stored in it.
    """
    from ..nn.checkpoint import load_checkpoint

    return network_from(load_checkpoint(path), weights)


def network_from(ck: Checkpoint, weights: str) -> tuple[DeepNashNet, dict]:
    """The ``weights`` network of the loaded checkpoint ``ck`` and its metadata (``load_network``).

    Raises:
        CheckpointError: its weights do not fit the network its manifest describes.
        ValueError: ``weights`` names no network stored in it.
    """
    from ..nn.checkpoint import CheckpointError

    if weights not in ck.networks:
        raise ValueError(f"{ck.path}: no {weights!r} weights (stored: {', '.join(ck.networks)})")
    config = NetConfig.from_dict(ck.meta["net"])
    net = DeepNashNet(config)
    try:
        net.load_state_dict(ck.groups[weights])
    except RuntimeError as e:
        raise CheckpointError(f"{ck.path}: its {weights!r} weights do not fit the version-{config.version} network "
                              f"its manifest describes ({str(e).splitlines()[-1].strip()})") from None
    return net, ck.meta


def learned_belief(source: str, variant: str, library: bool = True) -> Belief | None:
    """The search's belief named by ``SearchConfig.belief``: ``None`` for ``heuristic`` and ``public`` (the
    search's own sampler); for ``learned`` the belief network shipped for ``variant``
    (``deepnash/data/shipped/<variant>/belief``), or the heuristic sampler's marginals where none is shipped;
    otherwise the belief network in the run or checkpoint directory ``source``.  Each is weighed by the setup
    library shipped for ``variant``, if any (``deepnash/data/shipped/<variant>/setup_library.npz``,
    ``infostate.setup_library``), unless ``library`` is false.

    Raises:
        AgentSpecError: ``learned`` and neither a belief network nor a setup library is shipped for ``variant``.
        CheckpointError: ``source`` holds no readable belief network.
    """
    from ..nn.belief import load_belief

    if source in ("heuristic", "public"):
        return None
    library_file = SHIPPED_DIR / variant / LIBRARY_FILE
    library = SetupLibrary.load(library_file) if library and library_file.is_file() else None
    if source == "learned":
        path = SHIPPED_DIR / variant / "belief"
        if not path.is_dir() and library is not None:  # people's setups over the heuristic sampler's marginals
            return LearnedBelief(people_marginals(variant), library)
        if not path.is_dir():
            raise AgentSpecError(f"belief=learned: no belief network shipped for {variant!r}; "
                                 "give a belief network's directory (deepnash pretrain-belief) or belief=heuristic")
        source = str(path)
    net, _ = load_belief(source)

    @torch.inference_mode()
    def marginals(obs: np.ndarray) -> np.ndarray:
        return net(torch.from_numpy(obs[None])).exp()[0].numpy()

    return LearnedBelief(marginals, library)


def from_checkpoint(path: str, weights: str = "online", greedy: bool = False, search: bool = False,
                    setup: str = "own", disguise: bool = False, testtime: TestTimeConfig = TestTimeConfig(),
                    search_config: SearchConfig = SearchConfig()) -> NetworkAgent:
    """Agent spec ``checkpoint:DIR``: the ``weights`` network of a run or checkpoint directory, with the
    test-time layers (every ``TestTimeConfig`` field is an option: ``value_bounds=off``, ``eps_vb=0.1``...;
    ``docs/test-time.md``) and, with ``search=on``, the search (every ``SearchConfig`` field: ``seconds=2``...;
    ``belief=learned`` samples from the belief network shipped for the checkpoint's variant).  ``disguise=true``
    rearranges the lanes of the people's setup it deploys (``NetworkAgent``)."""
    net, meta = load_network(path, weights)
    variant = meta.get("variant", "classic")
    belief = learned_belief(search_config.belief, variant) if search else None
    rollout_net = rollout_source(search_config.rollouts, variant) if search else None
    return NetworkAgent(net, greedy=greedy, testtime=testtime, search=search_config if search else None,
                        setup=setup, belief=belief, disguise=disguise, rollout_net=rollout_net)


#: The test-time layers that act only on the moves' step policies, which the search replaces: off with ``search=on``
#: (thresholding and discretisation still shape the deployment head's policy).
SEARCH_SKIPS = ("value_bounds",)


def layer_defaults(given: dict[str, str]) -> dict[str, str]:
    """The options a network agent takes where its spec gives none: with ``search=on``, the layers of
    ``SEARCH_SKIPS`` off (the test-time layers and the search compose in one order: docs/test-time.md).

    Raises:
        AgentSpecError: the spec asks for ``search=on`` and one of ``SEARCH_SKIPS`` on, which it cannot change.
    """
    def on(name: str) -> bool:
        return given.get(name, "false").lower() in ("1", "true", "yes", "on")

    if not on("search"):
        return {}
    if asked := [name for name in SEARCH_SKIPS if on(name)]:
        raise AgentSpecError(f"search=on plays the search's improved policy, which {', '.join(asked)} cannot "
                             f"change: leave {' and '.join(asked)} out or give search=off")
    return {name: "false" for name in SEARCH_SKIPS}


def rollout_source(source: str, variant: str) -> DeepNashNet | None:
    """The network named by ``SearchConfig.rollouts``: ``None`` for ``own`` (the agent's network), the network
    shipped for ``variant`` for ``shipped`` (as ``shipped`` plays it), else the network of the run or checkpoint
    directory ``source`` (its ``target`` weights where stored, else its ``online`` ones).

    Raises:
        AgentSpecError: ``shipped`` and no network is shipped for ``variant``.
        CheckpointError: ``source`` holds no readable checkpoint.
    """
    from ..nn.checkpoint import load_checkpoint

    if source == "own":
        return None
    if source == "shipped":
        path = SHIPPED_DIR / variant
        if not path.is_dir():
            raise AgentSpecError(f"rollouts=shipped: no network shipped for {variant!r}; give a checkpoint "
                                 "directory or rollouts=own")
        return load_network(path)[0]
    ck = load_checkpoint(source)
    return network_from(ck, "target" if "target" in ck.networks else "online")[0]


def shipped(variant: str = SHIPPED_VARIANT, greedy: bool = False, search: bool = False, setup: str = "human",
            disguise: bool = False, testtime: TestTimeConfig = TestTimeConfig(), search_config: SearchConfig = SearchConfig()) -> NetworkAgent:
    """Agent spec ``shipped``: the weights trained for ``variant`` and shipped with the package, with
    the options of ``checkpoint`` (``shipped:classic,value_bounds=off``, ``shipped:search=on,seconds=2``).
    It deploys from the setups people played (``setup=human``) unless told ``setup=own``: on Barrage that
    alone wins most games against the same network deploying with its own head (docs/results.md).
    Where the weights come with ``agent.json``, its options are the defaults (``shipped_options``).

    Raises:
        AgentSpecError: no weights shipped for ``variant``.
    """
    path = SHIPPED_DIR / variant
    if not path.is_dir():
        have = sorted(p.name for p in SHIPPED_DIR.iterdir()) if SHIPPED_DIR.is_dir() else []
        raise AgentSpecError(f"no shipped weights for {variant!r}; shipped: {', '.join(have) or 'none'}")
    return from_checkpoint(str(path), greedy=greedy, search=search, setup=setup, disguise=disguise,
                           testtime=testtime, search_config=search_config)


def shipped_options(given: dict[str, str]) -> dict[str, str]:
    """The options ``shipped:VARIANT`` takes where its spec gives none: the ``"options"`` object of
    ``agent.json`` beside the variant's weights, the settings measured best for them (for Classic,
    search and walled-in Flags: ``data/shipped/classic/TRAINING.md``).  ``{}`` when there is no file.

    Args:
        given: the spec's options as strings; ``variant`` picks the weights.

    Raises:
        AgentSpecError: the file is not JSON holding an ``"options"`` object of strings, naming the file.
    """
    path = SHIPPED_DIR / given.get("variant", SHIPPED_VARIANT) / SHIPPED_OPTIONS
    if not path.is_file():
        return {}
    try:
        options = json.loads(path.read_text())["options"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise AgentSpecError(f"{path}: cannot read the shipped agent's options ({e!r})") from None
    if not isinstance(options, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in options.items()):
        raise AgentSpecError(f"{path}: 'options' must be an object of strings, like an agent spec's options")
    return options


def _shipped_defaults(given: dict[str, str]) -> dict[str, str]:
    """``shipped``'s defaults: its ``agent.json`` (``shipped_options``), and ``layer_defaults`` for the search."""
    options = shipped_options(given)
    return layer_defaults({**options, **given}) | options


_OPTIONS = {"testtime": TestTimeConfig, "search_config": SearchConfig}
_HELP = {"variant": "the shipped weights: classic or barrage", "weights": "the checkpoint's online or target network",
         "greedy": "play the most probable move instead of sampling", "search": "move by the belief-sampled search",
         "setup": "own (the deployment head), random, guarded, human, walled or sheltered",
         "disguise": "rearrange the lanes of the people's setup drawn"}
register_agent("checkpoint", from_checkpoint, takes_path=True, configs=_OPTIONS, aliases={"discretise": "discretize"},
               help=_HELP, defaults=layer_defaults,
               summary="a trained DeepNash network from a training run or checkpoint directory")
register_agent("shipped", shipped, positional="variant", configs=_OPTIONS, aliases={"discretise": "discretize"},
               help=_HELP, defaults=_shipped_defaults,
               summary="the DeepNash networks shipped with the package: shipped:barrage, shipped:classic")


def rollout_dtype(precision: str) -> torch.dtype:
    """The number format the search's rollouts run in for ``SearchConfig.precision`` (one of
    ``testtime.search.PRECISIONS``): ``auto`` is ``bfloat16`` where oneDNN reports bfloat16 support, else
    ``float32``."""
    if precision == "float32" or (precision == "auto" and not torch.ops.mkldnn._is_mkldnn_bf16_supported()):
        return torch.float32
    return torch.bfloat16


def rollout_network(net: DeepNashNet, precision: str) -> DeepNashNet:
    """The network the search's rollouts run (``SearchConfig.precision``): ``net`` itself in ``float32``
    (``rollout_dtype``), else a ``bfloat16`` copy."""
    if rollout_dtype(precision) == torch.float32:
        return net
    with torch.no_grad():  # not inference mode: the copy's kernels cache by the weights' version counters
        return copy.deepcopy(net).to(torch.bfloat16).eval()


@torch.inference_mode()
def _value_rows(net: DeepNashNet, obs: np.ndarray) -> np.ndarray:
    """``float32[N]``: ``net``'s value on ``obs: float32[N, 82, 10, 10]``, in chunks of 256 rows."""
    chunks = [obs[i:i + 256] for i in range(0, len(obs), 256)]
    return np.concatenate([net.value(_padded(chunk)).float().numpy()[:len(chunk)] for chunk in chunks])


#: Batches the look-ahead and the search send to the network are padded to a multiple of this.
PAD_ROWS = 8


def _padded(obs: np.ndarray) -> torch.Tensor:
    """``obs: float32[N, 82, 10, 10]`` as a channels-last tensor with zero rows appended up to a
    multiple of ``PAD_ROWS``.

    oneDNN prepares its convolution kernels for each batch size it meets and keeps a bounded
    number; the look-ahead's batches vary in size from move to move, and on one core the
    network ran about 15% slower on them than on a few fixed sizes.  The network wants
    channels-last input, and numpy lays the batch out so faster than torch converts it.  Rows
    do not interact, so the first ``N`` outputs are those of ``obs`` alone.
    """
    n = len(obs)
    out = np.zeros((-(-n // PAD_ROWS) * PAD_ROWS, *obs.shape[2:], obs.shape[1]), dtype=np.float32)
    out[:n] = obs.transpose(0, 2, 3, 1)
    return torch.from_numpy(out).permute(0, 3, 1, 2)
