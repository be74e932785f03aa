//! The page of a capture's indexed text (`/text/DATE14/URL`): what search matched for this
//! version, linked from the capture view's banner.

use crate::render::escape::escape;
use crate::render::layout::{Head, READING_CSS};
use crate::search::IndexedText;

use super::archival_url::{format, Mode};
use super::frame::display_date;

/// The page showing `t`, the text of the capture of `url` on `date`.
pub fn text_page(prefix: &str, url: &str, date: &str, t: &IndexedText) -> String {
    let title = match t.title.trim() {
        "" => url,
        s => s,
    };
    let head = Head {
        title: &format!("Indexed text · {title}"),
        css: &[
            READING_CSS,
            "pre{white-space:pre-wrap;word-wrap:break-word;font:inherit}.meta{color:#555}",
        ],
        extra: "",
    };
    let body = format!(
        concat!(
            "<p><a href=\"/\">Search</a> · <a href=\"{view}\">back to the capture</a></p>\n",
            "<h1>{title}</h1>\n<p class=meta>{url} · captured {date} · {mime} · {digest} · set {set}</p>\n",
            "<p class=meta>The text this version was indexed with, as extracted from the archived page.</p>\n",
            "<pre>{text}</pre>\n"
        ),
        title = escape(title),
        view = escape(&format(prefix, date, Mode::Frame, url)),
        url = escape(url),
        date = escape(&display_date(date)),
        mime = escape(&t.mime),
        digest = escape(&t.digest),
        set = escape(&t.set),
        text = escape(&t.text),
    );
    head.page(body.len() + 512, |out| out.push_str(&body))
}
