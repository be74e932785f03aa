#!/usr/bin/env bash
# A Browsertrix-style WACZ (fixtures/browsertrix/crawl.wacz) through pywb 2.10
# (scripts/browsertrix_replay.py): pywb configured by `warcdex pywb-config` replays every
# capture the WACZ holds as `/web/DATEid_/URL` answers it; a WARC export of a page with
# a stylesheet and an image replays in headless Chromium styled and with its image (the
# page's requisites exported with it), neither with --no-requisites.
#
# pywb comes from the peers' venv, target/formats-venv (scripts/formats-venv.sh installs
# it from PyPI when missing); Chromium from Debian (scripts/chromium-lib.sh). WARCDEX_BIN
# names a warcdex binary to use instead of building the dev-profile one.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "test-browsertrix: $*" >&2; exit 1; }

source scripts/chromium-lib.sh
need_chromium test-browsertrix
python=$(scripts/formats-venv.sh) || die "cannot install the peers' venv"
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$WARCDEX_BIN
else
    source scripts/built-bin.sh
    bin=$(built_bin dev) || die "cannot build warcdex"
fi
source scripts/serve-lib.sh
cp fixtures/browsertrix/crawl.wacz "$work/"
"$bin" update "$work/coll" "$work/crawl.wacz" > /dev/null 2>&1 || die "update"
start_server test-browsertrix 100 "$bin" -d "$work/coll"
base="http://127.0.0.1:$port"
"$bin" pywb-config "$work/coll" --name bt --server "$base" --out "$work/config.yaml" \
    || die "pywb-config failed"
"$python" scripts/browsertrix_replay.py --bin "$bin" --coll "$work/coll" --work "$work" \
    --server "$base" --pywb-config "$work/config.yaml" --name bt \
    || { cat "$work/serve.log" >&2; die "pywb does not replay the collection or its export (above)"; }
echo "test-browsertrix.sh: ok"
