#!/usr/bin/env python3
"""Measures `warcdex recrawl-plan` (issue 60) on a simulated year of crawls.

For each seed: N pages on 50 hosts, each with a true change rate (a quarter never change,
the rest log-uniform from once in 180 days to twice a day, changes a Poisson process whose
change times are drawn), a link graph that is stable over the year (5-15 outlinks per
page, targets drawn from a Zipf popularity so that few pages have many inlinks, mostly on
other hosts) and 5 % of pages that die (404 from a date between the second and the last
crawl on). A year of crawls at irregular dates (20-26 crawls, gaps of 3-30 days), every
crawl fetching every URL over its day: a live page serves the version its change process
has reached at the fetch's second, so its digest changes exactly when a change happened
since the last fetch. One gzip WARC per crawl; `warcdex update` once per crawl in date
order, then `warcdex update --compact`.

The budget is a monthly crawl of every URL, N/30 fetches a day. warcdex plans it twice
(`recrawl-plan`, its own schedule and `--schedule nutch-adaptive`); each plan is scored
by importance-weighted freshness under the TRUE rates and the TRUE importance (PageRank
as warcdex's link analysis defines it, computed here over the true link graph):
    Σ_live w_i F(r_i, f_i) / Σ_live w_i,   F(r, f) = (f/r)(1 - e^(-r/f)),  f_i = 1/interval,
a live URL absent from a plan counting F = 0; dead URLs count only against the budget.
Compared with: a uniform plan (every URL, dead ones included, at N/B days), Nutch's
adaptive rule as warcdex plans it, and the optimum computed here (Cho & Garcia-Molina,
SIGMOD 2000: equal marginal gains, bisection on the multiplier) from the true rates and
importances within the same bounds.

Acceptance, per seed and overall (the means over the seeds): plan >= max(uniform,
nutch) + 0.05, plan >= 0.9 x optimum, Σ f <= budget, no dead URL planned more often than
once in the max interval. The exit status is 1 when one fails, 2 when a step could not run.

Usage: python3 scripts/eval-recrawl.py [--seeds 1,2,3] [--urls 2000] [--bin PATH] [--plan-bin PATH]
           [--work DIR] [--keep] [--reuse] [--markdown] [--min 1] [--max 365]
           [--no-plan]          (everything but warcdex's plans: generation, update,
                                 true importance, uniform and optimum, scorer self-test)
With --keep, --reuse plans and scores a kept collection again (seconds, not minutes):
for iterating on recrawl-plan. The true importance counts every link between distinct
pages, as warcdex's link score does (same-host links are dropped from anchors only);
--cross-host-only drops them here too.

Time, 2 cores, release build: about 1.5-2.5 minutes a seed of 2,000 URLs and 21-25
crawls (generation ~10 s, `warcdex update` 60-120 s of it, the plans under a second).
Only the standard library is used. scripts/eval-recrawl.sh builds the release binary first.
"""
import argparse
import base64
import bisect
import csv
import datetime
import gzip
import hashlib
import math
import os
import random
import shutil
import subprocess
import sys
import time

HOSTS = 50
START = datetime.datetime(2025, 1, 6, tzinfo=datetime.timezone.utc)
DAY = 86400
DEAD_SHARE = 0.05
NEVER_SHARE = 0.25
RATE_LO, RATE_HI = 1.0 / 180.0, 2.0
ZIPF_S = 1.0
SAME_HOST_KEEP = 0.1  # a drawn target on the page's own host is kept with this chance
DAMPING, ITERATIONS, SCORE_POWER = 0.85, 50, 0.5
BUDGET_DAYS = 30.0  # the budget: every URL once in this many days
ACCEPT_MARGIN, ACCEPT_OPT = 0.05, 0.9
GENERATOR_VERSION = 1  # bump when the simulation changes: kept collections are then rebuilt
BUDGET_TOL = 1e-3  # relative: Σ f within B(1 + tol) (intervals are printed rounded)


def die(msg):
    """A step could not run: exit status 2 (1 is a failed acceptance test)."""
    print(msg, file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------------------------------
# The simulated web


def vocabulary(size=3000):
    """Pseudo-words, the same for every seed."""
    rng = random.Random(0)
    syll = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "da", "gu", "zo",
            "an", "el", "is", "or", "um", "ba", "fi", "he", "jo", "qu", "wy", "xe"]
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(syll) for _ in range(rng.randint(2, 4))))
    return sorted(words)


VOCAB = vocabulary()


