"""Random CDX server API queries drawn from a collection's CDX lines, and pywb 2.10 run
as their oracle (`wayback` serving one collection whose index is that CDX file).

Used by scripts/cdx-api-goldens.py (fixed seed, answers committed under
fixtures/cdx-api/) and scripts/check-cdx-api.sh (a new seed each run, compared with
`warcdex serve`). pywb adds `source` and `source-coll` to every capture; they are removed
from its answers here (they name pywb's collection, which warcdex does not have).
"""

import json
import os
import random
import re
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

FIELDS = ["urlkey", "timestamp", "url", "mime", "status", "digest", "redirect",
          "robotflags", "length", "offset", "filename"]
# Filter names pywb maps (CDX_ALT_FIELDS), and one it does not know.
ALT_FIELDS = {"urlkey": ["k"], "timestamp": ["t"], "url": ["u", "original"],
              "mime": ["m", "mimetype"], "status": ["statuscode"],
              "digest": ["d"], "length": ["l", "s"], "offset": ["o"], "filename": ["f"]}
# The collection's name in pywb, also the value of the `source` fields removed.
COLL = "cdxcoll"


def read_lines(path):
    """The CDX lines of `path` as lists of fields (legend and odd lines skipped)."""
    out = []
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith(" CDX") or not line:
                continue
            fields = line.split(" ")
            if len(fields) == 11:
                out.append(fields)
    return out


def _ts_prefix(rng, ts):
    return ts[:rng.choice([4, 6, 8, 10, 12, 14, 14])]


def _host(url):
    try:
        return urllib.parse.urlsplit(url).netloc
    except ValueError:
        return ""


def _url_form(rng, url):
    """The capture's URL as a client might write it."""
    r = rng.random()
    if r < 0.5:
        return url
    if r < 0.75:
        return re.sub(r"^https?://", "", url)
    if r < 0.85:
        return url.replace("://", "://www.", 1) if "://www." not in url else url.replace("://www.", "://", 1)
    return url.upper() if rng.random() < 0.3 else url + "/"


def _regex_for(rng, value):
    """A regular expression that may match `value` (matched at its start)."""
    if not value:
        return ".*"
    cut = value[:rng.randint(1, max(1, min(len(value), 12)))]
    choices = [
        re.escape(cut),
        re.escape(cut) + ".*",
        "." * min(3, len(value)),
        "(" + re.escape(cut) + "|zzz)",
        "[0-9]+" if value[:1].isdigit() else "[a-z]+",
        ".*" + re.escape(value[-3:]) + "$",
        "^" + re.escape(cut),
        "(?i)" + re.escape(cut.upper()),
    ]
    return rng.choice(choices)


def _filter(rng, line):
    field = rng.choice(["status", "mime", "url", "urlkey", "digest", "filename",
                        "length", "offset", "timestamp", "redirect", ""])
    if field:
        value = line[FIELDS.index(field)]
    else:
        # The whole line: a needle taken from a field (never one that could match the
        # `source` fields pywb adds to the line).
        value = rng.choice([line[3], line[4], line[5][:6], line[10]])
    name = field
    if field and rng.random() < 0.25 and field in ALT_FIELDS:
        name = rng.choice(ALT_FIELDS[field])
    if field and rng.random() < 0.05:
        name = "nosuchfield"
    mode = rng.choice(["", "", "=", "~", "~"])
    if mode == "~" and not field:
        # pywb's whole line ends with its `source` fields: a test that could reach them
        # is never drawn (a needle without spaces found in them would be one).
        a = rng.randint(0, max(0, len(value) - 1))
        needle = value[a:a + rng.randint(1, 8)] or "x"
        if needle in COLL:
            needle = line[2]
        text = ".*" + re.escape(needle)
    elif mode == "~":
        text = _regex_for(rng, value)
    elif mode == "=":
        text = value if rng.random() < 0.7 else value + "x"
    else:
        if value and rng.random() < 0.8:
            a = rng.randint(0, len(value) - 1)
            text = value[a:a + rng.randint(1, 8)]
        else:
            text = "nothing-like-this"
    if not field and mode != "~" and text in COLL:
        text = line[2]
    neg = "!" if rng.random() < 0.3 else ""
    prefix = neg + mode
    return prefix + (name + ":" if field else "") + text


