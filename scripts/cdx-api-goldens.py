#!/usr/bin/env python3
"""Writes the CDX API goldens: fixtures/cdx-api/queries.txt (a fixed, seeded set of
queries over fixtures/cdx-api/all.cdx) and fixtures/cdx-api/answers.jsonl (pywb 2.10's
answer to each: status, Content-Type, body without pywb's `source` fields), which
tests/cdx_api.rs compares with `GET /cdx` byte for byte.

Run with a Python that has pywb 2.10 (its `wayback` beside the interpreter):
    /work/.venv-pywb/bin/python scripts/cdx-api-goldens.py
"""

import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdx_api_queries as q  # noqa: E402

SEED = 20261128
COUNT = 300
# Answers longer than this are kept as their SHA-256.
INLINE = 2000

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
fixture = os.path.join(root, "fixtures", "cdx-api")
cdx = os.path.join(fixture, "all.cdx")
wayback = os.path.join(os.path.dirname(sys.executable), "wayback")

queries = q.make_queries(q.read_lines(cdx), SEED, COUNT) + q.EDGE_QUERIES + q.ERROR_QUERIES
pywb = q.Pywb(cdx, wayback)
try:
    answers = [pywb.ask(query) for query in queries]
finally:
    pywb.close()

with open(os.path.join(fixture, "queries.txt"), "w") as f:
    f.write("".join(query + "\n" for query in queries))
with open(os.path.join(fixture, "answers.jsonl"), "w") as f:
    for query, (status, ctype, body) in zip(queries, answers):
        record = {"query": query, "status": status, "content_type": ctype}
        if status != 200:
            # Error bodies are pywb's JSON; warcdex answers its own text (docs/api.md).
            pass
        elif len(body) <= INLINE:
            record["body"] = body
        else:
            # Long answers by digest, so the goldens stay small; the head helps a reader.
            record["sha256"] = hashlib.sha256(body.encode("utf-8")).hexdigest()
            record["lines"] = body.count("\n")
            record["head"] = "".join(body.splitlines(True)[:2])
        f.write(json.dumps(record) + "\n")
ok = sum(1 for a in answers if a[0] == 200)
empty = sum(1 for a in answers if a[0] == 200 and not a[2])
fuzzy = sum(1 for a in answers if a[0] == 200 and "is_fuzzy" in a[2] or a[2].endswith(" 1\n"))
print("%d queries: %d answered (%d empty, ~%d fuzzy), %d refused" % (
    len(queries), ok, empty, fuzzy, len(queries) - ok))
