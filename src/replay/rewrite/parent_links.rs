//! What `ir_` changes in an archived page for wabac.js, and only that: a link up the
//! directory tree (`<a href="../x.html">`) written with backslashes (`..\x.html`).
//!
//! wabac.js keeps a page's relative links as written except those holding `../`, which it
//! makes absolute replay addresses (`http://replay-origin/web/DATEmp_/https://site/x.html`).
//! A page whose style or script inspects its links then sees every one as external —
//! javadoc's stylesheet marks each `a[href*="://"]` with an icon, so every index page of
//! an API's documentation replayed with a column of them the original never had. A
//! browser reads `\` as `/` in an http(s) URL, so `..\x.html` reaches the same capture
//! (under the replay address, as `../x.html` reaches the original), and wabac.js leaves
//! it relative: the link's text stays without `://`, as the original's was.

use std::io::{self, Read};

use encoding_rs::Encoding;
use lol_html::element;

use super::html::{base_settings, stream};

/// `href` as `ir_` sends it: its leading `../` steps written `..\`; `None` when it has none.
pub fn kept_relative(href: &str) -> Option<String> {
    let steps = href
        .as_bytes()
        .chunks(3)
        .take_while(|c| *c == b"../")
        .count();
    (steps > 0).then(|| format!("{}{}", "..\\".repeat(steps), &href[steps * 3..]))
}

/// Streams the page `input` (in `encoding`) to `sink` with its links up the tree (`a` and
/// `area` `href`s starting with `../`) kept relative for wabac.js.
pub fn keep_parent_links(
    input: &mut dyn Read,
    encoding: &'static Encoding,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let settings = base_settings(encoding).append_element_content_handler(element!(
        "a[href^='../'], area[href^='../']",
        |el| {
            if let Some(new) = el.get_attribute("href").as_deref().and_then(kept_relative) {
                let _ = el.set_attribute("href", &new);
            }
            Ok(())
        }
    ));
    stream(settings, input, sink)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_up_the_tree_are_written_with_backslashes_and_nothing_else_changes() {
        assert_eq!(kept_relative("../x.html").as_deref(), Some("..\\x.html"));
        assert_eq!(
            kept_relative("../../java.base/a/B.html#m()").as_deref(),
            Some("..\\..\\java.base/a/B.html#m()")
        );
        for kept in [
            "x.html",
            "./x.html",
            "/x.html",
            "https://a.org/../x",
            "..x",
            "..",
        ] {
            assert_eq!(kept_relative(kept), None, "{kept}");
        }
        let page = concat!(
            "<html><head><link rel=stylesheet href=\"../s.css\"></head><body>",
            "<a href=\"../../java.base/x.html\">x</a> <a href='y.html'>y</a>",
            "<map><area href=\"../z.html\"></map><img src=\"../i.png\">",
            "<script>var a = '<a href=\"../q.html\">';</script></body></html>"
        );
        let mut out = Vec::new();
        keep_parent_links(&mut page.as_bytes(), encoding_rs::UTF_8, &mut |b| {
            out.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            page.replace("\"../../java.base/x.html\"", "\"..\\..\\java.base/x.html\"")
                .replace("\"../z.html\"", "\"..\\z.html\"")
        );
    }

    #[test]
    fn a_backslashed_link_reaches_the_same_url() {
        let base =
            url::Url::parse("https://docs.example.org/api/index-files/index-1.html").unwrap();
        for href in ["../x.html", "../../y/z.html?q=1#f"] {
            let kept = kept_relative(href).unwrap();
            assert_eq!(
                base.join(&kept).unwrap(),
                base.join(href).unwrap(),
                "{kept}"
            );
        }
    }
}
