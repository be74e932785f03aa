"""Replay that runs the pages' scripts, in headless Chromium (scripts/test-replay.sh):

- the capture view (`/web/DATE/URL` on the search application) frames the capture from
  the replay origin, where wabac.js's service worker replays it from warcdex's `ir_`:
  the page's own script fetched its data and built its list, its stylesheet asked for as
  `site.css?v=7` (archived without the query) applies, a link the page wrote relative
  stays as written; the replay origin's `mp_` opened as the top page shows the same;
- the escape page (fixtures/replay/escape.warc.gz: fetch, XHR, WebSocket, beacons,
  popups, forms, refresh, location, CSS, pings, prefetch, workers to outside hosts) sends
  no request out of loopback, from the page, its frames or its workers;
- ReplayWeb.page (the npm package, pinned) opens the collection from
  `?source=…/warcs/index.cdxj`, with no shim, and replays the same page, scripts run.

Every check prints what it saw; the first failure exits 1."""

import argparse
import functools
import http.server
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp_browser import Chromium, Failed, analyse, visit  # noqa: E402

DATE = "20240301100500"
PAGE = "https://app.example.org/docs/index.html"
MESSAGE = "built by the page's own script"
COLOUR = "rgb(12, 34, 56)"

# What the page's scripts built, its stylesheet and its link, in the frame's document.
STATE = """JSON.stringify((() => {
  const out = document.getElementById('out');
  const rel = document.getElementById('rel');
  return {out: out && out.textContent, items: document.querySelectorAll('#list li').length,
          colour: document.body && getComputedStyle(document.body).color,
          href: rel && rel.getAttribute('href'), url: location.href};
})())"""


def frames(chrome, sid):
    out = []

    def walk(node):
        out.append(node["frame"])
        for child in node.get("childFrames", []):
            walk(child)

    walk(chrome.send("Page.getFrameTree", session=sid)["frameTree"])
    return out


def frame_state(chrome, sid, want_url):
    """The STATE of the frame (of tab `sid`, its iframes included) whose URL holds
    `want_url`, or None while there is none."""
    import json
    for f in frames(chrome, sid):
        if want_url not in f.get("url", ""):
            continue
        world = chrome.send("Page.createIsolatedWorld", {"frameId": f["id"]}, sid)
        r = chrome.send("Runtime.evaluate", {"expression": STATE, "returnByValue": True,
                                             "contextId": world["executionContextId"]}, sid)
        value = r.get("result", {}).get("value")
        return json.loads(value) if value else None
    # An out-of-process frame is a session of its own.
    for s, info in list(chrome.sessions.items()):
        if info.get("type") == "iframe" and want_url in info.get("url", ""):
            r = chrome.send("Runtime.evaluate", {"expression": STATE, "returnByValue": True}, s)
            value = r.get("result", {}).get("value")
            return json.loads(value) if value else None
    return None


def open_tab(chrome, url):
    target = chrome.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    sid = chrome.session_of(target)
    chrome.send("Page.navigate", {"url": url}, sid)
    return target, sid


def wait_built(chrome, url, frame_url, what, timeout=30, style=True):
    """Opens `url` and waits until the frame holding `frame_url` shows the page as its
    scripts build it (and its stylesheet applied, with `style`); fails with what it last
    saw."""
    target, sid = open_tab(chrome, url)
    deadline = time.monotonic() + timeout
    seen = None
    try:
        while time.monotonic() < deadline:
            chrome.wait(0.5)
            try:
                seen = frame_state(chrome, sid, frame_url)
            except Failed as e:
                seen = str(e)
            if isinstance(seen, dict) and seen["out"] == MESSAGE and seen["items"] == 3 \
                    and (seen["colour"] == COLOUR or not style):
                applied = "applied" if seen["colour"] == COLOUR else "not applied"
                print(f"replay-browser: {what}: scripts ran, stylesheet {applied} ({seen['url']})")
                return seen
        raise Failed(f"{what}: the page as its scripts build it never showed; last seen: {seen}")
    finally:
        chrome.post("Target.closeTarget", {"targetId": target})


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


def static_server(root):
    """ReplayWeb.page's files over HTTP on a loopback port of their own (threaded: a
    single-threaded server stalls on Chromium's preconnects)."""
    handler = functools.partial(Quiet, directory=root)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True, help="the search application, http://HOST:PORT")
    ap.add_argument("--replay", required=True, help="the replay origin, http://HOST:PORT")
    ap.add_argument("--replaywebpage", required=True, help="ReplayWeb.page's package dir")
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    chrome = Chromium(a.work, "test-replay", [])
    try:
        frame_url = f"{a.replay}/web/{DATE}mp_/{PAGE}"
        seen = wait_built(chrome, f"{a.app}/web/{DATE}/{PAGE}", frame_url,
                          "the capture view (banner, frame from the replay origin)")
        if seen["href"] != "other.html":
            raise Failed(f"the page's relative link was rewritten: {seen['href']!r}")
        wait_built(chrome, f"{a.replay}/web/{DATE}mp_/{PAGE}", frame_url,
                   "the replay origin's mp_ opened as the top page")

        raw = visit(chrome, f"{a.app}/web/{DATE}/https://escape.example/",
                    os.path.join(a.work, "escape.png"), timeout=30, cap=10, after_load=5)
        if raw.get("error"):
            raise Failed(f"escape page: {raw['error']}")
        m = analyse(raw)
        left = m["leaving"]
        if left:
            raise Failed("requests left loopback from the escape page: " +
                         "; ".join(f"{r['url']} ({r.get('type')})" for r in left[:20]))
        blocked = sum(1 for f in m["failed"] if f["cause"] == "blocked")
        print(f"replay-browser: escape page: 0 requests left loopback "
              f"({m['requests']} requests, {blocked} blocked by the browser)")

        srv = static_server(a.replaywebpage)
        rwp = f"http://127.0.0.1:{srv.server_address[1]}"
        source = f"{a.app}/warcs/index.cdxj"
        # ReplayWeb.page has no fuzzy match of its own for a remote CDXJ: `site.css?v=7`
        # is not found there (the service-worker replay above finds it through ir_).
        wait_built(chrome, f"{rwp}/?source={source}#view=replay&url={PAGE}&ts={DATE}",
                   f"mp_/{PAGE}", "ReplayWeb.page fed from warcdex (no shim)", timeout=60,
                   style=False)
        srv.shutdown()
    except Failed as e:
        print(f"replay-browser: FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        chrome.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
