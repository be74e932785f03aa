//! One CDX line: parsing and writing the 9-field and 11-field classic layouts
//! (` CDX N b a m s k r V g` and ` CDX N b a m s k r M S V g`) and CDXJ
//! (`urlkey timestamp {json}`).
//!
//! Classic fields use `-` for a missing value; here a missing value is `None`, so
//! the same line can be written in any layout. A present but empty value is kept
//! (pywb writes an empty mime field verbatim) so output stays byte-identical.

/// Legend of the 11-field layout (pywb `cdx-indexer`, webarchive-commons, CDX-Writer).
pub const LEGEND_CDX11: &str = " CDX N b a m s k r M S V g";
/// Legend of the 9-field layout (pywb `cdx-indexer -9`, Wayback 1.x).
pub const LEGEND_CDX9: &str = " CDX N b a m s k r V g";
/// Legend of OpenWayback's 10-field layout.
pub const LEGEND_CDX10: &str = " CDX N b a m s k r M V g";

/// The layouts this crate reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CdxFormat {
    /// `N b a m s k r V g`.
    Cdx9,
    /// `N b a m s k r M V g` (OpenWayback; read only).
    Cdx10,
    /// `N b a m s k r M S V g`.
    Cdx11,
    /// `urlkey timestamp {json}`.
    Cdxj,
}

impl CdxFormat {
    /// The legend line written at the top of a classic file (none for CDXJ).
    pub fn legend(self) -> Option<&'static str> {
        match self {
            CdxFormat::Cdx9 => Some(LEGEND_CDX9),
            CdxFormat::Cdx10 => Some(LEGEND_CDX10),
            CdxFormat::Cdx11 => Some(LEGEND_CDX11),
            CdxFormat::Cdxj => None,
        }
    }
}

/// Why a line could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct LineError {
    /// What is wrong, for a message that also names the file and line.
    pub reason: String,
}

fn err(reason: impl Into<String>) -> LineError {
    LineError {
        reason: reason.into(),
    }
}

/// One capture as a CDX line. Field letters are those of the CDX legend.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CdxLine {
    /// `N`: the canonical URL key (SURT or not).
    pub urlkey: String,
    /// `b`: the 14-digit capture timestamp (kept as written).
    pub timestamp: String,
    /// `a`: the original URL (the host in Wayback 1.2.1 9-field files).
    pub original: Option<String>,
    /// `m`: the MIME type, or `warc/revisit`.
    pub mime: Option<String>,
    /// `s`: the HTTP status code.
    pub status: Option<String>,
    /// `k`: the payload digest (base32 SHA-1, usually without `sha1:`).
    pub digest: Option<String>,
    /// `r`: the redirect target.
    pub redirect: Option<String>,
    /// `M`: robot flags.
    pub robot_flags: Option<String>,
    /// `S`: the stored (compressed) record length.
    pub length: Option<String>,
    /// `V`: the stored record offset.
    pub offset: Option<String>,
    /// `g`: the archive file name.
    pub filename: Option<String>,
    /// Other CDXJ keys, in the order read (values as JSON text).
    pub extra: Vec<(String, String)>,
}

fn opt(v: &str) -> Option<String> {
    if v == "-" {
        None
    } else {
        Some(v.to_string())
    }
}

impl CdxLine {
    /// True for a legend line (` CDX ...`), which sorts first and is not a capture.
    pub fn is_legend(line: &str) -> bool {
        line.starts_with(Self::LEGEND_PREFIX)
    }

    /// What every legend line starts with.
    pub const LEGEND_PREFIX: &'static str = " CDX ";

    /// Parses a line in any layout this crate knows, telling CDXJ from classic by a
    /// `{` starting the third field and 9, 10 or 11 classic fields apart by count.
    pub fn parse(line: &str) -> Result<(CdxFormat, CdxLine), LineError> {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if Self::is_legend(line) {
            return Err(err("legend line, not a capture"));
        }
        let mut head = line.splitn(3, ' ');
        let (Some(key), Some(ts), Some(rest)) = (head.next(), head.next(), head.next()) else {
            return Err(err("fewer than 3 space-separated fields"));
        };
        if rest.starts_with('{') {
            return Self::parse_cdxj_parts(key, ts, rest).map(|l| (CdxFormat::Cdxj, l));
        }
        let fields: Vec<&str> = line.split(' ').collect();
        let format = match fields.len() {
            9 => CdxFormat::Cdx9,
            10 => CdxFormat::Cdx10,
            11 => CdxFormat::Cdx11,
            n => return Err(err(format!("{n} fields; expected 9, 10, 11 or CDXJ"))),
        };
        Self::from_fields(format, &fields).map(|l| (format, l))
    }

