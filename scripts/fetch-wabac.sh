#!/usr/bin/env bash
# Fetches wabac.js's service worker, which `warcdex serve --replay scripts --wabac DIR`
# serves on its replay origin: the @webrecorder/wabac npm package at a pinned version,
# from the npm registry, checked against its checksum; `dist/sw.js` and the licence are
# put in DIR (default: target/wabac). Never copied into the repository: wabac.js is
# AGPL-3.0-or-later (docs/replay.md says what that asks of a public deployment).
#
# Usage: scripts/fetch-wabac.sh [DIR]      (prints DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
version=2.27.3
sha256=bde309c2d854c94301da9f797283bee853cc7cc804b2408c47b9d4af427af16e
dir=${1:-target/wabac}
if [ -f "$dir/sw.js" ] && [ "$(cat "$dir/VERSION" 2>/dev/null)" = "$version" ]; then
    echo "$dir"
    exit 0
fi
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
url=https://registry.npmjs.org/@webrecorder/wabac/-/wabac-$version.tgz
echo "fetch-wabac.sh: fetching @webrecorder/wabac $version" >&2
curl -fsSL --retry 3 -o "$tmp/wabac.tgz" "$url"
got=$(sha256sum "$tmp/wabac.tgz" | cut -d' ' -f1)
if [ "$got" != "$sha256" ]; then
    echo "fetch-wabac.sh: $url has checksum $got, not $sha256" >&2
    exit 1
fi
tar -xzf "$tmp/wabac.tgz" -C "$tmp" package/dist/sw.js package/package.json
tar -xzf "$tmp/wabac.tgz" -C "$tmp" --wildcards 'package/LICENSE*' 2>/dev/null || true
cp "$tmp/package/dist/sw.js" "$dir/sw.js"
cp "$tmp"/package/LICENSE* "$dir/" 2>/dev/null || true
echo "$version" > "$dir/VERSION"
echo "$dir"
