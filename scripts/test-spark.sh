#!/usr/bin/env bash
# The Spark build (spark/warcdex_spark.py) against the single-machine build:
# the example's five crawls, the corpus's archives (178) and the zstd and WACZ fixtures
# (six .warc.zst, one .wacz), on local[2,4] with 3
# shards, the first attempt of one index task failing half-way (after its main index,
# before its dates), so that Spark retries it. Checked:
# - all.cdx, all.dup and all.rev byte-identical to sort-cdx / dedup-cdx / revisits of
#   the per-archive CDX, and the build's ZipNum cluster (`--zipnum`) to `merge-cdx
#   --zipnum` of that all.cdx;
# - every document (every field of main and dates but its position `seq`, so URL,
#   digest, dates, anchors and link boost) the same across the shards as in one index of
#   the one-shot build, each URL key in exactly one shard, the shard FNV-1a gives it;
# - the same top 10 hits (documents, dates, titles, scores, order) for 20 queries through
#   a front server (`serve --remote`) over three shard servers as through `search` over
#   the one index, and a partial answer naming the server when one is down;
# - no temporary file or directory left in the collection;
# - the same build with the archives in an S3 server (moto, on loopback) gives the same
#   lists and the same shards.
# Installs PySpark, moto and boto3 into target/spark-venv when missing, and Debian's
# OpenJDK 17 when there is no java (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/spark-venv
scripts/peer-venvs.sh spark
if ! command -v java > /dev/null; then
    # Spark needs a Java runtime: Debian's OpenJDK 17, installed as the browser test
    # installs chromium.
    [ "$(id -u)" = 0 ] || { echo "test-spark.sh: java is missing and this is not root; apt-get install openjdk-17-jre-headless" >&2; exit 1; }
    echo "test-spark.sh: installing openjdk-17-jre-headless" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >&2
fi
source scripts/built-bin.sh
WARCDEX_BIN=$(built_bin dev)
export WARCDEX_BIN
bin=$WARCDEX_BIN
work=$(mktemp -d "${TMPDIR:-/tmp}/warcdex-spark-XXXX")
moto=
trap '[ -z "$moto" ] || kill "$moto" 2> /dev/null; rm -rf "$work"' EXIT

