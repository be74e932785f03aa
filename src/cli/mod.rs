//! The command line: flag parsing (clap derive) and one small module per subcommand.

pub mod access;
pub mod cdx;
pub mod dates;
pub mod export;
pub mod graph;
pub mod heap;
pub mod import;
pub mod index;
pub mod inflate;
pub mod lists;
pub mod mcp;
pub mod near;
pub mod pywb;
pub mod records;
pub mod recrawl;
pub mod search;
pub mod update;

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use warcdex::output::{self, OutputLock};
use warcdex::path_error::ResultAtPath;

use clap::{Args, Parser, Subcommand};

/// warcdex: web archives (ARC, WARC, WARC-zstd, WACZ) to CDX and a de-duplicated full-text
/// index, searched and replayed.
#[derive(Debug, Parser)]
#[command(name = "warcdex", version, about)]
pub struct Cli {
    /// Fail at once, naming the output, when another warcdex is writing it (an index,
    /// a segment, a dates index or a `-o` file), instead of waiting for it to finish.
    #[arg(long, global = true)]
    pub no_wait: bool,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// One JSON line per record of ARC, WARC, WARC-zstd or WACZ files (offset, length,
    /// type, URI, date, id, HTTP status and type, payload digest), as `warcio index`
    /// writes them; anomaly counts on stderr.
    #[command(after_help = EXIT_STATUS)]
    Records(records::RecordsArgs),
    /// CDX (11- or 9-field, as pywb `cdx-indexer` writes it) or CDXJ (as `cdxj-indexer`
    /// writes it) for ARC, WARC, WARC-zstd and WACZ files, optionally sorted in C byte
    /// order.
    #[command(after_help = EXIT_STATUS)]
    Cdx(cdx::CdxArgs),
    /// The exclusion list: every capture of a URL key + digest except the earliest, as
    /// `URLKEY sha1:DIGEST DATE14 FILE`, sorted (NutchWAX `dedup-cdx`).
    DedupCdx(lists::ListArgs),
    /// Revisit records as `URLKEY sha1:DIGEST DATE14`, sorted and unique (NutchWAX
    /// `revisits`; mime `warc/revisit`, or a Wayback 1.x line whose 9th field is `-`).
    Revisits(lists::ListArgs),
    /// Sort CDX in C byte order (`LC_ALL=C sort`) in bounded memory, one legend on top;
    /// or write the sorted lines as a ZipNum cluster for pywb and Wayback (`--zipnum`).
    SortCdx(lists::SortArgs),
    /// Merge sorted CDX files into one sorted file, one legend on top; or into a ZipNum
    /// cluster (`--zipnum`).
    MergeCdx(lists::SortArgs),
    /// Parse archives (ARC, WARC, WARC-zstd, WACZ) into a segment: one document per URL +
    /// digest (title, text, links, charset, every capture date), skipping captures the
    /// exclusion list names.
    #[command(after_help = EXIT_STATUS)]
    Import(import::ImportArgs),
    /// A segment's manifest and counts, or its rows as JSON lines (`--rows`).
    SegmentInfo(import::SegmentInfoArgs),
    /// Build the main full-text index from segments: one document per URL + digest,
    /// anchor text of inbound links, link-analysis boost, one segment in key order.
    Index(index::IndexArgs),
    /// The link graph of a sharded collection, computed once: each shard's URL keys
    /// with their link-analysis boost and anchors, for `index --shard K/N --graph DIR`.
    LinkGraph(index::LinkGraphArgs),
    /// NutchWAX `dumpindex`: fields and values of one or several parallel indexes.
    Dumpindex(index::DumpArgs),
    /// Merge main indexes: one document per URL + digest, dates and anchors unioned.
    Merge(index::MergeArgs),
    /// NutchWAX `add-dates`: the parallel dates index of a main index (one document per
    /// main document, at the same position), the sources' dates and a dates list unioned.
    AddDates(dates::AddDatesArgs),
    /// Search `DIR/pindexes/*/{main,dates}`: words and phrases ranked by text relevance
    /// (BM25F over title, URL, anchors and text, the title and other sites' anchor text
    /// weighing most), filters site:, type:, lang:, collection:, date:, as-of:; every
    /// capture date per hit.
    Search(search::SearchArgs),
    /// Add archives (ARC, WARC, WARC-zstd, WACZ) to a collection as one batch: CDX,
    /// identity across the whole collection, import and index of the new versions, dates
    /// added to earlier ones; locked, idempotent, resumable. `--compact` indexes every batch into one set.
    #[command(after_help = EXIT_STATUS)]
    Update(update::UpdateArgs),
    /// Serve the collection over HTTP: the search page, JSON, OpenSearch RSS, the capture
    /// view (pages run their scripts on a replay origin of their own with `--wabac`) with the
    /// indexed text, history and diff pages, Memento, pywb's CDX API, /warcs (archives by
    /// byte range, and the CDXJ index ReplayWeb.page opens), export, ReplayWeb.page's page
    /// query, the change feeds (Atom, JSON), the MCP server (/mcp) and /healthz; or a front
    /// server over shard servers (`--remote`).
    Serve(search::ServeArgs),
    /// A Model Context Protocol server over stdio for language-model agents: tools
    /// `search`, `get_text`, `list_captures`, `history` and `diff`, every answer with its
    /// provenance (archive, offset, digest), under the access rules (docs/mcp.md). `serve`
    /// answers the same at `/mcp`.
    Mcp(mcp::McpArgs),
    /// A pywb 2.10 config.yaml that replays the collection from `warcdex serve`: captures
    /// found through its /cdx route, records read from its /warcs/ route by byte range.
    PywbConfig(pywb::PywbConfigArgs),
    /// Clusters of near-duplicate versions (same title, texts alike at least the
    /// threshold; every member near its cluster's first version) as
    /// CLUSTER<TAB>URL<TAB>sha1:DIGEST<TAB>FIRST_DATE14 lines.
    NearDups(near::NearDupsArgs),
    /// Every version of a URL with its dates and the share of its words that changed
    /// from the version before.
    History(near::HistoryArgs),
    /// What changed between the versions of a URL nearest two dates, word by word.
    Diff(near::DiffArgs),
    /// Every version a query matches (not a page of hits): its fields as CSV, JSON lines
    /// or Parquet, or its captures' records as WARC or WACZ; the access rules apply.
    Export(export::ExportArgs),
    /// The link graph of a collection: pages, hosts or registered domains linked, with
    /// link counts (and anchor texts between pages), as CSV, GEXF 1.3 or GraphML; the
    /// sources a query and a date window select, under the access rules.
    #[command(after_help = graph::GRAPH_HELP)]
    Graph(graph::GraphArgs),
    /// What to crawl next: an interval for every URL of a collection from its change
    /// history and link score, within a budget of fetches a day, as CSV or as
    /// Heritrix seed files and Browsertrix configurations per frequency tier.
    #[command(after_help = recrawl::RECRAWL_HELP)]
    RecrawlPlan(recrawl::RecrawlPlanArgs),
    /// What changed in a window (since a date, or in one `update` batch): new versions of
    /// URLs captured before, with the share of words changed; new URLs; gone URLs (404 or
    /// 410 after content); as JSON or Atom, under the access rules.
    Changes(recrawl::ChangesArgs),
    /// Access rules (pywb's `.aclj` lists and embargo): `access check COLL URL [DATE]`
    /// says which rule decides a capture and what it gives.
    Access(access::AccessArgs),
    /// Decompress every gzip member and discard the output (the benchmark's lower bound).
    #[command(hide = true)]
    Inflate {
        /// A gzip file.
        file: PathBuf,
    },
}

