#!/usr/bin/env python3
"""warcdex's access-rule decisions against pywb 2.10's AccessChecker on random rules.

    access_parity.py [--bin WARCDEX] [--rules N] [--queries N] [SEED]

scripts/test-access-pywb.sh runs it with fresh seeds; run it with the venv's python that has
pywb 2.10 (target/formats-venv/bin/python). The seed (random unless given) is printed first,
so a failing run can be repeated exactly.

From the seed it makes:

- an access-control list (`.aclj`) of about --rules lines over a small universe of hosts and
  paths, so that rules overlap heavily: host rules (`com,example)/`), path prefixes
  (`com,example)/a/b`), domain prefixes (`com,example,`, `com,`), prefixes cut inside a
  label or a path (`com,exam`), exact-URL rules (`com,example)/a###`) and `*,`; each rule
  allow, block, exclude or allow_ignore_embargo, about 30% for the user "staff" or
  "reader", some with a date condition (`before`/`after`, 4 to 14 digits, or
  `newer`/`older`, years or days) and a few with two; some keys repeated with another
  user or access. The lines are sorted in reverse byte order, as pywb requires.
- about --queries captures: a URL (http or https, upper-case hosts, `www.`, default and
  other ports, trailing dots, user info, an IDN host, query strings in any order, session
  ids, fragments, percent-escapes, dot segments; one in ten of hosts no rule is made
  from, so that `*,` and the default decide some) and a 14-digit date from 1996 to now,
  some of them exactly on or next to a rule's fixed date. No date is within an hour of a
  relative boundary (now less a rule's or the embargo's period), so the moment each side
  takes as "now" cannot change an answer.

Each configuration (user, embargo, default access) is then asked of both sides: pywb's
`AccessChecker(acl, default_access, embargo).wrap_iter([cdx], user)` (a capture it drops is
`exclude`, else its `cdx['access']`) and `warcdex access check COLL --acl ACL ...` with all
the captures on standard input (ACCESS column). Also compared: the URL key pywb makes of
each URL (`calc_search_range(url, 'exact')`, what its checker looks rules up by) and the
one warcdex prints. The counts of each access are printed; any difference fails the run
(exit 1), listing the first 20 with the rules whose keys could match, and the first one
shrunk to a minimal set of rules that still shows it. The work directory (the `.aclj` and
the queries) is kept when the run fails.
"""
import argparse
import contextlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone

from dateutil.relativedelta import relativedelta
from pywb.utils.canonicalize import calc_search_range
from pywb.warcserver.access_checker import AccessChecker
from pywb.warcserver.index.cdxobject import CDXObject
from warcio.timeutils import timestamp_to_datetime

# ---------------------------------------------------------------------------------------
# The universe: few hosts and paths, so that rules and captures meet often.

# Hosts as a URL names them (the URL generator varies case, `www.` and ports). `exam.com`
# and `examples.com` sit next to `example.com` for the cut prefixes (`com,exam`);
# `localhost` and the IP have no comma in their key, so pywb's "top-level domain" is the
# whole key (its early stop in the walk of the rules).
HOSTS = [
    "example.com", "sub.example.com", "a.sub.example.com", "www.sub.example.com",
    "exam.com", "examples.com", "example.org", "example.co.uk", "foo.net",
    "bar.foo.net", "localhost", "127.0.0.1", "com.com", "bücher.de",
]
# Hosts that captures have and no rule is made from (only `*,` and cut prefixes such as
# `com,` can name them). `192.168.1.0`'s key starts `0,`, below every other rule key, so
# pywb's walk reaches the `*,` rules, which decide it; for `other.info` the walk stops at
# the first line below `info` and the default decides.
QUERY_ONLY_HOSTS = ["192.168.1.0", "other.info"]
PATHS = [
    "", "/", "/a", "/a/", "/a/b", "/a/b/", "/a/b/c.html", "/ab", "/abc/d", "/b", "/b/a",
    "/A/B", "/index.html", "/~user/", "/%7Euser/x", "/a%20b", "/search",
    "/a/../b", "//a//b", "/a%2Fb", "/a/./b/",
]
QUERIES = [
    "", "", "", "?", "?q=1", "?b=2&a=1", "?a=1&b=2", "?A=1", "?q=x&utm_source=y",
    "?PHPSESSID=0123456789abcdef0123456789abcdef&x=1",
]
FRAGMENTS = ["", "", "", "", "#top"]
# Non-default ports, which stay in the key (`com,example:8080)/`).
PORTS = [":8080", ":8443"]

