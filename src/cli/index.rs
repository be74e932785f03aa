//! `warcdex index [--out DIR] SEGMENT...` and `warcdex dumpindex [-c|-l|-f FIELD] INDEX...`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::MemoryFlags;
use clap::Args;

use warcdex::index::link_shards::build_graph;
use warcdex::index::links::LinkOptions;
use warcdex::index::{build_index, IndexOptions};
use warcdex::pindex::dump::{dump, DumpMode};
use warcdex_cdx::sort::SortOptions;

/// Flags of `warcdex index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// The segments: made by `warcdex import`.
    #[command(flatten)]
    pub inputs: SegmentInputs,
    /// The index directory to create (default `pindexes/<name>/main`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The parallel index set's name for the default `--out` (default: the first
    /// segment's directory name).
    #[arg(long)]
    pub name: Option<String>,
    /// Link analysis settings.
    #[command(flatten)]
    pub links: LinkFlags,
    /// Write only the documents of shard K of N (`K/N`, 0-based; URL keys are split by
    /// FNV-1a): links, anchors and scores still come from every segment given, or from
    /// `--graph`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<warcdex_cdx::shard::Shard>,
    /// With --shard: the link graph `warcdex link-graph` made of the whole collection;
    /// boosts and anchors come from it (and its link settings), so the segments given
    /// need only hold the shard's versions (`import --shards N`).
    #[arg(long, value_name = "DIR", requires = "shard")]
    pub graph: Option<PathBuf>,
    /// Memory and temporary files of the external sorts.
    #[command(flatten)]
    pub sort: MemoryFlags,
}

/// The segments of `index` and `link-graph`: named, or listed in a file.
#[derive(Debug, Args)]
pub struct SegmentInputs {
    /// Segment directories.
    #[arg(required_unless_present = "segments_from")]
    pub segments: Vec<PathBuf>,
    /// More segments, one path per line (for more than a command line holds).
    #[arg(long = "segments-from", value_name = "FILE")]
    pub segments_from: Option<PathBuf>,
}

/// The link analysis flags of `index` and `link-graph`.
#[derive(Debug, Args)]
pub struct LinkFlags {
    /// Count the anchor text of links within one host as that of links from other hosts
    /// (NutchWAX's `db.ignore.internal.links=false`); by default it is indexed apart
    /// (`anchor_internal`), weighed on its own.
    #[arg(long)]
    pub internal_links: bool,
    /// Link score damping factor.
    #[arg(long, default_value_t = 0.85, value_parser = super::fraction, allow_negative_numbers = true)]
    pub damping: f64,
    /// Link score iterations.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub iterations: u32,
    /// Boost = score ^ power (Nutch `indexer.score.power`).
    #[arg(long, default_value_t = 0.5, value_parser = super::non_negative, allow_negative_numbers = true)]
    pub score_power: f64,
}

impl LinkFlags {
    /// The settings these flags give.
    fn options(&self) -> LinkOptions {
        LinkOptions {
            internal_links: self.internal_links,
            damping: self.damping,
            iterations: self.iterations,
            score_power: self.score_power,
            ..LinkOptions::default()
        }
    }
}

/// Flags of `warcdex link-graph`.
#[derive(Debug, Args)]
pub struct LinkGraphArgs {
    /// The segments: every segment of the collection (for a sharded import, every
    /// shard's).
    #[command(flatten)]
    pub inputs: SegmentInputs,
    /// The graph directory to create.
    #[arg(long)]
    pub out: PathBuf,
    /// Shards the collection's URL keys are split into.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: u32,
    /// Link analysis settings.
    #[command(flatten)]
    pub links: LinkFlags,
    /// Memory and temporary files of the external sorts.
    #[command(flatten)]
    pub sort: MemoryFlags,
}

/// The segments named on the command line, then those of `from` (one per line).
fn all_segments(given: &[PathBuf], from: Option<&Path>) -> Result<Vec<PathBuf>> {
    let mut out = given.to_vec();
    if let Some(f) = from {
        let text = std::fs::read_to_string(f)
            .with_context(|| format!("cannot read the segment list {}", f.display()))?;
        out.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(PathBuf::from),
        );
    }
    if out.is_empty() {
        anyhow::bail!("no segments given");
    }
    Ok(out)
}

