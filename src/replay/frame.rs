//! The capture view's top page: a banner (the URL, the capture's date, how many captures
//! the URL has with the first, previous, next and last of them, the original payload, the
//! TimeMap, and what this view cannot do) above the archived page in a frame (`mp_`).
//! The banner is this server's own HTML, kept apart from the archived page's styles and
//! markup by the frame.

use super::archival_url::{format, Mode};
use super::capture::{Capture, Nearest};
use crate::render::escape::escape;
use crate::render::layout::Head;

/// Where the banner sends a reader who needs scripts replayed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum HighFidelity {
    /// No high-fidelity replay configured: the banner says how to set one up.
    #[default]
    None,
    /// A pywb collection (`serve --replay pywb=URL`): `URL/DATE14/URL`.
    Pywb(String),
    /// Scripts run in the frame itself: the capture is replayed by wabac.js's service
    /// worker on this replay origin (`http://host:port`), the banner links to the view
    /// without scripts.
    Scripts(String),
}

impl HighFidelity {
    /// The replay origin the frame loads from (`""`: this server's own).
    pub fn frame_origin(&self) -> &str {
        match self {
            HighFidelity::Scripts(origin) => origin,
            _ => "",
        }
    }
}

/// The banner's style: a bar above a frame that fills the window.
const BANNER_CSS: &str = concat!(
    "html,body{margin:0;height:100%}body{display:flex;flex-direction:column;font:14px/1.4 system-ui,sans-serif}",
    "header{background:#f3f1ea;border-bottom:1px solid #bbb;padding:6px 10px}",
    "header .url{font-weight:bold;word-break:break-all}header a{color:#1a4f8b}",
    ".off{color:#999}.note{color:#555}nav a,nav span{margin-right:.8em}",
    "iframe{flex:1;border:0;width:100%}",
);

/// What a frame running an archived page's scripts may do: scripts and forms inside its
/// own origin, windows that stay sandboxed; never navigate the page around it.
pub const SCRIPT_FRAME_SANDBOX: &str =
    "allow-scripts allow-same-origin allow-forms allow-popups allow-modals allow-downloads";

/// `2024-01-15 03:00:00 UTC`.
pub fn display_date(d: &str) -> String {
    format!("{} UTC", crate::render::page::human_date(d))
}

/// The top page of the capture view of `n.capture` (which must be set), asked for as
/// `url`.
pub fn frame_page(prefix: &str, url: &str, n: &Nearest, hifi: &HighFidelity) -> String {
    let c = n.capture.as_ref().expect("a capture to show");
    let date = &c.timestamp;
    let view = |c: &Capture| format(prefix, &c.timestamp, Mode::Frame, url);
    let nav = |label: &str, c: Option<&Capture>| match c {
        Some(c) if c.timestamp != *date => format!(
            "<a href=\"{}\" title=\"{}\">{}</a>",
            escape(&view(c)),
            escape(&display_date(&c.timestamp)),
            escape(label)
        ),
        _ => format!("<span class=off>{}</span>", escape(label)),
    };
    let hifi_note = match hifi {
        HighFidelity::Pywb(base) => format!(
            " <a href=\"{}\" target=\"_top\">Open it in pywb</a>, which replays scripts.",
            escape(&format!("{}/{date}/{url}", base.trim_end_matches('/')))
        ),
        HighFidelity::None => " pywb replays them: <code>warcdex pywb-config</code>.".to_string(),
        HighFidelity::Scripts(_) => String::new(),
    };
    let scripts_note = match hifi {
        HighFidelity::Scripts(_) => format!(
            "The page's own scripts run here, on an origin of their own, answered only from the archive. <a href=\"{}\" target=\"_top\">Open it without scripts</a>.",
            escape(&format(prefix, date, Mode::Page, url))
        ),
        _ => format!("Scripts do not run in this view, so pages built by scripts may be incomplete.{hifi_note}"),
    };
    let revisit = match c.is_revisit() {
        true => {
            " <span class=note>(unchanged since an earlier capture: its content is shown)</span>"
        }
        false => "",
    };
    let date_text = display_date(date);
    let head = Head {
        title: &format!("{url} · {date_text}"),
        css: &[BANNER_CSS],
        extra: "<meta name=viewport content=\"width=device-width, initial-scale=1\">",
    };
    let body = format!(
        concat!(
            "<header><div><a href=\"/\">Search</a> · <span class=url>{url}</span>{revisit}</div>\n",
            "<nav>Captured <time datetime=\"{iso}\">{date_text}</time>, one of {more}{count} capture{s}: ",
            "{first}{prev}{next}{last}",
            "<a href=\"{text}\" target=\"_top\">indexed text</a>",
            "<a href=\"{id}\" target=\"_top\">original file</a>",
            "<a href=\"{timemap}\" target=\"_top\">all captures (TimeMap)</a></nav>\n",
            "<div class=note>{scripts_note}</div>",
            "</header>\n<iframe src=\"{page}\" title=\"The archived page\"{sandbox}></iframe>\n"
        ),
        url = escape(url),
        revisit = revisit,
        date_text = escape(&date_text),
        iso = escape(&crate::replay::memento::iso_date(date)),
        more = if n.more { "more than " } else { "" },
        count = n.count,
        s = if n.count == 1 && !n.more { "" } else { "s" },
        first = nav("« first", n.first.as_ref()),
        prev = nav("‹ previous", n.previous.as_ref()),
        next = nav("next ›", n.next.as_ref()),
        last = nav("last »", n.last.as_ref()),
        text = escape(&format!("/text/{date}/{url}")),
        id = escape(&format(prefix, date, Mode::Identity, url)),
        timemap = escape(&format!("/timemap/link/{url}")),
        scripts_note = scripts_note,
        sandbox = match hifi {
            HighFidelity::Scripts(_) => format!(" sandbox=\"{}\"", SCRIPT_FRAME_SANDBOX),
            _ => String::new(),
        },
        page = escape(&format!(
            "{}{}",
            hifi.frame_origin(),
            format(prefix, date, Mode::Page, url)
        )),
    );
    head.page(body.len() + 1024, |out| out.push_str(&body))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::replay::capture::test_capture as cap;

    #[test]
    fn banner_links_and_escapes() {
        let url = "http://example.org/?a=1&b=\"<x>\"";
        let n = Nearest {
            capture: Some(cap("20070105000000")),
            previous: Some(cap("20070101000000")),
            next: None,
            first: Some(cap("20070101000000")),
            last: Some(cap("20070105000000")),
            count: 2,
            more: false,
        };
        let page = frame_page("/web", url, &n, &HighFidelity::None);
        assert!(page.contains("<iframe src=\"/web/20070105000000mp_/http://example.org/?a=1&amp;b=&quot;&lt;x&gt;&quot;\""));
        assert!(page.contains("href=\"/web/20070101000000/http://example.org/?a=1&amp;b=&quot;&lt;x&gt;&quot;\" title=\"2007-01-01 00:00:00 UTC\">‹ previous</a>"));
        assert!(page.contains("<span class=off>next ›</span>"));
        assert!(page.contains("one of 2 captures"));
        assert!(!page.contains("<x>"));
        let p = frame_page(
            "/web",
            "http://example.org/",
            &n,
            &HighFidelity::Pywb("http://127.0.0.1:8081/coll/".into()),
        );
        assert!(
            p.contains("href=\"http://127.0.0.1:8081/coll/20070105000000/http://example.org/\"")
        );
    }
}
