"""Training configuration: one frozen dataclass, with presets that pair a network size with its knobs.

The R-NaD hyperparameters live in ``rnad.RNaDConfig`` (defaults: the paper's
Table 3); the CPU presets change only what a run of minutes on one core needs:
a larger learning rate, a weaker reward transform, a faster target average
and short R-NaD iterations.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

from ..nn import NetConfig, get_preset
from ..rnad import AdamConfig, FineTuneConfig, NeuRDConfig, RNaDConfig, ScheduleConfig
from .actor import check_shares


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run needs besides where it writes.

    Attributes:
        net: network preset name (``nn.PRESETS``).
        variant: ``"barrage"`` or ``"classic"``.
        envs: games each actor plays at once (one batched network call per step).
        actors: actor processes per learner process; 0 plays in the learner's process,
            alternating with the updates (the laptop default).
        batch_games: whole games per learner update (per learner process).
        chunk: time steps per chunk of the gradient pass (bounds memory; docs/rnad.md §7).
        max_steps: t_max, agent steps after which a game is cut and recorded as a draw; 0 never.
        setups: where self-play's setups come from: ``own`` (the deployment head, trained with the
            rest), ``random``, ``human`` or ``walled`` (people's setups, all or those with the Flag walled
            in by Bombs: R-NaD then trains the move policy alone, from the setups the agent will play;
            ``train.actor.self_play_setups``).
        sync_every: learner updates between two publications of the weights to the actors.
        queue_games: bound of the queue of finished games between actors and learner.
        checkpoint_minutes: wall-clock minutes between checkpoints.
        eval_minutes: wall-clock minutes between evaluation matches.
        eval_games: games per evaluation (half with each colour), played by the online and the target
            network each; the best-evaluated network is kept in ``OUT/best``.
        eval_opponent: the agent spec the evaluations play: ``random`` (batched: 200 games take seconds
            on a CPU) or any bot, e.g. ``cautious`` (game by game: about 2 minutes for 200 Classic games on
            one core), which punishes careless play that the random bot does not
            (``train.evaluate.network_versus``).
        eval_setup: where the evaluated networks' setups come from: ``own`` (the deployment head) or
            a drawn setup (``agents.base.SETUP_SOURCES``, e.g. ``walled``, what ``shipped:classic`` plays).
        seed: seeds the networks, the environments and the sampling.
        init: a checkpoint whose network (``online``) starts all four learner networks (online, target
            and both regularisation networks), e.g. a behaviour-cloned one from ``deepnash pretrain``;
            empty: random initialisation.  Used when a run starts, not on resume.
        value_only: with ``init``: evaluate its policy instead of improving it.  The value head starts
            afresh and alone learns, from the self-play games of the frozen policy (the four networks
            then share one policy, so the reward transform is zero and v-trace's targets are the
            games' returns); the look-ahead layers and the search need such a value head.
        net_version: the network version (``NetConfig.version``: 2, the win/draw/loss value head; 3, the
            same reading the material counts too; 1, the scalar one).  A run stored without one is
            version 1.  An ``init`` of an older version starts the run with a fresh value head
            (``nn.checkpoint.starting_weights``).
        league: the share of games in which the network plays a frozen past network of its league instead of
            itself, on a side drawn at random; only its own side is recorded and learnt from (``docs/rnad.md``
            §7).  0 (the default): pure self-play, as the paper.
        league_size: the most past networks the league holds: the network the run (or this invocation of it)
            started from, the ``init`` prior for a fresh run, stays; the online network at the start of each
            R-NaD iteration joins, the oldest other member making room.
        bots: agent specs of the bots the network plays in ``bot_share`` of its games (``turtle`` and
            ``sure``, the passive bots, teach it to convert a lead); each game draws one, with equal chances.
        bot_share: the share of games in which the network plays one of ``bots`` instead of itself, on a side
            drawn at random; only its own side is recorded and learnt from (``docs/rnad.md`` §7, "Games
            against bots").  0 (the default): none.  With ``league``, the two shares sum to at most 1.
        rnad: the R-NaD learner's configuration (``rnad.hold_reg_iterations`` keeps the regularisation
            policies at the ``init`` network for that many iterations after the first).
    """

    net: str = "tiny"
    variant: str = "barrage"
    envs: int = 32
    actors: int = 0
    batch_games: int = 8
    chunk: int = 512
    max_steps: int = 0
    setups: str = "own"
    sync_every: int = 1
    queue_games: int = 64
    checkpoint_minutes: float = 2.0
    eval_minutes: float = 10.0
    eval_games: int = 200
    eval_opponent: str = "random"
    eval_setup: str = "own"
    seed: int = 0
    init: str = ""
    value_only: bool = False
    net_version: int = 2
    league: float = 0.0
    league_size: int = 4
    bots: tuple[str, ...] = ()
    bot_share: float = 0.0
    rnad: RNaDConfig = field(default_factory=RNaDConfig)

    def __post_init__(self) -> None:
        self.net_config  # an unknown preset or version raises here
        for name in ("envs", "batch_games", "chunk", "sync_every", "queue_games", "league_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"TrainConfig.{name} must be at least 1, got {getattr(self, name)}")
        for name in ("actors", "max_steps", "eval_games"):
            if getattr(self, name) < 0:
                raise ValueError(f"TrainConfig.{name} must be non-negative, got {getattr(self, name)}")
        check_shares(self.league, self.bot_share, self.bots)
        if self.value_only and not self.init:
            raise ValueError("value_only evaluates the policy of an --init network: give one")

    @property
    def net_config(self) -> NetConfig:
        """The network's ``NetConfig``: the preset at ``net_version``."""
        return replace(get_preset(self.net), version=self.net_version)

    @property
    def games_in_flight(self) -> int:
        """Games started but not yet read by the learner: every actor's ``envs`` and a full queue, or the
        learner's own ``envs`` without actors.  Over ``batch_games``, it is about how many updates old a game
        is when the learner reads it, which cuts v-trace's traces (``docs/rnad.md`` §7)."""
        return self.actors * self.envs + self.queue_games if self.actors else self.envs

    def to_dict(self) -> dict:
        """JSON-ready dict; ``from_dict`` reads it back."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "TrainConfig":
        """Inverse of ``to_dict``; a config stored without ``net_version`` (before versions) is version 1, one
        stored without ``league`` (before leagues) is pure self-play, one without ``bots`` plays none."""
        d = {"net_version": 1, **d}
        d["bots"] = tuple(d.get("bots", ()))
        r = dict(d["rnad"])
        rnad = RNaDConfig(**{**r, "schedule": ScheduleConfig(**{k: tuple(v) for k, v in r["schedule"].items()}),
                             "adam": AdamConfig(**r["adam"]), "neurd": NeuRDConfig(**r["neurd"]),
                             "finetune": FineTuneConfig(**r["finetune"])})
        return cls(**{**d, "rnad": rnad})


#: R-NaD settings for runs of minutes to an hour on a CPU (paper values elsewhere): a 40x larger
#: learning rate, a weaker reward transform (eta 0.05: 0.2 holds the policy near uniform for the few
#: hundred updates a CPU hour gives), a target network averaging over ~20 updates and 50-update
#: R-NaD iterations so the regularisation policy follows the learned one.  Chosen by short runs on a
#: 2-core CPU (src/deepnash/data/shipped/barrage/TRAINING.md).
_CPU_RNAD = RNaDConfig(adam=AdamConfig(learning_rate=2e-3), eta=0.05, gamma_avg=0.05,
                       schedule=ScheduleConfig(sizes=(50,), repeats=(1,)), batch_size=8)

#: NeuRD's band (``NeuRDConfig.beta``) for R-NaD from a prior (``init``).  A behaviour-cloned policy is
#: sharper than the paper's band of 2 allows: the Classic prior shipped until 2026-11-26 (the ``tiny`` clone,
#: now tests/testtime/data/classic-network) has 41% of its probability on
#: legal-mean-centred logits beyond +-2 in its own self-play, and NeuRD's force only pulls those back, so
#: the policy flattens whatever the advantages say.  With 6, 936 updates from that prior won 46.5% of 200
#: sampled games against it, against 31.0% after 876 updates with 2
#: (src/deepnash/data/shipped/classic/TRAINING.md).
PRIOR_NEURD_BETA = 6.0

#: ``deepnash train --preset NAME``.
TRAIN_PRESETS: dict[str, TrainConfig] = {
    "tiny": TrainConfig(net="tiny", chunk=1024, rnad=_CPU_RNAD),
    "small": TrainConfig(net="small", envs=32, batch_games=8, chunk=256, rnad=_CPU_RNAD),
    "paper": TrainConfig(net="paper", envs=256, batch_games=768, chunk=64, max_steps=3600,
                         queue_games=2048, checkpoint_minutes=30.0, eval_minutes=60.0),
}


def train_preset(name: str, **changes) -> TrainConfig:
    """The ``TrainConfig`` preset ``name`` with some fields changed.

    A run from a prior (``init`` given, ``rnad`` not) gets NeuRD's band widened to
    :data:`PRIOR_NEURD_BETA`.

    Raises:
        ValueError: an unknown preset (listing the known ones) or a bad field value.
    """
    if name not in TRAIN_PRESETS:
        raise ValueError(f"unknown training preset {name!r}; known: {', '.join(TRAIN_PRESETS)}")
    cfg = replace(TRAIN_PRESETS[name], **changes)
    if cfg.init and "rnad" not in changes:
        cfg = replace(cfg, rnad=replace(cfg.rnad, neurd=replace(cfg.rnad.neurd, beta=PRIOR_NEURD_BETA)))
    return cfg
