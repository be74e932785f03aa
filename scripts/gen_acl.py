#!/usr/bin/env python3
"""Writes a pywb access-control list of many SURT-prefix rules, as a takedown list of a
national library grows (the bench of scripts/bench-access.sh): most rules name
hosts and paths the collection does not hold, two in a thousand a page of the
collection's CDX (so some captures are hidden), with block and
exclude mixed and some rules for a reading room's user. Lines in reverse byte order, as
pywb requires.

Usage: gen_acl.py --rules N [--seed S] [--cdx all.cdx] > rules.aclj
"""
import argparse
import json
import random
import sys

TLDS = ["com", "org", "net", "de", "fr", "uk", "pt", "nl", "io", "edu", "gov", "info"]


def word(rng, n):
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))


def random_key(rng):
    host = [rng.choice(TLDS), word(rng, rng.randint(4, 12))]
    if rng.random() < 0.4:
        host.append(rng.choice(["www", "blog", "news", word(rng, 5)]))
    key = ",".join(host) + ")/"
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        key += word(rng, rng.randint(3, 10)) + "/"
    return key


def collection_keys(path, limit=200000):
    keys = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(" CDX") or not line.strip():
                    continue
                keys.append(line.split(" ", 1)[0])
                if len(keys) >= limit:
                    break
    except FileNotFoundError:
        pass
    return keys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cdx")
    ap.add_argument("--real-share", type=float, default=0.002)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    real = collection_keys(a.cdx) if a.cdx else []
    lines = set()
    while len(lines) < a.rules:
        if real and rng.random() < a.real_share:
            key = rng.choice(real)
            # A page: a takedown names what it takes down (the bench's directories hold
            # hundreds of pages each, and a whole host would leave little to search).
            pass
        else:
            key = random_key(rng)
        rule = {"access": rng.choice(["block", "exclude"])}
        if rng.random() < 0.05:
            rule = {"access": "allow", "user": "reading-room"}
        lines.add(f"{key} - {json.dumps(rule)}")
    sys.stdout.write("\n".join(sorted(lines, reverse=True)) + "\n")


if __name__ == "__main__":
    main()
