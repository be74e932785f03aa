//! `pindex.json`, written beside the files of every parallel index: what the directory
//! holds and how it was built. One type for both kinds ([`PindexInfo`]), tagged by its
//! `kind` field, read and written here only.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Error, Result};
use crate::path_error::ResultAtPath;

/// The file beside the index that describes it.
pub const PINDEX_FILE: &str = "pindex.json";

/// The format version of the parallel indexes written now, in their `pindex.json`'s
/// `version` (the same number for both kinds). Versions read: 1 and 2; a later one is
/// refused, as made by a newer warcdex.
///
/// - 1: a `pindex.json` without `version`, written before the field existed. A main
///   index of version 1 may be of any earlier layout, each still read and told apart by
///   its own files: stemmed fields `stem_*` and an indexed `main` field (before the
///   ranking dropped stems), no `anchor_from` field (before anchors were searched only
///   where their source page may be seen), no `near.sig` or one without a footer.
/// - 2: what is written now: no stemmed fields, `main` stored only, `anchor_from`, and
///   `near.sig` with its CRC-32 footer. A dates index holds the same in both versions.
pub const PINDEX_VERSION: u32 = 2;

/// The version of a `pindex.json` without `version`.
fn unversioned() -> u32 {
    1
}

/// `pindex.json`: a main index or a dates index. The `kind` field comes first in the
/// file, then the fields of the kind, in the order of the structs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum PindexInfo {
    /// `kind: main`, written by `index` and `merge`.
    Main(MainInfo),
    /// `kind: dates`, written by `add-dates`.
    Dates(DatesInfo),
}

/// `pindex.json` of a main index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MainInfo {
    /// Format version ([`PINDEX_VERSION`] when written now; 1 when absent).
    #[serde(default = "unversioned")]
    pub version: u32,
    /// Documents (DocIds 0..documents).
    pub documents: u64,
    /// SHA-1 (hex) over every key in document order, one per line: the alignment check
    /// of parallel indexes.
    pub key_checksum: String,
    /// The canonicalizer of the URL keys (`surt` or `url`).
    pub canonicalizer: String,
    /// The segments indexed, in argument order.
    pub sources: Vec<String>,
    /// Link analysis settings used.
    pub links: LinkOptions,
    /// `K/N` when only shard K of N was written (`index --shard`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
}

/// `pindex.json` of a dates index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatesInfo {
    /// Format version ([`PINDEX_VERSION`] when written now; 1 when absent).
    #[serde(default = "unversioned")]
    pub version: u32,
    /// Documents (= main's).
    pub documents: u64,
    /// main's `key_checksum` when this index was built.
    pub key_checksum: String,
    /// The key index (main) as given on the command line.
    pub main: String,
    /// The source indexes, in argument order.
    pub sources: Vec<String>,
    /// The dates lists (`-` = stdin).
    pub dates: Vec<String>,
    /// Whether NutchWAX's DateAdder order and duplicates were reproduced.
    pub compat: bool,
    /// What the run did.
    pub counts: DatesCounts,
}

/// Counts of one add-dates run, kept in the dates index's `pindex.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatesCounts {
    /// Documents written (= main's documents).
    pub documents: u64,
    /// Documents holding at least one date.
    pub documents_with_dates: u64,
    /// Documents that got at least one date from the dates lists that no source held.
    pub documents_with_dates_added: u64,
    /// Dates values written in total.
    pub dates_written: u64,
    /// Dates taken from the lists that no source held for that document (in `--compat`
    /// mode: every date appended from the lists).
    pub dates_added: u64,
    /// Lines read from the dates lists.
    pub lines: u64,
    /// Well-formed lines whose key matched a document.
    pub matched_lines: u64,
    /// Well-formed lines whose key matched no document.
    pub unmatched_lines: u64,
    /// Lines with fewer than three fields or a third field that is not a 14-digit date.
    pub malformed_lines: u64,
    /// Collections the lists named for a document that no source held for it (a version
    /// captured again in another collection).
    #[serde(default)]
    pub collections_added: u64,
}

/// Link analysis settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkOptions {
    /// Anchors of links within one host count as external ones (NutchWAX's option);
    /// otherwise they are kept apart, marked internal.
    pub internal_links: bool,
    /// PageRank damping factor.
    pub damping: f64,
    /// Iterations of the score distribution.
    pub iterations: u32,
    /// Boost = score ^ power.
    pub score_power: f64,
    /// Anchors kept per target URL.
    pub max_anchors: usize,
}

