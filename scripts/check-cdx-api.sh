#!/usr/bin/env bash
# scripts/check-cdx-api.sh COLLECTION_DIR [N]: N (300) fresh random queries, drawn from
# COLLECTION_DIR/all.cdx with a new seed each run (SEED=... repeats one), asked of pywb
# 2.10's CDX API (`wayback` over that all.cdx) and of `warcdex serve -d COLLECTION_DIR`'s
# GET /cdx; prints every difference and a summary, exits 1 if any.
#
# WARCDEX=path/to/warcdex uses that binary (else the release build, built if needed);
# PYWB_VENV=dir uses that venv (else target/pywb-venv, pywb 2.10 installed when missing).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 COLLECTION_DIR [N]" >&2; exit 2; }
coll=$(cd "$1" && pwd)
n=${2:-300}
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
cd "$(dirname "$0")/.."
[ -f "$coll/all.cdx" ] || { echo "$0: $coll/all.cdx: no such file" >&2; exit 2; }

venv=${PYWB_VENV:-$PWD/target/pywb-venv}
if ! "$venv/bin/python" -c "import pywb" 2> /dev/null; then
    echo "check-cdx-api.sh: installing pywb 2.10 into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "pywb==2.10.*" >&2
fi

if [ -n "${WARCDEX:-}" ]; then
    bin=$WARCDEX
else
    . scripts/built-bin.sh
    bin=$(built_bin)
fi
. scripts/serve-lib.sh
start_server check-cdx-api.sh 600 "$bin" -d "$coll" --no-reload
"$venv/bin/python" scripts/cdx_api_check.py "$coll/all.cdx" "http://127.0.0.1:$port" "$n" "$seed" "$venv/bin/wayback"
