"""A collection of a Browsertrix-style WACZ (fixtures/browsertrix/crawl.wacz, shells whose
words are rendered text; tests/rendered_text.rs) through pywb 2.10:

- pywb configured by `warcdex pywb-config` (the server's /cdx and /warcs/ as its index and
  archives) replays every capture the WACZ holds with the bytes `/web/DATEid_/URL` gives;
- a WARC export of a page with a stylesheet and an image, replayed by pywb in headless
  Chromium: the page's computed text colour is its stylesheet's and its image has its
  natural size; the same export with --no-requisites shows neither (so the check can fail);
- warcio `check` accepts a WARC export of everything, py-wacz `validate` a WACZ export.

Run by scripts/test-browsertrix.sh with the peers' venv (pywb, cdx-indexer)."""

import argparse
import contextlib
import io
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_pywb import Chromium, Failed  # noqa: E402

QUERY = "marramgrass"
PAGE = "https://spa.example.org/tides"
DATE = "20240301100500"
# What make_fixture.py's stylesheet and image are.
COLOUR = "rgb(12, 34, 56)"
SIZE = (37, 23)

CHECK = """(() => {
  const img = document.querySelector('img');
  if (document.readyState !== 'complete' || !img || !img.complete) return null;
  return {colour: getComputedStyle(document.body).color,
          width: img.naturalWidth, height: img.naturalHeight};
})()"""


def export(bin, coll, out, requisites):
    cmd = [bin, "export", "-d", coll, QUERY, "--format", "warc", "-o", out]
    if not requisites:
        cmd.append("--no-requisites")
    subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pywb_serving(work, warc):
    """pywb's `wayback` over `warc` (indexed by pywb's own cdx-indexer), unframed, in a
    process of its own (pywb's gevent would stall a server thread beside Chromium's
    pipe); its port once it answers."""
    cdx = os.path.join(work, "index.cdx")
    bindir = os.path.dirname(sys.executable)
    subprocess.run([os.path.join(bindir, "cdx-indexer"), "-s", "-o", cdx, warc], check=True)
    config = os.path.join(work, "config.yaml")
    with open(config, "w") as f:
        f.write(f"collections:\n  exp:\n    index_paths: {cdx}\n"
                f"    archive_paths: {os.path.dirname(warc)}/\nframed_replay: false\n")
    port = free_port()
    log = open(os.path.join(work, "pywb.log"), "ab")
    proc = subprocess.Popen([os.path.join(bindir, "wayback"), "-b", "127.0.0.1", "-p", str(port)],
                            cwd=work, env={**os.environ, "PYWB_CONFIG_FILE": config},
                            stdout=log, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise Failed(f"pywb's wayback ended at start (see {work}/pywb.log)")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
            return proc, port
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise Failed("pywb did not answer")


def look(work, url):
    """The page's colour and image size as Chromium shows `url`."""
    chrome = Chromium(work)
    try:
        session = chrome.open_page(url)
        deadline = time.monotonic() + 30
        while True:
            r = chrome.send("Runtime.evaluate", {"expression": CHECK, "returnByValue": True},
                            session)
            seen = r.get("result", {}).get("value")
            if seen or time.monotonic() > deadline:
                return seen
            time.sleep(0.2)
    finally:
        chrome.close()


def checked_by_peers(bin, coll, work):
    """warcio `check` accepts a WARC export of every version, py-wacz `validate` a WACZ
    export (its page list with the rendered texts), both with the pages' requisites."""
    bindir = os.path.dirname(sys.executable)
    warc = os.path.join(work, "all.warc.gz")
    wacz = os.path.join(work, "all.wacz")
    for out, fmt in [(warc, "warc"), (wacz, "wacz")]:
        subprocess.run([bin, "export", "-d", coll, "*", "--format", fmt, "-o", out],
                       check=True, stderr=subprocess.DEVNULL)
    for cmd in [["warcio", "check", warc], ["wacz", "validate", "-f", wacz]]:
        r = subprocess.run([os.path.join(bindir, cmd[0])] + cmd[1:], capture_output=True,
                           text=True)
        if r.returncode != 0:
            raise Failed(f"{' '.join(cmd)}: {r.stdout}{r.stderr}")


def replayed(bin, coll, work, requisites):
    sub = os.path.join(work, "with" if requisites else "without")
    os.makedirs(sub)
    warc = os.path.join(sub, "export.warc.gz")
    export(bin, coll, warc, requisites)
    proc, port = pywb_serving(sub, warc)
    try:
        return look(sub, f"http://127.0.0.1:{port}/exp/{DATE}/{PAGE}")
    finally:
        proc.kill()
        proc.wait()


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def pywb_config_replays(coll, server, config, name):
    """Every capture of `coll` held in the WACZ, through pywb configured by pywb-config,
    against the server's own id_ answer; how many were compared."""
    from pywb.apps.frontendapp import FrontEndApp
    from werkzeug.test import Client

    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        app = FrontEndApp(config_file=config)
    client = Client(app)
    compared = 0
    with open(os.path.join(coll, "all.cdx")) as f:
        for line in f:
            p = line.split(" ")
            if line.startswith(" CDX") or p[2].startswith("urn:"):
                continue
            ts, url = p[1], p[2]
            status, want = fetch(f"{server}/web/{ts}id_/{url}")
            if status != 200:
                raise Failed(f"/web/{ts}id_/{url}: {status}")
            with contextlib.redirect_stderr(io.StringIO()):
                r = client.get(f"/{name}/{ts}id_/{url}", follow_redirects=True)
                got = b"".join(r.response)
            if r.status_code != 200 or got != want:
                raise Failed(f"pywb's {ts}id_/{url}: {r.status_code}, {len(got)} bytes, "
                             f"not the server's {len(want)}")
            compared += 1
    return compared


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--coll", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--server", required=True)
    p.add_argument("--pywb-config", required=True)
    p.add_argument("--name", required=True)
    a = p.parse_args()
    try:
        # Chromium first: importing pywb's app (below) lets gevent patch threads and
        # sockets in this process, which stalls the DevTools pipe's reader.
        seen = replayed(a.bin, a.coll, a.work, True)
        if not seen or seen["colour"] != COLOUR or (seen["width"], seen["height"]) != SIZE:
            raise Failed(f"with requisites, pywb shows {seen}: want colour {COLOUR}, "
                         f"image {SIZE[0]} x {SIZE[1]}")
        bare = replayed(a.bin, a.coll, a.work, False)
        if not bare or bare["colour"] == COLOUR or bare["width"] != 0:
            raise Failed(f"without requisites, pywb shows {bare}: the check cannot fail")
        print(f"browsertrix_replay: export styled with requisites {seen}, unstyled without "
              f"{bare}")
        checked_by_peers(a.bin, a.coll, a.work)
        print("browsertrix_replay: warcio check and wacz validate accept the exports")
        n = pywb_config_replays(a.coll, a.server, a.pywb_config, a.name)
        if n < 32:
            raise Failed(f"only {n} captures compared")
        print(f"browsertrix_replay: pywb replays the {n} WACZ-held captures as /web id_ does")
    except Failed as e:
        print(f"browsertrix_replay: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
