//! Record headers: WARC named fields or an ARC header line, kept as raw bytes
//! beside normalized name/value pairs (duplicates kept, in order).

use std::borrow::Cow;

pub use super::bytes::{decode, trim};
use super::fields::Fields;

/// Which container a record came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A WARC record; the version is in [`RecordHeader::version`].
    Warc,
    /// An ARC v1 record (5-field header line).
    ArcV1,
    /// An ARC v2 record (10-field header line).
    ArcV2,
}

impl Format {
    /// True for both ARC versions.
    pub fn is_arc(self) -> bool {
        !matches!(self, Format::Warc)
    }
}

/// The WARC record type (ARC records are read as a WARC dialect: the filedesc is
/// `Warcinfo`, every other ARC record is `Response`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordType {
    /// `warcinfo`, or an ARC `filedesc://` record.
    Warcinfo,
    /// `response`, or an ARC URL record.
    Response,
    /// `resource`.
    Resource,
    /// `request`.
    Request,
    /// `metadata`.
    Metadata,
    /// `revisit`.
    Revisit,
    /// `conversion`.
    Conversion,
    /// `continuation`.
    Continuation,
    /// Anything else (kept verbatim in the header).
    Unknown,
}

impl RecordType {
    /// Parses a WARC-Type value, ignoring case and surrounding white space.
    pub fn from_warc_type(v: &[u8]) -> RecordType {
        let v = trim(v);
        const TYPES: [(&[u8], RecordType); 8] = [
            (b"response", RecordType::Response),
            (b"request", RecordType::Request),
            (b"warcinfo", RecordType::Warcinfo),
            (b"revisit", RecordType::Revisit),
            (b"resource", RecordType::Resource),
            (b"metadata", RecordType::Metadata),
            (b"conversion", RecordType::Conversion),
            (b"continuation", RecordType::Continuation),
        ];
        TYPES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(v))
            .map(|(_, t)| *t)
            .unwrap_or(RecordType::Unknown)
    }

    /// The lower-case WARC name.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordType::Warcinfo => "warcinfo",
            RecordType::Response => "response",
            RecordType::Resource => "resource",
            RecordType::Request => "request",
            RecordType::Metadata => "metadata",
            RecordType::Revisit => "revisit",
            RecordType::Conversion => "conversion",
            RecordType::Continuation => "continuation",
            RecordType::Unknown => "unknown",
        }
    }
}

/// ARC v1 field names, in header-line order (warcio's names).
pub const ARC_V1_FIELDS: [&str; 5] = [
    "uri",
    "ip-address",
    "archive-date",
    "content-type",
    "length",
];
/// ARC v2 field names, in header-line order.
pub const ARC_V2_FIELDS: [&str; 10] = [
    "uri",
    "ip-address",
    "archive-date",
    "content-type",
    "result-code",
    "checksum",
    "location",
    "offset",
    "filename",
    "length",
];

/// One record's header. Reused from record to record, so reading allocates
/// only when a header is larger than any before it.
#[derive(Debug, Clone)]
pub struct RecordHeader {
    pub(crate) format: Format,
    pub(crate) version: Vec<u8>,
    pub(crate) raw: Vec<u8>,
    /// Normalized names and values.
    pub(crate) fields: Fields,
    pub(crate) record_type: RecordType,
    pub(crate) content_length: Option<u64>,
}

impl Default for RecordHeader {
    fn default() -> Self {
        RecordHeader {
            format: Format::Warc,
            version: Vec::new(),
            raw: Vec::new(),
            fields: Fields::default(),
            record_type: RecordType::Unknown,
            content_length: None,
        }
    }
}

impl RecordHeader {
    pub(crate) fn clear(&mut self) {
        self.version.clear();
        self.raw.clear();
        self.fields.clear();
        self.record_type = RecordType::Unknown;
        self.content_length = None;
    }

