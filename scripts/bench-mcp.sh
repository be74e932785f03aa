#!/usr/bin/env bash
# Benchmark (not a test): a search through the MCP server (`serve`'s /mcp, tools/call
# search) against the same search through /search.json on one server, one client,
# alternated query by query (scripts/bench_mcp.py), p50 and p90 of each and their ratio
# (issue 63's target: MCP within 2× /search.json at p50).
#
# Usage: scripts/bench-mcp.sh DIR   (a collection or search directory; e.g. the bench
#        collection scripts/eval-ranking.sh builds, target/eval-ranking/collection-1.0)
# Env:   ROUNDS (5), SERVE_ARGS (extra serve flags: `--acl FILE` times the path under access
#        rules, where each hit's record is looked up in the CDX), WARCDEX_BIN (a binary instead of this checkout's BENCH_PROFILE build,
#        default release).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/bench-mcp.sh DIR}
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$(realpath "$WARCDEX_BIN")
else
    source scripts/built-bin.sh
    bin=$(built_bin "${BENCH_PROFILE:-release}")
fi
source scripts/serve-lib.sh
# shellcheck disable=SC2086
start_server bench-mcp 600 "$bin" -d "$dir" ${SERVE_ARGS:-}
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 scripts/bench_mcp.py "$port" "${ROUNDS:-5}"
