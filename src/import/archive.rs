//! The batch driver: one archive (each WARC of a WACZ) read record by record, its
//! captures gathered in batches and parsed on the thread pool while the next batch is
//! read.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Mutex;

use warcdex_cdx::rendered::TextSource;
use warcdex_cdx::url_key;

use super::capture::{capture_of, seconds_of, Claimed, Ctx};
use super::exclusions::Exclusions;
use super::manifest::ManifestEntry;
use super::parse::{parse_batch, ELEMENT_CAP};
use super::rendered::{PageJoin, Text};
use super::versions::{Order, VersionKey, Versions};
use super::{ImportOptions, SourceReport};
use crate::reader::error::AnomalyCounts;
use crate::reader::wacz::archive_parts;
use crate::reader::{ArchiveReader, ReaderOptions};
use warcdex_cdx::message::MESSAGES_PER_FILE;

/// Parse jobs are gathered until this many payload bytes wait, then parsed on the
/// thread pool: reading an archive is sequential, parsing its pages need not be.
const PARSE_BATCH_BYTES: usize = 16 << 20;

/// A batch is also parsed once this many captures wait (pages of a few bytes each).
const PARSE_BATCH_CAPTURES: usize = 1024;

/// An archive's path relative to `base` (the manifest's folder) when it lies inside
/// it; absolute when it lies outside, so that the row does not depend on the working
/// directory import ran in; without a base (or when the path cannot be resolved), the
/// path as the manifest gave it.
fn archive_name(path: &Path, base: Option<&Path>) -> String {
    let resolved = base.and_then(|b| {
        let p = std::fs::canonicalize(path).ok()?;
        let b = std::fs::canonicalize(if b.as_os_str().is_empty() {
            Path::new(".")
        } else {
            b
        })
        .ok()?;
        Some(match p.strip_prefix(&b) {
            Ok(inside) => inside.to_path_buf(),
            Err(_) => p,
        })
    });
    resolved
        .as_deref()
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

pub(super) fn import_one(
    index: usize,
    entry: &ManifestEntry,
    exclusions: Option<&Exclusions>,
    opts: &ImportOptions,
    versions: &Versions,
    log: &(dyn Fn(&str) + Sync),
) -> SourceReport {
    let name = entry.path.display().to_string();
    let collection = entry
        .collection
        .clone()
        .unwrap_or_else(|| opts.collection.clone());
    let mut report = SourceReport {
        path: name.clone(),
        collection: collection.clone(),
        ..SourceReport::default()
    };
    let parts = match archive_parts(&entry.path) {
        Ok(p) => p,
        Err(e) => {
            log(&format!("{e}"));
            report.error = Some(e.to_string());
            return report;
        }
    };
    if opts.verify_wacz {
        if let Some((wacz, _)) = &parts[0].in_wacz {
            // Import has no --max-messages: the cap of its other per-file messages.
            let problems = match wacz.verify(MESSAGES_PER_FILE as usize) {
                Ok(v) if v.is_whole() => None,
                Ok(v) => Some(v.problems_line()),
                Err(e) => Some(e.to_string()),
            };
            if let Some(problems) = problems {
                let e = format!("{name}: not imported, verification failed: {problems}");
                log(&e);
                report.error = Some(e);
                return report;
            }
        }
    }
    // A WACZ's page list titles the pages whose own title is missing.
    let titles = match &parts[0].in_wacz {
        Some((wacz, _)) => match wacz.page_titles() {
            Ok(pt) => {
                for m in &pt.messages {
                    log(m);
                }
                if pt.long_lines > 0 {
                    *report.anomalies.entry(LONG_PAGE_LINE.into()).or_default() += pt.long_lines;
                }
                let more = pt.long_lines - pt.messages.len() as u64;
                if more > 0 {
                    log(&format!(
                        "{name}: … and {more} more page list lines longer than {} MiB skipped",
                        crate::reader::wacz::MAX_PAGE_LINE_BYTES >> 20
                    ));
                }
                if pt.over > 0 {
                    log(&format!(
                        "{name}: {} page titles past the first {} (or {} MiB) not used",
                        pt.over,
                        crate::reader::wacz::MAX_PAGE_TITLES,
                        crate::reader::wacz::MAX_PAGE_TITLE_BYTES >> 20
                    ));
                }
                pt.titles
            }
            Err(e) => {
                log(&format!("{e}; page titles not used"));
                HashMap::new()
            }
        },
        None => HashMap::new(),
    };
    let archive = archive_name(&entry.path, opts.archive_base.as_deref());
    let join = Mutex::new(PageJoin::new(opts.memory / JOIN_SHARE));
    // Excluded records are passed over unread only in an archive file: a WACZ's
    // offsets are its WARCs', and its rendered texts join excluded pages too.
    let excluded_spans = (parts.len() == 1 && parts[0].in_wacz.is_none())
        .then(|| opts.excluded_spans.get(&entry.path))
        .flatten();
    for (part_index, part) in parts.iter().enumerate() {
        let reader = match part.open(ReaderOptions::default()) {
            Ok(mut r) => {
                if let Some(spans) = excluded_spans {
                    r.skip_members(spans.clone());
                }
                r
            }
            Err(e) => {
                log(&format!("{e}"));
                report.error.get_or_insert_with(|| e.to_string());
                continue;
            }
        };
        let filename = part.filename();
        let part_name = part.display_path();
        let ctx = Ctx {
            index,
            part: part_index,
            filename: &filename,
            archive: &archive,
            now: warcdex_cdx::date::now_micros(),
            collection: &collection,
            exclusions,
            opts,
            versions,
            join: &join,
        };
        let shown_name = part_name.display().to_string();
        let mut reading = Reading {
            reader,
            name: &shown_name,
            path: &part_name,
            shown: 0,
            done: false,
        };
        // Double-buffered: the next batch is read (a sequential inflate) while the pool
        // parses this one, so the threads are not idle while one of them reads.
        let mut batch = reading.next_batch(&ctx, &mut report, log);
        while !batch.is_empty() {
            let (failures, next) = rayon::join(
                || parse_batch(&mut batch, opts.content_limit, versions, &titles),
                || reading.next_batch(&ctx, &mut report, log),
            );
            report.parse_failures += failures.0;
            for (k, n) in failures.1 {
                if k == ELEMENT_CAP {
                    report.element_cap += n;
                } else {
                    *report.pdf.entry(k).or_default() += n;
                }
            }
            batch = next;
        }
        let reader = reading.reader;
        // Each span passed over was a record read and excluded.
        report.records += reader.members_skipped();
        report.excluded += reader.members_skipped();
        for (kind, n) in anomaly_map(reader.counts()) {
            *report.anomalies.entry(kind).or_default() += n;
        }
    }
    let mut join = join.into_inner().expect("page join lock");
    if let Some((wacz, _)) = &parts[0].in_wacz {
        page_list_texts(wacz, index, opts, versions, &mut join, log);
    }
    join.finish();
    if join.unmatched > 0 {
        log(&format!(
            "{name}: {} rendered texts (urn:text records, page list texts) found no page \
             capture of their URL in the archive: not indexed",
            join.unmatched
        ));
        *report
            .anomalies
            .entry(RENDERED_UNMATCHED.into())
            .or_default() += join.unmatched;
    }
    report
}

/// The share of the import's memory each archive's page join may hold, for its page
/// captures and as much again for the texts waiting for theirs (two archives are read
/// at once on two cores).
const JOIN_SHARE: usize = 16;

/// The anomaly a page list line over [`crate::reader::wacz::MAX_PAGE_LINE_BYTES`] (its
/// title and text not read) is counted under.
const LONG_PAGE_LINE: &str = "page-list-line-too-long";

/// The anomaly a rendered text that found no page is counted under.
pub(super) const RENDERED_UNMATCHED: &str = "rendered-text-unmatched";

/// The texts of a WACZ's page list (`pages.jsonl` `text`, Browsertrix Crawler's
/// `--text to-pages`), joined to the page captures of its WARCs, all of which have been
/// read: the poorest source, taken when no record of rendered text is richer.
fn page_list_texts(
    wacz: &crate::reader::wacz::Wacz,
    index: usize,
    opts: &ImportOptions,
    versions: &Versions,
    join: &mut PageJoin,
    log: &(dyn Fn(&str) + Sync),
) {
    let mut line = 0u64;
    let mut offer =
        |v: &VersionKey, o: &Order, s: TextSource, t: String| versions.offer_text(v, o, s, &t);
    let read = wacz.page_texts(|url, ts, words| {
        line += 1;
        let urlkey = url_key(url, opts.key).unwrap_or_else(|_| url.to_string());
        let date = ts.map(crate::reader::date::iso_to_14).unwrap_or_default();
        let (words, _, _) = crate::html::plain_text(
            words.as_bytes(),
            Some("text/plain; charset=utf-8"),
            opts.content_limit,
        );
        let text = Text {
            seconds: seconds_of(&date),
            // After every record of the WACZ: a page list has no offsets.
            order: (date, index, usize::MAX, line),
            source: TextSource::Pages,
            text: words,
        };
        join.text(&urlkey, text, false, &mut offer);
    });
    if let Err(e) = read {
        log(&format!("{e}; page list texts not used"));
    }
}

/// An archive being read in batches of captures to parse.
struct Reading<'a> {
    reader: ArchiveReader<crate::reader::Input>,
    name: &'a str,
    path: &'a Path,
    /// Anomalies logged so far (the first five are).
    shown: usize,
    /// The archive ended, or an error stopped it.
    done: bool,
}