ACCESS_VALUES = ["allow", "block", "exclude", "allow_ignore_embargo"]
USERS = ["staff", "reader"]

START = datetime(1996, 1, 1, tzinfo=timezone.utc)
HOUR = timedelta(hours=1)


def pywb_key(url):
    """The key pywb's checker looks rules up by (find_access_rule's CDXQuery)."""
    return calc_search_range(url, "exact")[0]


def plain_url(rng):
    """A URL of the universe in its simplest form (for making rule keys)."""
    url = "http://" + rng.choice(HOSTS) + rng.choice(PATHS)
    if rng.random() < 0.3:
        url += rng.choice(QUERIES)
    return url


def random_url(rng):
    """A URL of the universe in one of the forms people and crawlers write (all of which
    pywb's canonicalizer brings to the same keys as the plain forms)."""
    host = rng.choice(QUERY_ONLY_HOSTS) if rng.random() < 0.1 else rng.choice(HOSTS)
    scheme = rng.choice(["http", "https"])
    if host[0].isalpha() and host != "localhost" and rng.random() < 0.2:
        host = rng.choice(["www.", "WWW.", "www2."]) + host
    r = rng.random()
    if r < 0.15:
        host = host.upper()
    elif r < 0.25:
        host = host.capitalize()
    r = rng.random()
    if r < 0.1:
        host += {"http": ":80", "https": ":443"}[scheme]   # default port: dropped
    elif r < 0.2:
        host += rng.choice(PORTS)
    elif r < 0.23 and host[0].isalpha():
        host += "."                                         # a trailing dot: dropped
    if rng.random() < 0.03:
        host = "user:pw@" + host                            # user info: dropped
    return scheme + "://" + host + rng.choice(PATHS) + rng.choice(QUERIES) + rng.choice(FRAGMENTS)


# ---------------------------------------------------------------------------------------
# Rules.

def rule_key(rng):
    """A SURT prefix of one of the kinds pywb's rules use, over the universe."""
    key = pywb_key(plain_url(rng))          # e.g. com,example,sub)/a/b?a=1
    host, _, path = key.partition(")/")     # com,example,sub   a/b?a=1
    kind = rng.choices(
        ["host", "path", "domain", "cut", "exact", "star"],
        weights=[20, 25, 15, 15, 20, 3])[0]
    if kind == "host":
        return host + ")/"
    if kind == "path":
        # The whole key, or cut at a `/` of its path.
        cuts = [i for i, c in enumerate(path) if c == "/"]
        return host + ")/" + (path[:rng.choice(cuts)] if cuts and rng.random() < 0.5 else path)
    if kind == "domain":
        # com,   com,example,   com,example,sub,   (each label prefix followed by a comma)
        labels = host.split(",")
        return ",".join(labels[:rng.randint(1, len(labels))]) + ","
    if kind == "cut":
        # Cut anywhere, inside a label or a path segment: com,exam   com,example)/a/b/c.h
        return key[:rng.randint(2, len(key))]
    if kind == "exact":
        return key + "###"
    return "*,"


def fixed_stamp(rng):
    """A `before`/`after` timestamp of 4, 6, 8, 10, 12 or 14 digits (pywb pads it up)."""
    span = int((datetime.now(timezone.utc) - START).total_seconds())
    dt = START + timedelta(seconds=rng.randrange(span))
    return dt.strftime("%Y%m%d%H%M%S")[:rng.choice([4, 6, 8, 10, 12, 14, 14])]


def period(rng):
    """A `newer`/`older` period: years or days."""
    if rng.random() < 0.5:
        return {"years": rng.randint(1, 25)}
    return {"days": rng.randint(30, 9000)}


def rule_dates(rng):
    """The date fields of a rule: none mostly, one field, or now and then two (pywb uses
    the first of before, after, newer, older that is set)."""
    fields = {}
    for _ in range(rng.choices([0, 1, 2], weights=[70, 25, 5])[0]):
        name = rng.choice(["before", "after", "newer", "older"])
        fields[name] = fixed_stamp(rng) if name in ("before", "after") else period(rng)
    return fields


