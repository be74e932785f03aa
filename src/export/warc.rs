//! The WARC export: every capture of every matching version, its records copied from the
//! archives, so that pywb or ReplayWeb.page replay what the query found.
//!
//! A version's captures are its lines in the collection's sorted CDX (`all.cdx`) with
//! its URL key and digest, on the dates the reader may see. Each record is written as one
//! gzip member, copied byte for byte where the archive already stores it so (a
//! `.warc.gz`); a record of an uncompressed WARC is compressed as it is stored; a
//! record of a zstd WARC is written as read (its header and block unchanged) and
//! compressed; an ARC record becomes the WARC `response` record that carries the same
//! HTTP message (ARC has no place in a WARC file). A revisit goes out with the record it
//! revisits (the version's first capture with a payload), even when that capture's date
//! is not asked for, because replay needs it.
//!
//! A capture whose archive is not in the collection or cannot be read is left out,
//! counted and named in the report: each record is built aside (in memory up to a few
//! MiB, then on disk) before it is written, so that a damaged one leaves nothing half
//! written.

use std::io::{self, Read, Seek, Write};

use flate2::write::GzEncoder;
use flate2::Compression;
use sha1::{Digest, Sha1};
use warcdex_cdx::line::CdxLine;
use warcdex_cdx::lookup::SortedCdx;

use super::requisites::{nearest, requisites_of, Requisites, MAX_NAMED};
use super::ExportError;
use crate::access::Viewer;
use crate::html::requisites::MAX_REQUISITES;
use crate::progress::Progress;
use crate::reader::location::ArchiveLocation;
use crate::reader::Codec;
use crate::reader::ReaderOptions;
use crate::search::{MatchedVersion, SearchIndex, Selection};

/// Where the captures of the versions are: the collection's CDX and its archives.
pub struct CaptureSource<'a> {
    /// The collection's sorted CDX (`all.cdx`).
    pub cdx: &'a SortedCdx,
    /// The file of an archive, by the name the CDX's filename column gives it; `None`
    /// when the collection records no such archive.
    pub archive: &'a dyn Fn(&str) -> Option<ArchiveLocation>,
    /// Whether each HTML page goes with its requisites (src/export/requisites.rs).
    pub requisites: bool,
}

/// What a WARC export wrote and left out.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WarcReport {
    /// Versions matched.
    pub versions: u64,
    /// Capture records written (the warcinfo record not counted).
    pub records: u64,
    /// Of those, gzip members copied byte for byte.
    pub copied: u64,
    /// Records of uncompressed WARCs, compressed as stored.
    pub compressed: u64,
    /// Records of zstd WARCs, written as read and compressed.
    pub recompressed: u64,
    /// ARC records written as WARC records.
    pub converted: u64,
    /// Records added because a revisit written needs them (not on a date asked for).
    pub originals: u64,
    /// Revisits whose original record is not among the version's captures (a revisit
    /// of another URL's record, or of a capture outside the collection).
    pub revisits_without_original: u64,
    /// Captures left out: archive unknown or record unreadable.
    pub failed: u64,
    /// The first few reasons a capture was left out.
    pub problems: Vec<String>,
    /// Records of pages' requisites written (stylesheets, scripts, images, fonts).
    pub requisites: u64,
    /// Requisites of which the collection holds no capture the asker may see.
    pub requisites_missing: u64,
    /// The first few of those, by URL.
    pub missing: Vec<String>,
}

/// How many reasons [`WarcReport::problems`] keeps.
const MAX_PROBLEMS: usize = 20;

/// A record is built in memory up to this size, then on disk.
const SPOOL_MEMORY: usize = 4 << 20;

impl WarcReport {
    fn fail(&mut self, why: String) {
        self.failed += 1;
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(why);
        }
    }

    /// `12 records (10 copied, 2 converted from ARC), 1 left out`: the summary a command
    /// prints.
    pub fn summary(&self) -> String {
        let mut how = vec![format!("{} copied", self.copied)];
        for (n, what) in [
            (self.compressed, "compressed"),
            (self.recompressed, "recompressed from zstd"),
            (self.converted, "converted from ARC"),
        ] {
            if n > 0 {
                how.push(format!("{n} {what}"));
            }
        }
        let mut s = format!(
            "{} versions, {} records ({})",
            self.versions,
            self.records,
            how.join(", ")
        );
        if self.originals > 0 {
            s.push_str(&format!(
                "; {} revisited records added for their revisits",
                self.originals
            ));
        }
        if self.revisits_without_original > 0 {
            s.push_str(&format!(
                "; {} revisits whose original is not a capture of the version",
                self.revisits_without_original
            ));
        }
        if self.requisites + self.requisites_missing > 0 {
            s.push_str(&format!(
                "; {} requisite records, {} requisites not in the collection",
                self.requisites, self.requisites_missing
            ));
            if !self.missing.is_empty() {
                let more = self.requisites_missing - self.missing.len() as u64;
                s.push_str(&format!(" ({}", self.missing.join(", ")));
                if more > 0 {
                    s.push_str(&format!(", and {more} more"));
                }
                s.push(')');
            }
        }
        s.push_str(&format!("; {} captures left out", self.failed));
        s
    }
}

