//! Plain-text results, laid out as NutchWaxBean printed them (docs/formats.md §4.9): the
//! counts, then per hit ` i score [url] [digest] [date, …] [title]` and the snippet.

use std::io::{self, Write};

use crate::search::SearchResults;

/// The first line: the versions matched, then the hits (NutchWaxBean's one `Total hits`
/// counted either, so "Total hits: 8" was printed for 621 versions matched), and the per-site limit as what it is, with the flag that lifts it.
pub fn counts_line(r: &SearchResults) -> String {
    let plural = |n: u64, one: &str, many: &str| match n {
        1 => format!("{n} {one}"),
        _ => format!("{n} {many}"),
    };
    let mut line = plural(
        r.versions_matched(),
        "matching version",
        "matching versions",
    );
    match r.hits_total() {
        Some(n) => line.push_str(&format!("; {}", plural(n, "hit", "hits"))),
        None => line.push_str(&format!(
            "; hits {}–{} shown, more with --start {}",
            r.start + 1,
            r.start + r.hits.len(),
            r.start + r.hits.len()
        )),
    }
    if let Some(x) = r.relaxed {
        line.push_str(&format!(
            "; showing {} (--strict: only pages with every word)",
            x.message()
        ));
    }
    if let Some(q) = &r.suggestion {
        line.push_str(&format!(
            "; no page holds every word: showing {q:?} (--strict: only pages with every word)"
        ));
    }
    if r.site_limited {
        line.push_str(&format!(
            " (at most {} a site: {} had more; --hits-per-site 0 shows every hit)",
            plural(r.hits_per_site as u64, "hit", "hits"),
            plural(r.sites_limited, "site", "sites"),
        ));
    }
    line
}

/// Writes `r` to `out`. Highlighted words are wrapped in `*` in the snippet.
pub fn write_text(r: &SearchResults, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{}", counts_line(r))?;
    for h in &r.hits {
        writeln!(
            out,
            " {} {} [{}] [{}] [{}] [{}]",
            h.index,
            h.score,
            h.url,
            h.digest,
            h.dates.join(", "),
            h.title
        )?;
        // Only for a hit that stands for several versions or pages, so the
        // NutchWaxBean lines are unchanged otherwise.
        if h.near_versions > 1 || !h.also_at.is_empty() {
            let mut notes = Vec::new();
            if h.near_versions > 1 {
                notes.push(format!(
                    "{} near-identical versions, the newest shown",
                    h.near_versions
                ));
            }
            if !h.also_at.is_empty() {
                notes.push(format!("also at: {}", h.also_at.join(", ")));
            }
            writeln!(out, "   ({})", notes.join("; "))?;
        }
        let snippet = h.snippet.render(|o, s| o.push_str(s), "*", "*");
        writeln!(
            out,
            "   {}",
            snippet.split_whitespace().collect::<Vec<_>>().join(" ")
        )?;
    }
    Ok(())
}
