#!/usr/bin/env bash
# Times, in one run on the same file: zcat, inflate alone (flate2 + zlib-rs, one decoder
# per gzip member), and `warcdex records --digest` (every record read, HTTP headers parsed,
# payload digest taken or computed, one JSON line written). Prints seconds, peak RSS,
# MB/s of compressed input and the ratios. Usage: scripts/bench-read.sh FILE [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:?usage: scripts/bench-read.sh FILE [RUNS]}
runs=${2:-3}
source scripts/bench-lib.sh
source scripts/built-bin.sh
bin=$(built_bin "${BENCH_PROFILE:-release-lto}")
size=$(stat -c %s "$file")
cat "$file" > /dev/null  # warm the page cache so every tool reads from memory

header
read -r zs zr < <(measure zcat "$file")
read -r is ir < <(measure "$bin" inflate "$file")
read -r ws wr < <(measure "$bin" records --digest "$file")
row "zcat" "$zs" "$zr"
row "inflate alone (flate2+zlib-rs)" "$is" "$ir"
row "warcdex records --digest" "$ws" "$wr"
echo "file: $file ($size bytes), median of $runs runs; 'x zcat' = zcat time / tool time; 'x inflate' = tool time / inflate time"
