#!/usr/bin/env bash
# Latency of a search that falls back (not a test; issue 61): a word no document holds —
# cut short (`configura`) or misspelt by one letter (`configurtion`) — answers after the
# search finds nothing, the relaxed searches find nothing, and the suggestion is made and
# searched; against the plain word, one request at a time, the two alternated, on one server.
# Prints the p50 and p90 of each and their ratio (the target: fallback p50 within 3× plain).
#
# Usage: scripts/bench-fallback.sh DIR [ROUNDS]   DIR holds pindexes/ (a collection;
#        the scale one: scripts/bench-scale.sh DATA 1000000 keeps it as DATA/…)
# Env:   WARCDEX_BIN (a binary to measure instead of this checkout's release build).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/bench-fallback.sh DIR [ROUNDS]}
rounds=${2:-5}
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$(realpath "$WARCDEX_BIN")
else
    source scripts/built-bin.sh
    bin=$(realpath "$(built_bin release)")
fi
source scripts/serve-lib.sh
start_server bench-fallback 600 "$bin" -d "$dir"
python3 scripts/bench_fallback.py "http://127.0.0.1:$port" "$rounds"
echo "machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); $("$bin" --version)"
