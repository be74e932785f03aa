#!/usr/bin/env bash
# Bit-flip robustness run of `search` and `serve`: builds the bundled
# example's index (scripts/example.sh), then makes COPIES copies of it, each with one
# random bit flipped in one random file of main/ or dates/, served beside an intact copy
# of the same set. On each copy it runs `warcdex search` (three queries) and `warcdex
# serve` (start, /healthz, two queries, stop). A panic is exit code 101 or a signal; a
# hang is a run that outlives its timeout; "intact set lost" is a run that did not
# answer from the intact set. Prints one line per fault and a summary; exits 1 if any
# panic, hang or lost answer was seen.
#
# Usage: scripts/flip-indexes.sh [COPIES]   (default 300)
# Env:   WARCDEX_BIN (default: cargo build --release), SEED (random seed, default 15).
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-300}
if [ -n "${WARCDEX_BIN:-}" ]; then
    bin=$(realpath "$WARCDEX_BIN")
else
    source scripts/built-bin.sh
    bin=$(built_bin)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
WARCDEX_BIN=$bin scripts/example.sh "$work/example" >/dev/null 2>&1

python3 - "$bin" "$work" "$copies" "${SEED:-15}" <<'PY'
import os, random, shutil, signal, subprocess, sys, time, urllib.request

bin_, work, copies, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
pristine = os.path.join(work, "example/pindexes/example")
coll = os.path.join(work, "flip")
files = sorted(
    os.path.join(sub, f)
    for sub in ("main", "dates")
    for f in os.listdir(os.path.join(pristine, sub))
    if os.path.isfile(os.path.join(pristine, sub, f)) and os.path.getsize(os.path.join(pristine, sub, f)) > 0
)
QUERIES = ["organisation", "lisbon date:2007", "example site:example.org"]
counts = dict(copies=0, search_runs=0, serve_runs=0, panics=0, hangs=0, lost=0,
              refused=0, http_500=0, caught=0)

def fault(kind, i, what, detail):
    print(f"{kind}: copy {i}: {what}: {detail}", flush=True)

def kind_of(name):
    # <uuid>.<ext> files are named by their extension; the others by name.
    base = os.path.basename(name)
    stem, _, ext = base.partition(".")
    return os.path.join(os.path.dirname(name), "<uuid>." + ext if len(stem) == 32 else base)

for i in range(copies):
    shutil.rmtree(coll, ignore_errors=True)
    shutil.copytree(pristine, os.path.join(coll, "pindexes/a"))
    shutil.copytree(pristine, os.path.join(coll, "pindexes/b"))
    name = rng.choice(files)
    path = os.path.join(coll, "pindexes/a", name)
    size = os.path.getsize(path)
    off, bit = rng.randrange(size), rng.randrange(8)
    with open(path, "r+b") as f:
        f.seek(off)
        b = f.read(1)[0]
        f.seek(off)
        f.write(bytes([b ^ (1 << bit)]))
    what = f"{kind_of(name)} byte {off} bit {bit}"
    counts["copies"] += 1
    for q in QUERIES:
        counts["search_runs"] += 1
        try:
            p = subprocess.run([bin_, "search", "-d", coll, "--hits-per-site", "0", "--json", q],
                               capture_output=True, timeout=30)
        except subprocess.TimeoutExpired:
            counts["hangs"] += 1
            fault("hang", i, what, f"search {q!r}")
            continue
        err = p.stderr.decode(errors="replace")
        if "panicked" in err:
            counts["caught"] += 1
        if p.returncode == 101 or p.returncode < 0:
            counts["panics"] += 1
            fault("panic", i, what, f"search {q!r}: exit {p.returncode}: {err.strip().splitlines()[-1:]}")
        elif p.returncode != 0 or b'"set": "b"' not in p.stdout:
            counts["lost"] += 1
            fault("lost", i, what, f"search {q!r}: exit {p.returncode}: {err.strip()[-300:]}")
    if "not searched" in err:
        counts["refused"] += 1
    # serve: start, query, stop.
    counts["serve_runs"] += 1
    log = open(os.path.join(work, "serve.log"), "w+")
    srv = subprocess.Popen([bin_, "serve", "-d", coll, "--addr", "127.0.0.1:0", "--replay-prefix", ""],
                           stderr=log)
    port = None
    deadline = time.time() + 30
    while time.time() < deadline and srv.poll() is None:
        log.seek(0)
        for line in log.read().splitlines():
            if "listening on http://127.0.0.1:" in line:
                port = line.rsplit(":", 1)[1].strip("/")
        if port:
            break
        time.sleep(0.02)
    try:
        if port is None:
            if srv.poll() is None:
                counts["hangs"] += 1
                fault("hang", i, what, "serve did not start")
            else:
                rc = srv.returncode
                kind = "panic" if rc == 101 or rc < 0 else "lost"
                counts["panics" if kind == "panic" else "lost"] += 1
                log.seek(0)
                fault(kind, i, what, f"serve exited {rc} at start: {log.read().strip()[-300:]}")
            continue
        for route in ["/healthz"] + ["/search.json?hitsPerSite=0&query=" + urllib.parse.quote(q) for q in QUERIES[:2]]:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{route}", timeout=30) as r:
                    body = r.read()
                    if route != "/healthz" and b'"set": "b"' not in body:
                        counts["lost"] += 1
                        fault("lost", i, what, f"serve {route}: no hit from the intact set")
            except urllib.error.HTTPError as e:
                if e.code == 500:
                    counts["http_500"] += 1
                else:
                    counts["lost"] += 1
                fault("http", i, what, f"serve {route}: {e.code} {e.read()[:200]!r}")
            except Exception as e:  # refused, reset, timeout: the server died or hung
                if srv.poll() is None:
                    counts["hangs"] += 1
                    fault("hang", i, what, f"serve {route}: {e}")
                break
        # Still running, as it should be; or it died (a panic kills it with 101).
        if srv.poll() is not None:
            counts["panics"] += 1
            fault("panic", i, what, f"serve exited {srv.returncode} while answering")
    finally:
        log.seek(0)
        if "panicked" in log.read():
            counts["caught"] += 1
        if srv.poll() is None:
            srv.send_signal(signal.SIGTERM)
            srv.wait()
        log.close()

print("flip-indexes: " + " ".join(f"{k}={v}" for k, v in counts.items()))
print("  (panics: exit 101 or a signal; caught: runs whose stderr shows a panic that was "
      "caught and reported; refused: search runs that refused the damaged set)")
sys.exit(1 if counts["panics"] or counts["hangs"] or counts["lost"] else 0)
PY
