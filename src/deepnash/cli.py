"""The ``deepnash`` command. Each subcommand imports what it needs when it runs."""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

import typer

app = typer.Typer(
    help="DeepNash for Stratego: rules engine, R-NaD training, agents, arena and play.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """DeepNash for Stratego: rules engine, R-NaD training, agents, arena and play."""


@app.command("random-game")
def random_game(
    variant: str = typer.Option("barrage", help="classic, barrage"),
    seed: int = typer.Option(0, min=0, help="seed for both random players"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Play one game between two uniformly random players and print how it ended."""
    from .agents import RandomAgent, play_game
    from .game import get_variant

    game, history = play_game(RandomAgent(), RandomAgent(), get_variant(variant), seed)
    out = game.outcome()
    summary = {"variant": variant, "moves": game.ply, "termination": out.termination.name.lower(),
               "winner": out.winner, "result": out.result()}
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        typer.echo(" ".join(str(r.move) for r in history))
        typer.echo(f"{out.result()} after {game.ply} moves ({summary['termination']})")


@app.command("play")
def play(
    opponent: str = typer.Option(None, help="agent spec, e.g. random, greedy (default: shipped, else random)"),
    variant: str = typer.Option("classic", help="classic, barrage"),
    color: str = typer.Option("red", help="your colour: red (moves first) or blue"),
    save: str = typer.Option(None, help="write the record here as Gravon XML when the game ends"),
    seed: int = typer.Option(None, min=0, help="seed for random setups and the opponent"),
    explain: bool = typer.Option(False, help="print why the agent played each move (network agents)"),
) -> None:
    """Play against an agent in the terminal: deploy, then type moves like b4-b5 (help lists commands)."""
    from .play.terminal import make_session, run

    try:
        session = make_session(opponent, variant, color, save, seed)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    if explain:
        from .testtime import explain_to

        if not explain_to(session.opponent, lambda text: typer.echo(text, nl=False)):
            typer.echo(f"--explain: {session.opponent.name} keeps no decision log (only network agents do)")
    run(session)


@app.command("serve")
def serve(
    opponent: str = typer.Option(None, help="agent spec of the default opponent (default: shipped, else random)"),
    allow: list[str] = typer.Option(None, help="an opponent spec the browser may pick (repeat it; default: the "
                                    "built-in bots, and shipped weights where they exist)"),
    host: str = typer.Option("127.0.0.1", help="address to listen on"),
    port: int = typer.Option(8000, help="TCP port"),
    db: str = typer.Option(None, help="the games' SQLite database: a file path or sqlite:///PATH, created if missing; "
                                      "every move is committed to it before it is answered, and a restart on the "
                                      "same file takes up every game in progress (default: serve.sqlite3 in the "
                                      "user data folder, ~/.local/share/deepnash on Linux)"),
    max_games: int = typer.Option(256, min=1, help="games in progress at once; a new game beyond it is refused "
                                                   "('the server is full'), none is ever dropped"),
    expire_after: float = typer.Option(60.0, min=0.01, help="minutes without a message after which a game in "
                                                             "progress is abandoned (it stays in the database, "
                                                             "unfinished); only such games expire"),
    think_threads: int = typer.Option(None, min=1, help="threads in which the agents think, apart from the "
                                                        "web server's (default: twice the CPU cores); each "
                                                        "agent uses one CPU thread"),
) -> None:
    """Play against an agent in the browser: serves the board page, its HTTP API and a WebSocket per game.

    Every game is kept in a database (--db) as it is played, and a restart takes every game up again.

    Serving a club (a reverse proxy, the database file, backups): docs/usage.md.
    """
    import platformdirs
    import uvicorn

    from .play.deploy import draw_human_setup
    from .play.store import DatabaseError
    from .play.web import create_app

    try:
        import torch
    except ImportError:  # the play extra alone: no network agents
        pass
    else:
        torch.set_num_threads(1)  # the agents run in parallel threads instead
    if db is None:
        folder = Path(platformdirs.user_data_dir("deepnash"))
        folder.mkdir(parents=True, exist_ok=True)
        db = str(folder / "serve.sqlite3")
    try:
        web_app = create_app(opponent, draw_human_setup, allow=allow, database=db, max_games=max_games,
                             expire_after=expire_after * 60, think_threads=think_threads)
    except DatabaseError as e:  # one line naming the file, and nothing written to it
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    typer.echo(f"Games are kept in {db}. Open http://{host}:{port}/ to play.")
    uvicorn.run(web_app, host=host, port=port, log_level="warning")


@app.command("arena")
def arena(
    agents: list[str] = typer.Argument(..., help="agent specs: shipped:classic and shipped:barrage (the shipped "
                                                   "agents; options after commas: shipped:classic,seconds=1), "
                                                   "random, greedy, cautious, montecarlo, mcts:sims=200, alphabeta:seconds=0.3 "
                                                   "(the sparring program), turtle and "
                                                   "sure (passive: they test converting a lead), checkpoint:DIR, "
                                                   "ucc:PATH, net:PATH"),
    games: int = typer.Option(20, help="games per pair (half with each colour)"),
    variant: str = typer.Option("classic", help="classic, barrage"),
    seed: int = typer.Option(0, min=0, help="match seed: the same seed replays the same games"),
    workers: int = typer.Option(1, help="parallel processes"),
    out: str = typer.Option(None, help="folder for one Gravon XML record per game"),
    max_moves: int = typer.Option(None, help="moves (both players) before a draw; default: the variant's"),
    relax_repetition: bool = typer.Option(False, help="turn off the two-squares and more-squares rules (old UCC bots)"),
    explain: bool = typer.Option(False, help="with --out: log every network-agent decision beside each record (JSONL)"),
    resume: bool = typer.Option(False, help="with --out: keep the games a stopped run of the same match saved there "
                                             "and play only the rest"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Play every pair of agents, both colours, and print the match table and ratings."""
    from .arena import AgentCrashed, run_tournament
    from .arena.report import print_tournament
    from .game import get_variant

    v = get_variant(variant)
    if max_moves is not None:
        v = v.with_rules(max_moves=max_moves)
    if relax_repetition:
        v = v.with_rules(two_squares=False, more_squares=False)
    try:
        result = run_tournament(agents, games, v, seed, workers, out, explain=explain, resume=resume)
    except AgentCrashed as e:
        kept = ("the other games are saved in --out: once it is mended, the same command with --resume plays only "
                "the games that stopped" if out else "give --out to keep the games that finish")
        typer.echo(f"error: {e} ({kept})", err=True)
        raise typer.Exit(1) from None
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    if as_json:
        typer.echo(json.dumps(result.to_dict()))
    else:
        print_tournament(result)


@app.command("agents")
def agents(spec: str = typer.Argument(None, help="an agent spec, e.g. shipped:classic or shipped:classic,guard=0: "
                                                  "list its options")) -> None:
    """List the agents, or one agent's options with the values its spec plays and what each one means."""
    from .agents.registry import AgentSpecError, agent_options, describe_agents

    if spec is None:
        for name, summary in describe_agents().items():
            typer.echo(f"{name:12} {summary}")
        return
    try:
        rows = agent_options(spec)
    except AgentSpecError as e:
        raise typer.BadParameter(str(e)) from None
    width = max(len(name) for name, _, _ in rows)
    for name, value, text in rows:
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        typer.echo(f"{name:{width}} = {shown:10} {text}".rstrip())


@app.command("normal-form")
def normal_form(
    payoff: str = typer.Option("1,-1;-1,1", help="player 0's payoff matrix, rows separated by ';' (default: matching pennies)"),
    start: str = typer.Option("0.999,0.001", help="initial regularisation policy of both players, comma-separated"),
    eta: float = typer.Option(0.2, help="reward-transform strength"),
    iterations: int = typer.Option(3, help="R-NaD iterations"),
    plot: str = typer.Option(None, help="save the policy paths and log-Lyapunov curve to this PNG"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Normal-form R-NaD (the paper's Fig. 3): each iteration's replicator-dynamics fixed point."""
    import numpy as np

    from .rnad.normal_form import run

    try:
        matrix = np.array([[float(x) for x in row.split(",")] for row in payoff.split(";")])
        pi0 = np.array([float(x) for x in start.split(",")])
        result = run(matrix, (pi0, pi0), eta, iterations)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    rows = [{"iteration": m, "regularisation": [r.tolist() for r in it.regularisation],
             "fixed_point": [f.tolist() for f in it.fixed_point], "dynamics_time": float(it.times[-1]),
             "initial_lyapunov": float(it.lyapunov[0])} for m, it in enumerate(result)]
    if plot:
        from .rnad.normal_form_plot import save_plot

        save_plot(result, plot)
    if as_json:
        typer.echo(json.dumps({"payoff": matrix.tolist(), "eta": eta, "iterations": rows}))
        return
    for row in rows:
        p, q = (", ".join(f"{x:.4f}" for x in f) for f in row["fixed_point"])
        typer.echo(f"iteration {row['iteration']}: player 0 [{p}]  player 1 [{q}]  (H0 = {row['initial_lyapunov']:.4g})")


@app.command("ucc-bot")
def ucc_bot(
    agent: str = typer.Option("random", help="agent spec to play, e.g. greedy or mcts:sims=100"),
    variant: str = typer.Option("classic", help="classic, barrage"),
    seed: int = typer.Option(None, min=0, help="seed for the agent (default: fresh randomness)"),
) -> None:
    """Play one game as a UCC 2012 protocol bot on stdin/stdout (for the 2012 manager or `arena ucc:...`)."""
    import sys

    from .agents.registry import make_agent
    from .agents.ucc import serve_ucc
    from .game import get_variant

    serve_ucc(make_agent(agent), get_variant(variant), sys.stdin, sys.stdout, seed)


@app.command("validate-records")
def validate_records(
    paths: list[str] = typer.Argument(None, help="Gravon .xml files, .zip archives or folders of them "
                                                  "(default: $DEEPNASH_GRAVON, the user data folder or the packaged games)"),
    rules: str = typer.Option("none", help="repetition rules to replay under: none, gravon, isf"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Replay every game in Gravon records; print per game type how many replayed and ended as recorded.

    Exits with status 1 when a record fails (unreadable, bad setup, illegal move).
    """
    from .notation.validate import format_report, validate_records as validate

    try:
        result = validate(paths or [_default_records()], rules)
    except (ValueError, FileNotFoundError) as e:
        raise typer.BadParameter(str(e)) from None
    typer.echo(json.dumps(result) if as_json else format_report(result))
    raise typer.Exit(1 if result["failed"] else 0)


@app.command("demo")
def demo(
    game: int = typer.Option(0, help="which Classic or Barrage game of the archives (0 = the first)"),
    path: str = typer.Option(None, help="Gravon records to take it from (default: $DEEPNASH_GRAVON, the user data folder or the packaged games)"),
) -> None:
    """Replay a real game from Gravon's archives and print its moves and final board."""
    from itertools import islice

    from .notation.board import board_diagram
    from .notation.gravon import read_records, replay

    from .game import RecordError

    source = path or _default_records()
    records = (r for r in read_records(source, on_error=lambda e: None) if r.variant in ("classic", "barrage"))
    record = next(islice(records, game, None), None)
    if record is None:
        raise typer.BadParameter(f"there are fewer than {game + 1} readable Classic or Barrage games in {source}")
    try:
        final = replay(record)
    except RecordError as e:
        raise typer.BadParameter(str(e)) from None
    typer.echo(f"{record.variant} game from {record.source}: {record.players[0]} (Red) v {record.players[1]} (Blue)")
    typer.echo(" ".join(f"{n}. {m}" if n % 2 else str(m) for n, m in enumerate(record.moves, start=1)))
    typer.echo(board_diagram(final))


data_app = typer.Typer(help="Human game records: download gravon.de's monthly archives.", no_args_is_help=True)
app.add_typer(data_app, name="data")


@data_app.command("fetch")
def data_fetch(
    months: str = typer.Option(None, help="comma-separated months (2014-0 is January 2014) and ranges "
                                          "(2013-10..2014-11); 'all': every month the manifest knows "
                                          "(default: the 14 months the project was built on, 2013-10..2014-11)"),
    dest: str = typer.Option(None, help="folder to write to (default: the user data folder, where commands look)"),
    url: str = typer.Option(None, help="URL template with {year} and {month} "
                                       "(default: $DEEPNASH_GRAVON_URL, else the manifest's public mirror)"),
    list_only: bool = typer.Option(False, "--list", help="list the known months and which are here; download nothing"),
) -> None:
    """Download gravon.de's monthly archives (strados<YEAR>-<MONTH>.zip): verified, resumable, never half-written.

    Each archive is checked against the size and SHA-256 in the package's manifest where it gives them,
    and always as a zip of Gravon XML records, before it takes its final name.  An interrupted download
    resumes on the next run.  Exits with status 1 if any month failed; each failure is named.
    """
    import os

    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, \
        TransferSpeedColumn

    from .archives import ARCHIVE_ENV, URL_ENV, fetch_month, load_manifest, parse_months, user_archive_dir

    manifest = load_manifest()
    try:
        chosen = parse_months(months, manifest)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--months") from None
    folder = Path(dest) if dest else user_archive_dir()
    template = url or os.environ.get(URL_ENV) or manifest["url"]
    if "{year}" not in template or "{month}" not in template:
        raise typer.BadParameter(f"{template!r} lacks {{year}} or {{month}}", param_hint="--url")
    if list_only:
        typer.echo(f"{'month':<8} {'size':>11}  {'checksum':<8}  here ({folder})")
        for m in chosen:
            entry = manifest["months"].get(str(m), {"size": None, "sha256": None})
            size = f"{entry['size']:,}" if entry["size"] else "?"
            typer.echo(f"{str(m):<8} {size:>11}  {'SHA-256' if entry['sha256'] else 'none':<8}  "
                       f"{'yes' if (folder / m.filename).exists() else 'no'}")
        return
    typer.echo(f"fetching {len(chosen)} month(s) into {folder} from {template}")
    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
               TimeRemainingColumn())
    results = []
    with Progress(*columns, transient=True) as bar:
        for m in chosen:
            task = bar.add_task(m.filename, total=None)
            results.append(fetch_month(m, folder, template, manifest["months"].get(str(m)),
                                       progress=lambda done, total, task=task: bar.update(task, completed=done,
                                                                                          total=total)))
            bar.remove_task(task)
            r = results[-1]
            bar.console.print(f"{str(r.month):<8} {r.status:<8} {r.message}", highlight=False, soft_wrap=True)
    failed = [r for r in results if not r.ok]
    typer.echo(f"{len(results) - len(failed)} of {len(results)} month(s) here in {folder}"
               + (f"; failed: {', '.join(r.month.filename for r in failed)}" if failed else ""))
    if os.environ.get(ARCHIVE_ENV) and Path(os.environ[ARCHIVE_ENV]).resolve() != folder.resolve():
        typer.echo(f"note: {ARCHIVE_ENV} is set, so commands read {os.environ[ARCHIVE_ENV]} before this folder")
    raise typer.Exit(1 if failed else 0)


def _default_records() -> str:
    """The folder of Gravon records a command reads when given none (``archives.find_archive_dir``), said on stderr."""
    from .archives import default_archive_dir

    return str(default_archive_dir(announce=lambda line: typer.echo(line, err=True)))


def _check_bounds(minutes: float | None, steps: int | None) -> None:
    """A training command's bounds: at least one of ``--minutes`` and ``--steps``, each positive.

    Raises:
        typer.BadParameter: neither is given, or one is not positive (checked before any record is read).
    """
    if minutes is None and steps is None:
        raise typer.BadParameter("give --minutes or --steps")
    if minutes is not None and not minutes > 0:
        raise typer.BadParameter(f"--minutes must be > 0, got {minutes}")
    if steps is not None and steps < 1:
        raise typer.BadParameter(f"--steps must be at least 1, got {steps}")


def _init_path(init: str | None, variant: str) -> str | None:
    """``--init``: a checkpoint directory as an absolute path, or ``shipped`` for the weights shipped for ``variant``."""
    if not init:
        return None
    if init == "shipped":
        from .agents.network_agent import SHIPPED_DIR

        return str(SHIPPED_DIR / variant)
    return str(Path(init).resolve())


def _given(**options) -> dict:
    """The options the user gave (those not ``None``), to change a configuration's defaults."""
    return {k: v for k, v in options.items() if v is not None}


def _default_run_dir(prefix: str, variant: str, preset: str, seed: int) -> str:
    """``runs/{prefix}{variant}__{preset}__{seed}__{time}``."""
    import time

    return f"runs/{prefix}{variant}__{preset}__{seed}__{time.strftime('%Y%m%d-%H%M%S')}"


_NET_VERSION = typer.Option(None, help="network version (docs/network.md): 2, a win/draw/loss value head (the "
                                       "default; for train, the --init network's if newer); 3, one that also reads "
                                       "the material counts; 1, the old scalar head")


@app.command("train")
def train(
    variant: str = typer.Option("barrage", help="classic, barrage"),
    preset: str = typer.Option(None, help="tiny, small (CPU) or paper (256/320 channels, batch 768); default: "
                                          "the --init network's, else tiny"),
    minutes: float = typer.Option(None, help="train for this many minutes"),
    steps: int = typer.Option(None, help="train until this many learner updates in all (resumed ones count)"),
    out: str = typer.Option(None, help="run directory (default runs/{variant}__{preset}__{seed}__{time})"),
    resume: str = typer.Option(None, help="continue the run in this directory from its latest checkpoint"),
    init: str = typer.Option(None, help="start all four networks from this checkpoint's network (e.g. a "
                                        "`deepnash pretrain` run: R-NaD from a human prior; 'shipped': the "
                                        "one shipped for --variant)"),
    hold_reg: int = typer.Option(None, help="R-NaD iterations after the first that keep the regularisation "
                                            "policy at the --init network (default 0; more than the run "
                                            "makes holds it for good, as piKL does)"),
    value_only: bool = typer.Option(False, help="with --init: keep its policy and train a fresh value head "
                                                "alone on the policy's own self-play games"),
    net_version: int = _NET_VERSION,
    lr: float = typer.Option(None, help="Adam learning rate (default: the preset's; 2e-3 for tiny and small)"),
    neurd_beta: float = typer.Option(None, help="half-width of NeuRD's band on legal-mean-centred logits (default: "
                                                "2, the paper's; 6 with --init, whose prior is sharper)"),
    eta: float = typer.Option(None, help="strength of R-NaD's reward transform towards the regularisation policy "
                                         "(default: the preset's; 0.05 for tiny and small, the paper's 0.2 for paper)"),
    league: float = typer.Option(None, help="share of the games played against a frozen past network (the one the "
                                            "run started from, and the network at the start of each recent R-NaD "
                                            "iteration) instead of itself; default 0, self-play alone"),
    league_size: int = typer.Option(None, help="past networks the league holds (default 4)"),
    bot: list[str] = typer.Option(None, help="a bot the network plays in --bot-share of its games (an agent spec; "
                                             "repeat for several: --bot turtle --bot sure)"),
    bot_share: float = typer.Option(None, help="share of the games played against one of the --bot bots instead of "
                                               "itself, on a side drawn at random (default 0)"),
    device: str = typer.Option("cpu", help="cpu, cuda, cuda:1 ... (torchrun: each rank takes cuda:LOCAL_RANK)"),
    actors: int = typer.Option(None, help="actor processes (0: self-play in the learner's process)"),
    envs: int = typer.Option(None, help="games each actor plays at once (default: the preset's)"),
    batch_games: int = typer.Option(None, help="whole games per update (default: the preset's)"),
    max_steps: int = typer.Option(None, help="cut games after this many agent steps, as draws (0: never)"),
    setups: str = typer.Option(None, help="self-play's setups: own (the deployment head learns too; the "
                                          "default), random, human, walled or sheltered (people's; R-NaD trains the moves "
                                          "alone)"),
    seed: int = typer.Option(0, min=0, help="seed of the networks, games and sampling"),
    checkpoint_minutes: float = typer.Option(None, help="minutes between checkpoints (default: the preset's)"),
    eval_games: int = typer.Option(None, help="games per evaluation, periodic and final "
                                              "(default: the preset's, 200; 0 skips)"),
    eval_minutes: float = typer.Option(None, help="minutes between evaluations (default: the preset's, 10)"),
    eval_opponent: str = typer.Option(None, help="agent spec the evaluations play (default random: batched, "
                                                 "seconds; cautious: game by game, ~2 minutes for 200 Classic "
                                                 "games, and it punishes play the random bot does not)"),
    eval_setup: str = typer.Option(None, help="setups of the evaluated networks: own (their deployment head, the "
                                              "default), human, walled (what shipped:classic plays), sheltered (what "
                                              "shipped:barrage plays), guarded, random"),
    threads: int = typer.Option(1, help="torch CPU threads of the learner"),
    progress: bool = typer.Option(True, help="show the progress bar"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON summary"),
) -> None:
    """Train DeepNash by R-NaD self-play, checkpointing as it goes, then play the evaluation opponent (random)."""
    from dataclasses import replace

    import torch

    from .nn.checkpoint import CheckpointError
    from .train.config import TrainConfig, train_preset
    from .train.loop import init_network, resume_config, train as run_training

    torch.set_num_threads(threads)
    _check_bounds(minutes, steps)
    try:
        if resume:
            cfg, run_dir = resume_config(resume), resume
        else:
            init = _init_path(init, variant)
            if init:  # by default the run is of the --init network's shape and version (or the default, if newer)
                init_preset, init_version = init_network(init)
                preset = preset or init_preset
                net_version = net_version or max(TrainConfig.net_version, init_version)
            preset = preset or "tiny"
            cfg = train_preset(preset, variant=variant, seed=seed, init=init or "", value_only=value_only,
                               **_given(net_version=net_version))
            run_dir = out or _default_run_dir("", variant, preset, seed)
        if hold_reg is not None:
            cfg = replace(cfg, rnad=replace(cfg.rnad, hold_reg_iterations=hold_reg))
        if lr is not None:
            cfg = replace(cfg, rnad=replace(cfg.rnad, adam=replace(cfg.rnad.adam, learning_rate=lr)))
        if neurd_beta is not None:
            cfg = replace(cfg, rnad=replace(cfg.rnad, neurd=replace(cfg.rnad.neurd, beta=neurd_beta)))
        if eta is not None:
            cfg = replace(cfg, rnad=replace(cfg.rnad, eta=eta))
        cfg = replace(cfg, **_given(actors=actors, checkpoint_minutes=checkpoint_minutes, envs=envs,
                                    batch_games=batch_games, max_steps=max_steps, setups=setups, eval_games=eval_games,
                                    eval_minutes=eval_minutes, eval_opponent=eval_opponent,
                                    eval_setup=eval_setup, league=league, league_size=league_size,
                                    bots=tuple(bot) if bot else None, bot_share=bot_share))
        summary = run_training(cfg, run_dir, steps=steps, minutes=minutes, resume=bool(resume), device=device,
                               progress=progress and not as_json)
    except (CheckpointError, FileExistsError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    if summary["rank"] != 0:  # under torchrun only rank 0 reports
        return
    if as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(f"{summary['learner_step']} updates, {summary['games']} games in {summary['out']}")
    for key, r in summary.get("league", {}).items():
        typer.echo(f"vs its network of update {key}: {r['wins']} wins, {r['draws']} draws, {r['losses']} losses")
    for name, r in summary.get("bots", {}).items():
        typer.echo(f"vs {name}: {r['wins']} wins, {r['draws']} draws, {r['losses']} losses")
    if "eval" in summary:
        e = summary["eval"]
        typer.echo(f"vs {summary['eval_opponent']}: {e['wins']} wins, {e['draws']} draws, {e['losses']} losses ({e['win_rate']:.0%})")
        typer.echo(f"best evaluation so far: {summary['best_win_rate']:.0%}, kept as checkpoint:{summary['out']}/best")


def _records_run(train, resume_config, fresh_config, prefix: str, records: list[str] | None, out: str | None,
                 resume: str | None, threads: int, overrides: dict, **bounds) -> dict:
    """What ``pretrain`` and ``pretrain-belief`` share: the run's configuration (``resume_config(resume)``, or
    ``fresh_config()`` into ``out`` or a default directory named after ``prefix``), the options given
    (``overrides``, ``None`` for those not given), its records read, then ``train(cfg, games, run_dir,
    resume=..., **bounds)``; its summary gets ``records_skipped``.  Any error ends the command with exit 2."""
    from collections import Counter
    from dataclasses import replace
    from pathlib import Path

    import torch

    from .nn.checkpoint import CheckpointError
    from .train.human import load_games

    torch.set_num_threads(threads)
    _check_bounds(bounds["minutes"], bounds["steps"])
    try:
        if resume:
            cfg, run_dir = resume_config(resume), resume
        else:
            cfg = fresh_config()
            run_dir = out or _default_run_dir(prefix, cfg.variant, cfg.net, cfg.seed)
        sources = tuple(str(Path(r).resolve()) for r in records) if records else \
            (cfg.records or (_default_records(),))
        cfg = replace(cfg, records=sources, **_given(**overrides))
        skipped: Counter = Counter()
        games = load_games(list(cfg.records), cfg.variant, skipped)
        summary = train(cfg, games, run_dir, resume=bool(resume), **bounds)
    except (CheckpointError, FileExistsError, FileNotFoundError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    summary["records_skipped"] = dict(skipped)
    return summary


_RUN_RECORDS = typer.Argument(None, help="Gravon .xml files, .zip archives or folders (default: $DEEPNASH_GRAVON, "
                                          "the user data folder or the packaged games; on --resume: the run's own)")
_MINUTES = typer.Option(None, help="train for this many minutes")
_STEPS = typer.Option(None, help="train until this many updates in all (resumed ones count)")
_RESUME = typer.Option(None, help="continue the run in this directory from its latest checkpoint")
_DEVICE = typer.Option("cpu", help="cpu, cuda, cuda:1 ...")
_EVAL_MINUTES = typer.Option(None, help="minutes between validation reports (default 15)")
_CHECKPOINT_MINUTES = typer.Option(None, help="minutes between checkpoints (default 5)")
_RUN_SEED = typer.Option(0, min=0, help="seed of the network, the stream and the mirroring")
_PROGRESS = typer.Option(True, help="show the progress bar")
_JSON_SUMMARY = typer.Option(False, "--json", help="print one JSON summary")
_SLOTS = typer.Option(None, help="games replayed at once (default 4096)")
_LR = typer.Option(None, help="Adam learning rate (default 1e-3)")
_RUN_VARIANT = typer.Option("classic", help="classic, barrage")


@app.command("pretrain")
def pretrain(
    records: list[str] = _RUN_RECORDS,
    variant: str = _RUN_VARIANT,
    preset: str = typer.Option("tiny", help="network preset: tiny, small, paper"),
    minutes: float = _MINUTES,
    steps: int = _STEPS,
    out: str = typer.Option(None, help="run directory (default runs/pretrain__{variant}__{preset}__{seed}__{time})"),
    resume: str = _RESUME,
    device: str = _DEVICE,
    batch_size: int = typer.Option(None, help="decisions per update (default 256)"),
    lr: float = _LR,
    slots: int = _SLOTS,
    sample: float = typer.Option(None, help="share of each game's decisions used, drawn at random (default 0.125); "
                                            "with many --slots, keeps the value from learning games by heart"),
    validation: float = typer.Option(None, help="share of the games held out by game (default 0.05)"),
    eval_games: int = typer.Option(None, help="validation games scored per report (default 200; 0: all)"),
    eval_minutes: float = _EVAL_MINUTES,
    checkpoint_minutes: float = _CHECKPOINT_MINUTES,
    mirror: bool = typer.Option(None, help="reflect half of every batch left to right (default on)"),
    random_games: int = typer.Option(None, help="games against the random bot before and after (default 200; 0 skips)"),
    seed: int = _RUN_SEED,
    init: str = typer.Option(None, help="start from this checkpoint's network (a run or checkpoint directory; "
                                        "'shipped': the one shipped for --variant); --preset must be its preset"),
    value_only: bool = typer.Option(False, help="train the value head alone (from fresh weights) on the games' "
                                                "results; the policy stays as --init left it"),
    net_version: int = _NET_VERSION,
    value_teacher: list[str] = typer.Option(None, help="records (e.g. an arena folder of the agent's own games) "
                                                       "read beside RECORDS whose value targets are the --init "
                                                       "network's value, not their results (repeatable)"),
    threads: int = typer.Option(1, help="torch CPU threads"),
    progress: bool = _PROGRESS,
    as_json: bool = _JSON_SUMMARY,
) -> None:
    """Behaviour cloning: teach a network the moves people played in Gravon records (an agent: checkpoint:OUT)."""
    from .train.pretrain import PretrainConfig, format_metrics, pretrain as run_pretrain, resume_pretrain_config

    summary = _records_run(
        run_pretrain, resume_pretrain_config,
        lambda: PretrainConfig(net=preset, variant=variant, seed=seed, value_only=value_only,
                               init=_init_path(init, variant), **_given(net_version=net_version),
                               value_teacher=tuple(str(Path(r).resolve()) for r in value_teacher or ())),
        "pretrain__", records, out, resume, threads, dict(
            batch_size=batch_size, learning_rate=lr, validation=validation, eval_games=eval_games, slots=slots,
            sample=sample, eval_minutes=eval_minutes, checkpoint_minutes=checkpoint_minutes, mirror=mirror,
            random_games=random_games),
        steps=steps, minutes=minutes, device=device, progress=progress and not as_json)
    if as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(f"{summary['step']} updates, {summary['decisions']:,} decisions from {summary['train_games']} games "
               f"in {summary['out']} (validation: {summary['validation_games']} games)")
    if summary["validation"]:
        typer.echo(format_metrics(summary["validation"]))
    if "vs_random" in summary:
        b, a = summary["vs_random"]["before"], summary["vs_random"]["after"]
        typer.echo(f"vs random ({a['games']} games, raw policy): before {b['wins']}-{b['draws']}-{b['losses']} "
                   f"({b['win_rate']:.0%}), after {a['wins']}-{a['draws']}-{a['losses']} ({a['win_rate']:.0%})")
    typer.echo(f"agent: checkpoint:{summary['out']}")


@app.command("pretrain-belief")
def pretrain_belief(
    records: list[str] = _RUN_RECORDS,
    variant: str = _RUN_VARIANT,
    preset: str = typer.Option("small", help="belief network preset: small, medium, tiny"),
    init: str = typer.Option(None, help="start from this belief network (a run or checkpoint directory) of the same "
                                        "preset, e.g. src/deepnash/data/shipped/classic/belief"),
    minutes: float = _MINUTES,
    steps: int = _STEPS,
    out: str = typer.Option(None, help="run directory (default runs/belief__{variant}__{preset}__{seed}__{time})"),
    resume: str = _RESUME,
    device: str = _DEVICE,
    batch_size: int = typer.Option(None, help="positions per update (default 256)"),
    lr: float = _LR,
    slots: int = _SLOTS,
    sample: float = typer.Option(None, help="share of each game's positions used, drawn at random (default 0.125)"),
    eval_games: int = typer.Option(None, help="validation games scored per report (default 100; 0: all)"),
    eval_minutes: float = _EVAL_MINUTES,
    checkpoint_minutes: float = _CHECKPOINT_MINUTES,
    seed: int = _RUN_SEED,
    threads: int = typer.Option(1, help="torch CPU threads"),
    progress: bool = _PROGRESS,
    as_json: bool = _JSON_SUMMARY,
) -> None:
    """Learn the belief from Gravon records: each hidden opponent piece's type, from the player's observation
    (the search takes the run with belief=DIR)."""
    from .train.belief import BeliefTrainConfig, format_belief_metrics, pretrain_belief as run, resume_belief_config

    summary = _records_run(
        run, resume_belief_config,
        lambda: BeliefTrainConfig(net=preset, variant=variant, seed=seed,
                                  init=str(Path(init).resolve()) if init else None),
        "belief__", records, out, resume, threads, dict(
            batch_size=batch_size, learning_rate=lr, eval_games=eval_games, slots=slots, sample=sample,
            eval_minutes=eval_minutes, checkpoint_minutes=checkpoint_minutes),
        steps=steps, minutes=minutes, device=device, progress=progress and not as_json)
    if as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(f"{summary['step']} updates, {summary['positions']:,} positions from {summary['train_games']} games "
               f"in {summary['out']} (validation: {summary['validation_games']} games)")
    if summary["validation"]:
        typer.echo(format_belief_metrics(summary["validation"]))
    typer.echo(f"search with it: shipped:{summary['variant']},belief={summary['out']}")


_VARIANT_SCORED = typer.Option("classic", help="classic, barrage: the games of that type are scored")
_GAMES = typer.Option(0, help="score only the first N games by name (0: all)")
_HELD_OUT = typer.Option(0.0, help="score only the games `deepnash pretrain --validation SHARE` holds out of these "
                                   "records, e.g. 0.05 (0: every game)")
_THREADS = typer.Option(1, help="torch CPU threads")
_JSON = typer.Option(False, "--json", help="print one JSON object")


def _scored(agent: str, records: list[str], variant: str, games: int, held_out: float, what: str, skipped=None):
    """``(the agent's network, the games a scoring command scores)``: of ``records``' ``variant`` games, those
    ``held_out`` of them (if given), the first ``games`` by name, in the order ``pretrain`` scores them.

    Raises:
        ValueError: the agent has no network (``what`` says what the command scores), or no game is left.
    """
    from .agents.registry import make_agent
    from .train.human import load_games, split_games

    net = getattr(make_agent(agent), "net", None)
    if net is None:
        raise ValueError(f"{agent!r} is not a network agent: {what}")
    chosen = load_games(records, variant, skipped)
    if held_out:
        chosen = split_games(chosen, held_out)[1]
    chosen = sorted(chosen, key=lambda g: g.key)[:games or None]
    if not chosen:
        raise ValueError(f"no readable {variant} games in {', '.join(records)}")
    return net, chosen


@app.command("move-match")
def move_match(
    agent: str = typer.Argument(..., help="a network agent spec: shipped:classic, checkpoint:DIR ..."),
    records: list[str] = typer.Argument(..., help="Gravon .xml files, .zip archives or folders"),
    variant: str = _VARIANT_SCORED,
    games: int = _GAMES,
    held_out: float = _HELD_OUT,
    threads: int = _THREADS,
    as_json: bool = _JSON,
) -> None:
    """Score a network agent's raw policy against the moves people played (top-1/top-3 per decision kind)."""
    from collections import Counter

    import torch

    from .agents.registry import AgentSpecError
    from .nn.checkpoint import CheckpointError
    from .train.pretrain import format_metrics, imitation_metrics

    torch.set_num_threads(threads)
    try:
        skipped: Counter = Counter()
        net, chosen = _scored(agent, records, variant, games, held_out, "move-match scores a network's policy", skipped)
        result = imitation_metrics(net, chosen, variant)
    except (AgentSpecError, CheckpointError, FileNotFoundError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    result = {"agent": agent, "variant": variant, "records_skipped": dict(skipped), **result}
    if as_json:
        typer.echo(json.dumps(result))
        return
    typer.echo(f"{agent} on {result['games']} {variant} games")
    typer.echo(format_metrics(result))


@app.command("value-check")
def value_check(
    agent: str = typer.Argument(..., help="a network agent spec: shipped:classic, checkpoint:DIR ..."),
    records: list[str] = typer.Argument(None, help="Gravon records whose decisive games are scored "
                                                   "(default: $DEEPNASH_GRAVON, the user data folder or the packaged games)"),
    variant: str = _VARIANT_SCORED,
    fit: list[str] = typer.Option(None, help="records to fit the material yardstick on (repeatable; default: the "
                                             "default records); games also scored are left out of the fit"),
    fit_games: int = typer.Option(1500, help="fit on at most this many games (the first by name)"),
    belief: str = typer.Option(None, help="a belief network's run or checkpoint directory to score "
                                          "(default: the one shipped for --variant, if any; 'none': no belief network)"),
    library: str = typer.Option(None, help="a setup library (deepnash setup-library) weighed over the belief network, "
                                           "or over the heuristic sampler without one (default: the one shipped for "
                                           "--variant, if any; 'none': none); the games scored are left out of it"),
    games: int = _GAMES,
    held_out: float = _HELD_OUT,
    threads: int = _THREADS,
    as_json: bool = _JSON,
) -> None:
    """What a network knows about positions: its value's Brier score and log-loss by moves to the end, beside
    a logistic fit on public material; and the beliefs' log-likelihood of the true hidden types (the learned
    belief: a belief network with people's setups weighed over it; the network alone; the search's heuristic
    sampler's; the public information's)."""
    import torch

    from .agents.network_agent import SHIPPED_DIR
    from .agents.registry import AgentSpecError
    from .infostate.setup_library import LIBRARY_FILE, SetupLibrary
    from .nn.belief import load_belief
    from .nn.checkpoint import CheckpointError
    from .train.human import load_games
    from .train.value_check import format_value_check, value_check as check

    torch.set_num_threads(threads)
    try:
        shipped_library = SHIPPED_DIR / variant / LIBRARY_FILE
        library = library or (str(shipped_library) if shipped_library.is_file() else "none")
        setups = None if library == "none" else SetupLibrary.load(library)
        if setups is not None and setups.variant != variant:
            raise ValueError(f"{library}: a {setups.variant} setup library, not {variant}")
        default = [] if records and fit else [_default_records()]  # found (and said) once for both
        records, fit = records or default, fit or default
        net, chosen = _scored(agent, records, variant, games, held_out, "value-check scores a network's value")
        yardstick = sorted(load_games(fit, variant), key=lambda g: g.key)
        keys = {g.key for g in chosen}
        yardstick = [g for g in yardstick if g.key not in keys][:fit_games]
        shipped_belief = SHIPPED_DIR / variant / "belief"
        belief = belief or (str(shipped_belief) if shipped_belief.is_dir() else "none")
        belief_net = None if belief == "none" else load_belief(belief)[0]
        result = check(net, chosen, variant, yardstick, belief_net, setups)
    except (AgentSpecError, CheckpointError, FileNotFoundError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    result = {"agent": agent, "variant": variant, "belief": belief, "library": library, **result}
    typer.echo(json.dumps(result) if as_json else f"{agent} on {variant}\n{format_value_check(result)}")


@app.command("setup-library")
def setup_library(
    records: list[str] = typer.Argument(None, help="Gravon records (default: $DEEPNASH_GRAVON, the user data folder "
                                                   "or the packaged games)"),
    variant: str = typer.Option("classic", help="classic, barrage: the setups of that type's games"),
    held_out: float = typer.Option(0.05, help="leave out the games `deepnash pretrain --validation SHARE` holds out "
                                              "(0: every game)"),
    noise: float = typer.Option(None, help="chance a square of a library setup holds something else (default: "
                                           "0.05 on classic, 0.3 on barrage, as measured)"),
    novel: float = typer.Option(0.5, help="prior that the opponent's setup is not in the library"),
    mirrored: float = typer.Option(0.25, help="prior of a setup's mirror image, as a share of the setup's"),
    out: str = typer.Option(None, help="the file to write (default: setup_library_VARIANT.npz)"),
) -> None:
    """Gather people's setups into a library the learned belief weighs (value-check --library): players keep
    their setups, so a few of the opponent's pieces seen often tell which one it deployed."""
    import numpy as np

    from .infostate.setup_library import NOISE, SetupLibrary
    from .train.human import load_games, split_games

    try:
        games = load_games(records or [_default_records()], variant)
        if held_out:
            games = split_games(games, held_out)[0]
        if not games:
            raise ValueError(f"no readable {variant} games to gather setups from")
        library = SetupLibrary.from_deployments(
            variant, np.concatenate([g.setup for g in games]), [g.key for g in games for _ in (0, 1)],
            noise=NOISE.get(variant, 0.05) if noise is None else noise, novel=novel, mirrored=mirrored)
        path = Path(out or f"setup_library_{variant}.npz")
        library.save(path)
    except (FileNotFoundError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"{len(library.setups):,} distinct setups of {len(library.deployments):,} deployments in "
               f"{len(games):,} {variant} games: {path}")


@app.command("flag-defence")
def flag_defence(
    agent: str = typer.Argument(None, help="agent spec (default: shipped:VARIANT)"),
    variant: str = typer.Option("classic", help="classic, barrage: the raids of that variant"),
    tries: int = typer.Option(20, help="tries per raid, each with its own seed"),
    seed: int = typer.Option(0, min=0, help="first seed"),
    prove: bool = typer.Option(True, help="also prove, by exhaustive search with every piece known, that each "
                                          "raid has a defence"),
    records: list[str] = typer.Option(None, help="instead of the built-in raids, those of the games in these Gravon "
                                                 "records (.xml, .zip, folders) that ended with a Flag captured, "
                                                 "from the position where the raider came within 8 moves"),
    raider: str = typer.Option(None, help="with --records: an agent spec that plays the raiding side on from the "
                                          "game as it stood, history and all, with every piece, instead of the "
                                          "lone raider running straight at the Flag"),
    plies: int = typer.Option(60, min=1, help="with --raider: moves of both sides the Flag must survive"),
    threads: int = _THREADS,
    as_json: bool = _JSON,
) -> None:
    """Raids on the agent's Flag: an opponent piece runs straight at it from a hand-built position (one of
    them from a lost game), or from the games of --records; count the tries in which the agent keeps its
    Flag.  With --raider, the raids of --records are played on by that agent, so it may bring escorts."""
    import torch

    from .agents.registry import AgentSpecError
    from .arena.raids import RAIDS, raid_report, record_raid
    from .nn.checkpoint import CheckpointError
    from .game.errors import RecordError
    from .notation.gravon import read_records

    torch.set_num_threads(threads)
    try:
        raids = RAIDS if not records else [r for rec in read_records(records) if (r := record_raid(rec))]
        if raider and not records:
            raise ValueError("--raider plays the raids of --records only")
        report = raid_report(agent or f"shipped:{variant}", variant, tries, seed, prove, list(raids), raider, plies)
    except (AgentSpecError, CheckpointError, RecordError, FileNotFoundError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(report))
        return
    about = {r.name: r.about for r in raids}
    against = f" against {raider} for {plies} plies" if raider else ""
    typer.echo(f"{report['agent']} on the {variant} raids{against}, {tries} {'try' if tries == 1 else 'tries'} each")
    for name, row in report["raids"].items():
        proof = {True: "a defence exists", False: "NO defence exists"}.get(row.get("defence_exists"), "")
        endings = ", ".join(f"{k} {v}" for k, v in sorted(row["endings"].items()))
        typer.echo(f"  {name:<18} kept {row['kept']:>3}/{row['tries']}  ({endings})  {proof}")
        typer.echo(f"    {about[name]}")
    typer.echo(f"kept the Flag in {report['kept']} of {report['played']} tries")


@app.command("build-setup-pool")
def build_setup_pool(
    archives: list[str] = typer.Argument(..., help="Gravon .zip archives, .xml files or folders"),
    out: str = typer.Option("", help="output .npz (default: the pool shipped in deepnash/env)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Extract the distinct human Classic and Barrage setups of Gravon records into a setup pool file."""
    from .env.setups import HUMAN_POOL_FILE, build_human_pool

    target = out or str(HUMAN_POOL_FILE)
    counts = build_human_pool(archives, target)
    if as_json:
        typer.echo(json.dumps({"out": target, "setups": counts}))
    else:
        typer.echo(f"{target}: " + ", ".join(f"{n} {v} setups" for v, n in counts.items()))


@app.command("replay")
def replay_record(
    file: str = typer.Argument(..., help="a Gravon .xml record (ours or gravon.de's), or a .zip archive of them"),
    game: str = typer.Option(None, help="in a .zip: a member's name or 1-based index; in an .xml of several games: an index"),
    as_json: bool = typer.Option(False, "--json", help="print every frame as one JSON object (as the browser gets it)"),
    explain: bool = typer.Option(False, help="say from which move on the raider could have known where a captured "
                                             "Flag was (a reasoning opponent's Flag inference), and where the Flag "
                                             "could last have been saved from the piece that took it, instead of "
                                             "stepping"),
) -> None:
    """Step through a recorded game with every piece shown: Enter/next, prev, N (jump), first, last, quit."""
    from .arena.exposure import flag_exposure
    from .arena.raids import last_defence
    from .game.errors import RecordError
    from .play.frames import load_record, record_frames
    from .play.terminal import run
    from .play.viewer import ReplaySession

    try:
        record = load_record(file, game)
        frames = record_frames(record)
        exposure = flag_exposure(record) if explain else None
        defence = last_defence(record) if exposure is not None else None
    except (RecordError, OSError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    if explain:
        if as_json:
            typer.echo(json.dumps(None if exposure is None else {
                **exposure.to_dict(), "last_defence": None if defence is None else defence.to_dict()}))
        elif exposure is None:
            typer.echo("no Flag was captured in this game")
        else:
            typer.echo(exposure.describe())
            typer.echo("no turn of the loser could stop the piece that took it" if defence is None
                       else defence.describe())
        return
    if as_json:
        typer.echo(json.dumps(frames.as_json()))
        return
    run(ReplaySession(frames))


@app.command("export")
def export(
    run: str = typer.Argument(..., help="a training run directory (its latest checkpoint) or a checkpoint directory"),
    out: str = typer.Argument(..., help="the agent's directory, then playable as checkpoint:OUT"),
    weights: str = typer.Option("online", help="which network: online, target, reg, reg_prev"),
    mirror_value: bool = typer.Option(None, "--mirror-value/--no-mirror-value",
                                      help="the agent's value reads each position and its left-right mirror and "
                                           "takes the mean (default: as the run has it)"),
) -> None:
    """Export one network of a training run as a compact agent checkpoint (no optimiser, no other networks);
    a belief network's run (deepnash pretrain-belief) as a compact belief network."""
    from .nn.belief import BELIEF_KIND
    from .nn.checkpoint import CheckpointError, export_agent, load_checkpoint

    try:
        path = export_agent(run, out, weights, mirror_value)
    except (CheckpointError, FileExistsError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    use = f"belief={out} in a searching agent's spec" if load_checkpoint(path).meta.get("kind") == BELIEF_KIND \
        else f"agent spec checkpoint:{out}"
    typer.echo(f"exported {weights} network of {run} to {path} ({use})")


def main(argv: list[str] | None = None) -> None:
    """The console entry point: ``app`` behind one guard, so that no command fails silently.

    Bad input (``ValueError``, which every error type of the library is or wraps, ``OSError``, or
    another ``deepnash`` exception such as ``AgentFailure``) prints ``error: MESSAGE`` on stderr and
    exits 2, as the commands' own checks do; anything else is a bug: it prints its traceback, then
    ``error: deepnash COMMAND failed unexpectedly: TYPE: MESSAGE``, and exits 1.  Typer's usage
    errors and ``--help`` keep their own output and codes; Ctrl-C exits 130.

    Args:
        argv: the arguments (``None``: ``sys.argv[1:]``).
    """
    args = sys.argv[1:] if argv is None else argv
    try:
        app(args=args, prog_name="deepnash")
    except KeyboardInterrupt:
        typer.echo("error: interrupted", err=True)
        sys.exit(130)
    except Exception as e:  # noqa: BLE001 - the one place every failure is reported
        library = isinstance(e, (ValueError, OSError)) or type(e).__module__.startswith("deepnash.")
        if not library:
            traceback.print_exc()
        command = next((a for a in args if not a.startswith("-")), "")
        lead = "error: " if library else f"error: deepnash {command} failed unexpectedly: {type(e).__name__}: "
        typer.echo(f"{lead}{e}", err=True)
        sys.exit(2 if library else 1)
