#!/usr/bin/env bash
# Times, in one run on the same file: zcat, inflate alone, `warcdex cdx` (one thread,
# unsorted and --sort), and where installed pywb `cdx-indexer`, `cdxj-indexer` and
# `fastwarc index` (put them on PATH, or set PEERS_VENV to a virtualenv holding them).
# Then ten copies of the file on all cores against one thread (the parallel speed-up).
# Usage: scripts/bench-cdx.sh FILE [RUNS]   (PEER_RUNS=n to repeat the peers too)
set -euo pipefail
cd "$(dirname "$0")/.."
file=$(realpath "${1:?usage: scripts/bench-cdx.sh FILE [RUNS]}")
runs=${2:-3}
source scripts/bench-lib.sh
source scripts/built-bin.sh
bin=$(built_bin "${BENCH_PROFILE:-release-lto}")
size=$(stat -c %s "$file")
[ -n "${PEERS_VENV:-}" ] && PATH="$(realpath "$PEERS_VENV")/bin:$PATH"
cat "$file" > /dev/null  # warm the page cache so every tool reads from memory

header
read -r zs zr < <(measure zcat "$file")
read -r is ir < <(measure "$bin" inflate "$file")
row "zcat" "$zs" "$zr"
row "inflate alone (libdeflate, zlib-rs past the buffer)" "$is" "$ir"
read -r s r < <(measure "$bin" cdx -j1 "$file"); row "warcdex cdx (1 thread)" "$s" "$r"
ws=$s
read -r s r < <(measure "$bin" cdx -j1 --sort "$file"); row "warcdex cdx --sort (1 thread)" "$s" "$r"
read -r s r < <(measure "$bin" cdx -j1 --format cdxj "$file"); row "warcdex cdx --format cdxj" "$s" "$r"
# The peers run in the file's folder so their filename column is the base name, as ours.
dir=$(dirname "$file"); base=$(basename "$file")
ours_runs=$runs
runs=${PEER_RUNS:-1}  # the peers are slow; one run each unless PEER_RUNS says otherwise
if command -v cdx-indexer >/dev/null; then
    read -r s r < <(cd "$dir" && measure cdx-indexer -o - "$base"); row "pywb cdx-indexer" "$s" "$r"
    pywb=$s
fi
if command -v cdxj-indexer >/dev/null; then
    read -r s r < <(cd "$dir" && measure cdxj-indexer "$base"); row "cdxj-indexer" "$s" "$r"
fi
if command -v fastwarc >/dev/null; then
    read -r s r < <(cd "$dir" && measure fastwarc index "$base"); row "fastwarc index" "$s" "$r"
fi
# FastWARC's bare record loop (no HTTP parse, no output): the bar for one thread,
# so it is timed as often as ours (the median of RUNS), not once as the other peers.
runs=$ours_runs
fw_python=${FASTWARC_PYTHON:-}
if [ -z "$fw_python" ] && [ -n "${PEERS_VENV:-}" ] && [ -x "$PEERS_VENV/bin/python" ]; then fw_python=$PEERS_VENV/bin/python; fi
if [ -z "$fw_python" ] && [ -x target/formats-venv/bin/python ]; then fw_python=target/formats-venv/bin/python; fi
if [ -n "$fw_python" ] && "$fw_python" -c "import fastwarc" 2> /dev/null; then
    read -r s r < <(measure "$fw_python" -c 'import sys
from fastwarc.warc import ArchiveIterator
n = 0
for _ in ArchiveIterator(open(sys.argv[1], "rb"), parse_http=False):
    n += 1' "$file"); row "FastWARC bare iteration" "$s" "$r"
    fastwarc_bare=$s
fi
# One file on every core: the target is >= 1.9x the one-thread speed on 2 threads.
read -r s r < <(measure "$bin" cdx -j"$(nproc)" "$file"); row "warcdex cdx (one file, -j$(nproc))" "$s" "$r"
one_file_all=$s
echo "file: $file ($size bytes), median of $runs runs (FastWARC's bare loop too; other peers: ${PEER_RUNS:-1}); 'x zcat' = zcat time / tool time; 'x inflate' = tool time / inflate time"
[ -n "${fastwarc_bare:-}" ] && awk -v f="$fastwarc_bare" -v w="$ws" 'BEGIN {
    printf "warcdex cdx (1 thread) is %.2fx FastWARC'"'"'s bare iteration (issue 22 target: >= 1.30x): %s\n", f/w, (f/w >= 1.3 ? "met" : "missed") }'
awk -v a="$ws" -v b="$one_file_all" -v c="$(nproc)" 'BEGIN {
    printf "one file on %d threads is %.2fx one thread (issue 22 target: >= 1.90x on 2): %s\n", c, a/b, (a/b >= 1.9 ? "met" : "missed") }'
[ -n "${pywb:-}" ] && awk -v p="$pywb" -v w="$ws" 'BEGIN { printf "warcdex cdx is %.1fx faster than pywb cdx-indexer\n", p/w }'

# Parallel: ten files (links to the same one, so all reads come from the page cache).
links=$(mktemp -d)
trap 'rm -rf "$links" "$bench_tmp"' EXIT
for i in $(seq 0 9); do ln -s "$file" "$links/copy$i-$base"; done
cores=$(nproc)
runs=1
read -r s1 _ < <(measure "$bin" cdx -j1 "$links"/*)
read -r sn rn < <(measure "$bin" cdx -j"$cores" "$links"/*)
awk -v a="$s1" -v b="$sn" -v c="$cores" -v size="$size" -v r="$rn" 'BEGIN {
    printf "ten files: 1 thread %.2f s (%.1f MB/s), %d threads %.2f s (%.1f MB/s, RSS %.1f MiB): speed-up %.2fx\n",
        a, 10*size/1e6/a, c, b, 10*size/1e6/b, r/1024, a/b }'
