#!/usr/bin/env python3
"""Mutation run over real archives: N seeded mutants of ARCHIVES archives, each
through `warcdex records`, `cdx`, `cdx -a -p --format cdxj` and `import`, counting panics
(exit 101 or death by a signal) and hangs (the per-run timeout). Called by
scripts/mutate-archives.sh, which builds the binary and chooses the archives; standard
library only.

Mutants are made from the stored bytes (gzip archives are mutated compressed, which is what
a damaged disk or a clipped download gives): bit flips, truncations, insertions of random
bytes, duplicated ranges, removed ranges, and a byte range overwritten by random bytes. One
to three mutations are stacked per mutant. Mutant i depends only on (seed, i), so a failure
is reproduced by `--only i`.
"""

import argparse
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

COMMANDS = {
    "records": lambda b, f, d: [b, "records", "--digest", "--verify", f],
    "cdx": lambda b, f, d: [b, "cdx", f],
    "cdx-a-p-cdxj": lambda b, f, d: [b, "cdx", "-a", "-p", "--format", "cdxj", f],
    "import": lambda b, f, d: [b, "import", "-j", "1", os.path.join(d, "manifest.txt"),
                               os.path.join(d, "seg")],
}


def mutate_once(rng, data):
    """One mutation of `data` (bytes); returns (new bytes, description)."""
    n = len(data)
    kind = rng.choice(["flip", "flip", "truncate", "insert", "duplicate", "remove", "overwrite"])
    if n == 0:
        kind = "insert"
    if kind == "flip":
        out = bytearray(data)
        k = rng.choice([1, 1, 2, 4, 8, 32])
        for _ in range(k):
            i = rng.randrange(n)
            out[i] ^= 1 << rng.randrange(8)
        return bytes(out), f"flip{k}"
    if kind == "truncate":
        i = rng.randrange(n)
        return data[:i], f"truncate@{i}"
    if kind == "insert":
        i = rng.randrange(n + 1)
        choices = [
            bytes(rng.randrange(256) for _ in range(rng.choice([1, 2, 16, 100, 1000]))),
            b"\r\n", b"\n", b"\x00" * rng.choice([1, 10, 1000]),
            b"WARC/1.0\r\n", b"Content-Length: 999999999\r\n", b"\x1f\x8b\x08\x00",
        ]
        ins = rng.choice(choices)
        return data[:i] + ins + data[i:], f"insert{len(ins)}@{i}"
    if kind == "duplicate":
        i = rng.randrange(n)
        j = min(n, i + rng.choice([1, 10, 100, 1000, 10000]))
        k = rng.randrange(n + 1)
        return data[:k] + data[i:j] + data[k:], f"dup{j - i}@{k}"
    if kind == "remove":
        i = rng.randrange(n)
        j = min(n, i + rng.choice([1, 10, 100, 1000]))
        return data[:i] + data[j:], f"remove{j - i}@{i}"
    i = rng.randrange(n)
    j = min(n, i + rng.choice([1, 4, 16, 256]))
    out = bytearray(data)
    out[i:j] = bytes(rng.randrange(256) for _ in range(j - i))
    return bytes(out), f"overwrite{j - i}@{i}"


def make_mutant(seed, i, archives, cache):
    """Mutant number i: (archive path, bytes, description)."""
    rng = random.Random(f"{seed}:{i}")
    src = archives[i % len(archives)]
    data = cache[src]
    steps = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        data, what = mutate_once(rng, data)
        steps.append(what)
    return src, data, "+".join(steps)


def classify(proc_rc, timed_out):
    if timed_out:
        return "hang"
    if proc_rc == 101 or proc_rc < 0:
        return "panic"
    return "error" if proc_rc != 0 else "ok"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--seed", default="warcdex-15")
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", required=True, help="where failing mutants are kept")
    ap.add_argument("--only", type=int, action="append", help="run only mutant I (repeatable)")
    ap.add_argument("archives", nargs="+")
    a = ap.parse_args()

    archives = a.archives
    cache = {p: open(p, "rb").read() for p in archives}
    os.makedirs(a.out, exist_ok=True)
    counts = {c: {"ok": 0, "error": 0, "panic": 0, "hang": 0} for c in COMMANDS}
    failures = []
    lock = threading.Lock()
    done = [0]
    indices = a.only if a.only else range(a.count)

    def one(i):
        src, data, what = make_mutant(a.seed, i, archives, cache)
        # The file keeps the original's name (suffix included): some rules look at it.
        with tempfile.TemporaryDirectory(prefix="warcdex-mut-") as d:
            path = os.path.join(d, os.path.basename(src))
            with open(path, "wb") as f:
                f.write(data)
            with open(os.path.join(d, "manifest.txt"), "w") as f:
                f.write(path + "\n")
            results = []
            for name, argv in COMMANDS.items():
                shutil.rmtree(os.path.join(d, "seg"), ignore_errors=True)
                timed_out = False
                try:
                    p = subprocess.run(argv(a.bin, path, d), stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, timeout=a.timeout,
                                       env={**os.environ, "RUST_BACKTRACE": "0"})
                    rc, err = p.returncode, p.stderr
                except subprocess.TimeoutExpired as e:
                    timed_out, rc, err = True, None, e.stderr or b""
                results.append((name, classify(rc, timed_out), rc, err))
        with lock:
            for name, cls, rc, err in results:
                counts[name][cls] += 1
                if cls in ("panic", "hang"):
                    digest = hashlib.sha1(data).hexdigest()[:12]
                    keep = os.path.join(a.out, f"{i:05d}-{digest}-{os.path.basename(src)}")
                    with open(keep, "wb") as f:
                        f.write(data)
                    msg = err.decode("utf-8", "replace").strip().splitlines()
                    panic_lines = [l for l in msg if "panicked at" in l]
                    where = msg[msg.index(panic_lines[0]):][:2] if panic_lines else msg[-2:]
                    with open(keep + f".{name}.stderr", "wb") as f:
                        f.write(err)
                    failures.append((i, name, cls, rc, src, what, keep, " | ".join(where)))
            done[0] += 1
            if done[0] % 100 == 0:
                bad = sum(c["panic"] + c["hang"] for c in counts.values())
                print(f"  {done[0]} mutants, {bad} panics+hangs", file=sys.stderr, flush=True)

    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        list(ex.map(one, indices))

    n = len(indices) if a.only else a.count
    print(f"\n{n} mutants of {len(archives)} archives (seed {a.seed!r}, timeout {a.timeout:g} s)")
    print(f"{'command':<16}{'runs':>7}{'ok':>7}{'error':>7}{'panic':>7}{'hang':>7}")
    tot = {"ok": 0, "error": 0, "panic": 0, "hang": 0}
    for name, c in counts.items():
        runs = sum(c.values())
        print(f"{name:<16}{runs:>7}{c['ok']:>7}{c['error']:>7}{c['panic']:>7}{c['hang']:>7}")
        for k in tot:
            tot[k] += c[k]
    print(f"{'total':<16}{sum(tot.values()):>7}{tot['ok']:>7}{tot['error']:>7}"
          f"{tot['panic']:>7}{tot['hang']:>7}")
    if failures:
        print(f"\nfailing mutants kept in {a.out} (rerun one with --only I):")
        for i, name, cls, rc, src, what, keep, where in sorted(failures):
            print(f"  #{i} {name} {cls} (exit {rc}) {os.path.basename(src)} {what}: {where}")
    else:
        print("\nno panics, no hangs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
