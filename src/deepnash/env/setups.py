"""Where a player's 40 pieces come from: its own deployment actions, uniformly random setups, or a pool.

A ``SetupPool`` holds setups as ``int8[N, 100]`` piece types on Red's absolute
squares (-1 empty); Blue uses them rotated 180 degrees.  ``human_pool`` loads
the pool of human setups extracted from the Gravon archives
(``gravon_setups.npz`` beside this module, built by ``build_human_pool``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Union

import numpy as np

from ..game import InvalidSetupError, Variant, get_variant
from ..game.pieces import BOMB, FLAG, NUM_TYPES, PIECE_NAMES
from .kernels import SRC_LEARNED, SRC_POOL, SRC_RANDOM

HUMAN_POOL_FILE = Path(__file__).with_name("gravon_setups.npz")

@dataclass(frozen=True)
class SetupPool:
    """Setups to draw from uniformly: ``setups: int8[N, 100]``, types on Red's squares, -1 empty.

    Raises (on construction):
        InvalidSetupError: a setup (named by its index) has the wrong pieces for the variant or
            a piece outside Red's deployment zone.
    """

    variant: Variant
    setups: np.ndarray

    def __post_init__(self) -> None:
        arr = np.ascontiguousarray(self.setups, dtype=np.int8)
        if arr.ndim != 2 or arr.shape[1] != 100 or arr.shape[0] == 0:
            raise InvalidSetupError(f"a setup pool needs shape (N>0, 100), got {arr.shape}")
        zone = np.zeros(100, dtype=bool)
        zone[list(self.variant.deploy_squares(0))] = True
        outside = np.nonzero((arr >= 0) & ~zone)
        if outside[0].size:
            raise InvalidSetupError(f"setup {outside[0][0]}: piece on square {outside[1][0]}, outside Red's zone")
        want = np.asarray(self.variant.piece_counts)
        for i, row in enumerate(arr):
            counts = np.bincount(row[row >= 0], minlength=NUM_TYPES)[:NUM_TYPES]
            if row.max() >= NUM_TYPES or not np.array_equal(counts, want):
                bad = ", ".join(f"{PIECE_NAMES[t]} {counts[t]} (want {want[t]})"
                                for t in range(NUM_TYPES) if counts[t] != want[t])
                raise InvalidSetupError(f"setup {i} has the wrong pieces for {self.variant.name}: {bad}")
        object.__setattr__(self, "setups", arr)

    def __len__(self) -> int:
        return self.setups.shape[0]


#: What ``VectorEnv`` accepts per player: ``"learned"``, ``"random"`` or a ``SetupPool``.
SetupSource = Union[str, SetupPool]


def source_code(source: SetupSource, variant: Variant) -> int:
    """The kernel code (``SRC_*``) of a setup source.

    Raises:
        ValueError: an unknown name, or a pool built for another variant.
    """
    if isinstance(source, SetupPool):
        if source.variant.piece_counts != variant.piece_counts or source.variant.deploy_rows != variant.deploy_rows:
            raise ValueError(f"setup pool for {source.variant.name!r} used with variant {variant.name!r}")
        return SRC_POOL
    codes = {"learned": SRC_LEARNED, "random": SRC_RANDOM}
    if source not in codes:
        raise ValueError(f"unknown setup source {source!r}; use 'learned', 'random' or a SetupPool")
    return codes[source]


def pool_from_fields(fields: Iterable[str], variant: Variant) -> SetupPool:
    """A pool of the distinct setups of both players (Blue's rotated onto Red's squares) in Gravon
    fields; setups that are not legal for ``variant`` are skipped."""
    from ..notation.field import field_placements

    rows = []
    for field in fields:
        red, blue = field_placements(field)
        for s in (red, blue[::-1]):
            try:
                SetupPool(variant, s[None, :])
            except InvalidSetupError:
                continue
            rows.append(s)
    return SetupPool(variant, np.unique(np.array(rows, dtype=np.int8), axis=0))


def build_human_pool(paths: Iterable[str | Path], out: str | Path = HUMAN_POOL_FILE) -> dict[str, int]:
    """Extract the Classic and Barrage setups of Gravon archives (``notation.gravon.read_records``) into
    ``out``, an ``.npz`` with one ``int8[N, 100]`` array per variant; returns the setups per variant."""
    from ..notation.gravon import read_records

    fields: dict[str, list[str]] = {"classic": [], "barrage": []}
    for record in read_records(list(paths), on_error=lambda e: None):
        if record.variant.lower() in fields:
            fields[record.variant.lower()].append(record.field)
    pools = {name: pool_from_fields(f, get_variant(name)).setups for name, f in fields.items() if f}
    np.savez_compressed(out, **pools)
    return {name: len(p) for name, p in pools.items()}


def _flag_neighbours(setups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For setups ``int8[N, 100]`` with one Flag each: ``(flag int64[N], on_board bool[N, 4], bomb bool[N, 4])``,
    the Flag's square, and for each of its four neighbours whether it lies on the board and holds a Bomb."""
    setups = np.asarray(setups)
    rows = np.arange(len(setups))
    flag = np.argmax(setups == FLAG, axis=1)
    steps = ((-10, flag >= 10), (10, flag < 90), (-1, flag % 10 > 0), (1, flag % 10 < 9))
    on_board = np.stack([ok for _, ok in steps], axis=1)
    bomb = np.stack([ok & (setups[rows, np.where(ok, flag + step, flag)] == BOMB) for step, ok in steps], axis=1)
    return flag, on_board, bomb


