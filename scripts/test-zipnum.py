#!/usr/bin/env python3
"""warcdex's ZipNum clusters read by pywb 2.10 (scripts/test-zipnum.sh runs it).

    test-zipnum.py WARCDEX_BIN WORKDIR ARCHIVE...

Builds the CDX of the archives (`warcdex cdx`; the few lines pywb's CDXObject cannot parse,
which pywb could not serve from any index, left out and counted), sorts it to one plain CDX
(`sort-cdx`)
and writes it as a ZipNum cluster of small blocks (`sort-cdx --zipnum --lines-per-block
50`, so that there are many blocks and many URL keys cross a block boundary; `merge-cdx
--zipnum` of the sorted CDX must write the same bytes). Then checks:

- the cluster itself, read here without pywb: `cluster.idx` has one line per block,
  numbered from 1, whose offset and length are exactly one gzip member of the part, whose
  first line's key and timestamp are the index line's key; every block but the last has
  50 lines; the blocks in order are the sorted CDX without its legend; `cluster.loc`
  names the part relative to itself;
- pywb's `ZipNumIndexSource` (opened from the `zipnum+PATH` string a `config.yaml`
  `index:` takes) answers, for EVERY distinct URL key of the sorted CDX, an exact query
  with exactly the lines whose key is that key and a prefix query with exactly the lines
  whose key starts with it (each query walked page by page, as a client of pywb's paged
  index does: `showNumPages`, then `page=0..N-1`); the same for the URL key of each host
  (prefix queries over many blocks and pages), for keys absent from the CDX (before the
  first, after the last, between two, inside a block's range), and by URL: for each key,
  its first line's URL canonicalized by pywb itself, with exact match.

The keys are given to pywb as keys (a canonicalizer that returns the URL it is given, the
`_url_canon` parameter of `CDXQuery`), so the query is about the index and not about
canonicalization; the by-URL queries then go through pywb's own canonicalizer. Lines are
compared as pywb returns them (`CDXObject.to_text()`, the raw line). Any difference
fails the run, showing the query and the first lines that differ; the counts are printed
at the end.
"""
import bisect
import gzip
import os
import subprocess
import sys
import zlib

# 50 lines a block: many blocks; 7: many more, and keys whose lines fill more than
# pywb's 10 blocks a page, so that their exact queries are paged too.
BLOCK_SIZES = (50, 7)


