#!/usr/bin/env bash
# The peer tools the container-format tests compare warcdex with, installed
# from PyPI into target/formats-venv when missing: FastWARC (reads zstd WARC), py-wacz
# (writes WACZ), pywb 2.10 (reads ZipNum CDX clusters) and zstandard (writes zstd WARC
# fixtures, with and without a dictionary). Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$PWD/target/formats-venv
if ! "$venv/bin/python" -c "import fastwarc, wacz, pywb, zstandard" 2> /dev/null; then
    echo "formats-venv.sh: installing fastwarc, wacz, pywb 2.10 and zstandard into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        "fastwarc==2.0.*" "wacz==0.6.*" "pywb==2.10.*" "zstandard==0.25.*" >&2
fi
echo "$venv/bin/python"
