"""Headless Chromium over its DevTools pipe, with every target watched (tabs, frames,
workers, service workers), a page visit that waits for the page to settle, and what the
events of a visit say (requests by outcome, those that left loopback, JS errors, load time).
Standard library only: shared by scripts/eval_replay.py (the replay-fidelity harness) and
scripts/replay_browser.py (scripts/test-replay.sh)."""

import base64
import fcntl
import json
import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse

WIDTH, HEIGHT = 1280, 1800
IDLE = 0.5                   # network idle that ends the settle wait (s)
SKIP_SCHEMES = ("data", "blob", "about", "chrome", "chrome-extension", "devtools", "javascript")
NET_SCHEMES = ("http", "https", "ws", "wss", "ftp")
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


class Failed(Exception):
    pass


class Chromium:
    """Headless Chromium driven over its DevTools pipe (--remote-debugging-pipe: JSON
    messages ended by NUL on file descriptors 3 and 4; as scripts/test_pywb.py), with every
    target auto-attached (flatten): the tabs, their out-of-process iframes, workers,
    service workers and popups, so that their requests and errors are seen. While a page
    is measured, every event of every session is recorded."""

    def __init__(self, work, name, rules, extra_flags=()):
        self.work = work
        self.profile = tempfile.mkdtemp(dir=work, prefix=f"profile-{name}.")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def pipe_fds():
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 100)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 100)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.log = open(os.path.join(work, f"chromium-{name}.log"), "ab")
        # Nothing but loopback resolves: every other host name fails as unresolvable
        # (requests to it are still seen, so they count as leaving loopback).
        rules = list(rules) + ["MAP * ~NOTFOUND", "EXCLUDE 127.0.0.1", "EXCLUDE localhost"]
        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
             "--disable-default-apps", "--disable-extensions", "--disable-domain-reliability",
             "--disable-client-side-phishing-detection", "--mute-audio", "--hide-scrollbars",
             "--force-device-scale-factor=1", "--disable-auto-reload", f"--window-size={WIDTH},{HEIGHT}",
             f"--user-data-dir={self.profile}", "--host-resolver-rules=" + ", ".join(rules),
             *extra_flags, "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            pass_fds=(3, 4), preexec_fn=pipe_fds)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.next_id = 0
        self.replies = {}
        self.ignored = set()
        self.incoming = queue.Queue()
        self.sessions = {}            # sessionId -> targetInfo
        self.rec = None               # events while a page is measured: (time, msg)
        self.inflight = {}
        self.last_net = 0.0
        threading.Thread(target=self._read, daemon=True).start()
        self.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                           "flatten": True})

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = os.read(self.from_chrome, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self.incoming.put(None)
                return
            buf += chunk
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                self.incoming.put(json.loads(msg))

    def alive(self):
        return self.proc.poll() is None

    def _write(self, method, params, session):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        try:
            os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        except OSError as e:
            raise Failed(f"Chromium's pipe is closed ({e})")
        return self.next_id

    def post(self, method, params=None, session=None):
        """A command whose answer nobody waits for (errors ignored)."""
        self.ignored.add(self._write(method, params, session))

    def send(self, method, params=None, session=None, timeout=30):
        i = self._write(method, params, session)
        deadline = time.monotonic() + timeout
        while i not in self.replies:
            if not self.pump(deadline - time.monotonic()):
                if time.monotonic() >= deadline:
                    raise Failed(f"{method}: Chromium did not answer in {timeout} s")
        reply = self.replies.pop(i)
        if "error" in reply:
            raise Failed(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def pump(self, timeout):
        """Handles one message (False when none came within timeout)."""
        try:
            msg = self.incoming.get(timeout=max(timeout, 0.001))
        except queue.Empty:
            return False
        if msg is None:
            self.incoming.put(None)
            raise Failed("Chromium closed its DevTools pipe (crashed?)")
        if "id" in msg:
            if msg["id"] in self.ignored:
                self.ignored.discard(msg["id"])
            else:
                self.replies[msg["id"]] = msg
            return True
        self._event(msg)
        return True

    def _event(self, msg):
        method, p, sid = msg.get("method"), msg.get("params", {}), msg.get("sessionId")
        now = time.monotonic()
        if method == "Target.attachedToTarget":
            self._attached(p["sessionId"], p["targetInfo"], p.get("waitingForDebugger"))
        elif method == "Target.detachedFromTarget":
            self.sessions.pop(p.get("sessionId"), None)
        elif method == "Network.requestWillBeSent":
            if scheme_of(p["request"]["url"]) not in SKIP_SCHEMES:   # (a blob: load may never end)
                self.inflight[(sid, p["requestId"])] = p["request"]["url"]
                self.last_net = now
        elif method in ("Network.loadingFinished", "Network.loadingFailed"):
            self.inflight.pop((sid, p["requestId"]), None)
            self.last_net = now
        if self.rec is not None:
            if method == "Target.attachedToTarget":
                msg = dict(msg, params=dict(p))
            self.rec.append((now, msg))

    def _attached(self, sid, info, waiting):
        kind = info.get("type")
        if any(i.get("targetId") == info["targetId"] for i in self.sessions.values()):
            # Seen already through another parent (a service worker is offered by both
            # the browser and its page): keep one session.
            self.post("Runtime.runIfWaitingForDebugger", session=sid)
            self.post("Target.detachFromTarget", {"sessionId": sid})
            return
        self.sessions[sid] = info
        if kind in ("page", "iframe"):
            self.post("Network.enable", session=sid)
            self.post("Network.setCacheDisabled", {"cacheDisabled": True}, sid)
            self.post("Page.enable", session=sid)
            self.post("Runtime.enable", session=sid)
            self.post("Log.enable", session=sid)
            if kind == "page":
                self.post("Emulation.setDeviceMetricsOverride",
                          {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1,
                           "mobile": False}, sid)
            self.post("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                               "flatten": True}, sid)
        elif kind in ("worker", "service_worker", "shared_worker"):
            self.post("Network.enable", session=sid)
            self.post("Network.setCacheDisabled", {"cacheDisabled": True}, sid)
            self.post("Runtime.enable", session=sid)
            self.post("Log.enable", session=sid)
        self.post("Runtime.runIfWaitingForDebugger", session=sid)

    def session_of(self, target, timeout=10):
        deadline = time.monotonic() + timeout
        while True:
            for sid, info in self.sessions.items():
                if info.get("targetId") == target:
                    return sid
            if time.monotonic() > deadline:
                raise Failed("the new tab was not attached")
            self.pump(0.1)

    def wait(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.pump(end - time.monotonic())

    def close(self):
        try:
            if self.alive():
                self.send("Browser.close", timeout=10)
        except Failed:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


# The page's address and text; a replay that shows the page in a frame filling its window
# (warcdex's replay origin: `iframe#replay`, same origin) is read inside the frame.
TEXT = """JSON.stringify((() => {
  let d = document, w = window;
  for (let i = 0; i < 4; i++) {
    const f = d.querySelector('iframe#replay');
    if (!f || !f.contentDocument) break;
    d = f.contentDocument; w = f.contentWindow;
  }
  return [w.location.href, d.body ? d.body.innerText : ''];
})())"""


def visit(chrome, url, shot, timeout, cap, after_load=0.0):
    """Opens url in a new tab and waits for it to settle: its load event, then no request
    in flight for IDLE seconds (at most `cap` seconds after the first load event) and the
    main frame's URL unchanged for as long (a page that registers a service worker and
    reloads itself is measured after the reload). Then waits after_load seconds more,
    takes the text and the screenshot. Returns the raw record (events included)."""
    before = {i["targetId"] for i in chrome.sessions.values() if i.get("type") == "page"}
    target = chrome.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    sid = chrome.session_of(target)
    chrome.send("Runtime.evaluate", {"expression": "1"}, sid)   # the set-up is done
    chrome.rec = []
    chrome.inflight.clear()
    raw = {"error": None}
    t0 = time.monotonic()
    try:
        nav = chrome.send("Page.navigate", {"url": url}, sid, timeout=timeout)
        if nav.get("errorText"):
            raw["nav_error"] = nav["errorText"]
        deadline = t0 + timeout
        seen = 0
        first_load = last_change = None
        loading = True
        frames_loading = set()
        while True:
            chrome.pump(0.05)
            for t, m in chrome.rec[seen:]:
                if m.get("sessionId") != sid:
                    continue
                meth, p = m.get("method"), m.get("params", {})
                # Frames count too: a replay that shows the page in a frame sets the
                # frame's address once its service worker answers, after the top page
                # has loaded.
                if meth == "Page.frameStartedLoading":
                    frames_loading.add(p.get("frameId"))
                    last_change = t
                elif meth == "Page.frameStoppedLoading":
                    frames_loading.discard(p.get("frameId"))
                if meth == "Page.loadEventFired" or (
                        meth == "Page.frameStoppedLoading" and p.get("frameId") == target):
                    # (an error page stops loading without a load event)
                    first_load = first_load or t
                elif meth == "Page.frameNavigated":
                    last_change = t
                elif meth == "Page.navigatedWithinDocument" and p.get("frameId") == target:
                    last_change = t
                loading = bool(frames_loading) or first_load is None
            seen = len(chrome.rec)
            now = time.monotonic()
            if first_load is not None and not loading:
                quiet = now - max(chrome.last_net, last_change or 0, first_load)
                if (not chrome.inflight and quiet >= IDLE) or now - first_load >= cap:
                    raw["settle_capped"] = bool(chrome.inflight) or quiet < IDLE
                    raw["in_flight"] = sorted(set(chrome.inflight.values()))[:20]
                    break
            elif raw.get("nav_error") and now - t0 > 2 and not loading:
                break
            if now > deadline:
                raw["error"] = f"timeout: not settled in {timeout} s" + (
                    "" if first_load else " (no load event)")
                break
        if after_load:
            chrome.wait(after_load)
        raw["settle_ms"] = round((time.monotonic() - t0) * 1000)
        r = chrome.send("Runtime.evaluate", {
            "expression": TEXT,
            "returnByValue": True}, sid, timeout=20)
        raw["final_url"], raw["text"] = json.loads(r["result"]["value"])
        s = chrome.send("Page.captureScreenshot", {"format": "png"}, sid, timeout=30)
        with open(shot, "wb") as f:
            f.write(base64.b64decode(s["data"]))
        raw["shot"] = shot
    except Failed as e:
        raw["error"] = str(e)
    finally:
        events, chrome.rec = chrome.rec or [], None
        # This tab and any popup it opened.
        for i in list(chrome.sessions.values()):
            if i.get("type") == "page" and (i["targetId"] == target or i["targetId"] not in before):
                try:
                    chrome.post("Target.closeTarget", {"targetId": i["targetId"]})
                except Failed:
                    pass
    raw["events"] = events
    raw["main_session"] = sid
    raw["main_frame"] = target
    raw["t0"] = t0
    return raw


# ---------------------------------------------------------------------------------------
# What the events say

def host_of(url):
    try:
        return (urllib.parse.urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def scheme_of(url):
    return url.split(":", 1)[0].lower() if ":" in url else ""


URL_RE = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"()<>]+")


def normalise(msg):
    """An error message without its URLs, line and column numbers or stack: what is the
    same error on two servers."""
    m = (msg or "").split("\n")[0]
    m = URL_RE.sub("<url>", m)
    m = re.sub(r":\d+(:\d+)?", "", m)
    m = re.sub(r"\b(line|column|col)\s*\d+", r"\1", m, flags=re.I)
    return re.sub(r"\s+", " ", m).strip()


def analyse(raw, local_hosts=()):
    """Requests (failed by cause, leaving loopback), JS errors and load time of a visit."""
    loop = LOOPBACK | set(local_hosts)
    reqs = {}          # (session, requestId) -> the request's hops
    order = []
    errors = []
    loads, doc_start = [], None
    targets = set()
    sid = raw["main_session"]
    for _t, m in raw["events"]:
        meth, p, s = m.get("method"), m.get("params", {}), m.get("sessionId")
        if meth == "Target.attachedToTarget":
            targets.add(p["targetInfo"].get("type") + " " + p["targetInfo"].get("url", "")[:200])
        if meth == "Network.requestWillBeSent":
            key = (s, p["requestId"])
            hops = reqs.get(key)
            if hops is None:
                hops = reqs[key] = []
                order.append(key)
            elif p.get("redirectResponse"):
                hops[-1]["status"] = p["redirectResponse"].get("status")
            init = p.get("initiator", {})
            hops.append({"url": p["request"]["url"], "method": p["request"].get("method"),
                         "type": p.get("type"), "initiator": init.get("type"),
                         "initiator_url": init.get("url") or (
                             (init.get("stack") or {}).get("callFrames") or [{}])[0].get("url"),
                         "status": None, "error": None, "blocked": None})
            if (s == sid and p.get("type") == "Document" and doc_start is None
                    and p.get("frameId") == raw.get("main_frame")):
                doc_start = p.get("timestamp")
        elif meth == "Network.responseReceived":
            hops = reqs.get((s, p["requestId"]))
            if hops:
                hops[-1]["status"] = p["response"].get("status")
                hops[-1]["from_sw"] = p["response"].get("fromServiceWorker", False)
        elif meth == "Network.loadingFailed":
            hops = reqs.get((s, p["requestId"]))
            if hops:
                hops[-1]["error"] = p.get("errorText")
                hops[-1]["canceled"] = p.get("canceled", False)
                hops[-1]["blocked"] = p.get("blockedReason") or (
                    "cors:" + p["corsErrorStatus"]["corsError"] if p.get("corsErrorStatus") else None)
                hops[-1]["blocked_before_send"] = bool(p.get("blockedReason"))
        elif meth == "Network.webSocketCreated":
            key = (s, p["requestId"])
            init = p.get("initiator", {})
            reqs[key] = [{"url": p["url"], "method": "GET", "type": "WebSocket",
                          "initiator": init.get("type"), "initiator_url": init.get("url"),
                          "status": None, "error": None, "blocked": None}]
            order.append(key)
        elif meth == "Network.webSocketHandshakeResponseReceived":
            hops = reqs.get((s, p["requestId"]))
            if hops:
                hops[-1]["status"] = p["response"].get("status")
        elif meth == "Network.webSocketFrameError":
            hops = reqs.get((s, p["requestId"]))
            if hops:
                hops[-1]["error"] = p.get("errorMessage")
        elif meth == "Page.loadEventFired" and s == sid:
            loads.append(p.get("timestamp"))
        elif meth == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            text = (d.get("exception") or {}).get("description") or d.get("text") or ""
            if d.get("text") and d.get("text") not in text:
                text = d["text"] + " " + text
            errors.append({"kind": "exception", "message": text.split("\n")[0][:500],
                           "url": d.get("url")})
        elif meth == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            errors.append({"kind": "console", "message": text[:500]})
        elif meth == "Log.entryAdded":
            e = p["entry"]
            if e.get("level") == "error" and e.get("source") != "network":
                errors.append({"kind": "log-" + e.get("source", "?"), "message": e.get("text", "")[:500],
                               "url": e.get("url")})
    # Scripts and stylesheets refused for their MIME type (strict MIME checking): their
    # loads end as ERR_ABORTED, the console names them.
    refused = set()
    for e in errors:
        if "MIME type" in e["message"]:
            m = re.match(r"Refused to \w+ (?:style|script) from '([^']+)'", e["message"])
            if m:
                refused.add(m.group(1))
    requests, failed, leaving, stopped = [], [], [], []
    for key in order:
        for h in reqs[key]:
            sch = scheme_of(h["url"])
            if sch in SKIP_SCHEMES:
                continue
            requests.append(h)
            cause = None
            if h["status"] and h["status"] >= 400:
                cause = "http"        # (Chromium then aborts a script or stylesheet load)
            elif h["blocked"]:
                cause = "blocked"
            elif h["error"] and h["url"] in refused:
                cause, h["blocked"] = "blocked", "mime"
            elif h["error"] and (h.get("canceled") or h["error"] == "net::ERR_ABORTED"):
                cause = "aborted"     # the page went away, or a load Chromium dropped
            elif h["error"]:
                cause = "network"
            if cause:
                failed.append({"cause": cause, "url": h["url"], "status": h["status"],
                               "error": h["error"], "blocked": h["blocked"], "type": h["type"]})
            if sch in NET_SCHEMES and host_of(h["url"]) not in loop and h.get("blocked_before_send"):
                stopped.append({"url": h["url"], "type": h["type"], "blocked": h["blocked"]})
            elif sch in NET_SCHEMES and host_of(h["url"]) not in loop:
                leaving.append({"url": h["url"], "type": h["type"], "initiator": h["initiator"],
                                "initiator_url": h.get("initiator_url"),
                                "outcome": h["blocked"] or h["error"] or h["status"]})
    # Each failure once per URL and cause (a request a service worker forwards is seen
    # by both the page and the worker).
    uniq = {}
    for f in failed:
        uniq.setdefault((f["cause"], f["url"]), f)
    load_ms = None
    if doc_start and loads:
        load_ms = round((max(loads) - doc_start) * 1000)
    log_ = [{"url": h["url"], "type": h["type"], "initiator": h["initiator"], "status": h["status"],
             "error": h["error"], "blocked": h["blocked"]} for h in requests]
    return {"requests": len(requests), "request_log": log_, "failed": list(uniq.values()),
            "leaving": leaving, "outside_blocked": stopped, "targets": sorted(targets),
            "js_errors": errors, "load_ms": load_ms, "load_events": len(loads)}