impl Default for LinkOptions {
    fn default() -> Self {
        LinkOptions {
            internal_links: false,
            damping: 0.85,
            iterations: 50,
            score_power: 0.5,
            max_anchors: 1000,
        }
    }
}

impl PindexInfo {
    /// The `kind` field: `main` or `dates`.
    pub fn kind(&self) -> &'static str {
        match self {
            PindexInfo::Main(_) => "main",
            PindexInfo::Dates(_) => "dates",
        }
    }

    /// The format version ([`PINDEX_VERSION`]).
    pub fn version(&self) -> u32 {
        match self {
            PindexInfo::Main(m) => m.version,
            PindexInfo::Dates(d) => d.version,
        }
    }

    /// The key checksum of the documents: main's own, or the one of the main index a
    /// dates index was built for.
    pub fn key_checksum(&self) -> &str {
        match self {
            PindexInfo::Main(m) => &m.key_checksum,
            PindexInfo::Dates(d) => &d.key_checksum,
        }
    }
}

/// Reads `pindex.json` of the index in `dir`.
pub fn read_info(dir: &Path) -> Result<PindexInfo> {
    let p = dir.join(PINDEX_FILE);
    let text = std::fs::read_to_string(&p).at(&p)?;
    let info: PindexInfo = serde_json::from_str(&text).at(&p)?;
    if info.version() > PINDEX_VERSION {
        return Err(Error::NewerFormat {
            path: p,
            version: info.version(),
            read: PINDEX_VERSION,
        });
    }
    Ok(info)
}

/// Reads `pindex.json` of the main index in `dir`; another kind is an error naming it.
pub fn read_main_info(dir: &Path) -> Result<MainInfo> {
    match read_info(dir)? {
        PindexInfo::Main(m) => Ok(m),
        other => Err(Error::NotAMainIndex {
            path: dir.join(PINDEX_FILE),
            kind: other.kind(),
        }),
    }
}

/// Writes `info` as `dir/pindex.json` (pretty JSON and a newline).
pub fn write_info(dir: &Path, info: &PindexInfo) -> Result<()> {
    let p = dir.join(PINDEX_FILE);
    let json = serde_json::to_string_pretty(info).at(&p)?;
    std::fs::write(&p, json + "\n").at(&p)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A main index's `pindex.json` as written before it had a version.
    const UNVERSIONED: &str = r#"{
  "kind": "main",
  "documents": 3,
  "key_checksum": "ab",
  "canonicalizer": "surt",
  "sources": ["seg"],
  "links": {
    "internal_links": false,
    "damping": 0.85,
    "iterations": 50,
    "score_power": 0.5,
    "max_anchors": 1000
  }
}
"#;

    #[test]
    fn a_pindex_json_without_a_version_reads_as_version_1() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(PINDEX_FILE), UNVERSIONED).unwrap();
        let info = read_main_info(dir.path()).unwrap();
        assert_eq!(info.version, 1);
        assert_eq!(info.documents, 3);
    }

    #[test]
    fn the_version_is_written_after_the_kind_and_a_newer_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(PINDEX_FILE), UNVERSIONED).unwrap();
        let mut info = read_info(dir.path()).unwrap();
        let PindexInfo::Main(m) = &mut info else {
            panic!("a main index")
        };
        m.version = PINDEX_VERSION;
        write_info(dir.path(), &info).unwrap();
        let text = std::fs::read_to_string(dir.path().join(PINDEX_FILE)).unwrap();
        let expected = UNVERSIONED.replace(
            "\"kind\": \"main\",\n",
            &format!("\"kind\": \"main\",\n  \"version\": {PINDEX_VERSION},\n"),
        );
        // Only the version is new: every other byte is as before.
        assert_eq!(text, expected.replace("[\"seg\"]", "[\n    \"seg\"\n  ]"));
        assert_eq!(read_info(dir.path()).unwrap(), info);

        let newer = text.replace(
            &format!("\"version\": {PINDEX_VERSION}"),
            &format!("\"version\": {}", PINDEX_VERSION + 1),
        );
        std::fs::write(dir.path().join(PINDEX_FILE), newer).unwrap();
        let e = read_info(dir.path()).unwrap_err();
        assert!(matches!(e, Error::NewerFormat { .. }), "{e}");
    }
}