/// Writes the WARC export (gzip members, a `warcinfo` record first) of every version
/// `selection` matches that its viewer may see.
pub fn export_warc(
    index: &SearchIndex,
    selection: &Selection,
    source: &CaptureSource<'_>,
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<WarcReport, ExportError> {
    let sink = WarcSink {
        filename: "export.warc.gz",
        out,
        with_text: false,
        on_version: &mut |_| Ok(()),
    };
    write_warc(index, selection, source, sink, progress)
}

/// Where a WARC export goes: the name its `warcinfo` record gives the file, its bytes,
/// whether each version's text is read, and what sees each version (the WACZ's page
/// list is made from them, with their texts).
pub(super) struct WarcSink<'a> {
    pub filename: &'a str,
    pub out: &'a mut dyn Write,
    pub with_text: bool,
    pub on_version: &'a mut dyn FnMut(&MatchedVersion) -> io::Result<()>,
}

/// [`export_warc`] into `sink`.
pub(super) fn write_warc(
    index: &SearchIndex,
    selection: &Selection,
    source: &CaptureSource<'_>,
    sink: WarcSink<'_>,
    progress: &dyn Progress,
) -> Result<WarcReport, ExportError> {
    let WarcSink {
        filename,
        out,
        with_text,
        on_version,
    } = sink;
    out.write_all(&warcinfo(filename, &selection.text)?)?;
    let mut w = Writer {
        source,
        viewer: selection.viewer.as_ref(),
        requisites: Requisites::default(),
        report: WarcReport::default(),
        spool: tempfile::spooled_tempfile(SPOOL_MEMORY),
        out,
    };
    index.for_each_match(selection, with_text, |v| {
        w.report.versions += 1;
        progress.advance(1);
        w.version(v)?;
        on_version(v)
    })?;
    Ok(w.report)
}

/// What writes an export's records: where the captures are, who asks, what was written.
struct Writer<'a> {
    source: &'a CaptureSource<'a>,
    viewer: Option<&'a Viewer>,
    requisites: Requisites,
    report: WarcReport,
    spool: tempfile::SpooledTempFile,
    out: &'a mut dyn Write,
}

fn bare_digest(d: &str) -> &str {
    d.strip_prefix("sha1:").unwrap_or(d)
}

fn is_revisit(l: &CdxLine) -> bool {
    l.mime.as_deref() == Some("warc/revisit")
}

