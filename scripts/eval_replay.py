#!/usr/bin/env python3
"""Replay fidelity: how faithfully a replay shows an archived page, measured the way
Browsertrix QA does (screenshot match and text match), run by scripts/eval-replay.sh
(which builds the corpus and the collection and starts the replay servers; see its header
for the flags and how long a run takes).

For a sample of the collection's `text/html` 200 captures (per site, chosen by
random.Random(SEED), so a seed names a page set: a tuning set and a held-out set are two
seeds), each page is opened in headless Chromium once per mode, a mode being a URL
template (`{ts}`: the capture's 14-digit date, `{url}`: its original URL). The mode `oa`
is the reference: the original files the bench corpus was made from, served by a small
HTTPS server in this process that answers only the URLs the crawl captured (see
OaServer). Each other mode's page is compared with oa's: screenshot (exact pixels, with a
tolerance, SSIM), body text (words), failed requests, requests that left loopback, JS
errors that oa's page does not have, load time.

With --escape, the pages of a small collection whose scripts try every way out of the
archive (scripts/make_escape_fixture.py) are opened in each mode and every request that
left loopback is listed.

Needs numpy and Pillow (target/replay-venv, scripts/replay-venv.sh); Chromium from
Debian; for oa, the bench generator (its URL-to-file mapping) and the Debian doc packages
it read.
"""

import argparse
import base64
import collections
import difflib
import hashlib
import http.server
import importlib.util
import json
import os
import random
import re
import shutil
import ssl
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp_browser import (  # noqa: E402
    HEIGHT, WIDTH, Chromium, Failed, analyse, normalise, visit,
)

# The six doc roots of the bench corpus (../shared/bench/README.md), as crawled.
SITES = [
    "https://docs.python.org/3.11/",
    "https://www.postgresql.org/docs/15/",
    "https://docs.djangoproject.com/en/3.2/",
    "https://docs.oracle.com/en/java/javase/17/docs/api/",
    "https://doc.rust-lang.org/1.63.0/",
    "https://www.sphinx-doc.org/en/5.x/",
]
LOOKS_SAME = 0.999           # share of equal pixels for "looks the same"


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------
# Corpus and page selection

