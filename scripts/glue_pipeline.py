#!/usr/bin/env python3
"""The full-text pipeline a user would glue together from peers, for scripts/bench-pipeline.sh.

FastWARC iterates the response records, versions are de-duplicated by URL + payload digest,
Resiliparse extracts title and text from HTML, and tantivy-py (the engine warcdex uses)
indexes url, title, text and dates with two threads. A first pass over the WARC headers
alone gathers each version's capture dates, so that the second can index every version once
with all of them (tantivy cannot add a value to a document it has written). It does less
than `warcdex update`: no CDX, lists, link graph, anchors, language, near-duplicate
signature, PDF text, stemming or main-content field. It is the bar `update` is timed against.

Usage: glue_pipeline.py INDEX_DIR WARC...   (prints "VERSIONS CAPTURES" on stdout)
"""
import sys

import tantivy
from fastwarc.warc import ArchiveIterator, WarcRecordType
from resiliparse.extract.html2text import extract_plain_text
from resiliparse.parse.encoding import bytes_to_str, detect_encoding
from resiliparse.parse.html import HTMLTree


def responses(paths, parse_http):
    for path in paths:
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f, record_types=WarcRecordType.response, parse_http=parse_http):
                yield rec


def version_key(rec):
    return rec.headers.get("WARC-Target-URI", ""), rec.headers.get("WARC-Payload-Digest", "")


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    dates = {}  # (url, payload digest) -> the dates of its captures
    for rec in responses(paths, parse_http=False):
        dates.setdefault(version_key(rec), []).append(rec.headers.get("WARC-Date", ""))

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("url", stored=True, tokenizer_name="raw")
    sb.add_text_field("title", stored=True)
    sb.add_text_field("text", stored=True)
    sb.add_text_field("dates", stored=True, tokenizer_name="raw")
    writer = tantivy.Index(sb.build(), path=out).writer(heap_size=256 << 20, num_threads=2)
    versions = captures = 0
    for rec in responses(paths, parse_http=True):
        captures += 1
        key = version_key(rec)
        if rec.http_headers.status_code != 200 or key not in dates:
            continue
        version_dates = dates.pop(key)  # later captures of the version are skipped
        body = rec.reader.read()
        title = text = ""
        if "html" in (rec.http_headers.get("Content-Type") or ""):
            tree = HTMLTree.parse(bytes_to_str(body, detect_encoding(body)))
            title, text = tree.title or "", extract_plain_text(tree)
        writer.add_document(tantivy.Document(url=key[0], title=title, text=text, dates=version_dates))
        versions += 1
    writer.commit()
    writer.wait_merging_threads()
    print(versions, captures)


if __name__ == "__main__":
    main()
