//! The query string as pywb reads it: Python's `parse_qsl` (blank values dropped, `+` is
//! a space, bad UTF-8 in escapes replaced), `int()`, `to_bool`, and the key range of
//! `calc_search_range` (pywb/utils/canonicalize.py).

use super::QueryError;
use crate::surt::surt_key;

/// The parameters, in order; `filter` may repeat, any other name keeps its last value
/// (pywb's `query_to_dict(multi=['filter'])`).
#[derive(Debug, Default)]
pub(crate) struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// Splits a raw query string as `urllib.parse.parse_qsl` does with its defaults.
    pub(crate) fn parse(query: &[u8]) -> Params {
        // pywb's front end forwards the query with `requests`, whose `requote_uri` gives
        // up on a `%` followed by two letters or digits that are not hex and quotes the
        // whole URL, `%` included: every escape of such a query then arrives literal.
        let literal = bad_escape(query);
        let mut pairs = Vec::new();
        for part in query.split(|&b| b == b'&') {
            let Some(eq) = part.iter().position(|&b| b == b'=') else {
                // A name without `=` is dropped (keep_blank_values=False).
                continue;
            };
            let (name, value) = (&part[..eq], &part[eq + 1..]);
            if value.is_empty() {
                continue;
            }
            pairs.push((unquote_plus(name, literal), unquote_plus(value, literal)));
        }
        Params { pairs }
    }

    /// The last value of `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name`, in order.
    pub(crate) fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.pairs
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `urllib.parse.unquote_plus`: `+` is a space, `%XX` a byte; the bytes are read as
/// UTF-8 with invalid sequences replaced by U+FFFD; a `%` not followed by two hex
/// digits stays as it is.
fn unquote_plus(s: &[u8], literal: bool) -> String {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'+' => out.push(b' '),
            b'%' if !literal
                && i + 2 < s.len()
                && hex(s[i + 1]).is_some()
                && hex(s[i + 2]).is_some() =>
            {
                out.push(hex(s[i + 1]).unwrap_or(0) * 16 + hex(s[i + 2]).unwrap_or(0));
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `requests.utils.unquote_unreserved` fails: a `%` followed by two ASCII letters or
/// digits that are not both hex.
fn bad_escape(query: &[u8]) -> bool {
    query.iter().enumerate().any(|(i, &b)| {
        b == b'%'
            && query.get(i + 1..i + 3).is_some_and(|h| {
                h.iter().all(u8::is_ascii_alphanumeric) && !h.iter().all(u8::is_ascii_hexdigit)
            })
    })
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Python's `int(s)` for base 10: surrounding whitespace, a sign, ASCII digits with
/// single underscores between them. A value past `i64` saturates, since Python's integers
/// have no bound and a huge limit means "no limit".
pub(crate) fn python_int(s: &str) -> Option<i64> {
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') {
        return None;
    }
    let mut value: i64 = 0;
    let mut last_underscore = false;
    for c in digits.chars() {
        if c == '_' {
            if last_underscore {
                return None;
            }
            last_underscore = true;
            continue;
        }
        last_underscore = false;
        let d = c.to_digit(10)? as i64;
        value = value.saturating_mul(10).saturating_add(d);
    }
    Some(if negative { -value } else { value })
}

/// pywb's `to_bool`: absent or empty is false, else anything but `0`, `false`, `f`,
/// `off` (any case) is true.
pub(crate) fn to_bool(v: Option<&str>) -> bool {
    match v {
        None | Some("") => false,
        Some(v) => !matches!(v.to_lowercase().as_str(), "0" | "false" | "f" | "off"),
    }
}

/// How a URL selects URL keys (`matchType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MatchType {
    Exact,
    Prefix,
    Host,
    Domain,
}

impl MatchType {
    pub(crate) fn parse(s: &str) -> Result<MatchType, QueryError> {
        match s {
            "exact" => Ok(MatchType::Exact),
            "prefix" => Ok(MatchType::Prefix),
            "host" => Ok(MatchType::Host),
            "domain" => Ok(MatchType::Domain),
            _ => Err(QueryError::bad(format!("Invalid match_type: {s}"))),
        }
    }
}

/// The lines `[start, end)` a URL selects, compared as whole lines (pywb's `iter_range`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Range {
    pub(crate) start: Vec<u8>,
    pub(crate) end: Vec<u8>,
}

