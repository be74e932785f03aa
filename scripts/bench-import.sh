#!/usr/bin/env bash
# Times `warcdex import` (parse every capture into a segment) against zcat on the same
# archives, in one run: MB/s of compressed input, the ratio to zcat, peak RSS.
# Usage: scripts/bench-import.sh [JOBS] ARCHIVE...   (default JOBS 2)
# BASELINE=PATH times another warcdex binary too (an earlier build), in the same run and
# interleaved with this one, and prints the ratio; RUNS=N takes medians of N runs.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-2}; shift || true
[ $# -gt 0 ] || { echo "usage: scripts/bench-import.sh [JOBS] ARCHIVE..." >&2; exit 2; }
runs=${RUNS:-1}
source scripts/bench-lib.sh
source scripts/built-bin.sh
bin=$(built_bin "${BENCH_PROFILE:-release-lto}")
work=$(mktemp -d)
trap 'rm -rf "$work" "$bench_tmp"' EXIT
size=0
for f in "$@"; do
    realpath "$f" >> "$work/manifest.txt"
    size=$((size + $(stat -c %s "$f")))
    cat "$f" > /dev/null
done
is=1
read -r zs zr < <(measure bash -c 'for f in "$@"; do zcat "$f"; done' _ "$@")
if [ -n "${BASELINE:-}" ]; then
    # Interleaved, one run of each at a time, so that a machine that slows down or speeds
    # up during the benchmark weighs on both alike.
    ws_all=(); bs_all=(); wr=0; br=0
    for _ in $(seq "$runs"); do
        read -r s r < <(runs=1 measure "$bin" import -j "$jobs" "$work/manifest.txt" "$work/seg-run")
        rm -rf "$work/seg-run"; ws_all+=("$s"); (( r > wr )) && wr=$r
        read -r s r < <(runs=1 measure "$BASELINE" import -j "$jobs" "$work/manifest.txt" "$work/seg-base")
        rm -rf "$work/seg-base"; bs_all+=("$s"); (( r > br )) && br=$r
    done
    median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
    ws=$(median "${ws_all[@]}"); bs=$(median "${bs_all[@]}")
fi
read -r ws wr < <(if [ -n "${BASELINE:-}" ]; then echo "$ws $wr"; else measure "$bin" import -j "$jobs" "$work/manifest.txt" "$work/seg-run"; fi)
[ -d "$work/seg-run" ] || "$bin" import -j "$jobs" "$work/manifest.txt" "$work/seg-run" 2>/dev/null
"$bin" segment-info "$work/seg-run" | grep -E '"(documents|captures)"' | tr -d ' ,' | tr '\n' ' '; echo
printf '%-40s %9s %9s %9s %9s\n' "command ($# archives, $((size / 1000000)) MB)" seconds "MB/s gz" "x zcat" "RSS MiB"
awk -v s="$zs" -v r="$zr" -v size="$size" 'BEGIN { printf "%-40s %9.2f %9.1f %9.2f %9.1f\n", "zcat", s, size/1e6/s, 1, r/1024 }'
awk -v s="$ws" -v r="$wr" -v z="$zs" -v size="$size" -v j="$jobs" 'BEGIN { printf "%-40s %9.2f %9.1f %9.2f %9.1f\n", "warcdex import -j " j, s, size/1e6/s, z/s, r/1024 }'
if [ -n "${BASELINE:-}" ]; then
    awk -v s="$bs" -v r="$br" -v z="$zs" -v size="$size" -v j="$jobs" 'BEGIN { printf "%-40s %9.2f %9.1f %9.2f %9.1f\n", "baseline import -j " j, s, size/1e6/s, z/s, r/1024 }'
    awk -v w="$ws" -v b="$bs" 'BEGIN { printf "this build takes %.3f x the baseline'"'"'s time (medians of %s runs)\n", w/b, '"$runs"' }'
fi
