//! `filter=` as pywb 2.10's `CDXFilter` reads it (pywb/warcserver/index/cdxops.py):
//! `[!][=|~][field:]text` — `!` inverts, `=` is equality, `~` a regular expression
//! matched at the start of the value (Python's `re.match`), and neither a substring
//! test. Without `field:` the test applies to the whole line.

use super::record::Record;
use super::QueryError;

/// The most filters one query may carry.
pub const MAX_FILTERS: usize = 64;
/// The longest filter pattern, in bytes.
pub const MAX_PATTERN: usize = 4096;
/// The compiled size allowed for one regular expression (the client writes it).
const REGEX_SIZE: usize = 1 << 20;

#[derive(Debug)]
enum Test {
    Exact(String),
    Contains(String),
    Regex(regex::Regex),
}

/// One parsed `filter=`.
#[derive(Debug)]
pub(crate) struct Filter {
    invert: bool,
    /// Empty for the whole line.
    field: String,
    test: Test,
}

impl Filter {
    /// Parses one `filter=` value; a regular expression that does not compile, or one
    /// past the size limits, is an error.
    pub(crate) fn parse(s: &str) -> Result<Filter, QueryError> {
        Filter::parse_within(s, MAX_PATTERN)
    }

    /// [`Filter::parse`] without the length limit, for the filters pywb's fuzzy rules
    /// make from the query's own key.
    pub(crate) fn parse_unbounded(s: &str) -> Result<Filter, QueryError> {
        Filter::parse_within(s, usize::MAX)
    }

    fn parse_within(s: &str, max: usize) -> Result<Filter, QueryError> {
        if s.len() > max {
            return Err(QueryError::bad(format!(
                "filter= is limited to {MAX_PATTERN} bytes"
            )));
        }
        let (invert, s) = match s.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        enum Kind {
            Exact,
            Regex,
            Contains,
        }
        let (kind, s) = if let Some(rest) = s.strip_prefix('=') {
            (Kind::Exact, rest)
        } else if let Some(rest) = s.strip_prefix('~') {
            (Kind::Regex, rest)
        } else {
            (Kind::Contains, s)
        };
        let (field, text) = match s.split_once(':') {
            None => (String::new(), s),
            Some((f, t)) => (alt_field(f).to_string(), t),
        };
        let test = match kind {
            Kind::Exact => Test::Exact(text.to_string()),
            Kind::Contains => Test::Contains(text.to_string()),
            Kind::Regex => {
                // `re.match` anchors at the start only; the group keeps an alternation
                // anchored as a whole.
                let re = regex::RegexBuilder::new(&format!("\\A(?:{text})"))
                    .size_limit(REGEX_SIZE)
                    .dfa_size_limit(REGEX_SIZE)
                    .nest_limit(100)
                    .build()
                    .map_err(|e| {
                        QueryError::bad(format!(
                            "Invalid regex in filter={}: {}",
                            crate::message::echo(text),
                            first_line(&e.to_string())
                        ))
                    })?;
                Test::Regex(re)
            }
        };
        Ok(Filter {
            invert,
            field,
            test,
        })
    }

    /// Whether the capture passes.
    pub(crate) fn accepts(&self, r: &Record) -> bool {
        let line;
        let value = if self.field.is_empty() {
            line = r.line();
            line.as_str()
        } else {
            r.get(&self.field).unwrap_or("")
        };
        let matched = match &self.test {
            Test::Exact(t) => value == t,
            Test::Contains(t) => value.contains(t.as_str()),
            Test::Regex(re) => re.is_match(value),
        };
        matched != self.invert
    }
}

fn first_line(s: &str) -> &str {
    s.lines().last().unwrap_or(s).trim()
}

/// `CDXObject.CDX_ALT_FIELDS`: short names for filters (`s` is `length`, as the
/// dictionary's second `s` entry overrides its first).
fn alt_field(f: &str) -> &str {
    match f {
        "u" | "original" => "url",
        "statuscode" => "status",
        "s" | "l" => "length",
        "mimetype" | "m" => "mime",
        "o" => "offset",
        "d" => "digest",
        "t" => "timestamp",
        "k" => "urlkey",
        "f" => "filename",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec() -> Record {
        Record::parse(b"org,iana)/ 20140126200624 http://www.iana.org/ text/html 200 OSSA - - 2258 334 iana.warc.gz").unwrap()
    }

    #[test]
    fn every_form() {
        let r = rec();
        let ok = |f: &str| Filter::parse(f).unwrap().accepts(&r);
        assert!(ok("mime:html"));
        assert!(!ok("mime:^text"));
        assert!(ok("~mime:text"));
        assert!(!ok("~mime:html"));
        assert!(ok("=status:200"));
        assert!(!ok("=status:20"));
        assert!(ok("!=status:20"));
        assert!(ok("!~status:3"));
        assert!(ok("iana.warc"));
        assert!(ok("~org,iana"));
        assert!(ok("=s:2258"));
        assert!(ok("=m:text/html"));
        assert!(ok("=nosuchfield:"));
        assert!(ok("~mime:a|text"));
        assert!(!ok("~mime:x|html"));
    }

    #[test]
    fn bad_and_huge_patterns_are_errors() {
        assert!(Filter::parse("~url:(").is_err());
        assert!(Filter::parse("~url:(?=a)").is_err());
        assert!(Filter::parse(&format!("~url:{}", "a".repeat(MAX_PATTERN))).is_err());
        assert!(Filter::parse("~url:(((a{100}){100}){100})").is_err());
        // Linear time whatever the pattern.
        let f = Filter::parse("~url:(a+)+$").unwrap();
        let long = format!("k 1 {}b - - - - - - -", "a".repeat(10_000));
        assert!(!f.accepts(&Record::parse(long.as_bytes()).unwrap()));
    }
}
