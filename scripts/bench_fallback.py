#!/usr/bin/env python3
"""The timing half of scripts/bench-fallback.sh: for each word of WORDS the collection
holds, its plain search and two searches that fall back (the word cut to its first
two-thirds, and the word with one inner letter dropped), each asked ROUNDS times,
alternated, one at a time; p50 and p90 per kind. Only words whose variants come back
with a suggestion are timed (the others did not fall back). Standard library only."""
import json
import statistics
import sys
import time
import urllib.parse
import urllib.request

WORDS = """function database template exception iterator connection configuration transaction
parameter interface documentation performance authentication serialization collection
repository dictionary generator attribute descriptor namespace permission migration
middleware signature statement sequence variable protocol encoding subprocess decorator
inheritance constructor expression callback timestamp operator directory certificate
scheduler validator renderer extension aggregate""".split()


def ask(base, q):
    url = base + "/search.json?" + urllib.parse.urlencode({"query": q})
    t = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as r:
        body = json.load(r)
    return time.perf_counter() - t, body


def main():
    base, rounds = sys.argv[1], int(sys.argv[2])
    cases = []
    for w in WORDS:
        _, plain = ask(base, w)
        if plain.get("total", 0) == 0:
            continue
        cut = w[: max(4, len(w) * 2 // 3)]
        drop = w[: len(w) // 2] + w[len(w) // 2 + 1:]
        for kind, q in (("completion", cut), ("correction", drop)):
            _, b = ask(base, q)
            if b.get("suggestion") and b.get("total", 0) > 0:
                cases.append((w, kind, q))
    times = {"plain": [], "completion": [], "correction": []}
    for _ in range(rounds):
        for w, kind, q in cases:
            times["plain"].append(ask(base, w)[0])
            times[kind].append(ask(base, q)[0])
    p = lambda xs, f: sorted(xs)[min(len(xs) - 1, int(len(xs) * f))] * 1000
    print(f"{len(cases)} fallback queries from {len(WORDS)} words, {rounds} rounds")
    for kind, xs in times.items():
        if xs:
            print(f"{kind:11} n={len(xs):4}  p50 {p(xs, 0.5):8.1f} ms  p90 {p(xs, 0.9):8.1f} ms")
    fall = times["completion"] + times["correction"]
    if fall and times["plain"]:
        print(f"fallback p50 / plain p50: {statistics.median(fall) / statistics.median(times['plain']):.2f}")


if __name__ == "__main__":
    main()
