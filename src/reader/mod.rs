//! The streaming ARC/WARC reader.
//!
//! [`ArchiveReader`] sniffs gzip and ARC/WARC, and hands out one [`Record`] at a time
//! in constant memory. A record is valid until the next call; advancing drains what
//! the caller left, consumes the blank lines that end the record, and computes its
//! [`Span`] — the offset and length pywb and warcio report for it (CDX `V` and `S`).
//!
//! ```no_run
//! use warcdex::reader::ArchiveReader;
//! let mut reader = ArchiveReader::open("example.warc.gz")?;
//! while let Some(mut record) = reader.next_record()? {
//!     let uri = record.header().target_uri().map(|u| u.to_vec());
//!     let digest = record.payload_digest()?;
//!     let span = record.finish()?;
//!     println!("{} {:?} {:?}", span.offset, uri, digest);
//! }
//! # Ok::<(), warcdex::Error>(())
//! ```

pub mod date;
pub mod gzip_member;
pub mod header;
pub mod http;
mod counting;
mod stream;
mod window;

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

pub use header::{Format, RecordHeader, RecordType};
pub use http::HttpHead;

use crate::error::{Anomaly, AnomalyCounts, AnomalyKind, Error, ErrorKind, Result};
use header::trim;
use http::rstrip;
use counting::CountingReader;
use stream::Stream;

/// Where a record is stored: the offset of its first byte (for gzip, of its member)
/// and its length in the file as stored (for gzip, the compressed member length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Offset in the stored file (CDX `V`).
    pub offset: u64,
    /// Length in the stored file (CDX `S`).
    pub length: u64,
}

/// Reader settings.
#[derive(Debug, Clone)]
pub struct ReaderOptions {
    /// How many bytes to read (or decompress) at a time. Small values exercise
    /// boundaries in tests; the default suits throughput.
    pub buffer_size: usize,
    /// The largest header line or header block accepted.
    pub max_header: usize,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions {
            buffer_size: 256 * 1024,
            max_header: 4 * 1024 * 1024,
        }
    }
}

/// A payload digest: where it came from and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PayloadDigest {
    /// Taken from the record's `WARC-Payload-Digest: sha1:...` (value without the prefix).
    FromHeader(String),
    /// Computed here: base32 SHA-1 of the payload as stored.
    Computed(String),
}

impl PayloadDigest {
    /// The digest without its `sha1:` prefix.
    pub fn value(&self) -> &str {
        match self {
            PayloadDigest::FromHeader(v) | PayloadDigest::Computed(v) => v,
        }
    }
}

/// The result of `--verify` for one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DigestCheck {
    /// The record has no sha1 payload digest to check.
    NoDigest,
    /// It matches the payload as stored (pywb's and Heritrix's convention).
    MatchesStored,
    /// It matches the payload with HTTP chunked transfer coding removed (WARC 1.1's wording).
    MatchesDechunked,
    /// It matches neither; the stored-bytes digest is given.
    Mismatch {
        /// Digest of the payload as stored.
        computed: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HttpState {
    NotParsed,
    None,
    Parsed,
}

type MemberProbe = Box<dyn FnMut(u64) -> io::Result<u64> + Send>;

/// The streaming reader over one ARC or WARC file, plain or gzip.
pub struct ArchiveReader<R: Read> {
    s: Stream<R>,
    opts: ReaderOptions,
    path: Option<PathBuf>,
    header: RecordHeader,
    http: HttpHead,
    http_state: HttpState,
    in_record: bool,
    payload_touched: bool,
    rec_start: u64,
    rec_offset: u64,
    content_start: u64,
    content_end: Option<u64>,
    truncated: bool,
    /// The record met damage (a gzip member that did not decompress): it is lost.
    damaged: bool,
    multi_flagged: bool,
    prev_content_end: u64,
    arc_version: Option<Format>,
    counts: AnomalyCounts,
    anomalies: Vec<Anomaly>,
    records: u64,
    failed: bool,
    probe: Option<MemberProbe>,
    probe_cache: Option<(u64, u64)>,
}

impl ArchiveReader<File> {
    /// Opens a file. Whole-file gzip members get their true compressed length by a
    /// second pass over that member only.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, ReaderOptions::default())
    }

    /// Opens a file with options.
    pub fn open_with(path: impl AsRef<Path>, opts: ReaderOptions) -> Result<Self> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| Error::from(e).with_path(path))?;
        let mut r = ArchiveReader::with_options(file, opts).map_err(|e| e.with_path(path))?;
        r.path = Some(path.to_path_buf());
        let p = path.to_path_buf();
        r.probe = Some(Box::new(move |offset| member_end(&p, offset)));
        Ok(r)
    }
}

/// An input named on the command line: a file, or standard input.
pub type Input = Box<dyn Read + Send>;

impl ArchiveReader<Input> {
    /// Opens `path`, or reads standard input when `path` is `-` (every command reads
    /// `-`, README.md). From standard input, a record inside a whole-file gzip member
    /// cannot get the member's length by a second pass: its length is written as 0.
    pub fn open_input(path: &Path, opts: ReaderOptions) -> Result<Self> {
        if path == Path::new("-") {
            let mut r = ArchiveReader::with_options(Box::new(io::stdin()) as Input, opts)
                .map_err(|e| e.with_path(path))?;
            r.path = Some(path.to_path_buf());
            return Ok(r);
        }
        let file = File::open(path).map_err(|e| Error::from(e).with_path(path))?;
        let mut r = ArchiveReader::with_options(Box::new(file) as Input, opts)
            .map_err(|e| e.with_path(path))?;
        r.path = Some(path.to_path_buf());
        let p = path.to_path_buf();
        r.probe = Some(Box::new(move |offset| member_end(&p, offset)));
        Ok(r)
    }
}

/// Finds where the gzip member starting at `offset` ends, by decompressing it.
fn member_end(path: &Path, offset: u64) -> io::Result<u64> {
    use std::io::{Seek, SeekFrom};
    let mut f = File::open(path)?;
    f.seek(SeekFrom::Start(offset))?;
    let mut dec =
        gzip_member::MemberDecoder::new(CountingReader::new(f, 8192), Default::default());
    // A damaged member ends, as far as anyone can tell, where its decoder failed (the
    // reader reports the damage itself when it gets there).
    let _ = io::copy(&mut dec, &mut io::sink());
    Ok(offset + dec.get_ref().pos())
}

