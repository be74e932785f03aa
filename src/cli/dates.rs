//! `warcdex add-dates KEY_INDEX SOURCE... DEST DATES`: the parallel dates index
//! (NutchWAX `add-dates`, docs/formats.md §4.8). Parses flags, calls
//! [`warcdex::dates::add::add_dates_with_progress`] with a progress bar, prints the
//! problems and counts on stderr.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use warcdex::dates::add::{add_dates_with_progress, AddDatesOptions, DatesInput};
use warcdex::progress::count_bar;

/// Flags of `warcdex add-dates`.
#[derive(Debug, Args)]
pub struct AddDatesArgs {
    /// KEY_INDEX SOURCE... DEST DATES: the main index, the indexes whose dates are kept
    /// (main and/or an earlier dates index), the dates index to create, and the dates
    /// list (`URLKEY sha1:DIGEST DATE14 ...`, `-` = stdin).
    #[arg(required = true, num_args = 4.., value_name = "KEY_INDEX SOURCE... DEST DATES")]
    pub args: Vec<String>,
    /// Reproduce NutchWAX DateAdder: sources' dates in Java HashSet order, then the
    /// list's dates appended, duplicates kept.
    #[arg(long)]
    pub compat: bool,
    /// Stop at the first malformed line of the list.
    #[arg(long)]
    pub strict: bool,
    /// DEST is one of the sources: build beside it and replace it when complete.
    #[arg(long)]
    pub in_place: bool,
    /// Memory and temporary files: half of the budget sorts an unsorted list, a quarter
    /// goes to the index writer.
    #[command(flatten)]
    pub memory: super::MemoryFlags,
}

/// Runs add-dates; returns the exit code.
pub fn run(a: AddDatesArgs) -> Result<i32> {
    if a.args.len() < 4 {
        bail!("usage: warcdex add-dates KEY_INDEX SOURCE... DEST DATES");
    }
    a.memory.check()?;
    let n = a.args.len();
    let key_index = PathBuf::from(&a.args[0]);
    let sources: Vec<PathBuf> = a.args[1..n - 2].iter().map(PathBuf::from).collect();
    let dest = PathBuf::from(&a.args[n - 2]);
    let dates = DatesInput::from_arg(&a.args[n - 1]);
    let opts = AddDatesOptions {
        compat: a.compat,
        strict: a.strict,
        in_place: a.in_place,
        memory: a.memory.bytes(32),
        tmp_dir: a.memory.tmp_dir,
    };
    // Taken before the sources are read: a second run on the same DEST waits here and
    // then reads this run's result (with --in-place), so no run's dates are lost.
    let _lock = super::lock_output(&dest)?;
    // The length is set when main is open (its documents are the total).
    let bar = count_bar(0, "add-dates", "documents");
    let r = add_dates_with_progress(&key_index, &sources, &dest, &dates, &opts, &bar)
        .with_context(|| format!("add-dates {} failed", dest.display()))?;
    let c = &r.info.counts;
    for m in &r.malformed {
        eprintln!("warcdex: {m}");
    }
    if c.malformed_lines > r.malformed.len() as u64 {
        eprintln!(
            "warcdex: ... {} more malformed lines",
            c.malformed_lines - r.malformed.len() as u64
        );
    }
    if c.unmatched_lines > 0 {
        eprintln!(
            "warcdex: {} lines of {} match no document of {}, e.g.:",
            c.unmatched_lines,
            dates.name(),
            key_index.display()
        );
        for u in &r.unmatched {
            eprintln!("warcdex:   {u}");
        }
    }
    eprintln!(
        "warcdex add-dates: {} documents ({} with dates, {} with dates added), {} dates written \
         ({} added); {} lines read: {} matched, {} unmatched, {} malformed{}",
        c.documents,
        c.documents_with_dates,
        c.documents_with_dates_added,
        c.dates_written,
        c.dates_added,
        c.lines,
        c.matched_lines,
        c.unmatched_lines,
        c.malformed_lines,
        if r.external_sort {
            "; the list was not sorted: external sort used"
        } else {
            ""
        }
    );
    Ok(0)
}