/// The commands whose positional arguments are a query.
const QUERY_COMMANDS: [&str; 2] = ["search", "export"];

/// A hint after a usage error for a query that starts with `-` (`warcdex search -d c
/// -python`): the parser reads it as flags, and clap's own tip names only the first
/// letter (`-p`), so the reader is told to end the flags with `--`.
pub fn query_dash_hint(e: &clap::Error) -> Option<&'static str> {
    use clap::error::ErrorKind;
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = args.iter().find(|a| !a.starts_with('-'))?;
    QUERY_COMMANDS.contains(&command.as_str()).then_some(
        "  hint: put -- before a query that starts with - (warcdex search -d DIR -- '-python java')",
    )
}

/// The exit status of every command that reads archives (`records`, `cdx`, `import`,
/// `update`), as docs/guide.md, "Exit status", states it.
pub const EXIT_STATUS: &str = "\
Exit status (every command that reads archives):
  0  every archive was read; damage inside one (a gzip member or zstd frame that does
     not decode, a record lost or cut short, a file cut short after its first record)
     is reported with file and offset, counted in the summary's \"damaged\", and kept
     out of the output
  1  an archive could not be read at all (missing, a directory, not an ARC, WARC or
     WACZ file, a WACZ that fails --verify, an error before its first record such as a
     zstd dictionary that does not load): it is reported, counted as \"unreadable\" and
     never added, after the other archives are done; or, with --strict, any damage or
     anomaly";

/// The exit status by [`EXIT_STATUS`]'s rule, from the files that could not be read,
/// the files read with damage and the anomalies counted.
pub fn exit_status(unreadable: u64, damaged: u64, anomalies: u64, strict: bool) -> i32 {
    i32::from(unreadable > 0 || (strict && (damaged > 0 || anomalies > 0)))
}