impl Writer<'_> {
    /// Writes the captures of one version: its CDX lines on its dates, in CDX order, and
    /// the record its revisits need if that is not among them; then, for an HTML page,
    /// its requisites.
    fn version(&mut self, v: &MatchedVersion) -> io::Result<()> {
        let digest = bare_digest(&v.digest);
        let prefix = format!("{} ", v.urlkey);
        let mut payload_written: Option<CdxLine> = None;
        let mut revisit_written = false;
        // The first capture with a payload, should a revisit need it.
        let mut original: Option<CdxLine> = None;
        for line in self.source.cdx.lines_from(prefix.as_bytes())? {
            let line = line?;
            if !line.starts_with(prefix.as_bytes()) {
                break;
            }
            let Ok((_, l)) = CdxLine::parse(&String::from_utf8_lossy(&line)) else {
                continue;
            };
            if l.digest.as_deref().map(bare_digest) != Some(digest) {
                continue;
            }
            let revisit = is_revisit(&l);
            let asked = v.dates.binary_search(&l.timestamp).is_ok();
            if !asked {
                if !revisit && original.is_none() {
                    original = Some(l);
                }
                continue;
            }
            if self.capture(&l)? {
                if revisit {
                    revisit_written = true;
                } else if payload_written.is_none() {
                    payload_written = Some(l);
                }
            }
        }
        if revisit_written && payload_written.is_none() {
            match original {
                Some(l) => {
                    if self.capture(&l)? {
                        self.report.originals += 1;
                        payload_written = Some(l);
                    }
                }
                None => self.report.revisits_without_original += 1,
            }
        }
        let html = matches!(v.mime.as_str(), "text/html" | "application/xhtml+xml");
        match payload_written {
            Some(page) if html && self.source.requisites => self.page_requisites(&page),
            _ => Ok(()),
        }
    }

    /// The requisites of the page captured in `page`, and those of its stylesheets, each
    /// at its capture nearest the page's date.
    fn page_requisites(&mut self, page: &CdxLine) -> io::Result<()> {
        let Some(at) = (self.source.archive)(page.filename.as_deref().unwrap_or("-")) else {
            return Ok(());
        };
        let mut wanted: std::collections::VecDeque<_> = requisites_of(page, &at, true).into();
        let mut asked: Vec<String> = Vec::new();
        while let Some(r) = wanted.pop_front() {
            if asked.contains(&r.url) || asked.len() >= 2 * MAX_REQUISITES {
                continue;
            }
            asked.push(r.url.clone());
            let found = nearest(self.source.cdx, &r.url, &page.timestamp, self.viewer)?;
            let Some(l) = found else {
                self.report.requisites_missing += 1;
                if self.report.missing.len() < MAX_NAMED {
                    self.report.missing.push(r.url);
                }
                continue;
            };
            let name = l.filename.clone().unwrap_or_default();
            let offset = l
                .offset
                .as_deref()
                .and_then(|o| o.parse().ok())
                .unwrap_or(0);
            if self.requisites.first_time(&name, offset) && self.capture(&l)? {
                self.report.requisites += 1;
            }
            if r.of_page && l.mime.as_deref() == Some("text/css") {
                if let Some(at) = (self.source.archive)(&name) {
                    wanted.extend(requisites_of(&l, &at, false));
                }
            }
        }
        Ok(())
    }

    /// Writes one capture's record; `false` (and the reason in the report) when it could
    /// not be read. Only an error writing `out` is returned.
    fn capture(&mut self, l: &CdxLine) -> io::Result<bool> {
        let (source, report, spool, out) = (
            self.source,
            &mut self.report,
            &mut self.spool,
            &mut *self.out,
        );
        let name = l.filename.as_deref().unwrap_or("-");
        let at = |n: &Option<String>| n.as_deref().and_then(|s| s.parse::<u64>().ok());
        let (Some(offset), Some(length)) = (at(&l.offset), at(&l.length)) else {
            report.fail(format!(
                "{} {}: the CDX line has no offset and length",
                l.urlkey, l.timestamp
            ));
            return Ok(false);
        };
        let Some(at) = (source.archive)(name) else {
            report.fail(format!(
                "{name}: not an archive of the collection (capture of {} on {})",
                l.original.as_deref().unwrap_or(&l.urlkey),
                l.timestamp
            ));
            return Ok(false);
        };
        spool.set_len(0)?;
        spool.rewind()?;
        let how = match build_record(&at, offset, length, name, spool) {
            Ok(how) => how,
            Err(e) => {
                report.fail(format!("{}: offset {offset}: {e}", at.display().display()));
                return Ok(false);
            }
        };
        let written = spool.stream_position()?;
        spool.rewind()?;
        io::copy(&mut Read::by_ref(spool).take(written), out)?;
        report.records += 1;
        match how {
            Built::Copied => report.copied += 1,
            Built::Compressed => report.compressed += 1,
            Built::Recompressed => report.recompressed += 1,
            Built::Converted => report.converted += 1,
        }
        Ok(true)
    }
}

/// How a record was made.
enum Built {
    Copied,
    Compressed,
    Recompressed,
    Converted,
}

/// Writes the record of `path` at `offset` (`length` stored bytes) to `to` as one gzip
/// member.
fn build_record(
    at: &ArchiveLocation,
    offset: u64,
    length: u64,
    name: &str,
    to: &mut dyn Write,
) -> Result<Built, Box<dyn std::error::Error + Send + Sync>> {
    let opts = ReaderOptions {
        buffer_size: 64 * 1024,
        max_header: 1 << 20,
    };
    let mut reader = at.open_range(offset, length, opts)?;
    let codec = reader.codec();
    let Some(mut rec) = reader.next_record()? else {
        return Err("no record there".into());
    };
    let head = rec.header().clone();
    if head.format().is_arc() {
        arc_as_warc(&head, &mut rec, name, offset, to)?;
        return Ok(Built::Converted);
    }
    match codec {
        Some(Codec::Gzip) => {
            copy_range(at, offset, length, to)?;
            Ok(Built::Copied)
        }
        None => {
            let mut gz = GzEncoder::new(to, Compression::default());
            copy_range(at, offset, length, &mut gz)?;
            gz.finish()?;
            Ok(Built::Compressed)
        }
        Some(Codec::Zstd) => {
            let mut gz = GzEncoder::new(to, Compression::default());
            gz.write_all(head.raw())?;
            let n = io::copy(&mut rec, &mut gz)?;
            if head.content_length().is_some_and(|len| len != n) {
                return Err(format!("the block is {n} bytes, not its Content-Length").into());
            }
            gz.write_all(b"\r\n\r\n")?;
            gz.finish()?;
            Ok(Built::Recompressed)
        }
    }
}

