//! `warcdex dedup-cdx`, `revisits`, `sort-cdx`, `merge-cdx`: the NutchWAX lists and
//! sorted-CDX plumbing over CDX files (`-` = stdin), in bounded memory.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use warcdex::cdx_writer::zipnum::{ZipNumOptions, ZipNumWriter, DEFAULT_LINES_PER_BLOCK};
use warcdex_cdx::dedup::{self, BrokenLine, Input, ListOptions, ListReport};
use warcdex_cdx::message::MESSAGES_PER_FILE;
use warcdex_cdx::plumbing::{check_cdx, merge_cdx, sort_cdx, MergeOrderError, SortReport};

use super::with_output;

/// Flags shared by the list commands.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// CDX files (9, 10 or 11 fields, or CDXJ), sorted or not; `-` reads stdin.
    #[arg(required = true)]
    pub cdx: Vec<String>,
    /// The output file.
    #[command(flatten)]
    pub output: super::OutputFlag,
    /// Memory and temporary files of the sort (unsorted input is sorted first).
    #[command(flatten)]
    pub memory: super::MemoryFlags,
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

/// Keeps the inputs that can be opened and reports the others on stderr, so that one
/// missing file does not stop the run (it makes it exit 1 at the end; with `strict`
/// nothing is written). `-` is always kept. Returns the kept arguments and the count of
/// the others.
fn readable(args: &[String]) -> (Vec<String>, usize) {
    let mut kept = Vec::with_capacity(args.len());
    let mut failed = 0;
    for a in args {
        if a == "-" {
            kept.push(a.clone());
            continue;
        }
        let problem = match std::fs::metadata(a) {
            Ok(m) if m.is_dir() => Some("is a directory".to_string()),
            Ok(_) => std::fs::File::open(a).err().map(|e| e.to_string()),
            Err(e) => Some(e.to_string()),
        };
        match problem {
            None => kept.push(a.clone()),
            Some(p) => {
                eprintln!("warcdex: {a}: cannot read: {p}");
                failed += 1;
            }
        }
    }
    (kept, failed)
}

/// The end of a run some of whose inputs could not be read: exit 1, and with `strict`
/// an error before anything is written.
fn unreadable_outcome(failed: usize, strict: bool) -> Result<()> {
    if failed > 0 && strict {
        bail!("{failed} inputs cannot be read; --strict: nothing written");
    }
    Ok(())
}

/// Shows the first [`MESSAGES_PER_FILE`] broken lines of each input on stderr and
/// counts the rest, reported by [`BrokenShown::finish`].
#[derive(Default)]
struct BrokenShown {
    per_input: BTreeMap<String, u64>,
}

impl BrokenShown {
    fn show(&mut self, b: &BrokenLine) {
        let n = self.per_input.entry(b.input.clone()).or_insert(0);
        *n += 1;
        if *n <= MESSAGES_PER_FILE {
            eprintln!("warcdex: {b}");
        }
    }

    fn finish(&self) {
        for (input, n) in &self.per_input {
            if *n > MESSAGES_PER_FILE {
                eprintln!(
                    "warcdex: {input}: … and {} more broken lines",
                    n - MESSAGES_PER_FILE
                );
            }
        }
    }
}

