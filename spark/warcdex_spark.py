#!/usr/bin/env python3
"""Builds a warcdex collection on Apache Spark, sharded by URL key.

    warcdex_spark.py build COLLECTION_OUT ARCHIVE_LIST --shards N [--master URL]
        [--zipnum [--lines-per-block N]]

ARCHIVE_LIST has one archive per line, `PATH [COLLECTION]` as `warcdex import`'s
manifest (`#` comments): a local or shared-filesystem path, or `s3://bucket/key` (read
with boto3; the endpoint from `AWS_ENDPOINT_URL` for S3-compatible stores). The
warcdex binary comes from `WARCDEX_BIN` or `PATH`; on a cluster ship it with
`--files` and set `spark.executorEnv.WARCDEX_BIN`. COLLECTION_OUT must be on a file
system every executor sees (a shared file system; one machine's disk on `local[N]`).

Spark distributes, shuffles and retries; every step on data is the warcdex binary, so
the result is the single-machine build's:

1. per archive: `warcdex cdx`; each line is keyed by its URL key's shard (FNV-1a of the
   key, mod N: `warcdex_cdx::shard` computes the same);
2. the shuffle by shard: every capture of a URL key in one task, which sorts them
   (`sort-cdx`) and writes the shard's `cdx/shard-K.cdx`, exclusion list
   (`dedup-cdx`) and revisits (`revisits`): dedup is per URL key + digest, so a
   shard's lists are exactly the collection's lines of its keys;
3. the driver merges the shards' lists into `all.cdx`, `all.dup`, `all.rev` (`merge-cdx`:
   sorted inputs, byte order); with `--zipnum`, also the ZipNum cluster of `all.cdx` in
   `zipnum/` for pywb or Wayback (`merge-cdx --zipnum`: the order checked, written under
   a temporary name and renamed; docs/zipnum.md);
4. per archive: `warcdex import --shards N -e all.dup` into
   `segments/<archive>/shard-K`, the versions split by their URL key's shard (the
   shuffle of the parsed rows: each shard's index reads only its own); every version
   has one admitted capture, its first, so the archives' segments hold disjoint
   versions;
5. one task: `warcdex link-graph --shards N` over every segment into `graph/`: the
   links inverted once (Nutch's inverted-link step) and the link-analysis iterations
   run over the whole collection's graph, written as one file per target shard with
   each URL key's boost and anchors;
6. per shard: `warcdex index --shard K/N --graph graph` over the shard's segments
   (its documents with the collection-wide anchors and boosts), then `add-dates` with
   the shard's exclusions and revisits, into `pindexes/shard-K/{main,dates}`.

Every output is written under a temporary name and renamed into place; an output that
is already there (an earlier attempt of the task finished) is kept, so Spark's retries
and speculative tasks never leave duplicates or half files. `WARCDEX_SPARK_FAIL_ONCE=
STAGE:K` makes the first attempt of that stage's task K fail (the retry test).

Also runnable with plain `python` (it starts a `local[N]` Spark itself).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK64 = (1 << 64) - 1


def shard_of(urlkey, count):
    """FNV-1a (64-bit) of the key's UTF-8 bytes mod count: cdx/src/shard.rs."""
    h = FNV_OFFSET
    for b in urlkey.encode("utf-8", "surrogateescape"):
        h = ((h ^ b) * FNV_PRIME) & MASK64
    return h % max(1, count)


def warcdex_bin():
    b = os.environ.get("WARCDEX_BIN") or shutil.which("warcdex")
    if not b:
        raise RuntimeError("warcdex binary not found: set WARCDEX_BIN or put it on PATH")
    return b


