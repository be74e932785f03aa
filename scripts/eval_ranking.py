#!/usr/bin/env python3
"""Ranking evaluation: known-item and judged queries over one collection,
warcdex's ranking against plain BM25, in one run.

Known-item queries are made from the collection's own segments (documents.parquet) with a
seed: pages picked at random among HTML pages with a title, and for each

  title   its title without the words its site puts in most titles;
  words   the four words of its text rarest in the collection;
  anchor  the words of a link that another page makes to it (a descriptive one: an anchor
          text used for at most three targets);
  anchor-ext  the same from a page of another host, for pages that have one (sampled
          apart: on a collection of sites that link to each other, scripts/
          make_multisite_bench.py; none on the one-site bench);
  url     the words of its URL path and its site's name, without the words most of the
          site's URLs have (`postgresql rules views`).

A hit counts when its URL is the page's. Ad hoc topics (fixtures/ranking/topics.tsv) are
judged by hand (fixtures/ranking/qrels.tsv, grades 0–3 by URL).

Plain BM25 is built the way a reader without warcdex would build it: tantivy (the same
engine, its Python binding) over title + text with default settings, one document per URL,
no link analysis, the query parsed over both fields. warcdex is asked through `warcdex
serve`'s `/search.json` with `hitsPerSite=0` (every hit counts, as in the known-item
measure) and near-identical versions collapsed (its default).

Prints a table per set: success@1, success@10, MRR@10 and nDCG@10 for each ranking.
"""

import argparse
import collections
import glob
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import pyarrow.parquet as pq
import tantivy

WORD = re.compile(r"[^\W_]+", re.UNICODE)


def words(text):
    return [w.lower() for w in WORD.findall(text or "")]


class Page:
    __slots__ = ("url", "site", "title", "text", "outlinks")

    def __init__(self, url, site, title, text, outlinks):
        self.url, self.site, self.title, self.text, self.outlinks = url, site, title, text, outlinks


def site_of(url):
    host = urllib.parse.urlsplit(url).hostname or ""
    return host[4:] if host.startswith("www.") else host


def load_pages(collection):
    """One page per URL (its latest version) among 200 HTML rows of every segment."""
    files = sorted(glob.glob(os.path.join(collection, "segments", "**", "documents.parquet"), recursive=True))
    if not files:
        sys.exit(f"eval_ranking: no segments/**/documents.parquet under {collection}")
    pages = {}
    for f in files:
        t = pq.read_table(f, columns=["url", "mime", "status", "title", "text", "outlinks", "first_date"])
        for row in t.to_pylist():
            if row["status"] != 200 or not (row["mime"] or "").startswith("text/html"):
                continue
            old = pages.get(row["url"])
            if old is not None and old[0] >= row["first_date"]:
                continue
            links = [(o["url"], o["anchor"]) for o in row["outlinks"] or []]
            pages[row["url"]] = (row["first_date"], Page(row["url"], site_of(row["url"]), row["title"] or "", row["text"] or "", links))
    return {u: p for u, (_, p) in pages.items()}


def common_words(groups, share):
    """Per site, the words in more than `share` of its items."""
    out = {}
    for site, items in groups.items():
        df = collections.Counter()
        for ws in items:
            df.update(set(ws))
        out[site] = {w for w, n in df.items() if n > share * len(items)}
    return out