def make_queries(lines, seed, n):
    """`n` query strings (percent-encoded), reproducible from `seed`."""
    rng = random.Random(seed)
    queries = []
    for i in range(n):
        line = rng.choice(lines)
        url, ts = line[2], line[1]
        params = []
        kind = rng.random()
        if kind < 0.35:
            params.append(("url", _url_form(rng, url)))
            if rng.random() < 0.2:
                params.append(("matchType", "exact"))
        elif kind < 0.55:
            cut = url[:rng.randint(max(1, len(url) // 2), len(url))]
            if rng.random() < 0.6:
                params.append(("url", cut + "*"))
            else:
                params += [("url", cut), ("matchType", "prefix")]
        elif kind < 0.65:
            params += [("url", _url_form(rng, url)), ("matchType", "host")]
        elif kind < 0.8:
            host = _host(url) or url
            labels = host.split(".")
            dom = ".".join(labels[rng.randint(0, max(0, len(labels) - 2)):])
            if rng.random() < 0.6:
                params.append(("url", "*." + dom))
            else:
                params += [("url", dom), ("matchType", "domain")]
        elif kind < 0.9:
            # A URL with another query string, or a path that was not captured: pywb's
            # fuzzy fallback.
            base = url.split("?")[0]
            extra = rng.choice(["?_=1234", "?utm_source=x", "?a=b", "/nothing-here",
                                "?callback=jsonp12", "x"])
            params.append(("url", base + extra))
            if rng.random() < 0.2:
                params.append(("allowFuzzy", rng.choice(["0", "false", "1"])))
        else:
            params.append(("url", _url_form(rng, url)))
            params.append(("filter", "!=url:" + url))
        if rng.random() < 0.25:
            params.append(("from", _ts_prefix(rng, rng.choice(lines)[1])))
        if rng.random() < 0.25:
            params.append(("to", _ts_prefix(rng, rng.choice(lines)[1] if rng.random() < 0.5 else ts)))
        order = rng.random()
        if order < 0.25:
            params.append(("closest", _ts_prefix(rng, rng.choice([ts, rng.choice(lines)[1]]))))
            if rng.random() < 0.7:
                params.append(("sort", "closest"))
        elif order < 0.45:
            params.append(("sort", "reverse") if rng.random() < 0.8 else ("reverse", "1"))
        if rng.random() < 0.5:
            params.append(("limit", str(rng.choice([1, 1, 2, 3, 5, 10, 50, 0, -1]))))
        for _ in range(rng.choice([0, 0, 0, 1, 1, 2, 3])):
            params.append(("filter", _filter(rng, line)))
        if rng.random() < 0.35:
            fl = rng.sample(FIELDS + ["is_fuzzy", "nosuchfield"], rng.randint(1, 4))
            params.append((rng.choice(["fl", "fl", "fields"]), ",".join(fl)))
        if rng.random() < 0.05:
            params.append(("collapseTime", str(rng.choice([4, 8, 10, 12]))))
        out = rng.choice(["json", "cdxj", "text", None])
        if out:
            params.append(("output", out))
        rng.shuffle(params)
        queries.append(urllib.parse.urlencode(params))
    return queries


# Edge cases of pywb's parsing and ordering, over any collection (most name iana.org, a
# site of the fixture).
EDGE_QUERIES = [
 "url=iana.org/*&matchType=exact", "url=*.iana.org&matchType=prefix", "url=iana.org/&closest=now&limit=2&output=text",
 "url=iana.org/&from_ts=2014012700&output=text", "url=iana.org/*&reverse=1&limit=1&output=text", "url=iana.org/*&reverse=0&limit=2&output=text",
 "url=iana.org/*&collapseTime=8&output=text&fl=timestamp,status", "url=iana.org/*&collapseTime=8&sort=reverse&output=text&fl=timestamp,status",
 "url=iana.org/*&collapseTime=0&output=text&fl=timestamp,status", "url=iana.org/*&collapseTime=-4&output=text&fl=timestamp,status",
 "url=iana.org/*&content_type=text/css&output=text&fl=url,mime", "url=iana.org/&fl=url,url,status&output=json", "url=iana.org/&fl=url,url,status&output=text",
 "url=iana.org/&fl=urlkey,timestamp,url&output=cdxj", "url=iana.org/&fl=&output=json", "url=iana.org/&fl=,&output=json", "url=iana.org/&fl=,&output=text",
 "url=iana.org/&filter=&output=text", "url=iana.org/&filter=!&output=text", "url=iana.org/&filter=~&output=text", "url=iana.org/&filter=:&output=text",
 "url=iana.org/&filter=!~status:&output=text", "url=iana.org/&filter=status:&output=text", "url=iana.org/*&filter=~url:.*css&limit=3",
 "url=iana.org/*&limit=+3&output=text&fl=url", "url=iana.org/*&limit=%203%20&output=text&fl=url", "url=iana.org/*&limit=1_0&output=text&fl=url",
 "url=iana.org/*&closest=2014012617&sort=closest&limit=5&output=text&fl=timestamp,url", "url=iana.org/*&closest=abc&limit=3&output=text&fl=timestamp",
 "url=iana.org/*&closest=20140126200624&limit=0&output=text", "url=iana.org/*&closest=20140126200624&limit=-1&output=text",
 "url=http://iana.org/?a=b&output=text", "url=iana.org/_css/2013.1/screen.css?v=1&output=text", "url=iana.org/_css/2013.1/screen.css?_=123&output=text&limit=2",
 "url=iana.org/&to=2014&from=2015&output=text", "url=iana.org/&allowFuzzy=off&filter=status:999", "url=iana.org/&filter=status:999&output=text",
 "url=iana.org/&filter=status:999&sort=reverse&output=text", "url=iana.org/&filter=status:999&closest=2014&output=text", "url=iana.org/&filter=status:999&limit=1&output=text",
 "url=IANA.ORG/&output=text", "url=https://www.iana.org:443/&output=text", "url=iana.org&matchType=host&limit=2&output=text", "url=org&matchType=domain&limit=2&output=text",
 "url=*.org&limit=3&output=text", "url=*&limit=3&output=text", "url=*.&limit=3&output=text", "url=iana.org/*&matchType=prefix&output=text&limit=2",
 "url=dns:www.rebels.dk&output=json", "url=filedesc://IAH20040511211249-5.arc&output=text", "url=iana.org/&output=text&nosource=true",
 "url=iana.org/&page=3&output=text", "url=iana.org/&sort=closest&output=text", "url=iana.org/&sort=foo&output=text", "url=iana.org/&output=JSON",
 "url=example.com/matched&output=text", "url=https://www.facebook.com/x?ab=1&output=text", "url=iana.org/&filter=~status:(?i)2&output=text",
 "url=iana.org/&filter=~url:http%3A%2F%2Fwww%5C.&output=text", "url=iana.org/&filter=~url:\\w%2B:&output=text",
 "url=iana.org/_css/2013.1/screen.css&closest=20140126200700&limit=3&output=text&fl=timestamp",
    "url=http%3A%2F%2Fiana.org%2F&filter=%zz&output=text",
    "url=iana.org/&filter=%1g&output=text",
]

# Queries pywb refuses (or fails on): warcdex answers a 4xx to each.
ERROR_QUERIES = [
    "",
    "output=json",
    "url=example.com&matchType=blah",
    "url=example.com&output=xml",
    "url=example.com&limit=abc",
    "url=example.com&filter=~url:(",
    "url=example.com&collapseTime=x",
]


def strip_source(body, content_type):
    """pywb's answer without its `source` and `source-coll` fields."""
    out = []
    if not body:
        return body
    for line in body.split("\n")[:-1] if body.endswith("\n") else body.split("\n"):
        if content_type.startswith("text/x-ndjson"):
            obj = json.loads(line, object_pairs_hook=list)
            line = json.dumps(dict((k, v) for k, v in obj if k not in ("source", "source-coll")))
        elif content_type.startswith("text/x-cdxj"):
            a, b, rest = line.split(" ", 2)
            obj = json.loads(rest, object_pairs_hook=list)
            line = a + " " + b + " " + json.dumps(
                dict((k, v) for k, v in obj if k not in ("source", "source-coll")))
        elif content_type.startswith("text/plain"):
            tokens = line.split(" ")
            if tokens[-2:] == [COLL, COLL]:
                tokens = tokens[:-2]
            elif tokens[-3:] == [COLL, COLL, "1"]:
                tokens = tokens[:-3] + ["1"]
            line = " ".join(tokens)
        out.append(line + "\n")
    return "".join(out)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Pywb:
    """`wayback` serving one collection, COLL, whose index is `cdx_path`."""

    def __init__(self, cdx_path, wayback="wayback"):
        self.dir = tempfile.TemporaryDirectory(prefix="pywb-cdx-")
        with open(os.path.join(self.dir.name, "config.yaml"), "w") as f:
            f.write("collections:\n  %s:\n    index: %s\n" % (COLL, os.path.abspath(cdx_path)))
        self.port = free_port()
        self.proc = subprocess.Popen([wayback, "-p", str(self.port), "-b", "127.0.0.1"],
                                     cwd=self.dir.name, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        base = "http://127.0.0.1:%d/%s/cdx?" % (self.port, COLL)
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "url=example.com", timeout=5).read()
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.1)
        raise RuntimeError("wayback did not start")

    def ask(self, query):
        status, ctype, body = get("http://127.0.0.1:%d/%s/cdx?%s" % (self.port, COLL, query))
        if status == 200:
            body = strip_source(body, ctype)
        return status, ctype, body

    def close(self):
        self.proc.terminate()
        self.proc.wait()
        self.dir.cleanup()


def get(url):
    """(status, content type, body) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=120) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode("utf-8", "replace")
