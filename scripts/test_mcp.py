"""warcdex's MCP server driven by the official Python MCP client (`mcp` from PyPI).

Usage:
  test_mcp.py stdio BIN COLL [warcdex mcp flags...]   # spawns `BIN mcp -d COLL FLAGS`
  test_mcp.py http URL                                 # serve's /mcp at URL
  and, after either, `--excluded` for a server whose rules exclude www.example.org and
  example.org (nothing of theirs may be found) instead of the full checks.

The collection is scripts/test-mcp.sh's: the example crawls of 2007 (ARC and WARC; the
home page changed on 2007-10-03 and changed back) and the Browsertrix WACZ of
fixtures/browsertrix (pages whose words only their rendered text holds). Exits non-zero,
naming each failed check, when any fails.
"""

import json
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

try:  # mcp 2.x
    from mcp.client.streamable_http import streamable_http_client as _http_client

    def http_client(url):
        return _http_client(url)
except ImportError:  # mcp 1.x
    from mcp.client.streamable_http import streamablehttp_client as _http_client

    def http_client(url):
        return _http_client(url)


HOME = "http://www.example.org/index.html"
# The home page's second version (2007-10-03) alone holds "back" (and "logo").
V1, V2 = "sha1:S42IR7LMWWS7QPU5BCR7NIAJVCMMCCIV", "sha1:4IKAZ3R4KNKTKYATMCZAEY6LADRQ2PZQ"
HOME_DATES = ["20071001120000", "20071002120000", "20071003120000", "20071004120000",
              "20071005120000"]
SPA = "https://spa.example.org/"  # its rendered text alone holds "quillwort"

failures = []


def attr(obj, snake, camel):
    """A field by its mcp 2.x name or its mcp 1.x one."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def check(ok, what, detail=""):
    if not ok:
        failures.append(f"{what}: {detail}")
        print(f"FAIL {what}: {detail}"[:2000], file=sys.stderr)


class Answer:
    def __init__(self, r):
        self.is_error = attr(r, "is_error", "isError")


async def call(s, name, args):
    r = await s.call_tool(name, args)
    return Answer(r), (attr(r, "structured_content", "structuredContent") or {}), "".join(
        getattr(c, "text", "") for c in r.content)


async def collection(s):
    """The warcdex://collection resource, parsed."""
    listed = await s.list_resources()
    uris = [str(r.uri) for r in listed.resources]
    check(uris == ["warcdex://collection"], "one resource, the collection's", uris)
    r = await s.read_resource("warcdex://collection")
    return json.loads(r.contents[0].text)