impl<R: Read> ArchiveReader<R> {
    /// A reader over any byte source with default options.
    pub fn new(inner: R) -> Result<Self> {
        Self::with_options(inner, ReaderOptions::default())
    }

    /// A reader over any byte source.
    pub fn with_options(inner: R, opts: ReaderOptions) -> Result<Self> {
        let s = Stream::new(inner, opts.buffer_size)?;
        Ok(ArchiveReader {
            s,
            opts,
            path: None,
            header: RecordHeader::default(),
            http: HttpHead::default(),
            http_state: HttpState::NotParsed,
            in_record: false,
            payload_touched: false,
            rec_start: 0,
            rec_offset: 0,
            content_start: 0,
            content_end: None,
            truncated: false,
            damaged: false,
            multi_flagged: false,
            prev_content_end: 0,
            arc_version: None,
            counts: AnomalyCounts::default(),
            anomalies: Vec::new(),
            records: 0,
            failed: false,
            probe: None,
            probe_cache: None,
        })
    }

    /// Names the file in errors (for readers not made by [`ArchiveReader::open`]).
    pub fn set_path(&mut self, path: impl Into<PathBuf>) {
        self.path = Some(path.into());
    }

    /// True when the input is gzip-compressed.
    pub fn is_gzip(&self) -> bool {
        self.s.is_gzip()
    }

    /// Anomaly counts so far.
    pub fn counts(&self) -> &AnomalyCounts {
        &self.counts
    }

    /// Takes the anomalies recorded since the last call (each is also counted).
    pub fn take_anomalies(&mut self) -> Vec<Anomaly> {
        self.collect_stream_anomalies();
        std::mem::take(&mut self.anomalies)
    }

    /// Records returned so far.
    pub fn records_read(&self) -> u64 {
        self.records
    }

    /// Bytes of the stored file consumed so far (for progress bars).
    pub fn stored_position(&self) -> u64 {
        self.s.compressed_position()
    }

    fn err(&self, e: Error) -> Error {
        match &self.path {
            Some(p) => e.with_path(p),
            None => e,
        }
    }

    fn anomaly(&mut self, kind: AnomalyKind, offset: u64, message: String) {
        self.counts.add(kind);
        self.anomalies.push(Anomaly {
            kind,
            offset,
            message,
        });
    }

    fn collect_stream_anomalies(&mut self) {
        for a in std::mem::take(&mut self.s.anomalies) {
            self.counts.add(a.kind);
            self.anomalies.push(a);
        }
    }

    /// The offset in the stored file of decompressed position `d`: itself for plain
    /// files, its member's offset for gzip.
    fn stored_offset(&self, d: u64) -> u64 {
        if !self.s.is_gzip() {
            return d;
        }
        self.s.member_at(d).map_or(d, |(_, m)| m.cstart)
    }

