#!/usr/bin/env bash
# Per-query latency of two `warcdex serve` builds (not a test; a ranking change may make no
# search slower by more than 20 %): for each of bench-serve's queries and a few long ones, the
# median latency of one connection for SECONDS (wrk -c1), OLD then NEW, both servers up
# on the same collection, and the ratio. Prints one line per query and the median ratio.
#
# Usage: scripts/bench-queries.sh DIR OLD_BIN NEW_BIN     (DIR holds pindexes/)
# Env:   SECONDS_EACH (2)
set -euo pipefail
dir=$1 old=$2 new=$3
command -v wrk >/dev/null || { echo "bench-queries: wrk is missing (apt-get install wrk)" >&2; exit 2; }
queries=(python string+format postgresql+index django+model iterator %22regular+expression%22
    site%3Adocs.python.org+list thread java.util select+statement vacuum template+tag trait+object
    sphinx+extension date%3A2024 date%3A202404-202407+json type%3Atext%2Fhtml+database
    transaction+isolation unicode async+await hash+map borrow queryset+filter socket decorator
    tokenizer %22hello+world%22 collections inheritance exception+handling "function&start=10"
    "index&start=20" the "json&hitsPerSite=0" "error&hitsPerPage=20" how+to+vacuum+a+table
    python+parse+command+line+arguments java+thread+pool+tasks rust+borrow+checker+lifetimes)
work=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
ports=()
for b in "$old" "$new"; do
    "$b" serve --addr 127.0.0.1:0 -d "$dir" 2> "$work/${#ports[@]}.log" &
    pids+=($!)
    port=
    for _ in $(seq 300); do
        port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$work/${#ports[@]}.log")
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { echo "bench-queries: $b did not start" >&2; cat "$work/${#ports[@]}.log" >&2; exit 1; }
    ports+=("$port")
done
p50() {  # wrk's median latency in ms
    wrk -t1 -c1 -d"${SECONDS_EACH:-2}s" --latency "http://127.0.0.1:$1/search.json?query=$2" |
        awk '/^ +50%/ { v = $2; if (v ~ /us$/) v = v / 1000; else if (v ~ /ms$/) v = v + 0; else v = v * 1000; print v }'
}
printf '%-40s %9s %9s %6s\n' query "old ms" "new ms" ratio
for q in "${queries[@]}"; do
    o=$(p50 "${ports[0]}" "$q"); n=$(p50 "${ports[1]}" "$q")
    awk -v q="$q" -v o="$o" -v n="$n" 'BEGIN { printf "%-40s %9.3f %9.3f %6.2f%s\n", q, o, n, n / o, (n / o > 1.2 ? "  slower by more than 20 %" : "") }'
done | tee "$work/table"
awk 'NR > 0 { print $4 }' "$work/table" | sort -n | awk '{ a[NR] = $1 } END { printf "median ratio new/old: %.2f over %d queries\n", a[int((NR + 1) / 2)], NR }'