/// `calc_search_range(url, match_type)` in SURT order.
pub(crate) fn search_range(url: &str, match_type: MatchType) -> Result<Range, QueryError> {
    let mut start = surt_key(url).map_err(|_| QueryError::bad(format!("Invalid Url: {url}")))?;
    let host_of = |key: &str| key.split(")/").next().unwrap_or("").to_string();
    let end = match match_type {
        MatchType::Exact => format!("{start}!"),
        MatchType::Prefix => {
            if url.ends_with('/') && !start.ends_with('/') {
                start.push('/');
            }
            if url.ends_with('?') && !start.ends_with('?') {
                start.push('?');
            }
            inc_last_char(&start)
        }
        MatchType::Host => {
            let host = host_of(&start);
            start = format!("{host})/");
            format!("{host}*")
        }
        MatchType::Domain => {
            let host = host_of(&start);
            start = if host.contains(',') {
                format!("{host})/")
            } else {
                format!("{host},")
            };
            format!("{host}-")
        }
    };
    Ok(Range {
        start: start.into_bytes(),
        end: end.into_bytes(),
    })
}

/// The key with its last character's code point plus one (`chr(ord(x[-1]) + 1)`).
fn inc_last_char(key: &str) -> String {
    let mut chars: Vec<char> = key.chars().collect();
    if let Some(last) = chars.pop() {
        let next = char::from_u32(last as u32 + 1)
            // Past a surrogate or the last code point: the smallest larger valid one.
            .or_else(|| char::from_u32(0xE000))
            .unwrap_or(char::MAX);
        chars.push(next);
    }
    chars.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_qsl_rules() {
        let p = Params::parse(b"url=a%20b+c&x&y=&filter=1&filter=%7E2&url=last&bad=%4");
        assert_eq!(p.get("url"), Some("last"));
        assert_eq!(p.get("x"), None);
        assert_eq!(p.get("y"), None);
        assert_eq!(p.all("filter").collect::<Vec<_>>(), ["1", "~2"]);
        assert_eq!(p.get("bad"), Some("%4"));
        assert_eq!(Params::parse(b"u=%ff%41").get("u"), Some("\u{fffd}A"));
        // An escape `requests` cannot read: every escape stays literal.
        let p = Params::parse(b"url=http%3A%2F%2Fa.com&filter=%zz&x=a+b");
        assert_eq!(p.get("url"), Some("http%3A%2F%2Fa.com"));
        assert_eq!(p.get("x"), Some("a b"));
    }

    #[test]
    fn ints_and_bools() {
        assert_eq!(python_int(" 12 "), Some(12));
        assert_eq!(python_int("-1_000"), Some(-1000));
        assert_eq!(python_int("+7"), Some(7));
        assert_eq!(python_int("1__0"), None);
        assert_eq!(python_int("abc"), None);
        assert_eq!(python_int("99999999999999999999999"), Some(i64::MAX));
        assert!(to_bool(Some("yes")) && !to_bool(Some("Off")) && !to_bool(None));
    }

    #[test]
    fn ranges_as_pywb_documents_them() {
        let r = |u, m| {
            let r = search_range(u, m).unwrap();
            (
                String::from_utf8(r.start).unwrap(),
                String::from_utf8(r.end).unwrap(),
            )
        };
        let s = |a: &str, b: &str| (a.to_string(), b.to_string());
        let url = "http://example.com/path/file.html";
        assert_eq!(
            r(url, MatchType::Exact),
            s(
                "com,example)/path/file.html",
                "com,example)/path/file.html!"
            )
        );
        assert_eq!(
            r(url, MatchType::Prefix),
            s("com,example)/path/file.html", "com,example)/path/file.htmm")
        );
        assert_eq!(
            r("http://example.com/path/", MatchType::Prefix),
            s("com,example)/path/", "com,example)/path0")
        );
        assert_eq!(
            r("http://example.com/path?", MatchType::Prefix),
            s("com,example)/path?", "com,example)/path@")
        );
        assert_eq!(
            r("http://example.com/path/?", MatchType::Prefix),
            s("com,example)/path?", "com,example)/path@")
        );
        assert_eq!(r(url, MatchType::Host), s("com,example)/", "com,example*"));
        assert_eq!(
            r(url, MatchType::Domain),
            s("com,example)/", "com,example-")
        );
        assert_eq!(r("com", MatchType::Domain), s("com,", "com-"));
        assert!(MatchType::parse("blah").is_err());
    }
}