def read_cdx(path):
    """The CDX11 lines of all.cdx as dicts (the header line skipped)."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(" CDX") or not line.strip():
                continue
            p = line.rstrip("\n").split(" ")
            if len(p) < 6:
                continue
            out.append({"urlkey": p[0], "ts": p[1], "url": p[2], "mime": p[3],
                        "status": p[4], "digest": p[5]})
    return out


def site_of(url):
    for s in SITES:
        if url.startswith(s):
            return s
    return urllib.parse.urlsplit(url).netloc


def select_pages(cdx, per_site, seed):
    """A pure function of (seed, corpus): the text/html 200 captures grouped by site, each
    group sorted, then per site in sorted order random.Random(seed).sample of per_site
    (all of a smaller group). A URL captured more than once counts once (its first date)."""
    first = {}
    for c in cdx:
        if c["mime"] == "text/html" and c["status"] == "200":
            if c["url"] not in first or c["ts"] < first[c["url"]]["ts"]:
                first[c["url"]] = c
    groups = collections.defaultdict(list)
    for c in first.values():
        groups[site_of(c["url"])].append(c)
    rng = random.Random(seed)
    pages = []
    for site in sorted(groups):
        g = sorted(groups[site], key=lambda c: (c["url"], c["ts"]))
        pick = g if per_site <= 0 or len(g) <= per_site else rng.sample(g, per_site)
        for c in sorted(pick, key=lambda c: c["url"]):
            pages.append({"site": site, "url": c["url"], "ts": c["ts"]})
    return pages


# ---------------------------------------------------------------------------------------
# oa: the original files, served as the crawl saw them

def load_bench(path):
    spec = importlib.util.spec_from_file_location("make_bench", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)   # also registers the bench's extra mimetypes
    return mod


def sha1_b32(data):
    return base64.b32encode(hashlib.sha1(data).digest()).decode()


class OaServer:
    """The original pages: every URL the crawl captured, served from the Debian file
    make_bench.py read for it (its walk_source + load: name.gz decompressed), with the
    Content-Type make_bench.py recorded (mimetypes + '; charset=utf-8' for text), or the
    crawl's 301 for a directory URL; anything else is a 404. Nothing outside the crawl is
    served, so this is what a perfect replay of this archive shows.

    Why HTTPS on the original host names: the pages were captured as https://HOST/...,
    and replays show them as that URL (base URL, origin, root-relative and absolute links
    to the same site all resolve against it). Serving them as http://127.0.0.1/HOST/...
    would change every root-relative and absolute same-site URL and the page's origin, so
    differences would be the reference's own. So Chromium, in this mode only, maps the
    crawled host names to this server's loopback port (--host-resolver-rules), which
    answers by SNI/Host header with a throwaway certificate for those names, trusted in
    that browser alone by its key hash (--ignore-certificate-errors-spki-list: the page
    is a normal secure https page, not one with a certificate error). Nothing leaves
    loopback; the scheme, host, path and content are the crawl's."""

    def __init__(self, bench, cdx, work):
        self.table = {}    # url -> (status, ctype, file, rel0 | location)
        self.check = {"captures": 0, "identical": 0, "missing": [], "differ": [], "mime_differ": []}
        by_url = {}
        for root, prefix, _server in bench.SOURCES:
            if not os.path.isdir(root):
                continue
            for rel, real in bench.walk_source(root):
                u = prefix + rel.replace(os.sep, "/")
                by_url.setdefault(u, (real, rel))
                if rel.endswith(".gz"):
                    by_url.setdefault(u[:-3], (real, rel))
        for c in cdx:
            url = c["url"]
            if url in self.table:
                continue
            if c["status"].startswith("3"):
                self.table[url] = (int(c["status"]), None, None, url + "/")
                continue
            if c["status"] != "200":
                continue
            self.check["captures"] += 1
            hit = by_url.get(url)
            if not hit:
                self.check["missing"].append(url)
                continue
            real, rel0 = hit
            rel, data = bench.load(real, rel0)
            ctype = bench.mimetypes.guess_type(rel)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype == "application/javascript":
                ctype += "; charset=utf-8"
            if sha1_b32(data) == c["digest"]:
                self.check["identical"] += 1
            else:
                self.check["differ"].append(url)
            if ctype.split(";")[0] != c["mime"]:
                self.check["mime_differ"].append((url, ctype, c["mime"]))
            self.table[url] = (200, ctype, real, rel0)
        self.hosts = sorted({urllib.parse.urlsplit(u).hostname for u in self.table})
        self.bench = bench
        self.served = collections.Counter()
        self.cert, self.key, self.spki = self._certificate(work)
        self._start()

    def _certificate(self, work):
        cert, key = os.path.join(work, "oa-cert.pem"), os.path.join(work, "oa-key.pem")
        san = ",".join("DNS:" + h for h in self.hosts)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=oa-replay", "-addext", "subjectAltName=" + san,
                        "-keyout", key, "-out", cert],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pub = subprocess.run(["openssl", "x509", "-in", cert, "-pubkey", "-noout"],
                             check=True, capture_output=True).stdout
        der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=pub,
                             check=True, capture_output=True).stdout
        return cert, key, base64.b64encode(hashlib.sha256(der).digest()).decode()

    def _start(self):
        oa = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                # The TLS handshake here, in the connection's thread: a preconnected
                # socket that never speaks must not hold up the accept loop.
                self.request.settimeout(30)
                self.request.do_handshake()
                super().setup()

            def log_message(self, *a):
                pass

            def _answer(self, body_too):
                host = (self.headers.get("Host") or "").split(":")[0].lower()
                url = f"https://{host}{self.path}"
                hit = oa.table.get(url)
                oa.served[hit[0] if hit else 404] += 1
                if not hit:
                    body = b"<!DOCTYPE html><title>404 Not Found</title><h1>Not Found</h1>\n"
                    self.send_response(404)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    headers, status = [], 404
                elif hit[0] != 200:
                    body = b""
                    self.send_response(hit[0])
                    self.send_header("Location", hit[3])
                else:
                    _, data = oa.bench.load(hit[2], hit[3])
                    body = data
                    self.send_response(200)
                    self.send_header("Content-Type", hit[1])
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                if body_too:
                    self.wfile.write(body)

            def do_GET(self):
                self._answer(True)

            def do_HEAD(self):
                self._answer(False)

            def do_POST(self):
                self.close_connection = True    # (its body is not read)
                self._answer(True)

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass    # handshakes Chromium drops (preconnects) are not errors

        self.httpd = Server(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self.cert, self.key)
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True,
                                            do_handshake_on_connect=False)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def resolver_rules(self):
        return [f"MAP {h} 127.0.0.1:{self.port}" for h in self.hosts]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# ---------------------------------------------------------------------------------------
