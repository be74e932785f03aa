#!/usr/bin/env python3
"""The labelled evaluation set of `warcdex near-dups` (issue 20), and its measurement.

Real pages of the bench corpus (the HTML of the Debian doc packages that
../shared/bench/make_bench.py crawls; scripts/make_scale.py reads the same roots) are
given the parts that change from capture to capture on a live site: a date line, a visit
counter and an ad block inside the content. For each page (a "base") the script writes:

- three near variants, each changing one or more of: the counter, the date line, the ad
  (another ad of the same length: at most 3% of the page's words), the whitespace, or the
  markup only (attributes, a wrapping element);
- one far variant that rewrites at least 20% of the words (a run of text blocks, or blocks
  spread over the page, given the words of another page);
- one mirror: the base on another host, its links pointing there.

Pairs (base, near) and (base, mirror) are labelled near, (base, far) far: five pairs a page.
The variants are captures of the base's URL on later dates (the mirror, of its own URL),
written as WARC with `WARC-Payload-Digest`s, so a pair is two (URL, digest) versions.

Then (unless --no-measure) it runs the warcdex binary: `import`, `index`, and `near-dups -k K`
for K = 0..12, and prints, per K, the confusion table of the pairs (a pair is predicted
near when both versions are in one cluster), precision and recall; and, with the hidden
`fingerprints` command, the same for plain pairwise distances under other features (shingle
sizes, weights, whole text against main content), the table of docs/near-duplicates.md.

Usage: python3 scripts/near-dups-eval.py --out DIR [--bases 450] [--seed 20] [--bin PATH]
Only the standard library is used.
"""
import argparse
import base64
import gzip
import hashlib
import json
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_scale  # noqa: E402  (the doc roots and the page list)

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
AD_WORDS = ("cloud hosting discount offer premium plan subscribe today free trial save "
            "percent laptops deals shop sale limited time exclusive members fast shipping "
            "insurance quote compare mortgage rates vacation packages flights hotels "
            "training courses certificate online degree software license security "
            "antivirus backup storage upgrade best price guaranteed").split()
BLOCK_RE = re.compile(rb"(<p\b[^>]*>)(.*?)(</p>)", re.S | re.I)
TAG_RE = re.compile(rb"<[^>]*>")
WORD_RE = re.compile(r"\w+")
CAPTURE_DATES = ["2025-03-%02dT06:00:00Z" % d for d in range(1, 8)]


def words_of(html):
    """The words of the <body>'s text, roughly (scripts and styles dropped)."""
    body = html.split(b"<body", 1)[-1]
    body = re.sub(rb"<(script|style)\b.*?</\1>", b" ", body, flags=re.S | re.I)
    return WORD_RE.findall(TAG_RE.sub(b" ", body).decode("utf-8", "replace"))


def date_line(rng):
    d = rng.randrange(1, 29)
    return "Last updated: %s, %d %s %d" % (rng.choice(DAYS), d, rng.choice(MONTHS),
                                           rng.choice([2024, 2025]))


def ad_text(rng, n):
    return " ".join(rng.choice(AD_WORDS) for _ in range(n))


