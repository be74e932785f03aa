//! `warcdex dedup-cdx`, `revisits`, `sort-cdx`, `merge-cdx`: the NutchWAX lists and
//! sorted-CDX plumbing over CDX files (`-` = stdin), in bounded memory.

use std::io::{self, BufRead};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use warcdex_cdx::dedup::{self, BrokenLine, Input, ListOptions, ListReport};
use warcdex_cdx::plumbing::{check_cdx, merge_cdx, sort_cdx, SortReport};

use super::with_output;

/// Flags shared by the list commands.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// CDX files (9, 10 or 11 fields, or CDXJ), sorted or not; `-` reads stdin.
    #[arg(required = true)]
    pub cdx: Vec<String>,
    /// Write to this file (atomically) instead of stdout.
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Memory budget in MiB.
    #[arg(long, default_value_t = 256)]
    pub memory: usize,
    /// Directory for temporary files (default: the system's).
    #[arg(long)]
    pub tmp_dir: Option<PathBuf>,
    /// Stop at the first broken line instead of reporting and skipping it.
    #[arg(long)]
    pub strict: bool,
}

/// Which list.
#[derive(Debug, Clone, Copy)]
pub enum List {
    /// `dedup-cdx`.
    Dedup,
    /// `revisits`.
    Revisits,
}

/// Runs `dedup-cdx` or `revisits`; returns the exit code.
pub fn run_list(list: List, args: ListArgs) -> Result<i32> {
    let inputs: Vec<Input> = args.cdx.iter().map(|a| Input::from_arg(a)).collect();
    if inputs.iter().filter(|i| **i == Input::Stdin).count() > 1 {
        bail!("stdin (-) can be read only once");
    }
    let opts = ListOptions {
        memory: args.memory.max(16) << 20,
        tmp_dir: args.tmp_dir.clone(),
        strict: args.strict,
    };
    let mut shown = 0u64;
    let mut on_broken = |b: &BrokenLine| {
        shown += 1;
        if shown <= 20 {
            eprintln!("warcdex: {b}");
        }
    };
    let name = match list {
        List::Dedup => "dedup-cdx",
        List::Revisits => "revisits",
    };
    let report: ListReport = with_output(args.output.as_deref(), |out| {
        Ok(match list {
            List::Dedup => dedup::dedup_cdx(&inputs, out, &opts, &mut on_broken)?,
            List::Revisits => dedup::revisits(&inputs, out, &opts, &mut on_broken)?,
        })
    })
    .with_context(|| format!("{name} failed"))?;
    eprintln!(
        "warcdex {name}: {} lines read ({} legend, {} broken and skipped), {} written{}",
        report.lines,
        report.legends,
        report.broken,
        report.written,
        if report.external_sort {
            "; input was not sorted: external sort used"
        } else {
            ""
        }
    );
    Ok(0)
}

fn open_all(args: &[String]) -> Result<Vec<Box<dyn BufRead>>> {
    Ok(args
        .iter()
        .map(|a| Input::from_arg(a).open())
        .collect::<io::Result<_>>()?)
}

/// Flags of `sort-cdx` and `merge-cdx`.
#[derive(Debug, Args)]
pub struct SortArgs {
    /// CDX files; `-` reads stdin.
    #[arg(required = true)]
    pub cdx: Vec<String>,
    /// Write to this file (atomically) instead of stdout.
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Only check that each file is in C byte order; report the first line out of order.
    #[arg(long)]
    pub check: bool,
    /// Memory budget in MiB (sort-cdx).
    #[arg(long, default_value_t = 256)]
    pub memory: usize,
    /// Directory for temporary sort runs.
    #[arg(long)]
    pub tmp_dir: Option<PathBuf>,
}

/// Runs `sort-cdx` (`merge == false`) or `merge-cdx`; returns the exit code.
pub fn run_sort(merge: bool, args: SortArgs) -> Result<i32> {
    if args.check {
        let mut bad = 0;
        for (a, r) in args.cdx.iter().zip(open_all(&args.cdx)?) {
            match check_cdx(r)? {
                Ok(n) => eprintln!("warcdex: {a}: sorted ({n} lines)"),
                Err(e) => {
                    eprintln!("warcdex: {a}: {e}");
                    bad += 1;
                }
            }
        }
        return Ok(i32::from(bad > 0));
    }
    let inputs = open_all(&args.cdx)?;
    let memory = args.memory.max(16) << 20;
    let report: SortReport = with_output(args.output.as_deref(), |out| {
        Ok(if merge {
            merge_cdx(inputs, out)?
        } else {
            // Keep the process near the budget: the sorter's arena is most of it.
            sort_cdx(inputs, out, memory / 4 * 3, args.tmp_dir.clone())?
        })
    })?;
    eprintln!(
        "warcdex {}: {} lines{}",
        if merge { "merge-cdx" } else { "sort-cdx" },
        report.lines,
        if report.conflicting_legends > 0 {
            format!(
                "; {} legend lines differ from the first ({}) and were dropped",
                report.conflicting_legends,
                report.legend.as_deref().unwrap_or("")
            )
        } else {
            String::new()
        }
    );
    Ok(0)
}
