"""Where commands find Gravon records when they are given none.

In this order (``find_archive_dir``):

1. the folder named by ``$DEEPNASH_GRAVON``;
2. the user data folder (``user_archive_dir()``: ``~/.local/share/deepnash/gravon`` on Linux, the
   platform's standard place elsewhere), if it holds any ``.zip`` or ``.xml`` records: this is where
   ``deepnash data fetch`` writes;
3. the games packaged with deepnash (``packaged_archive_dir()``): every Barrage game of gravon.de's
   2013-10 to 2014-11 archives and the Classic games of 2014-0, as monthly zips named and laid out
   as gravon.de's own, so a game's key (and so its training/validation side) is the same in both.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

__all__ = ["ARCHIVE_ENV", "ArchiveDir", "default_archive_dir", "find_archive_dir", "packaged_archive_dir",
           "user_archive_dir"]

#: Environment variable naming the folder of Gravon archives that commands read by default.
ARCHIVE_ENV = "DEEPNASH_GRAVON"

#: What the packaged games are, for the one line that says they are used.
PACKAGED_GAMES = "1,436 Barrage games of 2013-10 to 2014-11 and 814 Classic games of 2014-0"


@dataclass(frozen=True)
class ArchiveDir:
    """A folder of Gravon records and how it was chosen.

    Attributes:
        path: the folder.
        origin: ``"env"`` (``$DEEPNASH_GRAVON``), ``"user"`` (the user data folder) or ``"packaged"``.
    """

    path: Path
    origin: str

    def describe(self) -> str:
        """One line saying which records a command reads, e.g. ``reading the packaged games (...)``."""
        if self.origin == "packaged":
            return (f"no Gravon archives configured: reading the {PACKAGED_GAMES} packaged with deepnash "
                    f"(`deepnash data fetch` downloads all of gravon.de's months; {ARCHIVE_ENV} names another folder)")
        where = f"${ARCHIVE_ENV}" if self.origin == "env" else "the user data folder"
        return f"reading Gravon records from {self.path} ({where})"


def packaged_archive_dir() -> Path:
    """The folder of Gravon archives shipped inside the package (``deepnash/data/gravon``)."""
    return Path(__file__).resolve().parent.parent / "data" / "gravon"


def user_archive_dir() -> Path:
    """The user data folder for Gravon archives, where ``deepnash data fetch`` writes by default
    (``platformdirs.user_data_dir("deepnash") / "gravon"``; it need not exist)."""
    return Path(platformdirs.user_data_dir("deepnash")) / "gravon"


def _holds_records(folder: Path) -> bool:
    return folder.is_dir() and any(p.suffix.lower() in (".zip", ".xml") for p in folder.iterdir())


def find_archive_dir() -> ArchiveDir:
    """The folder of Gravon records that commands read when given none (the module docstring's order).

    ``$DEEPNASH_GRAVON`` is taken as it is set, even if it does not exist: reading it then fails
    with a message that names it, rather than silently reading other games.
    """
    if os.environ.get(ARCHIVE_ENV):
        return ArchiveDir(Path(os.environ[ARCHIVE_ENV]), "env")
    user = user_archive_dir()
    if _holds_records(user):
        return ArchiveDir(user, "user")
    return ArchiveDir(packaged_archive_dir(), "packaged")


def default_archive_dir(announce: Callable[[str], None] | None = None) -> Path:
    """``find_archive_dir().path``, checked to exist.

    Args:
        announce: called with ``ArchiveDir.describe()``, the one line a command prints to say which
            records it reads.

    Raises:
        FileNotFoundError: ``$DEEPNASH_GRAVON`` names no folder (the message names the variable).
    """
    found = find_archive_dir()
    if not found.path.is_dir():
        raise FileNotFoundError(f"{ARCHIVE_ENV}={found.path}: no such folder (set it to a folder of gravon.de's "
                                "strados*.zip or .xml records, or unset it to use the packaged games)")
    if announce is not None:
        announce(found.describe())
    return found.path
