#!/usr/bin/env bash
# Exports of one query in every format (a benchmark, not a test): for each of
# csv, jsonl, parquet, warc and wacz, the wall time, peak RSS (/usr/bin/time -v), output
# size and count; the versions exported must equal the search's total in every format
# (WARC and WACZ: the captures), and the capture table's size is printed beside them.
# The memory bound is the claim: peak RSS must not follow the number of versions.
#
# Usage: scripts/bench-export.sh DIR [QUERY]
#   DIR: a collection made by `update` (scripts/bench-scale.sh makes the scale benchmark's);
#   QUERY: by default `debian`, which matches most of the Debian-docs benchmark.
# Env: BENCH_PROFILE (release), WARCDEX_BIN.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/bench-export.sh DIR [QUERY]}
query=${2:-debian}
[ -d "$dir/pindexes" ] || { echo "bench-export: $dir/pindexes is missing" >&2; exit 2; }
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$(realpath "$WARCDEX_BIN")
else
    source scripts/built-bin.sh
    bin=$(built_bin "${BENCH_PROFILE:-release}")
fi
tmp=$(mktemp -d -p "$(dirname "$(realpath "$dir")")")
trap 'rm -rf "$tmp"' EXIT
total=$("$bin" search -d "$dir" --json -n 1 "$query" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "query: $query; search total: $total versions"
printf '%-8s %10s %10s %12s  %s\n' format seconds "peak MiB" bytes "summary"
for fmt in csv jsonl parquet warc wacz; do
    out="$tmp/export.$fmt"
    /usr/bin/time -v "$bin" export -d "$dir" --format "$fmt" -o "$out" "$query" 2> "$tmp/err"
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$tmp/err")
    rss=$(awk -F': ' '/Maximum resident set size/{printf "%.0f", $2/1024}' "$tmp/err")
    summary=$(grep '^warcdex export:' "$tmp/err" | tail -1)
    printf '%-8s %10s %10s %12s  %s\n' "$fmt" "$secs" "$rss" "$(stat -c %s "$out")" "$summary"
    case $fmt in
        csv) n=$(($(python3 -c 'import csv,sys; print(sum(1 for _ in csv.reader(open(sys.argv[1], newline=""))))' "$out") - 1)) ;;
        jsonl) n=$(wc -l < "$out") ;;
        *) n=$(sed -n 's/^warcdex export: \([0-9]*\) versions.*/\1/p' "$tmp/err") ;;
    esac
    [ "$n" = "$total" ] || { echo "bench-export: $fmt holds $n versions, the search counts $total" >&2; exit 1; }
    rm -f "$out"
done
du -sh "$dir/captures" | awk '{print "capture table: " $1}'
