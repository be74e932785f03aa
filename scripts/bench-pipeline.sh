#!/usr/bin/env bash
# The full-text pipeline against the one a user would glue together from peers:
# `warcdex update` of the bench's three crawls into a new collection (CDX, lists, import,
# index, dates), scripts/glue_pipeline.py (FastWARC + Resiliparse + tantivy-py: versions by
# URL + payload digest, title and text, url/title/text/dates indexed with 2 threads) and
# `zcat` of the same files, alternated RUNS times (default 3) in one run; then the guards:
# each later crawl added to the collection as its own batch against the first, `cdx` on one
# thread against FastWARC's bare record loop, and `import`'s peak RSS against its
# `--memory` bound. Prints one Markdown table and the verdicts on issue 62's targets (also to $OUT,
# default target/bench-pipeline.md).
#
# Usage: scripts/bench-pipeline.sh DIR     (DIR holding full/*.warc.gz: the bench's crawls)
# The bench is not in the repository (about 220 MB): make it with ../shared/bench (read
# its README.md for the Debian doc packages and Python environment it needs), e.g.
#   .venv-bench/bin/python make_bench.py --scale 1.0 --variants full --out /work/bench-data/full
# The glue's Python environment (FastWARC, Resiliparse, tantivy) is made under
# target/glue-venv from PyPI on first use (GLUE_PYTHON names another interpreter).
# Search speed is measured by scripts/bench-serve.sh. Tests never need any of this.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:?usage: scripts/bench-pipeline.sh DIR (holding full/*.warc.gz)}
out=${OUT:-target/bench-pipeline.md}
runs=${RUNS:-3}
memory=${MEMORY:-256}
source scripts/bench-lib.sh
source scripts/built-bin.sh
bin=$(realpath "$(built_bin "${BENCH_PROFILE:-release-lto}")")
py=${GLUE_PYTHON:-target/glue-venv/bin/python}
if ! "$py" -c 'import fastwarc, resiliparse, tantivy' 2>/dev/null; then
    python3 -m venv target/glue-venv
    target/glue-venv/bin/pip install -q fastwarc==2.0.1 resiliparse==2.0.1 tantivy==0.27.0 >&2
    py=target/glue-venv/bin/python