/// Runs `dedup-cdx` or `revisits`; returns the exit code.
pub fn run_list(list: List, args: ListArgs) -> Result<i32> {
    args.memory.check()?;
    let (kept, failed) = readable(&args.cdx);
    unreadable_outcome(failed, args.strict)?;
    let inputs: Vec<Input> = kept.iter().map(|a| Input::from_arg(a)).collect();
    if inputs.iter().filter(|i| **i == Input::Stdin).count() > 1 {
        bail!("stdin (-) can be read only once");
    }
    let opts = ListOptions {
        memory: args.memory.bytes(16),
        tmp_dir: args.memory.tmp_dir.clone(),
        strict: args.strict,
    };
    let mut shown = BrokenShown::default();
    let mut on_broken = |b: &BrokenLine| shown.show(b);
    let name = match list {
        List::Dedup => "dedup-cdx",
        List::Revisits => "revisits",
    };
    let report: ListReport = with_output(args.output.output.as_deref(), |out| {
        Ok(match list {
            List::Dedup => dedup::dedup_cdx(&inputs, out, &opts, &mut on_broken)?,
            List::Revisits => dedup::revisits(&inputs, out, &opts, &mut on_broken)?,
        })
    })
    .with_context(|| format!("{name} failed"))?;
    shown.finish();
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
    Ok(i32::from(failed > 0))
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
    /// The output file.
    #[command(flatten)]
    pub output: super::OutputFlag,
    /// Only check that each file is in C byte order; report the first line out of order.
    #[arg(long)]
    pub check: bool,
    /// Memory and temporary files of `sort-cdx`.
    #[command(flatten)]
    pub memory: super::MemoryFlags,
    /// Write nothing when an input cannot be read (by default the others are sorted or
    /// merged, and the run exits 1).
    #[arg(long)]
    pub strict: bool,
    /// Write the sorted lines as a ZipNum cluster in this directory instead of one file,
    /// as Wayback, OpenWayback and pywb serve large indexes: blocks of
    /// `--lines-per-block` lines, each gzip-compressed on its own, in `cdx-00000.gz`,
    /// with the block index `cluster.idx` and `cluster.loc` (docs/zipnum.md). The
    /// legend is left out. An existing cluster there is replaced in one step.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["output", "check"])]
    pub zipnum: Option<PathBuf>,
    /// Lines per ZipNum block (3000 by default).
    #[arg(long, value_name = "N", requires = "zipnum", value_parser = super::at_least_one)]
    pub lines_per_block: Option<usize>,
}

/// Which of the two sorted-output commands runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortCommand {
    /// `sort-cdx`: sort any CDX in bounded memory.
    Sort,
    /// `merge-cdx`: merge inputs that are each already sorted.
    Merge,
}

impl SortCommand {
    fn name(self) -> &'static str {
        match self {
            SortCommand::Sort => "sort-cdx",
            SortCommand::Merge => "merge-cdx",
        }
    }
}

/// Runs `sort-cdx` or `merge-cdx`; returns the exit code.
pub fn run_sort(command: SortCommand, args: SortArgs) -> Result<i32> {
    args.memory.check()?;
    let (kept, failed) = readable(&args.cdx);
    if args.check {
        let mut bad = failed;
        for (a, r) in kept.iter().zip(open_all(&kept)?) {
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
    unreadable_outcome(failed, args.strict)?;
    let inputs = open_all(&kept)?;
    let memory = args.memory.bytes(16);
    let sorted = |out: &mut dyn Write| -> Result<SortReport> {
        Ok(match command {
            SortCommand::Merge => {
                merge_cdx(inputs, out).map_err(|e| match MergeOrderError::find(&e) {
                    // Nothing is written: name the file and line where the order breaks.
                    Some(m) => anyhow::anyhow!(
                        "{}: {}; merge-cdx needs sorted inputs (sort them with sort-cdx)",
                        kept[m.input],
                        m.error
                    ),
                    None => e.into(),
                })?
            }
            // Keep the process near the budget: the sorter's arena is most of it.
            SortCommand::Sort => {
                sort_cdx(inputs, out, memory / 4 * 3, args.memory.tmp_dir.clone())?
            }
        })
    };
    let (report, cluster) = match &args.zipnum {
        None => (with_output(args.output.output.as_deref(), sorted)?, None),
        Some(dir) => {
            let _lock = super::lock_output(dir)?;
            let opts = ZipNumOptions {
                lines_per_block: args.lines_per_block.unwrap_or(DEFAULT_LINES_PER_BLOCK),
            };
            let mut w = ZipNumWriter::create(dir, &opts)?;
            let report = sorted(&mut w)?;
            (report, Some((dir, opts, w.finish()?)))
        }
    };
    eprintln!(
        "warcdex {}: {} lines{}",
        command.name(),
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
    if let Some((dir, opts, z)) = cluster {
        eprintln!(
            "warcdex {}: ZipNum cluster {}: {} lines in {} blocks of up to {} lines, {} bytes{}",
            command.name(),
            dir.display(),
            z.lines,
            z.blocks,
            opts.lines_per_block,
            z.compressed_bytes,
            if z.legends > 0 {
                " (legend left out)"
            } else {
                ""
            }
        );
        if z.lines == 0 {
            eprintln!(
                "warcdex: {}",
                warcdex::cdx_writer::zipnum::EMPTY_CLUSTER_WARNING
            );
        }
    }
    Ok(i32::from(failed > 0))
}
