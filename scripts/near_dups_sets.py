"""Labelled sets for the near-duplicate evaluation (scripts/near-dups-eval.py).

A set is a list of families. Each family has a base page and its versions, captures of
the base's URL on later days unless said otherwise:

- four **near** variants, each changing one or more of: the visit counter, the date line,
  an ad block inside the content (another ad, about 2 % of the page's words), the
  whitespace, or the markup only (attributes, a wrapping element);
- one **mirror**: the base on another host, its links pointing there (its own URL);
- two **far** variants: 20-45 % of the words given to other text, in paragraphs that are
  consecutive (a run) or spread over the page, the new text taken from another page of
  the same set.

The base, its near variants and its mirror are one group: every two of them are a near
pair. A far variant is a group of its own: it is far from its base, from the other far
variant and from every other page. Two pages of different families are far: scoring
every pair of versions is what finds pages of one site (one vocabulary, one template)
wrongly folded together.

Kinds of set:
- `real-site`: pages of one site side by side (Python's library reference, the hard case);
- `real-mixed`: pages of every documentation site of the bench corpus;
- `synthetic`: pages drawn from one invented vocabulary (Zipf-distributed words) in one
  template;
- `synthetic-short`: the same with short pages (60-250 words) that all have one title.

Only the standard library is used.
"""
import base64
import gzip
import hashlib
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_scale  # noqa: E402  (the doc roots, the page list, WARC records)

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
NEAR_KINDS = ["counter", "date", "ad", "whitespace", "markup", "date+counter+ad",
              "counter+markup", "date+ad"]
