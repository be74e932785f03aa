#!/usr/bin/env bash
# Runs every cargo-fuzz target of fuzz/ (or those named) for SECONDS each (default 60),
# one after the other, seeded from fixtures/ (archives, CDX files, HTML pages cut out of
# the example archives, queries and requests written here); the corpus grows in
# fuzz/corpus/<target> across runs. Prints executions and crashes per target. Each crash
# (or timeout, or out-of-memory) input is copied to fixtures/fuzz/<target>/, where
# `cargo test --test integration fuzz_replay` replays it.
#
# libFuzzer runs in fork mode with crashes, timeouts and OOMs ignored, so a run goes on
# after the first crash and finds the next. cargo fuzz needs nightly flags: with only a
# stable toolchain, RUSTC_BOOTSTRAP=1 allows them.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   FUZZ_SANITIZER  address or none (default none: the code is safe Rust, and without
#                   ASan twice as many inputs run per second)
#   FUZZ_TIMEOUT    seconds one input may take before it is a hang (default 20)
#   Targets run one after the other; to fuzz two at once, start two runs with one target each.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(reader import cdx_line html query http)
sanitizer=${FUZZ_SANITIZER:-none}
export RUSTC_BOOTSTRAP=1
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# -O: release; -a: debug assertions (and overflow checks) on, as in the tests.
flags=(-O -a --sanitizer "$sanitizer")
for t in "${targets[@]}"; do (cd fuzz && cargo fuzz build "${flags[@]}" "$t"); done

# Seeds are made afresh in a directory of this run (two runs may fuzz different targets at once).
mkdir -p fuzz/corpus fuzz/logs
seeds=$(mktemp -d "$root/fuzz/seeds.XXXXXX")
trap 'rm -rf "$seeds"' EXIT
mkdir -p "$seeds"/{reader,import,cdx_line,html,query,http}

# Archives: every ARC/WARC fixture.
find fixtures -type f \( -name '*.warc' -o -name '*.warc.gz' -o -name '*.arc' -o -name '*.arc.gz' \) \
    -size -64k -exec cp --backup=numbered -t "$seeds/reader" {} +
cp "$seeds"/reader/* "$seeds/import/"
# CDX and CDXJ lines, dedup and revisit lists.
find fixtures -type f \( -name '*.cdx' -o -name '*.cdxj' -o -name '*.cdx9' -o -name '*.cdx11' \
    -o -name '*.dup' -o -name '*.rev' \) -exec cp --backup=numbered -t "$seeds/cdx_line" {} +
# HTML pages cut out of the archives, behind the header `html` reads (src/testing.rs).
python3 - "$seeds/html" fixtures/example/*.arc fixtures/example/*.warc fixtures/warc/*.warc.gz \
    fixtures/arc/*.arc.gz <<'PY'
import gzip, re, sys, os
out, paths = sys.argv[1], sys.argv[2:]
heads = [b"\x05\x18text/html; charset=utf-8\x13http://example.org/",
         b"\x0d\x00\x13http://example.org/", b"\x04\x0atext/plain\x00"]
n = 0
for p in paths:
    data = open(p, "rb").read()
    if p.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except Exception:
            continue
    for m in re.finditer(rb"(?is)<(!doctype|html).*?(</html>|$)", data):
        page = m.group(0)[:16384]
        with open(os.path.join(out, f"page{n}"), "wb") as f:
            f.write(heads[n % len(heads)] + page)
        n += 1
PY
# Queries (README, docs/formats.md §4.7) and requests (first line: path, or route byte + query).
i=0
for q in 'lighthouse date:2007' 'example "news page" site:WWW.Example.org -type:image/png' \
    'date:20071001-20071003 about' 'title:example' 'http://www.example.org/about.html' \
    'site:example.org' '-site:x lisbon' 'date:2007x' '"unclosed' 'collection:example news'; do
    printf '%s' "$q" > "$seeds/query/q$i"
    printf '\x02query=%s&hitsPerPage=3' "${q// /+}" > "$seeds/http/q$i"
    i=$((i + 1))
done
printf '/?query=example&start=1&hitsPerSite=0' > "$seeds/http/page"
printf '\x01q=lisbon&hitsPerDup=1\nAccept: text/html\nHost: example.org' > "$seeds/http/rss"
printf '/healthz' > "$seeds/http/healthz"
printf '/search.json?query=example+date%%3A2007&hitsPerPage=1000000' > "$seeds/http/big"

declare -A maxlen=([reader]=65536 [import]=65536 [cdx_line]=4096 [html]=65536 [query]=2048 [http]=2048)
summary=()
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t" "fixtures/fuzz/$t"
    before=$(find "fuzz/artifacts/$t" -type f | sort)
    log=$root/fuzz/logs/$t.log
    dict=()
    [ -f "fuzz/dicts/$t.dict" ] && dict=("-dict=$root/fuzz/dicts/$t.dict")
    echo "== $t: ${seconds}s (log $log)" >&2
    (cd fuzz && cargo fuzz run "${flags[@]}" "$t" "corpus/$t" "$seeds/$t" -- \
        -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-20}" -rss_limit_mb=2048 \
        -max_len="${maxlen[$t]}" "${dict[@]}" >"$log" 2>&1) || true
    # Fork mode logs `#EXECS: cov: ... oom/timeout/crash: O/T/C ...` per finished job.
    last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1 || true)
    execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
    otc=$(grep -oE 'oom/timeout/crash: [0-9]+/[0-9]+/[0-9]+' <<<"$last" | cut -d' ' -f2)
    new=$(comm -13 <(echo "$before") <(find "fuzz/artifacts/$t" -type f | sort) | grep . || true)
    for f in $new; do cp "$f" "fixtures/fuzz/$t/"; done
    summary+=("$(printf '%-9s %8ss %12s execs  oom/timeout/crash %-9s new inputs kept %s' \
        "$t" "$seconds" "${execs:-?}" "${otc:-0/0/0}" "$(grep -c . <<<"$new" || true)")")
done
echo
printf '%s\n' "${summary[@]}"
new_total=$(git status --porcelain fixtures/fuzz | grep -c . || true)
[ "$new_total" -eq 0 ] || echo "new reproducers under fixtures/fuzz/ (commit them): $new_total"
