#!/usr/bin/env bash
# Replay fidelity (an evaluation, not a test): how faithfully a replay shows archived pages,
# measured as Browsertrix QA does, by screenshot and by text, against the original pages.
#
# The corpus is the bench generator's (../shared/bench/make_bench.py: real Debian
# documentation crawled as six public sites) with one crawl at scale S, made once into
# target/eval-replay/bench-S/ and reused. `warcdex update` builds a collection of it,
# `warcdex serve` serves it. From the collection's all.cdx, the text/html 200 captures are
# grouped by site and PER_SITE of each site are picked with random.Random(SEED) (a pure
# function of seed and corpus: a tuning set and a held-out set are two seeds). Each page is
# opened in headless Chromium (1280x1800, cache off, a fresh profile per mode, nothing but
# loopback resolves) in each mode, a mode being a replay URL template:
#
#   oa  the ORIGINAL page: the Debian files the corpus was made from, served over HTTPS on
#       the crawled host names (mapped to loopback for that browser only) by a small
#       server in scripts/eval_replay.py that answers only the URLs the crawl captured,
#       with the recorded Content-Type: what a perfect replay of this archive shows
#   s   warcdex's default replay: the page's own scripts run, rewritten in the browser by
#       wabac.js's service worker on warcdex's replay origin (docs/replay.md); the replay
#       origin's frame page, which holds the page in a frame filling the window (the text is
#       read inside it)                     {replay}/web/{ts}/{url}   (--wabac given for it)
#   w   warcdex's server-side rewriting view (`--replay safe`)   {warcdex}/web/{ts}mp_/{url}
#   p   pywb 2.10 (`wayback` from target/replay-venv) reading warcdex's /cdx and /warcs
#       through `warcdex pywb-config`          {pywb}/{ts}mp_/{url}
#
# After navigating, a page is left to settle: its load event, then no request in flight
# for 500 ms (at most 15 s after load) and the main frame's URL unchanged (so a replay that
# registers a service worker and reloads itself is measured after the reload). Measured per
# page and mode, against oa: screenshot pixels exactly equal (and within a tolerance),
# "looks the same" at >= 99.9 % equal, SSIM (grayscale, Gaussian 11/1.5), body text words
# ("same text": equal word lists; a difflib similarity), failed requests by cause (HTTP
# >= 400, network error, blocked by CSP/CORS/the client), replay failures (URLs the original
# served that the replay failed to: a URL the crawl missed fails in both and is not one),
# requests that left loopback (URL,
# type, initiator), JS errors and those oa's page does not have ("caused by the replay"),
# load time (navigation start to the last main-frame load event).
#
# Output in OUT (default target/eval-replay/run-SEED): pages.jsonl (one line per page and
# mode, everything measured), shots/ (oa's, the mode's and a diff image for every page that
# does not look the same), summary.md (also printed). Progress on stderr.
#
# --escape: instead, a collection of fixtures/replay/escape.warc.gz (written by
# scripts/make_escape_fixture.py when missing), whose pages try every way out of the archive
# (fetch, XHR, WebSocket, EventSource, beacons, dynamic elements, popups, forms, refresh,
# location, CSS, pings, prefetch, workers), is opened in each selected mode but oa (default
# w,p), 5 s after load; every request that left loopback is listed (OUT default
# target/eval-replay/escape: escape.md, escape.jsonl).
#
# Usage: scripts/eval-replay.sh [--scale S] [--seed N] [--per-site N] [--modes LIST]
#            [--mode NAME=TEMPLATE]... [--serve-arg ARG]... [--out DIR] [--page-timeout SECS]
#            [--tolerance N] [--escape]
#   --scale S             bench corpus scale (default 0.2: every site has its 10 pages, 60 in
#                         all; at 0.05 the bookworm doc packages give the Rust and Django roots
#                         only 3 and 6 HTML pages, 49 in all)
#   --seed N              page sample (default 1)
#   --per-site N          pages per site (default 10; 0: all)
#   --modes LIST          modes to run, comma-separated (default oa,s,w,p; --escape: s,w,p)
#   --mode NAME=TEMPLATE  add or redefine a mode; TEMPLATE has {ts} (14-digit capture date)
#                         and {url} (original URL), substituted as they are, and may use
#                         {warcdex} (http://127.0.0.1:PORT of warcdex serve) and {pywb}
#                         (pywb's collection, http://127.0.0.1:PORT/bench) or {replay} (the
#                         replay origin warcdex serve names on stderr, given --wabac); e.g.
#                         --mode wid='{warcdex}/web/{ts}id_/{url}' --modes oa,w,wid, or
#                         --mode smp='{replay}/web/{ts}mp_/{url}' --modes oa,s,smp (the
#                         replay origin's mp_ opened as the top page; --wabac is given to
#                         warcdex serve whenever a mode uses {replay})
#                         (oa is built in, not a template)
#   --serve-arg ARG       an argument added to `warcdex serve` (repeat for several)
#   --page-timeout SECS   per page and mode (default 60); a page that fails is recorded
#   --tolerance N         per-channel difference of the tolerant pixel match (default 16)
# Env: WARCDEX_BIN (default: the release build, scripts/built-bin.sh; load times are measured).
#
# Time, 2 cores: the corpus once (30 s at 0.2, 6 s at 0.05); then about 1.5 s per page and
# mode and 0.5 s per comparison: a seed at the default scale (60 pages x 4 modes) takes
# about 8 minutes; --escape about 45 s. One Chromium runs at a time.
#
# Not seen: preconnect and dns-prefetch (a connection or a lookup, no request: Chromium
# reports none), connections Chromium makes for itself rather than for a page; only the
# first 1800 px of a page are compared as pixels (the text is the whole body's).
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "eval-replay: $*" >&2; exit 1; }