    /// Advances to the next record. The previous record, if any, is finished first.
    ///
    /// A record whose bytes are in a damaged gzip member is never handed out when the
    /// damage is known by the end of its header: it is counted as `lost-record` and
    /// skipped. When the damage shows only later, [`Record::finish`] says so.
    pub fn next_record(&mut self) -> Result<Option<Record<'_, R>>> {
        if self.in_record {
            match self.finish_current() {
                // Counted already; the caller did not ask for this record's span.
                Err(e) if e.is_record_lost() => {}
                other => {
                    other?;
                }
            }
        }
        loop {
            if let Some(e) = self.s.take_error() {
                return Err(self.fail(e));
            }
            if self.failed {
                return Ok(None);
            }
            let found = self.seek_header().map_err(|e| self.fail(e))?;
            if !found {
                self.collect_stream_anomalies();
                return Ok(None);
            }
            self.read_header().map_err(|e| self.fail(e))?;
            // The block runs into damage already met: the record is lost.
            let cut_in_block = self.s.cut().is_some_and(|c| self.block_end() > c.dpos);
            if self.damaged || cut_in_block {
                self.lose_record();
                continue;
            }
            self.records += 1;
            self.in_record = true;
            self.collect_stream_anomalies();
            return Ok(Some(Record { rd: self }));
        }
    }

    /// The record being read met damage: counts it as lost, passes the damage and
    /// returns the error [`Record::finish`] gives for it.
    fn lose_record(&mut self) -> Error {
        let member = self.s.cut().map_or(self.rec_offset, |c| c.member_cstart);
        let mut what = String::new();
        for f in ["WARC-Target-URI", "WARC-Record-ID"] {
            if let Some(v) = self.header.get(f) {
                what.push_str(&format!(" {f}: {}", header::decode(v)));
            }
        }
        self.collect_stream_anomalies();
        self.anomaly(
            AnomalyKind::LostRecord,
            self.rec_offset,
            format!("record lost in the damaged gzip member at offset {member};{what}"),
        );
        self.pass_cut();
        self.damaged = false;
        self.in_record = false;
        self.err(Error::at(
            ErrorKind::RecordLost {
                member_offset: member,
            },
            self.rec_offset,
        ))
    }

    /// Damage met between records: the damaged member held at least one record.
    fn lose_unseen_record(&mut self) {
        let Some(c) = self.s.cut() else {
            return;
        };
        // The damage first, then what it cost.
        self.collect_stream_anomalies();
        self.anomaly(
            AnomalyKind::LostRecord,
            c.member_cstart,
            format!(
                "the damaged gzip member at offset {} held a record (at least one), lost",
                c.member_cstart
            ),
        );
        self.pass_cut();
    }

    fn pass_cut(&mut self) {
        self.s.pass_cut();
        // What follows belongs to the next member; nothing before it is a record's.
        self.prev_content_end = self.prev_content_end.min(self.s.position());
        self.collect_stream_anomalies();
    }

    fn fail(&mut self, e: Error) -> Error {
        self.failed = true;
        self.in_record = false;
        self.collect_stream_anomalies();
        self.err(e)
    }

    /// Length of the line at the cursor, reading more as needed. `Ok(None)` at the end
    /// of input; a line longer than `limit` gives `Err(len_so_far)` inside `Ok`.
    fn peek_line(&mut self, limit: usize) -> Result<Option<std::result::Result<usize, usize>>> {
        let mut searched = 0;
        loop {
            let buf = self.s.buffer();
            if let Some(i) = memchr::memchr(b'\n', &buf[searched..]) {
                let len = searched + i + 1;
                return Ok(Some(if len > limit { Err(len) } else { Ok(len) }));
            }
            searched = buf.len();
            if searched > limit {
                return Ok(Some(Err(searched)));
            }
            if self.s.fill()? == 0 {
                if self.s.cut().is_some() {
                    // A line cut by damage is no line: the caller deals with the cut.
                    return Ok(None);
                }
                let n = self.s.buffer().len();
                return Ok(if n == 0 { None } else { Some(Ok(n)) });
            }
        }
    }

    /// Is the line at the cursor the first line of a WARC or ARC record?
    fn header_start(&self, line: &[u8]) -> Option<Format> {
        self.header_start_with(line, false)
    }

    /// `strict`: while skipping garbage, an ARC header line must end in a number.
    fn header_start_with(&self, line: &[u8], strict: bool) -> Option<Format> {
        if line.len() > 5 && line[..5].eq_ignore_ascii_case(b"WARC/") && line[5].is_ascii_digit() {
            return Some(Format::Warc);
        }
        if self.arc_version.is_none() && self.records > 0 {
            // A WARC file: do not take text lines for ARC headers while resynchronising.
            return None;
        }
        let version = self.arc_version.unwrap_or(Format::ArcV1);
        parse_arc_line(line, version, strict).map(|(f, _)| f)
    }

    /// Skips blank lines and anything that is not a record header. False at the end.
    fn seek_header(&mut self) -> Result<bool> {
        let mut garbage: Option<(u64, u64, Vec<u8>)> = None; // (stored offset, bytes, sample)
        let limit = self.opts.max_header;
        let found = loop {
            let line = match self.peek_line(limit)? {
                None if self.s.cut().is_some() => {
                    self.lose_unseen_record();
                    continue;
                }
                None => break false,
                Some(l) => l,
            };
            let len = match line {
                Ok(len) => {
                    let l = &self.s.buffer()[..len];
                    if rstrip(l).is_empty() {
                        self.s.consume(len);
                        continue;
                    }
                    if self.header_start_with(l, garbage.is_some()).is_some() {
                        break true;
                    }
                    len
                }
                Err(len) => len,
            };
            let at = self.s.position();
            let g = garbage.get_or_insert_with(|| (self.stored_offset(at), 0, Vec::new()));
            if g.2.len() < 60 {
                let take = (60 - g.2.len()).min(len);
                g.2.extend_from_slice(&self.s.buffer()[..take]);
            }
            g.1 += len as u64;
            self.s.consume(len);
        };
        if let Some((offset, bytes, sample)) = garbage {
            if self.records == 0 && !found {
                return Err(Error::at(
                    ErrorKind::UnknownFormat {
                        first_line: header::decode(&sample).trim_end().to_string(),
                    },
                    offset,
                ));
            }
            let where_ = if found {
                "before the next record"
            } else {
                "at the end of the file"
            };
            self.anomaly(
                AnomalyKind::GarbageBetweenRecords,
                offset,
                format!(
                    "skipped {bytes} bytes {where_} (starting {:?})",
                    header::decode(&sample).trim_end()
                ),
            );
        }
        Ok(found)
    }

    fn take_line(&mut self, limit: usize) -> Result<Option<(usize, bool)>> {
        match self.peek_line(limit)? {
            None => Ok(None),
            Some(Ok(len)) => {
                let complete = self.s.buffer()[len - 1] == b'\n';
                Ok(Some((len, complete)))
            }
            Some(Err(_)) => Err(Error::at(
                ErrorKind::HeaderTooLong { limit },
                self.stored_offset(self.s.position()),
            )),
        }
    }

    fn read_header(&mut self) -> Result<()> {
        self.header.clear();
        self.http.clear();
        self.http_state = HttpState::NotParsed;
        self.payload_touched = false;
        self.truncated = false;
        self.damaged = false;
        self.multi_flagged = false;
        self.rec_start = self.s.position();
        self.s
            .prune_members(self.rec_start.min(self.prev_content_end));
        self.rec_offset = self.record_offset();
        // "WARC/", not just "W": an ARC URL may start with "w" (whois://). A damaged
        // "WARC/" line that passed as an ARC line is still best read as a WARC header.
        let b = self.s.buffer();
        if b.len() >= 5 && b[..5].eq_ignore_ascii_case(b"WARC/") {
            self.read_warc_header()?;
        } else {
            self.read_arc_header()?;
        }
        self.content_start = self.s.position();
        // Saturating: a hostile Content-Length (up to 19 digits) must not overflow; the
        // end of the input comes first anyway.
        self.content_end = self
            .header
            .content_length
            .map(|n| self.content_start.saturating_add(n));
        if self.content_end.is_none() && !self.s.is_gzip() {
            // Without a length a plain record cannot be delimited; take an empty block
            // and let resynchronisation skip to the next record (counted there).
            self.content_end = Some(self.content_start);
        }
        Ok(())
    }

    /// The stored offset of the record starting at the cursor.
    fn record_offset(&mut self) -> u64 {
        if !self.s.is_gzip() {
            return self.rec_start;
        }
        let Some((i, m)) = self.s.member_at(self.rec_start) else {
            return self.rec_start;
        };
        if self.records > 0 && self.prev_content_end > m.dstart {
            let offset = m.cstart;
            self.multi_flagged = true;
            self.anomaly(
                AnomalyKind::MultiRecordGzipMember,
                offset,
                "record starts inside the gzip member of the previous record (whole-file gzip?); \
                 offset and length are the member's"
                    .into(),
            );
            return offset;
        }
        // Quirk (warcio): empty members before a record are counted in its span.
        let mut offset = m.cstart;
        for j in (0..i).rev() {
            let p = self.s.members[j];
            if p.dend == Some(p.dstart) && p.cend == Some(offset) && !p.damaged {
                offset = p.cstart;
            } else {
                break;
            }
        }
        offset
    }

    fn read_warc_header(&mut self) -> Result<()> {
        let limit = self.opts.max_header;
        self.header.format = Format::Warc;
        let mut lf = false;
        let mut first = true;
        let mut terminated = false;
        while let Some((len, complete)) = self.take_line(limit)? {
            let line = &self.s.buffer()[..len];
            if self.header.raw.len() + len > limit {
                return Err(Error::at(
                    ErrorKind::HeaderTooLong { limit },
                    self.rec_offset,
                ));
            }
            self.header.raw.extend_from_slice(line);
            if complete && (len < 2 || line[len - 2] != b'\r') {
                lf = true;
            }
            self.s.consume(len);
            let start = self.header.raw.len() - len;
            let line_range = start..self.header.raw.len();
            if first {
                first = false;
                let l = rstrip(&self.header.raw[line_range]);
                self.header.version = l[5..].to_vec();
                if !complete {
                    break;
                }
                continue;
            }
            let raw = std::mem::take(&mut self.header.raw);
            let line = &raw[line_range];
            let stripped = rstrip(line);
            if stripped.is_empty() {
                self.header.raw = raw;
                terminated = true;
                break;
            }
            self.header_line(stripped);
            self.header.raw = raw;
            if !complete {
                break;
            }
        }
        if lf {
            self.anomaly(
                AnomalyKind::LfLineEndings,
                self.rec_offset,
                "WARC header lines end with LF, not CRLF".into(),
            );
        }
        if !terminated && self.s.cut().is_some() {
            // The header was cut by a damaged gzip member: the record is lost.
            self.damaged = true;
            self.truncated = true;
        } else if !terminated {
            self.truncated = true;
            self.anomaly(
                AnomalyKind::TruncatedRecord,
                self.rec_offset,
                "file ends inside the WARC header".into(),
            );
        }
        self.header.record_type = self
            .header
            .get("WARC-Type")
            .map_or(RecordType::Unknown, RecordType::from_warc_type);
        for f in ["WARC-Type", "WARC-Date", "WARC-Record-ID"] {
            if self.header.get(f).is_none() {
                self.anomaly(
                    AnomalyKind::MissingMandatoryField,
                    self.rec_offset,
                    format!("no {f} field"),
                );
            }
        }
        let cl = self
            .header
            .get("Content-Length")
            .map(|v| parse_u64(trim(v)));
        self.header.content_length = match cl {
            Some(Some(n)) => Some(n),
            Some(None) => {
                let v = header::decode(self.header.get("Content-Length").unwrap_or_default())
                    .into_owned();
                self.bad_length(format!("Content-Length {v:?} is not a number"))
            }
            None => self.bad_length("no Content-Length".into()),
        };
        if self.truncated {
            self.header.content_length = Some(0);
        }
        Ok(())
    }

    fn bad_length(&mut self, msg: String) -> Option<u64> {
        let gz = self.s.is_gzip();
        self.anomaly(
            AnomalyKind::BadContentLength,
            self.rec_offset,
            if gz {
                format!("{msg}; the block is taken to the end of the gzip member")
            } else {
                format!("{msg}; the block is taken as empty")
            },
        );
        if gz {
            None
        } else {
            Some(0)
        }
    }

    /// One WARC named field (already right-stripped), or a continuation line.
    fn header_line(&mut self, line: &[u8]) {
        if line[0] == b' ' || line[0] == b'\t' {
            let more = trim(line);
            if self.header.continue_last(more) {
                self.anomaly(
                    AnomalyKind::HeaderContinuation,
                    self.rec_offset,
                    "header value continued on the next line".into(),
                );
            } else {
                self.anomaly(
                    AnomalyKind::MalformedHeaderLine,
                    self.rec_offset,
                    format!(
                        "continuation line with nothing to continue: {:?}",
                        header::decode(line)
                    ),
                );
            }
            return;
        }
        match memchr::memchr(b':', line) {
            Some(c) => {
                let name = trim(&line[..c]);
                let value_raw = &line[c + 1..];
                let value = trim(value_raw);
                let lead = value_raw.len() - value_raw.trim_ascii_start().len();
                if lead > 1 || (lead == 1 && value_raw[0] != b' ') {
                    self.anomaly(
                        AnomalyKind::LeadingWhitespace,
                        self.rec_offset,
                        format!("white space before the value of {}", header::decode(name)),
                    );
                }
                self.header.push_field(name, value);
            }
            None => self.anomaly(
                AnomalyKind::MalformedHeaderLine,
                self.rec_offset,
                format!("header line without a colon: {:?}", header::decode(line)),
            ),
        }
    }

    fn read_arc_header(&mut self) -> Result<()> {
        let limit = self.opts.max_header;
        let (len, _) = self.take_line(limit)?.expect("seek_header saw a line");
        let version = self.arc_version.unwrap_or(Format::ArcV1);
        let line = self.s.buffer()[..len].to_vec();
        self.s.consume(len);
        self.header.raw.extend_from_slice(&line);
        let (format, parts) =
            parse_arc_line(&line, version, false).expect("seek_header checked the line");
        self.header.format = format;
        let names: &[&str] = if format == Format::ArcV2 {
            &header::ARC_V2_FIELDS
        } else {
            &header::ARC_V1_FIELDS
        };
        for (name, value) in names.iter().zip(parts.iter()) {
            self.header.push_field(name.as_bytes(), value);
        }
        let url = parts[0];
        if memchr::memchr(b' ', url).is_some() {
            self.anomaly(
                AnomalyKind::ArcUrlWithSpaces,
                self.rec_offset,
                "ARC URL contains spaces; the header line was split from the right".into(),
            );
        }
        let is_filedesc = url.starts_with(b"filedesc:");
        self.header.record_type = if is_filedesc {
            RecordType::Warcinfo
        } else {
            RecordType::Response
        };
        let length = parts[parts.len() - 1];
        self.header.content_length = match std::str::from_utf8(trim(length))
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
        {
            Some(n) if n >= 0 => Some(n as u64),
            _ => {
                // warcio takes a negative or broken ARC length as 0.
                self.anomaly(
                    AnomalyKind::BadContentLength,
                    self.rec_offset,
                    format!(
                        "ARC length {:?} is not usable; the block is taken as empty",
                        header::decode(length)
                    ),
                );
                Some(0)
            }
        };
        if is_filedesc {
            // The version block's first line says "1 ..." (v1) or "2 ..." (v2).
            if let Some(Ok(n)) = self.peek_line(limit)? {
                let v = self.s.buffer()[..n].trim_ascii_start();
                self.arc_version = Some(if v.starts_with(b"2") {
                    Format::ArcV2
                } else {
                    Format::ArcV1
                });
                // Quirk (warcio, and IA's own writer): the version line and the field
                // line always belong to the filedesc record, even when its length is
                // shorter than they are.
                let two = loop {
                    if let Some(i) = memchr::memchr(b'\n', &self.s.buffer()[n..]) {
                        break Some(n + i + 1);
                    }
                    if self.s.buffer().len() > limit || self.s.fill()? == 0 {
                        break None;
                    }
                };
                if let Some(two) = two {
                    let cl = self.header.content_length.unwrap_or(0);
                    if (two as u64) > cl {
                        self.header.content_length = Some(two as u64);
                    }
                }
            }
        } else if self.arc_version.is_none() {
            self.arc_version = Some(format);
        }
        Ok(())
    }

    // ---- the block -------------------------------------------------------------

    /// End of the block as far as it is known now (decompressed offset).
    fn block_end(&self) -> u64 {
        match self.content_end {
            Some(e) => e,
            None => self
                .s
                .member_at(self.content_start)
                .and_then(|(_, m)| m.dend)
                .unwrap_or(u64::MAX),
        }
    }

    /// The next bytes of the block, reading more as needed; empty at the block's end.
    fn block_chunk(&mut self) -> Result<&[u8]> {
        loop {
            let pos = self.s.position();
            let end = self.block_end();
            if pos >= end {
                return Ok(&[]);
            }
            if !self.s.buffer().is_empty() {
                // For blocks delimited by the member end, stop at member boundaries.
                let mut avail = self.s.buffer().len() as u64;
                if self.content_end.is_none() {
                    if let Some((_, m)) = self.s.member_at(pos) {
                        if let Some(d) = m.dend {
                            avail = avail.min(d - pos);
                        }
                    }
                }
                let n = avail.min(end - pos) as usize;
                return Ok(&self.s.buffer()[..n]);
            }
            let got = self.s.fill().map_err(|e| self.err(e))?;
            if got == 0 && self.s.buffer().is_empty() && self.s.cut().is_some() {
                // Damage: if the block runs into it (and did not just end at its member's
                // end), it ends here and the record is lost.
                if self.block_end() > pos {
                    self.damaged = true;
                    self.content_end = Some(pos);
                }
                continue;
            }
            if got == 0 && self.s.buffer().is_empty() {
                // End of input, or of a member when the block runs to the member end.
                let at_member_end = self.content_end.is_none();
                if !at_member_end || self.s.member_at(pos).is_none_or(|(_, m)| m.dend.is_none()) {
                    if self.content_end.is_some() && !self.truncated {
                        self.truncated = true;
                        let missing = end - pos;
                        self.anomaly(
                            AnomalyKind::TruncatedRecord,
                            self.rec_offset,
                            format!(
                                "file ends {missing} bytes before the end of the record's block"
                            ),
                        );
                    }
                    self.content_end = Some(pos);
                }
                if self.s.buffer().is_empty() && self.content_end.is_none() {
                    self.content_end = Some(pos);
                }
            }
        }
    }

    fn block_consume(&mut self, n: usize) {
        self.s.consume(n);
    }

    /// Reads block bytes into `out`.
    fn read_block(&mut self, out: &mut [u8]) -> Result<usize> {
        let chunk = self.block_chunk()?;
        let n = chunk.len().min(out.len());
        out[..n].copy_from_slice(&chunk[..n]);
        self.block_consume(n);
        Ok(n)
    }

    fn http_applies(&self) -> bool {
        let t = self.header.record_type;
        if !matches!(
            t,
            RecordType::Response | RecordType::Request | RecordType::Revisit
        ) {
            return false;
        }
        if self.header.content_length == Some(0) {
            return false;
        }
        match self.header.target_uri() {
            Some(u) => u.starts_with(b"http:") || u.starts_with(b"https:"),
            None => false,
        }
    }

    fn parse_http(&mut self) -> Result<()> {
        if self.http_state != HttpState::NotParsed {
            return Ok(());
        }
        if !self.http_applies() || self.payload_touched {
            self.http_state = HttpState::None;
            return Ok(());
        }
        let limit = self.opts.max_header;
        let mut ended = false;
        let mut overflow = false;
        loop {
            // One line of the block: up to LF or the block end.
            let mut line_done = false;
            let mut line_len = 0usize;
            let mut blank = true;
            while !line_done {
                let chunk = self.block_chunk()?;
                if chunk.is_empty() {
                    break;
                }
                let (n, done) = match memchr::memchr(b'\n', chunk) {
                    Some(i) => (i + 1, true),
                    None => (chunk.len(), false),
                };
                if chunk[..n]
                    .iter()
                    .any(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c))
                {
                    blank = false;
                }
                if self.http.raw.len() + n <= limit {
                    // block_chunk() returned the front of the buffer.
                    self.http.raw.extend_from_slice(&self.s.buffer()[..n]);
                } else {
                    overflow = true;
                }
                line_len += n;
                self.block_consume(n);
                line_done = done;
            }
            if line_len == 0 {
                break; // end of block
            }
            if blank {
                // warcio: an empty first line ends an (empty) head too.
                ended = true;
                break;
            }
            if !line_done {
                break;
            }
        }
        // A head that simply reaches the end of the block after a whole line (request
        // records often end that way) is not an anomaly; one cut mid-line is.
        let cut = !ended && !self.http.raw.ends_with(b"\n");
        if cut || overflow {
            self.http.unterminated = true;
            self.anomaly(
                AnomalyKind::MalformedHttpHeaders,
                self.rec_offset,
                if overflow {
                    format!("HTTP header block longer than {limit} bytes")
                } else {
                    "HTTP header block has no terminating blank line".into()
                },
            );
        }
        self.http.parse_raw();
        self.http_state = if self.http.protocol().is_empty() && self.http.fields.is_empty() {
            HttpState::None
        } else {
            HttpState::Parsed
        };
        Ok(())
    }

    fn header_sha1(&self) -> Option<String> {
        let v = trim(self.header.get("WARC-Payload-Digest")?);
        if v.len() > 5 && v[..5].eq_ignore_ascii_case(b"sha1:") {
            Some(header::decode(&v[5..]).into_owned())
        } else {
            None
        }
    }

    /// Hashes the rest of the block with SHA-1 (stored bytes) and, when asked, the
    /// de-chunked form; returns base32 strings.
    fn hash_rest(&mut self, dechunk: bool) -> Result<(String, Option<String>)> {
        self.parse_http()?;
        let chunked = dechunk
            && self.http_state == HttpState::Parsed
            && self
                .http
                .get("Transfer-Encoding")
                .is_some_and(|v| trim(v).eq_ignore_ascii_case(b"chunked"));
        let mut stored = Sha1::new();
        let mut dc = chunked.then(Dechunker::default);
        loop {
            let chunk = self.block_chunk()?;
            if chunk.is_empty() {
                break;
            }
            stored.update(chunk);
            if let Some(d) = dc.as_mut() {
                d.feed(chunk);
            }
            let n = chunk.len();
            self.block_consume(n);
        }
        self.payload_touched = true;
        let b32 = |d: &[u8]| data_encoding::BASE32.encode(d);
        Ok((b32(&stored.finalize()), dc.map(|d| b32(&d.finish()))))
    }

    fn finish_current(&mut self) -> Result<Span> {
        self.in_record = false;
        let r = self.finish_inner();
        self.collect_stream_anomalies();
        match r {
            Err(e) if e.is_record_lost() => Err(e),
            other => other.map_err(|e| self.fail(e)),
        }
    }

    fn finish_inner(&mut self) -> Result<Span> {
        // Drain the block.
        loop {
            let n = self.block_chunk()?.len();
            if n == 0 {
                break;
            }
            self.block_consume(n);
        }
        let mut content_end = self.content_end.unwrap_or(self.s.position());
        if self.s.is_gzip() && !self.damaged {
            content_end = self.resync_gzip_overrun(content_end)?;
        }
        self.prev_content_end = content_end;
        // The blank lines that end the record; then look at what follows.
        let mut saw_newline = false;
        let mut in_member_junk = false;
        let next = loop {
            if !self.s.ensure()? {
                break None;
            }
            if self.s.is_gzip() {
                // In gzip files a record owns the rest of its member.
                if let Some((_, m)) = self.s.member_at(self.s.position()) {
                    if m.dstart == self.s.position() && m.dstart >= content_end {
                        break None;
                    }
                }
            }
            let line = match self.peek_line(self.opts.max_header)? {
                Some(Ok(n)) => n,
                Some(Err(n)) => n,
                None => break None,
            };
            let l = &self.s.buffer()[..line];
            if rstrip(l).is_empty() {
                saw_newline = true;
                self.s.consume(line);
                continue;
            }
            let is_header = self.header_start(l).is_some();
            if self.s.is_gzip() && !is_header {
                // Data after the block inside the record's own member: part of the record.
                let at = self.rec_offset;
                if !in_member_junk {
                    in_member_junk = true;
                    self.anomaly(
                        AnomalyKind::ContentLengthMismatch,
                        at,
                        "bytes after the record's block inside its gzip member (Content-Length too short?)".into(),
                    );
                }
                self.s.consume(line);
                continue;
            }
            break Some(is_header);
        };
        // Damage met in the block, or in what follows it inside the record's own member
        // (the damaged member gave bytes this record read; a member that failed before
        // giving any is the next record's, and `seek_header` counts it).
        let pos = self.s.position();
        let cut_in_record = next.is_none()
            && self
                .s
                .cut()
                .is_some_and(|c| c.member_dstart < c.dpos && c.member_dstart <= pos);
        if self.damaged || cut_in_record {
            return Err(self.lose_record());
        }
        if next == Some(false) && !self.s.is_gzip() {
            if let Some(end) = self.resync_backwards(content_end) {
                content_end = end;
                self.prev_content_end = end;
            }
        } else if next == Some(true) && !saw_newline && !self.truncated {
            self.anomaly(
                AnomalyKind::MissingTrailingNewline,
                self.rec_offset,
                "record is not followed by a blank line".into(),
            );
        }
        let span = if self.s.is_gzip() {
            self.gzip_span(content_end)?
        } else {
            Span {
                offset: self.rec_offset,
                length: content_end - self.rec_start,
            }
        };
        Ok(span)
    }

    /// Plain files: a record whose Content-Length ran past the next record's header.
    /// Looks back (within what the buffer still holds) for `WARC/` after a blank line.
    fn resync_backwards(&mut self, content_end: u64) -> Option<u64> {
        if self.header.format != Format::Warc {
            return None;
        }
        let (start, held) = self.s.behind(self.content_start);
        let found = find_warc_line_back(held)?;
        let q = start + found as u64;
        if q <= self.content_start {
            return None;
        }
        let real_end = q - trailing_newlines(&held[..found]) as u64;
        self.s.rewind_to(q);
        self.anomaly(
            AnomalyKind::ContentLengthMismatch,
            self.rec_offset,
            format!(
                "Content-Length is {} bytes too long; the next record starts at offset {q}",
                content_end - real_end
            ),
        );
        Some(real_end)
    }

    /// Gzip files: a Content-Length that ran into the next member, whose data starts
    /// a record. Cuts the record at that member boundary.
    fn resync_gzip_overrun(&mut self, content_end: u64) -> Result<u64> {
        let cs = self.content_start;
        let boundary = self
            .s
            .members
            .iter()
            .filter_map(|m| m.dend)
            .find(|&d| d > cs && d < content_end);
        let Some(b) = boundary else {
            return Ok(content_end);
        };
        let (start, held) = self.s.behind(b);
        if start != b {
            return Ok(content_end);
        }
        let rest = rstrip_start(held);
        let skip = held.len() - rest.len();
        if self.header_start_bytes(rest) {
            let q = b + skip as u64;
            self.s.rewind_to(q);
            self.anomaly(
                AnomalyKind::ContentLengthMismatch,
                self.rec_offset,
                format!(
                    "Content-Length runs {} bytes into the next gzip member, which starts a record",
                    content_end - b
                ),
            );
            return Ok(b);
        }
        self.anomaly(
            AnomalyKind::RecordSpansGzipMembers,
            self.rec_offset,
            "the record's block continues across a gzip member boundary".into(),
        );
        Ok(content_end)
    }

    fn header_start_bytes(&self, bytes: &[u8]) -> bool {
        let line_end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
        self.header_start(&bytes[..line_end]).is_some()
    }

    fn gzip_span(&mut self, content_end: u64) -> Result<Span> {
        let pos = self.s.position();
        // The first member boundary at or after the content end, and not past the
        // next record; a non-empty member's end is preferred over an empty one's.
        let ends_here = |m: &&stream::Member| m.dend.is_some_and(|d| d >= content_end && d <= pos);
        let members = &self.s.members;
        let boundary = members
            .iter()
            .filter(ends_here)
            .find(|m| m.dend != Some(m.dstart))
            .or_else(|| members.iter().find(ends_here))
            .map(|m| m.cend.expect("ended member has an end"));
        if let Some(cend) = boundary {
            return Ok(Span {
                offset: self.rec_offset,
                length: cend - self.rec_offset,
            });
        }
        // The record ends inside its member: report the whole member.
        let Some((_, m)) = self
            .s
            .member_at(content_end.saturating_sub(1).max(self.rec_start))
        else {
            return Ok(Span {
                offset: self.rec_offset,
                length: 0,
            });
        };
        if !self.multi_flagged {
            self.anomaly(
                AnomalyKind::MultiRecordGzipMember,
                m.cstart,
                "gzip member holds more than one record (whole-file gzip?); offset and length are the member's".into(),
            );
        }
        let cend = match m.cend {
            Some(c) => c,
            // The input ended inside the member (a truncated file): it ends where the file does.
            None if self.s.is_eof() => self.s.compressed_position(),
            None => self.probe_member_end(m.cstart)?,
        };
        Ok(Span {
            offset: m.cstart,
            length: cend - m.cstart,
        })
    }

    fn probe_member_end(&mut self, cstart: u64) -> Result<u64> {
        if let Some((s, e)) = self.probe_cache {
            if s == cstart {
                return Ok(e);
            }
        }
        let Some(probe) = self.probe.as_mut() else {
            // Not seekable: the member's end is unknown until it is read.
            return Ok(cstart);
        };
        let end = probe(cstart).map_err(|e| Error::at(ErrorKind::Io(e), cstart))?;
        self.probe_cache = Some((cstart, end));
        Ok(end)
    }
}

