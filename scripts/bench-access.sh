#!/usr/bin/env bash
# Access rules under load (a benchmark, not a test):
#  1. search latency with a list of RULES (100,000) SURT-prefix rules against none:
#     scripts/bench-serve.sh run ROUNDS times each way, alternated, one run of DURATION
#     each; the medians of p50 and p99 and their ratio (target: p50 within 10 %);
#  2. a takedown under load: with the same list in force and bench-serve's load running,
#     a rule excluding the first hit of a query is written beside it; the time until the
#     server stops showing the hit (target: under a second), and the failed requests of
#     the load (target: none).
#
# Usage: scripts/bench-access.sh [DIR]   DIR: a collection (pindexes/ and all.cdx), by
#        default /work/eval44b/collection-1.0 (the 1.0-scale bench, one crawl).
# Env:   RULES (100000), ROUNDS (3; 0: the takedown alone), DURATION (15s), SEED (1), BENCH_PROFILE, WARCDEX_BIN.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/work/eval44b/collection-1.0}
[ -d "$dir/pindexes" ] || { echo "bench-access: $dir/pindexes is missing" >&2; exit 2; }
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$(realpath "$WARCDEX_BIN")
else
    source scripts/built-bin.sh
    bin=$(built_bin "${BENCH_PROFILE:-release-lto}")
fi
export WARCDEX_BIN=$bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/acl" "$tmp/empty"
python3 scripts/gen_acl.py --rules "${RULES:-100000}" --seed "${SEED:-1}" --cdx "$dir/all.cdx" \
    > "$tmp/acl/list.aclj"
echo "rules: $(wc -l < "$tmp/acl/list.aclj") lines, $(du -h "$tmp/acl/list.aclj" | cut -f1)" \
    "($(grep -c '"user"' "$tmp/acl/list.aclj") for a user)"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# field FILE NAME: NAME's median from a bench-serve output.
field() { sed -n "s/^median of .* $2 \([0-9.]*\) ms.*/\1/p" "$1"; }
: > "$tmp/figures"
for round in $(seq "${ROUNDS:-3}"); do
    for mode in none rules; do
        args=""
        [ "$mode" = rules ] && args="--acl $tmp/acl/list.aclj"
        SERVE_ARGS="$args" RUNS=1 DURATION="${DURATION:-15s}" scripts/bench-serve.sh "$dir" \
            > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
        line=$(grep -m1 "^RESULT" "$tmp/out")
        echo "round $round, $mode: $line"
        echo "$mode $(field "$tmp/out" p50) $(field "$tmp/out" p99)" >> "$tmp/figures"
    done
done
median() { awk -v m="$1" -v c="$2" '$1 == m { print $c }' "$tmp/figures" | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
n50=$(median none 2); n99=$(median none 3); r50=$(median rules 2); r99=$(median rules 3)
[ "${ROUNDS:-3}" -gt 0 ] && awk -v a="$n50" -v b="$r50" -v c="$n99" -v d="$r99" 'BEGIN {
    printf "median p50: %.2f ms without rules, %.2f ms with them (%.3fx; target <= 1.10: %s)\n",
        a, b, b / a, (b / a <= 1.10 ? "met" : "missed")
    printf "median p99: %.2f ms without rules, %.2f ms with them (%.3fx)\n", c, d, d / c }'

# The takedown: written under a temporary name and renamed, as an editor or a script would.
cat > "$tmp/takedown.sh" <<EOS
set -euo pipefail
sleep 4
url=\$(curl -sf "http://127.0.0.1:\$PORT/search.json?query=vacuum&hits=1" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["hits"][0]["url"])')
key=\$("$bin" access check "$tmp/empty" "\$url" | cut -f2)
echo "\$key - {\"access\": \"exclude\"}" > "$tmp/acl/.takedown"
t0=\$(date +%s%N)
mv "$tmp/acl/.takedown" "$tmp/acl/takedown.aclj"
polls=0
while curl -sf "http://127.0.0.1:\$PORT/search.json?query=vacuum&hits=10" | grep -qF "\"\$url\""; do
    polls=\$((polls + 1)); sleep 0.01
done
t1=\$(date +%s%N)
echo "TAKEDOWN \$url hidden \$(( (t1 - t0) / 1000000 )) ms after the rule was written (\$polls polls saw it)"
EOS
SERVE_ARGS="--acl $tmp/acl" RUNS=1 DURATION="${DURATION:-15s}" DURING_RUN="bash $tmp/takedown.sh" \
    scripts/bench-serve.sh "$dir" > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
grep -m1 '^RESULT' "$tmp/out" || true
grep -E 'TAKEDOWN|errors in all|re-read' "$tmp/out" || true
ms=$(sed -n 's/.*hidden \([0-9]*\) ms.*/\1/p' "$tmp/out")
errors=$(sed -n 's/.*; \([0-9]*\) errors in all.*/\1/p' "$tmp/out")
echo "takedown under load: ${ms:-?} ms (target < 1000: $([ -n "$ms" ] && [ "$ms" -lt 1000 ] && echo met || echo missed)); failed requests: ${errors:-?} (target 0)"
