#!/usr/bin/env python3
"""Writes a synthetic collection of about N versions for scripts/bench-scale.sh.

The pages are the HTML of the Debian doc packages that ../shared/bench/make_bench.py
crawls (install them as its README says); each is served under many hosts, so that a
few thousand pages make as many distinct versions as asked. The pages are taken in a
shuffled order (fixed by the seed), so that every size holds the same mix of them: in
their sorted order, the 100,000-version collection had pages of 12.6 KB on average and
the 1,000,000-version one 14.1 KB, which made a version 12% more work at 1,000,000 and
hid how the steps scale. Three crawls, as web
archives hold them: crawl 1 captures U URLs; crawls 2 and 3 capture the same URLs
again, 90% unchanged (the same digest: a duplicate, not a new version) and 10% with a
revision note (a new version). So N = U * 1.2. One gzip member per record, a WARC
response with its WARC-Payload-Digest, as crawlers write them.

Usage: python3 scripts/make_scale.py --versions N --out DIR
Writes DIR/crawl-1.warc.gz, DIR/crawl-2.warc.gz, DIR/crawl-3.warc.gz and
DIR/manifest.txt. Only the standard library is used.
"""
import argparse
import base64
import gzip
import hashlib
import os
import random
import sys

DOC_ROOTS = [
    "/usr/share/doc/python3.11/html",
    "/usr/share/doc/postgresql-doc-15/html",
    "/usr/share/doc/python-django-doc/html",
    "/usr/share/doc/openjdk-17-jre-headless/api",
    "/usr/share/doc/rust-doc/html",
    "/usr/share/doc/sphinx-doc/html",
]
CRAWL_DATES = ["2024-01-15T03:00:00Z", "2024-04-15T03:00:00Z", "2024-07-15T03:00:00Z"]
MAX_PAGE = 256 * 1024


def pages():
    """(relative path, bytes) of every HTML page under the doc roots, in a fixed order."""
    found = []
    for root in DOC_ROOTS:
        if not os.path.isdir(root):
            print("missing doc root (install its package):", root, file=sys.stderr)
            continue
        for d, _, files in sorted(os.walk(root)):
            for f in sorted(files):
                if f.endswith(".html"):
                    p = os.path.join(d, f)
                    if os.path.getsize(p) <= MAX_PAGE:
                        found.append((os.path.relpath(p, "/usr/share/doc"), p))
    if not found:
        sys.exit("make_scale.py: no doc pages found")
    return found


def record(url, date, body):
    http = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
        + b"Content-Length: %d\r\n\r\n" % len(body)
        + body
    )
    digest = base64.b32encode(hashlib.sha1(body).digest()).decode()
    head = (
        "WARC/1.0\r\nWARC-Type: response\r\n"
        f"WARC-Target-URI: {url}\r\nWARC-Date: {date}\r\n"
        f"WARC-Record-ID: <urn:uuid:{hashlib.md5((url + date).encode()).hexdigest()}>\r\n"
        f"WARC-Payload-Digest: sha1:{digest}\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(http)}\r\n\r\n"
    ).encode()
    return gzip.compress(head + http + b"\r\n\r\n", compresslevel=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--versions", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=17)
    a = ap.parse_args()
    src = pages()
    urls = max(1, round(a.versions / 1.2))
    rng = random.Random(a.seed)
    changed = [set(), set()]
    for c in changed:
        c.update(rng.sample(range(urls), urls // 10))
    # Its own generator, so that the revised URLs stay those of earlier collections.
    random.Random(a.seed + 1).shuffle(src)
    os.makedirs(a.out, exist_ok=True)
    cache = {}
    manifest = []
    for crawl, date in enumerate(CRAWL_DATES):
        path = os.path.join(a.out, f"crawl-{crawl + 1}.warc.gz")
        with open(path, "wb") as out:
            for i in range(urls):
                rel, p = src[i % len(src)]
                if p not in cache:
                    with open(p, "rb") as f:
                        cache[p] = f.read()
                body = cache[p]
                # The host number makes each URL distinct; the body names it too, so
                # every URL's first capture is a version of its own.
                host = i // len(src)
                body = body.replace(
                    b"</body>", b"<p>mirror %d</p></body>" % host, 1
                )
                for k in range(crawl):
                    if i in changed[k]:
                        body = body.replace(
                            b"</body>",
                            b"<p>revised %s</p></body>" % CRAWL_DATES[k + 1][:10].encode(),
                            1,
                        )
                out.write(record(f"https://m{host}.example/{rel}", date, body))
        manifest.append(path)
        print(f"crawl {crawl + 1}: {urls} captures -> {path}", file=sys.stderr)
    with open(os.path.join(a.out, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")


if __name__ == "__main__":
    main()
