"""Latency of a search through MCP (`/mcp`, tools/call search) against the same search
through `/search.json`, on one `warcdex serve`, one client, alternated query by query.

Usage: bench_mcp.py PORT ROUNDS   (stdlib only). Each round asks every query once both
ways, in turns (which goes first alternates), over two kept-alive connections; the first
round warms the page cache and is not counted. Prints the p50 and p90 of each, their
ratio, and the answers' agreement (the same total for every query).
"""

import http.client
import json
import statistics
import sys
import time
import urllib.parse

QUERIES = [
    "python", "string format", "postgresql index", "django model", "iterator",
    '"regular expression"', "site:docs.python.org list", "thread", "java.util",
    "select statement", "vacuum", "template tag", "trait object", "sphinx extension",
    "date:2024", "date:202404-202407 json", "type:text/html database",
    "transaction isolation", "unicode", "async await", "hash map", "borrow",
    "queryset filter", "socket", "decorator", "tokenizer", '"hello world"',
    "collections", "inheritance", "exception handling", "site:doc.rust-lang.org vec",
    "lifetime", "closure", "generator expression", "foreign key", "migration",
]


def main():
    port, rounds = int(sys.argv[1]), int(sys.argv[2])
    plain = http.client.HTTPConnection("127.0.0.1", port)
    mcp = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}

    def via_json(q):
        plain.request("GET", "/search.json?" + urllib.parse.urlencode({"query": q, "hitsPerPage": 10}))
        r = plain.getresponse()
        body = r.read()
        assert r.status == 200, body
        return json.loads(body)["total"]

    def via_mcp(q):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "search", "arguments": {"query": q, "page_size": 10}}})
        mcp.request("POST", "/mcp", body, headers)
        r = mcp.getresponse()
        out = json.loads(r.read())
        assert r.status == 200 and not out["result"]["isError"], out
        return out["result"]["structuredContent"]["total"]

    times = {"json": [], "mcp": []}
    disagree = 0
    for n in range(rounds + 1):
        for i, q in enumerate(QUERIES):
            order = [("json", via_json), ("mcp", via_mcp)]
            if (n + i) % 2:
                order.reverse()
            totals = {}
            for name, f in order:
                t0 = time.perf_counter()
                totals[name] = f(q)
                if n:
                    times[name].append(time.perf_counter() - t0)
            disagree += totals["json"] != totals["mcp"]

    def q(v, p):
        return statistics.quantiles(v, n=100)[p - 1] * 1000

    j50, m50 = statistics.median(times["json"]) * 1000, statistics.median(times["mcp"]) * 1000
    print(f"| /search.json | {j50:.2f} ms | {q(times['json'], 90):.2f} ms |")
    print(f"| /mcp search | {m50:.2f} ms | {q(times['mcp'], 90):.2f} ms |")
    print(f"p50 ratio mcp/json: {m50 / j50:.2f} (target ≤ 2); {len(times['json'])} requests each; "
          f"queries whose totals differ: {disagree}")


main()
