//! `warcdex update COLLECTION [ARCHIVE...] [--from LIST] [--compact]`: adds archives to a
//! collection as one batch ([`warcdex::update::update`]), with a progress bar per
//! stage (a line when each starts and ends when stderr is no terminal) and a summary on
//! stderr.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::ProgressBar;

use warcdex::cdx_writer::zipnum::DEFAULT_LINES_PER_BLOCK;
use warcdex::collection::manifest::ZipNumSettings;
use warcdex::import::manifest::read_manifest;
use warcdex::progress::{bar_of, draws_bars, Progress, Unit};
use warcdex::update::{update, ArchiveArg, Stages, UpdateOptions};

/// Flags of `warcdex update`.
#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// The collection's directory (made on first use).
    pub collection: PathBuf,
    /// ARC or WARC files (plain, gzip or zstd) or WACZ files to add.
    pub archives: Vec<PathBuf>,
    /// Also add the archives listed in this file, one `PATH [COLLECTION]` per line as in
    /// an import manifest (`-` reads stdin).
    #[arg(long, value_name = "LIST")]
    pub from: Option<PathBuf>,
    /// Then index every segment again into one set, with link analysis over the whole
    /// collection (what a one-shot build of every archive gives), swapped in at once.
    #[arg(long)]
    pub compact: bool,
    /// The `collection:` of documents whose archive names none (default: the collection
    /// directory's name).
    #[arg(long)]
    pub collection_name: Option<String>,
    /// Archives read at once (default: the number of CPUs).
    #[arg(short = 'j', long, value_parser = super::at_least_one)]
    pub jobs: Option<usize>,
    /// Refuse the batch (adding nothing) when an archive is unreadable, damaged or has
    /// anomalies (see "Exit status").
    #[arg(long)]
    pub strict: bool,
    /// Also keep a ZipNum cluster of `all.cdx` in `COLLECTION/zipnum/` for pywb and
    /// Wayback (docs/zipnum.md), written again with every batch from now on (the
    /// setting is kept in `collection.json`); alone, writes it for the collection as it is.
    #[arg(long)]
    pub zipnum: bool,
    /// Lines per ZipNum block (3000 by default).
    #[arg(long, value_name = "N", requires = "zipnum", value_parser = super::at_least_one)]
    pub lines_per_block: Option<usize>,
    /// Memory and temporary files of every stage.
    #[command(flatten)]
    pub memory: super::MemoryFlags,
}

/// Progress bars on stderr, one per stage, and messages above them.
struct Bars {
    current: std::sync::Mutex<Option<ProgressBar>>,
}

/// One stage's display: its bar on a terminal; elsewhere (a log, a pipe, cron's mail),
/// where bars are hidden, a line when it starts and one when it ends, so that a batch of
/// minutes does not print nothing until its summary.
struct Stage {
    bar: ProgressBar,
    name: String,
    started: Instant,
    lines: bool,
    ended: AtomicBool,
}

impl Progress for Stage {
    fn start(&self, total: u64) {
        Progress::start(&self.bar, total);
    }
    fn advance(&self, n: u64) {
        self.bar.advance(n);
    }
    fn finish(&self) {
        Progress::finish(&self.bar);
        if self.lines && !self.ended.swap(true, Ordering::Relaxed) {
            eprintln!(
                "warcdex update: {} done in {:.1} s",
                self.name,
                self.started.elapsed().as_secs_f64()
            );
        }
    }
}

impl Stages for Bars {
    fn stage(&self, name: &str, total: u64, unit: Unit) -> Box<dyn Progress + '_> {
        if name == "index" {
            // From the index on, freed memory goes back to the system (src/cli/heap.rs):
            // the stages after the import free large buffers phase after phase.
            super::heap::give_back_freed_memory();
        }
        let lines = !draws_bars();
        if lines {
            match total {
                0 => eprintln!("warcdex update: {name}: started"),
                _ => eprintln!("warcdex update: {name}: {}", unit.show(total)),
            }
        }
        let bar = bar_of(total, name, unit);
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
        Box::new(Stage {
            bar,
            name: name.to_string(),
            started: Instant::now(),
            lines,
            ended: AtomicBool::new(false),
        })
    }

    fn message(&self, m: &str) {
        let cur = self
            .current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match cur {
            Some(b) => b.suspend(|| eprintln!("warcdex: {m}")),
            None => eprintln!("warcdex: {m}"),
        }
    }
}

