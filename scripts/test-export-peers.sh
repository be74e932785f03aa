#!/usr/bin/env bash
# The WARC and WACZ exports read by the tools that read archives: warcio `check`
# accepts the WARC, py-wacz `validate` the WACZ, pywb's `cdx-indexer` finds in the WARC
# exactly the captures of all.cdx that the query matches (apart from file, offset and
# length), and pywb replays each of them with the archived payload (scripts/export_peers.py).
# The collection: the bundled example crawls (ARC, gzip and plain WARC, revisits), a zstd
# WARC with revisits (fixtures/zstd), in two batches.
#
# warcio, py-wacz and pywb 2.10 come from the peers' venv, target/formats-venv
# (scripts/formats-venv.sh installs them from PyPI when missing). WARCDEX_BIN names a
# warcdex binary to use instead of building the debug one.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "test-export-peers: $*" >&2; exit 1; }

python=$(scripts/formats-venv.sh) || die "cannot install the peers' venv"
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$WARCDEX_BIN
else
    source scripts/built-bin.sh
    bin=$(built_bin dev) || die "cannot build warcdex"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" update "$tmp/coll" fixtures/example/crawl* > /dev/null 2>&1 || die "update (example)"
"$bin" update "$tmp/coll" fixtures/zstd/dupes.warc.zst > /dev/null 2>&1 || die "update (zstd)"
"$python" scripts/export_peers.py --bin "$bin" --coll "$tmp/coll" \
    --query example --query news --query "example as-of:20071002" \
    || die "a reader of archives refuses the export (above)"
echo "test-export-peers.sh: ok"
