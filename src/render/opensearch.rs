//! RSS 2.0 with the OpenSearch and NutchWAX elements of NutchWAX's OpenSearch servlet
//! (docs/formats.md §4.11): one `<item>` per hit, one `<nutch:date>` per capture date.

use std::fmt::Write as _;

use super::escape::{is_web_url, push_escaped};
use crate::search::SearchResults;

/// The OpenSearch 1.0 RSS namespace, as NutchWAX declared it.
pub const OPENSEARCH_NS: &str = "http://a9.com/-/spec/opensearchrss/1.0/";
/// Nutch's namespace for its own elements.
pub const NUTCH_NS: &str = "http://www.nutch.org/opensearchrss/1.0/";

fn element(out: &mut String, name: &str, value: &str) {
    out.push('<');
    out.push_str(name);
    out.push('>');
    push_escaped(out, value);
    out.push_str("</");
    out.push_str(name);
    out.push('>');
}

/// The RSS document for `r`; `params` are the request's parameters, echoed in
/// `<nutch:urlParams>`.
pub fn rss(r: &SearchResults, params: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(1024 + r.hits.len() * 1024);
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = write!(
        out,
        "<rss version=\"2.0\" xmlns:opensearch=\"{OPENSEARCH_NS}\" xmlns:nutch=\"{NUTCH_NS}\">\n<channel>\n"
    );
    element(&mut out, "title", &format!("Nutch: {}", r.query));
    let mut description = format!("Nutch search results for query: {}", r.query);
    if !r.unavailable.is_empty() {
        // A partial answer says so where every RSS reader shows it.
        let _ = write!(
            description,
            " (partial: no answer from {})",
            r.unavailable.join("; ")
        );
    }
    if let Some(x) = r.relaxed {
        // No page held every word: the reader is told what the hits hold instead.
        let _ = write!(description, " (showing {})", x.message());
    }
    if let Some(q) = &r.suggestion {
        let _ = write!(description, " (no page holds every word: showing {q})");
    }
    element(&mut out, "description", &description);
    out.push_str("<link/>\n");
    // NutchWAX's count, as its clients read it: the versions matched until the page
    // reaches the end of the hits, then the number of hits (docs/api.md).
    element(
        &mut out,
        "opensearch:totalResults",
        &r.total_results().to_string(),
    );
    element(&mut out, "opensearch:startIndex", &r.start.to_string());
    element(
        &mut out,
        "opensearch:itemsPerPage",
        &r.hits_per_page.to_string(),
    );
    out.push('\n');
    element(&mut out, "nutch:query", &r.query);
    element(
        &mut out,
        "nutch:responseTime",
        &format!("{:.3}", r.response_time),
    );
    out.push_str("\n<nutch:urlParams>");
    for (name, value) in params {
        out.push_str("<nutch:param name=\"");
        push_escaped(&mut out, name);
        out.push_str("\" value=\"");
        push_escaped(&mut out, value);
        out.push_str("\"/>");
    }
    out.push_str("</nutch:urlParams>\n");
    for h in &r.hits {
        out.push_str("<item>");
        element(&mut out, "nutch:score", &h.score.to_string());
        element(&mut out, "title", h.display_title());
        if !h.snippet.text.is_empty() {
            element(&mut out, "description", &h.snippet.text);
        }
        // The capture, never the live web: the newest capture's replay link, when the
        // server has a replay target (and the URL is an http(s) one: a `javascript:` or
        // `data:` capture has none).
        if let Some(link) = h.replay.last().filter(|_| is_web_url(&h.url)) {
            element(&mut out, "link", link);
        }
        element(&mut out, "nutch:site", &h.site);
        element(&mut out, "nutch:digest", &h.digest);
        element(&mut out, "nutch:collection", &h.collection);
        for d in &h.dates {
            element(&mut out, "nutch:date", d);
        }
        element(&mut out, "nutch:type", &h.mime);
        element(&mut out, "nutch:length", &h.length.to_string());
        if !h.filename.is_empty() {
            element(&mut out, "nutch:arcname", &h.filename);
            element(&mut out, "nutch:arcoffset", &h.offset.to_string());
        }
        element(&mut out, "nutch:set", &h.set);
        out.push_str("</item>\n");
    }
    out.push_str("</channel>\n</rss>\n");
    out
}
