//! One capture as pywb's `CDXObject` holds it (named fields in line order) and its three
//! outputs: text (`to_text`), JSON (`to_json`, one object a line) and CDXJ (`to_cdxj`).

use super::QueryError;

const URLKEY: &str = "urlkey";
const TIMESTAMP: &str = "timestamp";
const ORIG: [&str; 3] = ["orig.length", "orig.offset", "orig.filename"];

/// The classic layouts by field count (`CDXObject.CDX_FORMATS`); the revisit-resolved
/// ones add the three `orig.*` fields.
fn layout(count: usize) -> Option<(&'static [&'static str], bool)> {
    const PUBLIC: &[&str] = &[
        "urlkey",
        "timestamp",
        "url",
        "mime",
        "status",
        "digest",
        "length",
    ];
    const CDX11: &[&str] = &[
        "urlkey",
        "timestamp",
        "url",
        "mime",
        "status",
        "digest",
        "redirect",
        "robotflags",
        "length",
        "offset",
        "filename",
    ];
    const CDX10: &[&str] = &[
        "urlkey",
        "timestamp",
        "url",
        "mime",
        "status",
        "digest",
        "redirect",
        "robotflags",
        "offset",
        "filename",
    ];
    const CDX9: &[&str] = &[
        "urlkey",
        "timestamp",
        "url",
        "mime",
        "status",
        "digest",
        "redirect",
        "offset",
        "filename",
    ];
    match count {
        7 => Some((PUBLIC, false)),
        11 => Some((CDX11, false)),
        10 => Some((CDX10, false)),
        9 => Some((CDX9, false)),
        14 => Some((CDX11, true)),
        13 => Some((CDX10, true)),
        12 => Some((CDX9, true)),
        _ => None,
    }
}

/// A parsed line: its fields by name, in order, plus `is_fuzzy` when the capture came
/// from pywb's fuzzy fallback.
#[derive(Debug)]
pub(crate) struct Record {
    text: String,
    /// Byte ranges of each field in `text`.
    spans: Vec<(usize, usize)>,
    names: &'static [&'static str],
    with_orig: bool,
    pub(crate) fuzzy: bool,
}

impl Record {
    /// Parses a line as `CDXObject(line)` does (trailing whitespace dropped, fields
    /// split on single spaces). CDXJ lines are refused: a collection's `all.cdx` is
    /// classic CDX.
    pub(crate) fn parse(line: &[u8]) -> Result<Record, QueryError> {
        let text = String::from_utf8_lossy(line)
            .trim_end_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c'])
            .to_string();
        let mut spans = Vec::with_capacity(11);
        let mut start = 0;
        for (i, b) in text.bytes().enumerate() {
            if b == b' ' {
                spans.push((start, i));
                start = i + 1;
                if spans.len() == 2 && text[start..].starts_with('{') {
                    return Err(QueryError::bad(
                        "CDXJ index lines are not supported by this server",
                    ));
                }
            }
        }
        spans.push((start, text.len()));
        let Some((names, with_orig)) = layout(spans.len()) else {
            return Err(QueryError::bad(format!(
                "unknown {}-field cdx format: {}",
                spans.len(),
                crate::message::echo(&text)
            )));
        };
        Ok(Record {
            text,
            spans,
            names,
            with_orig,
            fuzzy: false,
        })
    }

    fn value_at(&self, i: usize) -> &str {
        let (a, b) = self.spans[i];
        &self.text[a..b]
    }

    /// The fields in order, `is_fuzzy` last when set.
    fn fields(&self) -> impl Iterator<Item = (&str, &str)> + Clone {
        let names = self
            .names
            .iter()
            .copied()
            .chain(if self.with_orig { &ORIG[..] } else { &[] }.iter().copied());
        names
            .enumerate()
            .map(|(i, n)| (n, self.value_at(i)))
            .chain(self.fuzzy.then_some(("is_fuzzy", "1")))
    }

    /// The value of `name` (`cdx.get(name)`).
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.fields().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// The URL key field.
    pub(crate) fn urlkey(&self) -> &str {
        self.value_at(0)
    }