def make_known_items(pages, seed, sample):
    """(kind, query, url) triples: the five kinds for `sample` random pages."""
    by_site = collections.defaultdict(list)
    for p in pages.values():
        by_site[p.site].append(p)
    title_common = common_words({s: [words(p.title) for p in ps] for s, ps in by_site.items()}, 0.5)
    path_words = lambda u: [w for w in words(urllib.parse.unquote(urllib.parse.urlsplit(u).path)) if not w.isdigit()]
    url_common = common_words({s: [path_words(p.url) for p in ps] for s, ps in by_site.items()}, 0.3)
    df = collections.Counter()
    for p in pages.values():
        df.update(set(words(p.text)))
    inbound = collections.defaultdict(list)
    inbound_ext = collections.defaultdict(list)
    anchor_targets = collections.defaultdict(set)
    for p in pages.values():
        for target, anchor in p.outlinks:
            target = target.split("#")[0]
            if target != p.url and target in pages and words(anchor):
                inbound[target].append(anchor)
                if host_of(target) != host_of(p.url):
                    inbound_ext[target].append(anchor)
                anchor_targets[" ".join(words(anchor))].add(target)
    rng = random.Random(seed)
    candidates = sorted(u for u, p in pages.items() if words(p.title))
    picked = rng.sample(candidates, min(sample, len(candidates)))
    out = []
    for u in picked:
        p = pages[u]
        t = [w for w in words(p.title) if w not in title_common[p.site]]
        if t:
            out.append(("title", " ".join(dict.fromkeys(t)), u))
        text = sorted(set(words(p.text)), key=lambda w: (df[w], w))
        if len(text) >= 4:
            out.append(("words", " ".join(text[:4]), u))
        # The four words of highest tf-idf in the page against the sample: words the page
        # repeats that few pages use (issue 61: the kind where empty answers showed).
        tf = collections.Counter(words(p.text))
        tfidf = sorted(tf, key=lambda w: (-tf[w] * math.log(len(pages) / df[w]), w))
        if len(tfidf) >= 4:
            out.append(("tfidf", " ".join(tfidf[:4]), u))
        anchors = sorted({a for a in inbound[u] if len(anchor_targets[" ".join(words(a))]) <= 3})
        if anchors:
            out.append(("anchor", " ".join(words(rng.choice(anchors))), u))
        uw = [w for w in path_words(u) if w not in url_common[p.site] and w not in ("html", "htm")]
        name = p.site.split(".")[-2] if p.site.count(".") >= 1 else p.site
        if uw:
            out.append(("url", " ".join(dict.fromkeys([name] + uw)), u))
    descriptive = lambda anchors: sorted({a for a in anchors if len(anchor_targets[" ".join(words(a))]) <= 3})
    linked = sorted(u for u in inbound_ext if words(pages[u].title) and descriptive(inbound_ext[u]))
    for u in rng.sample(linked, min(sample, len(linked))):
        out.append(("anchor-ext", " ".join(words(rng.choice(descriptive(inbound_ext[u])))), u))
    return out


def host_of(url):
    return urllib.parse.urlsplit(url).netloc.lower()


def tantivy_query_text(q):
    # Plain words only: the parser's syntax characters are dropped, not interpreted.
    return " ".join(words(q))


class PlainBm25:
    """tantivy with default settings over title + text, one document per URL."""

    def __init__(self, pages, path):
        b = tantivy.SchemaBuilder()
        b.add_text_field("url", stored=True, tokenizer_name="raw")
        b.add_text_field("title", stored=False)
        b.add_text_field("body", stored=False)
        self.schema = b.build()
        self.index = tantivy.Index(self.schema, path=path)
        w = self.index.writer(heap_size=256_000_000, num_threads=1)
        for p in pages.values():
            w.add_document(tantivy.Document(url=p.url, title=p.title, body=p.text))
        w.commit()
        w.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()

    def search(self, q, n=10):
        text = tantivy_query_text(q)
        if not text:
            return []
        query = self.index.parse_query(text, ["title", "body"])
        return [self.searcher.doc(a)["url"][0] for _, a in self.searcher.search(query, n).hits]


class Warcdex:
    """`warcdex serve` over the collection, asked through /search.json."""

    def __init__(self, binary, collection, env):
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [binary, "serve", "--addr", "127.0.0.1:0", "--dir", collection],
            stdout=subprocess.DEVNULL, stderr=self.log, env={**os.environ, **env})
        self.port = None
        for _ in range(600):
            self.log.seek(0)
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", self.log.read())
            if m:
                self.port = int(m.group(1))
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        if self.port is None:
            self.log.seek(0)
            sys.exit("eval_ranking: warcdex serve did not start:\n" + self.log.read())

    def search(self, q, n=10):
        qs = urllib.parse.urlencode({"query": q, "hitsPerPage": n, "hitsPerSite": 0})
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/search.json?{qs}") as r:
                return [h["url"] for h in json.load(r)["hits"]]
        except urllib.error.HTTPError as e:
            if e.code == 400:
                return []
            raise

    def close(self):
        self.proc.terminate()
        self.proc.wait()


def dcg(gains):
    return sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(gains))


def measure(results, judged):
    """Metrics over queries: results[q] = URLs best first, judged[q] = {url: grade}.
    A hit is relevant at grade 2 or more (known items: grade 3)."""
    n = len(results)
    s1 = s10 = mrr = ndcg = 0.0
    empty = sum(1 for urls in results.values() if not urls)
    for q, urls in results.items():
        grades = [judged[q].get(u, 0) for u in urls[:10]]
        rel = [g >= 2 for g in grades]
        s1 += rel[0] if rel else 0
        s10 += any(rel)
        mrr += next((1 / (i + 1) for i, r in enumerate(rel) if r), 0)
        ideal = dcg(sorted(judged[q].values(), reverse=True)[:10])
        ndcg += dcg(grades) / ideal if ideal else 0
    return {"n": n, "success@1": s1 / n, "success@10": s10 / n, "MRR@10": mrr / n, "nDCG@10": ndcg / n,
            "empty": empty}