/// One record, valid until the next call to [`ArchiveReader::next_record`].
pub struct Record<'a, R: Read> {
    rd: &'a mut ArchiveReader<R>,
}

impl<R: Read> Record<'_, R> {
    /// The record's header.
    pub fn header(&self) -> &RecordHeader {
        &self.rd.header
    }

    /// The stored offset of the record (its gzip member for compressed files).
    pub fn offset(&self) -> u64 {
        self.rd.rec_offset
    }

    /// The HTTP head of a response, request or revisit with an http(s) URI, parsed on
    /// first call (it consumes the head from the block).
    pub fn http(&mut self) -> Result<Option<&HttpHead>> {
        self.rd.parse_http()?;
        Ok(match self.rd.http_state {
            HttpState::Parsed => Some(&self.rd.http),
            _ => None,
        })
    }

    /// The payload digest: the record's sha1 `WARC-Payload-Digest` when it has one,
    /// otherwise base32 SHA-1 of the payload as stored (the bytes after the HTTP head,
    /// not de-chunked), computed by reading the rest of the block. `None` for a revisit
    /// without a digest, or when the caller already read part of the payload.
    pub fn payload_digest(&mut self) -> Result<Option<PayloadDigest>> {
        if let Some(d) = self.rd.header_sha1() {
            return Ok(Some(PayloadDigest::FromHeader(d)));
        }
        if self.rd.header.record_type == RecordType::Revisit || self.rd.payload_touched {
            return Ok(None);
        }
        let (d, _) = self.rd.hash_rest(false)?;
        Ok(Some(PayloadDigest::Computed(d)))
    }

    /// Computes base32 SHA-1 of the payload as stored (the bytes after the HTTP head,
    /// not de-chunked) whatever the header says, by reading the rest of the block.
    /// `None` when the caller already read part of the payload.
    pub fn compute_payload_digest(&mut self) -> Result<Option<String>> {
        if self.rd.payload_touched {
            return Ok(None);
        }
        let (d, _) = self.rd.hash_rest(false)?;
        Ok(Some(d))
    }

    /// Recomputes the payload digest and compares it with `WARC-Payload-Digest`, in both
    /// the stored and the de-chunked form. Reads the rest of the block.
    pub fn verify_payload_digest(&mut self) -> Result<DigestCheck> {
        let Some(expected) = self.rd.header_sha1() else {
            return Ok(DigestCheck::NoDigest);
        };
        if self.rd.header.record_type == RecordType::Revisit || self.rd.payload_touched {
            return Ok(DigestCheck::NoDigest);
        }
        let (stored, dechunked) = self.rd.hash_rest(true)?;
        let expected = expected.to_ascii_uppercase();
        if stored == expected {
            return Ok(DigestCheck::MatchesStored);
        }
        if dechunked.as_deref() == Some(expected.as_str()) {
            return Ok(DigestCheck::MatchesDechunked);
        }
        // Some writers (iana.warc.gz) store the SHA-1 in hex.
        if expected.len() == 40 {
            if let Ok(raw) = data_encoding::HEXUPPER.decode(expected.as_bytes()) {
                if data_encoding::BASE32.encode(&raw) == stored {
                    return Ok(DigestCheck::MatchesStored);
                }
            }
        }
        let off = self.rd.rec_offset;
        self.rd.anomaly(
            AnomalyKind::PayloadDigestMismatch,
            off,
            format!("WARC-Payload-Digest sha1:{expected} but the payload hashes to sha1:{stored}"),
        );
        Ok(DigestCheck::Mismatch { computed: stored })
    }

    /// Reads the rest of the record and returns where it is stored.
    ///
    /// An error with [`Error::is_record_lost`] means the record's bytes were in a damaged
    /// gzip member found while reading it: do not use what was read of it (it is counted
    /// as `lost-record`); the reader goes on with the next record.
    pub fn finish(self) -> Result<Span> {
        self.rd.finish_current()
    }

    /// The record type as warcio names it.
    pub fn type_name(&self) -> Cow<'_, str> {
        self.rd.header.type_name()
    }
}

