//! Rendered text: the words a browser crawler recorded after a page's scripts ran.
//! Browsertrix Crawler writes them as a `resource` record whose target is `urn:text:URL`
//! (`--text to-warc`) or `urn:textFinal:URL` (`--text final-to-warc`), ArchiveWeb.page
//! as `urn:text:DATE14/URL`. Such a record is its page's text, not a page: import joins
//! it to the page (src/import/rendered.rs), and its CDX line is under its page's access
//! rules ([`page_key_of`]), as are the other records a crawler writes about a page.

/// Where a version's text came from, richest last; the HTML's own text has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TextSource {
    /// The `text` of the page's line in the WACZ's `pages.jsonl`.
    Pages = 1,
    /// A `urn:text:` record: the text when the page had loaded.
    Text = 2,
    /// A `urn:textFinal:` record: the text after the crawler's behaviours ran.
    Final = 3,
}

impl TextSource {
    /// The name segment rows, `dumpindex` and the JSON hit give it.
    pub fn name(self) -> &'static str {
        match self {
            TextSource::Pages => "pages",
            TextSource::Text => "text",
            TextSource::Final => "final",
        }
    }

    /// The source of a byte as [`TextSource`]'s discriminant.
    pub fn from_byte(b: u8) -> Option<TextSource> {
        match b {
            1 => Some(TextSource::Pages),
            2 => Some(TextSource::Text),
            3 => Some(TextSource::Final),
            _ => None,
        }
    }
}

/// A record target naming rendered text: its source, the page's URL and, in
/// ArchiveWeb.page's form `urn:text:DATE14/URL`, the page's date.
#[derive(Debug, PartialEq, Eq)]
pub struct RenderedTarget<'a> {
    /// Which text it is.
    pub source: TextSource,
    /// The page's URL.
    pub url: &'a str,
    /// The page's 14-digit date, when the target gives one.
    pub date: Option<&'a str>,
}

/// The rendered text a record target names, if it names one.
pub fn rendered_target(target: &str) -> Option<RenderedTarget<'_>> {
    let (source, rest) = if let Some(r) = target.strip_prefix("urn:textFinal:") {
        (TextSource::Final, r)
    } else if let Some(r) = target.strip_prefix("urn:text:") {
        (TextSource::Text, r)
    } else {
        return None;
    };
    let dated = rest
        .split_once('/')
        .filter(|(d, _)| d.len() == 14 && d.bytes().all(|b| b.is_ascii_digit()));
    Some(match dated {
        Some((date, url)) => RenderedTarget {
            source,
            url,
            date: Some(date),
        },
        None => RenderedTarget {
            source,
            url: rest,
            date: None,
        },
    })
}

/// The SURT key of the page a browser crawler's record about a page stands for: its CDX
/// key is `urn:KIND:URL` or `urn:KIND:DATE14/URL` (`urn:text:`, `urn:textfinal:`,
/// Browsertrix's `urn:pageinfo:`, `urn:view:` screenshots, `urn:thumbnail:`; pywb keys them
/// as written, lowercased), and its access rules are the page's. `None` for the key of
/// anything else.
pub fn page_key_of(urlkey: &str) -> Option<String> {
    if !urlkey.get(..4)?.eq_ignore_ascii_case("urn:") {
        return None;
    }
    // The page's URL starts at its scheme, as wabac.js finds it (`indexOf("http")`).
    let lower = urlkey.to_ascii_lowercase();
    let at = lower.find("http://").or_else(|| lower.find("https://"))?;
    crate::surt_key(&urlkey[at..]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_of_rendered_text() {
        let t = rendered_target("urn:text:https://example.com/a?b").unwrap();
        assert_eq!(
            (t.source, t.url, t.date),
            (TextSource::Text, "https://example.com/a?b", None)
        );
        let f = rendered_target("urn:textFinal:http://example.com/").unwrap();
        assert_eq!(
            (f.source, f.url),
            (TextSource::Final, "http://example.com/")
        );
        let a = rendered_target("urn:text:20240102030405/https://example.com/").unwrap();
        assert_eq!(
            (a.url, a.date),
            ("https://example.com/", Some("20240102030405"))
        );
        assert!(rendered_target("urn:pageinfo:https://example.com/").is_none());
        assert!(rendered_target("https://example.com/urn:text:x").is_none());
        assert!(TextSource::Final > TextSource::Text && TextSource::Text > TextSource::Pages);
    }

    #[test]
    fn a_rendered_texts_key_stands_for_its_pages() {
        let page = |k| page_key_of(k);
        assert_eq!(
            page("urn:text:https://app.example.net/maps").as_deref(),
            Some("net,example,app)/maps")
        );
        assert_eq!(
            page("urn:textfinal:https://app.example.net").as_deref(),
            Some("net,example,app)/")
        );
        assert_eq!(
            page("urn:text:20240302090500/https://www.example.net/log").as_deref(),
            Some("net,example)/log")
        );
        assert_eq!(
            page("urn:pageinfo:https://app.example.net/maps").as_deref(),
            Some("net,example,app)/maps")
        );
        assert_eq!(page("net,example,app)/maps"), None);
        assert_eq!(page("urn:uuid:1234"), None);
    }
}