class Page:
    """A base page with its dynamic parts, rendered with any values of them."""

    def __init__(self, html, rng):
        self.html = html
        self.words = len(words_of(html))
        # The ad holds at most 3% of the page's words, so that a new ad changes no more.
        self.ad_words = max(2, min(12, int(self.words * 0.03) - 1))
        blocks = [m for m in BLOCK_RE.finditer(html)]
        self.ad_at = blocks[len(blocks) // 2].end() if blocks else None

    def render(self, date, counter, ad, spaces=False, markup=False):
        html = self.html
        ad_html = b'<div class="ad-slot">Sponsored: %s</div>' % ad.encode()
        if self.ad_at is not None:
            html = html[:self.ad_at] + ad_html + html[self.ad_at:]
        head = b'<p class="updated">%s</p>' % date.encode()
        html = re.sub(rb"(<body\b[^>]*>)", lambda m: m.group(1) + head, html, count=1)
        foot = b'<div class="counter">This page has been viewed %s times</div>' % (
            "{:,}".format(counter).encode())
        html = html.replace(b"</body>", foot + b"</body>", 1)
        if spaces:
            html = re.sub(rb"\n", b"\n\n    ", html)
            html = re.sub(rb"(?<=[a-z]) (?=[a-z])", b"  ", html)
        if markup:
            html = re.sub(rb"<p>", b'<p class="text" data-v="2">', html)
            html = re.sub(rb"<div\b", b'<div data-build="7f3a"', html)
            html = html.replace(b"<body>", b'<body class="v2"><div class="wrap">', 1)
            html = html.replace(b"</body>", b"</div></body>", 1)
        return html


def rewrite(html, donor_words, rng, share, spread):
    """Gives at least `share` of the page's words to text blocks taken from `donor_words`:
    a run of consecutive <p> blocks, or blocks spread over the page."""
    blocks = [m for m in BLOCK_RE.finditer(html)]
    total = len(words_of(html))
    sizes = [len(WORD_RE.findall(TAG_RE.sub(b" ", m.group(2)).decode("utf-8", "replace")))
             for m in blocks]
    order = list(range(len(blocks)))
    if spread:
        rng.shuffle(order)
    else:
        start = rng.randrange(len(blocks))
        order = order[start:] + order[:start]
    chosen, n = set(), 0
    for i in order:
        if n >= share * total:
            break
        chosen.add(i)
        n += sizes[i]
    if n < share * total:
        return None
    out, last, d = [], 0, rng.randrange(len(donor_words))
    for i, m in enumerate(blocks):
        if i not in chosen:
            continue
        k = max(1, sizes[i])
        new = " ".join(donor_words[(d + j) % len(donor_words)] for j in range(k))
        d += k
        out.append(html[last:m.start(2)])
        out.append(new.encode())
        last = m.end(2)
    out.append(html[last:])
    return b"".join(out)


def payload_digest(body):
    return "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode()


def build(args):
    rng = random.Random(args.seed)
    src = make_scale.pages()
    rng.shuffle(src)
    bases, donors = [], []
    seen = set()
    for rel, p in src:
        if len(bases) >= args.bases:
            break
        with open(p, "rb") as f:
            html = f.read()
        if b"</body>" not in html or len(BLOCK_RE.findall(html)) < 6:
            continue
        n = len(words_of(html))
        h = hashlib.sha1(html).digest()
        if n < 150 or n > 20000 or h in seen:
            continue
        seen.add(h)
        bases.append((rel, html))
    if len(bases) < args.bases:
        sys.exit("near-dups-eval: only %d pages with enough text" % len(bases))
    donors = [words_of(h) for _, h in bases]
    os.makedirs(args.out, exist_ok=True)
    warc = os.path.join(args.out, "eval.warc.gz")
    labels = []
    with open(warc, "wb") as out:
        def capture(url, date, body):
            out.write(make_scale.record(url, date, body))
            return (url, payload_digest(body))

        for i, (rel, html) in enumerate(bases):
            page = Page(html, rng)
            url = "https://docs.example.org/%s" % rel
            counter = rng.randrange(1000, 900000)
            date, ad = date_line(rng), ad_text(rng, page.ad_words)
            base = capture(url, CAPTURE_DATES[0], page.render(date, counter, ad))
            kinds = ["counter", "date", "ad", "whitespace", "markup", "date+counter+ad",
                     "counter+markup"]
            for j, kind in enumerate(rng.sample(kinds, 3)):
                v = dict(date=date, counter=counter, ad=ad)
                if "counter" in kind:
                    v["counter"] = counter + rng.randrange(1, 5000)
                if "date" in kind:
                    while v["date"] == date:
                        v["date"] = date_line(rng)
                if "ad" in kind.split("+"):
                    v["ad"] = ad_text(rng, page.ad_words)
                body = page.render(v["date"], v["counter"], v["ad"],
                                   spaces=kind == "whitespace", markup="markup" in kind)
                near = capture(url, CAPTURE_DATES[1 + j], body)
                labels.append((base, near, "near", kind))
            donor = donors[(i + 1 + rng.randrange(len(donors) - 1)) % len(donors)]
            spread = rng.random() < 0.5
            far_html = None
            for share in (0.2 + rng.random() * 0.15, 0.25, 0.3):
                far_html = rewrite(html, donor, rng, share, spread)
                if far_html is not None:
                    break
            if far_html is not None:
                fpage = Page(far_html, rng)
                fpage.ad_at = page.ad_at if page.ad_at and page.ad_at < len(far_html) else None
                far = capture(url, CAPTURE_DATES[4], fpage.render(date, counter, ad))
                labels.append((base, far, "far", "spread" if spread else "run"))
            mirror_host = "mirror%d.example.net" % (i % 17)
            mirror_url = "https://%s/%s" % (mirror_host, rel)
            mbody = page.render(date, counter, ad).replace(
                b"https://docs.example.org/", ("https://%s/" % mirror_host).encode())
            mirror = capture(mirror_url, CAPTURE_DATES[5], mbody)
            labels.append((base, mirror, "near", "mirror"))
    with open(os.path.join(args.out, "labels.tsv"), "w") as f:
        for a, b, label, kind in labels:
            f.write("\t".join([a[0], a[1], b[0], b[1], label, kind]) + "\n")
    print("near-dups-eval: %d pages, %d labelled pairs (%d near, %d far) -> %s" % (
        len(bases), len(labels), sum(1 for l in labels if l[2] == "near"),
        sum(1 for l in labels if l[2] == "far"), warc), file=sys.stderr)
    return warc, labels


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, **kw).stdout.decode()


