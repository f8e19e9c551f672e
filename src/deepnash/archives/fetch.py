"""Download gravon.de's monthly archives (``strados<YEAR>-<MONTH>.zip``, months numbered from 0).

``deepnash data fetch`` is this module.  Each month is fetched from a URL template (``{year}`` and
``{month}`` filled in; the default is a public mirror named in ``manifest.json``) into a ``.part``
file beside its final name.  A download that stops is resumed from where it stopped (an HTTP
``Range`` request).  Once complete, the file is checked: its size and SHA-256 against the manifest
where it gives them, and always as a zip archive whose every member passes its CRC check and that
holds Gravon XML records.  Only then is it renamed to its final name, so a final name always holds
a whole, checked archive.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import urllib.error
import urllib.request
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MANIFEST", "URL_ENV", "FetchResult", "Month", "fetch_month", "load_manifest", "parse_months",
           "verify_archive"]

#: The manifest shipped with the package: the default URL template and each known month's size and SHA-256.
MANIFEST = Path(__file__).with_name("manifest.json")
#: Environment variable giving another URL template.
URL_ENV = "DEEPNASH_GRAVON_URL"

_CHUNK = 1 << 16
_MONTH = re.compile(r"^(\d{4})-(\d{1,2})$")


@dataclass(frozen=True, order=True)
class Month:
    """One of gravon.de's monthly archives: ``year`` and ``month`` (0 = January, as gravon.de numbers them)."""

    year: int
    month: int

    @classmethod
    def parse(cls, text: str) -> "Month":
        """``"2014-0"`` to ``Month(2014, 0)``.

        Raises:
            ValueError: not ``YEAR-MONTH`` with the month in 0..11.
        """
        m = _MONTH.match(text.strip())
        if m is None or not 0 <= int(m.group(2)) <= 11:
            raise ValueError(f"{text!r} is not a month: write YEAR-MONTH with the month numbered 0..11 as "
                             "gravon.de does, e.g. 2014-0 for January 2014")
        return cls(int(m.group(1)), int(m.group(2)))

    def __str__(self) -> str:
        return f"{self.year}-{self.month}"

    @property
    def filename(self) -> str:
        """The archive's name, ``strados2014-0.zip``."""
        return f"strados{self}.zip"

    def next(self) -> "Month":
        return Month(self.year + 1, 0) if self.month == 11 else Month(self.year, self.month + 1)


def load_manifest(path: str | Path = MANIFEST) -> dict:
    """The manifest: ``{"url": TEMPLATE, "months": {"2014-0": {"size": int|None, "sha256": str|None}, ...}}``.

    Raises:
        ValueError: a manifest that is not JSON of that shape (naming the file).
    """
    try:
        manifest = json.loads(Path(path).read_text(encoding="utf-8"))
        for name, entry in manifest["months"].items():
            Month.parse(name)
            if set(entry) != {"size", "sha256"}:
                raise ValueError(f"month {name}: keys {sorted(entry)}, expected size and sha256")
        str(manifest["url"])
    except (OSError, KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: not a valid archive manifest ({e})") from None
    return manifest


def parse_months(spec: str | None, manifest: dict) -> list[Month]:
    """The months a ``--months`` option names, in order.

    Args:
        spec: comma-separated months (``2014-0``) and ranges (``2013-10..2014-11``, both ends included);
            ``"all"``: every month of the manifest; ``None``: the manifest's months that carry a checksum
            (the 14 months the project was built on).

    Raises:
        ValueError: a malformed month or a range that runs backwards.
    """
    known = sorted(Month.parse(k) for k in manifest["months"])
    if spec is None:
        return [m for m in known if manifest["months"][str(m)]["sha256"]]
    if spec.strip() == "all":
        return known
    out: list[Month] = []
    for part in (p for p in spec.split(",") if p.strip()):
        if ".." in part:
            first, last = (Month.parse(t) for t in part.split("..", 1))
            if last < first:
                raise ValueError(f"{part!r}: the range ends before it starts")
            while first <= last:
                out.append(first)
                first = first.next()
        else:
            out.append(Month.parse(part))
    if not out:
        raise ValueError("--months names no month")
    return list(dict.fromkeys(out))


def verify_archive(path: Path, size: int | None = None, sha256: str | None = None) -> str | None:
    """Why ``path`` is not a good archive, or ``None`` if it is.

    Checks the size and SHA-256 when given, then that it is a zip archive whose members all pass their
    CRC check and that holds at least one ``.xml`` record.
    """
    actual = path.stat().st_size
    if size is not None and actual != size:
        return f"size {actual:,} bytes, the manifest says {size:,}"
    if sha256 is not None:
        digest = hashlib.sha256()
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        if digest.hexdigest() != sha256:
            return f"SHA-256 {digest.hexdigest()}, the manifest says {sha256}"
    try:
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
            if bad is not None:
                return f"damaged zip archive: member {bad} fails its CRC check"
            if not any(n.lower().endswith(".xml") for n in z.namelist()):
                return "a zip archive with no .xml record in it"
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, OSError, EOFError, ValueError) as e:
        return f"damaged zip archive ({e})"
    return None


