#!/usr/bin/env python3
"""Compares `warcdex serve`'s GET /cdx with pywb 2.10 on random queries drawn from a
CDX file (scripts/check-cdx-api.sh runs it). Usage:

    cdx_api_check.py ALL_CDX WARCDEX_URL N SEED [WAYBACK]

An answer pywb gives (status 200) must come back byte for byte, with its Content-Type;
where pywb refuses (4xx) warcdex must answer the same status, and where pywb fails
(5xx: a limit that is not a number, a regex Python cannot compile) a 4xx. Prints each
difference and a summary; exits 1 if any.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdx_api_queries as q  # noqa: E402


def main():
    cdx, base, n, seed = sys.argv[1], sys.argv[2].rstrip("/"), int(sys.argv[3]), int(sys.argv[4])
    wayback = sys.argv[5] if len(sys.argv) > 5 else "wayback"
    lines = q.read_lines(cdx)
    if not lines:
        sys.exit("%s: no 11-field CDX lines" % cdx)
    queries = q.make_queries(lines, seed, n) + q.EDGE_QUERIES + q.ERROR_QUERIES
    pywb = q.Pywb(cdx, wayback)
    differences = []
    counts = {"answered": 0, "empty": 0, "fuzzy": 0, "refused": 0}
    try:
        for query in queries:
            want = pywb.ask(query)
            got = q.get(base + "/cdx?" + query)
            if want[0] != 200:
                counts["refused"] += 1
                if not (400 <= got[0] < 500 and (got[0] == want[0] or want[0] >= 500)):
                    differences.append("%s\n  pywb: status %d\n  ours: status %d %s" % (
                        query, want[0], got[0], got[2][:200]))
                continue
            counts["answered"] += 1
            counts["empty"] += not want[2]
            counts["fuzzy"] += '"is_fuzzy"' in want[2] or want[2].endswith(" 1\n")
            if got[0] != 200 or got[1] != want[1] or got[2] != want[2]:
                differences.append("%s\n  pywb: %d %s\n%s\n  ours: %d %s\n%s" % (
                    query, want[0], want[1], want[2][:2000], got[0], got[1], got[2][:2000]))
    finally:
        pywb.close()
    for d in differences:
        print("DIFFERENT " + d)
    print("seed %d: %d queries over %d CDX lines: %d answered by pywb (%d empty, %d fuzzy), "
          "%d refused; %d differences" % (seed, len(queries), len(lines), counts["answered"],
                                          counts["empty"], counts["fuzzy"], counts["refused"],
                                          len(differences)))
    sys.exit(1 if differences else 0)


main()
