#!/usr/bin/env bash
# Replay that runs the pages' scripts, in headless Chromium (scripts/replay_browser.py):
# wabac.js's service worker on warcdex's replay origin replays a page built by its own
# scripts (fixtures/replay/scripts.warc.gz), the escape page (fixtures/replay/escape.warc.gz)
# sends nothing out of loopback, and ReplayWeb.page opens the collection from
# /warcs/index.cdxj without a shim. wabac.js and ReplayWeb.page are fetched from the npm
# registry at pinned versions, checked by checksum (scripts/fetch-wabac.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/chromium-lib.sh
need_chromium test-replay
source scripts/built-bin.sh
bin=$(built_bin dev)
wabac=$(scripts/fetch-wabac.sh target/wabac)
rwp=$(scripts/fetch-wabac.sh --replaywebpage target/replaywebpage)
source scripts/serve-lib.sh
trap cleanup EXIT
"$bin" update "$work/coll" fixtures/replay/scripts.warc.gz fixtures/replay/escape.warc.gz >/dev/null 2>&1
start_server test-replay 100 "$bin" -d "$work/coll" --wabac "$wabac"
replay=$(sed -n 's|^warcdex serve: replay origin (pages run their scripts) on \(http://[^/]*\)/$|\1|p' "$work/serve.log")
[ -n "$replay" ] || { echo "test-replay: no replay origin in the server's log" >&2; cat "$work/serve.log" >&2; exit 1; }
python3 scripts/replay_browser.py --app "http://127.0.0.1:$port" --replay "$replay" \
    --replaywebpage "$rwp" --work "$work"
echo "test-replay: ok"
