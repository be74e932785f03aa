//! `warcdex import [-e EXCLUSIONS] [--collection NAME] [--status 200-299] [--content-limit BYTES] MANIFEST [SEGMENT]`
//! and `warcdex segment-info SEGMENT [--rows]`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use warcdex::import::manifest::read_manifest;
use warcdex::import::segment_dir;
use warcdex::import::{import_versions, load_exclusions, ImportOptions, StatusFilter};
use warcdex::progress::bytes_bar;
use warcdex::segment::layout::{self, ExclusionsInfo};
use warcdex::segment::rows::read_rows;

use warcdex_cdx::message::MESSAGES_PER_FILE;

use super::cdx::KeyArg;

/// Flags of `warcdex import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// One archive per line: `PATH [COLLECTION]`; `#` comments; `-` reads stdin.
    pub manifest: PathBuf,
    /// The segment directory to create (default `segments/<14-digit UTC time>`).
    pub segment: Option<PathBuf>,
    /// Exclusion list (`URLKEY sha1:DIGEST DATE14 [...]`, from dedup-cdx or revisits).
    #[arg(short = 'e', long)]
    pub exclusions: Option<PathBuf>,
    /// Collection of archives whose manifest line names none.
    #[arg(long, default_value = "default")]
    pub collection: String,
    /// HTTP statuses to import: ranges, codes and `unknown` (no HTTP status).
    #[arg(long, default_value = "200-299")]
    pub status: String,
    /// Bytes of each payload kept for parsing (and of extracted text).
    #[arg(long, default_value_t = 1 << 20, value_parser = super::at_least_one)]
    pub content_limit: usize,
    /// URL key style; must match the exclusion list's.
    #[arg(long, value_enum, default_value = "surt")]
    pub key: KeyArg,
    /// Archives imported at once (default: the number of CPUs).
    #[arg(short = 'j', long, value_parser = super::at_least_one)]
    pub jobs: Option<usize>,
    /// Exit 1 when any archive was damaged or any anomaly was found, and write nothing
    /// (see "Exit status").
    #[arg(long)]
    pub strict: bool,
    /// Write the versions split by URL key into N segments, SEGMENT/shard-<k> for shard
    /// k (FNV-1a of the URL key mod N, as `index --shard K/N` and the Spark driver
    /// split), so that each shard's index reads only its own versions.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: Option<u32>,
    /// Memory and temporary files of the parsed rows, sorted into the segment's order
    /// (three quarters of the budget; the rest is the import's other state).
    #[command(flatten)]
    pub memory: super::MemoryFlags,
    /// Check each WACZ's `datapackage.json` (every resource's size and SHA-256) first; a
    /// WACZ that fails is reported and not imported.
    #[arg(long)]
    pub verify: bool,
}