impl<R: Read> Read for Record<'_, R> {
    /// Reads the block (after the HTTP head if [`Record::http`] was called).
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.rd.payload_touched = true;
        if self.rd.http_state == HttpState::NotParsed {
            self.rd.http_state = HttpState::None;
        }
        self.rd
            .read_block(out)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))
    }
}

/// Splits an ARC header line from the right (warcio's rule; copes with spaces in URLs).
/// Returns the format and the fields, URL first.
pub(crate) fn parse_arc_line(
    line: &[u8],
    version: Format,
    strict: bool,
) -> Option<(Format, Vec<&[u8]>)> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.is_empty() || line[0] == b' ' {
        return None;
    }
    let try_split = |n: usize| -> Option<Vec<&[u8]>> {
        let mut parts: Vec<&[u8]> = line.rsplitn(n, |&b| b == b' ').collect();
        if parts.len() != n {
            return None;
        }
        parts.reverse();
        let len = trim(parts[n - 1]);
        let num = len.strip_prefix(b"-").unwrap_or(len);
        // Quirk (warcio): any five fields make an ARC header line; a broken length
        // becomes 0. While resynchronising, require a number to avoid taking text for one.
        if strict && (num.is_empty() || !num.iter().all(u8::is_ascii_digit)) {
            return None;
        }
        if parts[0].is_empty() {
            return None;
        }
        Some(parts)
    };
    if line.starts_with(b"filedesc:") {
        return try_split(5).map(|p| (Format::ArcV1, p));
    }

    if version == Format::ArcV2 {
        if let Some(p) = try_split(10) {
            return Some((Format::ArcV2, p));
        }
    }
    try_split(5).map(|p| (Format::ArcV1, p))
}

