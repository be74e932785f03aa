#!/usr/bin/env bash
# WARC-zstd and WACZ input against the peer tools (scripts/test_formats.py):
# the corpus's WARCs re-compressed as zstd (with and without a dictionary) read as
# FastWARC reads them and as their gzip versions index and import; WACZ files made by
# py-wacz index and import as their WARCs, every offset is its record, and --verify
# refuses a tampered one. Installs the peer tools into target/formats-venv when missing
# (scripts/formats-venv.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(scripts/formats-venv.sh)
source scripts/built-bin.sh
bin=$(built_bin dev)
work=$(mktemp -d "${TMPDIR:-/tmp}/warcdex-formats-XXXX")
trap 'rm -rf "$work"' EXIT
"$python" scripts/test_formats.py "$bin" "$work"