def load_adhoc(topics_path, qrels_path, part):
    topics = {}
    with open(topics_path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                tid, tpart, query = line.rstrip("\n").split("\t")[:3]
                if part in ("all", tpart):
                    topics[tid] = (tpart, query)
    qrels = collections.defaultdict(dict)
    with open(qrels_path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                tid, url, grade = line.rstrip("\n").split("\t")[:3]
                qrels[tid][url] = int(grade)
    return topics, qrels


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("collection", help="a warcdex collection (segments/ and pindexes/)")
    ap.add_argument("--bin", required=True, help="the warcdex binary")
    ap.add_argument("--seed", type=int, default=1, help="seed of the known-item sample")
    ap.add_argument("--sample", type=int, default=300, help="pages sampled")
    ap.add_argument("--topics", help="ad hoc topics (TSV: id, part, query)")
    ap.add_argument("--qrels", help="their judgements (TSV: id, URL, grade 0-3)")
    ap.add_argument("--part", default="all", help="ad hoc topics of this part only (tune, check, all)")
    ap.add_argument("--ranking", action="append", default=[],
                    help="NAME=WEIGHTS: a warcdex ranking to measure, its weights as WARCDEX_RANK takes them "
                         "(`before=nutch`, `try=title=2,prior=0.1`); default: warcdex's own")
    ap.add_argument("--json", help="write the figures here too")
    ap.add_argument("--misses", help="write the known items warcdex did not put first here (JSONL)")
    args = ap.parse_args()

    t0 = time.time()
    pages = load_pages(args.collection)
    items = make_known_items(pages, args.seed, args.sample)
    sets = collections.OrderedDict((k, {}) for k in ("title", "words", "tfidf", "anchor", "anchor-ext", "url"))
    for kind, q, u in items:
        sets[kind].setdefault(q, {})[u] = 3
    if args.topics:
        topics, qrels = load_adhoc(args.topics, args.qrels, args.part)
        for t, (part, query) in sorted(topics.items()):
            sets.setdefault(f"adhoc-{part}", {})[query] = qrels.get(t, {})
    rankings = [r.split("=", 1) for r in args.ranking] or [["warcdex", ""]]
    names = [n for n, _ in rankings] + ["bm25"]
    table = {kind: {} for kind, judged in sets.items() if judged}
    misses = []
    with tempfile.TemporaryDirectory() as tmp:
        bm25 = PlainBm25(pages, tmp)
        plain = {}
        for kind in table:
            plain[kind] = {q: bm25.search(q) for q in sets[kind]}
            table[kind]["bm25"] = measure(plain[kind], sets[kind])
        for name, spec in rankings:
            wd = Warcdex(args.bin, args.collection, {"WARCDEX_RANK": spec})
            try:
                for kind in table:
                    judged = sets[kind]
                    ours = {q: wd.search(q) for q in judged}
                    table[kind][name] = measure(ours, judged)
                    if name != rankings[0][0] or kind.startswith("adhoc"):
                        continue
                    for q, urls in ours.items():
                        if not urls or urls[0] not in judged[q]:
                            misses.append({"kind": kind, "query": q, "want": next(iter(judged[q])), "got": urls[:3],
                                           "bm25": plain[kind][q][:3]})
            finally:
                wd.close()
    print(f"collection {args.collection}: {len(pages)} HTML pages; known items: seed {args.seed}, "
          f"{args.sample} pages; ad hoc topics: part {args.part}; {time.time() - t0:.0f} s")
    print(f"{'set':12} {'n':>4} | {'ranking':10} {'s@1':>6} {'s@10':>6} {'MRR@10':>7} {'nDCG@10':>8} {'ΔMRR':>7} {'empty':>5}")
    for kind, r in table.items():
        for name in names:
            m = r[name]
            d = m["MRR@10"] - r["bm25"]["MRR@10"]
            delta = f"{d:+7.3f}" if name != "bm25" else ""
            print(f"{kind:12} {m['n']:4} | {name:10} {m['success@1']:6.3f} {m['success@10']:6.3f} "
                  f"{m['MRR@10']:7.3f} {m['nDCG@10']:8.3f} {delta:>7} {m['empty']:5d}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "rankings": dict(rankings), "table": table}, f, indent=1)
    if args.misses:
        with open(args.misses, "w") as f:
            for m in misses:
                f.write(json.dumps(m) + "\n")


if __name__ == "__main__":
    main()
