//! `warcdex cdx`: one CDX line per capture, with the record set and field values of
//! pywb 2.10 `cdx-indexer` (classic 11- and 9-field CDX) and of `cdxj-indexer` 1.5
//! (CDXJ), so the output is a drop-in for the index those tools write.
//!
//! The two tools disagree on details (see `docs/cdx-differences.md` and formats.md
//! §1.4): [`rules`] holds both rule sets; [`run`] handles several files, ordering,
//! sorting and output.

pub mod rules;
pub mod run;

use std::collections::BTreeMap;
use std::io::{self, Read};

use warcdex_cdx::{CdxFormat, CdxLine, KeyStyle};

use crate::error::{Anomaly, AnomalyCounts, Error};
use crate::reader::ArchiveReader;

/// What to index and how to write it.
#[derive(Debug, Clone, Copy)]
pub struct CdxOptions {
    /// Output layout; CDXJ follows `cdxj-indexer`, the classic layouts pywb `cdx-indexer`.
    pub format: CdxFormat,
    /// Index request records too (pywb `-a`).
    pub all_records: bool,
    /// Append the body of a POST/PUT request to its response's URL key (pywb `-p`).
    pub post_append: bool,
    /// SURT keys (default) or plain canonical URLs (pywb `-u`).
    pub key: KeyStyle,
}

impl Default for CdxOptions {
    fn default() -> Self {
        CdxOptions {
            format: CdxFormat::Cdx11,
            all_records: false,
            post_append: false,
            key: KeyStyle::Surt,
        }
    }
}

/// What one archive gave.
#[derive(Debug, Default)]
pub struct CdxReport {
    /// Records read.
    pub records: u64,
    /// CDX lines produced.
    pub lines: u64,
    /// Records not indexed, by rule (`warcinfo`, `request`, `arc-header`, ...).
    pub skipped: BTreeMap<&'static str, u64>,
    /// Reader anomalies and CDX-level problems, by kind.
    pub counts: AnomalyCounts,
    /// The error that stopped the file early, if one did (lines before it are kept).
    pub error: Option<Error>,
}

impl CdxReport {
    /// Adds another report's numbers to this one (the error is not carried).
    pub fn merge(&mut self, other: &CdxReport) {
        self.records += other.records;
        self.lines += other.lines;
        for (k, n) in &other.skipped {
            *self.skipped.entry(k).or_insert(0) += n;
        }
        self.counts.merge(&other.counts);
    }

    /// `warcinfo 3, request 10`, or `none`.
    pub fn skipped_summary(&self) -> String {
        if self.skipped.is_empty() {
            return "none".into();
        }
        self.skipped
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Indexes every record of `reader`, passing each CDX line to `emit` in file order
/// with the stored position reached (for progress).
/// `filename` is written in the filename column. Anomalies go to `on_anomaly` as they
/// are found, and captures that cannot be indexed to `on_problem`. A damaged file stops at the damage with the error in the report; only
/// errors from `emit` are returned as `Err`.
pub fn index_archive<R: Read>(
    reader: &mut ArchiveReader<R>,
    filename: &str,
    opts: &CdxOptions,
    emit: &mut dyn FnMut(&CdxLine, u64) -> io::Result<()>,
    on_anomaly: &mut dyn FnMut(&Anomaly),
    on_problem: &mut dyn FnMut(&str),
) -> io::Result<CdxReport> {
    let mut report = CdxReport::default();
    loop {
        let outcome = rules::next_line(reader, filename, opts);
        for a in reader.take_anomalies() {
            on_anomaly(&a);
        }
        match outcome {
            Ok(None) => break,
            Ok(Some(o)) => {
                report.records += 1;
                if let Some(a) = o.warning {
                    on_anomaly(&a);
                    report.counts.add(a.kind);
                }
                if let Some(p) = &o.problem {
                    on_problem(p);
                }
                if let Some(why) = o.skipped {
                    *report.skipped.entry(why).or_insert(0) += 1;
                }
                if let Some(line) = o.line {
                    report.lines += 1;
                    emit(&line, reader.stored_position())?;
                }
            }
            Err(e) => {
                report.error = Some(e);
                break;
            }
        }
    }
    let mut counts = reader.counts().clone();
    counts.merge(&report.counts);
    report.counts = counts;
    Ok(report)
}