# Chromium over its DevTools pipe

# ---------------------------------------------------------------------------------------
# Screenshots and text

def gaussian_kernel(size=11, sigma=1.5):
    x = np.arange(size, dtype=np.float64) - (size - 1) / 2
    k = np.exp(-(x ** 2) / (2 * sigma ** 2))
    return k / k.sum()


def _filter(img, k):
    """Separable 'valid' Gaussian filter (rows, then columns)."""
    h = sliding_window_view(img, len(k), axis=1) @ k
    return sliding_window_view(h, len(k), axis=0) @ k


def ssim(a, b):
    """Mean SSIM of two grayscale images (Wang et al. 2004: Gaussian window 11, sigma 1.5,
    K1 0.01, K2 0.03, L 255), over the window positions inside the image."""
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    k = gaussian_kernel()
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mu1, mu2 = _filter(a, k), _filter(b, k)
    s11 = _filter(a * a, k) - mu1 * mu1
    s22 = _filter(b * b, k) - mu2 * mu2
    s12 = _filter(a * b, k) - mu1 * mu2
    m = ((2 * mu1 * mu2 + c1) * (2 * s12 + c2)) / ((mu1 ** 2 + mu2 ** 2 + c1) * (s11 + s22 + c2))
    return float(m.mean())


def compare_shots(ref, other, tolerance, diff_path=None):
    a = np.asarray(Image.open(ref).convert("RGB"))
    b = np.asarray(Image.open(other).convert("RGB"))
    out = {"size": [b.shape[1], b.shape[0]]}
    if a.shape != b.shape:
        h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
        total = max(a.shape[0] * a.shape[1], b.shape[0] * b.shape[1])
        a, b = a[:h, :w], b[:h, :w]
    else:
        total = a.shape[0] * a.shape[1]
    d = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=2)
    out["pixels_equal"] = float((d == 0).sum() / total)
    out["pixels_tol"] = float((d <= tolerance).sum() / total)
    ga = np.asarray(Image.fromarray(a).convert("L"))
    gb = np.asarray(Image.fromarray(b).convert("L"))
    out["ssim"] = 1.0 if out["pixels_equal"] == 1.0 else ssim(ga, gb)
    if diff_path:
        # oa faded to gray, the differing pixels in red.
        base = (ga.astype(np.float32) * 0.3 + 178).astype(np.uint8)
        img = np.stack([base, base, base], axis=2)
        img[d > 0] = (255, 0, 0)
        Image.fromarray(img).save(diff_path)
    return out


def compare_text(ref, other):
    """(same words, difflib word similarity, the first lines of a word diff)."""
    a, b = ref.split(), other.split()
    if a == b:
        return True, 1.0, None
    sim = round(difflib.SequenceMatcher(None, a, b).ratio(), 4)
    diff = [d for d in difflib.unified_diff(a, b, "oa", "replay", n=2, lineterm="")][2:42]
    return False, sim, diff


# ---------------------------------------------------------------------------------------
# The run

def slug(url):
    s = re.sub(r"^https?://", "", url)
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s)[:120]


def run_mode(name, template, pages, work, shots, args, oa=None, after_load=0.0):
    """Every page in this mode, one at a time in one Chromium (a fresh profile; started
    again, with another fresh profile, if it dies or stops answering)."""
    rules = oa.resolver_rules() if oa else []
    flags = [f"--ignore-certificate-errors-spki-list={oa.spki}"] if oa else []
    local = oa.hosts if oa else ()
    chrome = None
    results = []
    started = time.monotonic()
    try:
        for n, page in enumerate(pages, 1):
            url = template.replace("{ts}", page["ts"]).replace("{url}", page["url"])
            shot = os.path.join(shots, f"{n:03d}-{name}.png")
            t = time.monotonic()
            try:
                if chrome is None:
                    chrome = Chromium(work, name, rules, flags)
                raw = visit(chrome, url, shot, args.page_timeout, args.settle_cap, after_load)
                a = analyse(raw, local)
            except Exception as e:   # one page's failure is recorded, the run goes on
                raw, a = {"error": f"{type(e).__name__}: {e}"}, None
            if chrome is not None and (not chrome.alive() or "Chromium" in (raw.get("error") or "")):
                chrome.close()
                chrome = None
            rec = {"n": n, "site": page["site"], "url": page["url"], "ts": page["ts"], "mode": name,
                   "replay_url": url, "error": raw.get("error"), "nav_error": raw.get("nav_error"),
                   "final_url": raw.get("final_url"), "settle_ms": raw.get("settle_ms"),
                   "settle_capped": raw.get("settle_capped"), "in_flight": raw.get("in_flight"),
                   "shot": raw.get("shot"), "text": raw.get("text")}
            if a:
                rec.update(a)
            results.append(rec)
            status = rec["error"] or (f"{a['requests']} req, {len(a['failed'])} failed, "
                                      f"{len(a['leaving'])} leaving, {len(a['js_errors'])} JS errors, "
                                      f"load {a['load_ms']} ms")
            log(f"eval-replay: [{name} {n}/{len(pages)}] {page['url']} "
                f"({time.monotonic() - t:.1f} s): {status}")
    finally:
        if chrome is not None:
            chrome.close()
    log(f"eval-replay: mode {name}: {len(pages)} pages in {time.monotonic() - started:.0f} s")
    return results


