"""What a network knows about positions of human games: its value against the results, beside a
logistic fit on public material, and the public belief's likelihood of the true hidden types.

``deepnash value-check`` is this module.  Every move decision (the selection step, one per move) of the
decisive games is a position, scored from the mover's side:

- the value's probability of winning, ``(1 + v) / 2`` with ``v`` the network's scalar value (for a
  version-2 network P(win) + P(draw) / 2), by its Brier score and log-loss against the result;
- the same for the yardstick: a logistic regression on 13 public numbers, for each of the 12 piece
  types the mover's pieces left less the opponent's, and the ply, fitted on other records;
- the beliefs (``train.belief.belief_nll``: the learned belief, people's setups weighed over a belief
  network, or over the heuristic sampler without one; the network alone; the public information's closed form, and the heuristic
  sampler's) by their mean negative log-likelihood of the true type of each hidden opponent piece, in nats
  per hidden piece.  The setup library leaves out the games scored, as the material fit does.

Scores are split by how many moves the position lies before the end of its game (``BUCKETS``), as
``shared/data``'s table of what a value should beat is.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import torch

from ..nn import SELECT, DeepNashNet
from ..infostate.setup_library import SetupLibrary
from ..nn.belief import BeliefNet
from .belief import BELIEFS, PHASES, belief_nll, summarise_nll
from .human import HumanDecisions, HumanGame

__all__ = ["BUCKETS", "PHASES", "MaterialFit", "brier_gap", "format_value_check", "material_features", "positions",
           "value_check"]

#: Moves before the end of the game: ``(name, lowest, highest)``, the highest not included.
BUCKETS = (("0-10", 0, 10), ("10-30", 10, 30), ("30-80", 30, 80), ("80-200", 80, 200), ("200-end", 200, math.inf))
_EPS = 1e-6


def material_features(own_types: np.ndarray, opponent_types: np.ndarray, ply: np.ndarray) -> np.ndarray:
    """``float32[N, 13]``: per type 0..11, the mover's pieces less the opponent's, then the ply / 100.

    Args:
        own_types, opponent_types: ``int8[N, 100]`` (``DecisionBatch``'s).
        ply: ``int[N]``.
    """
    counts = [((own_types == t).sum(1) - (opponent_types == t).sum(1)) for t in range(12)]
    return np.stack([*counts, np.asarray(ply) / 100.0], axis=1).astype(np.float32)


def positions(games: list[HumanGame], variant: str, net: DeepNashNet | None = None,
              belief: BeliefNet | None = None, library: SetupLibrary | None = None,
              batch_size: int = 512) -> dict[str, np.ndarray]:
    """Every move decision of the decisive ``games``, from the mover's side.

    Args:
        net: the network to score them with; ``None`` replays without observations (several times
            faster), for a fit's training positions.
        belief: a belief network to score beside the public and the heuristic sampler's beliefs (with ``net``).
        library: people's setups, weighed over ``belief``'s (``infostate.setup_library``).

    Returns:
        ``won`` (``bool[N]``), ``game`` (``int64[N]``: its game's index in ``games``), ``to_end`` and ``ply``
        (``int64[N]``: moves before the end of its game and moves played), ``features`` (``material_features``)
        and, with ``net``, ``p_win`` (``float64[N]``), ``belief_ply`` (``int64[H]``: the ply of each hidden
        opponent piece's position) and per belief of ``train.belief.belief_nll`` (``public``, ``sampler``,
        with ``belief`` also ``network``; ``learned`` with ``library``, or ``network`` without) ``belief_<name>``
        (``float64[H]``: its negative log-likelihood of that piece's true type).
    """
    index = [i for i, g in enumerate(games) if g.winner >= 0]
    decisive = [games[i] for i in index]
    out: dict[str, list] = {k: [] for k in ("won", "game", "to_end", "ply", "features", "p_win", "belief_ply")}
    stream = HumanDecisions(decisive, variant, batch_size=batch_size, slots=64, shuffle=False,
                            observe=net is not None, phases=(SELECT,))
    lengths = np.array([len(g.moves) for g in decisive], np.int64)
    for batch in stream:
        ply = batch.ply.astype(np.int64)
        out["won"].append(batch.value > 0)
        out["ply"].append(ply)
        out["game"].append(np.asarray(index, np.int64)[batch.game])
        out["to_end"].append(lengths[batch.game] - ply)
        out["features"].append(material_features(batch.own_types, batch.opponent_types, ply))
        if net is None:
            continue
        with torch.inference_mode():
            value = net.value(torch.from_numpy(batch.obs)).double().numpy()
        out["p_win"].append((1 + np.clip(value, -1, 1)) / 2)
        nll = belief_nll(batch, variant, belief, library)
        if "network" in nll and "learned" not in nll:
            nll["learned"] = nll["network"]
        out["belief_ply"].append(ply[nll.pop("row")])
        for name, v in nll.items():
            out.setdefault(f"belief_{name}", []).append(v)
    return {k: np.concatenate(v) if v else np.zeros(0) for k, v in out.items()}


class MaterialFit:
    """The yardstick: a logistic regression of winning on ``material_features`` (L2 1e-4, L-BFGS)."""

    def __init__(self, features: np.ndarray, won: np.ndarray):
        if len(features) == 0:
            raise ValueError("no decisive positions to fit the material yardstick on")
        x = torch.from_numpy(np.asarray(features, np.float64))
        y = torch.from_numpy(np.asarray(won, np.float64))
        self.weights = torch.zeros(x.shape[1] + 1, dtype=torch.float64, requires_grad=True)
        opt = torch.optim.LBFGS([self.weights], max_iter=200, line_search_fn="strong_wolfe")

        def loss():
            opt.zero_grad()
            z = x @ self.weights[:-1] + self.weights[-1]
            out = torch.nn.functional.binary_cross_entropy_with_logits(z, y) + 1e-4 * self.weights[:-1].square().sum()
            out.backward()
            return out

        opt.step(loss)
        self.weights = self.weights.detach()

    def p_win(self, features: np.ndarray) -> np.ndarray:
        """``float64[N]``: the fitted probability of winning."""
        z = torch.from_numpy(np.asarray(features, np.float64)) @ self.weights[:-1] + self.weights[-1]
        return torch.sigmoid(z).numpy()


def _scores(p: np.ndarray, won: np.ndarray) -> tuple[float, float]:
    q = np.clip(p, _EPS, 1 - _EPS)
    brier = float(np.mean((p - won) ** 2))
    log_loss = float(-np.mean(np.where(won, np.log(q), np.log(1 - q))))
    return brier, log_loss


def brier_gap(p: np.ndarray, q: np.ndarray, won: np.ndarray, game: np.ndarray, resamples: int = 2000,
              seed: int = 0) -> tuple[float, float, float]:
    """The Brier score of ``p`` less that of ``q`` on the same decisions, with a 95% interval from a paired
    bootstrap over games (a game's decisions share its result, so games, not decisions, are the samples).

    Args:
        p, q: ``float64[N]``: two predictions of P(win) for the same decisions.
        won: ``bool[N]``: the results.
        game: ``int64[N]``: each decision's game (any labels).
        resamples: bootstrap resamples of the games; ``seed`` seeds them (the same inputs give the same interval).

    Returns:
        ``(gap, low, high)``: the gap on the decisions as they are, and the 2.5th and 97.5th percentiles of
        the gap over resamples of the games (a gap wholly below zero: ``p`` scores better on games like these).

    Raises:
        ValueError: no decision.
    """
    if len(won) == 0:
        raise ValueError("no decision to score")
    labels, at = np.unique(game, return_inverse=True)
    g = len(labels)
    gap_sum = np.bincount(at, weights=(p - won) ** 2 - (q - won) ** 2, minlength=g)
    count = np.bincount(at, minlength=g).astype(np.float64)
    rng = np.random.default_rng(seed)
    weights = np.stack([np.bincount(rng.integers(0, g, g), minlength=g) for _ in range(resamples)]).astype(np.float64)
    gaps = (weights @ gap_sum) / (weights @ count)
    low, high = np.percentile(gaps, [2.5, 97.5])
    return float(gap_sum.sum() / count.sum()), float(low), float(high)


def value_check(net: DeepNashNet, games: list[HumanGame], variant: str,
                fit_games: Iterable[HumanGame], belief: BeliefNet | None = None,
                library: SetupLibrary | None = None) -> dict:
    """Score ``net``'s value and the beliefs on ``games``, beside the material fit on ``fit_games``; the
    learned belief is ``library`` (less the deployments of ``games``) weighed over ``belief`` (or over the heuristic
    sampler without one), or ``belief`` alone without a library.

    Returns:
        The JSON object of ``deepnash value-check --json``: ``games``, ``decisions``, ``brier``,
        ``log_loss``, ``material_brier``, ``material_log_loss``, ``fit_games``, ``fit_decisions``,
        ``buckets`` (per ``BUCKETS`` name: ``n``, ``games`` (the games its decisions come from), ``brier``,
        ``log_loss``, ``material_brier``, ``material_log_loss``, and ``brier_gap``: ``[gap, low, high]`` of
        ``brier_gap``, the value's Brier less the material fit's with its 95% interval over games; the
        same ``brier_gap`` for all decisions), ``belief_nll`` (the learned belief's, ``None`` with neither a belief network nor
        a library), ``network_belief_nll`` (the belief network's alone, ``None`` without one),
        ``heuristic_belief_nll`` (the search's heuristic sampler's), ``public_belief_nll`` (the public
        closed form's), ``hidden_pieces`` and ``belief_phases`` (per ``PHASES`` name: ``n`` and the four).

    Raises:
        ValueError: no decisive game among ``games`` or ``fit_games``.
    """
    fit_games = list(fit_games)
    seen = {g.key for g in games}
    fit_games = [g for g in fit_games if g.key not in seen]
    fit_at = positions(fit_games, variant)
    fit = MaterialFit(fit_at["features"], fit_at["won"])
    if library is not None:
        library = library.without([g.key for g in games])
    at = positions(games, variant, net, belief, library)
    if len(at["won"]) == 0:
        raise ValueError(f"no decisive {variant} game to score among {len(games)} games")
    material = fit.p_win(at["features"])
    result = {"games": sum(g.winner >= 0 for g in games), "decisions": int(len(at["won"])),
              "fit_games": sum(g.winner >= 0 for g in fit_games), "fit_decisions": int(len(fit_at["won"]))}
    result["brier"], result["log_loss"] = _scores(at["p_win"], at["won"])
    result["material_brier"], result["material_log_loss"] = _scores(material, at["won"])
    result["brier_gap"] = list(brier_gap(at["p_win"], material, at["won"], at["game"]))
    result["buckets"] = {}
    for name, lo, hi in BUCKETS:
        s = (at["to_end"] >= lo) & (at["to_end"] < hi)
        row = {"n": int(s.sum()), "games": len(np.unique(at["game"][s]))}
        if s.any():
            row["brier"], row["log_loss"] = _scores(at["p_win"][s], at["won"][s])
            row["material_brier"], row["material_log_loss"] = _scores(material[s], at["won"][s])
            row["brier_gap"] = list(brier_gap(at["p_win"][s], material[s], at["won"][s], at["game"][s]))
        result["buckets"][name] = row
    beliefs = summarise_nll({name: at[f"belief_{name}"] for name in BELIEFS if f"belief_{name}" in at},
                            at["belief_ply"])
    result.update({key: beliefs[name] for key, name in _BELIEF_KEYS})
    result["hidden_pieces"] = beliefs["hidden_pieces"]
    result["belief_phases"] = {phase: {"n": row["n"], **{key: row[name] for key, name in _BELIEF_KEYS}}
                               for phase, row in beliefs["phases"].items()}
    return result


#: ``value_check``'s keys of the beliefs' scores and ``train.belief.BELIEFS``' names for them.
_BELIEF_KEYS = (("belief_nll", "learned"), ("network_belief_nll", "network"), ("heuristic_belief_nll", "sampler"),
                ("public_belief_nll", "public"))


def format_value_check(r: dict) -> str:
    """The report of ``value_check`` as a table."""
    lines = [f"{r['decisions']:,} move decisions of {r['games']} decisive games; material fit on "
             f"{r['fit_decisions']:,} decisions of {r['fit_games']} other games",
             f"{'moves to end':<13} {'n':>8} {'games':>6} {'Brier':>7} {'log-loss':>9} {'material':>9} {'mat. log':>9}"
             f"  {'Brier - material [95% over games]':>33}"]
    whole = {"n": r["decisions"], "games": r["games"], **{k: r[k] for k in ("brier", "log_loss", "material_brier",
                                                                            "material_log_loss", "brier_gap")}}
    for name, row in [*r["buckets"].items(), ("all", whole)]:
        if row["n"] == 0:
            lines.append(f"{name:<13} {0:>8} {0:>6}")
            continue
        gap, low, high = row["brier_gap"]
        lines.append(f"{name:<13} {row['n']:>8,} {row['games']:>6} {row['brier']:>7.3f} {row['log_loss']:>9.3f} "
                     f"{row['material_brier']:>9.3f} {row['material_log_loss']:>9.3f}"
                     f"  {gap:>+9.3f} [{low:+.3f}, {high:+.3f}]")
    lines.append("(Brier and log-loss of P(win) = (1 + value) / 2 against the result, from the mover's side; "
                 "a constant 50% scores 0.250 and 0.693)")
    if r["hidden_pieces"]:
        lines.append(f"beliefs over {r['hidden_pieces']:,} hidden pieces, nats per piece (lower is better):")
        for label, key in (("learned belief", "belief_nll"), ("belief network", "network_belief_nll"),
                           ("heuristic sampler", "heuristic_belief_nll"), ("public information", "public_belief_nll")):
            if r[key] is None:
                lines.append(f"  {label:<19} none given")
                continue
            phases = ", ".join(f"{k} {v[key]:.3f}" for k, v in r["belief_phases"].items() if v[key] is not None)
            lines.append(f"  {label:<19} {r[key]:.3f} ({phases})")
    return "\n".join(lines)
