#!/usr/bin/env python3
"""Writes fixtures/example/ and fixtures/readme-dedup/.

fixtures/example/: the five-archive collection of docs/formats.md §5 (three ARC crawls,
a gzip WARC, a WARC of revisit records), with small real HTML pages that link to each other.

Structure (docs/formats.md §5, "Worked example"):
  crawl1-20071001.arc      www.example.org/index.html (A), example.org/about.html (C),
                           www.example.org/news.html (D)
  crawl2-20071002.arc      example.org/index.html (A, no www), example.org/about.html (C),
                           www.example.org/news.html (E)
  crawl3-20071003.arc      www.example.org/index.html (B)
  crawl4-20071004.warc.gz  response www.example.org/index.html (A) (+ warcinfo, request)
  crawl5-20071005.warc     revisit www.example.org/index.html (A), revisit example.org/about.html (C)
Bodies A-E are this script's own pages (so their digests differ from §5's, which were made with
other bodies); everything else - URLs, dates, which captures repeat - is §5's. Deterministic:
running it again writes the same bytes. Standard library only.

fixtures/readme-dedup/: README-dedup's ten daily captures of one page (docs/formats.md §5.6), one
gzip ARC per day, bodies equal to the README's content samples (so the digests are §5.6's).
"""
import base64
import gzip
import hashlib
import io
import os
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "example")

PAGES = {
    "A": ("Example A", "Welcome to the example organisation. We make examples of everything.",
          [("/about.html", "About the example organisation"), ("news.html", "Latest news")]),
    "B": ("Example B", "Welcome back. The example organisation has a new home page and a new logo.",
          [("/about.html", "About us"), ("/news.html", "News and announcements")]),
    "C": ("About C", "The example organisation was founded in 1999 to write examples.",
          [("http://www.example.org/index.html", "Example home page")]),
    "D": ("News D", "October: the example organisation opens an office in Lisbon.",
          [("/index.html", "Home"), ("http://www.iana.org/domains/example", "Reserved domains")]),
    "E": ("News E", "October: the example organisation closes its office in Lisbon.",
          [("/index.html", "Home"), ("/about.html", "Who we are")]),
}


def body(v):
    title, text, links = PAGES[v]
    a = " ".join('<a href="%s">%s</a>' % (h, t) for h, t in links)
    html = ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>%s</title>'
            '<style>p { color: black }</style></head>\n<body><h1>%s</h1>\n<p>%s</p>\n'
            '<script>var hidden = "not text";</script>\n<p>%s</p>\n</body></html>\n'
            % (title, title, text, a))
    return html.encode("utf-8")


def http_response(v, date_http):
    b = body(v)
    head = ("HTTP/1.1 200 OK\r\nDate: %s\r\nServer: Apache\r\nContent-Type: text/html; charset=utf-8\r\n"
            "Content-Length: %d\r\n\r\n" % (date_http, len(b))).encode("ascii")
    return head, b


def digest(b):
    return base64.b32encode(hashlib.sha1(b).digest()).decode("ascii")


def http_date(d14):
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    return "Mon, %s %s %s %s:%s:%s GMT" % (d14[6:8], months[int(d14[4:6]) - 1], d14[:4], d14[8:10], d14[10:12], d14[12:14])


def write_arc(name, records):
    """ARC v1, plain, LF line endings (docs/formats.md §3.1)."""
    d0 = records[0][1]
    version = b"1 0 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n"
    out = io.BytesIO()
    out.write(b"filedesc://%s 0.0.0.0 %s text/plain %d\n" % (name.encode(), d0.encode(), len(version)))
    out.write(version)
    out.write(b"\n")
    for url, d14, v in records:
        head, b = http_response(v, http_date(d14))
        block = head + b
        out.write(b"%s 93.184.216.34 %s text/html %d\n" % (url.encode(), d14.encode(), len(block)))
        out.write(block)
        out.write(b"\n")
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(out.getvalue())


def iso(d14):
    return "%s-%s-%sT%s:%s:%sZ" % (d14[:4], d14[4:6], d14[6:8], d14[8:10], d14[10:12], d14[12:14])


def warc_record(fields, block):
    head = "WARC/1.0\r\n" + "".join("%s: %s\r\n" % kv for kv in fields)
    head += "Content-Length: %d\r\n\r\n" % len(block)
    return head.encode("utf-8") + block + b"\r\n\r\n"


def uuid_for(*parts):
    h = hashlib.sha1("|".join(parts).encode()).hexdigest()
    return "<urn:uuid:%s-%s-%s-%s-%s>" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:32])


def warcinfo(name, d14):
    info = b"software: warcdex scripts/make_example.py\r\nformat: WARC File Format 1.0\r\n"
    return warc_record([("WARC-Type", "warcinfo"), ("WARC-Date", iso(d14)), ("WARC-Filename", name),
                        ("WARC-Record-ID", uuid_for(name, "info")),
                        ("Content-Type", "application/warc-fields")], info)