/// Runs `update`; returns the exit code.
pub fn run(args: UpdateArgs) -> Result<i32> {
    args.memory.check()?;
    let mut archives: Vec<ArchiveArg> = args
        .archives
        .iter()
        .map(|p| ArchiveArg {
            path: p.clone(),
            collection: None,
        })
        .collect();
    if let Some(list) = &args.from {
        let entries = if list.as_os_str() == "-" {
            read_manifest(io::stdin().lock(), None).context("--from -")?
        } else {
            let f = std::fs::File::open(list)
                .with_context(|| format!("cannot open --from {}", list.display()))?;
            read_manifest(io::BufReader::new(f), list.parent())
                .with_context(|| format!("--from {}", list.display()))?
        };
        archives.extend(entries.into_iter().map(|e| ArchiveArg {
            path: e.path,
            collection: e.collection,
        }));
    }
    if archives.is_empty() && !args.compact && !args.zipnum {
        bail!(
            "no archives given (name them, or list them with --from), and no --compact or --zipnum"
        );
    }
    let name = args.collection_name.clone().unwrap_or_else(|| {
        (warcdex::collection::Collection::open(&args.collection).dir_name())
            .unwrap_or_else(|| "default".into())
    });
    let opts = UpdateOptions {
        memory: args.memory.bytes(16),
        tmp_dir: args.memory.tmp_dir.clone(),
        jobs: args.jobs.unwrap_or_else(rayon::current_num_threads).max(1),
        no_wait: super::no_wait(),
        strict: args.strict,
        compact: args.compact,
        collection: name,
        zipnum: args.zipnum.then(|| ZipNumSettings {
            lines_per_block: args.lines_per_block.unwrap_or(DEFAULT_LINES_PER_BLOCK),
        }),
    };
    let bars = Bars {
        current: std::sync::Mutex::new(None),
    };
    let r = update(&args.collection, &archives, &opts, &bars)
        .with_context(|| format!("update {} failed", args.collection.display()))?;
    if let Some(b) = bars
        .current
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
    {
        b.finish_and_clear();
    }
    if let Some(name) = &r.finished_earlier {
        eprintln!("warcdex update: published {name}, which an interrupted run had built");
    }
    match &r.batch {
        Some(b) => eprintln!(
            "warcdex update: {}: {} archives added, {} skipped; {} captures ({} revisits), {} new versions, {} dates added to earlier versions; {} anomalies",
            b.name,
            r.added.len(),
            r.skipped.len(),
            b.captures,
            b.revisits,
            b.new_versions,
            b.dates_added_to_earlier,
            b.anomalies
        ),
        None if archives.is_empty() => {}
        None if r.skipped.is_empty() && !r.refused.is_empty() => {
            eprintln!("warcdex update: nothing added")
        }
        None => eprintln!(
            "warcdex update: nothing new: {} archives skipped (already in the collection)",
            r.skipped.len()
        ),
    }
    for (name, kinds, error) in &r.anomalies {
        let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        eprintln!(
            "warcdex update:   {name}: {}{}",
            kinds.join(", "),
            error
                .as_ref()
                .map(|e| format!("; stopped early: {e}"))
                .unwrap_or_default()
        );
    }
    // Named here only: the library reports a refusal in `refused`, not as a message too.
    for (_, why) in &r.refused {
        eprintln!("warcdex update:   refused (unreadable, not added): {why}");
    }
    if let Some(z) = &r.zipnum {
        eprintln!(
            "warcdex update: ZipNum cluster {}: {} lines in {} blocks, {} bytes",
            args.collection.join("zipnum").display(),
            z.lines,
            z.blocks,
            z.compressed_bytes
        );
        if z.lines == 0 {
            eprintln!(
                "warcdex update: {}",
                warcdex::cdx_writer::zipnum::EMPTY_CLUSTER_WARNING
            );
        }
    }
    if let Some(c) = &r.compaction {
        eprintln!(
            "warcdex update: compacted {} batches into pindexes/{} ({} documents)",
            c.batches, c.pindex, c.documents
        );
    }
    if !r.refused.is_empty() {
        eprintln!(
            "warcdex update: {} archives unreadable, not added",
            r.refused.len()
        );
    }
    // EXIT_STATUS: an archive that cannot be read fails the run (the others are added);
    // damage inside an added one is listed above, and refuses the batch with --strict.
    Ok(super::exit_status(r.refused.len() as u64, 0, 0, false))
}
