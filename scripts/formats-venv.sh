#!/usr/bin/env bash
# The peer tools the container-format tests compare warcdex with, installed
# from PyPI into target/formats-venv when missing: FastWARC (reads zstd WARC), py-wacz
# (writes WACZ), pywb 2.10 (reads ZipNum CDX clusters) and zstandard (writes zstd WARC
# fixtures, with and without a dictionary). Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/peer-venvs.sh formats >&2
echo "$PWD/target/formats-venv/bin/python"
