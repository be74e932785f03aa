#!/usr/bin/env bash
# warcdex's MCP server driven by the official Python MCP client (`mcp` from PyPI, 2.3.0
# and 1.30.0, into target/mcp-venv and target/mcp1-venv when missing), over stdio (`warcdex mcp`) and over `serve`'s /mcp
# (streamable HTTP), on a collection of the example crawls (ARC, WARC) and a Browsertrix
# WACZ: the five tools, search with provenance, text, captures, history and diff, tool
# errors for bad arguments with the server still answering; then both again under an
# .aclj rule that excludes a host, none of whose pages may be found
# (scripts/test_mcp.py). WARCDEX_BIN names a warcdex binary instead of the debug build.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "test-mcp: $*" >&2; exit 1; }

# The current client (target/mcp-venv), and the last of the 1.x line that most agents'
# servers still use (target/mcp1-venv).
scripts/peer-venvs.sh mcp mcp1 || die "cannot install the mcp clients"
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$WARCDEX_BIN
else
    source scripts/built-bin.sh
    bin=$(built_bin dev) || die "cannot build warcdex"
fi
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2> /dev/null || true; rm -rf "$tmp"' EXIT
"$bin" update "$tmp/coll" fixtures/example/crawl* > /dev/null 2>&1 || die "update 1"
"$bin" update "$tmp/coll" fixtures/browsertrix/crawl.wacz > /dev/null 2>&1 || die "update 2"
printf '%s\n' 'org,example)/ - {"access": "exclude", "url": "http://example.org/"}' > "$tmp/exclude.aclj"

# start LOG FLAGS...: a server on a free port, its log (where it says its address) in LOG.
start() {
    local log=$1
    shift
    "$bin" serve -d "$tmp/coll" --addr 127.0.0.1:0 "$@" > /dev/null 2> "$log" &
    pids+=($!)
}
# mcp_url LOG: the /mcp URL of the server logging to LOG, once it listens.
mcp_url() {
    for _ in $(seq 100); do
        if grep -q 'listening on' "$1"; then
            grep -o 'http://[^/]*/' "$1" | head -1 | sed 's|/$|/mcp|'
            return
        fi
        sleep 0.1
    done
    die "serve did not start: $(cat "$1")"
}
start "$tmp/open.log"
start "$tmp/excluded.log" --acl "$tmp/exclude.aclj"

py=target/mcp-venv/bin/python
$py scripts/test_mcp.py stdio "$bin" "$tmp/coll" || die "stdio"
$py scripts/test_mcp.py http "$(mcp_url "$tmp/open.log")" || die "/mcp"
py1=target/mcp1-venv/bin/python
$py1 scripts/test_mcp.py stdio "$bin" "$tmp/coll" || die "stdio, mcp 1.30"
$py1 scripts/test_mcp.py http "$(mcp_url "$tmp/open.log")" || die "/mcp, mcp 1.30"
$py scripts/test_mcp.py stdio "$bin" "$tmp/coll" --acl "$tmp/exclude.aclj" --excluded || die "stdio under an exclude rule"
$py scripts/test_mcp.py http "$(mcp_url "$tmp/excluded.log")" --excluded || die "/mcp under an exclude rule"
echo "test-mcp: passed"
