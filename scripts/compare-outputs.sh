#!/usr/bin/env bash
# Checks that two warcdex binaries write the same bytes (not a test: the "every output byte
# unchanged" of a renovation, run before and after it). Compares, old against new:
#   - `cdx` in every format (cdx11, cdx9, cdxj; SURT and URL keys, sorted, -a) and `records`
#     of every archive under CORPUS (default ../shared/corpus);
#   - the bundled example's whole workflow (scripts/example.sh): its printed output, every
#     list, `dumpindex` of main and dates, the segment's rows, the collection's dumps;
#   - a collection built by `update` of the archives under BENCH (default
#     /work/bench-data/small, made by ../shared/bench/make_bench.py: full/ then arc/), then
#     `--compact`: all.cdx, all.dup, dumpindex of every set, every segment's rows, the
#     ZipNum cluster, `near-dups`, and the search answers (scripts/compare-serve.sh).
# Prints each difference and ends with a count; exits 1 if anything differs.
#
# Usage: scripts/compare-outputs.sh OLD_BIN NEW_BIN [CORPUS] [BENCH]
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "${1:?usage: scripts/compare-outputs.sh OLD_BIN NEW_BIN [CORPUS] [BENCH]}")
new=$(realpath "${2:?usage: scripts/compare-outputs.sh OLD_BIN NEW_BIN [CORPUS] [BENCH]}")
corpus=${3:-../shared/corpus}
bench=${4:-/work/bench-data/small}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'echo "compare-outputs.sh: line $LINENO failed" >&2' ERR
compared=0 differ=0

# same NAME FILE_A FILE_B: counts a comparison, prints a difference.
same() {
    compared=$((compared + 1))
    if ! cmp -s "$2" "$3"; then
        differ=$((differ + 1))
        echo "DIFFERS: $1"
        diff <(head -c 2000 "$2") <(head -c 2000 "$3") | head -10 || true
    fi
}

# both NAME CMD...: runs CMD with $bin as each binary (stdout and exit status compared;
# stderr too, with the binary's path removed).
both() {
    local name=$1
    shift
    for side in old new; do
        local bin=${!side}
        (bin=$bin; eval "$*") > "$work/$side.out" 2> "$work/$side.err" && echo 0 >> "$work/$side.out" \
            || echo "exit $?" >> "$work/$side.out"
        sed -i "s|$bin|BIN|g; s|$work/[a-z]*|WORK|g" "$work/$side.err"
    done
    same "$name (stdout)" "$work/old.out" "$work/new.out"
    same "$name (stderr)" "$work/old.err" "$work/new.err"
}

echo "== corpus: cdx in every format and records ($corpus)"
n=0
while IFS= read -r -d '' f; do
    n=$((n + 1))
    q=$(printf %q "$f")
    for fmt in "--format cdx11" "--format cdx9" "--format cdxj" "--format cdx11 --key url" "--format cdxj -a -s" "-p"; do
        both "cdx $fmt $f" "\$bin cdx $fmt $q"
    done
    both "records $f" "\$bin records $q"
done < <(find "$corpus" -type f \( -name '*.arc' -o -name '*.arc.gz' -o -name '*.warc' -o -name '*.warc.gz' \
    -o -name '*.warc.zst' -o -name '*.wacz' \) -print0 | sort -z)
echo "   $n archives"

echo "== the bundled example (scripts/example.sh)"
for side in old new; do
    WARCDEX_BIN=${!side} scripts/example.sh "$work/ex-$side" > "$work/ex-$side.log" 2>&1
    # The stages' lines say how long each took: a time, not an output.
    sed -i -E "s|${!side}|BIN|g; s|$work/ex-$side|WORK|g; s/ done in [0-9.]+ s/ done in N s/" "$work/ex-$side.log"
    d="$work/ex-$side"
    b=${!side}
    "$b" dumpindex "$d/pindexes/example/main" "$d/pindexes/example/dates" > "$d/dump.txt"
    "$b" dumpindex "$d/pindexes/example/main" > "$d/dump-main.txt"
    "$b" dumpindex "$d/pindexes/example/dates" > "$d/dump-dates.txt"
    "$b" segment-info --rows "$d/segments/example" > "$d/rows.jsonl"
    for s in "$d"/collection/pindexes/*/; do
        "$b" dumpindex "$s/main" "$s/dates" > "$d/coll-$(basename "$s").txt"
    done
done
same "example.sh output" "$work/ex-old.log" "$work/ex-new.log"
for f in all.cdx all.dup all.rev dump.txt dump-main.txt dump-dates.txt rows.jsonl dates.txt titles.txt urls.txt \
    collection/all.cdx collection/all.dup; do
    same "example $f" "$work/ex-old/$f" "$work/ex-new/$f"
done
for f in "$work"/ex-old/coll-*.txt; do
    same "example $(basename "$f")" "$f" "$work/ex-new/$(basename "$f")"
done

echo "== a bench collection ($bench), two batches then --compact"
# The revisit variant's files have the full variant's names, which one collection refuses.
mapfile -t first < <(find "$bench/full" -type f | sort)
mapfile -t second < <(find "$bench/arc" -type f | sort)
for side in old new; do
    b=${!side}
    c="$work/bench-$side"
    "$b" update "$c" --collection-name bench --zipnum "${first[@]}" > /dev/null 2>&1
    "$b" update "$c" --collection-name bench --zipnum "${second[@]}" > /dev/null 2>&1
    for s in "$c"/pindexes/*/; do
        "$b" dumpindex "$s/main" "$s/dates" > "$c/dump-$(basename "$s").txt"
    done
    for s in "$c"/segments/*/; do
        "$b" segment-info --rows "$s" > "$c/rows-$(basename "$s").jsonl"
    done
    "$b" near-dups "$c" > "$c/near-dups.txt" 2>/dev/null
    cp -r "$c" "$c-batches"
    "$b" update --compact "$c" > /dev/null 2>&1
    "$b" dumpindex "$c/pindexes/compacted/main" "$c/pindexes/compacted/dates" > "$c/dump-compacted.txt"
done
for f in all.cdx all.dup near-dups.txt dump-compacted.txt; do
    same "bench $f" "$work/bench-old/$f" "$work/bench-new/$f"
done
for f in "$work"/bench-old/dump-*.txt "$work"/bench-old/rows-*.jsonl; do
    same "bench $(basename "$f")" "$f" "$work/bench-new/$(basename "$f")"
done
for f in $(cd "$work/bench-old" && find . -path '*zipnum*' -type f | sort); do
    same "bench zipnum $f" "$work/bench-old/$f" "$work/bench-new/$f"
done

echo "== search answers (scripts/compare-serve.sh) over the bench collection's batches"
if scripts/compare-serve.sh "$old" "$new" "$work/bench-old-batches" > "$work/serve.txt" 2>&1; then
    compared=$((compared + 1))
    tail -1 "$work/serve.txt"
else
    compared=$((compared + 1)) differ=$((differ + 1))
    echo "DIFFERS: search answers"
    tail -20 "$work/serve.txt"
fi

echo "compared $compared outputs: $differ differ"
[ "$differ" -eq 0 ]
