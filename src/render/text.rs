//! Plain-text results, laid out as NutchWaxBean printed them (docs/formats.md §4.9): a
//! count, then per hit ` i score [url] [digest] [date, …] [title]` and the snippet.

use std::io::{self, Write};

use crate::search::SearchResults;

/// Writes `r` to `out`. Highlighted words are wrapped in `*` in the snippet.
pub fn write_text(r: &SearchResults, out: &mut dyn Write) -> io::Result<()> {
    // NutchWaxBean's line and count (`total_results`: versions matched until the page
    // reaches the end of the hits, then hits), kept for what reads it; `--json` names
    // both counts.
    writeln!(out, "Total hits: {}", r.total_results())?;
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
        // Only for a hit that stands for several versions or pages (issue 20), so the
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
