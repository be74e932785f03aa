#!/usr/bin/env bash
# Times, in one run on the same file: zcat, inflate alone (flate2 + zlib-rs, one decoder
# per gzip member), and `warcdex records --digest` (every record read, HTTP headers parsed,
# payload digest taken or computed, one JSON line written). Prints seconds, peak RSS,
# MB/s of compressed input and the ratios. Usage: scripts/bench-read.sh FILE [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:?usage: scripts/bench-read.sh FILE [RUNS]}
runs=${2:-3}
cargo build --release --quiet
bin=./target/release/warcdex
size=$(stat -c %s "$file")
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench-read.sh needs GNU time (apt-get install time)" >&2; exit 1; }
cat "$file" > /dev/null  # warm the page cache so every tool reads from memory

# median wall seconds and max RSS (KiB) of a command over $runs runs
measure() {
    local times=() rss=0 out
    for _ in $(seq "$runs"); do
        /usr/bin/time -o "$tmp" -f "%e %M" "$@" > /dev/null 2>/dev/null
        out=$(tail -1 "$tmp")
        times+=("${out% *}")
        local r=${out#* }
        (( r > rss )) && rss=$r
    done
    local med
    med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
    echo "$med $rss"
}

printf '%-34s %8s %9s %9s %9s %9s\n' tool seconds "MB/s gz" "x zcat" "x inflate" "RSS MiB"
read -r zs zr < <(measure zcat "$file")
read -r is ir < <(measure "$bin" inflate "$file")
read -r ws wr < <(measure "$bin" records --digest "$file")
row() { awk -v n="$1" -v s="$2" -v r="$3" -v size="$size" -v z="$zs" -v i="$is" \
    'BEGIN { printf "%-34s %8.2f %9.1f %9.2f %9.2f %9.1f\n", n, s, size/1e6/s, z/s, s/i, r/1024 }'; }
row "zcat" "$zs" "$zr"
row "inflate alone (flate2+zlib-rs)" "$is" "$ir"
row "warcdex records --digest" "$ws" "$wr"
echo "file: $file ($size bytes), median of $runs runs; 'x zcat' = zcat time / tool time; 'x inflate' = tool time / inflate time"
