"""``deepnash data fetch`` against a local HTTP server: a good file, a 404, a truncated download, a corrupt
file, an interrupted then resumed download, a damaged zip; and the month syntax of ``--months``."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from deepnash.archives import Month, fetch_month, load_manifest, packaged_archive_dir, parse_months, verify_archive

TEMPLATE = "strados{year}-{month}.zip"
ARCHIVE = (packaged_archive_dir() / "strados2014-3.zip").read_bytes()  # 4 Barrage games: a small real archive


class Server:
    """A local HTTP server of ``files`` (path -> bytes) that honours ``Range: bytes=N-``.

    ``cut[path]`` is how many of the next requests for ``path`` stop after half the body, with the
    full ``Content-Length`` announced, as a dropped connection does.
    """

    def __init__(self, files: dict[str, bytes]):
        self.files, self.cut, self.requests = files, {}, []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                path = self.path.lstrip("/")
                server.requests.append((path, self.headers.get("Range")))
                body = server.files.get(path)
                if body is None:
                    self.send_error(404, "Not Found")
                    return
                start = 0
                if self.headers.get("Range"):
                    start = int(self.headers["Range"].removeprefix("bytes=").rstrip("-"))
                    if start >= len(body):
                        self.send_error(416, "Range Not Satisfiable")
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                else:
                    self.send_response(200)
                self.send_header("Content-Length", str(len(body) - start))
                self.end_headers()
                rest = body[start:]
                if server.cut.get(path, 0) > 0:
                    server.cut[path] -= 1
                    rest = rest[: len(rest) // 2]
                    self.close_connection = True
                self.wfile.write(rest)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/" + TEMPLATE
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def entry(data: bytes) -> dict:
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


MONTH = Month(2014, 3)


def test_a_good_file_lands_verified_then_is_found_present(tmp_path):
    with Server({MONTH.filename: ARCHIVE}) as server:
        seen = []
        r = fetch_month(MONTH, tmp_path, server.url, entry(ARCHIVE), progress=lambda done, total: seen.append(done))
        assert r.status == "fetched" and r.path == tmp_path / "strados2014-3.zip", r.message
        assert r.path.read_bytes() == ARCHIVE and "SHA-256" in r.message
        assert seen[-1] == len(ARCHIVE) and seen == sorted(seen)
        again = fetch_month(MONTH, tmp_path, server.url, entry(ARCHIVE))
        assert again.status == "present" and len(server.requests) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["strados2014-3.zip"]


def test_a_404_is_reported_and_leaves_nothing(tmp_path):
    with Server({}) as server:
        r = fetch_month(MONTH, tmp_path, server.url, entry(ARCHIVE))
    assert r.status == "failed" and "HTTP 404" in r.message and "strados2014-3.zip" in r.message
    assert list(tmp_path.iterdir()) == []


def test_a_truncated_download_keeps_only_a_part_file(tmp_path):
    with Server({MONTH.filename: ARCHIVE}) as server:
        server.cut[MONTH.filename] = 1
        r = fetch_month(MONTH, tmp_path, server.url, entry(ARCHIVE))
    assert r.status == "failed" and "interrupted" in r.message and "resume" in r.message
    assert not (tmp_path / "strados2014-3.zip").exists()
    assert r.path == tmp_path / "strados2014-3.zip.part" and r.path.read_bytes() == ARCHIVE[: len(ARCHIVE) // 2]


def test_an_interrupted_download_resumes_where_it_stopped(tmp_path):
    with Server({MONTH.filename: ARCHIVE}) as server:
        server.cut[MONTH.filename] = 1
        assert fetch_month(MONTH, tmp_path, server.url, entry(ARCHIVE)).status == "failed"
        r = fetch_month(MONTH, tmp_path, server.url, entry(ARCHIVE))
        assert r.status == "fetched", r.message
        assert server.requests == [(MONTH.filename, None), (MONTH.filename, f"bytes={len(ARCHIVE) // 2}-")]
    assert (tmp_path / "strados2014-3.zip").read_bytes() == ARCHIVE
    assert not (tmp_path / "strados2014-3.zip.part").exists()


def test_a_corrupt_file_fails_its_checksum_and_is_removed(tmp_path):
    corrupt = bytearray(ARCHIVE)
    corrupt[len(corrupt) // 3] ^= 0xFF
    with Server({MONTH.filename: bytes(corrupt)}) as server:
        r = fetch_month(MONTH, tmp_path, server.url, entry(ARCHIVE))
    assert r.status == "failed" and "SHA-256" in r.message and "removed" in r.message
    assert list(tmp_path.iterdir()) == []


def test_a_damaged_zip_of_a_month_without_checksum_is_named(tmp_path):
    damaged = bytearray(ARCHIVE)
    damaged[200] ^= 0xFF  # inside the first member's compressed data: its CRC check fails
    with Server({MONTH.filename: bytes(damaged)}) as server:
        r = fetch_month(MONTH, tmp_path, server.url, None)
    assert r.status == "failed" and "damaged zip archive" in r.message
    assert list(tmp_path.iterdir()) == []


def test_a_bad_final_file_is_replaced_by_a_verified_download(tmp_path):
    (tmp_path / MONTH.filename).write_bytes(b"not a zip")
    with Server({MONTH.filename: ARCHIVE}) as server:
        r = fetch_month(MONTH, tmp_path, server.url, entry(ARCHIVE))
    assert r.status == "fetched" and (tmp_path / MONTH.filename).read_bytes() == ARCHIVE


def test_verify_archive_names_what_is_wrong(tmp_path):
    path = tmp_path / "a.zip"
    path.write_bytes(ARCHIVE)
    assert verify_archive(path, **entry(ARCHIVE)) is None
    assert "size" in verify_archive(path, size=len(ARCHIVE) + 1)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("notes.txt", "no records")
    path.write_bytes(buffer.getvalue())
    assert "no .xml record" in verify_archive(path)


def test_months_syntax():
    manifest = load_manifest()
    default = parse_months(None, manifest)
    assert [str(m) for m in default] == ["2013-10", "2013-11", *(f"2014-{m}" for m in range(12))]
    assert parse_months("2013-10..2014-11", manifest) == default
    assert [str(m) for m in parse_months("2014-11..2015-1,2014-0,2014-11", manifest)] == [
        "2014-11", "2015-0", "2015-1", "2014-0"]
    everything = parse_months("all", manifest)
    assert everything[0] == Month(2004, 11) and everything[-1] == Month(2015, 2) and len(everything) == 27
    for bad in ("2014-12", "2014", "14-1", "2014-3..2014-1", ","):
        with pytest.raises(ValueError):
            parse_months(bad, manifest)


def test_the_manifest_matches_the_shared_months():
    """The checksums in the package are those of the 14 months the project was built on."""
    shared = os.environ.get("DEEPNASH_GRAVON")
    if not shared or not Path(shared, "strados2014-0.zip").is_file():
        pytest.skip("DEEPNASH_GRAVON does not name the shared months")
    months = load_manifest()["months"]
    for path in sorted(Path(shared).glob("strados*.zip")):
        assert months[path.stem.removeprefix("strados")] == entry(path.read_bytes()), path.name


def deepnash(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from deepnash.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=300, env=env)


def test_the_command_lands_an_archive_that_validate_records_reads(tmp_path):
    """``deepnash data fetch --months`` from a local mirror, then ``validate-records`` on what it wrote.

    With the shared months (``$DEEPNASH_GRAVON``), the real 2014-0 archive is served and checked against
    the packaged manifest; without them, the packaged 2014-0 games stand in as a month the manifest
    does not know (checked as a zip only).
    """
    shared = Path(os.environ.get("DEEPNASH_GRAVON") or "no-shared-months") / "strados2014-0.zip"
    month, body = ("2014-0", shared.read_bytes()) if shared.is_file() else \
        ("2020-1", (packaged_archive_dir() / "strados2014-0.zip").read_bytes())
    dest = tmp_path / "gravon"
    with Server({f"strados{month}.zip": body}) as server:
        done = deepnash("data", "fetch", "--months", month, "--dest", str(dest), "--url", server.url)
        assert done.returncode == 0, done.stdout + done.stderr
        assert [month, "fetched"] in [line.split()[:2] for line in done.stdout.splitlines()]
        assert "1 of 1 month(s) here" in done.stdout
        assert ("SHA-256" in done.stdout) == shared.is_file()
        assert [p.name for p in dest.iterdir()] == [f"strados{month}.zip"]
        missing = deepnash("data", "fetch", "--months", "2020-2", "--dest", str(dest), "--url", server.url)
    assert missing.returncode == 1 and "HTTP 404" in missing.stdout and "failed: strados2020-2.zip" in missing.stdout
    report = deepnash("validate-records", str(dest), "--json")
    by_variant = json.loads(report.stdout)["by_variant"]
    assert by_variant["classic"]["replayed"] == 814 and by_variant["barrage"]["replayed"] >= 1
    listing = deepnash("data", "fetch", "--list", "--dest", str(dest))
    rows = {line.split()[0]: line.split()[1:] for line in listing.stdout.splitlines()[1:]}
    assert listing.returncode == 0 and list(rows) == [str(m) for m in parse_months(None, load_manifest())]
    assert rows["2014-0"] == ["2,021,463", "SHA-256", "yes" if month == "2014-0" else "no"]


def test_the_command_refuses_a_bad_month_or_template(tmp_path):
    bad = deepnash("data", "fetch", "--months", "2014-13", "--dest", str(tmp_path))
    assert bad.returncode == 2 and "numbered 0..11" in bad.stderr
    worse = deepnash("data", "fetch", "--url", "http://127.0.0.1:9/x.zip", "--dest", str(tmp_path))
    assert worse.returncode == 2 and "{year}" in worse.stderr
    assert list(tmp_path.iterdir()) == []
