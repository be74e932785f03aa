#!/usr/bin/env bash
# dedup-cdx against the NutchWAX pipeline (docs/formats.md §4.2, with the filename column of
# 11-field CDX) on a generated, sorted 11-field CDX of LINES lines (default 10 million:
# 1 million URLs, 10 captures each, unchanged between some captures). Times both in one
# run and reports seconds and peak RSS; then dedup-cdx on the same lines unsorted (the
# external-sort path). The generated files are kept in BENCH_DIR for later runs.
# Usage: scripts/bench-dedup.sh [LINES] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-10000000}
runs=${2:-1}
source scripts/bench-lib.sh
source scripts/built-bin.sh
bin=$(built_bin "${BENCH_PROFILE:-release-lto}")
dir=${BENCH_DIR:-/tmp/warcdex-bench-dedup}
mkdir -p "$dir"
sorted="$dir/cdx11-$lines.sorted.cdx"
shuffled="$dir/cdx11-$lines.shuffled.cdx"
export LC_ALL=C
if [ ! -s "$sorted" ]; then
    echo "generating $lines lines in $sorted ..." >&2
    awk -v n="$lines" 'BEGIN {
        urls = int(n / 10); srand(42)
        print " CDX N b a m s k r M S V g"
        for (u = 0; u < urls; u++) {
            host = u % 5000; v = 0
            for (c = 0; c < 10; c++) {
                if (rand() < 0.3) v++          # the page changed since the last capture
                printf "com,example%04d)/page/%08d.html 2007%02d%02d%06d http://www.example%04d.com/page/%08d.html text/html 200 %08X%08X%08X%08X - - %d %d crawl-%02d.warc.gz\n",
                    host, u, 1 + c % 12, 1 + c, u % 240000, host, u, u, v, u * 7 + v, v * 13, 900 + u % 700, u * 1000 + c, c
            }
        }
    }' | sort > "$sorted.tmp"
    mv "$sorted.tmp" "$sorted"
fi
if [ ! -s "$shuffled" ]; then
    shuf --random-source=<(yes) "$sorted" > "$shuffled.tmp" && mv "$shuffled.tmp" "$shuffled"
fi
size=$(stat -c %s "$sorted")
cat "$sorted" > /dev/null

pipeline() {
    awk '{ print $1, "sha1:" $6, $2, $11 }' "$1" | sort -u |
        awk '{ if ( url == $1 && digest == $2 ) print $1, $2, $3, $4 ; url = $1 ; digest = $2 }'
}
export -f pipeline

# Both must give the same lines (the pipeline also projects the legend line; drop it).
cmp <(pipeline "$sorted" | grep -v '^CDX ') <("$bin" dedup-cdx "$sorted" 2>/dev/null) \
    || { echo "dedup-cdx output differs from the NutchWAX pipeline" >&2; exit 1; }

printf '%-44s %9s %9s %9s\n' "command ($lines lines, $((size / 1000000)) MB)" seconds "MB/s" "RSS MiB"
show() { awk -v n="$1" -v s="$2" -v r="$3" -v size="$size" 'BEGIN { printf "%-44s %9.2f %9.1f %9.1f\n", n, s, size/1e6/s, r/1024 }'; }
read -r ps pr < <(measure bash -c 'pipeline "$0"' "$sorted"); show "NutchWAX pipeline (awk | sort -u | awk)" "$ps" "$pr"
read -r ws wr < <(measure "$bin" dedup-cdx "$sorted"); show "warcdex dedup-cdx (sorted input)" "$ws" "$wr"
read -r us ur < <(measure "$bin" dedup-cdx "$shuffled"); show "warcdex dedup-cdx (unsorted input)" "$us" "$ur"
read -r rs rr < <(measure "$bin" revisits "$sorted"); show "warcdex revisits (sorted input)" "$rs" "$rr"
awk -v p="$ps" -v w="$ws" 'BEGIN { printf "dedup-cdx is %.1fx faster than the NutchWAX pipeline on sorted input\n", p/w }'