async def full_checks(s):
    c = await collection(s)
    sites = {f["value"] for f in c.get("sites", [])}
    check(c.get("versions", 0) > 0 and {"example.org", "spa.example.org"} <= sites
          and c.get("first_year") == "2007" and c.get("last_year") == "2024",
          "the collection's description", c)
    tools = await s.list_tools()
    names = sorted(t.name for t in tools.tools)
    check(names == ["diff", "get_text", "history", "list_captures", "search"], "five tools", names)
    for t in tools.tools:
        schema, out = attr(t, "input_schema", "inputSchema"), attr(t, "output_schema", "outputSchema")
        check(schema.get("type") == "object", f"{t.name} has an argument schema", schema)
        check((out or {}).get("type") == "object", f"{t.name} has a result schema", out)

    # A word only one page holds finds that page, with its provenance.
    for word, url, archive_end in [("back", HOME, ".arc"), ("quillwort", SPA, ".wacz")]:
        r, sc, text = await call(s, "search", {"query": word})
        hits = sc.get("hits", [])
        check(not r.is_error and sc.get("total") == 1 and len(hits) == 1, f"search {word}", sc)
        if hits:
            h, p = hits[0], hits[0]["provenance"]
            check(h["url"] == url, f"search {word}: the page", h)
            check(p["archive"] and p["offset"] >= 0 and p["length"] > 0, f"search {word}: archive, offset, length", p)
            where = p["container"] or p["archive"]
            check(where.split("#")[0].endswith(archive_end), f"search {word}: the archive that holds it", p)
            check(p["digest"].startswith("sha1:") and len(p["digest"]) == 37, f"search {word}: digest", p)
            check(p["archive"] in text and str(p["offset"]) in text, f"search {word}: provenance in the text", text)
            if word == "back":
                check(p["digest"] == V2 and p["timestamp"] == "20071003120000" and p["archive"] == "crawl3-20071003.arc"
                      and p["container"] is None, "search back: the capture of 2007-10-03", p)
            else:
                check(p["container"] == "crawl.wacz#archive/crawl.warc.gz", "search quillwort: its WACZ", p)
    r, sc, _ = await call(s, "search", {"query": "example", "site": "example.org", "from": "2007", "to": "2007",
                                       "page_size": 2, "page": 1})
    check(not r.is_error and len(sc.get("hits", [])) == 2 and sc.get("has_more") is True, "search page 1 of 2", sc)
    check(any(f["value"] == "example.org" for f in sc.get("facets", {}).get("site", [])), "facets by site", sc)

    # get_text: the text of the capture nearest the date, with its provenance.
    r, sc, text = await call(s, "get_text", {"url": HOME, "date": "20071003120000"})
    check(not r.is_error and "logo" in sc.get("text", ""), "get_text of the 2007-10-03 capture", sc)
    p = sc.get("provenance", {})
    check(p.get("digest") == V2 and p.get("timestamp") == "20071003120000" and p.get("archive") == "crawl3-20071003.arc",
          "get_text provenance", p)
    check("/web/20071003120000/" in sc.get("capture_view", ""), "get_text capture view link", sc)
    r, sc, _ = await call(s, "get_text", {"url": HOME, "date": "20071001120000", "max_chars": 10})
    check(not r.is_error and len(sc.get("text", "")) == 10 and sc.get("next_offset") == 10, "get_text in parts", sc)
    r2, sc2, _ = await call(s, "get_text", {"url": HOME, "date": "20071001120000", "offset": 10})
    whole = (await call(s, "get_text", {"url": HOME, "date": "20071001120000"}))[1].get("text", "")
    check(sc.get("text", "") + sc2.get("text", "") == whole and "logo" not in whole, "get_text next part", (sc, sc2))
    r, sc, _ = await call(s, "get_text", {"url": SPA})
    check(not r.is_error and "quillwort" in sc.get("text", ""), "get_text of a WACZ page", sc)

    # list_captures: its captures' timestamps, as the CDX API gives them.
    r, sc, _ = await call(s, "list_captures", {"url": HOME})
    got = [c["timestamp"] for c in sc.get("captures", [])]
    check(got == HOME_DATES, "list_captures timestamps", got)
    check(all(c["archive"] and c["digest"].startswith("sha1:") for c in sc.get("captures", [])),
          "list_captures provenance", sc)
    r, sc, _ = await call(s, "list_captures", {"url": HOME, "from": "20071002", "to": "20071003", "limit": 1})
    check([c["timestamp"] for c in sc.get("captures", [])] == ["20071002120000"] and sc.get("truncated") is True,
          "list_captures from/to/limit", sc)
    r, sc, _ = await call(s, "list_captures", {"url": SPA})
    check(not r.is_error and len(sc.get("captures", [])) >= 1, "list_captures of a WACZ page", sc)

    # history and diff name both versions and the changed words.
    r, sc, text = await call(s, "history", {"url": HOME})
    digests = [v["digest"] for v in sc.get("versions", [])]
    check(digests == [V1, V2], "history: both versions", sc)
    check(sc.get("versions", [{}, {}])[-1].get("changed", 0) > 0, "history: the share changed", sc)
    r, sc, text = await call(s, "diff", {"url": HOME, "date1": "20071001120000", "date2": "20071003120000"})
    check(sc.get("old", {}).get("digest") == V1 and sc.get("new", {}).get("digest") == V2, "diff: both versions", sc)
    check(any("logo" in a for a in sc.get("added", [])), "diff: the added words", sc)
    check(any("everything" in x for x in sc.get("removed", [])), "diff: the removed words", sc)

    # Bad arguments are tool errors, and the server stays up.
    bad = [
        ("get_text", {"url": "http://nowhere.example.com/"}, "not in this collection"),
        ("history", {"url": "http://nowhere.example.com/"}, "not in this collection"),
        ("list_captures", {"url": "http://nowhere.example.com/"}, "not in this collection"),
        ("diff", {"url": HOME, "date1": "2007", "date2": "20071399"}, "date2"),
        ("get_text", {"url": HOME, "date": "yesterday"}, "date"),
        ("search", {"query": "example", "page_size": 100000}, "page_size"),
        ("search", {"query": "example", "page": 10 ** 9}, "page"),
        ("search", {"query": 3}, "invalid type"),
        ("search", {"query": "example", "page": "two"}, "invalid type"),
        ("search", {}, "missing field"),
        ("search", {"query": "x", "colour": "red"}, "unknown field"),
        ("list_captures", {"url": HOME, "limit": -5}, "invalid value"),
        ("list_captures", {"url": HOME, "match_type": "everything"}, "unknown variant"),
        ("get_text", {"url": HOME, "offset": 10 ** 12}, "offset"),
        ("search", {"query": "x" * 100000}, "too long"),
    ]
    for name, args, says in bad:
        r, _, text = await call(s, name, args)
        check(r.is_error and says in text, f"{name} {json.dumps(args)[:80]} is a tool error naming {says!r}", text)
    r, sc, _ = await call(s, "search", {"query": "back"})
    check(not r.is_error and sc.get("total") == 1, "the server answers after the bad calls", sc)


