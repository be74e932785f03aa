#!/usr/bin/env python3
"""Writes warcdex's synthetic reader fixtures (standard library only).

Each file is named for the defect it carries; see fixtures/SOURCES.md.
Run from the repository root: python3 scripts/make_fixtures.py
"""
import gzip
import io


def record(rtype, uri, date, rid, block, extra=b""):
    head = (b"WARC/1.0\r\nWARC-Type: " + rtype + b"\r\nWARC-Target-URI: " + uri +
            b"\r\nWARC-Date: " + date + b"\r\nWARC-Record-ID: <urn:uuid:" + rid + b">\r\n" + extra +
            b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n" % len(block))
    return head, block


def http(body, status=b"200 OK"):
    return (b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(body)) + body


def gz(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as f:
        f.write(data)
    return buf.getvalue()


RECS = [
    record(b"response", b"http://example.org/a", b"2020-01-01T00:00:00Z", b"00000000-0000-0000-0000-000000000001",
           http(b"<html><title>A</title>first page</html>")),
    record(b"response", b"http://example.org/b", b"2020-01-01T00:00:01Z", b"00000000-0000-0000-0000-000000000002",
           http(b"<html><title>B</title>second page</html>")),
    record(b"response", b"http://example.org/c", b"2020-01-01T00:00:02Z", b"00000000-0000-0000-0000-000000000003",
           http(b"<html><title>C</title>third page</html>")),
]


def whole(h, b):
    return h + b + b"\r\n\r\n"


def main():
    # Garbage between records, plain and per-record gzip (the garbage is its own member).
    plain = whole(*RECS[0]) + b"this is not a record\r\nnor is this\r\n\r\n" + whole(*RECS[1]) + whole(*RECS[2])
    open("fixtures/bad/garbage-between-records.warc", "wb").write(plain)
    members = gz(whole(*RECS[0])) + gz(b"junk that is no WARC record\r\n") + gz(whole(*RECS[1])) + gz(whole(*RECS[2]))
    open("fixtures/bad/garbage-between-records.warc.gz", "wb").write(members)

    # Content-Length 10 bytes too long on the first record (it runs into the next header).
    h, b = RECS[0]
    h_long = h.replace(b"Content-Length: %d" % len(b), b"Content-Length: %d" % (len(b) + 10))
    plain = h_long + b + b"\r\n\r\n" + whole(*RECS[1]) + whole(*RECS[2])
    open("fixtures/bad/content-length-long.warc", "wb").write(plain)
    gzl = gz(h_long + b + b"\r\n\r\n") + gz(whole(*RECS[1])) + gz(whole(*RECS[2]))
    open("fixtures/bad/content-length-long.warc.gz", "wb").write(gzl)

    # No blank lines after records at all.
    plain = b"".join(h + b for h, b in RECS)
    open("fixtures/bad/missing-trailing-newlines.warc", "wb").write(plain)

    # The file ends in the middle of the last record's body.
    plain = whole(*RECS[0]) + whole(*RECS[1]) + (RECS[2][0] + RECS[2][1])[:-25]
    open("fixtures/bad/trunc-mid-body.warc", "wb").write(plain)

    # A large record whose body crosses many read-buffer boundaries.
    big = http(b"0123456789abcdef" * 40000)
    h, b = record(b"response", b"http://example.org/big", b"2020-01-01T00:00:03Z",
                  b"00000000-0000-0000-0000-000000000004", big)
    open("fixtures/warc/block-crossing.warc.gz", "wb").write(gz(whole(h, b)) + gz(whole(*RECS[0])))


if __name__ == "__main__":
    main()