    /// Parses a classic line of a known layout.
    pub fn parse_classic(format: CdxFormat, line: &str) -> Result<CdxLine, LineError> {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let fields: Vec<&str> = line.split(' ').collect();
        Self::from_fields(format, &fields)
    }

    fn from_fields(format: CdxFormat, f: &[&str]) -> Result<CdxLine, LineError> {
        let want = match format {
            CdxFormat::Cdx9 => 9,
            CdxFormat::Cdx10 => 10,
            CdxFormat::Cdx11 => 11,
            CdxFormat::Cdxj => return Err(err("CDXJ is not a classic layout")),
        };
        if f.len() != want {
            return Err(err(format!("{} fields; expected {want}", f.len())));
        }
        let mut l = CdxLine {
            urlkey: f[0].to_string(),
            timestamp: f[1].to_string(),
            original: opt(f[2]),
            mime: opt(f[3]),
            status: opt(f[4]),
            digest: opt(f[5]),
            redirect: opt(f[6]),
            ..CdxLine::default()
        };
        match format {
            CdxFormat::Cdx9 => {
                l.offset = opt(f[7]);
                l.filename = opt(f[8]);
            }
            CdxFormat::Cdx10 => {
                l.robot_flags = opt(f[7]);
                l.offset = opt(f[8]);
                l.filename = opt(f[9]);
            }
            _ => {
                l.robot_flags = opt(f[7]);
                l.length = opt(f[8]);
                l.offset = opt(f[9]);
                l.filename = opt(f[10]);
            }
        }
        Ok(l)
    }

    fn parse_cdxj_parts(key: &str, ts: &str, json: &str) -> Result<CdxLine, LineError> {
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| err(format!("bad CDXJ JSON: {e}")))?;
        let serde_json::Value::Object(map) = value else {
            return Err(err("CDXJ JSON is not an object"));
        };
        let mut l = CdxLine {
            urlkey: key.to_string(),
            timestamp: ts.to_string(),
            ..CdxLine::default()
        };
        for (k, v) in map {
            // Some writers store numbers unquoted; every field is text here.
            let text = match &v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let slot = match k.as_str() {
                "url" => &mut l.original,
                "mime" => &mut l.mime,
                "status" => &mut l.status,
                "digest" => &mut l.digest,
                "redirect" => &mut l.redirect,
                "robotflags" => &mut l.robot_flags,
                "length" => &mut l.length,
                "offset" => &mut l.offset,
                "filename" => &mut l.filename,
                _ => {
                    l.extra.push((k, v.to_string()));
                    continue;
                }
            };
            *slot = Some(text);
        }
        Ok(l)
    }

    /// Appends the line (with `\n`) in `format` to `out`.
    pub fn write(&self, format: CdxFormat, out: &mut Vec<u8>) {
        match format {
            CdxFormat::Cdxj => self.write_cdxj(out),
            _ => self.write_classic(format, out),
        }
    }

    fn write_classic(&self, format: CdxFormat, out: &mut Vec<u8>) {
        fn o(v: &Option<String>) -> &str {
            v.as_deref().unwrap_or("-")
        }
        let mut put = |v: &str, last: bool| {
            out.extend_from_slice(v.as_bytes());
            out.push(if last { b'\n' } else { b' ' });
        };
        put(&self.urlkey, false);
        put(&self.timestamp, false);
        put(o(&self.original), false);
        put(o(&self.mime), false);
        put(o(&self.status), false);
        put(o(&self.digest), false);
        put(o(&self.redirect), false);
        match format {
            CdxFormat::Cdx9 => {}
            CdxFormat::Cdx10 => put(o(&self.robot_flags), false),
            _ => {
                put(o(&self.robot_flags), false);
                put(o(&self.length), false);
            }
        }
        put(o(&self.offset), false);
        put(o(&self.filename), true);
    }

    /// Writes CDXJ as `cdxj-indexer` does: `url, mime, status, digest, length,
    /// offset, filename` in that order, absent values left out, JSON text exactly
    /// as Python's `json.dumps` writes it.
    fn write_cdxj(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.urlkey.as_bytes());
        out.push(b' ');
        out.extend_from_slice(self.timestamp.as_bytes());
        out.extend_from_slice(b" {");
        let mut first = true;
        let fields = [
            ("url", &self.original),
            ("mime", &self.mime),
            ("status", &self.status),
            ("digest", &self.digest),
            ("redirect", &self.redirect),
            ("robotflags", &self.robot_flags),
            ("length", &self.length),
            ("offset", &self.offset),
        ];
        for (name, value) in fields {
            if let Some(v) = value {
                if !first {
                    out.extend_from_slice(b", ");
                }
                first = false;
                write_json_str(out, name);
                out.extend_from_slice(b": ");
                write_json_str(out, v);
            }
        }
        for (name, raw_json) in &self.extra {
            if !first {
                out.extend_from_slice(b", ");
            }
            first = false;
            write_json_str(out, name);
            out.extend_from_slice(b": ");
            out.extend_from_slice(raw_json.as_bytes());
        }
        if let Some(v) = &self.filename {
            if !first {
                out.extend_from_slice(b", ");
            }
            write_json_str(out, "filename");
            out.extend_from_slice(b": ");
            write_json_str(out, v);
        }
        out.extend_from_slice(b"}\n");
    }
}