/// Runs `link-graph`; returns the exit code.
pub fn link_graph(args: LinkGraphArgs) -> Result<i32> {
    args.sort.check()?;
    let segments = all_segments(&args.inputs.segments, args.inputs.segments_from.as_deref())?;
    let _lock = super::lock_output(&args.out)?;
    let opts = IndexOptions {
        links: args.links.options(),
        sort: sort_options(&args.sort),
        ..IndexOptions::default()
    };
    let info = build_graph(&segments, &args.out, args.shards, &opts)
        .with_context(|| format!("cannot build {}", args.out.display()))?;
    eprintln!(
        "warcdex link-graph: {} URL keys from {} segments in {} shards ({:?}) in {}",
        info.urls_per_shard.iter().sum::<u64>(),
        segments.len(),
        info.shards,
        info.urls_per_shard,
        args.out.display()
    );
    println!("{}", args.out.display());
    Ok(0)
}

/// The options of each external sort of `index` and `merge`: the whole `--memory` each
/// (they run one after the other, and before the tantivy writer, which has it too).
fn sort_options(flags: &MemoryFlags) -> SortOptions {
    SortOptions {
        memory: flags.bytes(4),
        tmp_dir: flags.tmp_dir.clone(),
        unique: false,
    }
}

/// Runs `index`; returns the exit code.
pub fn run(args: IndexArgs) -> Result<i32> {
    let segments = all_segments(&args.inputs.segments, args.inputs.segments_from.as_deref())?;
    let out = match &args.out {
        Some(o) => o.clone(),
        None => {
            let name = args.name.clone().unwrap_or_else(|| {
                segments[0]
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "default".into())
            });
            Path::new("pindexes").join(name).join("main")
        }
    };
    args.sort.check()?;
    let _lock = super::lock_output(&out)?;
    let opts = IndexOptions {
        links: args.links.options(),
        sort: sort_options(&args.sort),
        shard: args.shard,
        graph: args.graph.clone(),
        writer_memory: args.sort.bytes(warcdex::index::MIN_WRITER_MEMORY >> 20),
    };
    let info = build_index(&segments, &out, &opts)
        .with_context(|| format!("cannot build {}", out.display()))?;
    eprintln!(
        "warcdex index: {} documents from {} segments in {}",
        info.documents,
        segments.len(),
        out.display()
    );
    println!("{}", out.display());
    Ok(0)
}

/// Flags of `warcdex dumpindex`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// Indexes read side by side (document i of each together).
    #[arg(required = true)]
    pub indexes: Vec<PathBuf>,
    /// Print the document count.
    #[arg(short = 'c', conflicts_with_all = ["list", "field"])]
    pub count: bool,
    /// Print the field names.
    #[arg(short = 'l', conflicts_with = "field")]
    pub list: bool,
    /// Print one field's values, one line per document.
    #[arg(short = 'f')]
    pub field: Option<String>,
}

/// Runs `dumpindex`; returns the exit code (2 for a field no index has).
pub fn dump_cmd(args: DumpArgs) -> Result<i32> {
    let mode = if args.count {
        DumpMode::Count
    } else if args.list {
        DumpMode::List
    } else if let Some(f) = &args.field {
        DumpMode::Field(f.clone())
    } else {
        DumpMode::All
    };
    let dirs: Vec<&Path> = args.indexes.iter().map(PathBuf::as_path).collect();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match dump(&dirs, &mode, &mut out) {
        Ok(()) => {
            out.flush()?;
            Ok(0)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound && matches!(mode, DumpMode::Field(_)) => {
            out.flush()?;
            println!("{}", warcdex::path_error::Chain(&e));
            Ok(2)
        }
        // As an `io::Error`, so that a closed pipe is seen as one.
        Err(e) => Err(io::Error::from(e).into()),
    }
}

/// Flags of `warcdex merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Main indexes to merge.
    #[arg(required = true)]
    pub indexes: Vec<PathBuf>,
    /// The merged index directory to create.
    #[arg(long, required = true)]
    pub out: PathBuf,
    /// Memory and temporary files of the external sort.
    #[command(flatten)]
    pub sort: MemoryFlags,
}

/// Runs `merge`; returns the exit code.
pub fn merge(args: MergeArgs) -> Result<i32> {
    args.sort.check()?;
    let _lock = super::lock_output(&args.out)?;
    let info =
        warcdex::index::merge::merge_indexes(&args.indexes, &args.out, &sort_options(&args.sort))
            .with_context(|| format!("cannot merge into {}", args.out.display()))?;
    eprintln!(
        "warcdex merge: {} documents from {} indexes in {}",
        info.documents,
        args.indexes.len(),
        args.out.display()
    );
    Ok(0)
}