/// Shared: a list of input files.
pub fn inputs_total_size(paths: &[PathBuf]) -> u64 {
    paths
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

/// `--no-wait`, set once by `main` before the subcommand runs.
static NO_WAIT: AtomicBool = AtomicBool::new(false);

/// Records `--no-wait` for [`lock_output`] and [`with_output`].
pub fn set_no_wait(no_wait: bool) {
    NO_WAIT.store(no_wait, Ordering::Relaxed);
}

/// `--no-wait` as given.
pub fn no_wait() -> bool {
    NO_WAIT.load(Ordering::Relaxed)
}

/// Takes the advisory lock on an output that another warcdex may be writing (waiting,
/// or failing at once with `--no-wait`); held until the returned lock is dropped.
pub fn lock_output(path: &Path) -> io::Result<OutputLock> {
    OutputLock::acquire(path, NO_WAIT.load(Ordering::Relaxed))
}

/// Runs `f` with stdout, or with a temporary file beside `path` that is renamed to
/// `path` only when `f` succeeds (so a crash never leaves half an output). The output's
/// lock is held throughout; the file honours the umask and is synced with its directory
/// around the rename (`src/output.rs`). A `path` that is there and is not a regular file
/// (`/dev/null`, `/dev/stdout` on a terminal or pipe, a named pipe) is written to
/// directly, and a symbolic link to a file is followed: renaming over them replaced
/// `/dev/null` itself with a regular file when run as root.
pub fn with_output<T>(
    path: Option<&Path>,
    f: impl FnOnce(&mut dyn Write) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    match path {
        None => {
            let stdout = io::stdout();
            let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
            let r = f(&mut out)?;
            out.flush()?;
            Ok(r)
        }
        Some(path) if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .doing("cannot open", path)
                .map_err(io::Error::from)?;
            let mut out = BufWriter::with_capacity(1 << 16, file);
            let r = f(&mut out)?;
            out.flush()
                .doing("cannot write", path)
                .map_err(io::Error::from)?;
            Ok(r)
        }
        Some(path) => {
            // A symbolic link (`/dev/stdout` redirected to a file, or a user's own) is
            // followed, so that the file it names is replaced and the link stays.
            let followed = match std::fs::symlink_metadata(path) {
                Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).ok(),
                _ => None,
            };
            let path = followed.as_deref().unwrap_or(path);
            let _lock = lock_output(path)?;
            let tmp = output::temp_file_beside(path)?;
            let mut out = BufWriter::with_capacity(1 << 16, tmp);
            let r = f(&mut out)?;
            out.flush()
                .doing("cannot write", path)
                .map_err(io::Error::from)?;
            let tmp = (out.into_inner().map_err(|e| e.into_error()))
                .doing("cannot write", path)
                .map_err(io::Error::from)?;
            output::persist_file(tmp, path)?;
            Ok(r)
        }
    }
}

/// clap parser for a count that must be at least 1 (`-j`, `--content-limit`).
pub fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{e}")),
    }
}

/// clap parser for a memory budget in MiB: at least 1, at most 1 TiB (so that the
/// conversion to bytes cannot overflow).
pub fn mebibytes(s: &str) -> Result<usize, String> {
    let n = at_least_one(s)?;
    if n > 1 << 20 {
        return Err("must be at most 1048576 (MiB)".into());
    }
    Ok(n)
}

/// clap parser for a fraction: a finite number from 0 to 1 (`--damping`).
pub fn fraction(s: &str) -> Result<f64, String> {
    let x: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if !(0.0..=1.0).contains(&x) {
        return Err("must be a number from 0 to 1".into());
    }
    Ok(x)
}

/// `--memory` and `--tmp-dir`, shared by every command that sorts or buffers in bounded
/// memory (one default, one check).
#[derive(Debug, Clone, Args)]
pub struct MemoryFlags {
    /// Memory budget in MiB for sorting and buffering.
    #[arg(long, default_value_t = 256, value_parser = mebibytes)]
    pub memory: usize,
    /// Directory for temporary sort runs (default: the system's).
    #[arg(long)]
    pub tmp_dir: Option<PathBuf>,
}

impl MemoryFlags {
    /// The budget in bytes, at least `min_mib` MiB.
    pub fn bytes(&self, min_mib: usize) -> usize {
        self.memory.max(min_mib) << 20
    }

    /// Refuses a `--tmp-dir` that is not a directory, naming it, before any work is done
    /// (the sorts may need it only after reading gigabytes).
    pub fn check(&self) -> io::Result<()> {
        match &self.tmp_dir {
            Some(d) if !d.is_dir() => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("--tmp-dir {}: not a directory", d.display()),
            )),
            _ => Ok(()),
        }
    }
}

/// `-o`, shared by every command that writes one output file or stdout.
#[derive(Debug, Clone, Args)]
pub struct OutputFlag {
    /// Write to this file (atomically: a temporary name, renamed when complete) instead
    /// of stdout.
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
}

/// clap parser for a finite number that is not negative (`--score-power`).
pub fn non_negative(s: &str) -> Result<f64, String> {
    let x: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if !x.is_finite() || x < 0.0 {
        return Err("must be a finite number, 0 or more".into());
    }
    Ok(x)
}

/// The selection of `query` for `viewer` and how many versions it matches (the search's
/// total, counted first for a progress bar): what `export` and `graph` run over. `None`,
/// after saying why, for a malformed query.
pub fn counted_selection(
    index: &warcdex::search::SearchIndex,
    query: &str,
    viewer: Option<warcdex::access::Viewer>,
) -> anyhow::Result<Option<(warcdex::search::Selection, u64)>> {
    let selection = match warcdex::search::Selection::parse(query, viewer) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("warcdex: bad query: {e}");
            return Ok(None);
        }
    };
    let total = index.count(&selection)?;
    Ok(Some((selection, total)))
}
