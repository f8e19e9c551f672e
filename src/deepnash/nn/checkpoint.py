"""Checkpoints: safetensors weights plus a JSON manifest, written atomically, verified on load.

A run directory holds numbered checkpoint directories ``ckpt-00001234/`` and a
``latest`` file naming the newest one.  A checkpoint directory is written
complete under a temporary name, flushed, renamed into place, and only then
does ``latest`` (replaced atomically) point at it, so a run killed at any
moment leaves the previous checkpoint intact.

Each checkpoint directory holds one ``GROUP.safetensors`` per tensor group
(``online``, ``target``, ``reg``, ``reg_prev``, ``optimizer``, ``rng``) and
``manifest.json`` with the caller's metadata and the size and SHA-256 of every
file; loading checks them and refuses anything truncated or altered.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

FORMAT = "deepnash-checkpoint"
VERSION = 1
MANIFEST = "manifest.json"
LATEST = "latest"


class CheckpointError(ValueError):
    """A checkpoint that is missing, truncated, altered or of an unknown format (says which file and why)."""


@dataclass(frozen=True)
class Checkpoint:
    """A loaded checkpoint.

    Attributes:
        path: its directory.
        manifest: the JSON metadata given to ``save_checkpoint`` (under ``"meta"``) and the file table.
        groups: tensor group name → ``{key: tensor}`` (CPU tensors).
    """

    path: Path
    manifest: dict
    groups: dict[str, dict[str, torch.Tensor]]

    @property
    def meta(self) -> dict:
        """The caller's metadata (config, variant, counters, schedule position...)."""
        return self.manifest["meta"]

    @property
    def networks(self) -> list[str]:
        """The stored groups that are networks (all but ``optimizer`` and ``rng``), sorted."""
        return sorted(k for k in self.groups if k not in ("optimizer", "rng"))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_checkpoint(run_dir: str | Path, step: int, groups: dict[str, dict[str, torch.Tensor]],
                    meta: dict, keep: int = 2) -> Path:
    """Write checkpoint ``step`` of a run atomically and point ``latest`` at it.

    A temporary directory left by a writer killed mid-write is removed first.

    Args:
        run_dir: the run directory (created if needed).
        step: learner step; names the directory ``ckpt-{step:08d}``.
        groups: tensor group name → flat ``{key: tensor}``; written as ``NAME.safetensors``.
        meta: JSON-serialisable metadata stored in ``manifest.json``.
        keep: how many newest checkpoints to keep (older ones are deleted after the new one is in place).

    Returns:
        The new checkpoint's directory.

    Raises:
        ValueError: ``keep < 1``, a bad group name, or ``meta`` that JSON cannot hold.
    """
    if keep < 1:
        raise ValueError(f"keep must be at least 1, got {keep}")
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in run_dir.glob(".ckpt-*"):  # left by a writer killed mid-write (one writer per run)
        shutil.rmtree(stale, ignore_errors=True)
    final = run_dir / f"ckpt-{step:08d}"
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=run_dir))
    try:
        files = {}
        for name, tensors in groups.items():
            if not name.isidentifier():
                raise ValueError(f"checkpoint group name {name!r} must be an identifier")
            path = tmp / f"{name}.safetensors"
            save_file({k: v.detach().cpu().contiguous() for k, v in tensors.items()}, str(path))
            files[path.name] = {"bytes": path.stat().st_size, "sha256": _sha256(path)}
        manifest = {"format": FORMAT, "version": VERSION, "step": step, "files": files, "meta": meta}
        text = json.dumps(manifest, indent=1, sort_keys=True)
        (tmp / MANIFEST).write_text(text)
        for path in tmp.iterdir():
            with open(path, "rb") as f:
                os.fsync(f.fileno())
        if final.exists():
            shutil.rmtree(final)
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    pointer = run_dir / f".{LATEST}.tmp"
    pointer.write_text(final.name + "\n")
    os.replace(pointer, run_dir / LATEST)
    _fsync_dir(run_dir)
    for old in sorted(run_dir.glob("ckpt-*"))[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def resolve(path: str | Path) -> Path:
    """The checkpoint directory meant by ``path``: itself if it holds a manifest, else the run's ``latest``.

    Raises:
        CheckpointError: ``path`` is neither a checkpoint nor a run directory with a valid ``latest``.
    """
    path = Path(path)
    if (path / MANIFEST).is_file():
        return path
    pointer = path / LATEST
    if not pointer.is_file():
        raise CheckpointError(f"{path}: no checkpoint here (neither {MANIFEST} nor a '{LATEST}' file)")
    name = pointer.read_text().strip()
    if not name.startswith("ckpt-") or "/" in name or not (path / name / MANIFEST).is_file():
        raise CheckpointError(f"{pointer}: names {name!r}, which is not a checkpoint directory of this run")
    return path / name


def load_checkpoint(path: str | Path) -> Checkpoint:
    """Load and verify a checkpoint (a checkpoint directory, or a run directory's latest).

    Raises:
        CheckpointError: missing or unreadable manifest, unknown format or version, a listed file missing,
            of the wrong size or with the wrong SHA-256, or not readable as safetensors.
    """
    ckpt = resolve(path)
    try:
        manifest = json.loads((ckpt / MANIFEST).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{ckpt / MANIFEST}: unreadable ({e}); the checkpoint is corrupt") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CheckpointError(f"{ckpt / MANIFEST}: not a {FORMAT} manifest")
    if manifest.get("version") != VERSION:
        raise CheckpointError(f"{ckpt / MANIFEST}: checkpoint version {manifest.get('version')!r}, "
                              f"this deepnash reads version {VERSION}")
    files, meta = manifest.get("files"), manifest.get("meta")
    if not isinstance(files, dict) or not isinstance(meta, dict):
        raise CheckpointError(f"{ckpt / MANIFEST}: no file table or no metadata; the checkpoint is corrupt")
    groups = {}
    for fname, info in files.items():
        if (not isinstance(fname, str) or Path(fname).name != fname or not fname.endswith(".safetensors")
                or not isinstance(info, dict) or not isinstance(info.get("bytes"), int)
                or not isinstance(info.get("sha256"), str)):
            raise CheckpointError(f"{ckpt / MANIFEST}: bad file entry {fname!r}: {info!r}")
        fpath = ckpt / fname
        if not fpath.is_file():
            raise CheckpointError(f"{fpath}: listed in the manifest but missing")
        size = fpath.stat().st_size
        if size != info["bytes"]:
            raise CheckpointError(f"{fpath}: {size} bytes, the manifest says {info['bytes']} (truncated?)")
        if _sha256(fpath) != info["sha256"]:
            raise CheckpointError(f"{fpath}: SHA-256 does not match the manifest (the file was altered)")
        try:
            groups[fname.removesuffix(".safetensors")] = load_file(str(fpath))
        except (SafetensorError, OSError) as e:
            raise CheckpointError(f"{fpath}: not a readable safetensors file ({e})") from None
    return Checkpoint(ckpt, manifest, groups)


def split_tensors(obj, prefix: str = "") -> tuple[dict[str, torch.Tensor], object]:
    """Separate the tensors of a nested state (dicts, lists, scalars) from its JSON-able skeleton.

    Returns ``(tensors, skeleton)``: ``tensors`` keyed by dotted path, and the state with each
    tensor replaced by ``{"__tensor__": key}`` and each dict by ``{"__dict__": [[key, value], ...]}``
    (keeps integer keys, as in optimiser states).  ``join_tensors`` inverts it.
    """
    if isinstance(obj, torch.Tensor):
        return {prefix: obj}, {"__tensor__": prefix}
    tensors: dict[str, torch.Tensor] = {}
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            t, s = split_tensors(v, f"{prefix}.{k}" if prefix else str(k))
            tensors.update(t)
            items.append([k, s])
        return tensors, {"__dict__": items}
    if isinstance(obj, (list, tuple)):
        out = []
        for i, v in enumerate(obj):
            t, s = split_tensors(v, f"{prefix}.{i}" if prefix else str(i))
            tensors.update(t)
            out.append(s)
        return tensors, out
    return {}, obj


def join_tensors(skeleton, tensors: dict[str, torch.Tensor]):
    """Inverse of ``split_tensors``.

    Raises:
        CheckpointError: the skeleton names a tensor that is not stored.
    """
    if isinstance(skeleton, dict) and "__tensor__" in skeleton:
        key = skeleton["__tensor__"]
        if key not in tensors:
            raise CheckpointError(f"checkpoint state refers to tensor {key!r}, which is not stored")
        return tensors[key]
    if isinstance(skeleton, dict) and "__dict__" in skeleton:
        return {k: join_tensors(v, tensors) for k, v in skeleton["__dict__"]}
    if isinstance(skeleton, list):
        return [join_tensors(v, tensors) for v in skeleton]
    return skeleton


def save_agent(dst: str | Path, step: int, network: dict[str, torch.Tensor], meta: dict) -> Path:
    """Write one network as an agent checkpoint (``checkpoint:DIR``): the network under ``online``, nothing else.

    Replaces an agent already in ``dst`` atomically, as ``save_checkpoint`` does (keeping only the new one).

    Returns:
        The written checkpoint directory (inside ``dst``).
    """
    return save_checkpoint(dst, step, {"online": network}, meta, keep=1)


def export_agent(src: str | Path, dst: str | Path, weights: str = "online",
                 mirror_value: bool | None = None) -> Path:
    """Write one network of a training checkpoint as a compact agent checkpoint (for ``checkpoint:DIR``).

    The export holds the ``weights`` network under ``online`` and the source's metadata minus the
    optimiser skeleton: about a fiftieth of a training checkpoint, with the same atomic write and
    SHA-256 manifest.  Its counters and config say how the network was trained.

    Args:
        src: a run directory (its latest checkpoint) or a checkpoint directory.
        dst: the agent's directory (created; must not already hold a checkpoint).
        weights: which network: ``online`` (the one self-play uses), ``target``, ``reg``...
        mirror_value: set ``NetConfig.mirror_value`` in the export (``None``: as the source has it).

    Returns:
        The written checkpoint directory (inside ``dst``).

    Raises:
        CheckpointError: ``src`` is missing or corrupt, or lacks ``weights``, or ``mirror_value`` is given for
            a checkpoint that holds no ``DeepNashNet`` (a belief network).
        FileExistsError: ``dst`` already holds a checkpoint.
    """
    ck = load_checkpoint(src)
    if weights not in ck.networks:
        raise CheckpointError(f"{ck.path}: no {weights!r} network (stored: {', '.join(ck.networks)})")
    if (Path(dst) / LATEST).exists():
        raise FileExistsError(f"{dst} already holds a checkpoint")
    meta = {k: v for k, v in ck.meta.items() if k != "optimizer"}
    meta["exported_from"] = {"checkpoint": ck.path.name, "weights": weights}
    if mirror_value is not None:
        if "net" not in meta:  # a belief network's run stores its shape as "belief_net"
            raise CheckpointError(f"{ck.path}: holds no DeepNash network, whose value mirror_value would set")
        meta["net"] = {**meta["net"], "mirror_value": mirror_value}
    counters = meta.get("counters", {})
    step = int(counters.get("learner_step", counters.get("step", 0)))  # R-NaD updates, or pretraining updates
    return save_agent(dst, step, ck.groups[weights], meta)


def starting_weights(path: str | Path, net: dict, preset: str, variant: str,
                     on_upgrade: Callable[[str], None] | None = None) -> dict[str, torch.Tensor]:
    """The ``online`` network of the checkpoint at ``path``, to start a run from (``--init``).

    A network of an older version (``NetConfig.version``) and the run's shape starts a run of a newer
    one: its torso and policy heads are taken as they are and the value head, which differs, starts
    from the fresh weights of a network built now (after the caller's ``torch.manual_seed``);
    ``on_upgrade`` is told so.

    Args:
        net: the run's network shape (``NetConfig.to_dict()``), named ``preset`` in errors.
        variant: the run's variant.
        on_upgrade: called with one line when a version-1 network is upgraded.

    Raises:
        CheckpointError: the checkpoint is missing, corrupt or holds no ``online`` network.
        ValueError: its network is not of that shape (or is of a newer version than the run's), or it
            was trained on another variant.
    """
    from .config import NetConfig
    from .network import DeepNashNet

    ck = load_checkpoint(path)
    if "online" not in ck.networks:
        raise CheckpointError(f"{ck.path}: no 'online' network to start from (stored: {', '.join(ck.networks)})")
    theirs, ours = NetConfig.from_dict(ck.meta.get("net", {})), NetConfig.from_dict(net)
    if ck.meta.get("variant", variant) != variant:
        raise ValueError(f"{ck.path} was trained on {ck.meta['variant']}, this run plays {variant}")
    if replace(theirs, version=ours.version, mirror_value=ours.mirror_value) != ours:
        raise ValueError(f"{ck.path} holds a network of another shape than the {preset!r} preset "
                         f"({ck.meta.get('net')}); pass the preset it was trained with")
    weights = ck.groups["online"]
    if theirs.version == ours.version:
        return weights
    if theirs.version > ours.version:
        raise ValueError(f"{ck.path} holds a version-{theirs.version} network and this run builds version "
                         f"{ours.version}: a network only starts a run of its own version or a newer one")
    fresh = DeepNashNet(ours).state_dict()
    value = [k for k in fresh if k.startswith(("value_head.", "value_out.", "material_hidden."))]
    if on_upgrade is not None:
        on_upgrade(f"{ck.path} holds a version-{theirs.version} network: its torso and policy heads start "
                   f"this version-{ours.version} run, and its value head starts afresh")
    return {**{k: v for k, v in weights.items() if k not in value}, **{k: fresh[k] for k in value}}
