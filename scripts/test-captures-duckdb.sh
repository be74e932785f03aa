#!/usr/bin/env bash
# The capture table read by DuckDB without casts: a collection of three batches
# (the example crawls of 2007 with revisits, a zstd WARC of 2014 with revisits, and a page
# of 2023 captured again in 2024); DuckDB's captures per year from
# `COLL/captures/*.parquet` must equal the count of all.cdx's lines per year, its column
# types must be TIMESTAMP WITH TIME ZONE, INTEGER and BIGINT where they are dates and
# numbers, and a join of captures to versions (`version_key`) must find every revisit's
# version.
#
# DuckDB comes from PyPI into target/duckdb-venv when missing. WARCDEX_BIN names a warcdex
# binary to use instead of building the debug one.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "test-captures-duckdb: $*" >&2; exit 1; }

venv=target/duckdb-venv
scripts/peer-venvs.sh duckdb || die "cannot install duckdb"
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$WARCDEX_BIN
else
    source scripts/built-bin.sh
    bin=$(built_bin dev) || die "cannot build warcdex"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
page='<html><head><title>Example net</title></head><body><p>The example network.</p></body></html>'
warc() { # URL DATE FILE: one response record
    local http body
    http=$(printf 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s' "${#page}" "$page")
    printf 'WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\nWARC-Date: %s\r\nWARC-Record-ID: <urn:uuid:%s>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n' \
        "$1" "$2" "$(python3 -c 'import uuid; print(uuid.uuid4())')" "${#http}" "$http" > "$3"
}
warc http://www.example.net/ 2023-03-01T10:00:00Z "$tmp/net-2023.warc"
warc http://www.example.net/ 2024-03-02T10:00:00Z "$tmp/net-2024.warc"
"$bin" update "$tmp/coll" fixtures/example/crawl* > /dev/null 2>&1 || die "update 1"
"$bin" update "$tmp/coll" fixtures/zstd/dupes.warc.zst "$tmp/net-2023.warc" > /dev/null 2>&1 || die "update 2"
"$bin" update "$tmp/coll" "$tmp/net-2024.warc" > /dev/null 2>&1 || die "update 3"

want=$(grep -v '^ CDX' "$tmp/coll/all.cdx" | cut -d' ' -f2 | cut -c1-4 | sort | uniq -c | awk '{print $2 " " $1}')
"$venv/bin/python" - "$tmp/coll" "$want" <<'PY' || die "DuckDB and all.cdx differ (above)"
import sys, duckdb
coll, want = sys.argv[1], sys.argv[2]
con = duckdb.connect()
t = f"'{coll}/captures/*.parquet'"
got = "\n".join(f"{y} {n}" for y, n in con.sql(
    f"SELECT year(capture_time) AS y, count(*) FROM {t} GROUP BY y ORDER BY y").fetchall())
types = {r[0]: r[1] for r in con.sql(f"DESCRIBE SELECT * FROM {t}").fetchall()}
expect = {"capture_time": "TIMESTAMP WITH TIME ZONE", "status": "INTEGER",
          "record_offset": "BIGINT", "record_length": "BIGINT", "url": "VARCHAR"}
bad = [f"{c}: {types.get(c)} not {v}" for c, v in expect.items() if types.get(c) != v]
if got != want:
    bad.append(f"captures per year:\n{got}\nall.cdx:\n{want}")
# Every revisit belongs to a version that has a capture with a payload, in some batch.
orphans = con.sql(f"""SELECT count(*) FROM {t} r WHERE r.mime = 'warc/revisit' AND NOT EXISTS
    (SELECT 1 FROM {t} c WHERE c.version_key = r.version_key AND c.mime <> 'warc/revisit')""").fetchall()[0][0]
revisits = con.sql(f"SELECT count(*) FROM {t} WHERE mime = 'warc/revisit'").fetchall()[0][0]
print(f"test-captures-duckdb: per year {got.replace(chr(10), ', ')}; {revisits} revisits, "
      f"{orphans} without a capture of their version in the collection")
if revisits == 0:
    bad.append("no revisit in the table")
if bad:
    sys.exit("\n".join(bad))
PY
echo "test-captures-duckdb.sh: ok"