fn parse_u64(v: &[u8]) -> Option<u64> {
    if v.is_empty() || v.len() > 19 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(v).ok()?.parse().ok()
}

fn rstrip_start(v: &[u8]) -> &[u8] {
    let s = v
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(v.len());
    &v[s..]
}

/// How many CR/LF bytes end `v` (at most four: the record terminator).
fn trailing_newlines(v: &[u8]) -> usize {
    v.iter()
        .rev()
        .take(4)
        .take_while(|b| matches!(b, b'\r' | b'\n'))
        .count()
}

/// The last `WARC/` at the start of a line that follows a blank line.
fn find_warc_line_back(held: &[u8]) -> Option<usize> {
    let finder = memchr::memmem::FinderRev::new(b"\nWARC/");
    let mut hay = held;
    while let Some(i) = finder.rfind(hay) {
        let before = &held[..i + 1];
        if before.ends_with(b"\n\r\n") || before.ends_with(b"\n\n") {
            return Some(i + 1);
        }
        hay = &held[..i];
    }
    None
}

/// Removes HTTP chunked transfer coding from a stream of bytes, for `--verify`.
#[derive(Default)]
struct Dechunker {
    sha: Sha1,
    state: ChunkState,
    size_line: Vec<u8>,
    remaining: u64,
}