def rule_line(rng, key, user=None, access=None):
    """One `.aclj` line: `KEY - {JSON}`, its fields in a random order and spacing now
    and then (the order of the fields decides the order of lines of one key)."""
    obj = {"access": access or rng.choice(ACCESS_VALUES)}
    if rng.random() < 0.02:
        del obj["access"]          # pywb reads a rule without access as exclude
    if user is not None:
        obj["user"] = user
    obj.update(rule_dates(rng))
    items = list(obj.items())
    if rng.random() < 0.3:
        rng.shuffle(items)
    seps = (",", ":") if rng.random() < 0.2 else (", ", ": ")
    return key + " - " + json.dumps(dict(items), separators=seps)


def make_rules(rng, n):
    """About n distinct lines, sorted in reverse byte order as pywb requires."""
    lines = set()
    keys = []
    while len(lines) < n:
        if keys and rng.random() < 0.12:
            # A key already used, for another user (or none) or with another access.
            key = rng.choice(keys)
            user = rng.choice(USERS + [None])
        else:
            key = rule_key(rng)
            user = rng.choice(USERS) if rng.random() < 0.3 else None
        if rng.random() < 0.02:
            user = ""              # a user no request names, yet falsy to pywb
        keys.append(key)
        lines.add(rule_line(rng, key, user))
    return sorted(lines, key=lambda l: l.encode(), reverse=True)


# ---------------------------------------------------------------------------------------
# Captures.

def to14(dt):
    return dt.strftime("%Y%m%d%H%M%S")


def relative_boundaries(lines, embargo_periods, now):
    """Now less each period a rule or an embargo names: dates close to these could get
    different answers from the two sides, which take "now" at slightly different moments."""
    out = []
    periods = [p for p in embargo_periods if p]
    for line in lines:
        obj = json.loads(line.split(" ", 2)[2])
        periods += [obj[k] for k in ("newer", "older") if k in obj]
    for p in periods:
        out.append(now - relativedelta(years=p.get("years", 0), months=p.get("months", 0),
                                       weeks=p.get("weeks", 0), days=p.get("days", 0)))
    return out


def make_queries(rng, n, lines, embargo_periods):
    """n (URL, 14-digit date) captures: dates uniform from 1996 to an hour ago, one in
    six on or a second next to a rule's fixed date (as pywb pads it), none within an
    hour of a relative boundary."""
    now = datetime.now(timezone.utc)
    near = relative_boundaries(lines, embargo_periods, now)
    fixed = []
    for line in lines:
        obj = json.loads(line.split(" ", 2)[2])
        fixed += [timestamp_to_datetime(obj[k], tz_aware=True)
                  for k in ("before", "after") if k in obj]
    fixed += [timestamp_to_datetime("2005", tz_aware=True)]   # the `before` embargo
    span = int((now - HOUR - START).total_seconds())
    out = []
    while len(out) < n:
        if fixed and rng.random() < 1 / 6:
            dt = rng.choice(fixed) + timedelta(seconds=rng.choice([-1, 0, 0, 1]))
        else:
            dt = START + timedelta(seconds=rng.randrange(span))
        if dt < START or dt > now - HOUR or any(abs(dt - b) < HOUR for b in near):
            continue
        out.append((random_url(rng), to14(dt)))
    return out


# ---------------------------------------------------------------------------------------
# The two sides.

def pywb_answers(acl, queries, user, embargo, default_access):
    """pywb's access of each capture (`exclude` if wrap_iter drops it, else
    cdx['access']), and the checker (to ask which rule it found)."""
    # parse_embargo changes the dict it is given: a fresh copy for each checker.
    checker = AccessChecker(acl, default_access=default_access,
                            embargo=json.loads(json.dumps(embargo)) if embargo else None)
    out = []
    # check_embargo prints the dates it compares (`before`): kept off our output.
    with contextlib.redirect_stdout(io.StringIO()):
        for url, date in queries:
            cdx = CDXObject()
            # The checker makes its own key of cdx['url'] (CDXQuery); urlkey is as a CDX has it.
            cdx["urlkey"] = pywb_key(url)
            cdx["timestamp"] = date
            cdx["url"] = url
            kept = list(checker.wrap_iter(iter([cdx]), user))
            out.append(kept[0]["access"] if kept else "exclude")
    return out, checker


def pywb_rule(checker, url, date, user):
    """The line of the rule pywb's checker finds for a capture (None: its default)."""
    with contextlib.redirect_stdout(io.StringIO()):
        rule = checker.find_access_rule(url, date, None, None, user)
    if rule.get("default") == "true":
        return None
    return rule.cdxline.decode() if isinstance(rule.cdxline, bytes) else str(rule.cdxline)


