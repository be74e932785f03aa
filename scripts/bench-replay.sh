#!/usr/bin/env bash
# Replay throughput (a benchmark, not a test): the Python docs page of fixtures/view
# through warcdex serve's capture view and through pywb 2.10's `wayback` over the same
# WARC and CDX, `mp_` (rewritten) and `id_` (as archived), with wrk (1 thread, 4
# connections, DURATION seconds each, the servers alternated); then `ir_`, what the
# replay that runs scripts asks per page, against warcdex's `mp_`. Prints requests/s and
# the ratios. Needs wrk (apt-get install wrk); pywb from target/formats-venv.
#
# Usage: scripts/bench-replay.sh [DURATION]
# Env:   WARCDEX_BIN (default: cargo build --release)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
command -v wrk >/dev/null || { echo "bench-replay: wrk is missing (apt-get install wrk)" >&2; exit 1; }
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$(realpath "$WARCDEX_BIN")
else
    source scripts/built-bin.sh
    bin=$(built_bin)
fi
python=$(scripts/formats-venv.sh)
venv=$(dirname "$(dirname "$python")")
source scripts/serve-lib.sh
pywb=
trap '[ -n "$pywb" ] && kill "$pywb" 2>/dev/null; cleanup' EXIT

"$bin" update "$work/coll" fixtures/view/python-docs-os-path.warc.gz >/dev/null 2>&1
wabac=$(scripts/fetch-wabac.sh target/wabac)
start_server bench-replay 100 "$bin" -d "$work/coll" --wabac "$wabac"
replay=$(sed -n 's|^warcdex serve: replay origin (pages run their scripts) on \(http://[^/]*\)/$|\1|p' "$work/serve.log")
mkdir -p "$work/pywb"
cat > "$work/pywb/config.yaml" <<YAML
collections:
  coll:
    index_paths: $work/coll/all.cdx
    archive_paths: $PWD/fixtures/view/
YAML
pport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd "$work/pywb" && exec "$venv/bin/wayback" -b 127.0.0.1 -p "$pport" >"$work/pywb.log" 2>&1) &
pywb=$!
for _ in $(seq 100); do
    curl -sf -o /dev/null "http://127.0.0.1:$pport/" 2>/dev/null && break
    sleep 0.2
done
page="20240115041631MODE/https://docs.python.org/3.11/library/os.path.html"
rps() { wrk -t1 -c4 -d"${secs}s" "$1" | awk '/Requests\/sec/ {print $2}'; }
echo "bench-replay: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), ${secs}s each"
for mode in mp_ id_; do
    p=${page/MODE/$mode}
    w=$(rps "http://127.0.0.1:$port/web/$p")
    y=$(rps "http://127.0.0.1:$pport/coll/$p")
    printf '%s  warcdex %8.1f req/s   pywb %8.1f req/s   ratio %.1f\n' "$mode" "$w" "$y" \
        "$(python3 -c "print($w/$y)")"
done
# What the replay that runs scripts asks of the server per page: the archived response
# (ir_, on the replay origin; wabac.js rewrites it in the browser), against mp_.
m=$(rps "http://127.0.0.1:$port/web/${page/MODE/mp_}")
i=$(rps "$replay/web/${page/MODE/ir_}")
printf 'ir_  warcdex %8.1f req/s   (mp_ %8.1f req/s)   ratio %.2f\n' "$i" "$m" \
    "$(python3 -c "print($i/$m)")"
