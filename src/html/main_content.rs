//! A page's main content apart from its boilerplate, in the same pass
//! as the text, with two rules from the literature on boilerplate removal:
//! - **Page chrome by markup**: text inside `<nav>`, `<aside>`, `<menu>`, a `<header>` or
//!   `<footer>` that is not part of an `<article>` or `<main>`, an element whose ARIA
//!   role is navigation, banner, contentinfo, complementary, menu or menubar, or a
//!   container (`div`, `section`, `ul`, `ol`, `table`, `td`, `form`) whose role is one
//!   of those or whose class or id has a word that starts or ends with `nav`, `menu`,
//!   `footer`, `header`, `sidebar`, `breadcrumb`, `cookie`, `banner`, `toolbar` or
//!   `skip` (`navheader`, `site-footer`, `main-menu`, Readability's list cut down to
//!   words that name chrome).
//! - **Link density** (boilerpipe, Kohlschütter et al. 2010): a text block (between two
//!   block boundaries) most of whose text is link text is a link list: more than 90 %,
//!   or more than half in a block of fewer than 15 words.
//!
//! The rest is the main content. A page whose main content comes out empty although it
//! has over 100 words of text (a layout the rules misread: everything in one
//! `<div id="header-wrap">`) is taken as all content, so the rules never hide a page.

/// Words that name page chrome in a class or id.
const CHROME_WORDS: [&str; 10] = [
    "nav",
    "menu",
    "footer",
    "header",
    "sidebar",
    "breadcrumb",
    "cookie",
    "banner",
    "toolbar",
    "skip",
];

/// ARIA roles of page chrome.
const CHROME_ROLES: [&str; 6] = [
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "menu",
    "menubar",
];

/// Whether a class or id attribute value names page chrome: a word of it (split at
/// white space, `-` and `_`) starts or ends with a chrome word, compared without case
/// and without allocating (this runs on every element with a class or id).
pub(super) fn names_chrome(value: &str) -> bool {
    // Split as bytes: the separators are ASCII, and splitting char by char was a third of
    // what this function cost (perf on scripts/bench-import.sh). A word is compared
    // only with the chrome words that start with its first letter or end with its last
    // (most class names share neither with any of them).
    value
        .as_bytes()
        .split(|&c| c.is_ascii_whitespace() || c == b'-' || c == b'_')
        .any(|w| {
            let (Some(first), Some(last)) = (w.first(), w.last()) else {
                return false;
            };
            let (first, last) = (first.to_ascii_lowercase(), last.to_ascii_lowercase());
            CHROME_WORDS.iter().any(|c| {
                let c = c.as_bytes();
                w.len() >= c.len()
                    && ((c[0] == first && w[..c.len()].eq_ignore_ascii_case(c))
                        || (c[c.len() - 1] == last
                            && w[w.len() - c.len()..].eq_ignore_ascii_case(c)))
            })
        })
}

/// Whether an ARIA role names page chrome.
pub(super) fn role_is_chrome(role: &str) -> bool {
    role.split_ascii_whitespace()
        .any(|r| CHROME_ROLES.iter().any(|c| r.eq_ignore_ascii_case(c)))
}

/// Words of text a page needs before an empty main content is distrusted.
const TRUST_EMPTY_BELOW_WORDS: usize = 100;

/// The main content being collected. It is not a second copy of the text being
/// normalized: it records which byte ranges of the page text (`TextSink::out`, already
/// collapsed to single spaces) fall outside page chrome, and copies a block's ranges
/// when the block ends and is not a link list. Normalizing every text node twice was
/// 4 % of an import (scripts/bench-import.sh, perf).
pub(super) struct MainContent {
    /// The main text so far.
    out: String,
    /// The current block's ranges of the page text outside chrome, in order.
    ranges: Vec<(usize, usize)>,
    /// Bytes of the current block's text inside links.
    linked: usize,
    /// Elements of page chrome open around the current position.
    pub chrome_depth: u32,
    /// `<article>` and `<main>` elements open (their `<header>` and `<footer>` are
    /// content).
    pub article_depth: u32,
}

impl MainContent {
    pub fn new() -> Self {
        MainContent {
            out: String::new(),
            ranges: Vec::new(),
            linked: 0,
            chrome_depth: 0,
            article_depth: 0,
        }
    }