def fail(msg):
    print("test-zipnum: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def run(bin_, args, allow=(0,)):
    p = subprocess.run([bin_] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in allow:
        fail("warcdex %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr.decode(errors="replace")))
    return p


class KeyAsIs:
    """A pywb URL canonicalizer that takes the URL to be the key already."""

    surt_ordered = True

    def __call__(self, url):
        return url


def read_cluster(zdir, sorted_lines, per_block):
    """Checks the cluster without pywb; returns (blocks, first keys of blocks)."""
    with open(os.path.join(zdir, "cluster.loc"), "rb") as f:
        loc = f.read()
    if loc != b"cdx-00000.gz\tcdx-00000.gz\n":
        fail("cluster.loc is %r" % loc)
    with open(os.path.join(zdir, "cdx-00000.gz"), "rb") as f:
        part = f.read()
    with open(os.path.join(zdir, "cluster.idx"), "rb") as f:
        idx = f.read().splitlines()
    blocks = []
    end = 0
    for n, line in enumerate(idx, 1):
        fields = line.split(b"\t")
        if len(fields) != 5 or fields[1] != b"cdx-00000.gz" or int(fields[4]) != n:
            fail("cluster.idx line %d: %r" % (n, line))
        off, length = int(fields[2]), int(fields[3])
        if off != end:
            fail("block %d starts at %d, the block before ends at %d" % (n, off, end))
        end = off + length
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        text = d.decompress(part[off:end])
        if not d.eof or d.unused_data:
            fail("block %d (offset %d, length %d) is not exactly one gzip member" % (n, off, length))
        if not text.endswith(b"\n"):
            fail("block %d does not end with a newline" % n)
        lines = text.split(b"\n")[:-1]
        if len(lines) != per_block and n != len(idx):
            fail("block %d has %d lines" % (n, len(lines)))
        if b" ".join(lines[0].split(b" ")[:2]) != fields[0]:
            fail("block %d starts with %r, cluster.idx says %r" % (n, lines[0], fields[0]))
        blocks.append(lines)
    if end != len(part):
        fail("the part has %d bytes after the last block" % (len(part) - end))
    flat = [l for b in blocks for l in b]
    if flat != sorted_lines:
        fail("the blocks are not the sorted CDX (%d lines against %d)" % (len(flat), len(sorted_lines)))
    if gzip.decompress(part).split(b"\n")[:-1] != sorted_lines:
        fail("zcat of the part is not the sorted CDX")
    return blocks


def main():
    bin_, work, archives = sys.argv[1], sys.argv[2], sys.argv[3:]
    from pywb.warcserver.index.cdxobject import CDXException, CDXObject

    every = os.path.join(work, "every.cdx")
    raw = os.path.join(work, "raw.cdx")
    plain = os.path.join(work, "sorted.cdx")
    # `cdx` exits 1 when an archive could not be read whole, after writing what it read.
    run(bin_, ["cdx", "-o", every] + archives, allow=(0, 1))
    # Lines pywb's CDXObject cannot parse are left out: pywb cannot serve them from any
    # index (a URL with spaces, written as pywb's cdx-indexer writes it, makes a line of
    # more than 11 fields), and a query whose range holds one fails whole.
    unparsable = 0
    with open(every, "rb") as f, open(raw, "wb") as out:
        for line in f:
            if not line.startswith(b" CDX "):
                try:
                    CDXObject(line)
                except CDXException:
                    unparsable += 1
                    continue
            out.write(line)
    run(bin_, ["sort-cdx", "-o", plain, raw])
    print("test-zipnum: %d lines pywb cannot parse left out" % unparsable)
    for n in BLOCK_SIZES:
        check_cluster(bin_, work, raw, plain, n)


def check_cluster(bin_, work, raw, plain, per_block):
    """Writes the cluster of raw with per_block lines a block and checks it (the
    module's text)."""
    from pywb.warcserver.index.cdxobject import CDXException
    from pywb.warcserver.index.zipnum import ZipNumIndexSource
    from pywb.warcserver.warcserver import init_index_agg, init_index_source
    from pywb.utils.canonicalize import canonicalize, UrlCanonicalizeException

    zdir = os.path.join(work, "cluster-%d" % per_block)
    run(bin_, ["sort-cdx", "--zipnum", zdir, "--lines-per-block", str(per_block), raw])
    merged = os.path.join(work, "merged-%d" % per_block)
    run(bin_, ["merge-cdx", "--zipnum", merged, "--lines-per-block", str(per_block), plain])
    for name in ("cluster.idx", "cluster.loc", "cdx-00000.gz"):
        with open(os.path.join(zdir, name), "rb") as a, open(os.path.join(merged, name), "rb") as b:
            if a.read() != b.read():
                fail("merge-cdx --zipnum of the sorted CDX wrote another %s" % name)

    with open(plain, "rb") as f:
        lines = [l for l in f.read().split(b"\n")[:-1]]
    legend = [l for l in lines if l.startswith(b" CDX ")]
    lines = [l for l in lines if not l.startswith(b" CDX ")]
    if len(legend) != 1 or len(lines) < 1000:
        fail("expected one legend and many lines: %d legends, %d lines" % (len(legend), len(lines)))
    blocks = read_cluster(zdir, lines, per_block)

    by_key = {}
    for l in lines:
        by_key.setdefault(l.split(b" ", 1)[0], []).append(l)
    keys = sorted(by_key)
    undecodable = [k for k in keys if not is_utf8(k)]
    if undecodable:
        fail("keys that are not UTF-8 (pywb's CDXQuery takes text): %r" % undecodable[:3])
    # Keys whose first line opens a block, and keys whose lines cross a block's end.
    firsts = {b[0].split(b" ", 1)[0] for b in blocks}
    crossing = {b[-1].split(b" ", 1)[0] for b in blocks[:-1]} & {b[0].split(b" ", 1)[0] for b in blocks[1:]}

    idx_path = os.path.join(zdir, "cluster.idx")
    source = init_index_source("zipnum+" + idx_path)
    if not isinstance(source, ZipNumIndexSource) or not isinstance(init_index_source(idx_path), ZipNumIndexSource):
        fail("pywb does not take %s for a ZipNum cluster" % idx_path)

    counts = {"queries": 0, "pages": 0, "paged": 0, "lines": 0}

    def query(params):
        """Every line pywb returns, page by page, as raw text lines (bytes)."""
        info = list(source.load_index(dict(params, showNumPages=True)))
        pages = info[0]["pages"] if info else 0
        out = []
        for page in range(pages):
            for cdx in source.load_index(dict(params, page=page)):
                out.append(cdx.to_text().encode("utf-8"))
        counts["queries"] += 1
        counts["pages"] += pages
        counts["paged"] += pages > 1
        counts["lines"] += len(out)
        return out

    def check(what, params, want):
        got = query(params)
        want = [l + b"\n" for l in want]
        if got != want:
            n = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            fail("%s %r: pywb returned %d lines, the sorted CDX has %d; first difference at %d:\n"
                 "  pywb: %r\n  cdx:  %r" % (what, params.get("url"), len(got), len(want), n,
                                            got[n] if n < len(got) else None,
                                            want[n] if n < len(want) else None))

    def prefixed(prefix):
        """The lines whose key starts with prefix: found by bisection (the lines that
        start with it are one run of the sorted lines), then checked key by key."""
        lo = bisect.bisect_left(lines, prefix)
        hi = len(lines)
        if prefix[-1] < 255:
            hi = bisect.bisect_left(lines, prefix[:-1] + bytes([prefix[-1] + 1]))
        return [l for l in lines[lo:hi] if l.split(b" ", 1)[0].startswith(prefix)]

    def by_keys(key, match):
        return {"url": key.decode("utf-8"), "matchType": match, "_url_canon": KeyAsIs()}

    for k in keys:
        check("exact", by_keys(k, "exact"), by_key[k])
        check("prefix", by_keys(k, "prefix"), prefixed(k))

    # Every host's key prefix (`com,example)/`): queries over many blocks and pages.
    hosts = sorted({k.split(b")", 1)[0] + b")/" for k in keys if b")/" in k})
    for h in hosts:
        check("host prefix", by_keys(h, "prefix"), prefixed(h))
    # Top-level prefixes (`com,`, `org,`): the widest ranges.
    tops = sorted({k.split(b",", 1)[0] + b"," for k in keys if b"," in k})
    for t in tops:
        check("top-level prefix", by_keys(t, "prefix"), prefixed(t))

    # Keys that are not in the CDX: before the first, after the last, and just after each
    # key that opens a block (inside that block's range, between two keys).
    absent = [b"!", b"0", b"~~~", keys[-1] + b"~"]
    absent += [k + b"-absent" for k in sorted(firsts)][:200]
    absent = [a for a in absent if a not in by_key]
    for a in absent:
        check("absent exact", by_keys(a, "exact"), [])
        check("absent prefix", by_keys(a, "prefix"), prefixed(a))

    # By URL, through pywb's own canonicalizer: the first URL of each key.
    by_url = canon_differs = 0
    for k in keys:
        url = by_key[k][0].split(b" ")[2].decode("utf-8")
        try:
            ck = canonicalize(url).encode("utf-8")
        except (UrlCanonicalizeException, CDXException, ValueError):
            continue
        if ck != k:
            canon_differs += 1
        check("url exact", {"url": url, "matchType": "exact"}, by_key.get(ck, []))
        by_url += 1

    # What a config.yaml `index: zipnum+PATH` makes: the aggregator over the cluster, as
    # a replay lookup asks it (by URL, exact, the first page only: keys whose lines fit in
    # pywb's 10 blocks whatever block they start in). The aggregator adds fields, so
    # fields are compared.
    agg = init_index_agg({"c": "zipnum+" + idx_path})
    names = ["urlkey", "timestamp", "url", "mime", "status", "digest", "redirect",
             "robotflags", "length", "offset", "filename"]
    by_config = 0
    for k in keys[::5]:
        url = by_key[k][0].split(b" ")[2].decode("utf-8")
        try:
            ck = canonicalize(url).encode("utf-8")
        except (UrlCanonicalizeException, CDXException, ValueError):
            continue
        want = [l.decode("utf-8").split(" ") for l in by_key.get(ck, [])]
        if len(want) > 9 * per_block or any(len(w) != len(names) for w in want):
            continue
        cdx_iter, errs = agg({"url": url, "matchType": "exact"})
        got = [[c[n] for n in names] for c in cdx_iter]
        if errs or got != want:
            fail("config zipnum+ %r: errors %r, %d lines against %d" % (url, errs, len(got), len(want)))
        by_config += 1

    print("test-zipnum: %d lines in %d blocks of %d; %d URL keys queried exact and prefix "
          "(%d open a block, %d cross a block's end), %d host and %d top-level prefixes, "
          "%d absent keys, %d URLs through pywb's canonicalizer (%d canonicalized to another "
          "key), %d URLs through a zipnum+ index config; %d queries (%d of several pages), "
          "%d pages, %d lines returned, all equal to the sorted CDX"
          % (len(lines), len(blocks), per_block, len(keys), len(firsts), len(crossing),
             len(hosts), len(tops), len(absent), by_url, canon_differs, by_config,
             counts["queries"], counts["paged"], counts["pages"], counts["lines"]))
    if not crossing or len(blocks) < 20 or not counts["paged"] or not by_config:
        fail("too few blocks, keys crossing a block's end, paged queries or config lookups: "
             "the test would prove little")


def is_utf8(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


if __name__ == "__main__":
    main()