@dataclass(frozen=True)
class FetchResult:
    """What became of one month.

    Attributes:
        month: the month.
        status: ``"present"`` (already there and good), ``"fetched"`` (downloaded and verified) or
            ``"failed"``.
        path: the final file (present or fetched) or the ``.part`` file kept for a resume (``None`` if none).
        message: a line for a person: how it was checked, or why it failed and what was done with the file.
    """

    month: Month
    status: str
    path: Path | None
    message: str

    @property
    def ok(self) -> bool:
        return self.status != "failed"


def _checked(entry: dict) -> str:
    return "size and SHA-256 match the manifest" if entry.get("sha256") else \
        "readable zip archive (the manifest has no checksum for this month)"


def fetch_month(month: Month, dest: str | Path, url_template: str, entry: dict | None = None,
                progress: Callable[[int, int | None], None] | None = None, timeout: float = 60.0) -> FetchResult:
    """Download one month into ``dest``, resuming a ``.part`` file left by an earlier try.

    Args:
        month: which archive.
        dest: the folder it lands in (made if missing).
        url_template: ``str.format`` template with ``{year}`` and ``{month}``.
        entry: the manifest's ``{"size", "sha256"}`` for this month (``None``: unknown month, checked
            as a zip archive only).
        progress: called with (bytes so far, total bytes or ``None``) as the download goes.
        timeout: seconds to wait on the server for each read.

    Never raises for a failed download: the result says why.  A complete file that fails its check is
    removed; an interrupted one stays as ``NAME.part`` for the next try.
    """
    entry = entry or {"size": None, "sha256": None}
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    final = dest / month.filename
    if final.exists() and verify_archive(final, entry["size"], entry["sha256"]) is None:
        return FetchResult(month, "present", final, f"already here: {_checked(entry)}")
    part = final.with_name(final.name + ".part")
    url = url_template.format(year=month.year, month=month.month)
    size = entry["size"]
    offset = part.stat().st_size if part.exists() else 0
    if size is not None and offset > size:
        offset = 0
    if size is None or offset < size:
        failure = _download(url, part, offset, progress, timeout)
        if failure is not None:
            kept = part if part.exists() and part.stat().st_size else None
            if kept is None:
                part.unlink(missing_ok=True)
            return FetchResult(month, "failed", kept, failure)
    problem = verify_archive(part, size, entry["sha256"])
    if problem is not None:
        part.unlink()
        return FetchResult(month, "failed", None, f"{url}: {problem}; the download was removed")
    os.replace(part, final)
    return FetchResult(month, "fetched", final, f"{final.stat().st_size:,} bytes, {_checked(entry)}")


def _download(url: str, part: Path, offset: int, progress, timeout: float) -> str | None:
    """Fetch ``url`` into ``part`` from byte ``offset`` on; ``None`` on success, else why not."""
    request = urllib.request.Request(url, headers={"User-Agent": "deepnash"})
    if offset:
        request.add_header("Range", f"bytes={offset}-")
    try:
        response = urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 (the URL is the user's template)
    except urllib.error.HTTPError as e:
        if e.code == 416 and offset:  # the server has no bytes past ours: start again
            part.unlink()
            return _download(url, part, 0, progress, timeout)
        return f"{url}: HTTP {e.code} {e.reason}"
    except (urllib.error.URLError, OSError, ValueError) as e:
        return f"{url}: could not connect ({getattr(e, 'reason', e)})"
    with response:
        if response.status != 206:  # the whole file: start from the beginning
            offset = 0
        length = response.headers.get("Content-Length")
        total = offset + int(length) if length is not None else None
        got = offset
        try:
            with part.open("ab" if offset else "wb") as f:
                if progress:
                    progress(got, total)
                while block := response.read(_CHUNK):
                    f.write(block)
                    got += len(block)
                    if progress:
                        progress(got, total)
        except (http.client.HTTPException, OSError) as e:
            return f"{url}: interrupted after {got:,} bytes ({e}); run the same command again to resume"
    if total is not None and got < total:
        return (f"{url}: interrupted after {got:,} of {total:,} bytes; "
                "run the same command again to resume")
    return None
