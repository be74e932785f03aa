#!/usr/bin/env bash
# The whole NutchWAX workflow (docs/nutchwax-dedup.txt, "Recap") on the bundled example
# collection fixtures/example/ (five crawls of a small site: three ARCs, a gzipped WARC,
# a WARC of revisit records; made by scripts/make_example.py, see fixtures/SOURCES.md):
#
#   cdx → sort-cdx → dedup-cdx + revisits → import -e → index → add-dates → search
#
# then keeps the same archives as a collection with `warcdex update` (two batches, and
# `--compact`, whose dump must equal the step-by-step build's).
#
# Usage: scripts/example.sh [WORKDIR]   (default target/example; it is replaced)
# Needs only cargo: it builds warcdex first, in the dev profile that `scripts/test.sh`
# builds too (dependencies optimized; the example is small, and a release build would
# compile every dependency again); WARCDEX_BIN=path uses that binary instead (the
# integration test passes its own).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-target/example}
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$WARCDEX_BIN
else
    source scripts/built-bin.sh
    bin=$(built_bin dev)
fi
ex=fixtures/example
rm -rf "$work"
mkdir -p "$work/cdx"

step() { printf '\n== %s\n' "$*"; }
count() { grep -vc '^ CDX' "$1" || true; }

step "1. cdx: one CDX file per archive (pywb-compatible, SURT keys)"
for f in "$ex"/crawl*.arc "$ex"/crawl*.warc*; do
    "$bin" cdx "$f" -o "$work/cdx/$(basename "$f").cdx" 2>/dev/null
    printf '   %-28s %s captures\n' "$(basename "$f")" "$(count "$work/cdx/$(basename "$f").cdx")"
done

step "2. sort-cdx: one sorted CDX for the collection"
"$bin" sort-cdx "$work"/cdx/*.cdx -o "$work/all.cdx" 2>/dev/null
echo "   all.cdx: $(count "$work/all.cdx") captures"

step "3. dedup-cdx and revisits: the exclusion list and the revisit dates"
"$bin" dedup-cdx "$work/all.cdx" -o "$work/all.dup" 2>/dev/null
"$bin" revisits "$work/all.cdx" -o "$work/all.rev" 2>/dev/null
echo "   all.dup: $(wc -l < "$work/all.dup") captures repeat an earlier one (URL + digest)"
echo "   all.rev: $(wc -l < "$work/all.rev") revisit records"
sed 's/^/     /' "$work/all.dup"

step "4. import -e all.dup: parse each new version into a segment"
"$bin" import -e "$work/all.dup" "$ex/manifest.txt" "$work/segments/example" \
    >/dev/null 2>"$work/import.log"
sed -n 's/.*"documents": *\([0-9]*\).*/   segment: \1 versions (URL + digest)/p' \
    < <("$bin" segment-info "$work/segments/example") | head -1

step "5. index: the main full-text index (anchors, link scores)"
"$bin" index --out "$work/pindexes/example/main" "$work/segments/example" 2>/dev/null >/dev/null
echo "   main: $("$bin" dumpindex -c "$work/pindexes/example/main") documents"

step "6. add-dates main main dates all.dup, then the revisits incrementally"
( cd "$work/pindexes/example" && "$bin" add-dates main main dates ../../all.dup 2>&1 | sed 's/^/   /' )
( cd "$work/pindexes/example" && "$bin" add-dates --in-place main dates dates ../../all.rev 2>&1 | sed 's/^/   /' )
echo "   dumpindex dates main (date, title, url):"
"$bin" dumpindex -f date "$work/pindexes/example/dates" > "$work/dates.txt"
"$bin" dumpindex -f title "$work/pindexes/example/main" > "$work/titles.txt"
"$bin" dumpindex -f url "$work/pindexes/example/main" > "$work/urls.txt"
paste "$work/dates.txt" "$work/titles.txt" "$work/urls.txt" | sed 's/^/     /'

step "7. search: each hit once, with every capture date of its version"
for q in "examples" "example date:20071004" "news" "site:example.org lisbon" "organisation"; do
    echo "-- warcdex search -d $work --hits-per-site 0 '$q'"
    "$bin" search -d "$work" --hits-per-site 0 "$q"
done

step "8. update: the same collection kept by one command, in two batches"
col="$work/collection"
echo "-- warcdex update $col crawl1 crawl2 crawl3   (batch 1: three crawls)"
"$bin" update "$col" --collection-name example "$ex"/crawl1-*.arc "$ex"/crawl2-*.arc "$ex"/crawl3-*.arc 2>&1 | sed 's/^/   /'
echo "-- warcdex update $col crawl4 crawl5   (batch 2: a crawl that repeats versions, one of revisits)"
"$bin" update "$col" --collection-name example "$ex"/crawl4-*.warc.gz "$ex"/crawl5-*.warc 2>&1 | sed 's/^/   /'
echo "-- the same command again adds nothing"
"$bin" update "$col" --collection-name example "$ex"/crawl4-*.warc.gz "$ex"/crawl5-*.warc 2>&1 | sed 's/^/   /'
echo "-- warcdex search -d $col --hits-per-site 0 'example date:20071004'"
"$bin" search -d "$col" --hits-per-site 0 "example date:20071004"
echo "-- warcdex update --compact $col   (one set, link analysis over the whole collection)"
"$bin" update --compact "$col" 2>&1 | sed 's/^/   /'
if cmp -s <("$bin" dumpindex "$col/pindexes/compacted/main" "$col/pindexes/compacted/dates") \
          <("$bin" dumpindex "$work/pindexes/example/main" "$work/pindexes/example/dates"); then
    echo "   dumpindex of the compacted collection = dumpindex of steps 1-6: identical"
else
    echo "   dumpindex of the compacted collection differs from steps 1-6" >&2
    exit 1
fi

printf '\nTo browse it: %s serve -d %s   (then open http://127.0.0.1:8080/)\n' \
    "$bin" "$work"
