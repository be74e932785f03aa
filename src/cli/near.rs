//! `warcdex near-dups`, `warcdex history` and the hidden `warcdex fingerprints`: flags,
//! then the library (`warcdex::search::near_dups`, `warcdex::search::history`,
//! `warcdex::near`).

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};

use warcdex::near;
use warcdex::near::simhash::{self, Features, Weighting};
use warcdex::search::history::history;
use warcdex::search::near_dups::{search_dir_of, NearOptions};
use warcdex::search::SearchIndex;
use warcdex::segment::layout::ROWS_FILE;
use warcdex::segment::rows::read_rows;

use super::{with_output, MemoryFlags};

/// `warcdex near-dups`.
#[derive(Debug, Args)]
pub struct NearDupsArgs {
    /// A collection or a search directory (it holds `pindexes/<name>/main`), or one of
    /// its sets or main indexes (every set of that directory is read).
    pub dir: PathBuf,
    /// A version is a near-duplicate of its cluster's first when the two have the same
    /// title words and their texts' word 3-shingles resemble at least this much (the
    /// estimated Jaccard similarity, 0 to 1).
    #[arg(short = 't', long = "threshold", default_value_t = near::DEFAULT_THRESHOLD,
          value_parser = threshold)]
    pub threshold: f64,
    /// Versions with fewer words are not clustered (too short to judge).
    #[arg(long = "min-size", default_value_t = near::DEFAULT_MIN_WORDS)]
    pub min_size: u32,
    /// Write the clusters here instead of standard output.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub memory: MemoryFlags,
}

/// A resemblance between 0 and 1.
fn threshold(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if (0.0..=1.0).contains(&t) => Ok(t),
        _ => Err(format!("{s:?} is not a number from 0 to 1")),
    }
}

/// Lists the clusters; the counts go to stderr.
pub fn near_dups(a: NearDupsArgs) -> anyhow::Result<i32> {
    a.memory.check()?;
    let index = SearchIndex::open_released(&search_dir_of(&a.dir))?;
    let opts = NearOptions {
        threshold: a.threshold,
        min_words: a.min_size,
        memory: a.memory.bytes(16),
        tmp_dir: a.memory.tmp_dir.clone(),
    };
    let report = with_output(a.output.as_deref(), |out| {
        Ok(warcdex::search::near_dups::near_dups(&index, &opts, out)?)
    })?;
    eprintln!(
        "near-dups: {} versions, {} with fewer than {} words left out; {} distinct \
         sketches, {} pairs compared, {} near (resemblance at least {}); {} clusters of {} \
         versions (largest {})",
        report.documents,
        report.too_short,
        a.min_size,
        report.counts.distinct,
        report.counts.compared,
        report.counts.near_pairs,
        a.threshold,
        report.clusters,
        report.clustered,
        report.largest
    );
    Ok(0)
}

/// `warcdex history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The search directory (a collection or `index`'s output).
    #[arg(short = 'd', long = "dir", default_value = ".")]
    pub dir: PathBuf,
    /// Versions at most K bits apart are a minor change.
    #[arg(short = 'k', default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(0..=64))]
    pub k: u32,
    /// Versions with fewer words are not judged.
    #[arg(long = "min-size", default_value_t = near::DEFAULT_MIN_WORDS)]
    pub min_size: u32,
    /// JSON lines instead of tab-separated ones.
    #[arg(long)]
    pub json: bool,
    /// The URL.
    pub url: String,
}

/// Prints each version of the URL: `FIRST_DATE14<TAB>sha1:DIGEST<TAB>DISTANCE<TAB>CHANGE
/// <TAB>CAPTURES<TAB>DATES` (dates joined by commas; `-` for the first version's distance).
pub fn history_cmd(a: HistoryArgs) -> anyhow::Result<i32> {
    let index = SearchIndex::open_released(&search_dir_of(&a.dir))?;
    let versions = history(&index, &a.url, a.k, a.min_size)?;
    if versions.is_empty() {
        eprintln!("history: no version of {} in {}", a.url, a.dir.display());
        return Ok(1);
    }
    with_output(None, |out| {
        for v in &versions {
            if a.json {
                serde_json::to_writer(&mut *out, v)?;
                writeln!(out)?;
                continue;
            }
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}",
                v.dates.first().map_or("-", String::as_str),
                v.digest,
                v.distance
                    .map_or_else(|| "-".to_string(), |d| d.to_string()),
                v.change.label(),
                v.dates.len(),
                v.dates.join(",")
            )?;
        }
        Ok(())
    })?;
    Ok(0)
}

/// How the hidden `fingerprints` command weighs features.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum WeightingArg {
    /// Each distinct shingle once.
    Set,
    /// Each occurrence.
    Count,
    /// 1 + log2 of the occurrences.
    Log,
}

/// `warcdex fingerprints` (hidden): the fingerprint of every row of a segment with the
/// features asked, for scripts/near-dups-eval.py's measurements.
#[derive(Debug, Args)]
pub struct FingerprintsArgs {
    /// The segment directory.
    pub segment: PathBuf,
    /// Words per shingle.
    #[arg(long, default_value_t = Features::default().shingle)]
    pub shingle: usize,
    /// How repeated shingles count.
    #[arg(long, value_enum, default_value_t = WeightingArg::Set)]
    pub weighting: WeightingArg,
    /// The whole text's weight against the main content's, in quarters (0: the main
    /// content alone; 4: the whole text alone).
    #[arg(long = "boilerplate", default_value_t = Features::default().boilerplate_quarters,
          value_parser = clap::value_parser!(u8).range(0..=4))]
    pub boilerplate: u8,
}

/// Prints `KEY<TAB>SIMHASH(16 hex)<TAB>WORDS` per row.
pub fn fingerprints(a: FingerprintsArgs) -> anyhow::Result<i32> {
    let features = Features {
        shingle: a.shingle,
        weighting: match a.weighting {
            WeightingArg::Set => Weighting::Set,
            WeightingArg::Count => Weighting::Count,
            WeightingArg::Log => Weighting::LogCount,
        },
        boilerplate_quarters: a.boilerplate,
    };
    let rows = read_rows(&a.segment.join(ROWS_FILE))
        .with_context(|| format!("reading {}", a.segment.display()))?;
    with_output(None, |out| {
        for row in rows {
            let row = row?;
            let f = simhash::fingerprint_with(&row.text, row.main_text.as_deref(), features);
            writeln!(out, "{}\t{:016x}\t{}", row.key, f.hash, f.words)?;
        }
        Ok(())
    })?;
    Ok(0)
}