#[derive(Default, PartialEq)]
enum ChunkState {
    #[default]
    Size,
    Data,
    DataEnd,
    Done,
}

impl Dechunker {
    fn feed(&mut self, mut b: &[u8]) {
        while !b.is_empty() {
            match self.state {
                ChunkState::Size => match memchr::memchr(b'\n', b) {
                    Some(i) => {
                        self.size_line.extend_from_slice(&b[..i]);
                        b = &b[i + 1..];
                        let line = trim(&self.size_line);
                        let hex = line.split(|&c| c == b';').next().unwrap_or_default();
                        let n = std::str::from_utf8(trim(hex))
                            .ok()
                            .and_then(|s| u64::from_str_radix(s, 16).ok());
                        self.size_line.clear();
                        match n {
                            Some(0) => self.state = ChunkState::Done,
                            Some(n) => {
                                self.remaining = n;
                                self.state = ChunkState::Data;
                            }
                            None => self.state = ChunkState::Done,
                        }
                    }
                    None => {
                        self.size_line.extend_from_slice(b);
                        b = &[];
                    }
                },
                ChunkState::Data => {
                    let n = (self.remaining as usize).min(b.len());
                    self.sha.update(&b[..n]);
                    self.remaining -= n as u64;
                    b = &b[n..];
                    if self.remaining == 0 {
                        self.state = ChunkState::DataEnd;
                    }
                }
                ChunkState::DataEnd => match memchr::memchr(b'\n', b) {
                    Some(i) => {
                        b = &b[i + 1..];
                        self.state = ChunkState::Size;
                    }
                    None => b = &[],
                },
                ChunkState::Done => b = &[],
            }
        }
    }