    /// The timestamp field.
    pub(crate) fn timestamp(&self) -> &str {
        self.value_at(1)
    }

    /// `str(cdx)`: the values joined by spaces.
    pub(crate) fn line(&self) -> String {
        let mut s = self.text.clone();
        if self.fuzzy {
            s.push_str(" 1");
        }
        s
    }

    /// `to_text(fields)`, newline included.
    pub(crate) fn write_text(&self, fl: Option<&[String]>, out: &mut Vec<u8>) {
        match fl {
            None => out.extend_from_slice(self.line().as_bytes()),
            Some(fl) => {
                for (i, f) in fl.iter().enumerate() {
                    if i > 0 {
                        out.push(b' ');
                    }
                    out.extend_from_slice(self.get(f).unwrap_or("-").as_bytes());
                }
            }
        }
        out.push(b'\n');
    }

    /// `to_json(fields)`, newline included.
    pub(crate) fn write_json(&self, fl: Option<&[String]>, out: &mut Vec<u8>) {
        write_object(self.fields(), fl, out);
    }

    /// `to_cdxj(fields)`: urlkey, timestamp, then the other fields as JSON.
    pub(crate) fn write_cdxj(&self, fl: Option<&[String]>, out: &mut Vec<u8>) {
        out.extend_from_slice(self.get(URLKEY).unwrap_or("").as_bytes());
        out.push(b' ');
        out.extend_from_slice(self.get(TIMESTAMP).unwrap_or("").as_bytes());
        out.push(b' ');
        write_object(self.fields().skip(2), fl, out);
    }
}

/// `json.dumps(OrderedDict(...))` of the fields, or of those named in `fl` (in `fl`'s
/// order, a name repeated kept at its first place, absent names left out).
fn write_object<'a>(
    fields: impl Iterator<Item = (&'a str, &'a str)> + Clone,
    fl: Option<&[String]>,
    out: &mut Vec<u8>,
) {
    out.push(b'{');
    let mut first = true;
    let mut put = |n: &str, v: &str, out: &mut Vec<u8>| {
        if !first {
            out.extend_from_slice(b", ");
        }
        first = false;
        crate::line::write_json_str(out, n);
        out.extend_from_slice(b": ");
        crate::line::write_json_str(out, v);
    };
    match fl {
        None => {
            for (n, v) in fields {
                put(n, v, out);
            }
        }
        Some(fl) => {
            for (i, f) in fl.iter().enumerate() {
                if fl[..i].contains(f) {
                    continue;
                }
                if let Some((n, v)) = fields.clone().find(|(n, _)| n == f) {
                    put(n, v, out);
                }
            }
        }
    }
    out.extend_from_slice(b"}\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &[u8] = b"org,iana)/ 20140126200624 http://www.iana.org/ text/html 200 OSSA - - 2258 334 iana.warc.gz";

    fn fl(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn outputs_as_pywb_writes_them() {
        let r = Record::parse(LINE).unwrap();
        let mut out = Vec::new();
        r.write_json(Some(&fl(&["url", "status", "foo", "url"])), &mut out);
        r.write_text(Some(&fl(&["url", "status", "foo"])), &mut out);
        r.write_cdxj(Some(&fl(&["urlkey", "status"])), &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"url\": \"http://www.iana.org/\", \"status\": \"200\"}\n\
             http://www.iana.org/ 200 -\n\
             org,iana)/ 20140126200624 {\"status\": \"200\"}\n"
        );
        let mut out = Vec::new();
        r.write_text(None, &mut out);
        assert_eq!(out, [LINE, b"\n"].concat());
    }

    #[test]
    fn json_escapes_as_python() {
        let mut out = Vec::new();
        crate::line::write_json_str(&mut out, "a\"\\\u{7f}é😀\u{1}");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#""a\"\\\u007f\u00e9\ud83d\ude00\u0001""#
        );
    }

    #[test]
    fn unknown_layouts_are_errors() {
        assert!(Record::parse(b"a b c").is_err());
        assert!(Record::parse(b"a 2020 {\"url\": \"x\"}").is_err());
    }
}
