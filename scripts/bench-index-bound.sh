#!/usr/bin/env bash
# The bound on `index`: how long tantivy alone takes to write a segment's main index
# (examples/index_bound.rs: the rows read into memory first, then written by MainWriter as
# `index` writes them, without the link passes), against `warcdex index` of the same
# segment and zcat of the archives it was imported from, medians of RUNS (3) runs in one
# sitting. Shows how much of `index` no change outside tantivy (or the index's schema) can
# remove, and whether the whole pipeline can reach zcat's speed.
#
# Usage: scripts/bench-index-bound.sh SEGMENT ARCHIVE...
#   e.g. SEGMENT made by `warcdex import -e all.dup manifest.txt SEGMENT` of the bench's
#   full/ archives (scripts/bench-pipeline.sh makes its lists the same way).
set -euo pipefail
cd "$(dirname "$0")/.."
seg=$(realpath "${1:?usage: scripts/bench-index-bound.sh SEGMENT ARCHIVE...}"); shift
[ $# -gt 0 ] || { echo "bench-index-bound: name the archives the segment was imported from" >&2; exit 2; }
runs=${RUNS:-3}
source scripts/bench-lib.sh
profile=${BENCH_PROFILE:-release-lto}
cargo build --profile "$profile" --locked --quiet --bin warcdex --example index_bound
source scripts/built-bin.sh
bin=$(built_bin "$profile")
bound=$(dirname "$bin")/examples/index_bound
work=$(mktemp -d "${TMPDIR:-/tmp}/warcdex-index-bound-XXXX")
trap 'rm -rf "$work" "$bench_tmp"' EXIT
cat "$@" > /dev/null   # the page cache holds the archives
read -r zs _ < <(measure bash -c 'zcat "$@" > /dev/null' _ "$@")
read -r is ir < <(before='rm -rf "$work/idx"' measure "$bin" index --out "$work/idx" "$seg")
# The writing alone, as index_bound times it (reading the rows and freeing them are not).
writes=()
for _ in $(seq "$runs"); do
    rm -rf "$work/bound"
    writes+=("$("$bound" "$seg" "$work/bound" | cut -d' ' -f2)")
done
bs=$(median "${writes[@]}")
awk -v z="$zs" -v i="$is" -v ir="$ir" -v b="$bs" 'BEGIN {
    printf "| step | seconds | peak RSS MiB | x zcat |\n|---|---:|---:|---:|\n"
    printf "| zcat of the archives | %.2f | | 1.00 |\n", z
    printf "| warcdex index | %.2f | %.0f | %.2f |\n", i, ir / 1024, z / i
    printf "| tantivy alone (index_bound: the writing, rows in memory) | %.2f | | %.2f |\n", b, z / b
    printf "\ntantivy alone is %.0f %% of index and runs at %.2fx zcat", 100 * b / i, z / b
    if (z / b < 1) printf ": slower than zcat by itself, so the whole pipeline cannot reach 1.00x zcat while the index is written this way\n"
    else printf ": not by itself a bar to the pipeline at 1.00x zcat\n"
}'