async def excluded_checks(s):
    c = await collection(s)
    sites = {f["value"] for f in c.get("sites", [])}
    check("example.org" not in sites and "spa.example.org" in sites and c.get("first_year") == "2024",
          "the collection's description leaves the excluded host out", c)
    for q in ["example", "back", "welcome", "news"]:
        r, sc, _ = await call(s, "search", {"query": q})
        urls = [h["url"] for h in sc.get("hits", [])]
        check(not any("example.org/" in u and "spa." not in u for u in urls) and
              not any(f["value"] == "example.org" for f in sc.get("facets", {}).get("site", [])),
              f"search {q}: no page of the excluded host", sc)
    r, sc, _ = await call(s, "search", {"query": "quillwort"})
    check(sc.get("total") == 1, "search: a page of another host is still found", sc)
    r, sc, _ = await call(s, "list_captures", {"url": "example.org", "match_type": "domain"})
    hosts = {c["url"].split("/")[2] for c in sc.get("captures", [])}
    check(hosts == {"spa.example.org"}, "list_captures of the domain: only the host not excluded", hosts)
    for name, args in [("get_text", {"url": HOME}), ("list_captures", {"url": HOME}),
                       ("history", {"url": HOME}),
                       ("diff", {"url": HOME, "date1": "2007", "date2": "2008"})]:
        r, sc, text = await call(s, name, args)
        shown = sc.get("captures") or sc.get("versions") or sc.get("text")
        check(r.is_error or not shown, f"{name} {args}: nothing of the excluded host", text)
        check("S42IR7LMWWS7QPU5BCR7NIAJVCMMCCIV" not in text and "crawl1" not in text,
              f"{name}: no digest or archive of the excluded host", text)


async def main():
    mode, excluded = sys.argv[1], "--excluded" in sys.argv
    argv = [a for a in sys.argv[2:] if a != "--excluded"]
    checks = excluded_checks if excluded else full_checks
    if mode == "stdio":
        params = StdioServerParameters(command=argv[0], args=["mcp", "-d", argv[1], *argv[2:]])
        async with stdio_client(params) as streams:
            async with ClientSession(streams[0], streams[1]) as s:
                await s.initialize()
                await checks(s)
    else:
        async with http_client(argv[0]) as streams:
            async with ClientSession(streams[0], streams[1]) as s:
                await s.initialize()
                await checks(s)


anyio.run(main)
if failures:
    print(f"test_mcp: {len(failures)} check(s) failed", file=sys.stderr)
    sys.exit(1)
print(f"test_mcp: {sys.argv[1]}{' (excluded host)' if '--excluded' in sys.argv else ''}: every check passed")
