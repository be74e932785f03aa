//! Errors and anomalies, each located by file and byte offset.
//!
//! An [`Error`] stops reading a file (a gzip member cut by the end of the file, an I/O
//! failure, no archive record at all), except [`ErrorKind::RecordLost`], which loses one
//! record. An [`Anomaly`] is a recoverable oddity: the reader
//! counts it, keeps it for the caller to report, and goes on.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong, without the location.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The operating system refused a read or a write.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A gzip member could not be decompressed (corrupt or cut short).
    #[error("gzip member starting at offset {member_offset} is corrupt or truncated: {message}")]
    Gzip {
        /// Offset of the gzip member in the compressed file.
        member_offset: u64,
        /// What the decompressor said.
        message: String,
    },
    /// A zstd frame could not be decompressed (corrupt or cut short).
    #[error("zstd frame starting at offset {frame_offset} is corrupt or truncated: {message}")]
    Zstd {
        /// Offset of the zstd frame in the compressed file.
        frame_offset: u64,
        /// What the decompressor said.
        message: String,
    },
    /// The input is no archive: its first record is neither a WARC nor an ARC record
    /// (after gzip or zstd decoding), or nothing in it is one.
    #[error("not an ARC or WARC file: {what} starts with {start}")]
    NotAnArchive {
        /// What was looked at: "the file", or "the decompressed data" (gzip, zstd).
        what: &'static str,
        /// Its first bytes, escaped (printable ASCII as is, other bytes as `\xNN`),
        /// then the same bytes in hex.
        start: String,
    },
    /// The dictionary of a WARC-zstd file (the skippable frame at its start) is damaged
    /// or no dictionary: no frame of the file can be decoded without it.
    #[error("the zstd dictionary in the frame at offset {frame_offset} is damaged: {message}")]
    ZstdDictionary {
        /// Offset of the dictionary frame in the file (0 for a file of its own).
        frame_offset: u64,
        /// What is wrong with it.
        message: String,
    },
    /// A header line or block exceeded the configured maximum.
    #[error("header longer than {limit} bytes")]
    HeaderTooLong {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// A directory given as an archive: the message says to give the files in it.
    #[error("{}", crate::path_error::directory_hint(.0))]
    Directory(PathBuf),
    /// A file compressed by a tool whose format the reader does not decode (lz4, xz):
    /// told by its magic number, so the user is told what to run rather than that it is
    /// no archive.
    #[error("{format}-compressed; decompress it first ({tool})")]
    Compressed {
        /// The format: `lz4`, `xz`.
        format: &'static str,
        /// The command that decompresses it.
        tool: &'static str,
    },
    /// A WACZ that cannot be read (its message names it).
    #[error(transparent)]
    Wacz(#[from] crate::reader::wacz::WaczError),
    /// The record's bytes were in a damaged gzip member, found only after the record was
    /// handed out: it must not be used. Reading goes on (see [`Error::is_record_lost`]).
    #[error("record lost: its gzip member at offset {member_offset} is damaged")]
    RecordLost {
        /// Offset of the damaged gzip member in the compressed file.
        member_offset: u64,
    },
}

/// The compression formats that are told by their magic number but not decoded, with the
/// command that decodes each: `(magic, format, tool)`.
const FOREIGN_COMPRESSION: [(&[u8], &str, &str); 2] = [
    (b"\x04\x22\x4d\x18", "lz4", "lz4 -d"),
    (b"\xfd7zXZ\x00", "xz", "xz -d"),
];

/// [`ErrorKind::Compressed`] when `start`, a file's first bytes, is the magic number of
/// a compression the reader does not decode.
pub fn foreign_compression(start: &[u8]) -> Option<ErrorKind> {
    FOREIGN_COMPRESSION
        .iter()
        .find(|(magic, _, _)| start.starts_with(magic))
        .map(|&(_, format, tool)| ErrorKind::Compressed { format, tool })
}

/// An error with the file and byte offset where it happened.
#[derive(Debug)]
pub struct Error {
    kind: Box<ErrorKind>,
    path: Option<PathBuf>,
    offset: Option<u64>,
}

impl Error {
    /// An error of `kind` at `offset` (a byte offset in the file as stored).
    pub fn at(kind: ErrorKind, offset: u64) -> Self {
        Error {
            kind: Box::new(kind),
            path: None,
            offset: Some(offset),
        }
    }

    /// An error with no known offset.
    pub fn new(kind: ErrorKind) -> Self {
        Error {
            kind: Box::new(kind),
            path: None,
            offset: None,
        }
    }

    /// A WACZ that cannot be read (the error names the WACZ).
    pub fn wacz(e: crate::reader::wacz::WaczError) -> Self {
        Error::new(ErrorKind::Wacz(e))
    }

    /// Attaches the file this error belongs to (kept if already set).
    pub fn with_path(mut self, path: &Path) -> Self {
        if self.path.is_none() {
            self.path = Some(path.to_path_buf());
        }
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The file, when known.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The byte offset in the file as stored, when known.
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }

    /// True for [`ErrorKind::RecordLost`]: this record is lost (and counted as
    /// `lost-record`), but the reader goes on with the next one.
    pub fn is_record_lost(&self) -> bool {
        matches!(*self.kind, ErrorKind::RecordLost { .. })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.path {
            write!(f, "{}: ", p.display())?;
        }
        if let Some(o) = self.offset {
            write!(f, "offset {o}: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

/// The location, then the kind's own text: the kind's sources are this error's (a system
/// or WACZ error is shown as its kind, not handed on again).
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.kind.source()
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io(e))
    }
}

/// How many of a file's first bytes [`escaped_start`] shows.
pub const START_SHOWN: usize = 32;

/// The first bytes of `bytes` ([`START_SHOWN`] at most) as a message shows what a file
/// that is no archive starts with: escaped, printable ASCII as is and every other byte
/// as `\xNN` (so a terminal shows nothing the file holds), then the same bytes in hex,
/// which is how a binary format is recognised.
pub fn escaped_start(bytes: &[u8]) -> String {
    let b = &bytes[..bytes.len().min(START_SHOWN)];
    let mut text = String::with_capacity(b.len() * 2);
    for &c in b {
        match c {
            b'"' => text.push_str("\\\""),
            b'\\' => text.push_str("\\\\"),
            b'\n' => text.push_str("\\n"),
            b'\r' => text.push_str("\\r"),
            b'\t' => text.push_str("\\t"),
            0x20..=0x7e => text.push(c as char),
            _ => text.push_str(&format!("\\x{c:02x}")),
        }
    }
    let hex: Vec<String> = b.iter().map(|c| format!("{c:02x}")).collect();
    format!("\"{text}\" (hex {})", hex.join(" "))
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The kinds of recoverable oddity the reader counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum AnomalyKind {
    /// Header lines ended by a bare LF instead of CRLF.
    LfLineEndings,
    /// A header value continued on the next line (leading SP or HT).
    HeaderContinuation,
    /// A header value started with white space, which was removed.
    LeadingWhitespace,
    /// A header line without a colon; it was kept in the raw bytes and ignored.
    MalformedHeaderLine,
    /// The record did not end where Content-Length said; the reader resynchronised.
    ContentLengthMismatch,
    /// Bytes between records that are not a record; skipped to the next record.
    GarbageBetweenRecords,
    /// The record was not followed by the blank lines that should end it.
    MissingTrailingNewline,
    /// An ARC header line whose URL contains spaces (split from the right).
    ArcUrlWithSpaces,
    /// An ARC header line that does not parse; read as best as possible.
    MalformedArcHeader,
    /// A gzip member that decompresses to nothing.
    EmptyGzipMember,
    /// A gzip member holding more than one record (a whole-file gzip).
    MultiRecordGzipMember,
    /// A record that starts inside a gzip member holding the end of another record.
    RecordSpansGzipMembers,
    /// The file ended inside a record.
    TruncatedRecord,
    /// A missing, negative or unparseable Content-Length (or ARC length).
    BadContentLength,
    /// A WARC record without WARC-Type, WARC-Date or WARC-Record-ID.
    MissingMandatoryField,
    /// An HTTP header block that never ended or exceeded the size limit.
    MalformedHttpHeaders,
    /// A payload digest in the record that does not match the payload (`--verify`).
    PayloadDigestMismatch,
    /// Bytes after the last gzip member that are not gzip.
    TrailingGarbage,
    /// A target URI the SURT canonicalizer rejects; its CDX key is the URI as written.
    UncanonicalizableUrl,
    /// A gzip member that does not decompress (CRC-32 or length mismatch, broken deflate
    /// data, a bad header) or bytes that are no gzip where a member should start; the
    /// bytes up to the next gzip member were skipped (the message gives the range).
    DamagedGzipMember,
    /// A zstd frame that does not decompress (corrupt block, checksum mismatch, a frame
    /// made with another dictionary) or bytes that are no zstd frame where one should
    /// start; the bytes up to the next frame were skipped (the message gives the range).
    DamagedZstdFrame,
    /// A record that could not be read because its bytes were in a damaged gzip member
    /// or zstd frame: one per damaged region at least (a whole-file gzip may lose more
    /// than one).
    LostRecord,
}

impl AnomalyKind {
    /// Every kind, in reporting order.
    pub const ALL: [AnomalyKind; 22] = [
        AnomalyKind::LfLineEndings,
        AnomalyKind::HeaderContinuation,
        AnomalyKind::LeadingWhitespace,
        AnomalyKind::MalformedHeaderLine,
        AnomalyKind::ContentLengthMismatch,
        AnomalyKind::GarbageBetweenRecords,
        AnomalyKind::MissingTrailingNewline,
        AnomalyKind::ArcUrlWithSpaces,
        AnomalyKind::MalformedArcHeader,
        AnomalyKind::EmptyGzipMember,
        AnomalyKind::MultiRecordGzipMember,
        AnomalyKind::RecordSpansGzipMembers,
        AnomalyKind::TruncatedRecord,
        AnomalyKind::BadContentLength,
        AnomalyKind::MissingMandatoryField,
        AnomalyKind::MalformedHttpHeaders,
        AnomalyKind::PayloadDigestMismatch,
        AnomalyKind::TrailingGarbage,
        AnomalyKind::UncanonicalizableUrl,
        AnomalyKind::DamagedGzipMember,
        AnomalyKind::DamagedZstdFrame,
        AnomalyKind::LostRecord,
    ];

    /// A short stable name, used in counts and JSON.
    pub fn name(self) -> &'static str {
        match self {
            AnomalyKind::LfLineEndings => "lf-line-endings",
            AnomalyKind::HeaderContinuation => "header-continuation",
            AnomalyKind::LeadingWhitespace => "leading-whitespace",
            AnomalyKind::MalformedHeaderLine => "malformed-header-line",
            AnomalyKind::ContentLengthMismatch => "content-length-mismatch",
            AnomalyKind::GarbageBetweenRecords => "garbage-between-records",
            AnomalyKind::MissingTrailingNewline => "missing-trailing-newline",
            AnomalyKind::ArcUrlWithSpaces => "arc-url-with-spaces",
            AnomalyKind::MalformedArcHeader => "malformed-arc-header",
            AnomalyKind::EmptyGzipMember => "empty-gzip-member",
            AnomalyKind::MultiRecordGzipMember => "multi-record-gzip-member",
            AnomalyKind::RecordSpansGzipMembers => "record-spans-gzip-members",
            AnomalyKind::TruncatedRecord => "truncated-record",
            AnomalyKind::BadContentLength => "bad-content-length",
            AnomalyKind::MissingMandatoryField => "missing-mandatory-field",
            AnomalyKind::MalformedHttpHeaders => "malformed-http-headers",
            AnomalyKind::PayloadDigestMismatch => "payload-digest-mismatch",
            AnomalyKind::TrailingGarbage => "trailing-garbage",
            AnomalyKind::UncanonicalizableUrl => "uncanonicalizable-url",
            AnomalyKind::DamagedGzipMember => "damaged-gzip-member",
            AnomalyKind::DamagedZstdFrame => "damaged-zstd-frame",
            AnomalyKind::LostRecord => "lost-record",
        }
    }

    /// The kind whose [`AnomalyKind::name`] is `name` (counts kept by name, as a
    /// segment's are).
    pub fn from_name(name: &str) -> Option<AnomalyKind> {
        AnomalyKind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// True for damage: bytes that did not decode, or a record lost or cut short by it
    /// or by the end of the file. The other kinds are oddities of records that were read
    /// whole. A file with damage is counted as damaged in every command's summary.
    pub fn is_damage(self) -> bool {
        matches!(
            self,
            AnomalyKind::DamagedGzipMember
                | AnomalyKind::DamagedZstdFrame
                | AnomalyKind::LostRecord
                | AnomalyKind::TruncatedRecord
        )
    }

    fn index(self) -> usize {
        AnomalyKind::ALL
            .iter()
            .position(|k| *k == self)
            .unwrap_or(0)
    }
}

/// One recoverable oddity, located.
#[derive(Debug, Clone)]
pub struct Anomaly {
    /// What kind.
    pub kind: AnomalyKind,
    /// Byte offset in the file as stored (the gzip member offset for compressed files,
    /// unless the message says otherwise).
    pub offset: u64,
    /// A human-readable detail.
    pub message: String,
}

impl fmt::Display for Anomaly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "offset {}: {}: {}",
            self.offset,
            self.kind.name(),
            self.message
        )
    }
}