    fn finish(self) -> Vec<u8> {
        self.sha.finalize().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arc_lines_split_from_the_right() {
        let (f, p) = parse_arc_line(
            b"http://a.b/x y z 1.2.3.4 20000101000000 text/html 12\n",
            Format::ArcV1,
            true,
        )
        .unwrap();
        assert_eq!(f, Format::ArcV1);
        assert_eq!(p[0], b"http://a.b/x y z");
        assert_eq!(p[4], b"12");
        let (_, p) = parse_arc_line(
            b"http://a/ 1.2.3.4 20110804181142  39\n",
            Format::ArcV1,
            true,
        )
        .unwrap();
        assert_eq!(p[3], b"");
        assert!(parse_arc_line(b"WARC/1.0\r\n", Format::ArcV1, false).is_none());
        assert!(parse_arc_line(b"hello world\n", Format::ArcV1, false).is_none());
        assert!(parse_arc_line(b"a b c d e\n", Format::ArcV1, true).is_none());
        assert!(parse_arc_line(b"a b c d e\n", Format::ArcV1, false).is_some());
    }

    #[test]
    fn dechunk() {
        let mut d = Dechunker::default();
        d.feed(b"4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n");
        let mut s = Sha1::new();
        s.update(b"Wikipedia");
        assert_eq!(d.finish(), s.finalize().to_vec());
    }
}
