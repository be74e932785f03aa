//! The layout of the server's small pages (the capture view's banner, a capture's
//! indexed text, a URL's history and the diff of two versions): one `<head>` written in
//! one place, so that they share its markup and their reading column's style.
//!
//! The search page ([`super::page`]) keeps its own, larger head.

use super::escape::push_escaped;

/// The style of a page read as a column of text (the indexed text, history and diff
/// pages); each page adds its own rules after it.
pub const READING_CSS: &str =
    "body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:1em auto;padding:0 1em}";

/// What a page's `<head>` holds besides its `<meta charset=utf-8>`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Head<'a> {
    /// The title, as text (escaped here).
    pub title: &'a str,
    /// The style sheet's pieces, written one after the other in one `<style>`.
    pub css: &'a [&'a str],
    /// More head markup, as HTML, written before the title (a viewport `<meta>`).
    pub extra: &'a str,
}

impl Head<'_> {
    /// The page: this head, then `body` writes the body's HTML into the string (it ends
    /// its last line itself), then the end of the document. `capacity` is a first size
    /// of the string.
    pub fn page(&self, capacity: usize, body: impl FnOnce(&mut String)) -> String {
        let mut out = String::with_capacity(capacity);
        out.push_str("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>");
        out.push_str(self.extra);
        out.push_str("<title>");
        push_escaped(&mut out, self.title);
        out.push_str("</title><style>");
        for piece in self.css {
            out.push_str(piece);
        }
        out.push_str("</style></head><body>\n");
        body(&mut out);
        out.push_str("</body></html>\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_then_body_then_end() {
        let head = Head {
            title: "a <b> & c",
            css: &[READING_CSS, "p{margin:0}"],
            extra: "<meta name=x>",
        };
        let page = head.page(0, |out| out.push_str("<p>hi</p>\n"));
        assert_eq!(
            page,
            concat!(
                "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><meta name=x>",
                "<title>a &lt;b&gt; &amp; c</title><style>",
                "body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:1em auto;padding:0 1em}",
                "p{margin:0}</style></head><body>\n<p>hi</p>\n</body></html>\n"
            )
        );
    }
}
