#!/usr/bin/env bash
# The Python tools of the replay-fidelity harness (scripts/eval-replay.sh), installed from
# PyPI into target/replay-venv when missing: warcio (the bench generator's WARC writer and
# the escape fixture's), pywb 2.10 (`wayback`, one of the replays measured), numpy and
# Pillow (screenshot comparison, SSIM). Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$PWD/target/replay-venv
if ! "$venv/bin/python" -c "import warcio, pywb, numpy, PIL; assert pywb.__version__.startswith('2.10.')" 2> /dev/null; then
    echo "replay-venv.sh: installing warcio, pywb 2.10, numpy and Pillow into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        "warcio" "pywb==2.10.*" "numpy" "pillow" >&2
fi
echo "$venv/bin/python"
