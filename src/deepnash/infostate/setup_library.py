"""People keep their setups: a belief that asks which setup of a library the opponent deployed.

Players on Gravon play the same setup game after game. Of the 400 opponents' setups in 200 held-out
Classic games (``train.human.split_games``' 5%), 47% appear square for square, or mirrored, in the other
games of the same 14 months, and 69% share at least 30 of their 40 squares with one; of the setups of
two months left out, 36% appear in the twelve others.  Once a few of the opponent's pieces have shown
where they stood, the setup it deployed is often one of these, and then every hidden piece is known.

``library_belief`` weighs that by Bayes' rule.  Hypothesis ``k`` is "the opponent deployed setup ``k`` of
the library, each square as written with probability ``1 - noise`` and otherwise drawn from people's
share of types on that square"; the last hypothesis is "a setup not in the library", with prior
``novel``, every square drawn from those shares.  The evidence is what is public of each piece by the
square it was deployed on (``opponent_evidence``: its type once shown, that it moved, that no piece
stood there).  Each hidden piece's type is then the posterior mixture of what the setups say of the
square it came from and of a base belief (a belief network's, or the public information's), which also
speaks for the hypotheses' noise and for the novel setup; types public information rules out stay out.

Frames: setups are stored in their owner's frame, the deployment zone on squares 0-39 (as
``train.human.HumanGame.setup``); positions are in the player's frame, where the opponent deployed on
squares 60-99, so the opponent's square ``s`` is the library's square ``99 - s``.
"""

from __future__ import annotations

import zipfile
import zlib
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from ..game import kernels as K
from ..game.pieces import BOMB, FLAG, NUM_TYPES
from .view import PlayerView

#: ``opponent_evidence`` code: the piece deployed there has moved and not been shown (it is neither Bomb nor Flag).
MOVED = NUM_TYPES
#: ``opponent_evidence`` code: no piece was deployed there (Barrage and other sparse variants).
NOT_DEPLOYED = NUM_TYPES + 1
#: Squares of a deployment zone (four rows of ten).
ZONE = 40
#: The file name of a variant's library among the shipped agents' files (``data/shipped/<variant>/``).
LIBRARY_FILE = "setup_library.npz"
#: ``SetupLibrary.noise`` by variant, as measured on training games left out of the library (``docs/journal/value-and-belief.md``,
#: "People keep their setups"): Barrage setups, eight pieces on forty squares, vary more from game to game.
NOISE = {"classic": 0.05, "barrage": 0.3}

_EMPTY = NUM_TYPES  # the category of a square with no piece
# the categories each evidence code allows, indexed by code + 1 (-1: a piece was deployed there, no more known)
_ALLOWED = np.zeros((NOT_DEPLOYED + 2, NUM_TYPES + 1), bool)
_ALLOWED[0, :NUM_TYPES] = True
_ALLOWED[np.arange(1, NUM_TYPES + 1), np.arange(NUM_TYPES)] = True
_ALLOWED[MOVED + 1, :NUM_TYPES] = True
_ALLOWED[MOVED + 1, [FLAG, BOMB]] = False
_ALLOWED[NOT_DEPLOYED + 1, _EMPTY] = True


