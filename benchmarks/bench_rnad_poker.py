"""R-NaD on Kuhn and Leduc poker against a wall-clock budget: exact NashConv (issue 4's target).

Trains the R-NaD learner (``deepnash.rnad.small_games.PRESETS``) and a plain
policy-gradient baseline (``deepnash.rnad.policy_gradient``, same network,
same batch, same budget) on each game and prints NashConv against learner
steps and training seconds (NashConv evaluations are not counted), and
learner steps per second. Needs OpenSpiel (extra ``openspiel``).

    python benchmarks/bench_rnad_poker.py --kuhn-seconds 750 --leduc-seconds 500
    python benchmarks/bench_rnad_poker.py --json --kuhn-seconds 60 --leduc-seconds 60

JSON keys: ``kuhn_poker`` and ``leduc_poker``, each with ``nash_conv``
(final), ``seconds``, ``learner_steps``, ``steps_per_second``, ``curve`` (list
of ``[seconds, learner_steps, nash_conv]``), ``preset`` (the configuration)
and ``baseline`` (the same keys for policy gradient, without ``preset``);
plus ``threads`` and ``seed``. ``--learners rnad`` skips the baseline,
``--learners pg`` runs only the baseline (then under ``baseline``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math

import torch

from deepnash.rnad.mlp import PolicyValueMLP
from deepnash.rnad.openspiel_adapter import OpenSpielGame
from deepnash.rnad.policy_gradient import PolicyGradientLearner
from deepnash.rnad.small_games import PRESETS, TrainingCurve, make_rnad, train


def _summary(curve: TrainingCurve) -> dict:
    seconds, steps, nash_conv = curve.points[-1]
    return {"nash_conv": nash_conv, "seconds": seconds, "learner_steps": steps,
            "steps_per_second": curve.steps_per_second, "curve": [list(p) for p in curve.points]}


def _finite_json(x):
    """JSON has no infinity: write it as the string "inf" (rho_bar's default)."""
    if isinstance(x, dict):
        return {k: _finite_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite_json(v) for v in x]
    return "inf" if isinstance(x, float) and math.isinf(x) else x


def bench_game(name: str, seconds: float, seed: int, learners: str, baseline_lr: float) -> dict:
    game = OpenSpielGame(name)
    preset = PRESETS[name]
    out: dict = {"preset": _finite_json(dataclasses.asdict(preset))}
    if learners in ("both", "rnad"):
        rnad = make_rnad(game, preset, seed)
        out.update(_summary(train(game, rnad, preset.config.batch_size, seconds=seconds, seed=seed)))
    if learners in ("both", "pg"):
        torch.manual_seed(seed)
        pg = PolicyGradientLearner(lambda: PolicyValueMLP(game.observation_size, game.num_actions, preset.hidden),
                                   baseline_lr)
        out["baseline"] = _summary(train(game, pg, preset.config.batch_size, seconds=seconds, seed=seed))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kuhn-seconds", type=float, default=750.0, help="training budget on kuhn_poker (0: skip)")
    ap.add_argument("--leduc-seconds", type=float, default=500.0, help="training budget on leduc_poker (0: skip)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    ap.add_argument("--learners", choices=("both", "rnad", "pg"), default="both",
                    help="R-NaD, the policy-gradient baseline, or both")
    ap.add_argument("--baseline-lr", type=float, default=1e-3, help="the baseline's Adam learning rate")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    result: dict = {"threads": args.threads, "seed": args.seed}
    for name, seconds in (("kuhn_poker", args.kuhn_seconds), ("leduc_poker", args.leduc_seconds)):
        if seconds > 0:
            result[name] = bench_game(name, seconds, args.seed, args.learners, args.baseline_lr)
    if args.json:
        print(json.dumps(result, allow_nan=False))
        return
    for name in ("kuhn_poker", "leduc_poker"):
        if name not in result:
            continue
        for label, r in (("R-NaD", result[name]), ("policy gradient", result[name].get("baseline"))):
            if r is None or "curve" not in r:
                continue
            print(f"{name} {label}: NashConv {r['nash_conv']:.4f} after {r['learner_steps']} steps, "
                  f"{r['seconds']:.0f} s ({r['steps_per_second']:.1f} steps/s)")
            for s, n, nc in r["curve"]:
                print(f"    {s:8.1f} s {n:7d} steps  NashConv {nc:.4f}")


if __name__ == "__main__":
    main()
