"""The WARC and WACZ exports against the tools that read them.

Given a collection and a query, exports the query's versions as WARC and WACZ with
warcdex, then:
  - warcio `check` accepts the WARC (every digest it can check passes);
  - py-wacz `validate` accepts the WACZ;
  - pywb's `cdx-indexer` lines of the WARC equal the lines of the collection's all.cdx that
    are captures of the matching versions (URL key, digest, dates of the JSON-lines
    export), apart from length, offset and filename;
  - pywb replays every capture of the export (its FrontEndApp, in process, on the WARC):
    200 for each, with the archived payload's digest, a revisit's resolved to its original.

Usage: export_peers.py --bin WARCDEX --coll DIR --query Q [--query Q ...]
"""

import argparse
import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, **kw)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr.decode(errors='replace')}")
    return r.stdout.decode()


def without_place(line):
    return " ".join(line.split(" ")[:-3])


def expected(bin, coll, query):
    out = run([bin, "export", "-d", coll, "--format", "jsonl", query])
    captures = set()
    for l in out.splitlines():
        v = json.loads(l)
        d = v["digest"].removeprefix("sha1:")
        for date in v["dates"]:
            captures.add((v["surt"], d, date))
    want = []
    with open(os.path.join(coll, "all.cdx")) as f:
        next(f)
        for l in f:
            p = l.rstrip("\n").split(" ")
            if (p[0], p[5], p[1]) in captures:
                want.append(without_place(l.rstrip("\n")))
    return sorted(want), sorted(captures)


def pywb_replays(warc, cdx_lines, tmp):
    """Each capture of the WARC through pywb's replay (id_ mode: the archived payload)."""
    from pywb.apps.frontendapp import FrontEndApp
    from werkzeug.test import Client

    cdx_path = os.path.join(tmp, "index.cdx")
    with open(cdx_path, "w") as f:
        f.write(" CDX N b a m s k r M S V g\n")
        f.write("".join(sorted(cdx_lines)))
    config = {
        "collections": {
            "exp": {"index_paths": cdx_path, "archive_paths": os.path.dirname(warc) + "/"}
        },
        "framed_replay": False,
    }
    import contextlib
    import io

    # pywb prints its access log and a missing ./config.yaml to standard error.
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        app = FrontEndApp(config_file=None, custom_config=config)
    client = Client(app)
    failures = []
    for l in cdx_lines:
        p = l.split(" ")
        ts, url, mime, digest = p[1], p[2], p[3], p[5]
        # pywb redirects a URL to its canonical form (`http://example.com` to `.../`).
        with contextlib.redirect_stderr(io.StringIO()):
            r = client.get(f"/exp/{ts}id_/{url}", follow_redirects=True)
            status = r.status_code
            body = b"".join(r.response)
        got = base64.b32encode(hashlib.sha1(body).digest()).decode()
        # A payload with a transfer or content coding is stored coded: the digest is of
        # what was stored; pywb sends it decoded. Status alone is checked for those.
        coded = r.headers.get("Content-Encoding") or "chunked" in r.headers.get(
            "Transfer-Encoding", ""
        )
        if status != int(p[4] if p[4] != "-" else status) or (
            not coded and status == 200 and got != digest
        ):
            failures.append(f"{ts} {url} ({mime}): {status}, digest {got} not {digest}")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--coll", required=True)
    ap.add_argument("--query", action="append", required=True)
    a = ap.parse_args()
    venv_bin = os.path.dirname(sys.executable)
    import logging

    logging.disable(logging.CRITICAL)
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for q in a.query:
            before = len(bad)
            warc = os.path.join(tmp, "export.warc.gz")
            wacz = os.path.join(tmp, "export.wacz")
            run([a.bin, "export", "-d", a.coll, "--format", "warc", "-o", warc, q])
            run([a.bin, "export", "-d", a.coll, "--format", "wacz", "-o", wacz, q])
            check = subprocess.run(
                [os.path.join(venv_bin, "warcio"), "check", "-v", warc], capture_output=True
            )
            if check.returncode != 0:
                bad.append(f"{q}: warcio check: {check.stdout.decode()[-2000:]}")
            v = subprocess.run(
                [os.path.join(venv_bin, "wacz"), "validate", "-f", wacz], capture_output=True
            )
            if v.returncode != 0 or b"Validation succeeded" not in v.stdout:
                bad.append(f"{q}: wacz validate: {v.stdout.decode()[-2000:]}")
            lines = run([os.path.join(venv_bin, "cdx-indexer"), warc]).splitlines(True)[1:]
            got = sorted(without_place(l.rstrip("\n")) for l in lines)
            want, captures = expected(a.bin, a.coll, q)
            if got != want:
                bad.append(f"{q}: pywb's CDX of the export differs:\n got {got}\nwant {want}")
            if not want:
                bad.append(f"{q}: matches no capture: choose a query that does")
            replay_fail = pywb_replays(warc, lines, tmp)
            bad += [f"{q}: pywb replay: {f}" for f in replay_fail]
            print(
                f"export_peers: {q!r}: {len(got)} captures; warcio check, wacz validate, "
                f"pywb CDX and replay: {'ok' if len(bad) == before else 'FAILED'}"
            )
    if bad:
        print("\n".join(bad), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
