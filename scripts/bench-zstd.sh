#!/usr/bin/env bash
# `warcdex cdx` on a WARC re-compressed as WARC-zstd (one frame per record, by
# scripts/make_zstd_warc.py; without and with a dictionary) against the gzip file it
# came from, zcat and zstdcat, in one run on the same records.
# Usage: scripts/bench-zstd.sh FILE.warc.gz [RUNS]
# MB/s are of each tool's own input (the gzip or the zstd file); 'x zcat' and
# 'x zstdcat' are the decompressor's time over the tool's.
set -euo pipefail
cd "$(dirname "$0")/.."
gz=$(realpath "${1:?usage: scripts/bench-zstd.sh FILE.warc.gz [RUNS]}")
runs=${2:-3}
source scripts/bench-lib.sh
python=$(scripts/formats-venv.sh)
source scripts/built-bin.sh
bin=$(built_bin "${BENCH_PROFILE:-release-lto}")
work=$(mktemp -d "${TMPDIR:-/tmp}/warcdex-bench-zstd-XXXX")
trap 'rm -rf "$work" "$bench_tmp"' EXIT
name=$(basename "$gz" .gz)
"$python" scripts/make_zstd_warc.py "$work/plain" "$gz" 2> /dev/null
"$python" scripts/make_zstd_warc.py "$work/dict" --dictionary raw "$gz" 2> /dev/null
zst=$work/plain/$name.zst
zdict=$work/dict/$name.zst
gz_size=$(stat -c %s "$gz"); zst_size=$(stat -c %s "$zst"); zdict_size=$(stat -c %s "$zdict")
cat "$gz" "$zst" "$zdict" > /dev/null  # from the page cache, as every tool reads

# The records are the same: the CDX of each copy equals the gzip file's but for length,
# offset and file name.
strip() { "$bin" cdx "$1" 2> /dev/null | cut -d' ' -f1-8; }
cmp -s <(strip "$gz") <(strip "$zst") || { echo "bench-zstd.sh: the zstd copy indexes differently" >&2; exit 1; }
cmp -s <(strip "$gz") <(strip "$zdict") || { echo "bench-zstd.sh: the dictionary copy indexes differently" >&2; exit 1; }

read -r zs zr < <(measure zcat "$gz")
read -r ts tr < <(measure zstdcat "$zst")
read -r gs gr < <(measure "$bin" cdx -j1 "$gz")
read -r ps pr < <(measure "$bin" cdx -j1 "$zst")
read -r ds dr < <(measure "$bin" cdx -j1 "$zdict")
printf '%-40s %10s %8s %8s %8s %9s %8s\n' tool "input MB" seconds "MB/s" "x zcat" "x zstdcat" "RSS MiB"
line() { awk -v n="$1" -v b="$2" -v s="$3" -v r="$4" -v z="$zs" -v t="$ts" \
    'BEGIN { printf "%-40s %10.1f %8.2f %8.1f %8.2f %9.2f %8.1f\n", n, b/1e6, s, b/1e6/s, z/s, t/s, r/1024 }'; }
line "zcat (gzip)" "$gz_size" "$zs" "$zr"
line "zstdcat (zstd, no dictionary)" "$zst_size" "$ts" "$tr"
line "warcdex cdx, gzip" "$gz_size" "$gs" "$gr"
line "warcdex cdx, zstd" "$zst_size" "$ps" "$pr"
line "warcdex cdx, zstd with a dictionary" "$zdict_size" "$ds" "$dr"
awk -v g="$gz_size" -v z="$zst_size" -v d="$zdict_size" -v gs="$gs" -v ps="$ps" -v ds="$ds" 'BEGIN {
    printf "zstd is %.1f%% smaller than gzip (%.1f%% with a dictionary); cdx on it takes %.2fx the gzip time (%.2fx with the dictionary)\n",
        100*(1-z/g), 100*(1-d/g), ps/gs, ds/gs }'
echo "file: $gz, median of $runs runs; one thread for warcdex"
