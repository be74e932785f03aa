//! The search page: plain HTML and CSS, no script, so it works in any browser and
//! without JavaScript. Every value from the index or the request is escaped.

use std::fmt::Write as _;

use super::escape::{escape, is_web_url, push_escaped, snippet_html, url_encode};
use crate::search::{Hit, SearchResults};

/// What the page was asked for (echoed in the form and the links).
#[derive(Debug, Clone, Default)]
pub struct PageRequest {
    /// The query, if any.
    pub query: Option<String>,
    /// The first hit.
    pub start: usize,
    /// Hits per page.
    pub hits: usize,
    /// Hits per site (0: no limit).
    pub hits_per_site: usize,
    /// Near-identical pages of other URLs folded into one hit (`collapse=near`).
    pub collapse_near: bool,
    /// Every version its own hit (`nearDups=show`): kept in the links, so that the next
    /// page continues the same list.
    pub show_versions: bool,
    /// `asOf=`: the collection as it stood at the end of that date.
    pub as_of: Option<String>,
    /// `sort=`: `relevance`, `date` or `-date`.
    pub order: crate::search::HitOrder,
    /// `strict=1`: only pages with every word, no fallback (kept in the links).
    pub strict: bool,
}

const STYLE: &str = r#"
:root { --fg:#1d1d1f; --muted:#5f6368; --link:#1a4fa0; --green:#1e6b34; --line:#e3e3e3; }
* { box-sizing: border-box; }
body { margin:0; font:16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:#fff; }
header { padding:18px 24px 10px; border-bottom:1px solid var(--line); background:#fafafa; }
form { display:flex; gap:10px; align-items:center; flex-wrap:wrap; }
.brand { font-weight:700; font-size:22px; color:var(--fg); text-decoration:none; margin-right:8px; }
input[type=search] { flex:1 1 420px; max-width:640px; font-size:16px; padding:8px 12px; border:1px solid #bbb; border-radius:6px; }
button { font-size:16px; padding:8px 18px; border:1px solid #1a4fa0; background:#1a4fa0; color:#fff; border-radius:6px; cursor:pointer; }
.help { margin:6px 0 0; color:var(--muted); font-size:13px; }
.help code { background:#eee; padding:0 3px; border-radius:3px; }
main { padding:8px 24px 24px; max-width:860px; }
.summary { color:var(--muted); font-size:14px; }
.error { color:#a50e0e; background:#fce8e6; padding:10px 14px; border-radius:6px; }
ol.hits { list-style:none; padding:0; margin:0; }
li.hit { margin:0 0 22px; }
li.hit h2 { font-size:19px; font-weight:500; margin:0; }
li.hit h2 a { color:var(--link); text-decoration:none; }
li.hit h2 a:hover { text-decoration:underline; }
.url { color:var(--green); font-size:14px; word-break:break-all; }
.snippet { margin:4px 0; }
.snippet b { background:#fff3b0; font-weight:600; }
.meta { color:var(--muted); font-size:13px; }
.meta a { color:var(--link); }
ul.dates { list-style:none; padding:0; margin:4px 0 0; display:flex; flex-wrap:wrap; gap:4px 6px; font-size:13px; }
ul.dates li { border:1px solid var(--line); border-radius:4px; padding:1px 6px; }
ul.dates a { color:var(--link); text-decoration:none; }
.timeline { font-size:13px; margin:4px 0 0; color:var(--muted); }
.timeline a { color:var(--link); text-decoration:none; }
ul.years { list-style:none; padding:0; margin:2px 0 0; }
nav.pages { display:flex; gap:16px; margin-top:12px; }
nav.pages a { color:var(--link); }
.facets { display:flex; flex-wrap:wrap; gap:6px 28px; font-size:13px; margin:6px 0 10px; }
.facets h3 { font-size:13px; margin:0 0 2px; color:var(--muted); font-weight:600; }
.facets ul { list-style:none; padding:0; margin:0; }
.facets a { color:var(--link); text-decoration:none; }
.facets .n { color:var(--muted); }
svg.timeline { display:block; margin:4px 0 10px; }
svg.timeline rect { fill:#1a4fa0; }
svg.timeline a:hover rect { fill:#0b2d66; }
svg.captures { display:block; margin:3px 0 0; }
svg.captures line, svg.captures path { stroke:#1a4fa0; stroke-width:2; }
footer { padding:12px 24px; color:var(--muted); font-size:13px; border-top:1px solid var(--line); }
footer a { color:var(--link); }
"#;

/// `2007-10-01 12:00:00` for `20071001120000` (as given when not 14 digits).
pub(crate) fn human_date(d: &str) -> String {
    warcdex_cdx::date::Date14::parse(d).map_or_else(|_| d.to_string(), |date| date.human())
}

/// A link to this page with another query or start.
fn link(query: &str, start: usize, req: &PageRequest, per_site: usize) -> String {
    let mut s = format!("/?query={}", url_encode(query));
    if start > 0 {
        let _ = write!(s, "&start={start}");
    }
    let _ = write!(s, "&hitsPerPage={}&hitsPerSite={per_site}", req.hits);
    if req.collapse_near {
        s.push_str("&collapse=near");
    }
    if req.show_versions {
        s.push_str("&nearDups=show");
    }
    if let Some(at) = &req.as_of {
        let _ = write!(s, "&asOf={}", url_encode(at));
    }
    if req.order != crate::search::HitOrder::Relevance {
        let _ = write!(s, "&sort={}", req.order.name());
    }
    if req.strict {
        s.push_str("&strict=1");
    }
    s
}

/// The link to the same query without the fallback: only pages with every word.
fn strict_link(query: &str, req: &PageRequest) -> String {
    let strict = PageRequest {
        strict: true,
        ..req.clone()
    };
    format!(
        " <a href=\"{}\">Only pages with every word</a>",
        escape(&link(query, 0, &strict, req.hits_per_site))
    )
}

fn hit_html(out: &mut String, h: &Hit, req: &PageRequest, query: &str) {
    // The newest capture's replay link, never the live web, and only for an
    // http(s) URL: a `javascript:` or `data:` capture is shown as text, never as a link
    // (a link would run it).
    let target = h.replay.last().filter(|_| is_web_url(&h.url));
    match target {
        Some(t) => {
            let _ = writeln!(
                out,
                "<li class=\"hit\"><h2><a href=\"{}\">{}</a></h2>",
                escape(t),
                escape(h.display_title())
            );
        }
        None => {
            let _ = writeln!(
                out,
                "<li class=\"hit\"><h2>{}</h2>",
                escape(h.display_title())
            );
        }
    }
    let _ = writeln!(out, "<div class=\"url\">{}</div>", escape(&h.url));
    if !h.snippet.text.is_empty() {
        let _ = writeln!(out, "<p class=\"snippet\">{}</p>", snippet_html(&h.snippet));
    }
    let _ = write!(
        out,
        "<div class=\"meta\"><span class=\"type\">{}</span> · <span class=\"collection\">{}</span> · {} bytes · {} capture{}",
        escape(&h.mime),
        escape(&h.collection),
        h.length,
        h.dates.len(),
        if h.dates.len() == 1 { "" } else { "s" }
    );
    if h.near_versions > 1 {
        let _ = write!(
            out,
            " · <span class=\"near\">{} near-identical versions (the newest shown)</span>",
            h.near_versions
        );
    }
    if !h.also_at.is_empty() {
        let _ = write!(
            out,
            " · <span class=\"also\">also at: {}</span>",
            escape(&h.also_at.join(", "))
        );
    }
    if h.more_from_site && !h.site.is_empty() {
        let more = format!("{query} site:{}", h.site);
        let _ = write!(
            out,
            " · <a class=\"more\" href=\"{}\">more from {}</a>",
            escape(&link(&more, 0, req, 0)),
            escape(&h.site)
        );
    }
    out.push_str("</div>\n");
    captures_svg(out, &h.dates);
    if h.dates.len() > CHIPS_UP_TO {
        timeline_html(out, h);
    } else {
        dates_html(out, h);
    }
    versions_html(out, h);
    out.push_str("</li>\n");
}

/// Past this many captures a hit shows its first and last dates and a timeline by year
/// and month instead of one link per date (a reader saw 400 of them for one page).
const CHIPS_UP_TO: usize = 20;

/// Every capture date of the hit, each a link to its capture.
fn dates_html(out: &mut String, h: &Hit) {
    out.push_str("<ul class=\"dates\">");
    for (i, d) in h.dates.iter().enumerate() {
        let label = human_date(d);
        match h.replay.get(i) {
            Some(r) => {
                let _ = write!(
                    out,
                    "<li><a href=\"{}\" title=\"{}\">{}</a></li>",
                    escape(r),
                    escape(d),
                    escape(&label)
                );
            }
            None => {
                let _ = write!(out, "<li title=\"{}\">{}</li>", escape(d), escape(&label));
            }
        }
    }
    out.push_str("</ul>");
}

/// A date linked to its capture when the hit has replay links.
fn date_link(out: &mut String, h: &Hit, i: usize, label: &str) {
    match h.replay.get(i) {
        Some(r) => {
            let _ = write!(
                out,
                "<a href=\"{}\" title=\"{}\">{}</a>",
                escape(r),
                escape(&h.dates[i]),
                escape(label)
            );
        }
        None => out.push_str(&escape(label)),
    }
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Many captures: the first and last, then one line per year with the months that have
/// captures, each a link to the month's first capture with its count, and a link to the
/// page listing every capture (`/history/URL`). At most 12 links a year.
fn timeline_html(out: &mut String, h: &Hit) {
    let (first, last) = (0, h.dates.len() - 1);
    out.push_str("<div class=\"timeline\">First ");
    date_link(out, h, first, &human_date(&h.dates[first]));
    out.push_str(" · last ");
    date_link(out, h, last, &human_date(&h.dates[last]));
    if is_web_url(&h.url) {
        let _ = write!(
            out,
            " · <a href=\"{}\">all {} captures, by version</a>",
            escape(&format!("/history/{}", h.url)),
            h.dates.len()
        );
    }
    out.push_str("<ul class=\"years\">");
    // (year, month) → (index of its first date, count): the dates are sorted.
    let mut i = 0;
    while i < h.dates.len() {
        let year = h.dates[i].get(..4).unwrap_or("");
        let _ = write!(out, "<li><b>{}</b>", escape(year));
        while i < h.dates.len() && h.dates[i].get(..4).unwrap_or("") == year {
            let month = h.dates[i].get(4..6).unwrap_or("");
            let start = i;
            while i < h.dates.len() && h.dates[i].get(..6) == h.dates[start].get(..6) {
                i += 1;
            }
            let name = month
                .parse::<usize>()
                .ok()
                .and_then(|m| MONTHS.get(m.wrapping_sub(1)))
                .copied()
                .unwrap_or("?");
            out.push(' ');
            date_link(out, h, start, &format!("{name} ({})", i - start));
        }
        out.push_str("</li>");
    }
    out.push_str("</ul></div>");
}

/// The versions of the hit's URL listed at most: the latest, with a link to all.
const VERSIONS_LISTED: usize = 10;

/// The versions of the hit's URL, earliest first, each a link to its first capture with
/// the kind of change from the one before (it links to the diff page, which
/// has the share of words changed and the words);
/// those this hit stands for in bold. At most the latest [`VERSIONS_LISTED`], with a
/// link to the page of all of them.
fn versions_html(out: &mut String, h: &Hit) {
    if h.history.len() < 2 {
        return;
    }
    out.push_str("<p class=\"help versions\">Versions of this page: ");
    let skip = h.history.len().saturating_sub(VERSIONS_LISTED);
    if skip > 0 && is_web_url(&h.url) {
        let _ = write!(
            out,
            "<a href=\"{}\">all {} versions</a> · … ",
            escape(&format!("/history/{}", h.url)),
            h.versions_total.max(h.history.len())
        );
    }
    for (i, v) in h.history.iter().enumerate().skip(skip) {
        if i > skip {
            out.push_str(" · ");
        }
        let date = v
            .first_date
            .get(..10)
            .map_or(String::new(), |_| human_date(&v.first_date));
        let date = date.get(..10).unwrap_or(&date).to_string();
        let (open, close) = if v.in_hit { ("<b>", "</b>") } else { ("", "") };
        out.push_str(open);
        match &v.replay {
            Some(r) => {
                let _ = write!(
                    out,
                    "<a href=\"{}\" title=\"{} · {} capture{}\">{}</a>",
                    escape(r),
                    escape(&v.digest),
                    v.captures,
                    if v.captures == 1 { "" } else { "s" },
                    escape(&date)
                );
            }
            None => out.push_str(&escape(&date)),
        }
        // The kind of change only: the share of words is exact on the history and diff
        // pages it links to, from the two texts, which a search does not read (one diff
        // may take half a second); the estimate from the signatures that `changed`
        // holds showed another figure for the same change (≈ 0.8 % here, 0.5 % there).
        let what = v.change.label();
        let before = i.checked_sub(1).map(|p| &h.history[p].first_date);
        match before {
            Some(b) if !b.is_empty() && !v.first_date.is_empty() && is_web_url(&h.url) => {
                let _ = write!(
                    out,
                    ": <a href=\"{}\" title=\"what changed, word by word\">{}</a>",
                    escape(&format!("/diff/{b}/{}/{}", v.first_date, h.url)),
                    escape(what)
                );
            }
            _ => {
                let _ = write!(out, ": {}", escape(what));
            }
        }
        out.push_str(close);
    }
    out.push_str("</p>");
}

/// The facets of the query: for each of site, year, type, language and collection, its most
/// frequent values with their counts, each a link to the query narrowed by that value.
fn facets_html(out: &mut String, r: &SearchResults, req: &PageRequest, query: &str) {
    let f = &r.facets;
    let groups = [
        ("Site", "site", &f.site),
        ("Year", "date", &f.year),
        ("Type", "type", &f.mime),
        ("Language", "lang", &f.lang),
        ("Collection", "collection", &f.collection),
    ];
    if groups.iter().all(|(_, _, v)| v.is_empty()) {
        return;
    }
    out.push_str("<section class=\"facets\" aria-label=\"Narrow the results\">");
    for (title, filter, values) in groups {
        if values.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "<div class=\"facet\" data-facet=\"{filter}\"><h3>{title}</h3><ul>"
        );
        for c in values {
            let narrowed = format!("{query} {filter}:{}", c.value);
            let _ = write!(
                out,
                "<li><a href=\"{}\">{}</a> <span class=\"n\">{}</span></li>",
                escape(&link(&narrowed, 0, req, req.hits_per_site)),
                escape(&c.value),
                c.count
            );
        }
        out.push_str("</ul></div>");
    }
    out.push_str("</section>\n");
}

/// Width and height of the query's timeline chart, in pixels.
const TIMELINE_SIZE: (f64, f64) = (600.0, 64.0);

/// The narrowest run of bars under which two month labels (`2024-06`, 11 px) fit side
/// by side.
const TIMELINE_TWO_LABELS: f64 = 100.0;

/// The captures of all matching documents per month as a bar chart (inline SVG, no
/// script): one bar a month, each a link to the query narrowed to that month.
fn timeline_svg(out: &mut String, r: &SearchResults, req: &PageRequest, query: &str) {
    let months = &r.timeline;
    let Some(most) = months.iter().map(|m| m.count).max().filter(|&n| n > 0) else {
        return;
    };
    let (w, h) = TIMELINE_SIZE;
    // At most 24 pixels a month, so that a short timeline is not one wide block.
    let slot = (w / months.len() as f64).min(24.0);
    let first = &months[0].month;
    let last = &months[months.len() - 1].month;
    let _ = write!(
        out,
        "<svg class=\"timeline\" role=\"img\" width=\"{w}\" height=\"{}\" viewBox=\"0 0 {w} {}\"><title>Captures per month, {} to {}</title>",
        h + 14.0,
        h + 14.0,
        escape(first),
        escape(last)
    );
    for m in months.iter().filter(|m| m.count > 0) {
        let i = months.iter().position(|x| x.month == m.month).unwrap_or(0);
        let bar = (m.count as f64 / most as f64 * h).max(1.0);
        let narrowed = format!("{query} date:{}", m.month.replace('-', ""));
        let _ = write!(
            out,
            "<a href=\"{}\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"><title>{}: {} capture{}</title></rect></a>",
            escape(&link(&narrowed, 0, req, req.hits_per_site)),
            i as f64 * slot,
            h - bar,
            (slot - 1.0).max(1.0),
            bar,
            escape(&m.month),
            m.count,
            if m.count == 1 { "" } else { "s" }
        );
    }
    // The labels go under the bars they name: the first month's from the first bar's
    // left edge, the last month's ending at the last bar's right edge (the chart is
    // narrower than its box when months are few, and a label at the box's right edge
    // named no bar). Bars too few for two labels side by side get one, for both.
    let bars_end = (months.len() - 1) as f64 * slot + (slot - 1.0).max(1.0);
    let label = |out: &mut String, x: f64, anchor: &str, text: &str| {
        let _ = write!(
            out,
            "<text x=\"{x:.1}\" y=\"{}\" font-size=\"11\" fill=\"#5f6368\" text-anchor=\"{anchor}\">{}</text>",
            h + 12.0,
            escape(text)
        );
    };
    if first == last {
        label(out, 0.0, "start", first);
    } else if bars_end < TIMELINE_TWO_LABELS {
        label(out, 0.0, "start", &format!("{first} to {last}"));
    } else {
        label(out, 0.0, "start", first);
        label(out, bars_end, "end", last);
    }
    out.push_str("</svg>\n");
}

/// A hit's capture dates on a line from its first to its last: one tick each, captures
/// that fall on one pixel sharing it (at most 240 ticks, whatever the captures).
fn captures_svg(out: &mut String, dates: &[String]) {
    let secs: Vec<i64> = dates
        .iter()
        .filter_map(|d| crate::reader::date::capture_micros(d, i64::MAX))
        .map(|m| m / 1_000_000)
        .collect();
    let (Some(&lo), Some(&hi)) = (secs.iter().min(), secs.iter().max()) else {
        return;
    };
    const W: f64 = 240.0;
    let span = (hi - lo).max(1) as f64;
    let _ = write!(
        out,
        "<svg class=\"captures\" role=\"img\" width=\"{W}\" height=\"12\" viewBox=\"0 0 {W} 12\"><title>{} capture{} from {} to {}</title><line x1=\"0\" y1=\"6\" x2=\"{W}\" y2=\"6\" style=\"stroke:#e3e3e3\"/>",
        secs.len(),
        if secs.len() == 1 { "" } else { "s" },
        escape(&human_date(&dates[0])),
        escape(&human_date(&dates[dates.len() - 1]))
    );
    // One path of vertical strokes: a few bytes a tick.
    let mut drawn: Option<i64> = None;
    out.push_str("<path d=\"");
    for t in &secs {
        let x = if hi == lo {
            W / 2.0
        } else {
            1.0 + (t - lo) as f64 / span * (W - 2.0)
        };
        let pixel = x.round() as i64;
        if drawn == Some(pixel) {
            continue;
        }
        drawn = Some(pixel);
        let _ = write!(out, "M{pixel} 1v10");
    }
    out.push_str("\"/>");
    out.push_str("</svg>\n");
}

/// The whole page: the form, then the results or an error message (or neither, for
/// the empty form). `footer` is a line about the index (sets and documents).
pub fn render(
    req: &PageRequest,
    results: Option<&SearchResults>,
    error: Option<&str>,
    footer: &str,
) -> String {
    let query = req.query.as_deref().unwrap_or("");
    let mut out = String::with_capacity(8192);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    out.push_str(
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
    );
    if !query.is_empty() {
        push_escaped(&mut out, query);
        out.push_str(" — ");
    }
    out.push_str("warcdex search</title>\n<style>");
    out.push_str(STYLE);
    out.push_str(
        "</style></head>\n<body>\n<header><form action=\"/\" method=\"get\" role=\"search\">",
    );
    out.push_str("<a class=\"brand\" href=\"/\">warcdex</a>");
    let _ = write!(
        out,
        "<input type=\"search\" name=\"query\" value=\"{}\" maxlength=\"{}\" aria-label=\"Search the archive\" autofocus>",
        escape(query),
        crate::search::query::MAX_QUERY_BYTES
    );
    if req.hits != 10 {
        let _ = write!(
            out,
            "<input type=\"hidden\" name=\"hitsPerPage\" value=\"{}\">",
            req.hits
        );
    }
    if req.show_versions {
        out.push_str("<input type=\"hidden\" name=\"nearDups\" value=\"show\">");
    }
    let _ = write!(
        out,
        "<label class=\"help\"><input type=\"checkbox\" name=\"collapse\" value=\"near\"{}> collapse mirrors</label>",
        if req.collapse_near { " checked" } else { "" }
    );
    let _ = write!(
        out,
        "<label class=\"help\">as of <input type=\"text\" name=\"asOf\" value=\"{}\" \
         size=\"9\" maxlength=\"14\" pattern=\"[0-9]{{4,14}}\" placeholder=\"YYYYMMDD\" \
         inputmode=\"numeric\" aria-label=\"The archive as it was on a date\"></label>",
        escape(req.as_of.as_deref().unwrap_or(""))
    );
    out.push_str("<select name=\"sort\" aria-label=\"Order\">");
    for (v, label) in [
        ("relevance", "best first"),
        ("-date", "newest first"),
        ("date", "oldest first"),
    ] {
        let chosen = if req.order.name() == v {
            " selected"
        } else {
            ""
        };
        let _ = write!(out, "<option value=\"{v}\"{chosen}>{label}</option>");
    }
    out.push_str("</select>");
    out.push_str("<button type=\"submit\">Search</button></form>\n");
    out.push_str("<p class=\"help\">Words and \"phrases\"; filters <code>site:</code> <code>type:</code> <code>lang:</code> <code>collection:</code> <code>date:2007</code> <code>date:20071001-20071005</code> <code>as-of:2007</code></p></header>\n<main>\n");
    if let Some(e) = error {
        let _ = writeln!(out, "<p class=\"error\" role=\"alert\">{}</p>", escape(e));
    }
    if let Some(r) = results {
        if !r.unavailable.is_empty() {
            let _ = writeln!(
                out,
                "<p class=\"error\" role=\"alert\">Partial results: {} shard server{} did not answer ({}).</p>",
                r.unavailable.len(),
                if r.unavailable.len() == 1 { "" } else { "s" },
                escape(&r.unavailable.join("; "))
            );
        }
        if let Some(x) = r.relaxed {
            // Said above the hits: none of them holds every word the reader typed.
            let _ = writeln!(
                out,
                "<p class=\"summary\" role=\"status\">No page holds all of <b>{}</b>: showing {}.{}</p>",
                escape(query),
                escape(&x.message()),
                strict_link(query, req)
            );
        }
        if let Some(q) = &r.suggestion {
            let _ = writeln!(
                out,
                "<p class=\"summary\" role=\"status\">No page holds every word of <b>{}</b>: showing <b>{}</b>.{}</p>",
                escape(query),
                escape(q),
                strict_link(query, req)
            );
        }
        if r.hits.is_empty() {
            let _ = writeln!(
                out,
                "<p class=\"summary\">No hits for <b>{}</b>.</p>",
                escape(query)
            );
        } else {
            // The versions matched first (what the query found), then the hits one can
            // page through, which folding and the per-site limit make fewer, and the
            // per-site limit as what it is, with the link that lifts it ("Hits 1–8 of 8" alone
            // read as if 8 were all the versions matched).
            let versions = r.versions_matched();
            let _ = write!(
                out,
                "<p class=\"summary\"><b>{versions}</b> matching version{} for <b>{}</b> · hits <b>{}–{}</b>",
                if versions == 1 { "" } else { "s" },
                escape(query),
                r.start + 1,
                r.start + r.hits.len()
            );
            if let Some(n) = r.hits_total() {
                let _ = write!(out, " of <b>{n}</b>");
            }
            if r.site_limited {
                let _ = write!(
                    out,
                    " · at most {} hit{} a site: {} site{} had more (<a href=\"{}\">show every hit</a>)",
                    r.hits_per_site,
                    if r.hits_per_site == 1 { "" } else { "s" },
                    r.sites_limited,
                    if r.sites_limited == 1 { "" } else { "s" },
                    escape(&link(query, 0, req, 0)),
                );
            }
            let _ = writeln!(out, " ({:.3} s)</p>", r.response_time);
            facets_html(&mut out, r, req, query);
            timeline_svg(&mut out, r, req, query);
            let _ = writeln!(out, "<ol class=\"hits\" start=\"{}\">", r.start + 1);
            for h in &r.hits {
                hit_html(&mut out, h, req, query);
            }
            out.push_str("</ol>\n");
        }
        out.push_str("<nav class=\"pages\">");
        if r.start > 0 {
            let prev = r.start.saturating_sub(req.hits);
            let _ = write!(
                out,
                "<a rel=\"prev\" href=\"{}\">« Previous</a>",
                escape(&link(query, prev, req, req.hits_per_site))
            );
        }
        if r.has_more {
            let _ = write!(
                out,
                "<a rel=\"next\" href=\"{}\">Next »</a>",
                escape(&link(query, r.start + r.hits.len(), req, req.hits_per_site))
            );
        }
        if r.site_limited && req.hits_per_site > 0 {
            let _ = write!(
                out,
                "<a class=\"all\" href=\"{}\">Show all hits (no per-site limit)</a>",
                escape(&link(query, 0, req, 0))
            );
        }
        out.push_str("</nav>\n");
    }
    out.push_str("</main>\n<footer>");
    push_escaped(&mut out, footer);
    if !query.is_empty() {
        let q = url_encode(query);
        let _ = write!(
            out,
            " · <a href=\"/opensearch?query={q}\">RSS</a> · <a href=\"/search.json?query={q}\">JSON</a>"
        );
    }
    out.push_str("</footer>\n</body></html>\n");
    out
}
