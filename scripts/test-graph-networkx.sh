#!/usr/bin/env bash
# `warcdex graph` read by networkx: scripts/graph_networkx.py builds the
# example collection (and a batch of awkward links), exports GEXF and GraphML at the
# page, host and domain levels (and with --from/--to), reads them with networkx.read_gexf
# and networkx.read_graphml, and compares nodes, edges, weights and anchors with a graph
# it computes from the segments' Parquet outlinks (pyarrow).
#
#   scripts/test-graph-networkx.sh
#
# networkx, pyarrow and publicsuffixlist (the registered domains) come from PyPI into
# target/graph-venv when missing. WARCDEX_BIN names a warcdex binary to use instead of
# building the debug one (`cargo build --locked`).
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "test-graph-networkx: $*" >&2; exit 1; }

venv=$PWD/target/graph-venv
scripts/peer-venvs.sh graph || die "cannot install from PyPI"

if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$WARCDEX_BIN
    [ -x "$bin" ] || die "WARCDEX_BIN=$bin is not an executable"
else
    source scripts/built-bin.sh
    bin=$(built_bin dev) || die "cannot build warcdex"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" scripts/graph_networkx.py --bin "$bin" --work "$work" \
    || die "networkx's graph and the segments' differ (above)"
echo "test-graph-networkx.sh: ok"