def score(labels, same):
    """Confusion counts of the pairs: `same(a, b)` predicts near."""
    t = dict(tp=0, fn=0, fp=0, tn=0)
    missed = []
    for a, b, label, kind in labels:
        pred = same(a, b)
        key = ("tp" if pred else "fn") if label == "near" else ("fp" if pred else "tn")
        t[key] += 1
        if key in ("fn", "fp"):
            missed.append((key, kind, a, b))
    p = t["tp"] / max(1, t["tp"] + t["fp"])
    r = t["tp"] / max(1, t["tp"] + t["fn"])
    return t, p, r, missed


def measure(args, warc, labels):
    work = os.path.join(args.out, "work")
    os.makedirs(work, exist_ok=True)
    seg = os.path.join(work, "segment")
    idx = os.path.join(work, "search")
    manifest = os.path.join(work, "manifest.txt")
    with open(manifest, "w") as f:
        f.write(os.path.abspath(warc) + "\n")
    if not os.path.isdir(seg):
        run([args.bin, "import", manifest, seg], stderr=subprocess.DEVNULL)
    if not os.path.isdir(idx):
        os.makedirs(os.path.join(idx, "pindexes"), exist_ok=True)
        run([args.bin, "index", "--out", os.path.join(idx, "pindexes", "eval", "main"), seg],
            stderr=subprocess.DEVNULL)
    print("## near-dups on the labelled set (%d pairs)\n" % len(labels))
    print("| k | TP | FN | FP | TN | precision | recall |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    chosen = None
    for k in range(0, 13):
        lines = run([args.bin, "near-dups", "-k", str(k), idx], stderr=subprocess.DEVNULL)
        cluster = {}
        for line in lines.splitlines():
            c, url, digest, _ = line.split("\t")
            cluster[(url, digest)] = c
        t, p, r, missed = score(labels, lambda a, b: a in cluster and cluster.get(a) == cluster.get(b))
        print("| %d | %d | %d | %d | %d | %.4f | %.4f |" % (k, t["tp"], t["fn"], t["fp"], t["tn"], p, r))
        if k == args.k:
            chosen = (t, p, r, missed)
    t, p, r, missed = chosen
    print("\nAt k = %d: precision %.4f, recall %.4f." % (args.k, p, r))
    kinds = {}
    for key, kind, a, b in missed:
        kinds[(key, kind)] = kinds.get((key, kind), 0) + 1
    if kinds:
        print("Errors by kind: " + ", ".join("%s %s: %d" % (k[0], k[1], n) for k, n in sorted(kinds.items())))
    # Pairwise distances under other features (the hidden `fingerprints` command).
    print("\n## Pairwise distance by features (pairs at most k bits apart predicted near)\n")
    print("| features | near: median / p95 / max | far: min / p5 / median | best k | precision | recall |")
    print("|---|---|---|---:|---:|---:|")
    for shingle in (1, 2, 3, 4):
        for weighting in ("set", "count", "log"):
            for quarters in (0, 1, 2, 4):
                cmd = [args.bin, "fingerprints", seg, "--shingle", str(shingle),
                       "--weighting", weighting, "--boilerplate", str(quarters)]
                prints = {}
                for line in run(cmd).splitlines():
                    key, h, _ = line.split("\t")
                    url, digest = key.rsplit(" ", 1)
                    prints[(url, digest)] = int(h, 16)
                dist = lambda a, b: bin(prints[a] ^ prints[b]).count("1")
                near = sorted(dist(a, b) for a, b, l, _ in labels if l == "near")
                far = sorted(dist(a, b) for a, b, l, _ in labels if l == "far")
                best = None
                for k in range(0, 30):
                    t, p, r, _ = score(labels, lambda a, b: dist(a, b) <= k)
                    f = min(p, r)
                    if best is None or f > best[0]:
                        best = (f, k, p, r)
                q = lambda xs, f: xs[min(len(xs) - 1, int(f * len(xs)))]
                print("| %d-word shingles, %s, %s | %d / %d / %d | %d / %d / %d | %d | %.4f | %.4f |" % (
                    shingle, weighting, {0: "main content only", 1: "boilerplate 1/4",
                                         2: "boilerplate 1/2", 4: "whole text"}[quarters],
                    q(near, 0.5), q(near, 0.95), near[-1], far[0], q(far, 0.05), q(far, 0.5),
                    best[1], best[2], best[3]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--bases", type=int, default=450)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--k", type=int, default=6, help="the k whose errors are listed")
    ap.add_argument("--bin", default=os.environ.get("WARCDEX", "target/release/warcdex"), help="the warcdex binary (with a shared CARGO_TARGET_DIR, pass its release/warcdex)")
    ap.add_argument("--no-measure", action="store_true")
    a = ap.parse_args()
    warc, labels = build(a)
    if not a.no_measure:
        measure(a, warc, labels)


if __name__ == "__main__":
    main()
