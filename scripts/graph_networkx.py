"""`warcdex graph` read by networkx: builds the example collection
(fixtures/example, in two batches, the second only adding dates) plus a batch of one
WARC of awkward links (quotes, ampersands and angle brackets in URLs, non-ASCII and
long anchors, a dozen anchors on one edge, an IP address, an ftp: link, a page without
links), exports it at every level as GEXF and GraphML, reads each with
networkx.read_gexf / networkx.read_graphml, and compares nodes, edges, weights and
anchors with a graph computed here from the segments' Parquet rows (pyarrow), the
registered domains by the publicsuffixlist package, the dates of --from/--to from the
collection's CDX. Exits non-zero naming the first difference.

    python graph_networkx.py --bin WARCDEX --work DIR
"""

import argparse
import glob
import ipaddress
import os
import subprocess
import sys
from urllib.parse import urlsplit

import networkx as nx
import pyarrow.parquet as pq
from publicsuffixlist import PublicSuffixList

PSL = PublicSuffixList()
ANCHOR_BYTES = 96
MAX_ANCHORS = 10


def odd_warc(path):
    """A WARC of two pages whose links and URLs need escaping."""
    many = "".join(f'<a href="/many">anchor {i:02}</a>' for i in range(12))
    long = "long " * 40
    accents = "\u00e9" * 60
    links = (
        '<a href="/q?a=1&amp;b=&quot;2&quot;">&lt;Tags&gt; &amp; &quot;quotes&quot;, commas</a>'
        '<a href="http://10.0.0.1:8080/x">an IP</a>'
        '<a href="ftp://ftp.example.org/pub/">ftp</a>'
        '<a href="https://Www.Example.CO.UK/">Caf\u00e9 \u2615  au   lait</a>'
        f'<a href="/long">{long}</a><a href="/long">{accents}</a>'
        f"{many}"
        '<a href="http://www.example.org/index.html">Example</a>'
    )
    pages = [
        ('http://odd.example.com/a?q="x"&r=<y>', "2008-01-01T00:00:00Z",
         f"<html><head><title>Odd</title></head><body><p>odd {links}</p></body></html>"),
        ("http://lonely.example.net/", "2008-01-02T00:00:00Z",
         "<html><head><title>Lonely</title></head><body><p>no links</p></body></html>"),
    ]
    out = bytearray()
    for i, (url, date, html) in enumerate(pages):
        body = html.encode()
        http = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n"
                f"WARC-Date: {date}\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{i:012}>\r\n"
                "Content-Type: application/http; msgtype=response\r\n"
                f"Content-Length: {len(http)}\r\n\r\n").encode()
        out += head + http + b"\r\n\r\n"
    with open(path, "wb") as f:
        f.write(out)


