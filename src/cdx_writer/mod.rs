//! `warcdex cdx`: one CDX line per capture, with the record set and field values of
//! pywb 2.10 `cdx-indexer` (classic 11- and 9-field CDX) and of `cdxj-indexer` 1.5
//! (CDXJ), so the output is a drop-in for the index those tools write.
//!
//! The two tools disagree on details (see `docs/cdx-differences.md` and docs/formats.md
//! §1.4): [`rules`] holds both rule sets; [`run`] handles several files, ordering,
//! sorting and output; [`zipnum`] writes a sorted CDX as a ZipNum cluster
//! (`sort-cdx --zipnum`).

pub mod pieces;
pub mod post;
pub mod rules;
pub mod run;
pub mod zipnum;

use std::collections::BTreeMap;
use std::io::{self, Read};

use warcdex_cdx::{CdxFormat, CdxLine, KeyStyle};

use crate::reader::error::{Anomaly, AnomalyCounts, Error};
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
/// are found, and captures that cannot be indexed to `on_problem`. A record lost to a
/// damaged gzip member is counted and skipped; another error stops the file there, with
/// the error in the report; only errors from `emit` are returned as `Err`.
pub fn index_archive<R: Read>(
    reader: &mut ArchiveReader<R>,
    filename: &str,
    opts: &CdxOptions,
    emit: &mut dyn FnMut(&CdxLine, u64) -> io::Result<()>,
    on_anomaly: &mut dyn FnMut(&Anomaly),
    on_problem: &mut dyn FnMut(&str),
) -> io::Result<CdxReport> {
    let mut report = CdxReport::default();
    // POST append pairs each record with the one before it, so one waits.
    let mut waiting: Option<rules::Outcome> = None;
    loop {
        let outcome = rules::next_line(reader, filename, opts);
        for a in reader.take_anomalies() {
            on_anomaly(&a);
        }
        let pos = reader.stored_position();
        match outcome {
            Ok(None) => break,
            Ok(Some(mut o)) => {
                report.records += 1;
                if let Some(a) = o.warning.take() {
                    on_anomaly(&a);
                    report.counts.add(a.kind);
                }
                if let Some(p) = &o.problem {
                    on_problem(p);
                }
                if let Some(why) = o.skipped {
                    *report.skipped.entry(why).or_insert(0) += 1;
                }
                if o.line.is_none() {
                    continue;
                }
                if o.join.is_none() {
                    emit_outcome(o, &mut report, pos, emit)?;
                    continue;
                }
                match waiting.take() {
                    None => waiting = Some(o),
                    Some(mut prev) => {
                        if join_request(&mut prev, &mut o, opts) {
                            emit_outcome(prev, &mut report, pos, emit)?;
                            emit_outcome(o, &mut report, pos, emit)?;
                        } else {
                            emit_outcome(prev, &mut report, pos, emit)?;
                            waiting = Some(o);
                        }
                    }
                }
            }
            // Counted (and reported) as `lost-record` by the reader, which reads on.
            Err(e) if e.is_record_lost() => {}
            Err(e) => {
                report.error = Some(e);
                break;
            }
        }
    }
    if let Some(prev) = waiting {
        emit_outcome(prev, &mut report, reader.stored_position(), emit)?;
    }
    let mut counts = reader.counts().clone();
    counts.merge(&report.counts);
    report.counts = counts;
    Ok(report)
}

fn emit_outcome(
    o: rules::Outcome,
    report: &mut CdxReport,
    pos: u64,
    emit: &mut dyn FnMut(&CdxLine, u64) -> io::Result<()>,
) -> io::Result<()> {
    match o.line {
        Some(line) if !o.hidden => {
            report.lines += 1;
            emit(&line, pos)
        }
        Some(_) => {
            *report.skipped.entry("request").or_insert(0) += 1;
            Ok(())
        }
        None => Ok(()),
    }
}

/// pywb's `join_request_records`: a response and its request, adjacent, same URL, the
/// second concurrent to the first; the request's method and body are appended to the
/// URL of both keys. Returns true when the two were paired.
fn join_request(prev: &mut rules::Outcome, cur: &mut rules::Outcome, opts: &CdxOptions) -> bool {
    let (Some(a), Some(b)) = (&prev.join, &cur.join) else {
        return false;
    };
    if a.url != b.url || b.concurrent_to != a.record_id {
        return false;
    }
    let query = match (&a.request_query, &b.request_query) {
        (Some(q), None) | (None, Some(q)) => q.clone(),
        _ => return false,
    };
    if let Some(q) = query {
        let new_url = post::append_query(&a.url, &q);
        let mut scratch = rules::Outcome::default();
        let key = rules::key_or_raw(&new_url, opts.key, 0, &mut scratch);
        for o in [prev, cur] {
            if let Some(l) = o.line.as_deref_mut() {
                l.urlkey = key.clone();
            }
        }
    }
    true
}