# The archives: PATH COLLECTION, as import's manifest: the example's crawls and every
# archive of the corpus that warcdex reads (WARC, ARC, WET; the first of each file name,
# as a collection cannot hold two archives of one name: the CDX file column says which).
real=fixtures/corpus/real
{
    for f in fixtures/example/crawl*; do echo "$PWD/$f example"; done
    # WARC-zstd (with and without a dictionary) and a WACZ.
    for f in fixtures/zstd/*.warc.zst fixtures/wacz/*.wacz; do echo "$PWD/$f containers"; done
    find "$real" -type f \( -name '*.warc' -o -name '*.warc.gz' -o -name '*.arc' \
        -o -name '*.arc.gz' -o -name '*.wet' -o -name '*.wet.gz' \) | LC_ALL=C sort \
        | awk -F/ '!seen[$NF]++' | sed "s|^|$PWD/|; s|$| corpus|"
} > "$work/list.txt"
[ "$(wc -l < "$work/list.txt")" -gt 150 ] || { echo "test-spark.sh: the corpus is missing" >&2; exit 1; }

# The single-machine build, step by step.
one=$work/one
mkdir -p "$one/cdx"
# `cdx` and `import` exit 1 when an archive could not be read whole, after writing what
# they could; the Spark build counts those archives the same way.
ok1() { "$@" || [ $? -eq 1 ]; }
while read -r path _; do
    ok1 "$bin" cdx "$path" -o "$one/cdx/$(basename "$path").cdx" 2> /dev/null
done < "$work/list.txt"
"$bin" sort-cdx "$one"/cdx/*.cdx -o "$one/all.cdx" 2> /dev/null
"$bin" dedup-cdx "$one/all.cdx" -o "$one/all.dup" 2> /dev/null
"$bin" revisits "$one/all.cdx" -o "$one/all.rev" 2> /dev/null
ok1 "$bin" import -e "$one/all.dup" "$work/list.txt" "$one/seg" > /dev/null 2>&1
"$bin" index --out "$one/pindexes/one/main" "$one/seg" > /dev/null 2>&1
( cd "$one/pindexes/one" && "$bin" add-dates main main dates ../../all.dup > /dev/null 2>&1 \
    && "$bin" add-dates --in-place main dates dates ../../all.rev > /dev/null 2>&1 )

# The Spark build, one index task failing once half-way.
spark=$work/spark
WARCDEX_SPARK_FAIL_ONCE=index:1 ok1 "$venv/bin/python" spark/warcdex_spark.py build "$spark" \
    "$work/list.txt" --shards 3 --master 'local[2,4]' --zipnum --lines-per-block 100 \
    > "$work/summary.json" 2> "$work/spark.log" || { tail -50 "$work/spark.log" >&2; exit 1; }
grep -q "injected failure of index task 1" "$work/spark.log" \
    || { echo "FAIL: the injected failure did not happen" >&2; exit 1; }

fail() { echo "FAIL: $*" >&2; exit 1; }
# The summary counts what the single-machine import counted.
"$venv/bin/python" - "$one/seg/segment.json" "$work/summary.json" << 'EOF' || fail "the summary's counts differ"
import json, sys
seg, summary = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
src = seg["sources"]
want = {
    "records": sum(s["records"] for s in src),
    "anomalies": sum(sum(s["anomalies"].values()) for s in src),
    "archives_with_errors": sum(1 for s in src if s["error"]),
    "parse_failures": sum(s["parse_failures"] for s in src),
    "documents": seg["documents"],
}
got = {k: summary[k] for k in want}
assert got == want, (got, want)
assert len(summary["archives_with_anomalies"]) == sum(1 for s in src if s["anomalies"] or s["error"])
print("summary:", got)
EOF
for f in all.cdx all.dup all.rev; do
    cmp -s "$one/$f" "$spark/$f" || fail "$f differs from the single-machine build's"
done
"$bin" merge-cdx --zipnum "$one/zipnum" --lines-per-block 100 "$one/all.cdx" 2> /dev/null
for f in cluster.idx cluster.loc cdx-00000.gz; do
    cmp -s "$one/zipnum/$f" "$spark/zipnum/$f" || fail "zipnum/$f differs from the single-machine build's"
done

# Documents without their position: the field list's `seq` column is dropped.
docs() {
    local cols
    cols=$("$bin" dumpindex -l "$1/main" "$1/dates" | tr '\t' '\n' \
        | grep -n -x -e seq | cut -d: -f1 | paste -sd,)
    "$bin" dumpindex "$1/main" "$1/dates" | tail -n +2 | cut -f "$cols" --complement
}
docs "$one/pindexes/one" | LC_ALL=C sort > "$work/one.docs"
for k in 0 1 2; do docs "$spark/pindexes/shard-$k" | sed "s/^/$k\t/"; done > "$work/spark.docs"
cut -f 2- "$work/spark.docs" | LC_ALL=C sort > "$work/spark.sorted"
cmp -s "$work/one.docs" "$work/spark.sorted" \
    || { diff "$work/one.docs" "$work/spark.sorted" | head -5 >&2; fail "documents differ"; }
[ -s "$work/one.docs" ] || fail "no documents"
# The same clusters of near-duplicates over the shards as over the one set.
"$bin" near-dups "$one" > "$work/one.near" 2> /dev/null
"$bin" near-dups "$spark" > "$work/spark.near" 2> /dev/null
cmp -s "$work/one.near" "$work/spark.near" \
    || { diff "$work/one.near" "$work/spark.near" | head -5 >&2; fail "near-dups differ"; }
[ -s "$work/one.near" ] || fail "no near-duplicates"
# Each URL key in one shard, the one FNV-1a names.
urlkey_col=$("$bin" dumpindex -l "$one/pindexes/one/main" "$one/pindexes/one/dates" \
    | tr '\t' '\n' | grep -v -x -e seq | grep -n '^urlkey$' | cut -d: -f1)
"$venv/bin/python" - "$work/spark.docs" "$urlkey_col" << 'EOF'
import sys
sys.path.insert(0, "spark")
from warcdex_spark import shard_of
seen = {}
for line in open(sys.argv[1], encoding="utf-8", errors="surrogateescape", newline="\n"):
    cols = line.rstrip("\n").split("\t")
    shard, key = int(cols[0]), cols[int(sys.argv[2])].strip("[]")
    assert shard_of(key, 3) == shard, (key, shard)
    assert seen.setdefault(key, shard) == shard, key
print("urlkeys:", len(seen), "in shards", sorted(set(seen.values())))
EOF

# The same top 10 for 20 queries through a front server (`serve --remote`) over three
# shard servers on loopback, one shard each, as through `search` over the one index:
# the same documents, dates, titles and scores, in the same order.
servers=()
trap '[ -z "$moto" ] || kill "$moto" 2> /dev/null; kill "${servers[@]}" 2> /dev/null; rm -rf "$work"' EXIT
started=
start_server() { # LOG ARGS...: `warcdex serve ARGS` in the background; its URL in $started
    local log=$1
    shift
    "$bin" serve --addr 127.0.0.1:0 --no-reload "$@" > /dev/null 2> "$log" &
    servers+=("$!")
    for _ in $(seq 200); do
        started=$(sed -n 's|^warcdex serve: listening on \(http://[^/]*\)/$|\1|p' "$log")
        [ -z "$started" ] || return 0
        sleep 0.05
    done
    fail "a server did not start: $(cat "$log")"
}
remotes=()
for k in 0 1 2; do
    mkdir -p "$work/srv-$k/pindexes"
    ln -s "$spark/pindexes/shard-$k" "$work/srv-$k/pindexes/shard-$k"
    start_server "$work/srv-$k.log" --shard -d "$work/srv-$k"
    remotes+=(--remote "$started")
done
start_server "$work/front.log" "${remotes[@]}"
front_url=$started
"$venv/bin/python" - "$bin" "$one" "$front_url" << 'EOF'
import json, subprocess, sys, urllib.parse, urllib.request
bin, one, front = sys.argv[1:]
queries = ["examples", "news", "example date:20071001", "government", "books",
           "python tutorial", "iana", "denmark", "lisbon", "the", "welcome", "basket",
           "domains", '"root zone"', "site:books.toscrape.com", "date:2014",
           "type:text/html", "collection:corpus books", "stock -poetry", "home page"]
def top(hits):
    return [(h["url"], h["digest"], h["dates"], h["title"], h["score"]) for h in hits]
mixed = 0
for q in queries:
    for per_site in (2, 0):
        a = json.loads(subprocess.run(
            [bin, "search", "-d", one, "--json", "--hits-per-site", str(per_site), q],
            check=True, capture_output=True).stdout)
        url = front + "/search.json?" + urllib.parse.urlencode(
            {"query": q, "hitsPerSite": per_site})
        b = json.load(urllib.request.urlopen(url, timeout=60))
        assert a["hits"], "no hits for %r" % q
        assert top(a["hits"]) == top(b["hits"]), (q, per_site, top(a["hits"]), top(b["hits"]))
        assert a["total"] == b["total"], (q, a["total"], b["total"])
        assert "unavailable" not in b, b["unavailable"]
        mixed += len({h["set"] for h in b["hits"]}) > 1
print("front: 20 queries, the same top 10 as one index;", mixed, "pages mix shards")
EOF
# A shard server down: the front names it and the others answer.
kill "${servers[0]}"
wait "${servers[0]}" 2> /dev/null || true
"$venv/bin/python" - "$front_url" << 'EOF'
import json, sys, urllib.request
r = json.load(urllib.request.urlopen(sys.argv[1] + "/search.json?query=the", timeout=60))
assert len(r["unavailable"]) == 1 and r["hits"], r
assert all(h["set"] != "shard-0" for h in r["hits"]), r["hits"]
EOF

leftover=$(find "$spark" -name '*.tmp-*' -o -name .work | head -1)
[ -z "$leftover" ] || fail "temporary output left: $leftover"

# The S3 path: the same archives in a local S3 server, read by the tasks with boto3.
port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$venv/bin/moto_server" -H 127.0.0.1 -p "$port" > "$work/moto.log" 2>&1 &
moto=$!
export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test \
    AWS_DEFAULT_REGION=us-east-1
"$venv/bin/python" - "$work/list.txt" "$work/s3-list.txt" << 'EOF'
import sys, time, boto3
s3 = boto3.client("s3")
for _ in range(200):
    try:
        s3.list_buckets()
        break
    except Exception:
        time.sleep(0.1)
s3.create_bucket(Bucket="archives")
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        path, collection = line.split()
        key = "crawls/" + path.rsplit("/", 1)[1]
        s3.upload_file(path, "archives", key)
        out.write("s3://archives/%s %s\n" % (key, collection))
EOF
grep -q '^s3://' "$work/s3-list.txt" || fail "no S3 list"
ok1 "$venv/bin/python" spark/warcdex_spark.py build "$work/s3" "$work/s3-list.txt" --shards 3 \
    --master 'local[2,4]' > /dev/null 2> "$work/s3.log" || { tail -30 "$work/s3.log" >&2; fail "S3 build"; }
grep -q 'GET /archives/crawls/' "$work/moto.log" || fail "the tasks did not read the archives from S3"
for f in all.cdx all.dup all.rev; do
    cmp -s "$spark/$f" "$work/s3/$f" || fail "$f from S3 differs"
done
for k in 0 1 2; do
    cmp -s <(docs "$spark/pindexes/shard-$k") <(docs "$work/s3/pindexes/shard-$k") \
        || fail "shard $k from S3 differs"
done
echo "test-spark.sh: ok ($(cat "$work/summary.json"))"
