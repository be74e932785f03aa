#!/usr/bin/env bash
# Peak memory of `update` and `graph` on real pages: the bench corpus of
# /work/shared/bench/make_bench.py (its README; Debian documentation crawled three times,
# long URLs, Java API index pages of thousands of links), its crawls added as three
# batches at `--memory 64` and at the default, then `graph` of the collection at each
# level. BENCH is the `--out` directory of make_bench.py (`BENCH/full/DOCS-*.warc.gz`, the
# `full` variant). Prints the peak RSS of each command and the links the graph read.
# Usage: scripts/bench-link-memory-real.sh BENCH [DIR]
set -euo pipefail
bench=${1:?usage: scripts/bench-link-memory-real.sh BENCH [DIR] (BENCH: make_bench.py --out)}
crawls=("$bench"/full/DOCS-*.warc.gz)
[ -f "${crawls[0]}" ] || { echo "no $bench/full/DOCS-*.warc.gz: build it with make_bench.py --variants full --out $bench" >&2; exit 1; }
bench=$(cd "$bench" && pwd)
crawls=("$bench"/full/DOCS-*.warc.gz)
cd "$(dirname "$0")/.."
source scripts/built-bin.sh
bin=$(built_bin)
work=${2:-target/bench-link-memory-real}
mkdir -p "$work/tmp"
runs=1
source scripts/bench-lib.sh

echo "machine: $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-48s %10s %10s\n' command seconds "peak MiB"
for memory in 64 256; do
    coll="$work/coll-$memory"
    rm -rf "$coll"
    for crawl in "${crawls[@]}"; do
        read -r s kib < <(measure "$bin" update "$coll" "$crawl" --memory "$memory" --tmp-dir "$work/tmp")
        printf '%-48s %10s %10s\n' "update $(basename "$crawl" .warc.gz) --memory $memory" "$s" "$((kib / 1024))"
    done
done
coll="$work/coll-64"
for level in page host domain; do
    read -r s kib < <(measure "$bin" graph "$coll" --level "$level" --format csv --memory 64 --tmp-dir "$work/tmp" -o /dev/null)
    printf '%-48s %10s %10s\n' "graph --level $level --memory 64" "$s" "$((kib / 1024))"
done
"$bin" graph "$coll" --format csv --memory 64 -o /dev/null 2>&1 >/dev/null | tail -1
