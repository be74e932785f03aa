#!/usr/bin/env python3
"""Writes a synthetic collection directory for scripts/bench-recrawl.sh: an `all.cdx` of
U URLs on 1,000 hosts, each captured 3 to 8 times over a year at irregular dates, its
content digest changing as a Poisson process (a quarter never change; the rest from once
in 180 days to twice a day); 5 % of the URLs end with two 404s, 2 % with a redirect. The
lines are those `warcdex update` writes (CDX11, sorted by key then date), so
`recrawl-plan` reads it as it reads a collection's (it has no index: every importance
is 1). Only the standard library is used.

Usage: python3 scripts/make_recrawl_cdx.py --urls U --out DIR [--seed S]
"""
import argparse
import base64
import hashlib
import math
import os
import random

START = 1704067200  # 2024-01-01


def ts(seconds):
    import time
    return time.strftime("%Y%m%d%H%M%S", time.gmtime(seconds))


def digest(*parts):
    h = hashlib.sha1("/".join(map(str, parts)).encode()).digest()
    return base64.b32encode(h).decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--urls", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    hosts = 1000
    per_host = (a.urls + hosts - 1) // hosts
    tmp = os.path.join(a.out, "all.cdx.tmp")
    with open(tmp, "w") as out:
        out.write(" CDX N b a m s k r M S V g\n")
        n = 0
        for h in range(hosts):
            for p in range(per_host):
                if n >= a.urls:
                    break
                n += 1
                # Keys sort as written: zero-padded numbers, one host's pages together.
                key = f"com,example,h{h:04d})/p{p:07d}"
                url = f"http://h{h:04d}.example.com/p{p:07d}"
                rate = 0.0 if rng.random() < 0.25 else (1 / 180) * 360 ** rng.random()
                k = rng.randint(3, 8)
                t = START + rng.randint(0, 30 * 86400)
                version = 0
                end = rng.random()
                lines = []
                for i in range(k):
                    if i:
                        gap = rng.randint(3, 60) * 86400
                        if rate > 0 and rng.random() < 1 - math.exp(-rate * gap / 86400):
                            version += 1
                        t += gap
                    status, d, redirect = "200", digest(url, version), "-"
                    if end < 0.05 and i >= k - 2:
                        status, d = "404", digest(url, "404")
                    elif 0.05 <= end < 0.07 and i == k - 1:
                        status, d, redirect = "301", digest(url, "301"), url + "/new"
                    lines.append(f"{key} {ts(t)} {url} text/html {status} {d} {redirect} - 1000 {n * 8000 + i} crawl-{i}.warc.gz\n")
                out.writelines(lines)
    os.replace(tmp, os.path.join(a.out, "all.cdx"))


if __name__ == "__main__":
    main()
