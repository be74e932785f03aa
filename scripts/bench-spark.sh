#!/usr/bin/env bash
# The Spark build's overhead: the same archives built by `warcdex update` (one
# batch, one machine) and by spark/warcdex_spark.py on local[2,4] with 1, 2 and 4 shards.
# Reports wall seconds, MB/s of compressed input and the ratio to `update`, as Markdown on
# stdout (and $OUT, default target/bench-spark.md).
#
# Usage: scripts/bench-spark.sh ARCHIVE...   (for example the crawls of
#   scripts/make_scale.py, or ../shared/bench's collection)
# Needs target/spark-venv (scripts/test-spark.sh makes it) and Java 17.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/bench-spark.sh ARCHIVE..." >&2; exit 2; }
out=${OUT:-target/bench-spark.md}
venv=target/spark-venv
"$venv/bin/python" -c "import pyspark" 2> /dev/null \
    || { echo "bench-spark.sh: run scripts/test-spark.sh first (it installs PySpark)" >&2; exit 1; }
source scripts/built-bin.sh
WARCDEX_BIN=$(built_bin "${BENCH_PROFILE:-release-lto}")
export WARCDEX_BIN
work=$(mktemp -d "${TMPDIR:-/tmp}/warcdex-bench-spark-XXXX")
trap 'rm -rf "$work"' EXIT
for f in "$@"; do realpath "$f"; done > "$work/list.txt"
bytes=$(cat "$work/list.txt" | xargs stat -c %s | paste -sd+ | bc)
mb=$(echo "scale=1; $bytes / 1000000" | bc)

# wall seconds of one run of CMD...
wall() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > /dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}
cat "$@" > /dev/null
base=$(wall "$WARCDEX_BIN" update "$work/update" --from "$work/list.txt")
docs=$("$WARCDEX_BIN" dumpindex -c "$work/update/pindexes/batch-0001/main" 2> /dev/null || echo "?")
{
    echo "| build | shards | seconds | MB/s | × update |"
    echo "|---|---:|---:|---:|---:|"
    printf "| update (one machine) | – | %.1f | %.1f | 1.00 |\n" "$base" "$(echo "$mb / $base" | bc -l)"
    for n in 1 2 4; do
        s=$(wall "$venv/bin/python" spark/warcdex_spark.py build "$work/spark-$n" "$work/list.txt" \
            --shards "$n" --master 'local[2,4]')
        printf "| Spark local[2,4] | %d | %.1f | %.1f | %.2f |\n" "$n" "$s" \
            "$(echo "$mb / $s" | bc -l)" "$(echo "$s / $base" | bc -l)"
        cp "$work/spark-$n/spark-build.json" "$work/summary-$n.json"
        rm -rf "$work/spark-$n"
    done
    echo
    echo
    echo "Stages (wall seconds) and output bytes of each Spark build:"
    echo
    for n in 1 2 4; do
        echo "- $n shard(s): $("$venv/bin/python" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(json.dumps(d["stage_seconds"]), json.dumps(d["bytes"]))' "$work/summary-$n.json")"
    done
    echo
    echo "$# archives, $mb MB, $docs documents; warcdex $(git rev-parse --short HEAD), $(nproc) cores, $(date -u +%Y-%m-%d); load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out"