/// Runs `import`; returns the exit code.
pub fn run(args: ImportArgs) -> Result<i32> {
    args.memory.check()?;
    let opts = ImportOptions {
        key: args.key.style(),
        status: StatusFilter::parse(&args.status).map_err(anyhow::Error::msg)?,
        content_limit: args.content_limit,
        collection: args.collection.clone(),
        memory: args.memory.bytes(1) / 4 * 3,
        tmp_dir: args.memory.tmp_dir.clone(),
        archive_base: (args.manifest.as_os_str() != "-")
            .then(|| args.manifest.parent().map(Path::to_path_buf))
            .flatten(),
        verify_wacz: args.verify,
        ..ImportOptions::default()
    };
    let entries = if args.manifest.as_os_str() == "-" {
        read_manifest(io::stdin().lock(), None).context("manifest -")?
    } else {
        let f = std::fs::File::open(&args.manifest)
            .with_context(|| format!("cannot open manifest {}", args.manifest.display()))?;
        read_manifest(io::BufReader::new(f), args.manifest.parent())
            .with_context(|| format!("manifest {}", args.manifest.display()))?
    };
    let exclusions = match &args.exclusions {
        None => None,
        Some(p) => {
            let mut shown = 0u64;
            let x = load_exclusions(p, opts.key, &mut |m| {
                shown += 1;
                if shown <= MESSAGES_PER_FILE {
                    eprintln!("warcdex: {m}");
                }
            })
            .with_context(|| format!("exclusion list {}", p.display()))?;
            if x.malformed > MESSAGES_PER_FILE {
                eprintln!(
                    "warcdex: {}: … and {} more malformed lines",
                    p.display(),
                    x.malformed - MESSAGES_PER_FILE
                );
            }
            Some(x)
        }
    };
    let dest = args
        .segment
        .clone()
        .unwrap_or_else(|| Path::new("segments").join(segment_dir::timestamp14()));
    // Held until the segment is renamed into place; checked before the work, not after.
    let _lock = super::lock_output(&dest)?;
    if dest.exists() {
        bail!(
            "{} already exists; choose another segment name",
            dest.display()
        );
    }
    let paths: Vec<PathBuf> = entries.iter().map(|e| e.path.clone()).collect();
    let bar = bytes_bar(super::inputs_total_size(&paths), "import");
    let jobs = args.jobs.unwrap_or_else(rayon::current_num_threads).max(1);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).build()?;
    let (versions, sources) = pool.install(|| {
        import_versions(
            &entries,
            exclusions.as_ref(),
            &opts,
            &|p| bar.inc(std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)),
            &|m| bar.suspend(|| eprintln!("warcdex: {m}")),
        )
    });
    bar.finish_and_clear();
    let info = match (&args.exclusions, &exclusions) {
        (Some(p), Some(x)) => Some(ExclusionsInfo {
            path: p.display().to_string(),
            entries: x.len() as u64,
            malformed: x.malformed,
        }),
        _ => None,
    };
    // One rule for every command (EXIT_STATUS): all inputs are attempted; an archive of
    // which nothing could be read (missing, a directory, no archive) makes the run exit 1
    // once the others are done; damage is reported and counted; with --strict any
    // damage or anomaly fails the run and writes nothing.
    let unreadable = sources.iter().filter(|s| unreadable_source(s)).count() as u64;
    let damaged = sources
        .iter()
        .filter(|s| !unreadable_source(s) && damaged_source(s))
        .count() as u64;
    let anomalies: u64 = sources.iter().flat_map(|s| s.anomalies.values()).sum();
    if args.strict && (unreadable > 0 || damaged > 0 || anomalies > 0) {
        eprintln!(
            "warcdex import: --strict: {unreadable} archives unreadable, {damaged} damaged, {anomalies} anomalies; {} not written",
            dest.display()
        );
        return Ok(1);
    }
    let m = match args.shards {
        None => segment_dir::write_imported(&dest, versions, sources, &opts, info),
        Some(n) => segment_dir::write_imported_sharded(&dest, n, versions, sources, &opts, info)
            .map(|parts| {
                let documents = parts.iter().map(|p| p.documents).sum();
                let mut m = parts.into_iter().next().expect("at least one shard");
                m.documents = documents;
                m
            }),
    }
    .with_context(|| format!("cannot write segment {}", dest.display()))?;
    let sum =
        |f: fn(&warcdex::import::SourceReport) -> u64| -> u64 { m.sources.iter().map(f).sum() };
    eprintln!(
        "warcdex import: {} archives ({unreadable} unreadable, {damaged} damaged), {} records, {} captures imported, {} excluded, {} refused by status, {} parse failures; {} documents (versions) in {}; {anomalies} anomalies",
        m.sources.len(),
        sum(|s| s.records),
        m.captures,
        sum(|s| s.excluded),
        sum(|s| s.status_filtered),
        sum(|s| s.parse_failures),
        m.documents,
        dest.display()
    );
    println!("{}", dest.display());
    Ok(super::exit_status(unreadable, damaged, anomalies, false))
}

/// An archive of which nothing was read: it did not open, or an error stopped it before
/// its first record.
fn unreadable_source(s: &warcdex::import::SourceReport) -> bool {
    s.error.is_some() && s.records == 0
}

/// An archive read with damage: an error after its first record, or damage counted.
fn damaged_source(s: &warcdex::import::SourceReport) -> bool {
    s.error.is_some()
        || s.anomalies.iter().any(|(k, n)| {
            *n > 0
                && warcdex::reader::error::AnomalyKind::from_name(k).is_some_and(|k| k.is_damage())
        })
}

/// Flags of `warcdex segment-info`.
#[derive(Debug, Args)]
pub struct SegmentInfoArgs {
    /// A segment directory.
    pub segment: PathBuf,
    /// Dump every row as a JSON line instead of the summary.
    #[arg(long)]
    pub rows: bool,
}

/// Runs `segment-info`; returns the exit code.
pub fn info(args: SegmentInfoArgs) -> Result<i32> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    if args.rows {
        for row in read_rows(&args.segment.join(layout::ROWS_FILE))? {
            serde_json::to_writer(&mut out, &row?)?;
            out.write_all(b"\n")?;
        }
    } else {
        let m = layout::read_manifest(&args.segment)?;
        serde_json::to_writer_pretty(&mut out, &m)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(0)
}