REAL_SITE_ROOT = "python3.11/html/library/"


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

    def __init__(self, html, ad_share=0.02):
        self.html = html
        self.words = len(words_of(html))
        # The ad holds about `ad_share` of the page's words.
        self.ad_words = max(2, min(40, int(self.words * ad_share)))
        blocks = list(BLOCK_RE.finditer(html))
        self.ad_at = blocks[len(blocks) // 2].end() if blocks else None

    def render(self, date, counter, ad, spaces=False, markup=False):
        html = self.html
        ad_html = b'<div class="ad-slot">Sponsored: %s</div>' % ad.encode()
        if self.ad_at is not None and self.ad_at <= len(html):
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
            html = re.sub(rb"<body\b([^>]*)>", rb'<body\1><div class="wrap">', html, count=1)
            html = html.replace(b"</body>", b"</div></body>", 1)
        return html


def rewrite(html, donor_words, rng, share, spread):
    """Gives at least `share` of the page's words to text taken from `donor_words`: a run
    of consecutive <p> blocks, or blocks spread over the page. None when the page's
    blocks hold too few words."""
    blocks = list(BLOCK_RE.finditer(html))
    if not blocks:
        return None
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


def real_pages(kind, n, rng):
    """(relative path, html) of `n` real pages with enough text: of Python's library
    reference for `real-site`, of every doc root for `real-mixed`."""
    src = make_scale.pages()
    if kind == "real-site":
        src = [(rel, p) for rel, p in src if rel.startswith(REAL_SITE_ROOT)]
    rng.shuffle(src)
    out, seen = [], set()
    for rel, p in src:
        if len(out) >= n:
            break
        with open(p, "rb") as f:
            html = f.read()
        if b"</body>" not in html or len(BLOCK_RE.findall(html)) < 6:
            continue
        count = len(words_of(html))
        h = hashlib.sha1(html).digest()
        if count < 150 or count > 20000 or h in seen:
            continue
        seen.add(h)
        out.append((rel, html))
    if len(out) < n:
        sys.exit("near-dups-eval: only %d %s pages with enough text" % (len(out), kind))
    return out


def invented_word(rng):
    consonants, vowels = "bcdfghjklmnprstvwz", "aeiou"
    return "".join(rng.choice(consonants) + rng.choice(vowels)
                   for _ in range(rng.randrange(1, 5)))


class Vocabulary:
    """Invented words with Zipf-distributed frequencies (a language's common words are
    common on every page)."""

    def __init__(self, rng, size=4000):
        words = set()
        while len(words) < size:
            words.add(invented_word(rng))
        self.words = sorted(words)
        rng.shuffle(self.words)
        self.cum, total = [], 0.0
        for i in range(size):
            total += 1.0 / (i + 1)
            self.cum.append(total)
        self.total = total

    def draw(self, rng, n):
        import bisect
        return [self.words[bisect.bisect(self.cum, rng.random() * self.total)]
                for _ in range(n)]


def synthetic_pages(n, rng, short=False):
    """`n` pages of one invented site: one template (navigation, header, footer) and
    paragraphs drawn from one vocabulary. `short`: 60-250 words a page, every page with
    the same title (a site that titles every page with its own name)."""
    vocab = Vocabulary(rng)
    site_title = " ".join(vocab.draw(rng, 3))
    nav = " ".join('<li><a href="https://docs.example.org/%s.html">%s</a></li>' % (w, w)
                   for w in vocab.draw(rng, 24))
    footer = " ".join(vocab.draw(rng, 30))
    pages = []
    for i in range(n):
        title = site_title if short else " ".join(vocab.draw(rng, 4))
        sizes, count = ((10, 35), (6, 8)) if short else ((15, 70), (6, 24))
        paras = "\n".join("<p>%s.</p>" % " ".join(vocab.draw(rng, rng.randrange(*sizes)))
                          for _ in range(rng.randrange(*count)))
        html = ("<!DOCTYPE html><html><head><title>%s</title></head><body>"
                '<div class="nav"><ul>%s</ul></div><div class="main"><h1>%s</h1>\n%s\n</div>'
                '<div class="footer">%s</div></body></html>') % (title, nav, title, paras, footer)
        pages.append(("site/page%04d.html" % i, html.encode()))
    return pages


def build(kind, n, seed, out_dir):
    """Writes `out_dir/KIND.warc.gz` and returns the versions: (url, digest, group, role)."""
    rng = random.Random("%s-%d" % (kind, seed))
    if kind.startswith("synthetic"):
        bases = synthetic_pages(n, rng, short=kind == "synthetic-short")
    else:
        bases = real_pages(kind, n, rng)
    donors = [words_of(h) for _, h in bases]
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "%s.warc.gz" % kind)
    versions = []
    day = lambda d: "2025-03-%02dT06:00:00Z" % d
    with open(path, "wb") as out:
        def capture(url, date, body, group, role):
            out.write(make_scale.record(url, date, body))
            versions.append((url, payload_digest(body), group, role))

        for i, (rel, html) in enumerate(bases):
            page = Page(html)
            url = "https://docs.example.org/%s" % rel
            counter = rng.randrange(1000, 900000)
            date, ad = date_line(rng), ad_text(rng, page.ad_words)
            group = "f%d" % i
            capture(url, day(1), page.render(date, counter, ad), group, "base")
            for j, near_kind in enumerate(rng.sample(NEAR_KINDS, 4)):
                v = dict(date=date, counter=counter, ad=ad)
                if "counter" in near_kind:
                    v["counter"] = counter + rng.randrange(1, 5000)
                if "date" in near_kind:
                    while v["date"] == date:
                        v["date"] = date_line(rng)
                if "ad" in near_kind.split("+"):
                    while v["ad"] == ad:
                        v["ad"] = ad_text(rng, page.ad_words)
                body = page.render(v["date"], v["counter"], v["ad"],
                                   spaces=near_kind == "whitespace",
                                   markup="markup" in near_kind)
                capture(url, day(2 + j), body, group, "near:" + near_kind)
            for j in range(2):
                donor = donors[(i + 1 + rng.randrange(len(donors) - 1)) % len(donors)]
                spread = rng.random() < 0.5
                far_html = None
                for share in (0.2 + rng.random() * 0.25, 0.3, 0.25):
                    far_html = rewrite(html, donor, rng, share, spread)
                    if far_html is not None:
                        break
                if far_html is None:
                    continue
                fpage = Page(far_html)
                fpage.ad_at = page.ad_at
                body = fpage.render(date, counter, ad)
                capture(url, day(6 + j), body, "%s-far%d" % (group, j),
                        "far:" + ("spread" if spread else "run"))
            mirror_host = "mirror%d.example.net" % (i % 17)
            mbody = page.render(date, counter, ad).replace(
                b"https://docs.example.org/", ("https://%s/" % mirror_host).encode())
            capture("https://%s/%s" % (mirror_host, rel), day(8), mbody, group, "mirror")
    return path, versions
