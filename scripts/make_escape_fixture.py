#!/usr/bin/env python3
"""Writes fixtures/replay/escape.warc.gz: archived pages that try to reach outside hosts
in every way a page can, for `scripts/eval-replay.sh --escape` (a replay should keep
all of it inside the archive, or block it).

Captures (one gzip member per record, warcinfo first, a response record per URL, fixed
dates and record ids, so the file is the same on every run):

  https://escape.example/            the page: static elements with outside URLs
                                     (img, srcset, protocol-relative, IP literal, iframe,
                                     async script, icon, preconnect, dns-prefetch, prefetch,
                                     preload, inline CSS url() and @font-face), and scripts
                                     that try fetch, XMLHttpRequest, WebSocket, EventSource,
                                     navigator.sendBeacon, new Image().src, dynamic
                                     <script>/<link>/<iframe>, import(), a worker's fetch,
                                     window.open, a service worker registration (archived
                                     and outside), an <a ping> click, a form auto-submitted
                                     to an outside action (1 s, into a named iframe) and a
                                     location assignment (3 s)
  https://escape.example/style.css   @import, url() and @font-face to outside hosts
  https://escape.example/sw.js       a service worker that imports and fetches outside
  https://escape.example/refresh.html  a meta refresh to an outside URL (a page of its own,
                                     so the first page's measures are taken before it leaves)

Every outside host is NAME.outside.example (or 203.0.113.7), NAME saying which way was
tried, so a list of requests that left loopback reads as a list of the ways that worked.

Usage: make_escape_fixture.py [--out fixtures/replay/escape.warc.gz]   (needs warcio)
"""

import argparse
import io
import os
import uuid

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

