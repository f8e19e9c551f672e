"""Write the human games packaged with deepnash (``src/deepnash/data/gravon``) from gravon.de's monthly archives.

Each month's zip keeps gravon.de's name and the members' own names and dates, so a packaged game's
key (``strados2014-0.zip:barrage-2014.0-5.xml#1``) and so its training/validation side is the same
as in the full archive.  Kept: every Barrage game, and the Classic games of ``--classic-month``.

    python scripts/build_packaged_games.py ../shared/data/gravon
"""

from __future__ import annotations

import argparse
import zipfile
from pathlib import Path

from deepnash.archives import packaged_archive_dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archives", type=Path, help="folder of gravon.de's strados*.zip")
    parser.add_argument("--classic-month", default="2014-0", help="the month whose Classic games are kept too")
    parser.add_argument("--out", type=Path, default=packaged_archive_dir())
    a = parser.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    for old in a.out.glob("strados*.zip"):
        old.unlink()
    counts = {"barrage": 0, "classic": 0}
    for source in sorted(a.archives.glob("strados*.zip")):
        kinds = ("barrage", "classic") if source.stem == f"strados{a.classic_month}" else ("barrage",)
        with zipfile.ZipFile(source) as z:
            members = [i for i in z.infolist() if i.filename.split("-", 1)[0] in kinds]
            with zipfile.ZipFile(a.out / source.name, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
                for info in members:
                    kept = zipfile.ZipInfo(info.filename, date_time=info.date_time)
                    kept.compress_type = zipfile.ZIP_DEFLATED
                    out.writestr(kept, z.read(info))
                    counts[info.filename.split("-", 1)[0]] += 1
    total = sum(p.stat().st_size for p in a.out.glob("strados*.zip"))
    print(f"{counts['barrage']} Barrage and {counts['classic']} Classic games in {a.out} ({total:,} bytes)")


if __name__ == "__main__":
    main()