def node(url, level):
    """The node of a URL at `level`; None for anything but an http(s) URL with a host."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    if level == "page":
        return url
    if level == "host":
        return host
    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        pass
    return PSL.privatesuffix(host) or host


def anchor(text):
    text = " ".join(text.split())
    return text.encode()[:ANCHOR_BYTES].decode("utf-8", "ignore").rstrip()


def cdx_dates(coll):
    dates = {}
    with open(os.path.join(coll, "all.cdx")) as f:
        for line in f:
            fields = line.split(" ")
            if line.startswith(" ") or len(fields) < 6:
                continue
            dates.setdefault((fields[0], "sha1:" + fields[5]), []).append(int(fields[1]))
    return dates


def expected(rows, level, keep):
    nodes, weights, anchors = set(), {}, {}
    for r in rows:
        if not keep(r):
            continue
        s = node(r["url"], level)
        if s is None:
            continue
        nodes.add(s)
        for link in r["outlinks"]:
            t = node(link["url"], level)
            if t is None:
                continue
            nodes.add(t)
            weights[(s, t)] = weights.get((s, t), 0) + 1
            a = anchor(link["anchor"])
            if a and level == "page":
                anchors.setdefault((s, t), set()).add(a)
    edges = {
        e: (w, " | ".join(sorted(anchors.get(e, ()))[:MAX_ANCHORS])) for e, w in weights.items()
    }
    return nodes, edges


def read(path, fmt):
    g = nx.read_gexf(path) if fmt == "gexf" else nx.read_graphml(path)
    if not g.is_directed() or g.is_multigraph():
        sys.exit(f"{path}: networkx read a {type(g).__name__}, not a DiGraph")
    edges = {}
    for s, t, d in g.edges(data=True):
        w = d["weight"]
        if w != int(w):
            sys.exit(f"{path}: weight {w} of {s} -> {t} is not a whole number")
        edges[(s, t)] = (int(w), d.get("anchors", ""))
    return set(g.nodes), edges


def compare(what, got, want):
    (gn, ge), (wn, we) = got, want
    if gn != wn:
        sys.exit(f"{what}: nodes differ: only warcdex {sorted(gn - wn)[:5]}, only here {sorted(wn - gn)[:5]}")
    if ge != we:
        diff = sorted((e, ge.get(e), we.get(e)) for e in set(ge) | set(we) if ge.get(e) != we.get(e))
        sys.exit(f"{what}: edges differ (edge, warcdex, here): {diff[:5]}")
    print(f"graph_networkx: {what}: {len(gn)} nodes, {len(ge)} edges, the same")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    ex = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "example")
    coll = os.path.join(a.work, "coll")
    odd = os.path.join(a.work, "odd-20080101.warc")
    odd_warc(odd)
    batches = [
        sorted(glob.glob(os.path.join(ex, "crawl[123]-*"))),
        sorted(glob.glob(os.path.join(ex, "crawl[45]-*"))),
        [odd],
    ]
    for archives in batches:
        subprocess.run([a.bin, "update", coll, "--collection-name", "example", *archives],
                       check=True, stderr=subprocess.DEVNULL)

    rows = []
    for path in sorted(glob.glob(os.path.join(coll, "segments", "*", "documents.parquet"))):
        rows += pq.read_table(path, columns=["url", "urlkey", "digest", "outlinks"]).to_pylist()
    if len(rows) != 7:
        sys.exit(f"{len(rows)} segment rows, expected 7 (five example versions, two odd pages)")
    dates = cdx_dates(coll)

    def window(lo, hi):
        return lambda r: any(lo <= d <= hi for d in dates[(r["urlkey"], r["digest"])])

    cases = [(level, [], lambda r: True) for level in ("page", "host", "domain")]
    # Dates that only the later batch added (the rows hold their first capture's).
    cases.append(("page", ["--from", "20071004", "--to", "20071005"],
                  window(20071004000000, 20071005999999)))
    cases.append(("host", ["--from", "2008"], window(20080000000000, 99999999999999)))
    for level, args, keep in cases:
        want = expected(rows, level, keep)
        for fmt in ("gexf", "graphml"):
            out = os.path.join(a.work, f"graph-{level}.{fmt}")
            subprocess.run([a.bin, "graph", coll, "--level", level, "--format", fmt, *args,
                            "-o", out], check=True, stderr=subprocess.DEVNULL)
            compare(f"{level} {fmt} {' '.join(args)}".strip(), read(out, fmt), want)

    # The awkward page came through: its URL, the anchors cut to ten, the IP.
    nodes, edges = expected(rows, "page", lambda r: True)
    odd_url = 'http://odd.example.com/a?q="x"&r=<y>'
    many = edges[(odd_url, "http://odd.example.com/many")]
    if many[0] != 12 or many[1].count(" | ") != MAX_ANCHORS - 1:
        sys.exit(f"the dozen anchors: {many}")
    if "10.0.0.1" not in expected(rows, "domain", lambda r: True)[0]:
        sys.exit("no IP node at domain level")
    print("graph_networkx: ok")


if __name__ == "__main__":
    main()