    /// ARC or WARC.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The WARC version (`1.0`, `1.1`, `0.17`, `0.18`); empty for ARC.
    pub fn version(&self) -> &[u8] {
        &self.version
    }

    /// The header block exactly as read (version line included, for ARC the header line).
    pub fn raw(&self) -> &[u8] {
        &self.raw
    }

    /// The record type.
    pub fn record_type(&self) -> RecordType {
        self.record_type
    }

    /// The record type as warcio names it: the WARC-Type value, or for ARC
    /// `warcinfo` (filedesc) and `response`.
    pub fn type_name(&self) -> Cow<'_, str> {
        match self.format {
            Format::Warc => self
                .get("WARC-Type")
                .map(decode)
                .unwrap_or(Cow::Borrowed("")),
            _ => Cow::Borrowed(self.record_type.as_str()),
        }
    }

    /// All fields in order, duplicates included (for ARC, the header line's fields
    /// under [`ARC_V1_FIELDS`] or [`ARC_V2_FIELDS`] names).
    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// The value of a `WARC-Payload-Digest: sha1:...` field without its prefix (as
    /// written: base32, or hex from some writers); `None` for other algorithms.
    pub fn payload_sha1(&self) -> Option<String> {
        let v = trim(self.get("WARC-Payload-Digest")?);
        if v.len() > 5 && v[..5].eq_ignore_ascii_case(b"sha1:") {
            Some(decode(&v[5..]).into_owned())
        } else {
            None
        }
    }

    /// The block length the header declares, when it declares a usable one.
    pub fn content_length(&self) -> Option<u64> {
        self.content_length
    }

    /// The target URI: WARC-Target-URI (wget's `<uri>` brackets removed) or the ARC URL.
    pub fn target_uri(&self) -> Option<&[u8]> {
        let v = match self.format {
            Format::Warc => self.get("WARC-Target-URI")?,
            _ => self.get("uri")?,
        };
        // Quirk: wget 1.14-1.19 wrote `WARC-Target-URI: <http://...>` (WARC 1.0 grammar
        // example); warcio, pywb and CDX-Writer strip the brackets.
        if v.len() >= 2 && v[0] == b'<' && v[v.len() - 1] == b'>' {
            Some(&v[1..v.len() - 1])
        } else {
            Some(v)
        }
    }

    /// The capture date as written: WARC-Date, or the ARC archive-date.
    pub fn date(&self) -> Option<&[u8]> {
        match self.format {
            Format::Warc => self.get("WARC-Date"),
            _ => self.get("archive-date"),
        }
    }

    /// The date as `YYYY-MM-DDThh:mm:ssZ` (WARC-Date verbatim; ARC dates converted
    /// with warcio's clamping rules).
    pub fn date_iso(&self) -> Option<String> {
        let d = self.date()?;
        match self.format {
            Format::Warc => Some(decode(d).into_owned()),
            _ => Some(crate::reader::date::arc_date_to_iso(&decode(d))),
        }
    }

    /// The date as 14 digits `YYYYMMDDhhmmss`.
    pub fn date14(&self) -> Option<String> {
        let d = self.date()?;
        match self.format {
            Format::Warc => Some(crate::reader::date::iso_to_14(&decode(d))),
            _ => Some(crate::reader::date::arc_date_to_14(&decode(d))),
        }
    }

    /// WARC-Record-ID (none for ARC).
    pub fn record_id(&self) -> Option<&[u8]> {
        self.get("WARC-Record-ID")
    }

    /// WARC Content-Type, or the ARC content-type.
    pub fn content_type(&self) -> Option<&[u8]> {
        match self.format {
            Format::Warc => self.get("Content-Type"),
            _ => self.get("content-type"),
        }
    }
}

/// The fields are read through the header ([`Fields::get`], [`Fields::get_str`], ...), as
/// jwarc's `MessageHeaders` serves both WARC and HTTP headers.
impl std::ops::Deref for RecordHeader {
    type Target = Fields;

    fn deref(&self) -> &Fields {
        &self.fields
    }
}