/// Counts of anomalies by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnomalyCounts {
    counts: [u64; AnomalyKind::ALL.len()],
}

impl AnomalyCounts {
    /// Adds one of `kind`.
    pub fn add(&mut self, kind: AnomalyKind) {
        self.counts[kind.index()] += 1;
    }

    /// How many of `kind`.
    pub fn get(&self, kind: AnomalyKind) -> u64 {
        self.counts[kind.index()]
    }

    /// Total of all kinds.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The count of damage (kinds for which [`AnomalyKind::is_damage`] is true).
    pub fn damage(&self) -> u64 {
        self.nonzero()
            .filter(|(k, _)| k.is_damage())
            .map(|(_, n)| n)
            .sum()
    }

    /// Adds another set of counts to this one.
    pub fn merge(&mut self, other: &AnomalyCounts) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
    }

    /// The non-zero counts, in reporting order.
    pub fn nonzero(&self) -> impl Iterator<Item = (AnomalyKind, u64)> + '_ {
        AnomalyKind::ALL
            .iter()
            .map(|k| (*k, self.get(*k)))
            .filter(|(_, n)| *n > 0)
    }
}

impl fmt::Display for AnomalyCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (k, n) in self.nonzero() {
            if !first {
                write!(f, ", ")?;
            }
            first = false;
            write!(f, "{} {}", k.name(), n)?;
        }
        if first {
            write!(f, "none")?;
        }
        Ok(())
    }
}