def main():
    os.makedirs(OUT, exist_ok=True)
    write_arc("crawl1-20071001.arc", [
        ("http://www.example.org/index.html", "20071001120000", "A"),
        ("http://example.org/about.html", "20071001120100", "C"),
        ("http://www.example.org/news.html", "20071001120200", "D")])
    write_arc("crawl2-20071002.arc", [
        ("http://example.org/index.html", "20071002120000", "A"),
        ("http://example.org/about.html", "20071002120100", "C"),
        ("http://www.example.org/news.html", "20071002120200", "E")])
    write_arc("crawl3-20071003.arc", [
        ("http://www.example.org/index.html", "20071003120000", "B")])

    # crawl4: gzip per record (warcinfo, response, request).
    name4, d4, url = "crawl4-20071004.warc.gz", "20071004120000", "http://www.example.org/index.html"
    head, b = http_response("A", http_date(d4))
    resp_id = uuid_for(name4, "response")
    recs = [warcinfo(name4, d4),
            warc_record([("WARC-Type", "response"), ("WARC-Target-URI", url), ("WARC-Date", iso(d4)),
                         ("WARC-Payload-Digest", "sha1:" + digest(b)), ("WARC-IP-Address", "93.184.216.34"),
                         ("WARC-Record-ID", resp_id), ("Content-Type", "application/http; msgtype=response")],
                        head + b),
            warc_record([("WARC-Type", "request"), ("WARC-Target-URI", url), ("WARC-Date", iso(d4)),
                         ("WARC-Concurrent-To", resp_id), ("WARC-Record-ID", uuid_for(name4, "request")),
                         ("Content-Type", "application/http; msgtype=request")],
                        b"GET /index.html HTTP/1.1\r\nHost: www.example.org\r\nUser-Agent: warcdex-example\r\n\r\n")]
    with open(os.path.join(OUT, name4), "wb") as f:
        for r in recs:
            f.write(gzip.compress(r, mtime=0))

    # crawl5: plain WARC of revisits (identical payload digest) against crawl4 and crawl2.
    name5, out = "crawl5-20071005.warc", io.BytesIO()
    out.write(warcinfo(name5, "20071005120000"))
    for url, d14, v, ref_date in [("http://www.example.org/index.html", "20071005120000", "A", "20071004120000"),
                                  ("http://example.org/about.html", "20071005120100", "C", "20071002120100")]:
        head = ("HTTP/1.1 200 OK\r\nDate: %s\r\nServer: Apache\r\nContent-Type: text/html; charset=utf-8\r\n"
                "Content-Length: %d\r\n\r\n" % (http_date(d14), len(body(v)))).encode("ascii")
        out.write(warc_record([
            ("WARC-Type", "revisit"), ("WARC-Target-URI", url), ("WARC-Date", iso(d14)),
            ("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"),
            ("WARC-Refers-To-Target-URI", url), ("WARC-Refers-To-Date", iso(ref_date)),
            ("WARC-Payload-Digest", "sha1:" + digest(body(v))),
            ("WARC-Record-ID", uuid_for(name5, url)),
            ("Content-Type", "application/http; msgtype=response")], head))
    with open(os.path.join(OUT, name5), "wb") as f:
        f.write(out.getvalue())

    with open(os.path.join(OUT, "manifest.txt"), "w") as f:
        f.write("# The worked example of docs/formats.md §5: five crawls of www.example.org.\n")
        for n in ["crawl1-20071001.arc", "crawl2-20071002.arc", "crawl3-20071003.arc", name4, name5]:
            f.write("%s example\n" % n)
    with open(os.path.join(OUT, "DIGESTS.txt"), "w") as f:
        for v in "ABCDE":
            f.write("%s %s %s\n" % (v, digest(body(v)), PAGES[v][0]))
    write_readme_dedup()
    return 0


# README-dedup's 10-capture example (docs/formats.md §5.6): one page crawled daily 2007-10-01..10,
# five versions whose bodies are the README's content samples, so their digests are the
# ones §5.6 lists (R5EYEZEK... for abc123, and so on).
README_BODIES = {
    "abc123": b"Hello, welcome to my page.",
    "def456": b"Sorry I haven't updated this in a while.",
    "ghi789": b"Hey, I finally updated this.",
    "jkl012": b"Under construction.",
    "mno345": b"My homepage is great!",
}
README_SEQUENCE = ["abc123", "abc123", "def456", "def456", "abc123", "abc123",
                   "ghi789", "jkl012", "jkl012", "mno345"]


def write_readme_dedup():
    out_dir = os.path.join(OUT, "..", "readme-dedup")
    os.makedirs(out_dir, exist_ok=True)
    url = "http://www.example.org/index.html"
    names = []
    for day, version in enumerate(README_SEQUENCE, start=1):
        d14 = "200710%02d120000" % day
        name = "crawl-200710%02d.arc.gz" % day
        b = README_BODIES[version]
        head = ("HTTP/1.0 200 OK\r\nDate: %s\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n"
                % (http_date(d14), len(b))).encode("ascii")
        version_block = b"1 0 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n"
        filedesc = (b"filedesc://%s 0.0.0.0 %s text/plain %d\n" % (name.encode(), d14.encode(), len(version_block))
                    + version_block + b"\n")
        rec = (b"%s 93.184.216.34 %s text/html %d\n" % (url.encode(), d14.encode(), len(head) + len(b))
               + head + b + b"\n")
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(gzip.compress(filedesc, mtime=0))
            f.write(gzip.compress(rec, mtime=0))
        names.append(name)
    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("# README-dedup's example: one page, ten daily crawls, five versions (docs/formats.md §5.6).\n")
        for n in names:
            f.write(n + "\n")


if __name__ == "__main__":
    sys.exit(main())