@dataclass(frozen=True)
class SetupLibrary:
    """The setups people deployed, each deployment tagged with its game, and the likelihood's parameters.

    Attributes:
        variant: the variant's name.
        setups: ``int8[K, 40]``: the distinct setups' types on the deployment zone, in their owner's frame,
            -1 empty.
        deployments: ``int64[M]``: the setup (row of ``setups``) each deployment seen used.
        games: ``uint32[M]``: the CRC-32 of each deployment's game key (``train.human.HumanGame.key``), so that
            a game scored can be left out (``without``).
        noise: the chance a square of a library setup holds something else.
        novel: the prior of a setup not in the library.
        mirrored: each setup's mirror image (files reversed) enters with this share of its prior.
    """

    variant: str
    setups: np.ndarray
    deployments: np.ndarray
    games: np.ndarray
    noise: float = 0.05
    novel: float = 0.5
    mirrored: float = 0.25

    def __post_init__(self) -> None:
        if self.setups.ndim != 2 or self.setups.shape[1] != ZONE:
            raise ValueError(f"setup library: setups must be [K, {ZONE}], got {list(self.setups.shape)}")
        if self.deployments.shape != self.games.shape:
            raise ValueError("setup library: one game per deployment")
        if not (0 < self.noise < 1 and 0 < self.novel < 1 and 0 < self.mirrored <= 1):
            raise ValueError(f"setup library: noise and novel in (0, 1), mirrored in (0, 1]; got {self.noise}, "
                             f"{self.novel}, {self.mirrored}")

    @classmethod
    def from_deployments(cls, variant: str, setups: np.ndarray, keys: list[str], **params) -> "SetupLibrary":
        """The library of deployments ``int8[M, 100]`` (each in its owner's frame, the zone on squares 0-39),
        deployment ``i`` made in the game of key ``keys[i]``; ``params``: ``noise``, ``novel``, ``mirrored``.

        Raises:
            ValueError: a deployment with pieces outside squares 0-39, or not one key per deployment.
        """
        setups = np.asarray(setups, np.int8).reshape(-1, 100)
        if len(keys) != len(setups):
            raise ValueError(f"setup library: {len(setups)} deployments and {len(keys)} game keys")
        if (setups[:, ZONE:] >= 0).any():
            raise ValueError("setup library: a deployment has pieces outside squares 0-39 of its owner's frame")
        distinct, index = np.unique(setups[:, :ZONE], axis=0, return_inverse=True)
        return cls(variant, distinct, index.reshape(-1).astype(np.int64), _game_hashes(keys), **params)

    @property
    def counts(self) -> np.ndarray:
        """``int64[K]``: the deployments of each setup."""
        return np.bincount(self.deployments, minlength=len(self.setups))

    def without(self, keys: list[str]) -> "SetupLibrary":
        """The library less the deployments of the games of ``keys`` (games being scored), and less the setups
        only they used."""
        drop = np.isin(self.games, _game_hashes(keys))
        used = np.unique(self.deployments[~drop])
        renumber = np.full(len(self.setups), -1, np.int64)
        renumber[used] = np.arange(len(used))
        return replace(self, setups=self.setups[used], deployments=renumber[self.deployments[~drop]],
                       games=self.games[~drop])

    def save(self, path: str | Path) -> None:
        """Write the library to ``path`` (an ``.npz`` archive, whatever its name)."""
        with open(path, "wb") as f:
            np.savez_compressed(f, variant=np.array(self.variant), setups=self.setups, deployments=self.deployments,
                                games=self.games, params=np.array([self.noise, self.novel, self.mirrored]))

    @classmethod
    def load(cls, path: str | Path) -> "SetupLibrary":
        """Raises:
            ValueError: ``path`` is not a setup library (unreadable, fields missing or of the wrong shape),
                naming the file.
        """
        try:
            with np.load(path) as d:
                noise, novel, mirrored = (float(x) for x in d["params"])
                return cls(str(d["variant"]), d["setups"].astype(np.int8), d["deployments"].astype(np.int64),
                           d["games"].astype(np.uint32), noise=noise, novel=novel, mirrored=mirrored)
        except (OSError, KeyError, ValueError, zlib.error, zipfile.BadZipFile) as e:
            raise ValueError(f"{path}: not a setup library ({e})") from None

    def shares(self, prior: float = 0.5) -> np.ndarray:
        """``float64[40, 13]``: each zone square's share of each type (12: no piece) over the deployments,
        ``prior`` pseudo-deployments spread evenly over the categories."""
        cat = _categories(self.setups)
        counts = np.zeros((ZONE, NUM_TYPES + 1))
        np.add.at(counts, (np.broadcast_to(np.arange(ZONE), cat.shape), cat), self.counts[:, None])
        counts += prior / (NUM_TYPES + 1)
        return counts / counts.sum(axis=1, keepdims=True)

    @cached_property
    def _tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(log likelihood ratios float32[2K, 40 * codes], the types said float32[2K, 40 * 13], log priors
        float64[2K])`` of the setups and then their mirror images."""
        cats = _categories(self.setups)
        both = np.concatenate([cats, cats.reshape(-1, 4, 10)[:, :, ::-1].reshape(-1, ZONE)])
        allowed = _ALLOWED.astype(np.float64)  # [codes, categories]
        novel = self.shares() @ allowed.T  # [40, codes]: a novel setup's chance of each evidence code per square
        fits = allowed.T[both]  # [2K, 40, codes]: 1 where the setup allows the code
        ratio = np.log(((1 - self.noise) * fits + self.noise * novel[None]) / novel[None])
        said = np.zeros((len(both), ZONE, NUM_TYPES + 1), np.float32)
        np.put_along_axis(said, both[:, :, None], 1.0, axis=2)
        prior = np.concatenate([self.counts, self.mirrored * self.counts]).astype(np.float64)
        return (ratio.reshape(len(both), -1).astype(np.float32), said.reshape(len(both), -1),
                np.log((1 - self.novel) * prior / prior.sum()))


def _game_hashes(keys: list[str]) -> np.ndarray:
    """``uint32[len(keys)]``: the CRC-32 of each game key, as ``SetupLibrary.games`` holds them."""
    return np.array([zlib.crc32(k.encode()) for k in keys], np.uint32)


def _categories(setups: np.ndarray) -> np.ndarray:
    """``int64`` like ``setups``: the type, or 12 where no piece stands."""
    return np.where(setups < 0, _EMPTY, setups).astype(np.int64)


def setup_posterior(library: SetupLibrary, evidence: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The posterior over the opponent's setup.

    Args:
        evidence: ``int8[N, 100]``: ``opponent_evidence`` by deployment square in the player's frame.

    Returns:
        ``(weights float64[N, 2K], novel float64[N])``, summing to 1 per position: the setups (then their
        mirror images) and the novel setup.
    """
    ratio, _, log_prior = library._tables
    ev = np.asarray(evidence)[:, 99 - np.arange(ZONE)].astype(np.int64) + 1  # [N, 40] codes, own frame
    onehot = np.zeros((len(ev), ZONE, len(_ALLOWED)), np.float32)
    np.put_along_axis(onehot, ev[:, :, None], 1.0, axis=2)
    log_post = np.concatenate([(onehot.reshape(len(ev), -1) @ ratio.T).astype(np.float64) + log_prior,
                               np.full((len(ev), 1), np.log(library.novel))], axis=1)
    log_post -= log_post.max(axis=1, keepdims=True)
    post = np.exp(log_post)
    post /= post.sum(axis=1, keepdims=True)
    return post[:, :-1], post[:, -1]


