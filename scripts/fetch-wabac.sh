#!/usr/bin/env bash
# Fetches wabac.js's service worker, which `warcdex serve --replay scripts --wabac DIR`
# serves on its replay origin: the @webrecorder/wabac npm package at a pinned version,
# from the npm registry, checked against its checksum; `dist/sw.js` and the licence are
# put in DIR (default: target/wabac). With --replaywebpage, ReplayWeb.page's package
# instead (the whole app, for scripts/test-replay.sh; default DIR target/replaywebpage).
# Never copied into the repository: both are AGPL-3.0-or-later (docs/replay.md says what
# that asks of a public deployment).
#
# Usage: scripts/fetch-wabac.sh [--replaywebpage] [DIR]   (prints DIR, absolute; a relative
#        DIR is taken from the repository's root)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --replaywebpage ]; then
    shift
    name=replaywebpage version=2.5.3
    url=https://registry.npmjs.org/replaywebpage/-/replaywebpage-$version.tgz
    sha256=b7d35c39c4da9b7121c5a393911d8675d4cc6f19513c380191e16b086bea812c
    dir=${1:-target/replaywebpage}
else
    name=@webrecorder/wabac version=2.27.3
    url=https://registry.npmjs.org/@webrecorder/wabac/-/wabac-$version.tgz
    sha256=bde309c2d854c94301da9f797283bee853cc7cc804b2408c47b9d4af427af16e
    dir=${1:-target/wabac}
fi
if [ "$(cat "$dir/VERSION" 2>/dev/null)" = "$name $version" ]; then
    (cd "$dir" && pwd)
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-wabac.sh: fetching $name $version" >&2
curl -fsSL --retry 3 -o "$tmp/package.tgz" "$url"
got=$(sha256sum "$tmp/package.tgz" | cut -d' ' -f1)
if [ "$got" != "$sha256" ]; then
    echo "fetch-wabac.sh: $url has checksum $got, not $sha256" >&2
    exit 1
fi
tar -xzf "$tmp/package.tgz" -C "$tmp"
mkdir -p "$dir"
if [ "$name" = replaywebpage ]; then
    cp -R "$tmp/package/." "$dir/"
else
    cp "$tmp/package/dist/sw.js" "$dir/sw.js"
    cp "$tmp"/package/LICENSE* "$dir/" 2>/dev/null || true
fi
echo "$name $version" > "$dir/VERSION"
(cd "$dir" && pwd)
