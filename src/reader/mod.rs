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

//! The files, public API first:
//! - `mod.rs`: [`ArchiveReader`], [`Record`] and the options;
//! - `machine.rs`: the record state machine (next, header, block, finish);
//! - `seek.rs`: finding a header, skipping garbage; `warc.rs`, `arc.rs`: the two headers;
//! - `block.rs`: the block and its HTTP head; `digest.rs`, `chunked.rs`: payload digests;
//! - `span.rs`: where a record is stored; `resync.rs`: cutting back an overlong record;
//! - `header.rs`, `http.rs`, `fields.rs`, `bytes.rs`, `date.rs`, `content_type.rs`: what a
//!   header says;
//! - `stream.rs`, `counting.rs`, `window.rs`, `gzip_member.rs`: bytes in, gzip members;
//! - `error.rs`: the reader's [`Error`](error::Error) and the anomalies it counts;
//! - `wacz.rs`: a WACZ's WARCs, opened in place; `records.rs`: `warcdex records`;
//!   `inflate.rs`: `warcdex inflate`, the decompression lower bound of the benches.

mod arc;
mod block;
mod bytes;
pub mod chunked;
mod codec;
pub mod content_type;
pub(crate) mod counting;
pub mod date;
mod digest;
pub mod error;
pub mod fields;
pub mod gzip_member;
pub mod header;
pub mod http;
pub mod inflate;
pub mod location;
mod machine;
pub mod records;
mod resync;
mod seek;
mod span;
mod stream;
pub mod wacz;
mod warc;
pub(crate) mod whole_member;
mod window;
pub mod zstd_frame;

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

pub use codec::Codec;
pub use digest::{DigestCheck, PayloadDigest};
pub use fields::Fields;
pub use header::{Format, RecordHeader, RecordType};
pub use http::HttpHead;
pub use span::Span;

use crate::reader::error::{Anomaly, AnomalyCounts, AnomalyKind, Error, ErrorKind, Result};
use span::{member_probe, MemberProbe};
use stream::Stream;

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

/// Whether the block's HTTP head was looked for, and found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HttpState {
    /// Not yet: the block is untouched.
    NotParsed,
    /// The record has no HTTP head (or the caller read the block raw).
    None,
    /// Parsed into `ArchiveReader::http`.
    Parsed,
}

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
    /// The input's first line was looked at (or need not be: a piece of a file starts
    /// at a record another reader found). Until then the first non-blank line must be a
    /// record header, or the input is no archive.
    start_checked: bool,
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
        let file = open_file(path)?;
        let mut r = ArchiveReader::with_options(file, opts).map_err(|e| e.with_path(path))?;
        r.path = Some(path.to_path_buf());
        r.probe = Some(member_probe(path.to_path_buf(), 0, r.s.codec()));
        Ok(r)
    }
}

/// Opens an archive file; a directory (which Linux opens, and whose read fails with
/// "Is a directory") is refused with how to give the archives in it.
fn open_file(path: &Path) -> Result<File> {
    let file = File::open(path).map_err(|e| Error::from(e).with_path(path))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(Error::new(ErrorKind::Directory(path.to_path_buf())).with_path(path));
    }
    Ok(file)
}

/// An input named on the command line: a file, or standard input.
pub type Input = Box<dyn Read + Send>;

impl ArchiveReader<Input> {
    /// Opens `path`, or reads standard input when `path` is `-` (every command reads
    /// `-`, docs/guide.md). From standard input, a record inside a whole-file gzip member
    /// cannot get the member's length by a second pass: its length is written as 0.
    pub fn open_input(path: &Path, opts: ReaderOptions) -> Result<Self> {
        if path == Path::new("-") {
            let mut r = ArchiveReader::with_options(Box::new(io::stdin()) as Input, opts)
                .map_err(|e| e.with_path(path))?;
            r.path = Some(path.to_path_buf());
            return Ok(r);
        }
        let file = open_file(path)?;
        let mut r = ArchiveReader::with_options(Box::new(file) as Input, opts)
            .map_err(|e| e.with_path(path))?;
        r.path = Some(path.to_path_buf());
        r.probe = Some(member_probe(path.to_path_buf(), 0, r.s.codec()));
        Ok(r)
    }
}

impl ArchiveReader<Input> {
    /// Opens the `len` bytes of `file` from offset `start` (a WARC stored in a WACZ) as
    /// the archive called `name` in messages. Offsets and lengths are those of the
    /// archive, counted from `start`; whole-file gzip members are measured by seeking in
    /// `file`.
    pub fn open_slice(
        file: &Path,
        start: u64,
        len: u64,
        name: &Path,
        opts: ReaderOptions,
    ) -> Result<Self> {
        let input = file_slice(file, start, len)?;
        let mut r = ArchiveReader::with_options(input, opts).map_err(|e| e.with_path(name))?;
        r.path = Some(name.to_path_buf());
        r.probe = Some(member_probe(file.to_path_buf(), start, r.s.codec()));
        Ok(r)
    }