class World:
    """Everything true about one seed's web: pages, rates, links, deaths, crawls."""

    def __init__(self, seed, n):
        rng = random.Random(f"world:{seed}")
        self.seed, self.n = seed, n
        self.host = [rng.randrange(HOSTS) for _ in range(n)]
        self.url = [f"http://site{self.host[i]:02d}.example.org/p/{i:05d}.html" for i in range(n)]
        trng = random.Random(f"title:{seed}")
        self.title = [" ".join(trng.choice(VOCAB) for _ in range(3)).capitalize() for _ in range(n)]

        # Change rates: a quarter never change, the rest log-uniform.
        order = list(range(n))
        rng.shuffle(order)
        self.rate = [0.0] * n
        for i in order[n // 4:]:
            self.rate[i] = math.exp(rng.uniform(math.log(RATE_LO), math.log(RATE_HI)))

        # Links: targets drawn by a Zipf popularity over a random order of the pages.
        pop = list(range(n))
        rng.shuffle(pop)
        weight = [0.0] * n
        for rank, i in enumerate(pop):
            weight[i] = 1.0 / (rank + 1) ** ZIPF_S
        cum, acc = [], 0.0
        for wgt in weight:
            acc += wgt
            cum.append(acc)
        self.links = []
        for i in range(n):
            k = rng.randint(5, 15)
            out, seen = [], set()
            while len(out) < k:
                t = bisect.bisect_left(cum, rng.random() * acc)
                t = min(t, n - 1)
                if t == i or t in seen:
                    continue
                if self.host[t] == self.host[i] and rng.random() >= SAME_HOST_KEEP:
                    continue
                seen.add(t)
                out.append(t)
            self.links.append(out)

        # Crawl days: gaps of 3-30 days over a year, 20-26 crawls.
        while True:
            days, total = [0], 0
            while True:
                g = rng.randint(3, 30)
                if total + g > 364:
                    break
                total += g
                days.append(total)
            if 20 <= len(days) <= 26:
                break
        self.crawl_days = days
        self.end = days[-1] + 1  # the plan's --as-of, in days from START

        # Deaths: 5 % of pages, from a date between the second crawl and the last one.
        self.death = [None] * n
        for i in rng.sample(range(n), round(n * DEAD_SHARE)):
            self.death[i] = rng.uniform(days[1], days[-1])

        # Change times: a Poisson process of each page's rate over the whole span.
        self.changes = []
        for i in range(n):
            ts, t, r = [], 0.0, self.rate[i]
            if r > 0:
                while True:
                    t += rng.expovariate(r)
                    if t > self.end:
                        break
                    ts.append(t)
            self.changes.append(ts)

        # Fetch times: each crawl fetches every URL once, in a random order over its day.
        self.fetch = []  # [crawl][page] -> seconds from START
        for d in days:
            perm = list(range(n))
            rng.shuffle(perm)
            sec = [0] * n
            for pos, i in enumerate(perm):
                sec[i] = d * DAY + int((pos + rng.random()) * (DAY - 1) / n)
            self.fetch.append(sec)

    def dead(self, i):
        return self.death[i] is not None

    def version(self, i, t_days):
        return bisect.bisect_right(self.changes[i], t_days)

    def status(self, i, t_days):
        return 404 if self.death[i] is not None and t_days >= self.death[i] else 200

    def observations(self, i):
        """(days, status, version) of every fetch of page i, in date order."""
        out = []
        for k in range(len(self.crawl_days)):
            t = self.fetch[k][i] / DAY
            out.append((t, self.status(i, t), self.version(i, t)))
        return out

    def naive_rate(self, i):
        """Changes seen over days observed, between consecutive 200 captures (None
        without an interval)."""
        obs = [(t, v) for t, s, v in self.observations(i) if s == 200]
        if len(obs) < 2:
            return None
        days = obs[-1][0] - obs[0][0]
        changes = sum(1 for a, b in zip(obs, obs[1:]) if a[1] != b[1])
        return changes / days if days > 0 else None


def date_str(seconds):
    return (START + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def day_str(days):
    return (START + datetime.timedelta(days=days)).strftime("%Y-%m-%d")


def page_html(world, i, v):
    rng = random.Random(f"text:{world.seed}:{i}:{v}")
    words = " ".join(rng.choice(VOCAB) for _ in range(rng.randint(60, 120)))
    links = "".join(
        f'<li><a href="{world.url[t]}">{world.title[t]}</a></li>' for t in world.links[i]
    )
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        f"<title>{world.title[i]}</title></head>\n<body><h1>{world.title[i]}</h1>\n"
        f"<p>{words}</p>\n<ul>{links}</ul>\n</body></html>\n"
    ).encode()


NOT_FOUND = b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n"


def warc_record(head_fields, block):
    head = "WARC/1.0\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head_fields)
    head += f"Content-Length: {len(block)}\r\n\r\n"
    return gzip.compress(head.encode() + block + b"\r\n\r\n", compresslevel=1)


def response_record(url, date, status, body):
    reason = "OK" if status == 200 else "Not Found"
    http = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    digest = base64.b32encode(hashlib.sha1(body).digest()).decode()
    rid = hashlib.md5((url + date).encode()).hexdigest()
    return warc_record(
        [
            ("WARC-Type", "response"),
            ("WARC-Target-URI", url),
            ("WARC-Date", date),
            ("WARC-Record-ID", f"<urn:uuid:{rid[:8]}-{rid[8:12]}-{rid[12:16]}-{rid[16:20]}-{rid[20:]}>"),
            ("WARC-Payload-Digest", f"sha1:{digest}"),
            ("Content-Type", "application/http; msgtype=response"),
        ],
        http,
    )


def write_warcs(world, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    cache = {}
    for k, d in enumerate(world.crawl_days):
        path = os.path.join(out_dir, f"crawl-{k + 1:02d}.warc.gz")
        order = sorted(range(world.n), key=lambda i: world.fetch[k][i])
        first = date_str(d * DAY)
        with open(path, "wb") as f:
            info = (
                "software: scripts/eval-recrawl.py\r\nformat: WARC File Format 1.0\r\n"
                f"description: simulated crawl {k + 1} of seed {world.seed}\r\n"
            ).encode()
            f.write(warc_record(
                [("WARC-Type", "warcinfo"), ("WARC-Date", first),
                 ("WARC-Filename", os.path.basename(path)),
                 ("WARC-Record-ID", f"<urn:uuid:00000000-0000-4000-8000-{world.seed % 10**6:06d}{k:06d}>"),
                 ("Content-Type", "application/warc-fields")],
                info,
            ))
            for i in order:
                sec = world.fetch[k][i]
                t = sec / DAY
                if world.status(i, t) == 404:
                    f.write(response_record(world.url[i], date_str(sec), 404, NOT_FOUND))
                    continue
                v = world.version(i, t)
                if cache.get(i, (None,))[0] != v:  # versions only grow: keep the last
                    cache[i] = (v, page_html(world, i, v))
                body = cache[i][1]
                f.write(response_record(world.url[i], date_str(sec), 200, body))
        paths.append(path)
    return paths


# ---------------------------------------------------------------------------------------
# Truth: importance, freshness, the optimum


def true_importance(world, cross_host_only=False):
    """warcdex's link score over the true graph: every URL starts at 1.0; each of 50
    iterations gives 0.15 + 0.85 Σ score(u)/outdegree(u) over the distinct links from
    other URLs; a URL without outlinks passes nothing on. Importance = score^0.5."""
    n = world.n
    out = []
    for i in range(n):
        ts = sorted({t for t in world.links[i] if t != i
                     and not (cross_host_only and world.host[t] == world.host[i])})
        out.append(ts)
    score = [1.0] * n
    for _ in range(ITERATIONS):
        nxt = [1.0 - DAMPING] * n
        for u in range(n):
            if out[u]:
                share = DAMPING * score[u] / len(out[u])
                for v in out[u]:
                    nxt[v] += share
        score = nxt
    return [s ** SCORE_POWER for s in score]


def freshness(r, f):
    if r <= 0:
        return 1.0
    if f <= 0:
        return 0.0
    x = r / f
    return 1.0 if x < 1e-12 else -math.expm1(-x) / x


def gain_shape(x):
    """1 - (1 + x) e^(-x): the marginal gain of a fetch, times r/w, at x = r/f."""
    return -math.expm1(-x) - x * math.exp(-x)


def optimum(world, w, rates, budget, min_days, max_days, include):
    """Frequencies (fetches a day) of the pages in `include` that maximise Σ w F(r, f)
    with Σ f = budget and every f in [1/max, 1/min]: each page's marginal gain
    (w/r)(1 - (1+x)e^(-x)) equals μ (or its f sits at a bound); μ by bisection."""
    lo, hi = 1.0 / max_days, 1.0 / min_days

    def freq(i, mu):
        r, wi = rates[i], w[i]
        if r <= 0 or wi <= 0:
            return lo
        target = mu * r / wi
        if target >= 1.0:
            return lo
        x_lo, x_hi = r / hi, r / lo  # x at the highest and the lowest frequency
        if gain_shape(x_lo) >= target:
            return hi
        if gain_shape(x_hi) <= target:
            return lo
        a, b = math.log(x_lo), math.log(x_hi)
        for _ in range(64):
            m = (a + b) / 2
            if gain_shape(math.exp(m)) < target:
                a = m
            else:
                b = m
        return r / math.exp((a + b) / 2)

    def total(mu):
        return sum(freq(i, mu) for i in include)

    # Above the largest w/r every page sits at its floor; near 0 at its ceiling.
    top = max((w[i] / rates[i] for i in include if rates[i] > 0 and w[i] > 0), default=1.0)
    if total(0.0) <= budget:
        mu = 0.0
    elif total(top) > budget:
        mu = top  # the floors alone exceed the budget: every page at the floor
    else:
        a, b = math.log(top) - 80.0, math.log(top)
        for _ in range(100):
            m = (a + b) / 2
            if total(math.exp(m)) > budget:
                a = m
            else:
                b = m
        mu = math.exp(b)  # the side that keeps within the budget
    return {i: freq(i, mu) for i in include}, mu


def weighted_freshness(world, w, freq):
    """Σ_live w F(r, f) / Σ_live w; freq maps page -> fetches a day (absent: 0)."""
    num = den = 0.0
    for i in range(world.n):
        if world.dead(i):
            continue
        num += w[i] * freshness(world.rate[i], freq.get(i, 0.0))
        den += w[i]
    return num / den


# ---------------------------------------------------------------------------------------
# Plans as CSV


def surt_key(url):
    """The SURT form warcdex keys URLs by (for a plan that names keys, not URLs)."""
    rest = url.split("://", 1)[1]
    host, _, path = rest.partition("/")
    return ",".join(reversed(host.lower().split("."))) + ")/" + path.lower()


def url_index(world):
    idx = {}
    for i, u in enumerate(world.url):
        idx[u] = i
        idx[u.lower()] = i
        idx[surt_key(u)] = i
        idx[u.replace("http://", "https://", 1)] = i
    return idx


def write_plan(path, world, freq, as_of_days, reason, rates=None, w=None):
    with open(path, "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["url", "interval_days", "next_due", "change_rate", "importance", "reason"])
        for i in sorted(freq):
            fi = freq[i]
            interval = 1.0 / fi
            wr.writerow([
                world.url[i], repr(interval), day_str(as_of_days + interval),
                repr(rates[i]) if rates else "", repr(w[i]) if w else "", reason,
            ])


def read_plan(path, world, idx):
    """The plan's rows: {page: (interval_days, row)} and the rows naming no page."""
    rows, unknown, duplicate = {}, [], 0
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        missing = {"url", "interval_days", "next_due", "change_rate", "importance", "reason"} - set(rd.fieldnames or [])
        if missing:
            die(f"{path}: missing columns {sorted(missing)} (has {rd.fieldnames})")
        for row in rd:
            u = row["url"].strip()
            i = idx.get(u, idx.get(u.lower()))
            if i is None:
                unknown.append(u)
                continue
            if i in rows:
                duplicate += 1
            try:
                interval = float(row["interval_days"])
            except ValueError:
                interval = math.inf
            rows[i] = (interval, row)
    return rows, unknown, duplicate


def iter_404_tail(world, i):
    for t, s, v in reversed(world.observations(i)):
        if s != 404:
            return
        yield t


def plan_freqs(rows):
    return {i: (1.0 / iv if iv > 0 and math.isfinite(iv) else 0.0) for i, (iv, _) in rows.items()}


def assess(world, w, freq, budget, max_days, rows=None):
    """Freshness and the budget and dead-URL checks of one plan."""
    fsum = sum(freq.values())
    dead_over = [i for i in freq if world.dead(i) and freq[i] > 1.0 / max_days * (1 + 1e-6)]
    dead_share = sum(f for i, f in freq.items() if world.dead(i)) / budget
    live_missing = sum(1 for i in range(world.n) if not world.dead(i) and freq.get(i, 0.0) <= 0)
    # A dead URL planned too often, by how many 404s in a row its history ends with.
    streaks = {}
    for i in dead_over:
        k = sum(1 for _ in iter_404_tail(world, i))
        streaks[k] = streaks.get(k, 0) + 1
    return {
        "fresh": weighted_freshness(world, w, freq),
        "dead_over_streaks": dict(sorted(streaks.items())),
        "fsum": fsum,
        "fsum_b": fsum / budget,
        "dead_over": len(dead_over),
        "dead_planned": sum(1 for i in freq if world.dead(i)),
        "dead_budget_share": dead_share,
        "live_missing": live_missing,
    }


# ---------------------------------------------------------------------------------------
# Diagnostics: Nutch's adaptive rule over the observed histories, done here


def nutch_adaptive_own(world, budget, min_days, max_days, inc=0.4, dec=0.2, initial=30.0):
    """AdaptiveFetchSchedule over each URL's captures (interval x(1-dec) after a change,
    x(1+inc) after none, clamped; a URL whose last capture is 404: the max), frequencies
    then scaled by one factor (clamped) so that they sum to the budget."""
    base = {}
    for i in range(world.n):
        obs = world.observations(i)
        interval = initial
        prev = None
        for t, s, v in obs:
            if s != 200:
                continue
            if prev is not None:
                interval *= (1 - dec) if v != prev else (1 + inc)
                interval = min(max(interval, min_days), max_days)
            prev = v
        if obs[-1][1] != 200:
            interval = max_days
        base[i] = 1.0 / interval
    lo, hi = 1.0 / max_days, 1.0 / min_days

    def scaled(c):
        return {i: min(max(f * c, lo), hi) for i, f in base.items()}

    a, b = math.log(1e-6), math.log(1e6)
    for _ in range(200):
        m = (a + b) / 2
        if sum(scaled(math.exp(m)).values()) > budget:
            b = m
        else:
            a = m
    return scaled(math.exp(a))


# ---------------------------------------------------------------------------------------
# Running warcdex


def run(cmd, log, check=True):
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    with open(log, "a") as f:
        f.write(f"$ {' '.join(cmd)}  [{time.time() - t0:.1f}s, exit {p.returncode}]\n{p.stdout}{p.stderr}\n")
    if check and p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        die(f"eval-recrawl: {' '.join(cmd)} exited {p.returncode} (log: {log})")
    return p


def has_recrawl_plan(binary):
    p = subprocess.run([binary, "recrawl-plan", "--help"], capture_output=True, text=True)
    return p.returncode == 0


def log_err(world, est, rates_ok):
    """Mean |log(est/true)| over pages with est > 0."""
    vals = [abs(math.log(est[i] / world.rate[i])) for i in rates_ok if est.get(i) and est[i] > 0]
    return (sum(vals) / len(vals) if vals else float("nan")), len(vals)


def eval_seed(a, seed):
    t_seed = time.time()
    world = World(seed, a.urls)
    n = world.n
    budget = n / BUDGET_DAYS
    work = os.path.join(a.work, f"seed-{seed}")
    coll = os.path.join(work, "coll")
    stamp = os.path.join(work, "built")
    stamp_text = f"seed {seed} urls {n} generator {GENERATOR_VERSION} compact {not a.no_compact}\n"
    log = os.path.join(work, "warcdex.log")
    times = {"generate": 0.0, "update": 0.0}
    reuse = False
    if a.reuse and os.path.exists(stamp):
        with open(stamp) as f:
            reuse = f.read() == stamp_text
    if reuse:
        print(f"seed {seed}: reusing the collection in {coll}", file=sys.stderr)
    else:
        if os.path.exists(work):
            shutil.rmtree(work)
        os.makedirs(work)
        t0 = time.time()
        warcs = write_warcs(world, os.path.join(work, "warcs"))
        times["generate"] = time.time() - t0

        t0 = time.time()
        for path in warcs:
            run([a.bin, "update", coll, path], log)
        if not a.no_compact:
            run([a.bin, "update", coll, "--compact"], log)
        times["update"] = time.time() - t0
        with open(stamp, "w") as f:
            f.write(stamp_text)

    t0 = time.time()
    w = true_importance(world, a.cross_host_only)
    live = [i for i in range(n) if not world.dead(i)]
    as_of = world.end
    # Uniform: every URL, dead ones included, at the same interval (clamped to the bounds).
    uf = min(max(budget / n, 1.0 / a.max), 1.0 / a.min)
    uniform = {i: uf for i in range(n)}
    opt, mu = optimum(world, w, world.rate, budget, a.min, a.max, live)
    times["optimum"] = time.time() - t0

    idx = url_index(world)
    res = {"seed": seed, "urls": n, "crawls": len(world.crawl_days), "budget": budget,
           "dead": sum(1 for i in range(n) if world.dead(i)), "mu": mu}
    res["uniform"] = assess(world, w, uniform, budget, a.max)
    res["optimum"] = assess(world, w, opt, budget, a.max)
    res["nutch_own"] = assess(world, w, nutch_adaptive_own(world, budget, a.min, a.max), budget, a.max)

    # The scorer on the optimum written as a plan: it must score as computed.
    opt_csv = os.path.join(work, "optimum.csv")
    write_plan(opt_csv, world, opt, as_of, "optimum", world.rate, w)
    rows, unknown, dup = read_plan(opt_csv, world, idx)
    back = assess(world, w, plan_freqs(rows), budget, a.max)
    res["selftest"] = abs(back["fresh"] - res["optimum"]["fresh"])
    if res["selftest"] > 1e-12 or unknown or dup:
        die(f"eval-recrawl: scorer self-test failed: {back['fresh']} != {res['optimum']['fresh']}")
    uni_csv = os.path.join(work, "uniform.csv")
    write_plan(uni_csv, world, uniform, as_of, "uniform")
    rows, _, _ = read_plan(uni_csv, world, idx)
    if abs(assess(world, w, plan_freqs(rows), budget, a.max)["fresh"] - res["uniform"]["fresh"]) > 1e-12:
        die("eval-recrawl: scorer self-test failed on the uniform plan")

    # Estimators over live pages that change: the naive one from the simulated captures.
    changing = [i for i in live if world.rate[i] > 0]
    naive = {i: world.naive_rate(i) for i in changing}
    res["naive_zero"] = sum(1 for i in changing if not naive[i])
    res["changing"] = len(changing)

    if not a.no_plan:
        t0 = time.time()
        plans = {}
        for name, extra in (("plan", []), ("nutch", ["--schedule", "nutch-adaptive"])):
            out = os.path.join(work, f"{name}.csv")
            run([a.plan_bin, "recrawl-plan", coll, "--budget", repr(budget), "--min", str(a.min),
                 "--max", str(a.max), "--as-of", day_str(as_of), "--format", "csv", "-o", out]
                + extra, log)
            rows, unknown, dup = read_plan(out, world, idx)
            r = assess(world, w, plan_freqs(rows), budget, a.max)
            r["unknown_rows"], r["duplicate_rows"], r["rows"] = len(unknown), dup, len(rows)
            res[name] = r
            plans[name] = rows
        times["plan"] = time.time() - t0
        rows = plans["plan"]

        def num(row, col):
            try:
                v = float(row[col])
                return v if math.isfinite(v) else None
            except (ValueError, TypeError):
                return None

        est = {i: num(rows[i][1], "change_rate") for i in changing if i in rows}
        both = [i for i in changing if naive[i] and est.get(i)]
        res["err_warcdex"], res["err_n"] = log_err(world, est, both)
        res["err_naive"], _ = log_err(world, naive, both)
        res["err_warcdex_all"], res["err_all_n"] = log_err(world, est, changing)
        imp = {i: num(rows[i][1], "importance") for i in rows}
        pairs = [(imp[i], w[i]) for i in rows if imp.get(i)]
        res["imp_err"] = (sum(abs(math.log(x / y)) for x, y in pairs) / len(pairs)) if pairs else float("nan")
        res["imp_max_err"] = max((abs(math.log(x / y)) for x, y in pairs), default=float("nan"))
        # What the plan would give with the true rates and its own importances, and with
        # its own rates and the true importances (my optimiser): where a gap comes from.
        est_rates = [(num(rows[i][1], "change_rate") or 0.0) if i in rows else 0.0 for i in range(n)]
        opt_est, _ = optimum(world, w, est_rates, budget, a.min, a.max, live)
        res["opt_est_rates"] = weighted_freshness(world, w, opt_est)
        # The same with the pages that never change known as such (warcdex gives them
        # half a change over the days observed).
        est0 = [r if world.rate[i] > 0 else 0.0 for i, r in enumerate(est_rates)]
        opt_est0, _ = optimum(world, w, est0, budget, a.min, a.max, live)
        res["opt_est_rates0"] = weighted_freshness(world, w, opt_est0)
        res["never_share"] = sum(f for i, f in plan_freqs(rows).items()
                                 if world.rate[i] == 0 and not world.dead(i)) / budget
        imp_w = [imp.get(i) or 0.0 for i in range(n)]
        opt_imp, _ = optimum(world, imp_w, world.rate, budget, a.min, a.max, live)
        res["opt_est_imp"] = weighted_freshness(world, w, opt_imp)
        # Reasons warcdex gave, counted.
        reasons = {}
        for i, (_, row) in rows.items():
            key = (row.get("reason") or "").split(":")[0].split(" (")[0]
            reasons[key] = reasons.get(key, 0) + 1
        res["reasons"] = reasons
        res["live_gone"] = sum(1 for i, (_, row) in rows.items()
                               if not world.dead(i) and row.get("reason") == "gone")
        res["due_early"] = sum(1 for _, row in rows.values()
                               if (row.get("next_due") or "9999") < day_str(as_of))
        dead_rows = [(world.url[i], iv, row.get("reason")) for i, (iv, row) in rows.items()
                     if world.dead(i)]
        res["dead_rows_example"] = dead_rows[:3]
    else:
        res["err_naive"], res["err_n"] = log_err(world, naive, [i for i in changing if naive[i]])

    if not a.keep:
        if os.path.exists(stamp):  # first: a half-removed collection is never reused
            os.remove(stamp)
        shutil.rmtree(coll, ignore_errors=True)
        shutil.rmtree(os.path.join(work, "warcs"), ignore_errors=True)
    times["total"] = time.time() - t_seed
    res["times"] = times
    return res


def checks(res):
    """(name, passed) of each acceptance test of one result (or the overall means)."""
    p, u, nu, o = res["plan"]["fresh"], res["uniform"]["fresh"], res["nutch"]["fresh"], res["optimum"]["fresh"]
    return [
        (f"plan {p:.3f} >= max(uniform {u:.3f}, nutch {nu:.3f}) + {ACCEPT_MARGIN}", p >= max(u, nu) + ACCEPT_MARGIN),
        (f"plan {p:.3f} >= {ACCEPT_OPT} x optimum {o:.3f} ({p / o:.3f})", p >= ACCEPT_OPT * o),
        (f"plan Σf/B {res['plan']['fsum_b']:.4f} <= 1", res["plan"]["fsum_b"] <= 1 + BUDGET_TOL),
        (f"nutch Σf/B {res['nutch']['fsum_b']:.4f} <= 1", res["nutch"]["fsum_b"] <= 1 + BUDGET_TOL),
        (f"dead URLs planned more often than the max: plan {res['plan']['dead_over']}, nutch {res['nutch']['dead_over']}",
         res["plan"]["dead_over"] == 0),
    ]


def print_seed(res, has_plan):
    t = res["times"]
    print(f"\nseed {res['seed']}: {res['urls']} URLs ({res['dead']} dead), {res['crawls']} crawls, "
          f"budget {res['budget']:.3f} fetches/day; generate {t['generate']:.1f}s, update {t['update']:.1f}s, "
          f"optimum {t['optimum']:.1f}s" + (f", plans {t['plan']:.1f}s" if "plan" in t else "")
          + f", total {t['total']:.1f}s")
    names = ["uniform", "nutch_own", "optimum"] + (["nutch", "plan"] if has_plan else [])
    print(f"  {'plan':<22} {'freshness':>9} {'Σf/B':>7} {'dead>max':>8} {'dead':>5} {'dead f/B':>8} {'live missing':>12}")
    label = {"uniform": "uniform", "nutch_own": "nutch-adaptive (mine)", "optimum": "optimum (mine)",
             "nutch": "warcdex nutch-adaptive", "plan": "warcdex optimal"}
    for k in names:
        r = res[k]
        print(f"  {label[k]:<22} {r['fresh']:9.4f} {r['fsum_b']:7.4f} {r['dead_over']:8d} "
              f"{r['dead_planned']:5d} {r['dead_budget_share']:8.4f} {r['live_missing']:12d}")
    print(f"  scorer self-test: optimum.csv scores within {res['selftest']:.1e} of the optimum")
    if has_plan:
        for k in ("plan", "nutch"):
            r = res[k]
            if r["unknown_rows"] or r["duplicate_rows"]:
                print(f"  {k}: {r['unknown_rows']} rows name no simulated URL, {r['duplicate_rows']} duplicate rows")
        print(f"  change-rate error, mean |ln(est/true)| over {res['err_n']} changing live pages "
              f"with a change seen: warcdex {res['err_warcdex']:.3f}, naive {res['err_naive']:.3f} "
              f"(warcdex over all {res['err_all_n']} changing pages planned: {res['err_warcdex_all']:.3f}; "
              f"{res['naive_zero']} of {res['changing']} saw no change)")
        print(f"  importance: warcdex's vs the true, mean |ln| {res['imp_err']:.4f}, max {res['imp_max_err']:.4f}")
        print(f"  my optimiser, true importances and warcdex's rates: {res['opt_est_rates']:.4f} (the same, "
              f"pages that never change at rate 0: {res['opt_est_rates0']:.4f}); true rates and warcdex's "
              f"importances: {res['opt_est_imp']:.4f}")
        print(f"  share of the budget the plan gives to live pages that never change: {res['never_share']:.4f}")
        print(f"  reasons: {res['reasons']}; live URLs planned as gone: {res['live_gone']}; "
              f"rows due before --as-of: {res['due_early']}")
        for k in ("plan", "nutch"):
            if res[k]["dead_over"]:
                print(f"  {k}: dead URLs planned more often than the max, by 404s seen at the end "
                      f"of their history: {res[k]['dead_over_streaks']}")
        if res["dead_rows_example"]:
            print(f"  dead URLs in the plan, e.g.: {res['dead_rows_example']}")
        ok = True
        for name, passed in checks(res):
            print(f"  {'PASS' if passed else 'FAIL'} {name}")
            ok &= passed
        return ok
    print(f"  naive change-rate error over {res['err_n']} pages: {res['err_naive']:.3f} "
          f"({res['naive_zero']} of {res['changing']} saw no change)")
    return True


def markdown(results, has_plan):
    print("\n| seed | URLs | crawls | budget/day | uniform | nutch-adaptive | plan | optimum | plan/optimum | Σf/B | rate error warcdex / naive |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        if has_plan:
            cells = [f"{r['uniform']['fresh']:.3f}", f"{r['nutch']['fresh']:.3f}", f"{r['plan']['fresh']:.3f}",
                     f"{r['optimum']['fresh']:.3f}", f"{r['plan']['fresh'] / r['optimum']['fresh']:.3f}",
                     f"{r['plan']['fsum_b']:.3f}", f"{r['err_warcdex']:.2f} / {r['err_naive']:.2f}"]
        else:
            cells = [f"{r['uniform']['fresh']:.3f}", "–", "–", f"{r['optimum']['fresh']:.3f}", "–", "–",
                     f"– / {r['err_naive']:.2f}"]
        print(f"| {r['seed']} | {r['urls']} | {r['crawls']} | {r['budget']:.2f} | " + " | ".join(cells) + " |")


def mean(xs):
    return sum(xs) / len(xs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--urls", type=int, default=2000)
    ap.add_argument("--bin", default="target/release/warcdex")
    ap.add_argument("--plan-bin", help="the binary that runs recrawl-plan (default: --bin)")
    ap.add_argument("--work", default="target/eval-recrawl")
    ap.add_argument("--min", type=float, default=1.0)
    ap.add_argument("--max", type=float, default=365.0)
    ap.add_argument("--keep", action="store_true", help="keep each seed's collection and WARCs")
    ap.add_argument("--reuse", action="store_true",
                    help="reuse a seed's collection kept (--keep) by an earlier run with the same "
                         "seed and --urls: only the plans are made and scored again")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--no-plan", action="store_true",
                    help="skip warcdex's plans (for a binary without recrawl-plan)")
    ap.add_argument("--no-compact", action="store_true",
                    help="leave the collection as its batches made it (each batch's link analysis "
                         "its own), as a collection kept by `update` alone is")
    ap.add_argument("--cross-host-only", action="store_true",
                    help="true importance from links between hosts only")
    a = ap.parse_args()
    if a.min <= 0 or a.max < a.min:
        ap.error("need 0 < --min <= --max")
    seeds = [int(s) for s in a.seeds.split(",") if s.strip()]
    if not os.access(a.bin, os.X_OK):
        print(f"eval-recrawl: no binary at {a.bin} (cargo build --release --bin warcdex)", file=sys.stderr)
        return 2
    a.plan_bin = a.plan_bin or a.bin
    if not a.no_plan and not has_recrawl_plan(a.plan_bin):
        print(f"eval-recrawl: {a.plan_bin} has no recrawl-plan subcommand (use --no-plan to run the rest)",
              file=sys.stderr)
        return 2
    has_plan = not a.no_plan
    os.makedirs(a.work, exist_ok=True)
    results, ok = [], True
    for seed in seeds:
        res = eval_seed(a, seed)
        results.append(res)
        ok &= print_seed(res, has_plan)
        sys.stdout.flush()
    if has_plan and len(results) > 1:
        overall = {k: {"fresh": mean([r[k]["fresh"] for r in results]),
                       "fsum_b": max(r[k]["fsum_b"] for r in results),
                       "dead_over": sum(r[k]["dead_over"] for r in results)}
                   for k in ("plan", "uniform", "nutch", "optimum")}
        print(f"\noverall ({len(results)} seeds, mean freshness, largest Σf/B, dead URLs summed):")
        for name, passed in checks(overall):
            print(f"  {'PASS' if passed else 'FAIL'} {name}")
            ok &= passed
    if a.markdown:
        markdown(results, has_plan)
    if has_plan:
        print("\neval-recrawl:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