/// Copies `length` bytes of the archive at `at` from `offset` to `to`.
fn copy_range(
    at: &ArchiveLocation,
    offset: u64,
    length: u64,
    to: &mut dyn Write,
) -> io::Result<()> {
    let n = io::copy(&mut at.read_range(offset, length)?, to)?;
    if n != length {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the file ends {} bytes into the record's {length}", n),
        ));
    }
    Ok(())
}

/// Writes an ARC record as the WARC record that holds its content: a `response` when the
/// content is an HTTP response, a `resource` otherwise (a `dns:` lookup, an FTP file),
/// with the ARC's URL, date, IP address and content type, and a block digest.
fn arc_as_warc(
    head: &crate::reader::header::RecordHeader,
    block: &mut dyn Read,
    name: &str,
    offset: u64,
    to: &mut dyn Write,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // The block first, aside, for its length and digest (both go in the header).
    let mut aside = tempfile::spooled_tempfile(SPOOL_MEMORY);
    let mut sha = Sha1::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut len = 0u64;
    loop {
        let n = match block.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        sha.update(&buf[..n]);
        aside.write_all(&buf[..n])?;
        len += n as u64;
    }
    aside.rewind()?;
    let mut first = [0u8; 5];
    let got = aside.read(&mut first)?;
    aside.rewind()?;
    let url = head
        .target_uri()
        .map(|u| String::from_utf8_lossy(u).into_owned())
        .unwrap_or_default();
    let http = got == 5 && &first == b"HTTP/" && url.starts_with("http");
    let mut h = String::from("WARC/1.0\r\n");
    h.push_str(if http {
        "WARC-Type: response\r\n"
    } else {
        "WARC-Type: resource\r\n"
    });
    h.push_str(&format!(
        "WARC-Record-ID: <urn:uuid:{}>\r\n",
        name_uuid(&format!("{name}#{offset}"))
    ));
    h.push_str(&format!("WARC-Target-URI: {url}\r\n"));
    if let Some(d) = head.date_iso() {
        h.push_str(&format!("WARC-Date: {d}\r\n"));
    }
    if let Some(ip) = head.get_str("ip-address").map(|s| s.trim().to_string()) {
        if !ip.is_empty() && ip != "-" && ip != "0.0.0.0" {
            h.push_str(&format!("WARC-IP-Address: {ip}\r\n"));
        }
    }
    let content_type = if http {
        "application/http; msgtype=response".to_string()
    } else {
        head.content_type()
            .map(|c| String::from_utf8_lossy(c).trim().to_string())
            .filter(|c| !c.is_empty() && c != "-")
            .unwrap_or_else(|| "application/octet-stream".into())
    };
    h.push_str(&format!("Content-Type: {content_type}\r\n"));
    h.push_str(&format!(
        "WARC-Block-Digest: sha1:{}\r\n",
        data_encoding::BASE32.encode(&sha.finalize())
    ));
    h.push_str(&format!("Content-Length: {len}\r\n\r\n"));
    let mut gz = GzEncoder::new(to, Compression::default());
    gz.write_all(h.as_bytes())?;
    io::copy(&mut aside, &mut gz)?;
    gz.write_all(b"\r\n\r\n")?;
    gz.finish()?;
    Ok(())
}

/// A name-based UUID (version 5 layout over SHA-1 of `name`): the same record gets the
/// same ID in every export.
pub(crate) fn name_uuid(name: &str) -> String {
    let d = Sha1::digest(name.as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex = data_encoding::HEXLOWER.encode(&b);
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// The export's `warcinfo` record, as one gzip member.
fn warcinfo(filename: &str, query: &str) -> io::Result<Vec<u8>> {
    let now = warcdex_cdx::date::Date14::now();
    let mut body = String::new();
    body.push_str(&format!(
        "software: warcdex {}\r\n",
        env!("CARGO_PKG_VERSION")
    ));
    body.push_str("format: WARC File Format 1.0\r\n");
    // A query may hold a line break; the field is one line.
    let q: String = query
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    body.push_str(&format!(
        "description: the captures of the versions matching the query {q}\r\n"
    ));
    let id = name_uuid(&format!("{filename}#warcinfo#{}#{q}", now.unix_seconds()));
    let mut h = String::from("WARC/1.0\r\nWARC-Type: warcinfo\r\n");
    h.push_str(&format!("WARC-Date: {}\r\n", now.iso()));
    h.push_str(&format!("WARC-Record-ID: <urn:uuid:{id}>\r\n"));
    h.push_str(&format!("WARC-Filename: {filename}\r\n"));
    h.push_str("Content-Type: application/warc-fields\r\n");
    h.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(h.as_bytes())?;
    gz.write_all(body.as_bytes())?;
    gz.write_all(b"\r\n\r\n")?;
    gz.finish()
}
