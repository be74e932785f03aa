#!/usr/bin/env python3
"""Writes fixtures/replay/scripts.warc.gz: a page whose content is built by its own
scripts, for scripts/test-replay.sh (replay that runs scripts, in Chromium).

  https://app.example.org/docs/index.html  links `site.css?v=7` (archived without its
        query: found by the fuzzy match), runs app.js, links `other.html` (relative)
  https://app.example.org/docs/site.css     body colour rgb(12, 34, 56)
  https://app.example.org/docs/app.js       fetches data.json and writes its message into
                                            #out, and builds a list of three items
  https://app.example.org/docs/data.json    {"message": "built by the page's own script"}
  https://app.example.org/docs/other.html   a second page
  https://app.example.org/docs/old.html     a 301 to other.html

Standard library only; fixed dates and record ids, so the file is the same on every run.
Usage: make_replay_fixture.py [--out fixtures/replay/scripts.warc.gz]
"""

import argparse
import gzip
import hashlib
import base64

DATE = "2024-03-01T10:05:00Z"
BASE = "https://app.example.org/docs/"

INDEX = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Scripted docs</title>
<link rel="stylesheet" href="site.css?v=7">
<script src="app.js" defer></script></head>
<body><h1>Scripted docs</h1>
<p id="out">not built</p>
<ul id="list"></ul>
<p><a id="rel" href="other.html">other page</a></p>
</body></html>
"""
CSS = "body { color: rgb(12, 34, 56); }\n"
APP = """fetch("data.json")
  .then((r) => r.json())
  .then((d) => { document.getElementById("out").textContent = d.message; });
for (const word of ["alpha", "beta", "gamma"]) {
  const li = document.createElement("li");
  li.textContent = word;
  document.getElementById("list").appendChild(li);
}
"""
DATA = '{"message": "built by the page\'s own script"}\n'
OTHER = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>Other page</title>
<link rel="stylesheet" href="site.css"></head><body><h1>Other page</h1></body></html>
"""


def response(url, status, ctype, body, extra=()):
    reason = {200: "OK", 301: "Moved Permanently"}[status]
    head = [f"HTTP/1.1 {status} {reason}", f"Content-Type: {ctype}",
            f"Content-Length: {len(body)}", *extra]
    http = ("\r\n".join(head) + "\r\n\r\n").encode() + body
    digest = base64.b32encode(hashlib.sha1(body).digest()).decode()
    n = hashlib.sha1(url.encode()).hexdigest()[:12]
    warc = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n"
            f"WARC-Date: {DATE}\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{n}>\r\n"
            f"WARC-Payload-Digest: sha1:{digest}\r\n"
            f"Content-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(http)}\r\n\r\n").encode()
    return warc + http + b"\r\n\r\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="fixtures/replay/scripts.warc.gz")
    a = ap.parse_args()
    records = [
        response(BASE + "index.html", 200, "text/html; charset=utf-8", INDEX.encode()),
        response(BASE + "site.css", 200, "text/css", CSS.encode()),
        response(BASE + "app.js", 200, "application/javascript", APP.encode()),
        response(BASE + "data.json", 200, "application/json", DATA.encode()),
        response(BASE + "other.html", 200, "text/html; charset=utf-8", OTHER.encode()),
        response(BASE + "old.html", 301, "text/html", b"moved",
                 ["Location: other.html"]),
    ]
    with open(a.out, "wb") as f:
        for r in records:
            # One gzip member per record, mtime fixed: the same bytes on every run.
            f.write(gzip.compress(r, mtime=0))


if __name__ == "__main__":
    main()
