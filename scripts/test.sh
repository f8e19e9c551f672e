#!/usr/bin/env bash
# Install everything the tests need on a fresh machine, then run them (extra arguments go to pytest).
# This is the README's test command; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
# Headless Chromium and its driver for the browser test (Debian packages; skipped if already there).
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi
[ -d .venv ] || python3 -m venv .venv
. .venv/bin/activate
# constraints.txt keeps pip on PyTorch's CPU build.
pip install -q -c constraints.txt -e ".[test]"
# One pytest worker per core, at most four (each loads torch and the numba kernels).
exec pytest -n auto --maxprocesses 4 "$@"
