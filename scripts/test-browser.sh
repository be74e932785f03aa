#!/usr/bin/env bash
# Browser test of `warcdex serve`: builds the worked example's index (cdx → dedup-cdx →
# import -e → index → add-dates), serves it on a loopback port, loads the search page in
# headless Chromium, submits queries the way the form does (a GET form: the submission
# is the URL), checks the rendered DOM, and saves a screenshot to target/search.png.
#
# Installs Debian's chromium when it is missing (as root); set WARCDEX_SKIP_BROWSER=1 to
# skip on a machine where that is not possible.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/chromium-lib.sh
need_chromium test-browser

# The dev-profile binary (optimized dependencies), which `cargo test` has built and the
# other peer tests use: a release build would compile every dependency a second time.
source scripts/built-bin.sh
bin=$(built_bin dev)
mkdir -p target
source scripts/serve-lib.sh

# The worked example, as in docs/formats.md §5: paths in the manifest are made absolute.
fx=$(realpath fixtures/example)
grep -v '^#' "$fx/manifest.txt" | while read -r f coll; do echo "$fx/$f $coll"; done > "$work/manifest.txt"
(cd "$fx" && "$bin" cdx crawl*) > "$work/all.cdx" 2>/dev/null
"$bin" dedup-cdx "$work/all.cdx" > "$work/all.dup" 2>/dev/null
"$bin" import -e "$work/all.dup" "$work/manifest.txt" "$work/seg" >/dev/null 2>&1
"$bin" index --out "$work/crawl/pindexes/col1/main" "$work/seg" >/dev/null 2>&1
main="$work/crawl/pindexes/col1/main"
"$bin" add-dates "$main" "$main" "$work/crawl/pindexes/col1/dates" "$work/all.dup" 2>/dev/null

start_server test-browser 100 "$bin" -d "$work/crawl" --replay-prefix http://wayback.test/web
base="http://127.0.0.1:$port"

# /healthz over bash's /dev/tcp (no curl on a fresh machine).
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
health=$(cat <&3)
exec 3<&-
grep -q '"status": "ok"' <<<"$health" || { echo "test-browser: /healthz: $health" >&2; exit 1; }

# Chromium, headless, with every background connection off (this network is closed;
# without these flags it waits on them) and a fresh profile per run.
chrome() {
    local profile
    profile=$(mktemp -d "$work/profile.XXXX")
    timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-dev-shm-usage --user-data-dir="$profile" "$@" 2>>"$work/chromium.log"
}

fail=0
expect() { # expect NAME DOM PATTERN...: each pattern (grep -E) must occur in DOM
    local name=$1 dom=$2; shift 2
    for p in "$@"; do
        if ! grep -Eq -- "$p" <<<"$dom"; then
            echo "test-browser: $name: missing /$p/" >&2
            fail=1
        fi
    done
}

dom=$(chrome --dump-dom "$base/")
expect "search form" "$dom" '<form action="/" method="get"' 'name="query"' 'type="submit"'

# Submitting the form with "lisbon" loads /?query=lisbon.
dom=$(chrome --dump-dom "$base/?query=lisbon")
expect "query lisbon" "$dom" 'News D' 'News E' '<b>Lisbon</b>' \
    'hits <b>1–2</b> of <b>2</b>' 'http://www.example.org/news.html'

# date: finds index(A) by its third capture; every date is a replay link.
dom=$(chrome --dump-dom "$base/?query=welcome+date%3A20071004")
expect "query date:20071004" "$dom" 'Example A' \
    'href="http://wayback.test/web/20071001120000/http://www.example.org/index.html"' \
    'href="http://wayback.test/web/20071004120000/http://www.example.org/index.html"' \
    'href="http://wayback.test/web/20071005120000/http://www.example.org/index.html"' \
    '>2007-10-02 12:00:00<' '4 captures'
if grep -q 'Example B' <<<"$dom"; then echo "test-browser: date:20071004 found Example B" >&2; fail=1; fi

# All five matches are on example.org: no per-site limit; the facets
# (links that narrow the query) and the timelines (inline SVG) render.
dom=$(chrome --dump-dom "$base/?query=organisation")
n=$(grep -o '<li class="hit">' <<<"$dom" | wc -l)
[ "$n" = 5 ] || { echo "test-browser: organisation: $n hits, want 5 (one site: no limit)" >&2; fail=1; }
expect "facets and timelines" "$dom" 'hits <b>1–5</b> of <b>5</b>' \
    '<section class="facets"' 'data-facet="site"' 'data-facet="date"' 'data-facet="type"' \
    'data-facet="lang"' 'hitsPerSite=2">example.org</a> <span class="n">5</span>' \
    '>2007</a> <span class="n">5</span>' '>en</a>' \
    '<svg class="timeline"' '<rect ' '<title>2007-10: [0-9]+ captures</title>' \
    '<svg class="captures"'
if grep -q 'more from example.org' <<<"$dom"; then echo "test-browser: organisation: per-site limit applied to one site" >&2; fail=1; fi

dom=$(chrome --dump-dom "$base/?query=%22unclosed")
expect "bad query" "$dom" 'class="error"' 'phrase is not closed'

mkdir -p target
rm -f target/search.png
chrome --screenshot="$(pwd)/target/search.png" --window-size=1200,900 \
    "$base/?query=organisation" >/dev/null
[ -s target/search.png ] || { echo "test-browser: no screenshot" >&2; fail=1; }

if [ "$fail" != 0 ]; then
    echo "--- server log" >&2; cat "$work/serve.log" >&2
    echo "--- chromium log (tail)" >&2; tail -20 "$work/chromium.log" >&2
    exit 1
fi
echo "test-browser: ok (screenshot target/search.png)" >&2
