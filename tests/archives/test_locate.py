"""Where commands find human games: ``$DEEPNASH_GRAVON``, else the user data folder, else the packaged
games; the packaged games are gravon.de's own records and travel in the wheel."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import deepnash
from deepnash.archives import ARCHIVE_ENV, default_archive_dir, find_archive_dir, packaged_archive_dir, \
    user_archive_dir
from deepnash.train.human import load_games, split_games

REPO = Path(deepnash.__file__).resolve().parents[2]


@pytest.fixture
def nothing_configured(monkeypatch, tmp_path):
    """No ``$DEEPNASH_GRAVON`` and an empty home for the user data folder."""
    monkeypatch.delenv(ARCHIVE_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def test_the_order_is_the_variable_then_the_user_folder_then_the_packaged_games(nothing_configured, monkeypatch):
    found = find_archive_dir()
    assert (found.origin, found.path) == ("packaged", packaged_archive_dir())
    assert "1,436 Barrage" in found.describe() and "deepnash data fetch" in found.describe()
    user = user_archive_dir()
    assert user == nothing_configured / "xdg" / "deepnash" / "gravon"
    user.mkdir(parents=True)
    assert find_archive_dir().origin == "packaged"  # an empty user folder is not a source
    shutil.copy(packaged_archive_dir() / "strados2014-3.zip", user)
    assert (find_archive_dir().origin, find_archive_dir().path) == ("user", user)
    monkeypatch.setenv(ARCHIVE_ENV, str(nothing_configured / "mine"))
    assert find_archive_dir().origin == "env"
    with pytest.raises(FileNotFoundError, match=f"{ARCHIVE_ENV}=.*mine: no such folder"):
        default_archive_dir()
    (nothing_configured / "mine").mkdir()
    said = []
    assert default_archive_dir(announce=said.append) == nothing_configured / "mine"
    assert said == [f"reading Gravon records from {nothing_configured / 'mine'} (${ARCHIVE_ENV})"]


def test_the_packaged_games_are_every_barrage_game_and_one_classic_month():
    games = load_games(packaged_archive_dir())
    by_variant = {v: [g for g in games if g.variant == v] for v in ("barrage", "classic")}
    assert len(by_variant["barrage"]) == 1436 and len(by_variant["classic"]) == 814
    assert all(g.key.startswith("strados2014-0.zip:classic-2014.0-") for g in by_variant["classic"])
    train, held_out = split_games(by_variant["barrage"])
    assert 40 < len(held_out) < 110 and len(train) + len(held_out) == 1436


def test_the_packaged_games_are_byte_for_byte_gravons_records():
    """Same archive and member names and bytes as gravon.de's months, so a game's key, and so the side of the
    training/validation split it falls on, is the same whichever copy a command reads."""
    shared = os.environ.get(ARCHIVE_ENV)
    if not shared or not Path(shared, "strados2014-0.zip").is_file():
        pytest.skip(f"{ARCHIVE_ENV} does not name the shared months")
    for packaged in sorted(packaged_archive_dir().glob("*.zip")):
        with zipfile.ZipFile(packaged) as ours, zipfile.ZipFile(Path(shared) / packaged.name) as theirs:
            assert ours.namelist() and all(ours.read(n) == theirs.read(n) for n in ours.namelist()), packaged.name
            barrage = {n for n in theirs.namelist() if n.startswith("barrage-")}
            assert barrage <= set(ours.namelist()), packaged.name


def test_the_wheel_carries_the_games_and_reads_them_with_nothing_configured(nothing_configured):
    """``pip wheel .`` packs the games; the unpacked wheel's ``validate-records``, given nothing, reads them."""
    out, source = nothing_configured / "wheel", nothing_configured / "source"  # a copy: the build writes beside it
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
                            "-q", "-w", str(out)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    (wheel,) = out.glob("deepnash-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        z.extractall(out / "site")
    packed = {n.rsplit("/", 1)[1] for n in names if n.startswith("deepnash/data/gravon/")}
    assert packed == {p.name for p in packaged_archive_dir().glob("*.zip")} and len(packed) == 14
    assert "deepnash/archives/manifest.json" in names
    env = {k: v for k, v in os.environ.items() if k != ARCHIVE_ENV} | {
        "PYTHONPATH": str(out / "site"), "XDG_DATA_HOME": str(nothing_configured / "xdg")}
    run = subprocess.run([sys.executable, "-c", "import deepnash.cli as c; print(c.__file__); c.main()",
                          "validate-records"], capture_output=True, text=True, timeout=600, env=env,
                         cwd=nothing_configured)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].startswith(str(out / "site"))
    assert run.stderr.startswith("no Gravon archives configured: reading the 1,436 Barrage games")
    rows = {line.split()[0]: line.split()[1:] for line in run.stdout.splitlines()[2:]}
    assert rows["barrage"] == ["1436"] * 3 and rows["classic"] == ["814"] * 3