DATE = "2024-03-01T10:05:00Z"
HTTP_DATE = "Fri, 01 Mar 2024 10:05:00 GMT"

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Escape test</title>
<link rel="stylesheet" href="/style.css">
<link rel="icon" href="https://favicon.outside.example/favicon.ico">
<link rel="preconnect" href="https://preconnect.outside.example">
<link rel="dns-prefetch" href="https://dns-prefetch.outside.example">
<link rel="prefetch" href="https://prefetch.outside.example/next.html">
<link rel="preload" as="image" href="https://preload.outside.example/hero.png">
<style>
@font-face { font-family: InlineOutside; src: url(https://inline-font.outside.example/f.woff2) format("woff2"); }
.inline { background-image: url("https://inline-css-url.outside.example/bg.png"); font-family: InlineOutside, serif; }
</style>
<script async src="https://static-script.outside.example/s.js"></script>
</head>
<body>
<h1>Escape test</h1>
<p class="inline">Every element and script of this page tries to reach a host outside the
archive; a replay should keep each request inside it or block it.</p>
<img src="https://static-img.outside.example/a.png" alt="static img">
<img srcset="https://srcset.outside.example/b.png 1x" alt="srcset">
<img src="//protocol-relative.outside.example/c.png" alt="protocol-relative">
<img src="http://203.0.113.7/ip-literal.png" alt="IP literal">
<iframe src="https://static-iframe.outside.example/" width="120" height="40"></iframe>
<iframe name="sink" width="120" height="40"></iframe>
<p><a id="pinglink" href="#pinged" ping="https://ping.outside.example/ping">a link with ping</a></p>
<form id="outform" action="https://form.outside.example/submit" method="post" target="sink">
<input name="q" value="x"></form>
<pre id="log"></pre>
<script>
var out = document.getElementById('log');
function attempt(name, f) {
  try { f(); out.textContent += name + ': tried\\n'; }
  catch (e) { out.textContent += name + ': ' + e + '\\n'; }
}
attempt('fetch', function () { fetch('https://fetch.outside.example/api').catch(function () {}); });
attempt('xhr', function () {
  var x = new XMLHttpRequest(); x.open('GET', 'https://xhr.outside.example/data'); x.send();
});
attempt('websocket', function () { new WebSocket('wss://websocket.outside.example/socket'); });
attempt('eventsource', function () {
  var es = new EventSource('https://eventsource.outside.example/stream');
  setTimeout(function () { es.close(); }, 2000);
});
attempt('beacon', function () { navigator.sendBeacon('https://beacon.outside.example/b', 'x'); });
attempt('image', function () { new Image().src = 'https://image.outside.example/pixel.gif'; });
attempt('dynamic script', function () {
  var s = document.createElement('script'); s.src = 'https://script.outside.example/s.js';
  document.head.appendChild(s);
});
attempt('dynamic stylesheet', function () {
  var l = document.createElement('link'); l.rel = 'stylesheet';
  l.href = 'https://stylesheet.outside.example/s.css'; document.head.appendChild(l);
});
attempt('dynamic iframe', function () {
  var f = document.createElement('iframe'); f.src = 'https://iframe.outside.example/';
  f.width = 120; f.height = 40; document.body.appendChild(f);
});
attempt('import()', function () { import('https://import.outside.example/m.js').catch(function () {}); });
attempt('worker fetch', function () {
  var src = "fetch('https://worker.outside.example/w').catch(function () {});";
  new Worker(URL.createObjectURL(new Blob([src], {type: 'text/javascript'})));
});
attempt('window.open', function () { window.open('https://popup.outside.example/', '_blank'); });
attempt('service worker', function () {
  if (navigator.serviceWorker) navigator.serviceWorker.register('/sw.js').catch(function () {});
});
attempt('outside service worker', function () {
  if (navigator.serviceWorker)
    navigator.serviceWorker.register('https://sw.outside.example/sw.js').catch(function () {});
});
attempt('a ping', function () { document.getElementById('pinglink').click(); });
setTimeout(function () {
  attempt('form', function () { document.getElementById('outform').submit(); });
}, 1000);
setTimeout(function () {
  attempt('location', function () { location.href = 'https://location.outside.example/'; });
}, 3000);
</script>
</body>
</html>
"""

STYLE = """@import url("https://css-import.outside.example/imported.css");
@font-face { font-family: CssOutside; src: url(https://css-font.outside.example/f.woff2) format("woff2"); }
body { background-image: url(https://css-url.outside.example/bg.png); }
h1 { font-family: CssOutside, sans-serif; }
"""

SW = """try { importScripts('https://sw-import.outside.example/x.js'); } catch (e) {}
self.addEventListener('install', function (e) {
  e.waitUntil(fetch('https://sw-fetch.outside.example/install').catch(function () {}));
});
"""

REFRESH = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="1; url=https://refresh.outside.example/">
<title>Escape test: refresh</title>
</head>
<body><h1>Escape test: refresh</h1><p>This page refreshes to an outside URL after 1 s.</p></body>
</html>
"""

RECORDS = [
    ("https://escape.example/", "text/html; charset=utf-8", PAGE),
    ("https://escape.example/style.css", "text/css; charset=utf-8", STYLE),
    ("https://escape.example/sw.js", "application/javascript; charset=utf-8", SW),
    ("https://escape.example/refresh.html", "text/html; charset=utf-8", REFRESH),
]


def record_id(name):
    return "<urn:uuid:%s>" % uuid.uuid5(uuid.NAMESPACE_URL, "escape-fixture:" + name)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="fixtures/replay/escape.warc.gz")
    a = p.parse_args()
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    tmp = a.out + ".tmp"
    with open(tmp, "wb") as f:
        w = WARCWriter(f, gzip=True)
        info = w.create_warcinfo_record(os.path.basename(a.out), {
            "software": "scripts/make_escape_fixture.py (warcio)",
            "format": "WARC File Format 1.0",
            "description": "pages that try to reach outside hosts, for eval-replay.sh --escape"})
        info.rec_headers.replace_header("WARC-Record-ID", record_id("warcinfo"))
        info.rec_headers.replace_header("WARC-Date", DATE)
        w.write_record(info)
        for url, ctype, body in RECORDS:
            data = body.encode()
            http = StatusAndHeaders("200 OK", [
                ("Date", HTTP_DATE), ("Content-Type", ctype), ("Content-Length", str(len(data)))],
                protocol="HTTP/1.1")
            rec = w.create_warc_record(url, "response", payload=io.BytesIO(data), http_headers=http,
                                       warc_headers_dict={"WARC-Date": DATE,
                                                          "WARC-Record-ID": record_id(url)})
            w.write_record(rec)
    os.replace(tmp, a.out)
    print(f"make_escape_fixture: wrote {a.out} ({len(RECORDS)} responses)")


if __name__ == "__main__":
    main()