def warcdex_args(bin_, coll, acl, user, embargo_flags, default_access):
    args = [bin_, "access", "check", coll, "--acl", acl, "--default-access", default_access]
    if user is not None:
        args += ["--user", user]
    for f in embargo_flags:
        args += ["--embargo", f]
    return args


def warcdex_answers(bin_, coll, acl, queries, user, embargo_flags, default_access):
    """warcdex's (ACCESS, KEY, DATE14, REASON) of each capture, from one run of
    `access check` with the captures on standard input."""
    args = warcdex_args(bin_, coll, acl, user, embargo_flags, default_access)
    stdin = "".join("%s %s\n" % q for q in queries)
    p = subprocess.run(args, input=stdin, capture_output=True, encoding="utf-8")
    if p.returncode != 0:
        sys.exit("access_parity: %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
    rows = [line.split("\t", 3) for line in p.stdout.splitlines()]
    if len(rows) != len(queries) or any(len(r) != 4 for r in rows):
        sys.exit("access_parity: warcdex wrote %d lines for %d captures:\n%s"
                 % (len(rows), len(queries), p.stdout[:2000]))
    return rows


def candidate_rules(lines, key):
    """The lines whose key could decide `key`: a prefix of it, the key with `###`, `*,`."""
    out = []
    for line in lines:
        k = line.split(" ", 1)[0]
        if key.startswith(k) or k == key + "###" or k == "*,":
            out.append(line)
    return out


# ---------------------------------------------------------------------------------------
# Shrinking a disagreement to the fewest rules that still show it.

def write_acl(path, lines):
    """An `.aclj` of these lines, in reverse byte order as pywb requires."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(l + "\n" for l in sorted(lines, key=lambda l: l.encode(), reverse=True)))


def one_answer(bin_, work, lines, query, cfg):
    """(pywb's, warcdex's) access of one capture under these rules only."""
    acl = os.path.join(work, "shrink.aclj")
    write_acl(acl, lines)
    py, _ = pywb_answers(acl, [query], cfg["user"], cfg["embargo"], cfg["default"])
    wx = warcdex_answers(bin_, os.path.join(work, "coll"), acl, [query], cfg["user"],
                         cfg["flags"], cfg["default"])
    return py[0], wx[0][0]


def disagrees(bin_, work, lines, query, cfg):
    """Whether the two sides differ on one capture under these rules only."""
    p, w = one_answer(bin_, work, lines, query, cfg)
    return p != w


def shrink(bin_, work, lines, query, cfg):
    """Drops chunks of rules, then single rules, while the disagreement persists."""
    lines = list(lines)
    chunk = max(1, len(lines) // 2)
    while chunk >= 1:
        i = 0
        while i < len(lines):
            trial = lines[:i] + lines[i + chunk:]
            if trial and disagrees(bin_, work, trial, query, cfg):
                lines = trial
            else:
                i += chunk
        chunk //= 2
    return lines


# ---------------------------------------------------------------------------------------

# What is asked of both sides: the user, pywb's embargo dict and warcdex's flags for it,
# and the default access.
CONFIGS = [
    {"name": "public", "user": None, "embargo": None, "flags": [], "default": "allow"},
    {"name": "staff", "user": "staff", "embargo": None, "flags": [], "default": "allow"},
    {"name": "nobody", "user": "nobody", "embargo": None, "flags": [], "default": "allow"},
    {"name": "public, embargo newer 400 days (block)", "user": None,
     "embargo": {"newer": {"days": 400}, "access": "block"},
     "flags": ["newer=400d", "access=block"], "default": "allow"},
    {"name": "reader, embargo before 2005 (block)", "user": "reader",
     "embargo": {"before": "2005", "access": "block"},
     "flags": ["before=2005", "access=block"], "default": "allow"},
    {"name": "staff, embargo older 20 years (exclude)", "user": "staff",
     "embargo": {"older": {"years": 20}}, "flags": ["older=20y"], "default": "allow"},
    {"name": "public, default block", "user": None, "embargo": None, "flags": [],
     "default": "block"},
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", nargs="?", type=int, help="random unless given")
    ap.add_argument("--bin", default=os.environ.get("WARCDEX_BIN", "target/debug/warcdex"),
                    help="the warcdex binary (default $WARCDEX_BIN or target/debug/warcdex)")
    ap.add_argument("--rules", type=int, default=300)
    ap.add_argument("--queries", type=int, default=3000)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(2**32)
    print("access_parity: seed %d" % seed, flush=True)
    rng = random.Random(seed)

    work = tempfile.mkdtemp(prefix="warcdex-access-parity-")
    ok = False
    try:
        ok = compare(a, rng, work)
    finally:
        # Kept when the answers differ, to look at and to rerun warcdex on.
        if ok or not os.path.exists(os.path.join(work, "FAILED")):
            shutil.rmtree(work)
    if not ok:
        print("\naccess_parity: FAIL (seed %d); rules and captures kept in %s" % (seed, work))
        sys.exit(1)
    print("access_parity: ok")


def compare(a, rng, work):
    """Makes the rules and captures, asks both sides under each configuration and prints
    what differs; True when nothing does."""
    coll = os.path.join(work, "coll")
    os.mkdir(coll)          # a collection with no access.json
    acl = os.path.join(work, "rules.aclj")
    lines = make_rules(rng, a.rules)
    write_acl(acl, lines)
    relative = [c["embargo"].get(k) for c in CONFIGS if c["embargo"] for k in ("newer", "older")]
    queries = make_queries(rng, a.queries, lines, relative)
    with open(os.path.join(work, "queries.txt"), "w", encoding="utf-8") as f:
        f.write("".join("%s %s\n" % q for q in queries))

    keys = [pywb_key(url) for url, _ in queries]
    failures = []          # (config, query index, pywb access, warcdex row, pywb's rule line)
    key_diffs = {}         # query index: warcdex's key
    for cfg in CONFIGS:
        py, checker = pywb_answers(acl, queries, cfg["user"], cfg["embargo"], cfg["default"])
        wx = warcdex_answers(a.bin, coll, acl, queries, cfg["user"], cfg["flags"], cfg["default"])
        counts = {}
        differ = 0
        for i, ((url, date), p, row) in enumerate(zip(queries, py, wx)):
            w_access, w_key, w_date, _ = row
            counts[p] = counts.get(p, 0) + 1
            if w_key != keys[i]:
                key_diffs[i] = w_key
            if w_date != date:
                sys.exit("access_parity: warcdex read date %s as %s" % (date, w_date))
            if p != w_access:
                differ += 1
                failures.append((cfg, i, p, row, pywb_rule(checker, url, date, cfg["user"])))
        print("  %-42s %s; %d differ" % (
            cfg["name"] + ":", ", ".join("%s %d" % kv for kv in sorted(counts.items())), differ))

    n = len(queries) * len(CONFIGS)
    print("access_parity: %d rules, %d captures x %d configurations = %d answers compared"
          % (len(lines), len(queries), len(CONFIGS), n))

    if key_diffs:
        print("\naccess_parity: %d URLs whose key differs (pywb | warcdex):" % len(key_diffs))
        for i, w_key in list(key_diffs.items())[:20]:
            print("  %s\n    %s | %s" % (queries[i][0], keys[i], w_key))

    if failures:
        print("\naccess_parity: %d answers differ; the first %d:"
              % (len(failures), min(20, len(failures))))
        for cfg, i, p, row, rule in failures[:20]:
            url, date = queries[i]
            print("\n  [%s] %s %s  key %s" % (cfg["name"], url, date, keys[i]))
            print("    pywb:    %s  (rule: %s)" % (p, rule or "default"))
            print("    warcdex: %s  (%s)" % (row[0], row[3]))
            for l in candidate_rules(lines, keys[i])[:12]:
                print("      candidate: " + l)
        cfg, i, _, _, _ = failures[0]
        small = shrink(a.bin, work, lines, queries[i], cfg)
        p, w = one_answer(a.bin, work, small, queries[i], cfg)   # leaves them in shrink.aclj
        print("\naccess_parity: the first, shrunk to %d rule(s): capture %s %s, user %r, "
              "embargo %s, default %s" % (len(small), queries[i][0], queries[i][1], cfg["user"],
                                         cfg["embargo"], cfg["default"]))
        for l in sorted(small, key=lambda l: l.encode(), reverse=True):
            print("    " + l)
        print("  pywb: %s   warcdex: %s" % (p, w))

    if failures or key_diffs:
        open(os.path.join(work, "FAILED"), "w").close()
        return False
    return True


if __name__ == "__main__":
    main()
