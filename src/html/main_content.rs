//! A page's main content apart from its boilerplate (issue 19, item 7), in the same pass
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

use super::TextSink;

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
    value
        .split(|c: char| c.is_ascii_whitespace() || c == '-' || c == '_')
        .any(|word| {
            let w = word.as_bytes();
            CHROME_WORDS.iter().any(|c| {
                let c = c.as_bytes();
                w.len() >= c.len()
                    && (w[..c.len()].eq_ignore_ascii_case(c)
                        || w[w.len() - c.len()..].eq_ignore_ascii_case(c))
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

/// The main content being collected.
pub(super) struct MainContent {
    /// The main text so far.
    out: TextSink,
    /// The current block's text.
    block: TextSink,
    /// Bytes of the current block's text inside links.
    linked: usize,
    /// Elements of page chrome open around the current position.
    pub chrome_depth: u32,
    /// `<article>` and `<main>` elements open (their `<header>` and `<footer>` are
    /// content).
    pub article_depth: u32,
}

impl MainContent {
    pub fn new(limit: usize) -> Self {
        MainContent {
            out: TextSink::new(limit),
            block: TextSink::new(limit),
            linked: 0,
            chrome_depth: 0,
            article_depth: 0,
        }
    }

    /// Text outside page chrome; `in_link` when inside an `<a href>`.
    pub fn text(&mut self, s: &str, in_link: bool) {
        if self.chrome_depth > 0 || self.out.full {
            return;
        }
        let before = self.block.out.len();
        self.block.push(s);
        if in_link {
            self.linked += self.block.out.len() - before;
        }
    }

    /// A block boundary: the block ends and is kept unless it is a link list.
    pub fn boundary(&mut self) {
        let len = self.block.out.len();
        if len > 0 {
            let words = self.block.out.split(' ').count();
            let density = self.linked as f64 / len as f64;
            let link_list = density > 0.9 || (density > 0.5 && words < 15);
            if !link_list {
                self.out.boundary();
                self.out.push(&self.block.out);
                self.out.boundary();
            }
            self.block.out.clear();
            self.block.space = false;
        }
        self.linked = 0;
    }

    /// The main text of a page whose whole text is `text`.
    pub fn finish(mut self, text: &str) -> String {
        self.boundary();
        let main = self.out.finish();
        if main.is_empty() && text.split(' ').count() > TRUST_EMPTY_BELOW_WORDS {
            return text.to_string();
        }
        main
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
