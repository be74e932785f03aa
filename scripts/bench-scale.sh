#!/usr/bin/env bash
# How the pipeline scales with the collection: synthetic collections of about
# 10,000, 100,000 and 1,000,000 versions (scripts/make_scale.py: the bench pages under many
# hosts, three crawls, 10% of the pages revised per crawl), each run through cdx → sort-cdx →
# dedup-cdx → import -e → index → add-dates → near-dups, then kept by `warcdex update`, one batch per
# crawl (update-N: the run that adds crawl N; its versions/s are the collection's versions
# over that run's seconds), and `recrawl-plan` over that collection. Each step's inputs are
# read once before it is timed, so every size is timed with its inputs in the page cache (the
# 1M collection's 8 GB fit in this machine's 24 GiB; read cold, they timed the disk: cdx read
# 103 MB/s at 1M, 146 at 100k).
# Per step and size: wall and CPU (user + system) seconds, versions per second and peak
# RSS, in one Markdown table on stdout (and $OUT, default
# target/bench-scale.md). Time per version should stay flat from 100,000 to 1,000,000, and
# peak RSS should not grow with the size.
#
# Usage: scripts/bench-scale.sh DATA_DIR [SIZE...]   (default sizes 10000 100000 1000000)
#   UPDATES=0 leaves out the `update` runs (the pipeline's steps alone, a third of the time).
#   DATA_DIR keeps the generated collections (DATA_DIR/scale-SIZE, about 14 KB of gzip a
#   version: 14 GB for a million) for later runs.
# The pages come from the Debian doc packages of ../shared/bench (see its README.md for the
# packages to install); make_scale.py needs only Python's standard library.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: scripts/bench-scale.sh DATA_DIR [SIZE...]}
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
out=${OUT:-target/bench-scale.md}
runs=1
source scripts/bench-lib.sh
source scripts/built-bin.sh
bin=$(built_bin "${BENCH_PROFILE:-release-lto}")
work=$(mktemp -d "${TMPDIR:-/tmp}/warcdex-scale-XXXX")
trap 'rm -rf "$work" "$bench_tmp"' EXIT

# step NAME CMD...: reads the step's inputs into the page cache first (warm FILE... in
# $warm), so that a collection that fits in memory is timed as one that is cached, at every
# size; then wall seconds, peak RSS (KiB) and CPU seconds (user + system) of one run.
step() {
    local name=$1; shift
    [ ${#warm[@]} -gt 0 ] && cat "${warm[@]}" > /dev/null
    /usr/bin/time -o "$bench_tmp" -f "%e %M %U %S" "$@" > /dev/null 2>/dev/null
    res[$name]=$(tail -1 "$bench_tmp")
}

{
echo "| versions (asked) | step | seconds | CPU seconds | versions/s | µs/version | CPU µs/version | peak RSS MiB |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
    src="$data/scale-$n"
    [ -f "$src/manifest.txt" ] || python3 scripts/make_scale.py --versions "$n" --out "$src" >&2
    w="$work/$n"
    mkdir -p "$w"
    mapfile -t files < "$src/manifest.txt"
    declare -A res=()
    warm=("${files[@]}")
    step cdx "$bin" cdx -j 2 "${files[@]}" -o "$w/all.cdx"
    warm=("$w/all.cdx")
    step sort-cdx "$bin" sort-cdx "$w/all.cdx" -o "$w/sorted.cdx"
    warm=("$w/sorted.cdx")
    step dedup-cdx "$bin" dedup-cdx "$w/sorted.cdx" -o "$w/all.dup"
    warm=("${files[@]}" "$w/all.dup")
    step import "$bin" import -j 2 -e "$w/all.dup" "$src/manifest.txt" "$w/seg"
    warm=("$w"/seg/*)
    step index "$bin" index --out "$w/p/main" "$w/seg"
    warm=("$w"/p/main/*)
    step add-dates "$bin" add-dates "$w/p/main" "$w/p/main" "$w/p/dates" "$w/all.dup"
    # Clusters of near-duplicates over the set just built.
    mkdir -p "$w/s/pindexes" && ln -s "$w/p" "$w/s/pindexes/p"
    warm=("$w"/p/main/*)
    step near-dups "$bin" near-dups "$w/s" -o "$w/near.tsv"
    versions=$(sed -n 's/.*"documents": *\([0-9]*\).*/\1/p' "$w/p/main/pindex.json")
    echo "near-dups at $n: $(cut -f1 "$w/near.tsv" | uniq -c | sort -rn | head -1 | awk '{print "largest cluster " $1}'), $(wc -l < "$w/near.tsv") versions in clusters of $versions" >&2
    rm -rf "$w/seg" "$w/p" "$w/s" "$w"/*.cdx "$w/near.tsv"
    # The same collection kept by `update`, one batch per crawl (default settings).
    [ "${UPDATES:-1}" = 0 ] && files_updated=() || files_updated=("${!files[@]}")
    for i in "${files_updated[@]}"; do
        warm=("${files[$i]}")
        step "update-$((i + 1))" "$bin" update "$w/coll" "${files[$i]}"
    done
    [ -f "$w/coll/collection.json" ] \
        && versions=$(sed -n 's/.*"new_versions": *\([0-9]*\).*/\1/p' "$w/coll/collection.json" | paste -sd+ | bc)
    steps=(cdx sort-cdx dedup-cdx import index add-dates near-dups)
    for i in "${files_updated[@]}"; do steps+=("update-$((i + 1))"); done
    # The next crawl planned from the collection `update` kept: a monthly crawl of every
    # URL as the budget, link scores over every batch's segments (docs/recrawl.md).
    if [ -f "$w/coll/all.cdx" ]; then
        urls=$(cut -d' ' -f1 "$w/coll/all.cdx" | uniq | wc -l)
        warm=("$w/coll/all.cdx")
        step recrawl-plan "$bin" recrawl-plan "$w/coll" --budget "$(( urls / 30 + 1 ))" --memory 64 -o /dev/null
        steps+=(recrawl-plan)
    fi
    for step in "${steps[@]}"; do
        read -r s rss u sy <<< "${res[$step]}"
        awk -v n="$n" -v v="$versions" -v step="$step" -v s="$s" -v r="$rss" -v c="$(echo "$u + $sy" | bc)" 'BEGIN {
            printf "| %d (%d) | %s | %.2f | %.2f | %.0f | %.1f | %.1f | %.0f |\n", n, v, step, s, c, v/s, s*1e6/v, c*1e6/v, r/1024 }'
    done
    unset res
    rm -rf "$w"
done
echo
echo "warcdex $(git rev-parse --short HEAD), $(nproc) cores, $(date -u +%Y-%m-%d); load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out"
