// The replay origin's start page (src/serve/replay_origin.rs): installs wabac.js's
// service worker, gives it the collection (every request answered by this server's
// `ir_`, nothing from the live web), then loads the capture through it. Served as a
// file so that the page's policy allows no inline script; run deferred, so the frame
// exists.
(() => {
  const me = document.currentScript;
  const { ts, url, frame, safe } = me.dataset;
  const page = `/web/${ts}mp_/${url}`;
  const fallback = () => location.replace(safe);
  // The collection as the worker is told of it; VERSION changes with it, so that a
  // browser holding an older one has it replaced.
  const VERSION = "1";
  const KEY = "warcdex-replay-collection";
  const collection = (replace) => ({
    msg_type: "addColl",
    name: "web",
    type: "live",
    file: { sourceUrl: "proxy:" },
    skipExisting: !replace,
    extraConfig: {
      prefix: "",
      isLive: false,
      archivePrefix: "/web/",
      archiveMod: "ir_",
      noPostToGet: true,
      // wabac's default policy with no WebSocket to any host but this one (its
      // default allows ws: and wss: anywhere; wombat's stand-in is then all there is).
      csp:
        "default-src 'unsafe-eval' 'unsafe-inline' 'self' data: blob: mediastream:; " +
        "form-action 'self'; object-src 'none'; frame-src 'self' data: about: blob:",
    },
  });
  const show = () => {
    if (frame) {
      document.getElementById("replay").src = page + location.hash;
    } else if (window.top === window) {
      // The replayed page, opened as the top page, would send itself to its frame
      // page (wabac's top-frame check): go there at once rather than load it twice.
      location.replace(`/web/${ts}/${url}` + location.hash);
    } else {
      sessionStorage.setItem(tried, String(Date.now()));
      location.reload();
    }
  };
  if (frame) {
    // The replayed page says where it is (wombat's messages): the address and title
    // of this frame page follow it.
    window.addEventListener("message", (e) => {
      const d = e.data || {};
      if (e.origin !== location.origin) return;
      if (d.wb_type !== "load" && d.wb_type !== "replace-url") return;
      if (d.title) document.title = d.title;
      if (d.url && d.ts) history.replaceState(null, "", `/web/${d.ts}/${d.url}`);
    });
  }
  if (!("serviceWorker" in navigator)) {
    fallback();
    return;
  }
  // A reload that came back here means the worker does not answer: no loop.
  const tried = `warcdex-start:${ts}/${url}`;
  const at = Number(sessionStorage.getItem(tried) || 0);
  sessionStorage.removeItem(tried);
  if (!frame && Date.now() - at < 10000) {
    fallback();
    return;
  }
  const known = localStorage.getItem(KEY) === VERSION;
  if (frame && known && navigator.serviceWorker.controller) {
    // The worker answers this page and has the collection: the frame at once.
    navigator.serviceWorker.controller.postMessage(collection(false));
    show();
    return;
  }
  (async () => {
    await navigator.serviceWorker.register("/sw.js?replayPrefix=", { scope: "/" });
    const worker = (await navigator.serviceWorker.ready).active;
    const added = new Promise((resolve) => {
      navigator.serviceWorker.addEventListener("message", (e) => {
        if (e.data && e.data.msg_type === "collAdded") resolve();
      });
      navigator.serviceWorker.startMessages();
      setTimeout(resolve, 5000);
    });
    worker.postMessage(collection(!known));
    await added;
    localStorage.setItem(KEY, VERSION);
    show();
  })().catch(fallback);
})();
