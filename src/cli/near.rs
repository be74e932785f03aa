//! `warcdex near-dups` and `warcdex history`: flags, then the library
//! (`warcdex::search::near_dups`, `warcdex::search::history`).

use std::path::PathBuf;

use clap::Args;

use warcdex::near;
use warcdex::search::history::history;
use warcdex::search::near_dups::{search_dir_of, NearOptions};
use warcdex::search::SearchIndex;

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
    let bar = warcdex::progress::count_bar(0, "near-dups", "versions");
    let report = with_output(a.output.as_deref(), |out| {
        Ok(warcdex::search::near_dups::near_dups(
            &index, &opts, out, &bar,
        )?)
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
    /// JSON lines instead of tab-separated ones.
    #[arg(long)]
    pub json: bool,
    /// The URL.
    pub url: String,
}

/// Prints each version of the URL: `FIRST_DATE14<TAB>sha1:DIGEST<TAB>CHANGED<TAB>CHANGE
/// <TAB>CAPTURES<TAB>DATES`: the share of words changed from the version before (`-` for
/// the first), what kind of change, the captures and their dates joined by commas.
pub fn history_cmd(a: HistoryArgs) -> anyhow::Result<i32> {
    let index = SearchIndex::open_released(&search_dir_of(&a.dir))?;
    let versions = history(&index, &a.url)?;
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
                v.changed_label(),
                v.change.label(),
                v.dates.len(),
                v.dates.join(",")
            )?;
        }
        Ok(())
    })?;
    Ok(0)
}

/// `warcdex diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The search directory (a collection or `index`'s output).
    #[arg(short = 'd', long = "dir", default_value = ".")]
    pub dir: PathBuf,
    /// The URL.
    pub url: String,
    /// The older date: 4 to 14 digits (`2025`, `20250301`, `20250301060000`); the
    /// version with the capture nearest it.
    pub date1: String,
    /// The newer date, as DATE1.
    pub date2: String,
}

/// Prints the two versions (`old`/`new`, capture date, digest, words), the share of
/// words changed (`changed`, removed, added), then the text with removed words in
/// `[-…-]` and added ones in `{+…+}`. Exit 1 when the URL has no version.
pub fn diff_cmd(a: DiffArgs) -> anyhow::Result<i32> {
    use warcdex::near::word_diff::{percent, word_diff_text};
    use warcdex::search::history::{diff_versions, pad_date};
    for d in [&a.date1, &a.date2] {
        if pad_date(d).is_none() {
            anyhow::bail!("{d:?} is not a date: give 4 to 14 digits (YYYY[MM[DD[hh[mm[ss]]]]])");
        }
    }
    let index = SearchIndex::open_released(&search_dir_of(&a.dir))?;
    let Some(v) = diff_versions(&index, &a.url, &a.date1, &a.date2, None)? else {
        eprintln!("diff: no version of {} in {}", a.url, a.dir.display());
        return Ok(1);
    };
    let (diff, (old, at1), (new, at2)) = (&v.diff, &v.old, &v.new);
    with_output(None, |out| {
        writeln!(out, "old\t{at1}\t{}\t{} words", old.digest, diff.old_words)?;
        writeln!(out, "new\t{at2}\t{}\t{} words", new.digest, diff.new_words)?;
        writeln!(
            out,
            "changed\t{}\tremoved {}\tadded {}{}",
            percent(diff.share_changed()),
            diff.removed,
            diff.added,
            if diff.cut { "\t(texts cut)" } else { "" }
        )?;
        writeln!(out, "{}", word_diff_text(diff))?;
        Ok(())
    })?;
    Ok(0)
}
