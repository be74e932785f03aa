//! The page of a capture's indexed text (`/text/DATE14/URL`): what search matched for this
//! version, linked from the capture view's banner.

use crate::render::escape::escape;
use crate::search::IndexedText;

use super::archival_url::{format, Mode};
use super::frame::display_date;

/// The page showing `t`, the text of the capture of `url` on `date`.
pub fn text_page(prefix: &str, url: &str, date: &str, t: &IndexedText) -> String {
    let title = match t.title.trim() {
        "" => url,
        s => s,
    };
    format!(
        concat!(
            "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>",
            "<title>Indexed text · {title}</title>",
            "<style>body{{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:1em auto;padding:0 1em}}",
            "pre{{white-space:pre-wrap;word-wrap:break-word;font:inherit}}.meta{{color:#555}}</style></head><body>\n",
            "<p><a href=\"/\">Search</a> · <a href=\"{view}\">back to the capture</a></p>\n",
            "<h1>{title}</h1>\n<p class=meta>{url} · captured {date} · {mime} · {digest} · set {set}</p>\n",
            "<p class=meta>The text this version was indexed with, as extracted from the archived page.</p>\n",
            "<pre>{text}</pre>\n</body></html>\n"
        ),
        title = escape(title),
        view = escape(&format(prefix, date, Mode::Frame, url)),
        url = escape(url),
        date = escape(&display_date(date)),
        mime = escape(&t.mime),
        digest = escape(&t.digest),
        set = escape(&t.set),
        text = escape(&t.text),
    )
}
