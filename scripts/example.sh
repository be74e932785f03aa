#!/usr/bin/env bash
# The main job on the bundled examples: read each fixture archive and print its
# records (offset, length, type, URI, date, HTTP status, payload digest) as JSON lines.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
for f in fixtures/warc/example.warc.gz fixtures/arc/example.arc.gz fixtures/bad/garbage-between-records.warc.gz; do
    echo "== $f" >&2
    ./target/release/warcdex records --digest "$f"
done
