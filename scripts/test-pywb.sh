#!/usr/bin/env bash
# Replay in pywb 2.10 from `warcdex serve`: builds a collection of fixtures/example with
# `warcdex update`, serves it, writes pywb's config with `warcdex pywb-config` (captures
# from the server's /cdx, records from its /warcs/ by byte range), starts pywb's `wayback`
# on another loopback port with that config alone, takes a hit of /search.json, loads its
# replay URL in headless Chromium and checks that pywb's replay frame shows the hit's
# title (scripts/test_pywb.py, over Chromium's DevTools pipe); saves a screenshot to
# target/pywb-replay.png. Exits non-zero, saying why, on any failure.
#
# pywb 2.10 comes from the peers' venv, target/formats-venv (installed from PyPI when
# missing; WARCDEX_PYWB_VENV names another venv that has it). WARCDEX_BIN names a warcdex binary to use instead of building
# the dev-profile one. WARCDEX_PYWB_INDEX=local points pywb at the collection's all.cdx
# instead of /cdx, which checks the /warcs/ half alone.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "test-pywb: $*" >&2; exit 1; }

source scripts/chromium-lib.sh
need_chromium test-pywb
command -v python3 >/dev/null 2>&1 || die "python3 is missing"

if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$WARCDEX_BIN
    [ -x "$bin" ] || die "WARCDEX_BIN=$bin is not an executable"
else
    # The dev-profile binary, as the other browser and peer tests use.
    source scripts/built-bin.sh
    bin=$(built_bin dev) || die "cannot build warcdex"
fi

mkdir -p target
# pywb 2.10 from the peers' venv (scripts/formats-venv.sh installs it when missing), or
# WARCDEX_PYWB_VENV.
if [ -n "${WARCDEX_PYWB_VENV:-}" ]; then
    venv=$WARCDEX_PYWB_VENV
else
    python=$(scripts/formats-venv.sh) || die "cannot install the peers' venv"
    venv=$(dirname "$(dirname "$python")")
fi
"$venv/bin/python" -c 'import pywb, sys; sys.exit(not pywb.__version__.startswith("2.10."))' 2>/dev/null \
    || die "$venv has no pywb 2.10"

source scripts/serve-lib.sh
pywb=
stop_pywb() {
    if [ -n "$pywb" ]; then kill "$pywb" 2>/dev/null || true; wait "$pywb" 2>/dev/null || true; fi
}
trap 'stop_pywb; cleanup' EXIT

# The collection: the worked example's five crawls in two batches (the second adds
# versions and dates to the first's).
fx=fixtures/example
coll=$work/example
"$bin" update "$coll" --collection-name example "$fx"/crawl1-* "$fx"/crawl2-* "$fx"/crawl3-* \
    2>"$work/update.log" || { cat "$work/update.log" >&2; die "update (batch 1) failed"; }
"$bin" update "$coll" --collection-name example "$fx"/crawl4-* "$fx"/crawl5-* \
    2>>"$work/update.log" || { cat "$work/update.log" >&2; die "update (batch 2) failed"; }

# pywb's port first, so that the server's replay links point at it.
pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
name=example
start_server test-pywb 100 "$bin" -d "$coll" --replay "pywb=http://127.0.0.1:$pport/$name"
base="http://127.0.0.1:$port"

mkdir "$work/pywb"
"$bin" pywb-config "$coll" --name "$name" --server "$base" --out "$work/pywb/config.yaml" \
    || die "pywb-config failed"
if [ "${WARCDEX_PYWB_INDEX:-}" = local ]; then
    sed -i "s|^\(    index_paths:\).*|\1 '$coll/all.cdx'|" "$work/pywb/config.yaml"
    echo "test-pywb: index from $coll/all.cdx (WARCDEX_PYWB_INDEX=local), records from /warcs/" >&2
else
    # pywb's question for a capture, asked first so that a server without the CDX API
    # fails here, saying so, rather than as pywb's "URL Not Found".
    python3 - "$base" <<'EOF' || die "$base/cdx does not answer pywb's CDX queries (WARCDEX_PYWB_INDEX=local checks /warcs/ alone)"
import sys, urllib.request
url = sys.argv[1] + "/cdx?url=http://www.example.org/news.html&closest=20071001120200&sort=closest&limit=100"
try:
    body = urllib.request.urlopen(url, timeout=30).read()
except Exception as e:
    sys.exit(f"test-pywb: {url}: {e}")
if b"crawl1-20071001.arc" not in body:
    sys.exit(f"test-pywb: {url}: no line of crawl1-20071001.arc in {body[:300]!r}")
EOF
fi

# pywb with this config alone: its own directory (no collections/ to find), the config
# named, its log kept.
(cd "$work/pywb" && PYWB_CONFIG_FILE="$work/pywb/config.yaml" exec "$venv/bin/wayback" \
    -b 127.0.0.1 -p "$pport" >"$work/pywb.log" 2>&1) &
pywb=$!
ready=
for _ in $(seq 150); do
    if python3 - "$pport" <<'EOF' 2>/dev/null
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/", timeout=2).read()
EOF
    then ready=1; break; fi
    kill -0 "$pywb" 2>/dev/null || { cat "$work/pywb.log" >&2; die "pywb's wayback ended at start"; }
    sleep 0.2
done
[ -n "$ready" ] || { cat "$work/pywb.log" >&2; die "pywb did not answer on port $pport"; }

rm -f target/pywb-replay.png
if ! python3 scripts/test_pywb.py --server "$base" --pywb "http://127.0.0.1:$pport" \
    --collection "$name" --query lisbon --query welcome --work "$work" --screenshot "$PWD/target/pywb-replay.png"; then
    echo "--- warcdex serve log" >&2; cat "$work/serve.log" >&2
    echo "--- pywb log (tail)" >&2; tail -40 "$work/pywb.log" >&2
    [ -f "$work/chromium.log" ] && { echo "--- chromium log (tail)" >&2; tail -20 "$work/chromium.log" >&2; }
    die "replay failed"
fi
echo "test-pywb: ok (screenshot target/pywb-replay.png)" >&2
