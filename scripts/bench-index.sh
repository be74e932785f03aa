#!/usr/bin/env bash
# Times `warcdex index` on the segment of a bench archive: documents/s, index size, peak
# RSS, at the default sort memory and at a small one (the build is external-sort based,
# so RSS should follow --memory, not the collection).
# Usage: scripts/bench-index.sh ARCHIVE...
# Keeps the segment and the index under $BENCH_DIR (default /tmp/warcdex-bench-index):
# $BENCH_DIR/pindexes/bench/main is a ready search index afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/bench-index.sh ARCHIVE..." >&2; exit 2; }
runs=${RUNS:-1}
source scripts/bench-lib.sh
source scripts/built-bin.sh
bin=$(built_bin "${BENCH_PROFILE:-release-lto}")
dir=${BENCH_DIR:-/tmp/warcdex-bench-index}
mkdir -p "$dir"
if [ ! -d "$dir/seg" ]; then
    for f in "$@"; do realpath "$f"; done > "$dir/manifest.txt"
    "$bin" import "$dir/manifest.txt" "$dir/seg" >/dev/null 2>&1
fi
docs=$("$bin" segment-info "$dir/seg" | sed -n 's/.*"documents": *\([0-9]*\).*/\1/p' | head -1)
printf '%-44s %9s %9s %10s %9s\n' "command ($docs segment rows)" seconds "docs/s" "index MB" "RSS MiB"
for mem in 128 16; do
    rm -rf "$dir/pindexes"
    read -r s r < <(measure bash -c 'rm -rf "$1"; exec "$2" index --memory "$3" --out "$1" "$4"' _ \
        "$dir/pindexes/bench/main" "$bin" "$mem" "$dir/seg")
    n=$(sed -n 's/.*"documents": *\([0-9]*\).*/\1/p' "$dir/pindexes/bench/main/pindex.json")
    mb=$(du -sb "$dir/pindexes/bench/main" | awk '{print $1/1e6}')
    awk -v name="warcdex index --memory $mem" -v s="$s" -v r="$r" -v n="$n" -v mb="$mb" \
        'BEGIN { printf "%-44s %9.2f %9.0f %10.1f %9.1f\n", name, s, n/s, mb, r/1024 }'
done
echo "index: $dir/pindexes/bench/main ($n documents)"