    /// The page text `text` grew from `before` bytes by the text of one node; `in_link`
    /// when inside an `<a href>`.
    pub fn text(&mut self, text: &str, before: usize, in_link: bool) {
        let after = text.len();
        if self.chrome_depth > 0 || after == before {
            return;
        }
        // The separator in front of a block's first word is not the block's.
        let lead = usize::from(self.ranges.is_empty() && text.as_bytes()[before] == b' ');
        match self.ranges.last_mut() {
            Some(last) if last.1 == before => last.1 = after,
            _ => self.ranges.push((before + lead, after)),
        }
        if in_link {
            self.linked += after - before - lead;
        }
    }

    /// A block boundary in the page text `text`: the block ends and is kept unless it
    /// is a link list.
    pub fn boundary(&mut self, text: &str) {
        if !self.ranges.is_empty() {
            let len: usize = self.ranges.iter().map(|(a, b)| b - a).sum();
            let spaces: usize = self
                .ranges
                .iter()
                .map(|&(a, b)| memchr::memchr_iter(b' ', &text.as_bytes()[a..b]).count())
                .sum();
            let words = spaces + 1;
            let density = self.linked as f64 / len as f64;
            let link_list = density > 0.9 || (density > 0.5 && words < 15);
            if !link_list && len > 0 {
                if !self.out.is_empty() {
                    self.out.push(' ');
                }
                // A later range (of a block that chrome interrupts) starts with its
                // separator.
                for &(a, b) in &self.ranges {
                    self.out.push_str(&text[a..b]);
                }
            }
            self.ranges.clear();
        }
        self.linked = 0;
    }

    /// The main text of a page whose whole text (before its trailing spaces are
    /// trimmed) is `text`.
    pub fn finish(mut self, text: &str) -> String {
        self.boundary(text);
        let text = text.trim_end_matches(' ');
        let words = memchr::memchr_iter(b' ', text.as_bytes()).count() + 1;
        if self.out.is_empty() && words > TRUST_EMPTY_BELOW_WORDS {
            return text.to_string();
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn main_of(html: &str) -> String {
        super::super::parse_html_main(html.as_bytes(), None, "http://example.org/", 100_000)
            .1
            .main
    }

    #[test]
    fn navigation_headers_footers_and_link_lists_are_not_main() {
        // A page as the bench's PostgreSQL documentation has them.
        let pg = r#"<div class="navheader"><table><tr><th colspan="3">ANALYZE</th></tr>
            <tr><td><a href="p.html">Prev</a></td><th>SQL Commands</th>
            <td><a href="n.html">Next</a></td></tr></table></div>
            <div class="refentry"><h2>Name</h2><p>ANALYZE — collect statistics about a
            database</p></div><div class="navfooter"><a href="h.html">Home</a></div>"#;
        assert_eq!(
            main_of(pg),
            "Name ANALYZE — collect statistics about a database"
        );
        let html5 = r#"<header>Site name</header><nav><a href="/">Home</a></nav>
            <article><header><h1>Title</h1></header><p>Body text.</p>
            <footer>By the author</footer></article><aside>Related</aside>
            <div role="contentinfo">© 2024</div><footer>Site footer</footer>"#;
        assert_eq!(main_of(html5), "Title Body text. By the author");
        // A block that is mostly links is a link list; a paragraph with a link is not.
        let links = r#"<p>Read the <a href="/a">first chapter</a> of the long book that
            tells the story in many words.</p><div><a href="/1">One</a> |
            <a href="/2">Two</a> | <a href="/3">Three</a></div>"#;
        assert_eq!(
            main_of(links),
            "Read the first chapter of the long book that tells the story in many words."
        );
        // Everything misread as chrome on a page with much text: taken as content.
        let words = "word ".repeat(150);
        let wrapped = format!("<div id=\"header-wrap\"><p>{words}</p></div>");
        assert_eq!(main_of(&wrapped), words.trim());
        assert_eq!(main_of("<nav>Home</nav>"), "");
    }

    #[test]
    fn chrome_names() {
        for v in [
            "navheader",
            "site-footer",
            "main-menu",
            "sidebar left",
            "nav_bar",
        ] {
            assert!(names_chrome(v), "{v}");
        }
        assert!(!names_chrome("content"));
        assert!(!names_chrome("article-body"));
        assert!(!names_chrome("canvas"));
        assert!(!names_chrome("unavailable"));
        assert!(role_is_chrome("navigation"));
        assert!(!role_is_chrome("main"));
    }
}
