#!/usr/bin/env bash
# Checks that two warcdex binaries serve the same bytes (not a test; a change that is not meant
# to change search answers must leave every byte): both serve DIR, and every query is asked of /search.json (first
# and second page), the HTML page (no per-site limit) and /opensearch; the responses are
# compared with their response times removed.
#
# Usage: scripts/compare-serve.sh OLD_BIN NEW_BIN [DIR] [QUERIES]
#        DIR holds pindexes/<name>/{main,dates} (default /work/bench-data/pindex-full);
#        QUERIES has one URL-encoded query a line (default: bench-serve.sh's queries).
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "${1:?usage: scripts/compare-serve.sh OLD_BIN NEW_BIN [DIR] [QUERIES]}")
new=$(realpath "${2:?usage: scripts/compare-serve.sh OLD_BIN NEW_BIN [DIR] [QUERIES]}")
dir=${3:-/work/bench-data/pindex-full}
queries=${4:-}
source scripts/serve-lib.sh
start_server compare-old 600 "$old" -d "$dir"
old_port=$port old_server=$server
mv "$work/serve.log" "$work/old.log"
start_server compare-new 600 "$new" -d "$dir"
new_port=$port
if [ -z "$queries" ]; then
    queries=$work/queries.txt
    sed -n '/^local queries = {/,/^}/p' scripts/bench-serve.sh | grep -o '"[^"]*"' | tr -d '"' > "$queries"
fi
# The two servers listen on two ports, which absolute links (OpenSearch, Memento) name.
strip() { sed -E 's/"response_time": *[0-9.e-]*//; s/\([0-9.]+ s\)//; s/<nutch:responseTime>[0-9.]*//; s/127\.0\.0\.1:[0-9]+/HOST/g'; }
n=0 differ=0
while read -r q; do
    [ -n "$q" ] || continue
    for path in "/search.json?query=$q" "/search.json?query=$q&start=10" "/?query=$q&hitsPerSite=0" "/opensearch?query=$q"; do
        a=$(curl -s "http://127.0.0.1:$old_port$path" | strip | md5sum)
        b=$(curl -s "http://127.0.0.1:$new_port$path" | strip | md5sum)
        n=$((n + 1))
        if [ "$a" != "$b" ]; then
            differ=$((differ + 1))
            echo "differs: $path"
        fi
    done
done < "$queries"
kill "$old_server" 2>/dev/null || true
echo "$n responses, $differ differ"
[ "$differ" = 0 ]