def run(args, stdout=None, allow=(0,)):
    """Runs warcdex with args; raises with its stderr when it exits with a code not in
    allow (`cdx` and `import` exit 1 when an archive could not be read whole, after
    writing what they could: as with `update`, that is counted, not fatal)."""
    cmd = [warcdex_bin()] + [str(a) for a in args]
    p = subprocess.run(cmd, stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in allow:
        raise RuntimeError(
            "%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr.decode(errors="replace"))
        )
    return p


def parse_list(path):
    """(source, collection or None) per line of an archive list. A relative local path
    is made absolute here, in the driver, as `warcdex import` resolves a manifest's
    lines (as given when it exists from the working directory, else from the list's
    folder): executors run in other directories, and the segments record the absolute
    path of an archive that lies outside their import's folder."""
    out = []
    base = os.path.dirname(os.path.abspath(path))
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            source = parts[0]
            if "://" not in source and not os.path.isabs(source):
                if not os.path.exists(source):
                    source = os.path.join(base, source)
                source = os.path.abspath(source)
            out.append((source, parts[1].strip() if len(parts) > 1 else None))
    return out


def archive_name(source):
    """The archive's file name: the CDX file column, and its segment's name."""
    return source.rstrip("/").rsplit("/", 1)[-1]


def localize(source, workdir):
    """A local path holding the archive: the path itself, or an S3 object downloaded
    into workdir under its own name (the CDX file column names it)."""
    if not source.startswith("s3://"):
        return source
    import boto3  # only where archives live in an object store

    bucket, _, key = source[len("s3://"):].partition("/")
    dest = os.path.join(workdir, archive_name(source))
    boto3.client("s3", endpoint_url=os.environ.get("AWS_ENDPOINT_URL")).download_file(
        bucket, key, dest
    )
    return dest


def maybe_fail(stage, task):
    """Fails the first attempt of one task when WARCDEX_SPARK_FAIL_ONCE names it."""
    if os.environ.get("WARCDEX_SPARK_FAIL_ONCE") != "%s:%d" % (stage, task):
        return
    from pyspark import TaskContext

    ctx = TaskContext.get()
    if ctx is not None and ctx.attemptNumber() == 0:
        raise RuntimeError("injected failure of %s task %d, first attempt" % (stage, task))


def publish_file(tmp, final):
    """Renames tmp to final; an earlier attempt's final (the same bytes: every step is
    deterministic) is kept instead."""
    if os.path.exists(final):
        os.remove(tmp)
    else:
        os.replace(tmp, final)


def publish_dir(tmp, final):
    """publish_file for a directory."""
    if os.path.exists(final):
        shutil.rmtree(tmp)
    else:
        os.rename(tmp, final)


def tmp_name(out, final):
    """A temporary name for final in the collection's `.work` (the same file system, so
    the rename is atomic, and outside `pindexes/`, which readers list)."""
    return os.path.join(out, ".work", "%s.tmp-%s" % (os.path.basename(final), uuid.uuid4().hex))


# Stage 1: per archive, its CDX lines keyed by shard.
def cdx_task(shards, out):
    def task(index, items):
        for source, _collection in items:
            with tempfile.TemporaryDirectory(dir=os.path.join(out, ".work")) as work:
                local = localize(source, work)
                p = run(["cdx", local], allow=(0, 1))
            maybe_fail("cdx", index)
            # Only "\n" ends a CDX line (str.splitlines would also split at \x0c, \x85, …).
            for line in p.stdout.decode("utf-8", "surrogateescape").split("\n"):
                if not line:
                    continue
                if line.startswith(" CDX "):
                    # The legend goes to every shard: sort-cdx keeps one on top.
                    for k in range(shards):
                        yield k, line
                    continue
                yield shard_of(line.split(" ", 1)[0], shards), line

    return task


# Stage 2: per shard, the sorted CDX, the exclusion list and the revisits.
def shard_lists_task(out):
    def task(shard, pairs):
        with tempfile.TemporaryDirectory(dir=os.path.join(out, ".work")) as work:
            raw = os.path.join(work, "captures.cdx")
            n = 0
            with open(raw, "w", encoding="utf-8", errors="surrogateescape") as f:
                for _, line in pairs:
                    f.write(line + "\n")
                    n += not line.startswith(" CDX ")
            finals = {}
            for kind, sub, args in (
                ("cdx", "cdx", ["sort-cdx", raw]),
                ("dup", "dup", ["dedup-cdx"]),
                ("rev", "rev", ["revisits"]),
            ):
                final = os.path.join(out, sub, "shard-%d.%s" % (shard, kind))
                tmp = tmp_name(out, final)
                source = raw if kind == "cdx" else finals["cdx"]
                run(args[:1] + [source, "-o", tmp])
                publish_file(tmp, final)
                finals[kind] = final
                # Mid-way: the shard's sorted CDX is in place, its lists are not.
                maybe_fail("lists", shard)
            counts = {k: count_lines(v, skip_legend=(k == "cdx")) for k, v in finals.items()}
        yield {"shard": shard, "captures": n, "exclusions": counts["dup"], "revisits": counts["rev"]}

    return task


def merge_lines(parts, dest):
    """Merges sorted text files (C byte order, the lists have no legend) into dest."""
    import heapq

    files = [open(p, "rb") for p in parts]
    try:
        with open(dest, "wb") as f:
            f.writelines(heapq.merge(*files))
            f.flush()
            os.fsync(f.fileno())
    finally:
        for x in files:
            x.close()


def count_lines(path, skip_legend=False):
    with open(path, "rb") as f:
        return sum(1 for line in f if not (skip_legend and line.startswith(b" CDX")))


# Stage 3: per archive, its segments of new versions, one per shard.
def import_task(out, shards):
    def task(index, items):
        for source, collection in items:
            final = os.path.join(out, "segments", archive_name(source))
            if os.path.exists(final):
                yield {"archive": source, "reused": True}
                continue
            with tempfile.TemporaryDirectory(dir=os.path.join(out, ".work")) as work:
                local = localize(source, work)
                manifest = os.path.join(work, "manifest.txt")
                with open(manifest, "w", encoding="utf-8") as f:
                    f.write(local + (" " + collection if collection else "") + "\n")
                tmp = tmp_name(out, final)
                run(["import", "--shards", str(shards), "-e", os.path.join(out, "all.dup"),
                     manifest, tmp], allow=(0, 1))
                maybe_fail("import", index)
                publish_dir(tmp, final)
            yield {"archive": source, "reused": False}

    return task


def import_reports(out, archives):
    """Each archive's import report (`segment.json`'s source), as `update` counts them."""
    reports = []
    for source, _ in archives:
        path = os.path.join(out, "segments", archive_name(source), "shard-0", "segment.json")
        with open(path, encoding="utf-8") as f:
            reports.extend(json.load(f)["sources"])
    return reports


def segment_list(out, archives, shards, path):
    """Writes the segments of `shards` (every archive's), one per line, to `path`."""
    with open(path, "w", encoding="utf-8") as f:
        for source, _ in archives:
            for k in shards:
                f.write(os.path.join(out, "segments", archive_name(source), "shard-%d" % k) + "\n")
    return path


# Stage 4: one task, the link graph of the whole collection, split by target shard.
def graph_task(out, shards, archives):
    def task(index, items):
        for _ in items:
            final = os.path.join(out, "graph")
            if not os.path.exists(final):
                with tempfile.TemporaryDirectory(dir=os.path.join(out, ".work")) as work:
                    listed = segment_list(out, archives, range(shards),
                                          os.path.join(work, "segments.txt"))
                    tmp = tmp_name(out, final)
                    run(["link-graph", "--shards", str(shards), "--out", tmp,
                         "--segments-from", listed])
                    maybe_fail("graph", index)
                    publish_dir(tmp, final)
            with open(os.path.join(final, "graph.json"), encoding="utf-8") as f:
                yield json.load(f)

    return task


# Stage 5: per shard, its parallel index set.
def index_task(out, shards, archives):
    def task(index, items):
        for shard in items:
            final = os.path.join(out, "pindexes", "shard-%d" % shard)
            if not os.path.exists(final):
                tmp = tmp_name(out, final)
                os.makedirs(tmp)
                listed = segment_list(out, archives, [shard], tmp + ".segments")
                main = os.path.join(tmp, "main")
                dates = os.path.join(tmp, "dates")
                run(["index", "--shard", "%d/%d" % (shard, shards), "--graph",
                     os.path.join(out, "graph"), "--out", main, "--segments-from", listed])
                os.remove(listed)
                maybe_fail("index", shard)
                run(["add-dates", main, main, dates,
                     os.path.join(out, "dup", "shard-%d.dup" % shard)])
                run(["add-dates", "--in-place", main, dates, dates,
                     os.path.join(out, "rev", "shard-%d.rev" % shard)])
                publish_dir(tmp, final)
            with open(os.path.join(final, "main", "pindex.json"), encoding="utf-8") as f:
                info = json.load(f)
            yield {"shard": shard, "documents": info["documents"]}

    return task


def tree_bytes(path):
    """Bytes of the files under path."""
    total = 0
    for root, _dirs, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def build(args):
    from pyspark import SparkConf, SparkContext

    archives = parse_list(args.archive_list)
    names = {}
    for source, _ in archives:
        name = archive_name(source)
        if name in names:
            sys.exit("two archives named %s: %s and %s" % (name, names[name], source))
        names[name] = source
    out = os.path.abspath(args.out)
    for sub in ("cdx", "dup", "rev", "segments", "pindexes", ".work"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    # The executors' Python is this one (a virtualenv's, on local[N]).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    conf = SparkConf().setAppName("warcdex build").set("spark.task.maxFailures", "4")
    if args.master:
        conf.setMaster(args.master)
    elif not conf.contains("spark.master"):
        # local[N, F]: local mode retries a task only when F (its failures allowed) > 1.
        conf.setMaster("local[2,4]")
    sc = SparkContext(conf=conf)
    sc.setLogLevel("WARN")
    t0 = time.time()
    try:
        n = args.shards
        slices = max(1, min(len(archives), args.partitions or len(archives)))
        arch = sc.parallelize(archives, slices)
        stages = {}
        mark = time.time()

        def stage(name):
            nonlocal mark
            now = time.time()
            stages[name] = round(now - mark, 1)
            mark = now

        keyed = arch.mapPartitionsWithIndex(cdx_task(n, out))
        lists = (
            keyed.partitionBy(n, lambda k: k)
            .mapPartitionsWithIndex(shard_lists_task(out))
            .collect()
        )
        stage("cdx_and_lists")
        for kind, name in (("cdx", "all.cdx"), ("dup", "all.dup"), ("rev", "all.rev")):
            final = os.path.join(out, name)
            tmp = tmp_name(out, final)
            parts = [os.path.join(out, kind, "shard-%d.%s" % (k, kind)) for k in range(n)]
            if kind == "cdx":
                run(["merge-cdx", "-o", tmp] + parts)
            else:
                merge_lines(parts, tmp)
            os.replace(tmp, final)
        stage("merge_lists")
        if args.zipnum:
            run(["merge-cdx", "--zipnum", os.path.join(out, "zipnum"),
                 "--lines-per-block", args.lines_per_block, os.path.join(out, "all.cdx")])
            stage("zipnum")
        imported = arch.mapPartitionsWithIndex(import_task(out, n)).collect()
        stage("import")
        graph = sc.parallelize([0], 1).mapPartitionsWithIndex(graph_task(out, n, archives)).collect()
        stage("link_graph")
        indexed = (
            sc.parallelize(range(n), n)
            .mapPartitionsWithIndex(index_task(out, n, archives))
            .collect()
        )
        stage("index_and_dates")
    finally:
        sc.stop()
    shutil.rmtree(os.path.join(out, ".work"), ignore_errors=True)
    reports = import_reports(out, archives)
    troubled = [
        {"archive": os.path.basename(r["path"]), "anomalies": r["anomalies"], "error": r["error"]}
        for r in reports
        if r["anomalies"] or r["error"]
    ]
    summary = {
        "archives": len(archives),
        "archives_with_errors": sum(1 for r in reports if r["error"]),
        "records": sum(r["records"] for r in reports),
        "shards": n,
        "captures": sum(s["captures"] for s in lists),
        "exclusions": sum(s["exclusions"] for s in lists),
        "revisits": sum(s["revisits"] for s in lists),
        "documents": sum(s["documents"] for s in indexed),
        "parse_failures": sum(r["parse_failures"] for r in reports),
        "anomalies": sum(sum(r["anomalies"].values()) for r in reports),
        "archives_with_anomalies": troubled,
        "documents_per_shard": [s["documents"] for s in sorted(indexed, key=lambda s: s["shard"])],
        "segments_reused": sum(1 for s in imported if s["reused"]),
        "zipnum_blocks": (count_lines(os.path.join(out, "zipnum", "cluster.idx"))
                          if args.zipnum else None),
        "urls_per_shard": graph[0]["urls_per_shard"],
        "seconds": round(time.time() - t0, 1),
        "stage_seconds": stages,
        "bytes": {sub: tree_bytes(os.path.join(out, sub))
                  for sub in ("cdx", "segments", "graph", "pindexes")},
    }
    with open(os.path.join(out, "spark-build.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps(summary))
    for t in troubled:
        print("warcdex_spark: %s: anomalies %s%s" % (
            t["archive"], json.dumps(t["anomalies"]),
            "; stopped early: " + t["error"] if t["error"] else ""), file=sys.stderr)
    # As `update`: an archive that could not be read whole makes the run exit 1, once
    # everything else is built.
    return 1 if summary["archives_with_errors"] else 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="warcdex_spark.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build a sharded collection from an archive list")
    b.add_argument("out", help="the collection directory to write")
    b.add_argument("archive_list", help="one archive per line: PATH [COLLECTION]")
    b.add_argument("--shards", type=int, required=True, help="shards (by URL key)")
    b.add_argument(
        "--master",
        help="Spark master URL (default: spark-submit's, or local[2,4]: 2 threads, 4 tries a task)",
    )
    b.add_argument("--partitions", type=int, help="archive tasks (default: one per archive)")
    b.add_argument(
        "--zipnum",
        action="store_true",
        help="also write all.cdx as a ZipNum cluster in OUT/zipnum (for pywb or Wayback)",
    )
    b.add_argument(
        "--lines-per-block", type=int, default=3000, help="CDX lines per ZipNum block (3000)"
    )
    a = ap.parse_args(argv)
    if a.shards < 1:
        ap.error("--shards must be at least 1")
    if a.lines_per_block < 1:
        ap.error("--lines-per-block must be at least 1")
    return build(a)


if __name__ == "__main__":
    sys.exit(main())
