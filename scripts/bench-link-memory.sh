#!/usr/bin/env bash
# Peak memory of `update --memory 64` and `graph --memory 8` as the links grow:
# plain WARCs of 10,000, 20,000 and 40,000 pages of 100 outlinks each (1, 2 and
# 4 million links, random targets over 1,000 hosts), one collection each. A bounded build
# peaks at about the same size for every count. Usage: scripts/bench-link-memory.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/built-bin.sh
bin=$(built_bin)
work=${1:-target/bench-link-memory}
mkdir -p "$work"
runs=1
source scripts/bench-lib.sh

gen() { # PAGES OUT: a WARC of PAGES pages, 100 links each
    python3 - "$1" "$2" <<'PY'
import random, sys
pages, out = int(sys.argv[1]), sys.argv[2]
random.seed(1)
with open(out, "wb") as f:
    for i in range(pages):
        links = "".join('<a href="http://h%d.example/p%d">a%d</a>'
                        % (random.randrange(1000), random.randrange(pages), j) for j in range(100))
        body = ("<html><head><title>P%d</title></head><body><p>page %d</p>%s</body></html>"
                % (i, i, links)).encode()
        http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(body) + body
        head = ("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://h%d.example/p%d\r\n"
                "WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:%08d-0000-0000-0000-000000000000>\r\n"
                "Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
                % (i % 1000, i, i, len(http))).encode()
        f.write(head + http + b"\r\n\r\n")
PY
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-10s %-28s %10s %12s\n' links command seconds "peak MiB"
for pages in 10000 20000 40000; do
    warc="$work/links-$pages.warc"
    [ -f "$warc" ] || gen "$pages" "$warc"
    coll="$work/coll-$pages"
    rm -rf "$coll"
    read -r s kib < <(measure "$bin" update "$coll" "$warc" --memory 64)
    printf '%-10s %-28s %10s %12s\n' "$((pages * 100))" "update --memory 64" "$s" "$((kib / 1024))"
    read -r s kib < <(measure "$bin" graph "$coll" --level page --format csv --memory 8 -o /dev/null)
    printf '%-10s %-28s %10s %12s\n' "$((pages * 100))" "graph --memory 8" "$s" "$((kib / 1024))"
done