def library_belief(library: SetupLibrary, base: np.ndarray, origins: np.ndarray, evidence: np.ndarray) -> np.ndarray:
    """Each opponent piece's type distribution under the setup posterior (module docstring).

    Args:
        base: ``float[N, 100, 12]``: a belief of each opponent piece's type in the player's frame (zero on the
            types public information rules out), as ``nn.belief.BeliefNet`` (exponentiated) or
            ``nn.belief.public_belief`` give it.
        origins: ``int8[N, 100]``: each opponent piece's deployment square in the player's frame, -1 none.
        evidence: ``int8[N, 100]``: ``opponent_evidence``.

    Returns:
        ``float64[N, 100, 12]``: on each opponent piece's square, a distribution over the types ``base``
        allows; ``base`` unchanged elsewhere.
    """
    base = np.asarray(base, np.float64)
    weights, w_novel = setup_posterior(library, evidence)
    _, said, _ = library._tables
    says = (weights.astype(np.float32) @ said).reshape(len(base), ZONE, NUM_TYPES + 1)[:, :, :NUM_TYPES]
    out = base.copy()
    rows, squares = np.nonzero(np.asarray(origins) >= 0)
    own = 99 - np.asarray(origins)[rows, squares].astype(np.int64)
    noise = library.noise
    mixed = ((1 - noise) * says[rows, own]
             + (noise * (1 - w_novel[rows]) + w_novel[rows])[:, None] * base[rows, squares])
    mixed *= base[rows, squares] > 0
    total = mixed.sum(axis=1, keepdims=True)
    out[rows, squares] = np.divide(mixed, total, out=base[rows, squares].copy(), where=total > 0)
    return out


def public_origins(view: PlayerView) -> tuple[np.ndarray, np.ndarray] | None:
    """What ``view``'s player knows of where the opponent's pieces were deployed, worked back from the move
    history: ``(opponent_origins, opponent_evidence)``, each ``int8[100]`` in the player's frame, as
    ``train.human.DecisionBatch`` gives them; ``None`` when the history does not reach back to the
    deployment (a game continued from a position)."""
    if len(view.history) != view.ply or view.taken_before.any():
        return None
    opponent = 1 - view.player
    where = [int(sq) for sq in np.flatnonzero(view.owner == opponent)]  # each piece's square, walking back
    known = [int(view.types[sq]) if view.revealed[sq] else -1 for sq in where]
    moved = [bool(view.moved[sq]) for sq in where]
    now = list(where)
    at = {sq: i for i, sq in enumerate(where)}

    def taken(square: int, piece_type: int) -> None:  # a piece the walk meets where it was taken
        at[square] = len(where)
        where.append(square)
        known.append(piece_type)
        moved.append(False)

    for record in reversed(view.history):
        f, t = record.move.from_sq, record.move.to_sq
        if record.player == opponent:
            if record.result in (K.RESULT_DEFENDER_WON, K.RESULT_BOTH_REMOVED):
                taken(f, record.attacker)
            else:  # it moved, or won its battle: back to where it came from
                i = at.pop(t)
                at[f], where[i] = i, f
            moved[at[f]] = True
        elif record.result in (K.RESULT_ATTACKER_WON, K.RESULT_BOTH_REMOVED, K.RESULT_FLAG_CAPTURED):
            taken(t, record.defender)
    evidence = np.full(100, NOT_DEPLOYED, np.int8)
    origins = np.full(100, -1, np.int8)
    for i, origin in enumerate(where):
        evidence[origin] = known[i] if known[i] >= 0 else MOVED if moved[i] else -1
    origins[now] = [where[i] for i in range(len(now))]
    if view.player == 1:  # Blue's frame is the board turned round
        return np.where(origins >= 0, 99 - origins, -1).astype(np.int8)[::-1], evidence[::-1]
    return origins, evidence
