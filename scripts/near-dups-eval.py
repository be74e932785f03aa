#!/usr/bin/env python3
"""The all-pairs evaluation of `warcdex near-dups`.

Builds the labelled sets of scripts/near_dups_sets.py (real pages of one site side by
side, real pages of several sites, synthetic pages of one vocabulary: each page with four
near variants, a mirror and two far variants), puts each in a collection with
`warcdex update`, lists its clusters with `warcdex near-dups`, and scores **every pair of
versions** of the set: two versions of one group (a base, its near variants, its mirror)
are a near pair, every other pair is far; a pair is predicted near when both versions are
in one cluster. Prints per set the pairs, TP, FN, FP, precision, recall and the largest
cluster, and the errors by kind.

Usage: python3 scripts/near-dups-eval.py --out DIR [--seed 1] [--sets real-site,synthetic]
       [--pages N] [--bin PATH] [-- NEAR-DUPS FLAGS...]
Only the standard library is used.
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import near_dups_sets  # noqa: E402

DEFAULT_PAGES = {"real-site": 120, "real-mixed": 120, "synthetic": 150, "synthetic-short": 150}


def pairs(n):
    return n * (n - 1) // 2


def score(versions, clusters):
    """Confusion counts over all pairs of `versions` ((url, digest, group, role)) given
    `clusters` ({(url, digest): cluster})."""
    n = len(versions)
    by_group = collections.Counter(v[2] for v in versions)
    by_cluster = collections.Counter()
    by_both = collections.Counter()
    for i, (url, digest, group, _) in enumerate(versions):
        c = clusters.get((url, digest), ("alone", i))
        by_cluster[c] += 1
        by_both[(c, group)] += 1
    truth = sum(pairs(k) for k in by_group.values())
    predicted = sum(pairs(k) for k in by_cluster.values())
    tp = sum(pairs(k) for k in by_both.values())
    fp, fn = predicted - tp, truth - tp
    return dict(pairs=pairs(n), near=truth, tp=tp, fn=fn, fp=fp, tn=pairs(n) - truth - fp,
                precision=tp / predicted if predicted else 1.0,
                recall=tp / truth if truth else 1.0,
                largest=max(by_cluster.values()) if by_cluster else 0)


def errors(versions, clusters):
    """What went wrong, by kind: near versions left out of their base's cluster, far
    variants put in it, and clusters holding several groups."""
    kinds = collections.Counter()
    base_cluster = {}
    for url, digest, group, role in versions:
        if role == "base":
            base_cluster[group] = clusters.get((url, digest))
    for url, digest, group, role in versions:
        c = clusters.get((url, digest))
        family = group.split("-far")[0]
        joined = c is not None and c == base_cluster.get(family)
        if role.startswith("far:") and joined:
            kinds["far variant in its base's cluster (%s)" % role[4:]] += 1
        elif not role.startswith("far:") and role != "base" and not joined:
            kinds["near version apart from its base (%s)" % role] += 1
    groups = collections.defaultdict(set)
    for url, digest, group, role in versions:
        c = clusters.get((url, digest))
        if c is not None:
            groups[c].add(group.split("-far")[0])
    kinds["clusters holding two or more pages"] = sum(1 for g in groups.values() if len(g) > 1)
    return kinds


def run(cmd):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE).stdout.decode()


def clusters_of(args, coll, flags):
    clusters = {}
    for line in run([args.bin, "near-dups", coll] + flags).splitlines():
        c, url, digest, _ = line.split("\t")
        clusters[(url, digest)] = c
    return clusters


def evaluate(args, kind):
    """Builds the set and its collection; returns the pages, the versions, the scores
    and errors with the defaults (or the flags given), and the scores at each
    threshold of --sweep."""
    n = args.pages or DEFAULT_PAGES[kind]
    warc, versions = near_dups_sets.build(kind, n, args.seed, args.out)
    coll = os.path.join(args.out, "%s-coll" % kind)
    if os.path.isdir(coll):
        shutil.rmtree(coll)
    run([args.bin, "update", coll, warc])
    clusters = clusters_of(args, coll, args.flags)
    sweep = [(t, score(versions, clusters_of(args, coll, ["--threshold", t])))
             for t in args.sweep.split(",") if t]
    return n, len(versions), score(versions, clusters), errors(versions, clusters), sweep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sets", default="real-site,real-mixed,synthetic,synthetic-short")
    ap.add_argument("--pages", type=int, default=0, help="pages per set (default: 120, 120, 150)")
    ap.add_argument("--bin", default=os.environ.get("WARCDEX", "target/release/warcdex"))
    ap.add_argument("--sweep", default="", help="thresholds to score too, comma-separated")
    ap.add_argument("flags", nargs="*", help="flags for near-dups (after --)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    print("| set (seed %d) | pages | versions | pairs | near pairs | TP | FN | FP | precision | recall | largest cluster |" % a.seed)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    worst = 1.0
    notes, sweeps = [], []
    for kind in a.sets.split(","):
        pages, nv, s, errs, sweep = evaluate(a, kind)
        sweeps.append((kind, sweep))
        worst = min(worst, s["precision"], s["recall"])
        print("| %s | %d | %d | %d | %d | %d | %d | %d | %.4f | %.4f | %d |" % (
            kind, pages, nv, s["pairs"], s["near"], s["tp"], s["fn"], s["fp"],
            s["precision"], s["recall"], s["largest"]), flush=True)
        notes.append("%s: %s" % (kind, ", ".join("%s %d" % kv for kv in sorted(errs.items())) or "no errors"))
    print()
    for n in notes:
        print("- " + n)
    for kind, sweep in sweeps:
        for t, s in sweep:
            print("sweep\t%s\t%d\t%s\t%d\t%d\t%d\t%.4f\t%.4f\t%d" % (
                kind, a.seed, t, s["tp"], s["fn"], s["fp"], s["precision"], s["recall"],
                s["largest"]))
    sys.exit(0 if worst >= 0.95 else 3)


if __name__ == "__main__":
    main()