/// Writes `s` as a JSON string the way Python's `json.dumps` does by default
/// (`ensure_ascii`): everything outside printable ASCII becomes `\uXXXX` (lower-case
/// hex, surrogate pairs above the BMP), so CDXJ stays byte-identical to pywb's.
pub fn write_json_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            ' '..='~' => out.push(c as u8),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.extend_from_slice(format!("\\u{u:04x}").as_bytes());
                }
            }
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    const PYWB_LINE: &str = "com,example)/ 20140216050221 http://example.com/ text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1151 0 example.warc.gz";

    #[test]
    fn cdx11_round_trip() {
        let (f, l) = CdxLine::parse(PYWB_LINE).unwrap();
        assert_eq!(f, CdxFormat::Cdx11);
        assert_eq!(l.length.as_deref(), Some("1151"));
        assert_eq!(l.redirect, None);
        let mut out = Vec::new();
        l.write(CdxFormat::Cdx11, &mut out);
        assert_eq!(out, format!("{PYWB_LINE}\n").as_bytes());
    }

    #[test]
    fn cdx9_from_cdx11() {
        let (_, l) = CdxLine::parse(PYWB_LINE).unwrap();
        let mut out = Vec::new();
        l.write(CdxFormat::Cdx9, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "com,example)/ 20140216050221 http://example.com/ text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - 0 example.warc.gz\n"
        );
    }

    #[test]
    fn wayback_revisit_9_fields() {
        let (f, l) = CdxLine::parse(
            "bl.uk/ 20130729090107 www.bl.uk - - USUDYFY6UJJK63UC7CCM7G37JIIFIAW2 - - -",
        )
        .unwrap();
        assert_eq!(f, CdxFormat::Cdx9);
        assert_eq!(l.filename, None);
        assert_eq!(l.mime, None);
    }

    #[test]
    fn cdxj_round_trip_python_escapes() {
        let line = r#"org,example)/index.html 20071005120000 {"url": "http://www.example.org/index.html?q=\u00e9\"", "mime": "warc/revisit", "digest": "sha1:IKSDHW32JO7VSWHJSGR3QZBNXCEXHFTP", "length": "643", "offset": "0", "filename": "crawl5-20071005.warc"}"#;
        let (f, l) = CdxLine::parse(line).unwrap();
        assert_eq!(f, CdxFormat::Cdxj);
        assert_eq!(
            l.original.as_deref(),
            Some("http://www.example.org/index.html?q=é\"")
        );
        let mut out = Vec::new();
        l.write(CdxFormat::Cdxj, &mut out);
        assert_eq!(out, format!("{line}\n").as_bytes());
    }

    #[test]
    fn json_escapes_match_python() {
        let mut out = Vec::new();
        write_json_str(&mut out, "a\u{7f}\u{1}😀\t/");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#""a\u007f\u0001\ud83d\ude00\t/""#
        );
    }

    #[test]
    fn empty_value_is_kept_dash_is_absent() {
        let l = CdxLine {
            urlkey: "k".into(),
            timestamp: "20000101000000".into(),
            mime: Some(String::new()),
            ..CdxLine::default()
        };
        let mut out = Vec::new();
        l.write(CdxFormat::Cdx9, &mut out);
        assert_eq!(out, b"k 20000101000000 -  - - - - -\n");
    }

    #[test]
    fn bad_lines() {
        assert!(CdxLine::parse("only two").is_err());
        assert!(CdxLine::parse("a b c d").is_err());
        assert!(CdxLine::parse("a b {not json").is_err());
        assert!(CdxLine::parse(LEGEND_CDX11).is_err());
    }
}
