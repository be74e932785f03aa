#!/usr/bin/env python3
"""The checks of scripts/test-pywb.sh, once `warcdex serve` and pywb's `wayback` run.

For each query: the hits of `/search.json`, whose replay links (the server started with
`--replay pywb=PYWB/COLL`) must be pywb's; every replay link's capture is fetched from
pywb unframed (`DATE14mp_`), which must answer 200 with the hit's title. Then the first
hit's replay link is loaded in headless Chromium, driven over its DevTools pipe
(`--remote-debugging-pipe`: JSON messages ended by NUL on file descriptors 3 and 4, so
no WebSocket library is needed), and the title of the document in pywb's replay frame
must be the hit's; a screenshot of the page is saved.

Standard library only. Exits 1 naming the first check that failed.
"""

import argparse
import base64
import fcntl
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request


class Failed(Exception):
    pass


def fetch(url, timeout=60):
    """GET url: status, headers, body (an HTTP error status is an answer, not a failure)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def hits(server, query):
    q = urllib.parse.urlencode({"query": query, "hitsPerPage": 10})
    status, _, body = fetch(f"{server}/search.json?{q}")
    if status != 200:
        raise Failed(f"/search.json?{q}: {status} {body[:300]!r}")
    found = json.loads(body)["hits"]
    if not found:
        raise Failed(f"/search.json?{q}: no hits")
    return found


def unframed(replay_url, prefix):
    """The capture's URL without pywb's frame: DATE14 becomes DATE14mp_."""
    rest = replay_url[len(prefix):]
    date, url = rest.split("/", 1)
    return f"{prefix}{date}mp_/{url}"


def check_capture(replay_url, prefix, title):
    url = unframed(replay_url, prefix)
    status, headers, body = fetch(url)
    if status != 200:
        raise Failed(f"{url}: pywb answered {status}: {body[:300]!r}")
    if f"<title>{title}</title>".encode() not in body:
        raise Failed(f"{url}: no <title>{title}</title> in {body[:500]!r}")
    if not headers.get("Memento-Datetime"):
        raise Failed(f"{url}: no Memento-Datetime header (not a replayed capture?)")


class Chromium:
    """Headless Chromium driven over its DevTools pipe."""

    def __init__(self, work, width=1280, height=900):
        profile = tempfile.mkdtemp(dir=work, prefix="profile.")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def pipe_fds():
            # Moved out of the way first, so that neither lands on the other's number.
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 100)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 100)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.log = open(os.path.join(work, "chromium.log"), "ab")
        # Every background connection off (the network is closed; without these flags
        # Chromium waits on them), a fresh profile, as scripts/test-browser.sh runs it.
        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
             f"--user-data-dir={profile}", f"--window-size={width},{height}",
             "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            pass_fds=(3, 4), preexec_fn=pipe_fds)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.next_id = 0
        self.replies = {}
        self.events = []
        self.incoming = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = b""
        while True:
            chunk = os.read(self.from_chrome, 1 << 16)
            if not chunk:
                self.incoming.put(None)
                return
            buf += chunk
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                self.incoming.put(json.loads(msg))

    def _pump(self, deadline):
        timeout = deadline - time.monotonic()
        if timeout <= 0:
            raise Failed("Chromium did not answer in time")
        try:
            msg = self.incoming.get(timeout=timeout)
        except queue.Empty:
            raise Failed("Chromium did not answer in time")
        if msg is None:
            raise Failed("Chromium closed its DevTools pipe (see chromium.log)")
        if "id" in msg:
            self.replies[msg["id"]] = msg
        else:
            self.events.append(msg)

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        i = self.next_id
        msg = {"id": i, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while i not in self.replies:
            self._pump(deadline)
        reply = self.replies.pop(i)
        if "error" in reply:
            raise Failed(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, method, session, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            for n, e in enumerate(self.events):
                if e.get("method") == method and e.get("sessionId") == session:
                    return self.events.pop(n)
            self._pump(deadline)

    def open_page(self, url):
        """A new tab at `url`, once its load event fired; its DevTools session."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable", session=session)
        nav = self.send("Page.navigate", {"url": url}, session)
        if nav.get("errorText"):
            raise Failed(f"Chromium could not load {url}: {nav['errorText']}")
        self.wait_event("Page.loadEventFired", session)
        return session

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Failed:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


# The replay frame's document, as pywb 2.10's framed replay builds the page: the top
# document (pywb's banner) holds the capture in an iframe of the same origin.
FRAME = """(() => {
  const f = document.querySelector('iframe');
  if (!f || !f.contentDocument || f.contentDocument.readyState !== 'complete') return null;
  return {src: f.src, href: f.contentWindow.location.href, title: f.contentDocument.title,
          text: f.contentDocument.body ? f.contentDocument.body.innerText.slice(0, 300) : ''};
})()"""


def replay_in_browser(work, replay_url, title, screenshot):
    chrome = Chromium(work)
    try:
        session = chrome.open_page(replay_url)
        frame = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            r = chrome.send("Runtime.evaluate", {"expression": FRAME, "returnByValue": True},
                            session)
            frame = r.get("result", {}).get("value")
            if frame and frame["title"] == title:
                break
            time.sleep(0.2)
        if not frame:
            top = chrome.send("Runtime.evaluate", {
                "expression": "document.documentElement.outerHTML.slice(0, 1500)",
                "returnByValue": True}, session)["result"].get("value")
            raise Failed(f"{replay_url}: no replay frame loaded; the page: {top}")
        if frame["title"] != title:
            raise Failed(f"{replay_url}: the replay frame's title is {frame['title']!r}, "
                         f"not {title!r} (frame {frame['href']}, text {frame['text']!r})")
        if "mp_/" not in frame["href"]:
            raise Failed(f"{replay_url}: the frame is not pywb's capture frame: {frame['href']}")
        # Let the frame paint before the screenshot.
        time.sleep(0.5)
        shot = chrome.send("Page.captureScreenshot", {"format": "png"}, session)
        with open(screenshot, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        return frame
    finally:
        chrome.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", required=True, help="warcdex serve, http://HOST:PORT")
    p.add_argument("--pywb", required=True, help="pywb's wayback, http://HOST:PORT")
    p.add_argument("--collection", required=True)
    p.add_argument("--query", action="append", required=True)
    p.add_argument("--work", required=True, help="a directory for profiles and logs")
    p.add_argument("--screenshot", required=True)
    a = p.parse_args()
    prefix = f"{a.pywb}/{a.collection}/"
    try:
        first = None
        checked = 0
        for q in a.query:
            for hit in hits(a.server, q):
                links = hit.get("replay") or []
                if not links:
                    raise Failed(f"query {q!r}: hit {hit['url']} has no replay link")
                for link in links:
                    if not link.startswith(prefix):
                        raise Failed(f"query {q!r}: replay link {link} is not pywb's ({prefix})")
                    check_capture(link, prefix, hit["title"])
                    checked += 1
                first = first or (links[0], hit["title"])
        print(f"test-pywb: {checked} captures of {len(a.query)} queries replayed by pywb "
              f"with their titles", file=sys.stderr)
        link, title = first
        frame = replay_in_browser(a.work, link, title, a.screenshot)
        print(f"test-pywb: Chromium at {link}: replay frame {frame['href']} has the title "
              f"{frame['title']!r}", file=sys.stderr)
    except Failed as e:
        print(f"test-pywb: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
