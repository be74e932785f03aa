//! `warcdex near-dups`: clusters of near-duplicate versions, each
//! version near the first of its cluster (`crate::near::leaders`). `warcdex history`
//! (`history.rs`) shows how each version of a URL differs from the one before.
//!
//! The signatures come from each set's `near.sig` (`crate::near::sig_file`), for every
//! set of a search directory (a collection or `index`'s output), opened through the same
//! [`SearchIndex`] the search opens, so the dates are those a search shows. Versions are
//! clustered in the order of their first capture, then digest and URL: the same clusters
//! however the collection is cut into sets or shards. The listing is written through
//! external sorts, so it holds one cluster line at a time whatever the clusters' sizes.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tantivy::columnar::StrColumn;
use warcdex_cdx::{ExternalSorter, SortOptions};

use super::{OpenSet, SearchIndex};
use crate::near::clusters::{ClusterCounts, UnionFind};
use crate::near::sig_file::SigFile;
use crate::near::{LeaderClusters, DEFAULT_MIN_WORDS, DEFAULT_THRESHOLD};
use crate::path_error::ResultAtPath;
use crate::progress::Progress;

/// What went wrong finding near-duplicates.
#[derive(Debug, thiserror::Error)]
pub enum NearError {
    /// Reading or writing failed (the sorts' temporary files, the output).
    #[error(transparent)]
    Io(#[from] io::Error),
    /// An index's columns could not be read.
    #[error("{}", dir.display())]
    Index {
        /// The main index.
        dir: PathBuf,
        /// What tantivy said.
        source: tantivy::TantivyError,
    },
    /// An index built before signatures were stored.
    #[error(
        "{}: this index has no near-duplicate signatures (built before they were \
         stored in near.sig): rebuild it with `warcdex index`, or a collection's \
         sets with `warcdex update --compact`",
        .0.display()
    )]
    NoFingerprints(PathBuf),
    /// A version's indexed text could not be read (`history`).
    #[error("{}", dir.display())]
    Text {
        /// The main index.
        dir: PathBuf,
        /// What reading it said.
        source: Box<super::SearchError>,
    },
    /// More documents than the clustering numbers.
    #[error(
        "more than {} documents in the sets: near-dups numbers them in 32 bits",
        u32::MAX
    )]
    TooManyDocuments,
}

/// How `near-dups` clusters.
#[derive(Debug, Clone)]
pub struct NearOptions {
    /// The least estimated resemblance (0 to 1) of a version to its cluster's first.
    pub threshold: f64,
    /// Documents with fewer words are left out (too short to judge).
    pub min_words: u32,
    /// Memory for the sorts, in bytes.
    pub memory: usize,
    /// Where the sorts spill.
    pub tmp_dir: Option<PathBuf>,
}

impl Default for NearOptions {
    fn default() -> Self {
        NearOptions {
            threshold: DEFAULT_THRESHOLD,
            min_words: DEFAULT_MIN_WORDS,
            memory: 256 << 20,
            tmp_dir: None,
        }
    }
}

/// What `near-dups` counted, for its summary on stderr.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct NearReport {
    /// Documents in the sets.
    pub documents: u64,
    /// Documents left out for having fewer than `min_words` words.
    pub too_short: u64,
    /// What clustering counted.
    pub counts: ClusterCounts,
    /// Clusters of two or more versions.
    pub clusters: u64,
    /// Versions in those clusters.
    pub clustered: u64,
    /// Versions in the largest cluster.
    pub largest: u64,
}

/// The key column of one set's main index; `None` for an empty index.
pub(crate) struct KeyColumn {
    /// `URL sha1:DIGEST` of each document.
    pub key: StrColumn,
}

impl KeyColumn {
    /// Opens the column of `set`'s main index.
    pub(crate) fn open(set: &OpenSet) -> Result<Option<KeyColumn>, NearError> {
        let Some(seg) = set.searcher.segment_readers().first() else {
            return Ok(None);
        };
        let dir = &set.main_dir;
        let key = seg
            .fast_fields()
            .str("key")
            .map_err(|source| NearError::Index {
                dir: dir.clone(),
                source,
            })?
            .ok_or_else(|| NearError::NoFingerprints(dir.clone()))?;
        Ok(Some(KeyColumn { key }))
    }
}