scale=0.2 seed=1 per_site=10 modes= out= escape= page_timeout=60 tolerance=16
user_modes=() serve_args=()
while [ $# -gt 0 ]; do
    case $1 in
        --scale) scale=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --per-site) per_site=$2; shift 2 ;;
        --modes) modes=$2; shift 2 ;;
        --mode) user_modes+=("$2"); shift 2 ;;
        --serve-arg) serve_args+=("$2"); shift 2 ;;
        --out) out=$2; shift 2 ;;
        --page-timeout) page_timeout=$2; shift 2 ;;
        --tolerance) tolerance=$2; shift 2 ;;
        --escape) escape=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument $1 (--help)" ;;
    esac
done
if [ -n "$escape" ]; then
    modes=${modes:-s,w,p}
    out=${out:-target/eval-replay/escape}
else
    modes=${modes:-oa,s,w,p}
    out=${out:-target/eval-replay/run-$seed}
fi

source scripts/chromium-lib.sh
need_chromium eval-replay
command -v openssl >/dev/null || die "openssl is missing (apt-get install openssl)"
python=$(scripts/replay-venv.sh) || die "cannot install the replay venv"
venv=$(dirname "$(dirname "$python")")
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$(realpath "$WARCDEX_BIN")
else
    # The release build: load times are measured (a fresh one takes about 13 minutes).
    source scripts/built-bin.sh
    bin=$(built_bin release) || die "cannot build warcdex"
fi
[ -x "$bin" ] || die "$bin is not an executable"

if [ -n "$escape" ]; then
    warc=fixtures/replay/escape.warc.gz
    if [ ! -s "$warc" ]; then
        mkdir -p fixtures/replay
        "$python" scripts/make_escape_fixture.py --out "$warc" || die "cannot write $warc"
    fi
else
    bench_script=../shared/bench/make_bench.py
    [ -f "$bench_script" ] || die "$bench_script is missing"
    bench=target/eval-replay/bench-$scale
    warc=$bench/full-all.warc.gz
    if [ ! -s "$warc" ]; then
        echo "eval-replay: making the corpus (scale $scale, 1 crawl) in $bench" >&2
        rm -rf "$bench.tmp"
        "$python" "$bench_script" --crawls 1 --variants full --scale "$scale" --out "$bench.tmp" \
            2> "$bench.log" || { cat "$bench.log" >&2; die "make_bench.py failed"; }
        grep -q '^selected [1-9]' "$bench.log" \
            || { cat "$bench.log" >&2; die "no pages selected (the Debian doc packages: ../shared/bench/README.md)"; }
        rm -rf "$bench"
        mv "$bench.tmp" "$bench"
    fi
fi

source scripts/serve-lib.sh
pywb=
stop_pywb() {
    if [ -n "$pywb" ]; then kill "$pywb" 2>/dev/null || true; wait "$pywb" 2>/dev/null || true; fi
}
trap 'stop_pywb; cleanup' EXIT

name=bench
coll=$work/$name
"$bin" update "$coll" "$warc" > /dev/null 2> "$work/update.log" \
    || { cat "$work/update.log" >&2; die "warcdex update failed"; }