    /// Opens the `len` bytes of `file` from offset `start`: a piece of a compressed
    /// archive that starts at a record's member (`cdx -j` cuts one file into pieces).
    /// Offsets and lengths are the file's own, as if it were read from its start.
    pub fn open_range(file: &Path, start: u64, len: u64, opts: ReaderOptions) -> Result<Self> {
        location::ArchiveLocation::file(file).open_range(start, len, opts)
    }
}

/// The `len` bytes of `file` from offset `start`, as an input.
fn file_slice(file: &Path, start: u64, len: u64) -> Result<Input> {
    use std::io::{Seek, SeekFrom};
    let mut f = File::open(file).map_err(|e| Error::from(e).with_path(file))?;
    f.seek(SeekFrom::Start(start))
        .map_err(|e| Error::from(e).with_path(file))?;
    Ok(Box::new(f.take(len)))
}

impl<R: Read> ArchiveReader<R> {
    /// A reader over any byte source with default options.
    pub fn new(inner: R) -> Result<Self> {
        Self::with_options(inner, ReaderOptions::default())
    }

    /// A reader over any byte source.
    pub fn with_options(inner: R, opts: ReaderOptions) -> Result<Self> {
        let s = Stream::new(inner, opts.buffer_size)?;
        Ok(Self::with_stream(s, opts))
    }

    fn with_stream(s: Stream<R>, opts: ReaderOptions) -> Self {
        ArchiveReader {
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
            start_checked: false,
        }
    }

    /// Names the file in errors (for readers not made by [`ArchiveReader::open`]).
    pub fn set_path(&mut self, path: impl Into<PathBuf>) {
        self.path = Some(path.into());
    }

    /// The input's compression (gzip members or zstd frames), if it is compressed.
    pub fn codec(&self) -> Option<Codec> {
        self.s.codec()
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

    /// Passes over the records stored in `spans` (`(offset, length)`, each one whole
    /// gzip member or zstd frame, as a CDX gives them) without decompressing them: they
    /// are never handed out. A span is passed over only where a member starts exactly at
    /// its offset; else its bytes are read as usual. The caller must know that each span
    /// is one whole member (its first bytes and those after it start members) and holds
    /// one record. Plain input reads every record.
    pub fn skip_members(&mut self, spans: Vec<(u64, u64)>) {
        self.s.skip_members(spans);
    }

    /// How many of the [`ArchiveReader::skip_members`] spans were passed over.
    pub fn members_skipped(&self) -> u64 {
        self.s.holes_skipped
    }

    /// Records returned so far.
    pub fn records_read(&self) -> u64 {
        self.records
    }

    /// Bytes of the stored file consumed so far (for progress bars).
    pub fn stored_position(&self) -> u64 {
        self.s.compressed_position()
    }

    /// Advances to the next record. The previous record, if any, is finished first.
    ///
    /// A record whose bytes are in a damaged gzip member is never handed out when the
    /// damage is known by the end of its header: it is counted as `lost-record` and
    /// skipped. When the damage shows only later, [`Record::finish`] says so.
    pub fn next_record(&mut self) -> Result<Option<Record<'_, R>>> {
        self.advance()
    }

    /// What one stored unit of this file is called in messages.
    fn unit(&self) -> &'static str {
        self.s.codec().unwrap_or(Codec::Gzip).unit()
    }

    /// The name of this file's compression in messages.
    fn codec_name(&self) -> &'static str {
        self.s.codec().unwrap_or(Codec::Gzip).name()
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

    fn fail(&mut self, e: Error) -> Error {
        self.failed = true;
        self.in_record = false;
        self.collect_stream_anomalies();
        self.err(e)
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
        self.rd.payload_digest()
    }

    /// Computes base32 SHA-1 of the payload as stored (the bytes after the HTTP head,
    /// not de-chunked) whatever the header says, by reading the rest of the block.
    /// `None` when the caller already read part of the payload.
    pub fn compute_payload_digest(&mut self) -> Result<Option<String>> {
        self.rd.compute_payload_digest()
    }

    /// Recomputes the payload digest and compares it with `WARC-Payload-Digest`, in both
    /// the stored and the de-chunked form. Reads the rest of the block.
    pub fn verify_payload_digest(&mut self) -> Result<DigestCheck> {
        self.rd.verify_payload_digest()
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
