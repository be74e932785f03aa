//! Plain-text results, laid out as NutchWaxBean printed them (docs/formats.md §4.9): a
//! count, then per hit ` i score [url] [digest] [date, …] [title]` and the snippet.

use std::io::{self, Write};

use super::SearchResults;

/// Writes `r` to `out`. Highlighted words are wrapped in `*` in the snippet.
pub fn write_text(r: &SearchResults, out: &mut dyn Write) -> io::Result<()> {
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
        let snippet = h.snippet.render(|o, s| o.push_str(s), "*", "*");
        writeln!(
            out,
            "   {}",
            snippet.split_whitespace().collect::<Vec<_>>().join(" ")
        )?;
    }
    Ok(())
}