# The modes' templates: the built-in ones, then --mode (which may redefine them).
declare -A tpl=([s]='{replay}/web/{ts}/{url}' [w]='{warcdex}/web/{ts}mp_/{url}' [p]='{pywb}/{ts}mp_/{url}')
for m in "${user_modes[@]}"; do
    [[ $m == *=* ]] || die "--mode $m: NAME=TEMPLATE"
    tpl[${m%%=*}]=${m#*=}
done
need_pywb= need_replay=
IFS=, read -r -a selected <<< "$modes"
for m in "${selected[@]}"; do
    [ "$m" = oa ] && continue
    [ -n "${tpl[$m]:-}" ] || die "mode $m has no template (--mode $m=TEMPLATE)"
    [[ ${tpl[$m]} == *'{pywb}'* ]] && need_pywb=1
    [[ ${tpl[$m]} == *'{replay}'* ]] && need_replay=1
done

# The replay that runs scripts needs wabac.js (fetched by checksum) unless given.
if [ -n "$need_replay" ] && [[ " ${serve_args[*]-} " != *" --wabac "* ]]; then
    serve_args+=(--wabac "$(scripts/fetch-wabac.sh target/wabac)")
fi

start_server eval-replay 100 "$bin" -d "$coll" ${serve_args[@]+"${serve_args[@]}"}
wbase="http://127.0.0.1:$port"

# {replay}: the replay origin `warcdex serve` names on stderr when it has one (--wabac).
rbase=
if [ -n "$need_replay" ]; then
    for _ in $(seq 50); do
        rbase=$(sed -n 's|.*replay origin.* on \(http://[^ ]*[^/ ]\)/\{0,1\}$|\1|p' "$work/serve.log" | head -n 1)
        [ -n "$rbase" ] && break
        sleep 0.1
    done
    [ -n "$rbase" ] || { cat "$work/serve.log" >&2; die "a mode uses {replay} but warcdex serve names no replay origin (--serve-arg --wabac --serve-arg DIR?)"; }
fi

pbase=
if [ -n "$need_pywb" ]; then
    mkdir "$work/pywb"
    "$bin" pywb-config "$coll" --name "$name" --server "$wbase" --out "$work/pywb/config.yaml" \
        || die "warcdex pywb-config failed"
    # The page pywb shows, without its banner: by default (framed replay) an mp_ page
    # opened at the top redirects itself to the banner's frame page, whose own text and
    # layout are not the archived page's. Unframed, with an empty banner template, the mp_
    # page stays at the top and is what pywb's replay frame holds (wombat included).
    printf '\n# eval-replay.sh: unframed, no banner (the mp_ page as it is)\nframed_replay: false\n' \
        >> "$work/pywb/config.yaml"
    mkdir "$work/pywb/templates"
    : > "$work/pywb/templates/banner.html"
    pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    (cd "$work/pywb" && PYWB_CONFIG_FILE="$work/pywb/config.yaml" exec "$venv/bin/wayback" \
        -b 127.0.0.1 -p "$pport" > "$work/pywb.log" 2>&1) &
    pywb=$!
    ready=
    for _ in $(seq 150); do
        if curl -sf -o /dev/null "http://127.0.0.1:$pport/" 2>/dev/null; then ready=1; break; fi
        kill -0 "$pywb" 2>/dev/null || { cat "$work/pywb.log" >&2; die "pywb's wayback ended at start"; }
        sleep 0.2
    done
    [ -n "$ready" ] || { cat "$work/pywb.log" >&2; die "pywb did not answer on port $pport"; }
    pbase="http://127.0.0.1:$pport/$name"
fi

args=(--coll "$coll" --modes "$modes" --seed "$seed" --per-site "$per_site" --out "$out"
      --work "$work" --page-timeout "$page_timeout" --tolerance "$tolerance")
for m in "${selected[@]}"; do
    [ "$m" = oa ] && continue
    t=${tpl[$m]//\{warcdex\}/$wbase}
    t=${t//\{pywb\}/$pbase}
    t=${t//\{replay\}/$rbase}
    args+=(--mode "$m=$t")
done
if [ -n "$escape" ]; then args+=(--escape); else args+=(--bench "$bench_script"); fi
echo "eval-replay: warcdex $wbase${pbase:+, pywb $pbase}; modes $modes; output in $out" >&2
status=0
"$python" scripts/eval_replay.py "${args[@]}" || status=$?
if [ "$status" != 0 ]; then
    echo "--- warcdex serve log (tail)" >&2; tail -20 "$work/serve.log" >&2
    [ -f "$work/pywb.log" ] && { echo "--- pywb log (tail)" >&2; tail -20 "$work/pywb.log" >&2; }
    die "the measurement failed"
fi
