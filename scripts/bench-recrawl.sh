#!/usr/bin/env bash
# How `recrawl-plan` scales: synthetic collections of 100,000 and 1,000,000 URLs
# (scripts/make_recrawl_cdx.py: 3 to 8 captures each over a year, 5 % gone, 2 % redirects;
# no index, so importance is 1 and the link scores' sort is empty), each planned with a
# budget of a monthly crawl of every URL, with the optimal and the Nutch schedule. Per size
# and schedule: wall and CPU seconds, microseconds per URL and peak RSS, as a Markdown
# table on stdout. Time per URL should stay flat and peak RSS should not grow with the size.
#
# Usage: scripts/bench-recrawl.sh DATA_DIR [SIZE...]   (default sizes 100000 1000000)
#   DATA_DIR keeps the generated CDX files (about 700 MB for a million URLs).
#   MEMORY=MiB is the sorts' budget (--memory; default 16): peak RSS stays near it at
#   every size, as the sorts spill what passes it.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: scripts/bench-recrawl.sh DATA_DIR [SIZE...]}
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)
source scripts/built-bin.sh
bin=$(built_bin "${BENCH_PROFILE:-release}")
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "sorts' budget (--memory): ${MEMORY:-16} MiB"
echo
echo "| URLs | schedule | seconds | CPU seconds | µs/URL | peak RSS MiB |"
echo "|---:|---|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
    dir="$data/recrawl-$n"
    [ -f "$dir/all.cdx" ] || python3 scripts/make_recrawl_cdx.py --urls "$n" --out "$dir" >&2
    cat "$dir/all.cdx" > /dev/null
    budget=$(( n / 30 ))
    for schedule in optimal nutch-adaptive; do
        /usr/bin/time -o "$tmp" -f "%e %M %U %S" "$bin" recrawl-plan "$dir" --budget "$budget" \
            --as-of 2025-03-01 --schedule "$schedule" --memory "${MEMORY:-16}" -o /dev/null 2>/dev/null
        read -r wall rss user sys < <(tail -1 "$tmp")
        awk -v n="$n" -v s="$schedule" -v w="$wall" -v r="$rss" -v u="$user" -v y="$sys" \
            'BEGIN { printf "| %d | %s | %.2f | %.2f | %.2f | %.0f |\n", n, s, w, u + y, w * 1e6 / n, r / 1024 }'
    done
done
