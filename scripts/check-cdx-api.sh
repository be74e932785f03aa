#!/usr/bin/env bash
# scripts/check-cdx-api.sh COLLECTION_DIR [N]: N (300) fresh random queries, drawn from
# COLLECTION_DIR/all.cdx with a new seed each run (SEED=... repeats one), asked of pywb
# 2.10's CDX API (`wayback` over that all.cdx) and of `warcdex serve -d COLLECTION_DIR`'s
# GET /cdx; prints every difference and a summary, exits 1 if any.
#
# WARCDEX=path/to/warcdex uses that binary (else the release build, built if needed);
# PYWB_VENV=dir uses that venv (else the peers' venv, target/formats-venv, with pywb 2.10,
# installed by scripts/formats-venv.sh when missing).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 COLLECTION_DIR [N]" >&2; exit 2; }
coll=$(cd "$1" && pwd)
n=${2:-300}
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
cd "$(dirname "$0")/.."
[ -f "$coll/all.cdx" ] || { echo "$0: $coll/all.cdx: no such file" >&2; exit 2; }

if [ -n "${PYWB_VENV:-}" ]; then
    venv=$PYWB_VENV
else
    python=$(scripts/formats-venv.sh)
    venv=$(dirname "$(dirname "$python")")
fi
"$venv/bin/python" -c 'import pywb, sys; sys.exit(not pywb.__version__.startswith("2.10."))' \
    || { echo "check-cdx-api.sh: $venv has no pywb 2.10" >&2; exit 2; }

if [ -n "${WARCDEX:-}" ]; then
    bin=$WARCDEX
else
    . scripts/built-bin.sh
    bin=$(built_bin)
fi
. scripts/serve-lib.sh
start_server check-cdx-api.sh 600 "$bin" -d "$coll" --no-reload
"$venv/bin/python" scripts/cdx_api_check.py "$coll/all.cdx" "http://127.0.0.1:$port" "$n" "$seed" "$venv/bin/wayback"