def flag_walled(setups: np.ndarray) -> np.ndarray:
    """``bool[N]``: which setups (``int8[N, 100]``, one Flag each) have a Bomb on every square next to
    the Flag (the board's edge counts as a wall; the squares beyond the deployment zone do not)."""
    _, on_board, bomb = _flag_neighbours(setups)
    return (bomb | ~on_board).all(axis=1)


def flag_on_back_row(setups: np.ndarray) -> np.ndarray:
    """``bool[N]``: which Red setups (``int8[N, 100]``, one Flag each) have their Flag on Red's back row
    (squares 0-9)."""
    return np.argmax(np.asarray(setups) == FLAG, axis=1) < 10


def flag_sheltered(setups: np.ndarray) -> np.ndarray:
    """``bool[N]``: which Red setups (``int8[N, 100]``, one Flag each, Red's back row squares 0-9) have
    their Flag on the back row with a Bomb on a square next to it."""
    _, _, bomb = _flag_neighbours(setups)
    return flag_on_back_row(setups) & bomb.any(axis=1)


def human_pool(variant: Variant | str = "classic") -> SetupPool:
    """The shipped pool of human setups (Gravon) for Classic or Barrage.

    Raises:
        ValueError: no human setups for this variant.
    """
    v = get_variant(variant)
    with np.load(HUMAN_POOL_FILE) as data:
        if v.name not in data:
            raise ValueError(f"no human setups for variant {v.name!r}; have {', '.join(data.files)}")
        return SetupPool(v, data[v.name])


def _walled_on_back_row(setups: np.ndarray) -> np.ndarray:
    return flag_walled(setups) & flag_on_back_row(setups)


def _any_setup(setups: np.ndarray) -> np.ndarray:
    return np.ones(len(setups), dtype=bool)


#: People's pools by name (``setup=`` in agent specs, ``train --setups``): which of ``human_pool``'s setups each
#: keeps (``int8[N, 100] -> bool[N]``), what a setup it keeps is, and what ``disguise`` must keep it.
PEOPLE_FILTERS = {
    "human": (_any_setup, "is legal"),
    "walled": (_walled_on_back_row, "walls its Flag in with Bombs on the back row"),
    "sheltered": (flag_sheltered, "has its Flag on the back row beside a Bomb"),
}


def _people_whose(variant: Variant | str, source: str) -> SetupPool:
    """The setups of ``human_pool(variant)`` that ``PEOPLE_FILTERS[source]`` keeps.

    Raises:
        ValueError: no human setups for this variant, or the filter keeps none.
    """
    pool = human_pool(variant)
    keep, what = PEOPLE_FILTERS[source]
    kept = pool.setups[keep(pool.setups)]
    if not len(kept):
        raise ValueError(f"setup={source}: no setup people played on {pool.variant.name} {what}")
    return SetupPool(pool.variant, kept)


def walled_pool(variant: Variant | str = "classic") -> SetupPool:
    """The setups of ``human_pool`` whose Flag stands on the back row walled in by Bombs (``flag_walled``,
    ``flag_on_back_row``): 1,319 of the 3,181 Classic ones, the setups ``shipped:classic`` plays.  The 28
    walled ones whose Flag stands further forward are left out: people lose their Flag half as often
    again with them, and ``shipped:classic`` lost with them 4 times as often (``docs/journal/passive-bots-and-flag.md``, "Where the Flag stands").

    Raises:
        ValueError: no human setups for this variant, or none of them walls its Flag in on the back row (Barrage).
    """
    return _people_whose(variant, "walled")


