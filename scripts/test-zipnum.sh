#!/usr/bin/env bash
# warcdex's ZipNum clusters (`sort-cdx --zipnum`) read by pywb 2.10's ZipNumIndexSource:
# the CDX of every archive of the corpus and the example, sorted, written as a cluster
# of 50-line blocks, and every URL key queried through pywb (exact and prefix, page by
# page) against the plain sorted CDX (scripts/test-zipnum.py says what is checked).
# Builds the dev-profile binary; pywb comes from scripts/formats-venv.sh (target/formats-venv,
# installed from PyPI when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(scripts/formats-venv.sh)
source scripts/built-bin.sh
bin=$(built_bin dev)
work=$(mktemp -d "${TMPDIR:-/tmp}/warcdex-zipnum-XXXX")
trap 'rm -rf "$work"' EXIT

# Every archive of the corpus warcdex reads, and the example's crawls.
archives=()
while IFS= read -r f; do archives+=("$f"); done < <(
    find fixtures/corpus/real fixtures/example -type f \( -name '*.warc' -o -name '*.warc.gz' \
        -o -name '*.arc' -o -name '*.arc.gz' -o -name '*.wet' -o -name '*.wet.gz' \) | LC_ALL=C sort)
[ "${#archives[@]}" -gt 150 ] || { echo "test-zipnum.sh: the corpus is missing" >&2; exit 1; }
"$python" scripts/test-zipnum.py "$bin" "$work" "${archives[@]}"
echo "test-zipnum.sh: ok"
