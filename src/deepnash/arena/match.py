"""Matches and tournaments: N games per pair of agent specs, both colours, in parallel, reproducibly.

Game ``i`` of a pair has agent ``a`` as Red when ``i`` is even and the seed
``seed * 1_000_003 + pair * 10_007 + i``, so a match gives the same games for
any number of workers.  Workers are separate processes (``spawn``), each
building its agents from their spec strings (``agents.registry``) and computing
on one thread.

With an ``out`` folder, each finished game leaves its Gravon record ``NAME.xml``
and its result ``NAME.result.json`` (the agents' specs, the game's seed, the
variant and ``GameResult.to_dict``).  A match stopped part-way (an agent's
crash, an interrupt, a lost machine) resumes from them: ``resume=True`` plays
only the games that have no result file yet.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np

from ..agents.registry import make_agent
from ..game import Variant, get_variant
from ..notation.gravon import write_xml
from .referee import AgentCrashed, GameResult, referee_game
from .stats import rating_intervals, wilson

_log = logging.getLogger(__name__)


def a_side(game: int) -> int:
    """The side (0 Red, 1 Blue) agent ``a`` plays in game ``game`` of a pair: Red in the even-numbered ones."""
    return game % 2


@dataclass(frozen=True)
class MatchResult:
    """All games between agents ``a`` and ``b`` and the paper's table row, from ``a``'s view.

    ``wins``, ``draws``, ``losses`` count games; ``a_red_wins``/``a_blue_wins``
    split ``a``'s wins by colour; ``win_low``/``win_high`` bound ``a``'s win rate
    (95% Wilson interval); ``failures`` lists the reasons of forfeited games; ``endings`` splits
    ``a``'s wins, draws and losses by how each game ended; ``seconds`` gives each agent's thinking time.
    """

    a: str
    b: str
    games: tuple[GameResult, ...]

    @property
    def wins(self) -> int:
        return self.a_red_wins + self.a_blue_wins

    @property
    def a_red_wins(self) -> int:
        return sum(1 for i, g in enumerate(self.games) if a_side(i) == 0 and g.winner == 0)

    @property
    def a_blue_wins(self) -> int:
        return sum(1 for i, g in enumerate(self.games) if a_side(i) == 1 and g.winner == 1)

    @property
    def draws(self) -> int:
        return sum(1 for g in self.games if g.winner is None)

    @property
    def losses(self) -> int:
        return len(self.games) - self.wins - self.draws

    @property
    def win_interval(self) -> tuple[float, float]:
        return wilson(self.wins, len(self.games))

    @property
    def failures(self) -> list[str]:
        return [g.reason for g in self.games if g.reason]

    @property
    def endings(self) -> dict[str, dict[str, int]]:
        """``{termination: {"wins": n, "draws": n, "losses": n}}`` from ``a``'s view, for each way a game
        of the match ended (``GameResult.termination``: ``flag_captured``, ``no_moves``, ``move_limit``,
        ``forfeit`` ...), in the order first met; a count of 0 is left out."""
        out: dict[str, dict[str, int]] = {}
        for i, g in enumerate(self.games):
            kind = "draws" if g.winner is None else "wins" if g.winner == a_side(i) else "losses"
            row = out.setdefault(g.termination, {})
            row[kind] = row.get(kind, 0) + 1
        return out

    @property
    def seconds(self) -> dict[str, float]:
        """Each agent's thinking time a game (``GameResult.seconds``), wall-clock seconds: ``a_mean``,
        ``a_max``, ``b_mean``, ``b_max`` (0 without games)."""
        if not self.games:
            return {"a_mean": 0.0, "a_max": 0.0, "b_mean": 0.0, "b_max": 0.0}
        ab = np.array([[g.seconds[a_side(i)], g.seconds[1 - a_side(i)]] for i, g in enumerate(self.games)])
        return {"a_mean": float(ab[:, 0].mean()), "a_max": float(ab[:, 0].max()),
                "b_mean": float(ab[:, 1].mean()), "b_max": float(ab[:, 1].max())}

    @property
    def heuristics(self) -> dict[str, dict[str, int]]:
        """``{"a": counts, "b": counts}``: each agent's ``GameResult.heuristics`` summed over the games (``searched``
        moves, and how many of them each heuristic of its search changed); empty for an agent that keeps none."""
        out: dict[str, dict[str, int]] = {"a": {}, "b": {}}
        for i, g in enumerate(self.games):
            for key, side in (("a", a_side(i)), ("b", 1 - a_side(i))):
                for name, n in g.heuristics[side].items():
                    out[key][name] = out[key].get(name, 0) + n
        return out

    def to_dict(self) -> dict:
        """The stable JSON row: ``a b games wins draws losses a_red_wins a_blue_wins`` plus extras."""
        low, high = self.win_interval
        n = len(self.games)
        return {
            "a": self.a, "b": self.b, "games": n, "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "a_red_wins": self.a_red_wins, "a_blue_wins": self.a_blue_wins,
            "win_rate": self.wins / n if n else 0.0, "win_low": low, "win_high": high,
            "mean_plies": float(np.mean([g.plies for g in self.games])) if n else 0.0,
            "failures": self.failures, "endings": self.endings, "seconds": self.seconds,
            "heuristics": self.heuristics,
        }


@dataclass(frozen=True)
class TournamentResult:
    """Every pair's ``MatchResult`` and, for three or more agents, Bradley–Terry ratings (Elo scale)."""

    agents: tuple[str, ...]
    matches: tuple[MatchResult, ...]
    ratings: tuple[dict, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        out = {"agents": list(self.agents), "pairs": [m.to_dict() for m in self.matches]}
        if self.ratings:
            out["ratings"] = list(self.ratings)
        return out


def _game_task(task: tuple) -> GameResult:
    a_spec, b_spec, a_red, variant, seed, out_path, explain = task
    a, b = make_agent(a_spec), make_agent(b_spec)
    log = None
    if explain and out_path is not None:
        from ..testtime import explain_to

        log = open(out_path.with_suffix(".explain.jsonl"), "w", encoding="utf-8")
        for agent in (a, b):
            explain_to(agent, log.write, as_json=True)
    try:
        result = referee_game(a, b, variant, seed) if a_red else referee_game(b, a, variant, seed)
        if log is not None and result.termination == "flag_captured" and result.record is not None:
            from .exposure import flag_exposure  # how findable the captured Flag was, as the game's last line

            log.write(json.dumps({"flag_exposure": flag_exposure(result.record).to_dict()}) + "\n")
    finally:
        if log is not None:
            log.close()
    if out_path is not None:
        if result.record is not None:
            write_xml(result.record, out_path)
        saved = {"a": a_spec, "b": b_spec, "seed": seed, "variant": repr(variant), "result": result.to_dict()}
        part = _result_path(out_path).with_suffix(".part")
        part.write_text(json.dumps(saved), encoding="utf-8")
        part.replace(_result_path(out_path))  # whole or absent: a resumed match never reads half a file
    return result


def _result_path(record_path: Path) -> Path:
    return record_path.with_suffix(".result.json")


def _recorded(task: tuple) -> GameResult | None:
    """The result an earlier run of the same match left for ``task``'s game, ``None`` if it left none.

    Raises:
        ValueError: the result file is unreadable, or it was written by a game of other agents, seed or variant.
    """
    a_spec, b_spec, _, variant, seed, out_path, _ = task
    path = _result_path(out_path)
    if not path.exists():
        return None
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        played = (saved["a"], saved["b"], saved["seed"], saved["variant"])
        result = GameResult.from_dict(saved["result"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: not a game result the arena can resume from ({type(e).__name__}: {e}); "
                         "delete it to play that game again") from None
    if played != (a_spec, b_spec, seed, repr(variant)):
        raise ValueError(f"{path}: that game was {played[0]} against {played[1]} with seed {played[2]} under "
                         f"{played[3]}, not {a_spec} against {b_spec} with seed {seed} under {variant!r}: "
                         "resume with the arguments of the match that wrote it, or give another out folder")
    return result


def _tasks(specs: Sequence[str], pairs, games: int, variant: Variant, seed: int, out: Path | None,
           explain: bool) -> list[tuple]:
    tasks = []
    for k, (i, j) in enumerate(pairs):
        for g in range(games):
            path = None if out is None else out / f"{k:02d}-{_slug(specs[i])}-vs-{_slug(specs[j])}-{g:04d}.xml"
            tasks.append((specs[i], specs[j], a_side(g) == 0, variant, seed * 1_000_003 + k * 10_007 + g, path, explain))
    return tasks


def _slug(spec: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in spec.rsplit("/", 1)[-1])[:40]


def _one_thread() -> None:
    """A worker's tensors use one thread: ``workers`` processes share the machine's cores.  Set
    before PyTorch loads (it reads the variable then), so a worker that plays no network never
    loads it; an ``OMP_NUM_THREADS`` the user set is kept."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def _run(tasks: list[tuple], workers: int) -> list[GameResult]:
    """Play every task, in ``workers`` processes; the results in the tasks' order.

    A game whose agent crashes (``AgentCrashed``) is logged when it happens and the other games go on.

    Raises:
        AgentCrashed: after the last game, when any crashed; it counts them and names the first.
    """
    results: list[GameResult | None] = [None] * len(tasks)
    crashes: list[tuple[int, str]] = []

    def settle(k: int, result) -> None:
        try:
            results[k] = result()
        except AgentCrashed as e:
            _log.error("a game stopped, the others go on: %s", e)
            crashes.append((k, str(e)))

    if workers <= 1:
        for k, t in enumerate(tasks):
            settle(k, lambda t=t: _game_task(t))
    else:
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=_one_thread)
        try:
            futures = {pool.submit(_game_task, t): k for k, t in enumerate(tasks)}
            for f in as_completed(futures):
                settle(futures[f], f.result)
        finally:  # on an interrupt, the games not started are dropped; the finished ones are saved
            pool.shutdown(wait=True, cancel_futures=True)
    if crashes:
        crashes.sort()
        first = crashes[0][1]
        raise AgentCrashed(first if len(crashes) == 1 else
                           f"{len(crashes)} of the {len(tasks)} games played stopped on an agent's error; the first: {first}")
    return results


def run_tournament(
    specs: Sequence[str],
    games: int,
    variant: Variant | str = "classic",
    seed: int = 0,
    workers: int = 1,
    out: str | Path | None = None,
    rating_samples: int = 200,
    explain: bool = False,
    resume: bool = False,
) -> TournamentResult:
    """Play ``games`` games for every pair of ``specs`` (round robin), colours alternating.

    Args:
        specs: agent spec strings (``agents.registry.make_agent``), at least two.
        games: games per pair (even numbers give each agent both colours equally).
        variant: ``"classic"``, ``"barrage"`` or a ``Variant`` (e.g. with repetition rules relaxed).
        seed: the match seed; results reproduce for a fixed seed whatever ``workers``.
        workers: processes to play in (1: in this process).
        out: folder for one Gravon XML record per game (created if needed).
        rating_samples: bootstrap samples for the rating intervals.
        explain: beside each record, write ``GAME.explain.jsonl``: every decision of the network
            agents (raw policy, what each test-time layer changed, value; ``testtime.DecisionLog``).
        resume: take the games an earlier run of this match left in ``out`` (their ``.result.json``)
            and play only the others.

    Raises:
        ValueError: fewer than two specs, ``games < 1``, ``workers < 1``, ``resume`` without ``out``, or a
            result file in ``out`` that is unreadable or from another match.
        agents.registry.AgentSpecError: a bad spec (checked before any game starts).
        AgentCrashed: an agent raised an exception that is not a forfeit (a bug).  The other games are
            played first; with ``out``, their records and results are saved, and ``resume`` plays the
            crashed games again.
    """
    if len(specs) < 2:
        raise ValueError(f"a match needs at least two agents, got {list(specs)}")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if explain and out is None:
        raise ValueError("explain writes beside the game records: give an out folder too")
    if resume and out is None:
        raise ValueError("resume reads the results an earlier run left in its out folder: give that folder")
    for s in specs:
        make_agent(s)
    variant = get_variant(variant)
    folder = None if out is None else Path(out)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    pairs = list(combinations(range(len(specs)), 2))
    tasks = _tasks(specs, pairs, games, variant, seed, folder, explain)
    results: list[GameResult | None] = [_recorded(t) if resume else None for t in tasks]
    todo = [k for k, r in enumerate(results) if r is None]
    for k, r in zip(todo, _run([tasks[k] for k in todo], workers)):
        results[k] = r
    matches = tuple(
        MatchResult(specs[i], specs[j], tuple(results[k * games:(k + 1) * games])) for k, (i, j) in enumerate(pairs)
    )
    ratings: tuple[dict, ...] = ()
    if len(specs) >= 3:
        wdl = np.zeros((len(specs), len(specs), 3))
        for (i, j), m in zip(pairs, matches):
            wdl[i, j] = (m.wins, m.draws, m.losses)
        r, lo, hi = rating_intervals(wdl, samples=rating_samples, seed=seed)
        ratings = tuple({"agent": s, "rating": float(r[k]), "low": float(lo[k]), "high": float(hi[k])}
                        for k, s in enumerate(specs))
    return TournamentResult(tuple(specs), matches, ratings)


def run_match(
    a_spec: str, b_spec: str, games: int, variant: Variant | str = "classic", seed: int = 0, workers: int = 1,
    out: str | Path | None = None, explain: bool = False, resume: bool = False,
) -> MatchResult:
    """``games`` games between two agent specs, ``a`` Red in the even-numbered ones (see ``run_tournament``)."""
    return run_tournament([a_spec, b_spec], games, variant, seed, workers, out, explain=explain,
                          resume=resume).matches[0]
