"""What a library of people's setups tells of where a setup's Flag stands, plain or disguised.

Draws setups from a pool of people's setups (``setup=walled`` by default, what ``shipped:classic`` deploys), as
they were played and as ``disguise=true`` rearranges them, shows K of each setup's moving pieces (their types, by
the square each was deployed on), and asks the shipped setup library's posterior (``setup_posterior``) how likely
the Flag is to stand where it does: the mixture of the library's setups that the evidence weighs, and of people's
share of Flags on that square for a setup the library does not know.  ``docs/journal/value-and-belief.md``, "Disguised setups".

    python docs/journal/scripts/library_flag.py --variant classic --source walled --setups 400 --shown 3 6 10 20 [--json]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from deepnash.agents.network_agent import SHIPPED_DIR
from deepnash.env.setups import PEOPLE_POOLS, disguise
from deepnash.game.pieces import BOMB, FLAG
from deepnash.infostate.setup_library import LIBRARY_FILE, NOT_DEPLOYED, ZONE, SetupLibrary, setup_posterior


def flag_found(library: SetupLibrary, setups: np.ndarray, shown: int, rng: np.random.Generator) -> dict:
    """For setups ``int8[N, 100]`` (Red's squares) with ``shown`` of each one's moving pieces shown, and the squares
    of its zone where no piece stands (Barrage): the mean
    probability the library's posterior gives the Flag's own square (``p_flag``), the mean weight of the novel
    setup (``novel``) and the share of setups whose Flag the library holds at better than even (``sure``)."""
    evidence = np.full((len(setups), 100), -1, np.int8)
    for i, s in enumerate(setups):
        moving = np.flatnonzero((s[:ZONE] >= 0) & (s[:ZONE] != FLAG) & (s[:ZONE] != BOMB))
        squares = rng.choice(moving, shown, replace=False)
        evidence[i, 99 - squares] = s[squares]  # the opponent's frame: Red's square q is its 99 - q
        evidence[i, 99 - np.flatnonzero(s[:ZONE] < 0)] = NOT_DEPLOYED  # where no piece stands is seen from the start
    weights, novel = setup_posterior(library, evidence)
    _, said, _ = library._tables
    flag = np.argmax(setups[:, :ZONE] == FLAG, axis=1)
    says_flag = said.reshape(len(said), ZONE, -1)[:, flag, FLAG].T  # [N, 2K]: hypothesis k puts the Flag there
    p = np.einsum("nk,nk->n", weights, says_flag) + novel * library.shares()[flag, FLAG]
    return {"p_flag": float(p.mean()), "novel": float(novel.mean()), "sure": float(np.mean(p > 0.5))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--source", default="walled", choices=sorted(PEOPLE_POOLS))
    ap.add_argument("--setups", type=int, default=400)
    ap.add_argument("--shown", type=int, nargs="+", default=[3, 6, 10, 20])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    library = SetupLibrary.load(SHIPPED_DIR / args.variant / LIBRARY_FILE)
    rng = np.random.default_rng(args.seed)
    pool = PEOPLE_POOLS[args.source](args.variant).setups
    plain = pool[rng.choice(len(pool), min(args.setups, len(pool)), replace=False)]
    out = {"plain": {}, "disguised": {}}
    disguised = np.array([disguise(s, args.variant, rng, args.source) for s in plain])
    for name, setups in (("plain", plain), ("disguised", disguised)):
        for k in args.shown:
            out[name][str(k)] = flag_found(library, setups, k, rng)
    if args.json:
        print(json.dumps(out))
        return
    print(f"{len(plain)} setups of setup={args.source} ({args.variant}); P(Flag where it stands) / novel setup's "
          "weight / library sure of the Flag")
    for name, rows in out.items():
        for k, r in rows.items():
            print(f"{name:9s} {k:>3s} shown  {r['p_flag']:.3f}  {r['novel']:.3f}  {r['sure']:.2f}")


if __name__ == "__main__":
    main()
