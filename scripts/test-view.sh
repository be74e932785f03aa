#!/usr/bin/env bash
# Browser test of the capture view (`/web/DATE/URL`): a Python documentation page with its
# stylesheets and images (fixtures/view), collected with `warcdex update` and served, is
# loaded in headless Chromium with a network log; the test fails unless the page's
# stylesheets and images were loaded from this server and no request went anywhere else.
# Saves a screenshot to target/view.png.
#
# Installs Debian's chromium when it is missing (as root); set WARCDEX_SKIP_BROWSER=1 to
# skip on a machine where that is not possible.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/chromium-lib.sh
need_chromium test-view

source scripts/built-bin.sh
bin=$(built_bin dev)
mkdir -p target
source scripts/serve-lib.sh

"$bin" update "$work/coll" fixtures/view/python-docs-os-path.warc.gz >/dev/null 2>&1
start_server test-view 100 "$bin" -d "$work/coll"
base="http://127.0.0.1:$port"
page="https://docs.python.org/3.11/library/os.path.html"
view="$base/web/20240115041631/$page"

profile=$(mktemp -d "$work/profile.XXXX")
rm -f target/view.png
timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --user-data-dir="$profile" \
    --log-net-log="$work/net.json" --net-log-capture-mode=Default \
    --window-size=1200,900 --virtual-time-budget=5000 \
    --screenshot="$(pwd)/target/view.png" "$view" >/dev/null 2>>"$work/chromium.log"

python3 - "$work/net.json" "$base" <<'PY'
import json, sys
path, base = sys.argv[1], sys.argv[2]
text = open(path).read().rstrip().rstrip(',')
if not text.endswith('}'):
    text += ']}'  # a log cut at exit: close the events list
log = json.loads(text)
types = {v: k for k, v in log['constants']['logEventTypes'].items()}
urls, background = set(), set()
for e in log['events']:
    if types.get(e['type']) == 'URL_REQUEST_START_JOB':
        p = e.get('params', {})
        u = p.get('url', '')
        if not u.startswith(('http:', 'https:', 'ws:', 'wss:')):
            continue
        # The page's requests (and its navigation) are those it initiated or that go
        # to the server; Chromium's own services (updates, accounts) have no initiator.
        if u.startswith(base + '/') or p.get('initiator', '').startswith(base):
            urls.add(u)
        else:
            background.add(u)
if not any(True for _ in urls):
    print("test-view: the network log holds no request of the page", file=sys.stderr)
    sys.exit(1)
print(f"test-view: {len(background)} requests of Chromium's own (no initiator), not the page's", file=sys.stderr)
outside = sorted(u for u in urls if not u.startswith(base + '/'))
inside = sorted(u for u in urls if u.startswith(base + '/'))
need = ['_static/pydoctheme.css', '_static/pygments.css', '_static/basic.css', '_static/py.svg']
missing = [n for n in need if not any(n in u for u in inside)]
print(f"test-view: {len(inside)} requests to the server, {len(outside)} elsewhere", file=sys.stderr)
for u in inside:
    print(f"  {u[len(base):]}", file=sys.stderr)
for u in outside:
    print(f"  OUTSIDE: {u}", file=sys.stderr)
if outside or missing:
    if missing:
        print(f"test-view: never requested: {missing}", file=sys.stderr)
    sys.exit(1)
PY

# The stylesheets and images it asked for are answered from the collection.
for p in _static/pydoctheme.css _static/pygments.css _static/basic.css _static/py.svg; do
    code=$(python3 -c 'import sys,urllib.request
try: print(urllib.request.urlopen(sys.argv[1]).status)
except Exception as e: print(getattr(e,"code",e))' "$base/web/20240115041631mp_/https://docs.python.org/3.11/$p")
    [ "$code" = 200 ] || { echo "test-view: $p: $code" >&2; exit 1; }
done
[ -s target/view.png ] || { echo "test-view: no screenshot" >&2; exit 1; }
echo "test-view: ok (screenshot target/view.png)" >&2