/// The search directory (the one holding `pindexes/`) that `path` names or lies in: the
/// directory itself, or for `X/pindexes`, `X/pindexes/SET` or `X/pindexes/SET/main`
/// (what `index --out` was given), `X`. Anything else is returned as it is, for
/// [`SearchIndex::open`] to refuse with its message.
pub fn search_dir_of(path: &Path) -> PathBuf {
    if path.join("pindexes").is_dir() {
        return path.to_path_buf();
    }
    let named = |p: &Path, name: &str| p.file_name().is_some_and(|n| n == name);
    let mut p = path;
    for _ in 0..3 {
        if named(p, "pindexes") {
            return p
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        }
        match p.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => p = parent,
            _ => break,
        }
    }
    path.to_path_buf()
}

/// Splits `URL sha1:DIGEST` at its last space.
pub(crate) fn split_key(key: &str) -> (&str, &str) {
    key.rsplit_once(' ').unwrap_or((key, ""))
}

/// A capture date as 14 digits, or `-` for a version without a possible one.
fn first_date14(dates: &[u64]) -> String {
    dates
        .first()
        .map_or_else(|| "-".to_string(), |&d| super::date14(d))
}

/// Tabs and line ends in a URL (which a WARC header can carry) would break the lines.
fn clean(field: &str) -> std::borrow::Cow<'_, str> {
    if field.contains(['\t', '\n', '\r']) {
        field
            .replace('\t', "%09")
            .replace('\n', "%0A")
            .replace('\r', "%0D")
            .into()
    } else {
        field.into()
    }
}

