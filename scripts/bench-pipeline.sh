#!/usr/bin/env bash
# The whole pipeline of scripts/example.sh on a bench collection (../shared/bench,
# `full` and `revisit` variants: three crawls each): wall time and peak RSS per step,
# MB/s of compressed input overall, and the ratio to zcat over the same files, measured
# in one run. Each step's time is the median of RUNS runs (default 3), its output removed
# before each run. Writes a Markdown table to stdout (and $OUT, default
# target/bench-pipeline.md).
# Usage: scripts/bench-pipeline.sh DIR_WITH_VARIANTS   (e.g. /work/bench-data/full,
#        holding full/*.warc.gz and revisit/*.warc.gz)
# The bench collection is not in the repository (about 1 GB): it is made by make_bench.py
# from the project's reference material (../shared/bench, read its README.md for the
# Debian doc packages and Python environment it needs), e.g.
#   (cd ../shared/bench && .venv-bench/bin/python make_bench.py --scale 1.0 --out /work/bench-data/full)
# Tests never need it.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:?usage: scripts/bench-pipeline.sh DIR (holding full/ and revisit/)}
out=${OUT:-target/bench-pipeline.md}
runs=${RUNS:-3}
source scripts/bench-lib.sh
source scripts/built-bin.sh
bin=$(built_bin "${BENCH_PROFILE:-release-lto}")
work=$(mktemp -d "${TMPDIR:-/tmp}/warcdex-pipeline-XXXX")
trap 'rm -rf "$work" "$bench_tmp"' EXIT

targets=()
{
echo "| variant | step | seconds | peak RSS MiB | output |"
echo "|---|---|---:|---:|---|"
for variant in full revisit; do
    [ -d "$src/$variant" ] || continue   # a bench made with --variants full has no revisit/
    files=("$src/$variant"/*.warc.gz)
    w="$work/$variant"
    mkdir -p "$w/cdx"
    size=$(cat "${files[@]}" | wc -c)
    cat "${files[@]}" > /dev/null   # the page cache holds the input for every step
    read -r zs zr < <(measure bash -c 'zcat "$@" > /dev/null' _ "${files[@]}")
    total=0
    row() {   # row STEP SECONDS RSS_KIB OUTPUT
        total=$(awk -v a="$total" -v b="$2" 'BEGIN { print a + b }')
        awk -v v="$variant" -v n="$1" -v s="$2" -v r="$3" -v o="$4" \
            'BEGIN { printf "| %s | %s | %.2f | %.1f | %s |\n", v, n, s, r/1024, o }'
    }
    # Each archive on every core (one file is cut into pieces, src/cdx_writer/pieces.rs).
    read -r s r < <(measure bash -c 'for f in "${@:2}"; do "$1" cdx "$f" -o "$0/cdx/$(basename "$f").cdx"; done' \
        "$w" "$bin" "${files[@]}")
    row "cdx (one per archive)" "$s" "$r" "$(cat "$w"/cdx/*.cdx | grep -vc '^ CDX') lines"
    read -r s r < <(measure "$bin" sort-cdx "$w"/cdx/*.cdx -o "$w/all.cdx")
    row "sort-cdx" "$s" "$r" "all.cdx"
    read -r s r < <(measure "$bin" dedup-cdx "$w/all.cdx" -o "$w/all.dup")
    row "dedup-cdx" "$s" "$r" "$(wc -l < "$w/all.dup") duplicates"
    read -r s r < <(measure "$bin" revisits "$w/all.cdx" -o "$w/all.rev")
    row "revisits" "$s" "$r" "$(wc -l < "$w/all.rev") revisits"
    for f in "${files[@]}"; do realpath "$f"; done > "$w/manifest.txt"
    read -r s r < <(before='rm -rf "$w/seg"' measure "$bin" import -e "$w/all.dup" "$w/manifest.txt" "$w/seg")
    imp=$s
    row "import -e all.dup" "$s" "$r" "$("$bin" segment-info "$w/seg" | sed -n 's/.*"documents": *\([0-9]*\).*/\1/p' | head -1) versions"
    read -r s r < <(before='rm -rf "$w/pindexes/$variant/main"' measure "$bin" index --out "$w/pindexes/$variant/main" "$w/seg")
    row "index" "$s" "$r" "$(du -sm "$w/pindexes/$variant/main" | cut -f1) MB"
    read -r s r < <(before='rm -rf "$w/pindexes/$variant/dates"' measure "$bin" add-dates "$w/pindexes/$variant/main" "$w/pindexes/$variant/main" \
        "$w/pindexes/$variant/dates" "$w/all.dup")
    row "add-dates main main dates all.dup" "$s" "$r" "dates"
    read -r s r < <(measure bash -c 'for q in archive "web archive" "date:2024" news; do "$0" search -d "$1" "$q"; done' \
        "$bin" "$w")
    row "search (4 queries, cold process each)" "$s" "$r" ""
    awk -v v="$variant" -v t="$total" -v z="$zs" -v size="$size" \
        'BEGIN { printf "| %s | **whole pipeline** (%.0f MB gz) | %.2f | | %.1f MB/s, %.2f× zcat (zcat %.2f s) |\n", v, size/1e6, t, size/1e6/t, z/t, z }'
    targets+=("$(awk -v v="$variant" -v t="$total" -v i="$imp" -v z="$zs" 'BEGIN {
        printf "%s: whole pipeline %.2fx zcat (issue 22 target: >= 1.00x): %s; import %.2fx zcat (target: >= 2.00x): %s",
            v, z/t, (z/t >= 1 ? "met" : "missed"), z/i, (z/i >= 2 ? "met" : "missed") }')")
done
echo
printf '%s\n' "${targets[@]}"
} | tee "$out"
