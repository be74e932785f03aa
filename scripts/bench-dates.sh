#!/usr/bin/env bash
# Times `warcdex add-dates main main dates LIST` over a synthetic main index of $DOCS
# documents (default 1 000 000) and a sorted dates list of $LINES lines (default
# 10 000 000, 1% of them matching no document), then the same list on stdin (always
# externally sorted): wall seconds and peak RSS (goal: at most 256 MiB).
# Usage: scripts/bench-dates.sh   (DOCS=… LINES=… BENCH_DIR=… to change)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-1}
source scripts/bench-lib.sh
docs=${DOCS:-1000000}
lines=${LINES:-10000000}
dir=${BENCH_DIR:-/tmp/warcdex-bench-dates}
mkdir -p "$dir"
cargo build --profile "${BENCH_PROFILE:-release-lto}" --quiet --bin warcdex --example dates_bench_main
source scripts/built-bin.sh
bin=$(built_bin "${BENCH_PROFILE:-release-lto}")
if [ ! -d "$dir/main" ]; then
    "$(dirname "$bin")/examples/dates_bench_main" "$dir" "$docs"
fi
list="$dir/dates-$lines.txt"
if [ ! -f "$list" ]; then
    # Sorted by (URL key, digest): documents in order, their dates after each other.
    # Every 100th line names a digest no document has (`sha1:` + 31 digits + X).
    awk -v docs="$docs" -v lines="$lines" 'BEGIN {
        per = lines / docs
        for (i = 0; i < docs; i++) {
            key = sprintf("com,example)/p%09d", i)
            for (j = 0; j < per; j++) {
                n++
                d = sprintf("sha1:%032d", i)
                if (n % 100 == 0) d = sprintf("sha1:%031dX", i)
                printf "%s %s 2008%02d%02d%06d crawl-%d.warc.gz\n", key, d, 1 + j % 12, 1 + (i + j) % 28, j, j
            }
        }
    }' | LC_ALL=C sort -k1,1 -k2,2 -s > "$list"
fi
printf '%-52s %9s %9s\n' "command ($docs documents, $lines lines)" seconds "RSS MiB"
read -r s r < <(measure bash -c 'rm -rf "$1/dates"; exec "$2" add-dates "$1/main" "$1/main" "$1/dates" "$3"' _ \
    "$dir" "$bin" "$list")
awk -v s="$s" -v r="$r" 'BEGIN { printf "%-52s %9.2f %9.1f\n", "add-dates main main dates LIST (sorted file)", s, r/1024 }'
read -r s r < <(measure bash -c 'rm -rf "$1/dates2"; exec "$2" add-dates "$1/main" "$1/dates" "$1/dates2" - < "$3"' _ \
    "$dir" "$bin" "$list")
awk -v s="$s" -v r="$r" 'BEGIN { printf "%-52s %9.2f %9.1f\n", "add-dates main dates dates2 - (stdin, external sort)", s, r/1024 }'
"$bin" dumpindex -c "$dir/dates2" >/dev/null
grep -o '"dates_written": [0-9]*\|"unmatched_lines": [0-9]*' "$dir/dates2/pindex.json" | tr '\n' ' '; echo
