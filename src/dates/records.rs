//! The dates list (`URLKEY sha1:DIGEST DATE14 [FIELD...]`, as `warcdex dedup-cdx` and
//! `warcdex revisits` write it): parsing one line the way NutchWAX's DateAdder splits it
//! (docs/formats.md §4.5, §4.8), and what is wrong with a line that cannot be used.

use std::fmt;
use warcdex_cdx::message::echo;

/// Java's `\s`: the whitespace `String.split("\\s+")` splits on.
fn is_java_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The fields of `line` as Java's `line.split("\\s+")` gives them: a leading empty field
/// when the line starts with whitespace, trailing empty fields dropped, and `[""]` for
/// an empty line.
pub fn java_split(line: &[u8]) -> Vec<&[u8]> {
    if line.is_empty() {
        return vec![line];
    }
    let mut fields = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < line.len() {
        if is_java_space(line[i]) {
            fields.push(&line[start..i]);
            while i < line.len() && is_java_space(line[i]) {
                i += 1;
            }
            start = i;
        } else {
            i += 1;
        }
    }
    fields.push(&line[start..]);
    while fields.last().is_some_and(|f| f.is_empty()) {
        fields.pop();
    }
    fields
}

/// Whether `s` is a 14-digit date (`YYYYMMDDhhmmss`).
pub fn is_date14(s: &[u8]) -> bool {
    s.len() == 14 && s.iter().all(u8::is_ascii_digit)
}

/// One usable line: the join key and the date, and the collection of the capture when the
/// line names one. The fourth field is ignored, as DateAdder ignores it (`dedup-cdx`
/// writes the archive name there); a fifth is the capture's collection (`update` writes
/// it, so that a version belongs to every collection it was captured in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateRecord<'a> {
    /// Field 1: the URL key.
    pub urlkey: &'a [u8],
    /// Field 2: `sha1:DIGEST`.
    pub digest: &'a [u8],
    /// Field 3: the 14-digit date.
    pub date: &'a str,
    /// Field 5, if any: the capture's collection.
    pub collection: Option<&'a str>,
}

/// Why a line was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Malformed {
    /// Fewer than three fields (the count as Java's split gives it).
    NotEnoughFields(usize),
    /// The third field is not a 14-digit date.
    NotADate(String),
    /// A NUL byte: the external sort separates fields with it.
    Nul,
}

/// A line of a dates list that was reported and skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedLine {
    /// The list (`-` = stdin).
    pub input: String,
    /// 1-based line number.
    pub line: u64,
    /// The line (lossy UTF-8, without its end of line).
    pub text: String,
    /// What is wrong.
    pub reason: Malformed,
}

impl fmt::Display for MalformedLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ", self.input, self.line)?;
        // A line can be megabytes long (a binary file given by mistake): capped.
        let text = echo(&self.text);
        match &self.reason {
            // NutchWAX's own message, so that its users recognise it.
            Malformed::NotEnoughFields(n) => {
                write!(f, "Malformed line, not enough fields ({n}): {text}")
            }
            Malformed::NotADate(d) => {
                write!(
                    f,
                    "Malformed line, field 3 {:?} is not a 14-digit date: {text}",
                    echo(d)
                )?;
                let first = self.text.split_ascii_whitespace().next().unwrap_or("");
                if is_date14(first.as_bytes()) {
                    write!(
                        f,
                        " (the first field is a date: expected URLKEY sha1:DIGEST DATE14)"
                    )?;
                }
                Ok(())
            }
            Malformed::Nul => write!(f, "Malformed line, NUL byte: {text}"),
        }
    }
}

/// Parses one line (without its end of line).
pub fn parse_line(line: &[u8]) -> Result<DateRecord<'_>, Malformed> {
    if memchr::memchr(0, line).is_some() {
        return Err(Malformed::Nul);
    }
    let fields = java_split(line);
    if fields.len() < 3 {
        return Err(Malformed::NotEnoughFields(fields.len()));
    }
    if !is_date14(fields[2]) {
        return Err(Malformed::NotADate(
            String::from_utf8_lossy(fields[2]).into_owned(),
        ));
    }
    Ok(DateRecord {
        urlkey: fields[0],
        digest: fields[1],
        date: std::str::from_utf8(fields[2]).expect("ASCII digits"),
        collection: fields
            .get(4)
            .and_then(|c| std::str::from_utf8(c).ok())
            .filter(|c| !c.is_empty()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_like_java() {
        assert_eq!(java_split(b""), vec![b"" as &[u8]]);
        assert_eq!(java_split(b"onlytwo fields").len(), 2);
        assert_eq!(java_split(b" a b"), vec![b"" as &[u8], b"a", b"b"]);
        assert_eq!(java_split(b"a  b\t"), vec![b"a" as &[u8], b"b"]);
        assert!(java_split(b"   ").is_empty());
    }

    #[test]
    fn parse_lines() {
        let r = parse_line(b"org,example)/ sha1:AB 20071001120000 crawl.arc").unwrap();
        assert_eq!(r.urlkey, b"org,example)/");
        assert_eq!(r.digest, b"sha1:AB");
        assert_eq!(r.date, "20071001120000");
        assert_eq!(r.collection, None);
        let r = parse_line(b"org,example)/ sha1:AB 20071001120000 crawl.arc docs").unwrap();
        assert_eq!(r.collection, Some("docs"));
        assert_eq!(
            parse_line(b"onlytwo fields"),
            Err(Malformed::NotEnoughFields(2))
        );
        assert_eq!(parse_line(b""), Err(Malformed::NotEnoughFields(1)));
        assert_eq!(
            parse_line(b"a sha1:X crawl.arc"),
            Err(Malformed::NotADate("crawl.arc".into()))
        );
        let m = MalformedLine {
            input: "all.dup".into(),
            line: 3,
            text: "onlytwo fields".into(),
            reason: Malformed::NotEnoughFields(2),
        };
        assert_eq!(
            m.to_string(),
            "all.dup:3: Malformed line, not enough fields (2): onlytwo fields"
        );
    }
}