def sheltered_pool(variant: Variant | str = "classic") -> SetupPool:
    """The setups of ``human_pool`` whose Flag stands on the back row beside a Bomb (``flag_sheltered``):
    411 of the 857 Barrage ones, the setups ``shipped:barrage`` plays.  People also put the Flag in
    the front row, which a bot that probes unmoved pieces finds (``docs/journal/passive-bots-and-flag.md``).

    Raises:
        ValueError: no human setups for this variant, or none shelters its Flag.
    """
    return _people_whose(variant, "sheltered")


#: People's setup pools by the name agent specs (``setup=``) and ``train --setups`` give them.
PEOPLE_POOLS = {"human": human_pool, "walled": walled_pool, "sheltered": sheltered_pool}


def lane_arrangements(variant: Variant | str) -> np.ndarray:
    """``int64[M, 10]``: the ways to rearrange a setup's lanes that ``disguise`` chooses among, each as the
    column of the original setup that every column (0-9, files a-j) takes its pieces from.

    A lane is a pair of files (a-b, c-d, e-f, g-h, i-j).  A lane may go to the place of any lane with the lakes
    in the same rows of its two files, either way round: on the standard board the three open lanes change
    places among themselves, and so do the two in front of the lakes (3! x 2! orders, 2^5 ways round: 384,
    the setup as deployed and its mirror image among them).
    """
    v = get_variant(variant)
    lake_rows = [frozenset(s // 10 for s in v.lakes if s % 10 == c) for c in range(10)]
    lanes = [(2 * i, 2 * i + 1) for i in range(5)]
    out = []
    orders = [()]
    for place in range(5):  # build every order lane by lane: which original lane, which way round
        orders = [o + ((lane, flip),) for o in orders for lane in range(5) if lane not in {x for x, _ in o}
                  for flip in (0, 1)
                  if (lake_rows[lanes[lane][flip]], lake_rows[lanes[lane][1 - flip]])
                  == (lake_rows[lanes[place][0]], lake_rows[lanes[place][1]])]
    for o in orders:
        out.append([lanes[lane][(k + flip) % 2] for lane, flip in o for k in (0, 1)])
    return np.array(out, dtype=np.int64)


def disguise(setup: np.ndarray, variant: Variant | str, rng: np.random.Generator, source: str = "human") -> np.ndarray:
    """A people's setup with its lanes rearranged (``lane_arrangements``), so that a library of the setups
    people played (``infostate.setup_library``) no longer recognises it, while every lane keeps the pieces a
    person put in it, one above another, as they were.

    Drawn uniformly among the arrangements that move the Flag to another square, and at least half of the pieces
    off a square where the setup, or its mirror image, has a piece of the same type, and that ``PEOPLE_FILTERS[source]`` still keeps
    (``walled``: the Flag walled in on the back row).  ``docs/journal/value-and-belief.md``, "People keep their setups".

    Args:
        setup: ``int8[100]``, piece types on Red's squares (-1 empty), as the pools hold them.

    Returns:
        ``int8[100]`` on Red's squares, or ``None`` when no arrangement qualifies (draw another setup).
    """
    setup = np.asarray(setup, dtype=np.int8)
    cols = lane_arrangements(variant)
    grid = setup.reshape(10, 10)
    moved = grid[:, cols].transpose(1, 0, 2).reshape(len(cols), 100)  # [M, 100]
    mirror = grid[:, ::-1].reshape(100)
    pieces = int((setup >= 0).sum())
    placed = moved >= 0
    kept_here = ((moved == setup) & placed).sum(axis=1)
    kept_mirrored = ((moved == mirror) & placed).sum(axis=1)
    flag_moved = np.argmax(moved == FLAG, axis=1) != np.argmax(setup == FLAG)
    keep, _ = PEOPLE_FILTERS[source]
    ok = (2 * (pieces - np.maximum(kept_here, kept_mirrored)) >= pieces) & flag_moved & keep(moved)
    if not ok.any():
        return None
    return moved[rng.choice(np.flatnonzero(ok))].copy()