def fmt_counter(c, pages):
    if not c:
        return ""
    return " (" + ", ".join(f"{k} {v / pages:.2f}" for k, v in sorted(c.items())) + ")"


ARCHIVAL = re.compile(r"/\d{1,14}(?:[a-z]{2}_)?/(https?://.*)$")


def original_of(url):
    """The archived URL an archival URL (`…/DATE[MOD_]/URL`, any replay) asks for; the URL
    itself otherwise (the original's own requests)."""
    m = ARCHIVAL.search(url)
    return m.group(1) if m else url


def summarise(modes, by_mode, pages, ref, tolerance):
    """The Markdown summary."""
    n = len(pages)
    lines = [f"{n} pages, modes compared with `{ref}`" if ref else f"{n} pages", ""]
    lines.append(f"| mode | looks the same | within ±{tolerance} | same text | mean SSIM | "
                 "mean pixels equal | failed requests/page (causes) | aborted/page | "
                 "replay failures | requests leaving loopback | JS errors/page (kinds) | "
                 "caused by the replay/page | median load (ms) | page errors |")
    lines.append("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---:|---:|---:|")
    for m in modes:
        rs = by_mode[m]
        looks = sum(1 for r in rs if r.get("looks_same"))
        same = sum(1 for r in rs if r.get("text_same"))
        ss = [r["ssim"] for r in rs if r.get("ssim") is not None]
        pe = [r["pixels_equal"] for r in rs if r.get("pixels_equal") is not None]
        causes = collections.Counter(f["cause"] for r in rs for f in r.get("failed", []))
        aborted = causes.pop("aborted", 0)
        failed = sum(causes.values())
        leaving = sum(len(r.get("leaving", [])) for r in rs)
        js = sum(len(r.get("js_errors", [])) for r in rs)
        js_kinds = collections.Counter(e["kind"] for r in rs for e in r.get("js_errors", []))
        looks_tol = sum(1 for r in rs if (r.get("pixels_tol") or 0) >= LOOKS_SAME)
        js_replay = sum(len(r.get("js_errors_replay", [])) for r in rs)
        loads = [r["load_ms"] for r in rs if r.get("load_ms") is not None]
        errs = sum(1 for r in rs if r.get("error"))
        replay_failures = sum(len(r.get("replay_failures", [])) for r in rs)
        cmp = ref and m != ref
        lines.append(
            f"| {m} | {f'{looks}/{n}' if cmp else '(reference)'} | {f'{looks_tol}/{n}' if cmp else '-'} | "
            f"{f'{same}/{n}' if cmp else '-'} | "
            f"{f'{statistics.mean(ss):.4f}' if cmp and ss else '-'} | "
            f"{f'{100 * statistics.mean(pe):.2f} %' if cmp and pe else '-'} | "
            f"{failed / n:.2f}{fmt_counter(causes, n)} | {aborted / n:.2f} | "
            f"{replay_failures if cmp else '-'} | {leaving} | "
            f"{js / n:.2f}{fmt_counter(js_kinds, n)} | {f'{js_replay / n:.2f}' if cmp else '-'} | "
            f"{statistics.median(loads) if loads else '-'} | {errs} |")
    if ref:
        sites = sorted({p["site"] for p in pages})
        cmp_modes = [m for m in modes if m != ref]
        lines += ["", "Looks the same, per site:", "",
                  "| site | pages | " + " | ".join(cmp_modes) + " |",
                  "|---|---:|" + "---:|" * len(cmp_modes)]
        for s in sites:
            k = sum(1 for p in pages if p["site"] == s)
            cells = [f"{sum(1 for r in by_mode[m] if r['site'] == s and r.get('looks_same'))}/{k}"
                     for m in cmp_modes]
            lines.append(f"| {s} | {k} | " + " | ".join(cells) + " |")
        lines += ["", "Same text, per site:", "",
                  "| site | pages | " + " | ".join(cmp_modes) + " |",
                  "|---|---:|" + "---:|" * len(cmp_modes)]
        for s in sites:
            k = sum(1 for p in pages if p["site"] == s)
            cells = [f"{sum(1 for r in by_mode[m] if r['site'] == s and r.get('text_same'))}/{k}"
                     for m in cmp_modes]
            lines.append(f"| {s} | {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def escape_report(modes, by_mode):
    lines = ["Requests that left loopback (attempted to a host other than 127.0.0.1/localhost; "
             "those Chromium blocked before sending, e.g. by CSP, excluded):", ""]
    for m in modes:
        rs = by_mode[m]
        total = sum(len(r.get("leaving", [])) for r in rs)
        lines.append(f"### {m}: {total} request(s) left loopback")
        lines.append("")
        for r in rs:
            lines.append(f"- page {r['url']} ({r['replay_url']}): "
                         f"{len(r.get('leaving', []))} leaving, "
                         f"{len(r.get('outside_blocked', []))} to outside hosts blocked before sending, "
                         f"{r.get('requests', 0)} requests, "
                         f"{len(r.get('failed', []))} failed"
                         + (f", error: {r['error']}" if r.get("error") else "")
                         + (f", final URL {r['final_url']}" if r.get("final_url") else ""))
        lines.append("")
        if total:
            lines.append("| page | URL | type | initiator | outcome |")
            lines.append("|---|---|---|---|---|")
            for r in rs:
                for x in r.get("leaving", []):
                    lines.append(f"| {urllib.parse.urlsplit(r['url']).path} | {x['url']} | {x['type']} | "
                                 f"{x['initiator']} | {x['outcome']} |")
            lines.append("")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--coll", required=True, help="the collection (its all.cdx)")
    p.add_argument("--bench", help="make_bench.py (for oa's URL-to-file mapping)")
    p.add_argument("--mode", action="append", default=[], metavar="NAME=TEMPLATE",
                   help="a replay mode: URL template with {ts} and {url}")
    p.add_argument("--modes", default="oa,w,p", help="the modes to run, comma-separated")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--per-site", type=int, default=10)
    p.add_argument("--out", required=True)
    p.add_argument("--work", required=True, help="a directory for profiles and logs")
    p.add_argument("--page-timeout", type=float, default=60)
    p.add_argument("--settle-cap", type=float, default=15)
    p.add_argument("--tolerance", type=int, default=16,
                   help="per-channel difference still counted equal in the tolerant pixel match")
    p.add_argument("--escape", action="store_true",
                   help="every text/html capture, wait 5 s after load, list requests leaving loopback")
    a = p.parse_args()

    templates = {}
    for m in a.mode:
        name, _, tpl = m.partition("=")
        if not name or not tpl:
            sys.exit(f"eval-replay: --mode {m!r}: NAME=TEMPLATE")
        templates[name] = tpl
    modes = [m for m in a.modes.split(",") if m]
    for m in modes:
        if m != "oa" and m not in templates:
            sys.exit(f"eval-replay: no template for mode {m!r} (--mode {m}=URL-TEMPLATE)")
    if a.escape and "oa" in modes:
        sys.exit("eval-replay: --escape runs replay modes only (not oa)")

    os.makedirs(a.out, exist_ok=True)
    for stale in ("pages.jsonl", "summary.md", "escape.md", "escape.jsonl"):
        if os.path.exists(os.path.join(a.out, stale)):
            os.remove(os.path.join(a.out, stale))
    shutil.rmtree(os.path.join(a.out, "shots"), ignore_errors=True)
    shots_all = os.path.join(a.work, "shots")
    os.makedirs(shots_all, exist_ok=True)

    cdx = read_cdx(os.path.join(a.coll, "all.cdx"))
    if a.escape:
        pages = select_pages(cdx, 0, a.seed)
    else:
        pages = select_pages(cdx, a.per_site, a.seed)
    per_site = collections.Counter(pg["site"] for pg in pages)
    log(f"eval-replay: {len(pages)} pages (seed {a.seed}): "
        + ", ".join(f"{s} {k}" for s, k in sorted(per_site.items())))
    if not pages:
        sys.exit("eval-replay: no text/html 200 captures in the collection")

    oa = None
    if "oa" in modes:
        if not a.bench:
            sys.exit("eval-replay: mode oa needs --bench make_bench.py")
        oa = OaServer(load_bench(a.bench), cdx, a.work)
        c = oa.check
        log(f"eval-replay: oa serves {c['captures']} captures on https port {oa.port} "
            f"({', '.join(oa.hosts)}); {c['identical']} byte-identical to the archive, "
            f"{len(c['differ'])} differ, {len(c['missing'])} without a file, "
            f"{len(c['mime_differ'])} of another type than the CDX's")
        for what in ("missing", "differ", "mime_differ"):
            for x in c[what][:5]:
                log(f"eval-replay: oa {what}: {x}")

    started = time.monotonic()
    by_mode = {}
    try:
        for m in modes:
            by_mode[m] = run_mode(m, templates.get(m, "{url}"), pages, a.work, shots_all, a,
                                  oa=oa if m == "oa" else None,
                                  after_load=5.0 if a.escape else 0.0)
    finally:
        if oa:
            oa.close()
    browse_s = time.monotonic() - started

    shots = os.path.join(a.out, "shots")
    ref = "oa" if "oa" in modes else None
    if ref and len(modes) > 1:
        log(f"eval-replay: comparing with {ref} (screenshots, text, JS errors)")
        for m in modes:
            for n, r in enumerate(by_mode[m]):
                o = by_mode[ref][n]
                if m == ref:
                    continue
                if o.get("shot") and r.get("shot"):
                    dest = os.path.join(shots, f"{n + 1:03d}-{slug(r['url'])}")
                    os.makedirs(dest, exist_ok=True)
                    diff = os.path.join(dest, f"{m}-diff.png")
                    r.update(compare_shots(o["shot"], r["shot"], a.tolerance, diff))
                    r["looks_same"] = r["pixels_equal"] >= LOOKS_SAME
                    if r["looks_same"]:
                        os.remove(diff)
                    else:
                        shutil.copy(o["shot"], os.path.join(dest, "oa.png"))
                        shutil.copy(r["shot"], os.path.join(dest, f"{m}.png"))
                        r["shots_kept"] = dest
                    if not os.listdir(dest):
                        os.rmdir(dest)
                else:
                    r["looks_same"] = False
                if o.get("text") is not None and r.get("text") is not None:
                    r["text_same"], r["text_similarity"], r["text_diff"] = compare_text(
                        o["text"], r["text"])
                else:
                    r["text_same"], r["text_similarity"] = False, None
                # Replay failures: what the original served but the replay failed to (a
                # URL the crawl did not capture fails in both and is not one).
                served = {h["url"] for h in o.get("request_log", [])
                          if h.get("status") and h["status"] < 400 and not h.get("error")}
                r["replay_failures"] = sorted({
                    original_of(f["url"]) for f in r.get("failed", [])
                    if f["cause"] != "aborted" and original_of(f["url"]) in served})
                ref_errs = {normalise(e["message"]) for e in o.get("js_errors", [])}
                r["js_errors_replay"] = [e for e in r.get("js_errors", [])
                                         if normalise(e["message"]) not in ref_errs]
    jsonl = os.path.join(a.out, "escape.jsonl" if a.escape else "pages.jsonl")
    with open(jsonl, "w") as f:
        for m in modes:
            for r in by_mode[m]:
                r = dict(r)
                text = r.pop("text", None)
                r["text_words"] = len(text.split()) if text is not None else None
                r.pop("shot", None)
                f.write(json.dumps(r) + "\n")
    if a.escape:
        report = escape_report(modes, by_mode)
        with open(os.path.join(a.out, "escape.md"), "w") as f:
            f.write(report)
    else:
        report = summarise(modes, by_mode, pages, ref, a.tolerance)
        report += (f"\nseed {a.seed}, {a.per_site} per site; browsing took {browse_s:.0f} s; "
                   f"pages.jsonl and shots/ (pages that do not look the same) in {a.out}\n")
        if oa:
            c = oa.check
            report += (f"oa served {c['captures']} captured URLs, {c['identical']} byte-identical "
                       f"to the archive's payloads\n")
        with open(os.path.join(a.out, "summary.md"), "w") as f:
            f.write(report)
    print(report)


if __name__ == "__main__":
    main()