fi
files=("$src"/full/*.warc.gz)
[ ${#files[@]} -ge 2 ] || { echo "bench-pipeline: $src/full holds fewer than two crawls" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/warcdex-pipeline-XXXX")
trap 'rm -rf "$work" "$bench_tmp"' EXIT
size=$(cat "${files[@]}" | wc -c)
cat "${files[@]}" > /dev/null   # every command reads the input from the page cache

# one CMD...: wall seconds and peak RSS (KiB) of one run, stdout and stderr discarded.
one() {
    local t0 t1
    t0=$(date +%s%N)
    /usr/bin/time -o "$bench_tmp" -f "%M" "$@" > /dev/null 2>&1
    t1=$(date +%s%N)
    echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }') $(tail -1 "$bench_tmp")"
}
# keep NAME SECONDS RSS: adds a run's figures to NAME's lists.
declare -A secs rss
keep() { secs[$1]="${secs[$1]:-} $2"; (( ${3:-0} > ${rss[$1]:-0} )) && rss[$1]=$3; return 0; }
med() { # shellcheck disable=SC2086
    median ${secs[$1]}; }

# 1. The whole pipelines, alternated.
for _ in $(seq "$runs"); do
    read -r s r < <(one bash -c 'zcat "$@"' _ "${files[@]}"); keep zcat "$s" "$r"
    rm -rf "$work/coll"
    read -r s r < <(one "$bin" update --memory "$memory" "$work/coll" "${files[@]}"); keep update "$s" "$r"
    rm -rf "$work/glue" && mkdir "$work/glue"
    read -r s r < <(one bash -c '"$0" scripts/glue_pipeline.py "$@" > "$1/../glue.out"' "$py" "$work/glue" "${files[@]}")
    keep glue "$s" "$r"
done
versions=$(grep -o '"new_versions": *[0-9]*' "$work/coll/collection.json" | grep -o '[0-9]*$' | head -1)
glue_versions=$(cut -d' ' -f1 "$work/glue.out")

# 2. Each later crawl as a batch of its own, after the first.
for _ in $(seq "$runs"); do
    rm -rf "$work/inc"
    for i in "${!files[@]}"; do
        read -r s r < <(one "$bin" update --memory "$memory" "$work/inc" "${files[$i]}"); keep "batch$i" "$s" "$r"
    done
done

# 3. The guards: cdx on one thread against FastWARC's bare loop, alternated; import's peak.
for _ in $(seq "$runs"); do
    read -r s r < <(one bash -c 'for f in "${@:2}"; do "$1" cdx -j 1 "$f"; done' _ "$bin" "${files[@]}"); keep cdx1 "$s" "$r"
    read -r s r < <(one "$py" -c '
import sys
from fastwarc.warc import ArchiveIterator
for p in sys.argv[1:]:
    with open(p, "rb") as f:
        for rec in ArchiveIterator(f, parse_http=False):
            pass' "${files[@]}"); keep fastwarc "$s" "$r"
done
"$bin" cdx "${files[@]}" -o "$work/all.unsorted"
"$bin" sort-cdx "$work/all.unsorted" -o "$work/all.cdx"
"$bin" dedup-cdx "$work/all.cdx" -o "$work/all.dup"
for f in "${files[@]}"; do realpath "$f"; done > "$work/manifest.txt"
for _ in $(seq "$runs"); do
    rm -rf "$work/seg"
    read -r s r < <(one "$bin" import --memory "$memory" -e "$work/all.dup" "$work/manifest.txt" "$work/seg"); keep import "$s" "$r"
done

{
printf '%s, %s cores, load %s; %s runs alternated, medians; %.0f MB of gzip in %d files; `warcdex` %s\n\n' \
    "$(date -u +%Y-%m-%dT%H:%MZ)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$runs" "$(awk -v s="$size" 'BEGIN { print s / 1e6 }')" \
    "${#files[@]}" "$("$bin" --version 2>/dev/null || echo "$bin")"
echo "| pipeline | seconds (min–max) | peak RSS MiB | MB/s gz | × zcat's speed |"
echo "|---|---:|---:|---:|---:|"
z=$(med zcat)
for n in zcat update glue; do
    label=$n
    [ "$n" = update ] && label="\`warcdex update\` into a new collection ($versions versions)"
    [ "$n" = glue ] && label="off-the-shelf: FastWARC + Resiliparse + tantivy-py (${glue_versions:-?} versions)"
    # shellcheck disable=SC2086
    awk -v n="$label" -v s="$(med "$n")" -v lo="$(printf '%s\n' ${secs[$n]} | sort -n | head -1)" \
        -v hi="$(printf '%s\n' ${secs[$n]} | sort -n | tail -1)" -v r="${rss[$n]}" -v size="$size" -v z="$z" \
        'BEGIN { printf "| %s | %.2f (%.2f–%.2f) | %.0f | %.1f | %.2f |\n", n, s, lo, hi, r/1024, size/1e6/s, z/s }'
done
echo
echo "| later crawls as batches | seconds | MB gz | MB/s gz |"
echo "|---|---:|---:|---:|"
for i in "${!files[@]}"; do
    awk -v n="batch $((i + 1)): $(basename "${files[$i]}")" -v s="$(med "batch$i")" -v b="$(wc -c < "${files[$i]}")" \
        'BEGIN { printf "| %s | %.2f | %.1f | %.1f |\n", n, s, b/1e6, b/1e6/s }'
done
echo
echo "| guard | seconds | peak RSS MiB |"
echo "|---|---:|---:|"
for n in cdx1 fastwarc import; do
    label=$n
    [ "$n" = cdx1 ] && label="\`warcdex cdx -j 1\`, each file"
    [ "$n" = fastwarc ] && label="FastWARC 2.0.1 record loop (no HTTP parse), each file"
    [ "$n" = import ] && label="\`warcdex import --memory $memory -e all.dup\`"
    awk -v n="$label" -v s="$(med "$n")" -v r="${rss[$n]}" 'BEGIN { printf "| %s | %.2f | %.0f |\n", n, s, r/1024 }'
done
echo
u=$(med update); g=$(med glue); c=$(med cdx1); fw=$(med fastwarc)
awk -v u="$u" -v g="$g" -v z="$z" 'BEGIN {
    printf "target 1: update %.2fx the off-the-shelf pipeline'\''s speed (>= 1.50): %s; %.2fx zcat'\''s (>= 0.60): %s\n",
        g/u, (g/u >= 1.5 ? "met" : "missed"), z/u, (z/u >= 0.6 ? "met" : "missed") }'
first_rate=$(awk -v s="$(med batch0)" -v b="$(wc -c < "${files[0]}")" 'BEGIN { print b/s }')
for i in "${!files[@]}"; do
    [ "$i" -gt 0 ] || continue
    awk -v s="$(med "batch$i")" -v b="$(wc -c < "${files[$i]}")" -v f="$first_rate" -v n="$((i + 1))" 'BEGIN {
        printf "target 2: batch %d %.2fx the first batch'\''s speed per byte (>= 3.00): %s\n", n, b/s/f, (b/s >= 3 * f ? "met" : "missed") }'
done
awk -v c="$c" -v f="$fw" 'BEGIN { printf "guard: cdx on one thread %.2fx FastWARC'\''s record loop (>= 1.20): %s\n", f/c, (f/c >= 1.2 ? "met" : "missed") }'
awk -v r="${rss[import]}" -v m="$memory" 'BEGIN { printf "guard: import peak %.0f MiB (<= %d + 256): %s\n", r/1024, m, (r/1024 <= m + 256 ? "met" : "missed") }'
} | tee "$out"