impl Reading<'_> {
    /// Reads on until [`PARSE_BATCH_BYTES`] of payload or [`PARSE_BATCH_CAPTURES`]
    /// captures wait to be parsed, or the archive ends (an empty batch then).
    fn next_batch(
        &mut self,
        ctx: &Ctx<'_>,
        report: &mut SourceReport,
        log: &(dyn Fn(&str) + Sync),
    ) -> Vec<Claimed> {
        let (mut pending, mut pending_bytes) = (Vec::new(), 0usize);
        while !self.done
            && pending_bytes < PARSE_BATCH_BYTES
            && pending.len() < PARSE_BATCH_CAPTURES
        {
            let outcome = match self.reader.next_record() {
                Ok(None) => {
                    self.done = true;
                    break;
                }
                Ok(Some(mut rec)) => {
                    report.records += 1;
                    match capture_of(&mut rec, ctx, report) {
                        Ok(claimed) => match rec.finish() {
                            Ok(span) => Ok((claimed, span)),
                            // Its bytes were in a damaged gzip member (the reader counts
                            // it as `lost-record`): not a record read, not a capture.
                            Err(e) if e.is_record_lost() => {
                                report.records -= 1;
                                if let Some(c) = claimed {
                                    report.imported -= 1;
                                    ctx.versions.withdraw(&c.key, &c.order);
                                }
                                Ok((
                                    None,
                                    crate::reader::Span {
                                        offset: 0,
                                        length: 0,
                                    },
                                ))
                            }
                            Err(e) => Err(e),
                        },
                        Err(e) => Err(e),
                    }
                }
                Err(e) => Err(e),
            };
            for a in self.reader.take_anomalies() {
                self.shown += 1;
                if self.shown <= 5 {
                    log(&format!("{}: {a}", self.name));
                }
            }
            match outcome {
                Ok((Some(mut c), span)) => {
                    c.row.offset = span.offset;
                    c.row.length = span.length;
                    pending_bytes += c.body.len();
                    pending.push(c);
                }
                Ok((None, _)) => {}
                Err(e) => {
                    let e = e.with_path(self.path);
                    log(&format!(
                        "{e} (kept {} captures before it)",
                        report.imported
                    ));
                    report.error = Some(e.to_string());
                    self.done = true;
                }
            }
        }
        pending
    }
}

fn anomaly_map(c: &AnomalyCounts) -> BTreeMap<String, u64> {
    c.nonzero()
        .map(|(k, n)| (k.name().to_string(), n))
        .collect()
}