/// Lists every cluster of two or more near-duplicate versions of the search directory's
/// sets as `CLUSTER<TAB>URL<TAB>sha1:DIGEST<TAB>FIRST_DATE14` lines, sorted by cluster, then
/// URL, then digest; clusters are numbered from 1 in the order of their first version.
/// `progress` counts the versions read (the caller draws it, if anything).
pub fn near_dups(
    index: &SearchIndex,
    opts: &NearOptions,
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<NearReport, NearError> {
    let sets: Vec<&OpenSet> = index.live_sets().collect();
    let mut columns = Vec::with_capacity(sets.len());
    let mut bases = Vec::with_capacity(sets.len());
    let mut total: u64 = 0;
    for set in &sets {
        columns.push(KeyColumn::open(set)?);
        bases.push(total);
        total += u64::from(set.docs);
    }
    let total = u32::try_from(total).map_err(|_| NearError::TooManyDocuments)?;
    let mut report = NearReport {
        documents: u64::from(total),
        ..NearReport::default()
    };
    let sort = SortOptions {
        memory: opts.memory,
        tmp_dir: opts.tmp_dir.clone(),
        unique: false,
    };
    let mut uf = UnionFind::new(total);
    let mut leaders = LeaderClusters::new(&sort, opts.threshold)?;
    progress.start(u64::from(total));
    for ((set, cols), base) in sets.iter().zip(&columns).zip(&bases) {
        let Some(cols) = cols else { continue };
        let sigs = SigFile::open(&set.main_dir)?
            .ok_or_else(|| NearError::NoFingerprints(set.main_dir.clone()))?;
        // Each version's place in the order of first captures needs its URL and
        // digest.
        let mut order = Vec::new();
        keys_in_order(set, &cols.key, 0..set.docs, |doc, bytes| {
            progress.advance(1);
            let sig = sigs
                .get(doc)?
                .ok_or_else(|| damaged(&set.main_dir, "near.sig"))?;
            if sig.words < opts.min_words {
                report.too_short += 1;
                return Ok(());
            }
            let key = String::from_utf8_lossy(bytes);
            let (url, digest) = split_key(&key);
            order.clear();
            order.extend_from_slice(first_date14(set.dates.of(doc)).as_bytes());
            order.push(1);
            order.extend_from_slice(digest.as_bytes());
            order.push(1);
            order.extend_from_slice(url.as_bytes());
            leaders.push(*base as u32 + doc, &order, &sig)
        })?;
    }
    report.counts = leaders.cluster(&mut uf)?;
    progress.finish();
    // The listing's two sorts overlap while the first is read back: half the budget each.
    let sort = SortOptions {
        memory: (sort.memory / 2).max(1 << 20),
        ..sort
    };

    // Members of clusters of two or more, keyed by their cluster's root: `ROOT\tURL\tDIGEST\tDATE`.
    let mut by_root = ExternalSorter::new(sort.clone());
    for ((set, cols), base) in sets.iter().zip(&columns).zip(&bases) {
        let Some(cols) = cols else { continue };
        let base = *base as u32;
        let members: Vec<u32> = (0..set.docs)
            .filter(|&doc| {
                let root = uf.find(base + doc);
                uf.size_of_root(root) >= 2
            })
            .collect();
        keys_in_order(set, &cols.key, members.into_iter(), |doc, bytes| {
            let root = uf.find(base + doc);
            let key = String::from_utf8_lossy(bytes);
            let (url, digest) = split_key(&key);
            let line = format!(
                "{root:08x}\t{}\t{}\t{}",
                clean(url),
                clean(digest),
                first_date14(set.dates.of(doc))
            );
            by_root.push(line.as_bytes())
        })?;
    }
    // Each cluster keyed by its first member, so clusters sort in that order.
    let mut by_first = ExternalSorter::new(sort);
    let mut root: Vec<u8> = Vec::new();
    let mut first: Vec<u8> = Vec::new();
    let mut line_out: Vec<u8> = Vec::new();
    by_root.finish_with(|line| {
        let (r, member) = line.split_at(8.min(line.len()));
        let member = member.strip_prefix(b"\t").unwrap_or(member);
        if r != root.as_slice() {
            root.clear();
            root.extend_from_slice(r);
            // The URL and digest of the first member (sorted first within its root).
            first.clear();
            let mut parts = member.splitn(3, |b| *b == b'\t');
            first.extend_from_slice(parts.next().unwrap_or_default());
            first.push(1);
            first.extend_from_slice(parts.next().unwrap_or_default());
        }
        line_out.clear();
        line_out.extend_from_slice(&first);
        line_out.push(1);
        line_out.extend_from_slice(member);
        by_first.push(&line_out)
    })?;
    let mut cluster = 0u64;
    let mut size = 0u64;
    let mut current: Vec<u8> = Vec::new();
    by_first.finish_with(|line| {
        // `FIRST_URL \x01 FIRST_DIGEST \x01 URL \t DIGEST \t DATE`
        let cut = nth_index(line, 1, 2).unwrap_or(line.len());
        let (head, member) = line.split_at(cut);
        if head != current.as_slice() {
            current.clear();
            current.extend_from_slice(head);
            cluster += 1;
            report.largest = report.largest.max(size);
            size = 0;
        }
        size += 1;
        report.clustered += 1;
        write!(out, "{cluster}\t")?;
        out.write_all(&member[1..])?;
        out.write_all(b"\n")
    })?;
    report.largest = report.largest.max(size);
    report.clusters = cluster;
    Ok(report)
}

/// Calls `f` with each of `docs` of `set` (those with a key) and its `URL sha1:DIGEST`
/// key, in the order of the key column's dictionary, so that each block of it is
/// decompressed once for all the keys in it; the first error stops the walk.
fn keys_in_order(
    set: &OpenSet,
    key: &StrColumn,
    docs: impl Iterator<Item = u32>,
    mut f: impl FnMut(u32, &[u8]) -> io::Result<()>,
) -> Result<(), NearError> {
    let mut by_ord: Vec<(u64, u32)> = docs
        .filter_map(|doc| Some((key.term_ords(doc).next()?, doc)))
        .collect();
    by_ord.sort_unstable();
    let ords: Vec<u64> = by_ord.iter().map(|m| m.0).collect();
    let mut next = 0usize;
    let mut failed: Option<io::Error> = None;
    let found = key
        .dictionary()
        .sorted_ords_to_term_cb(&ords, |bytes| {
            let doc = by_ord[next].1;
            next += 1;
            if failed.is_none() {
                if let Err(e) = f(doc, bytes) {
                    failed = Some(e);
                }
            }
        })
        .at(&set.main_dir)
        .map_err(io::Error::from)?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    if !found || next != by_ord.len() {
        return Err(damaged(&set.main_dir, "key").into());
    }
    Ok(())
}

/// The position of the `n`th `byte` of `line` (1-based).
fn nth_index(line: &[u8], byte: u8, n: usize) -> Option<usize> {
    line.iter()
        .enumerate()
        .filter(|(_, b)| **b == byte)
        .nth(n - 1)
        .map(|(i, _)| i)
}

fn damaged(dir: &Path, column: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: damaged {column} column", dir.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_or_its_main_index_names_its_search_directory() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("coll/pindexes/b1/main");
        std::fs::create_dir_all(&main).unwrap();
        let coll = dir.path().join("coll");
        for p in [
            &coll,
            &coll.join("pindexes"),
            &main.parent().unwrap().to_path_buf(),
            &main,
        ] {
            assert_eq!(search_dir_of(p), coll, "{}", p.display());
        }
        let other = dir.path().join("elsewhere/main");
        assert_eq!(search_dir_of(&other), other);
    }
}
