//! The query language: words and phrases (handed to tantivy's `QueryParser`) plus the
//! NutchWAX filters `site:`, `type:`, `collection:` and `date:` (docs/formats.md §4.7),
//! and `lang:` (the language detected at import, src/extract/language.rs).
//!
//! The filters are taken out of the query text here rather than left to the parser,
//! because `date:` is not a field of the main index (it is evaluated on the dates index,
//! any capture date matching) and because NutchWAX's `site:` ignores a leading `www.`.

/// The longest query accepted, in bytes: longer ones are refused, not cut, so a user
/// never silently gets results for a different query.
pub const MAX_QUERY_BYTES: usize = 1024;

/// Most clauses (words, phrases and filters) in one query: each clause costs a posting
/// list walk on every parallel set.
pub const MAX_CLAUSES: usize = 32;

/// The fields words are searched in when no field is named.
pub const TEXT_FIELDS: [&str; 4] = ["title", "content", "anchor", "url"];

/// A query the user has to fix; the message says what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct QueryError(pub String);

fn bad(msg: impl Into<String>) -> QueryError {
    QueryError(msg.into())
}

/// An inclusive range of 14-digit dates (as numbers, so they compare as dates).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateRange {
    /// First date in the range.
    pub from: u64,
    /// Last date in the range.
    pub to: u64,
}

/// A filter on a field of the main index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterField {
    /// `site:` — the host without a leading `www.`.
    Site,
    /// `type:` — the MIME type.
    Type,
    /// `collection:`.
    Collection,
    /// `lang:` — the detected language (ISO 639-1, `en`).
    Lang,
}

impl FilterField {
    /// The main index field the filter matches.
    pub fn field_name(self) -> &'static str {
        match self {
            FilterField::Site => "site",
            FilterField::Type => "type",
            FilterField::Collection => "collection",
            FilterField::Lang => "lang",
        }
    }

    /// The value as indexed: sites and types are stored lower case, and `site:` drops a
    /// leading `www.` as the indexer does.
    pub fn normalise(self, value: &str) -> String {
        match self {
            FilterField::Site => {
                let v = value.to_ascii_lowercase();
                v.strip_prefix("www.").map(str::to_string).unwrap_or(v)
            }
            FilterField::Type | FilterField::Lang => value.to_ascii_lowercase(),
            FilterField::Collection => value.to_string(),
        }
    }
}

/// The words `type:` takes for the MIME types a reader means by them (`type:html` found
/// nothing: no type is `html` or under `html/`).
const TYPE_NAMES: [(&str, &str); 4] = [
    ("html", "text/html"),
    ("htm", "text/html"),
    ("xhtml", "application/xhtml+xml"),
    ("pdf", "application/pdf"),
];

/// The top-level MIME types (RFC 6838 and IANA's list): `type:image` is every type under
/// `image/` (src/search/rank.rs).
const TOP_LEVEL_TYPES: [&str; 11] = [
    "application",
    "audio",
    "example",
    "font",
    "haptics",
    "image",
    "message",
    "model",
    "multipart",
    "text",
    "video",
];

impl FilterField {
    /// The value as indexed, checked: `lang:` takes an ISO 639-1 code or a language's
    /// English name, `type:` a MIME type, a top-level type (`image`) or a word for a type
    /// (`html`). A value no document can have (`lang:klingon`, `type:movie`) is refused
    /// with the values there are, since it would silently match nothing.
    pub fn value(self, raw: &str) -> Result<String, QueryError> {
        match self {
            FilterField::Lang => match crate::extract::language::code_of(raw) {
                Some(code) => Ok(code.to_string()),
                None => {
                    let all: Vec<String> = crate::extract::language::languages()
                        .into_iter()
                        .map(|(code, name)| format!("{code} ({name})"))
                        .collect();
                    Err(bad(format!(
                        "lang:{raw}: no such language; lang: takes an ISO 639-1 code or its \
                         English name (lang:en, lang:english), one of {}",
                        all.join(", ")
                    )))
                }
            },
            FilterField::Type if !raw.contains('/') => {
                let lower = raw.to_ascii_lowercase();
                if let Some((_, mime)) = TYPE_NAMES.iter().find(|(name, _)| *name == lower) {
                    return Ok(mime.to_string());
                }
                if TOP_LEVEL_TYPES.contains(&lower.as_str()) {
                    return Ok(lower);
                }
                let names: Vec<String> = TYPE_NAMES
                    .iter()
                    .map(|(name, mime)| format!("{name} ({mime})"))
                    .collect();
                Err(bad(format!(
                    "type:{raw}: type: takes a MIME type (type:text/html), a top-level type \
                     (one of {}: all types under it) or one of {}",
                    TOP_LEVEL_TYPES.join(", "),
                    names.join(", ")
                )))
            }
            _ => Ok(self.normalise(raw)),
        }
    }
}

/// A parsed user query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedQuery {
    /// The words and phrases, in tantivy query syntax; empty when the query is only filters.
    pub text: String,
    /// Required filters; several values of one field are alternatives (`site:a site:b`
    /// matches either site).
    pub filters: Vec<(FilterField, String)>,
    /// Excluded values (`-site:x`).
    pub excluded: Vec<(FilterField, String)>,
    /// Date ranges; a document matches if any of its capture dates is in any of them.
    pub dates: Vec<DateRange>,
    /// `as-of:DATE`: the last moment of that date (14 digits, padded with 9s); only the
    /// A lone `*`: every version (with the filters, if any): an export or graph of the
    /// whole collection.
    pub everything: bool,
    /// version of each URL live then (its latest capture at or before it) is searched.
    pub as_of: Option<u64>,
    /// How many of the query's words a document must hold when a search that found
    /// nothing is relaxed (`None`: as the ranking's weights say). Set by the search, not
    /// read from the query.
    pub min_words: Option<usize>,
}

impl ParsedQuery {
    /// Whether the query has a `site:` filter (then hits are not limited per site).
    pub fn has_site_filter(&self) -> bool {
        self.filters.iter().any(|(f, _)| *f == FilterField::Site)
    }
}

/// Splits `q` into whitespace-separated tokens; a double-quoted part (a phrase) is kept
/// whole, so `title:"a b"` is one token.
fn tokens(q: &str) -> Result<Vec<String>, QueryError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in q.chars() {
        if c == '"' {
            quoted = !quoted;
            cur.push(c);
        } else if c.is_whitespace() && !quoted {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if quoted {
        return Err(bad(
            "a phrase is not closed: a double quote (\") is missing",
        ));
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    Ok(out)
}

/// Pads a date prefix of 4–14 digits to 14 digits with `fill`.
fn pad(prefix: &str, fill: char, whole: &str) -> Result<u64, QueryError> {
    if !(4..=14).contains(&prefix.len()) || !prefix.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(format!(
            "date:{whole}: a date is 4 to 14 digits (YYYY[MM[DD[hh[mm[ss]]]]]), or two joined by '-'"
        )));
    }
    check_calendar(prefix, whole)?;
    let mut s = prefix.to_string();
    while s.len() < 14 {
        s.push(fill);
    }
    s.parse()
        .map_err(|_| bad(format!("date:{whole}: not a date")))
}

/// Refuses a date prefix no capture date can have (`20241399`: month 13), saying which
/// part is wrong, instead of a range that silently matches nothing. A part cut short
/// (`20241`, months 10–12) is checked as far as it goes. Seconds go to 60, a leap second.
fn check_calendar(prefix: &str, whole: &str) -> Result<(), QueryError> {
    let b = prefix.as_bytes();
    let num = |i: usize, n: usize| -> u32 {
        b[i..i + n]
            .iter()
            .fold(0, |v, d| v * 10 + u32::from(d - b'0'))
    };
    let year = num(0, 4);
    let month = num(4.min(b.len()), 2.min(b.len().saturating_sub(4)));
    let days = match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    // (part, its first byte, smallest, largest)
    for (name, at, lo, hi) in [
        ("month", 4, 1, 12),
        ("day", 6, 1, days),
        ("hour", 8, 0, 23),
        ("minute", 10, 0, 59),
        ("second", 12, 0, 60),
    ] {
        let n = b.len().saturating_sub(at).min(2);
        let ok = match n {
            0 => true,
            // One digit of two: some value of the part must start with it.
            1 => num(at, 1) <= hi / 10 && (num(at, 1) * 10 + 9) >= lo,
            _ => (lo..=hi).contains(&num(at, 2)),
        };
        if !ok {
            let got = &prefix[at..at + n];
            let range = if name == "day" {
                format!("01-{days} in {year}-{month:02}")
            } else {
                format!("{lo:02}-{hi:02}")
            };
            return Err(bad(format!(
                "date:{whole}: {name} {got} is not a {name} ({range}); a date is \
                 YYYY[MM[DD[hh[mm[ss]]]]]"
            )));
        }
    }
    Ok(())
}

/// `date:` values: `YYYY[MM…]` is every date with that prefix; `A-B` runs from the first
/// date with prefix A to the last date with prefix B (so `2007-2008` covers both years;
/// NutchWAX padded B with zeros, which dropped all of 2008 but its first second).
pub fn parse_date(value: &str) -> Result<DateRange, QueryError> {
    let (from, to) = match value.split_once('-') {
        Some((a, b)) => (pad(a, '0', value)?, pad(b, '9', value)?),
        None => (pad(value, '0', value)?, pad(value, '9', value)?),
    };
    if from > to {
        return Err(bad(format!(
            "date:{value}: the range is empty (its start is after its end)"
        )));
    }
    Ok(DateRange { from, to })
}

/// Refuses `*` outside a phrase (`pyth*`, `title:pyth*`): the analyzer dropped it, so
/// `pyth*` searched the word `pyth` and silently found nothing. Inside a phrase it is
/// text, as before, and so is a lone `*` (tantivy's every document, which worked).
fn check_no_wildcard(tok: &str) -> Result<(), QueryError> {
    if tok == "*" {
        return Ok(());
    }
    let outside_phrases = tok.split('"').step_by(2).any(|part| part.contains('*'));
    if outside_phrases {
        return Err(bad(format!(
            "{tok}: wildcards (*) are not supported; search whole words"
        )));
    }
    Ok(())
}

/// A token of words as the query parser is to read it: a word, a `"phrase"`, or a word
/// with punctuation in it (`os.path.join()`, `getpolicy()`, `vacuum!`) as a phrase of its
/// words, since a reader who pastes a name means its words in that order, not the
/// parser's grouping, boost or fuzzy syntax (which made `os.path.join()` a syntax
/// error). A token without a letter or digit (`-`, `~`) is no word and is dropped. `-`
/// before it still excludes.
fn plain_text(tok: &str, negated: bool, body: &str) -> Option<String> {
    if !body.chars().any(char::is_alphanumeric) {
        return None;
    }
    let quoted = body.len() >= 2 && body.starts_with('"') && body.ends_with('"');
    if quoted || body.chars().all(|c| c.is_alphanumeric() || c == '*') {
        return Some(tok.to_string());
    }
    let words = body.replace('"', " ");
    let sign = if negated { "-" } else { "" };
    Some(format!("{sign}\"{}\"", words.trim()))
}

fn filter_field(name: &str) -> Option<Option<FilterField>> {
    match name {
        "site" => Some(Some(FilterField::Site)),
        "type" => Some(Some(FilterField::Type)),
        "collection" => Some(Some(FilterField::Collection)),
        "lang" => Some(Some(FilterField::Lang)),
        "date" => Some(None),
        _ => None,
    }
}

/// Parses a user query. Errors are for the user: an empty or too long query, an
/// unclosed phrase, a malformed date, an empty filter value, a language or type no
/// document can have.
pub fn parse(q: &str) -> Result<ParsedQuery, QueryError> {
    if q.len() > MAX_QUERY_BYTES {
        return Err(bad(format!(
            "the query is too long ({} bytes; at most {MAX_QUERY_BYTES})",
            q.len()
        )));
    }
    let toks = tokens(q)?;
    if toks.len() > MAX_CLAUSES {
        return Err(bad(format!(
            "the query has too many parts ({}; at most {MAX_CLAUSES})",
            toks.len()
        )));
    }
    let mut parsed = ParsedQuery::default();
    let mut text: Vec<String> = Vec::new();
    for tok in toks {
        let (negated, body) = match tok.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, tok.strip_prefix('+').unwrap_or(&tok)),
        };
        if tok == "*" {
            parsed.everything = true;
            continue;
        }
        let Some((name, value)) = body.split_once(':') else {
            check_no_wildcard(&tok)?;
            text.extend(plain_text(&tok, negated, body));
            continue;
        };
        if name.eq_ignore_ascii_case("as-of") {
            let value = value.trim_matches('"');
            if negated || parsed.as_of.is_some() || value.is_empty() {
                return Err(bad("as-of: is given once, with a date: as-of:YYYY[MM[DD]]"));
            }
            let at = pad(value, '9', value).map_err(|e| bad(e.0.replacen("date:", "as-of:", 1)))?;
            parsed.as_of = Some(at);
            continue;
        }
        let Some(kind) = filter_field(&name.to_ascii_lowercase()) else {
            if TEXT_FIELDS.contains(&name) {
                check_no_wildcard(&tok)?;
                text.push(tok);
            } else {
                // `http://example.org/` or `foo:bar` is not a field query: search it as
                // a phrase, which matches the URL's words in order.
                let words = tok.replace('"', " ");
                text.push(format!("\"{}\"", words.trim()));
            }
            continue;
        };
        let value = value.trim_matches('"');
        if value.is_empty() {
            return Err(bad(format!("{name}: needs a value")));
        }
        match (kind, negated) {
            (None, false) => parsed.dates.push(parse_date(value)?),
            (None, true) => return Err(bad("-date: (excluding dates) is not supported")),
            (Some(f), false) => parsed.filters.push((f, f.value(value)?)),
            (Some(f), true) => parsed.excluded.push((f, f.value(value)?)),
        }
    }
    parsed.text = text.join(" ");
    let only_words = parsed.filters.is_empty()
        && parsed.dates.is_empty()
        && parsed.as_of.is_none()
        && !parsed.everything;
    if parsed.text.is_empty() && only_words {
        return Err(bad(if parsed.excluded.is_empty() {
            "the query is empty"
        } else {
            "a query of only exclusions matches nothing: add words or a filter"
        }));
    }
    Ok(parsed)
}

/// The words of a query a search that found nothing may ask again with fewer of: its
/// plain words, when it is nothing but words (and filters, which stay required); 0 for a
/// query with a phrase, an operator, a field or an exclusion of a word, whose reader asked
/// for exactly that.
pub(crate) fn relaxable_words(q: &str) -> usize {
    let Ok(tokens) = tokens(q) else {
        return 0;
    };
    let mut words = 0;
    for t in &tokens {
        let plain = t
            .chars()
            .all(|c| c.is_alphanumeric() || "._-/'".contains(c));
        if t.contains(':') {
            // A filter (`site:`, `date:`…) or a field: filters stay, a field is asked for.
            let name = t
                .trim_start_matches('-')
                .split(':')
                .next()
                .unwrap_or_default();
            if filter_field(name).is_some() || name == "as-of" {
                continue;
            }
            return 0;
        }
        if !plain || t.starts_with('-') || matches!(t.as_str(), "OR" | "AND" | "NOT") {
            return 0;
        }
        words += 1;
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_of_is_the_end_of_its_date() {
        assert_eq!(
            parse("museum as-of:2020").unwrap().as_of,
            Some(20209999999999)
        );
        assert_eq!(parse("as-of:20200315").unwrap().as_of, Some(20200315999999));
        assert_eq!(
            parse("a AS-OF:\"202003\"").unwrap().as_of,
            Some(20200399999999)
        );
        for bad in [
            "a as-of:",
            "a as-of:20",
            "a -as-of:2020",
            "a as-of:2020 as-of:2021",
            "a as-of:20201301",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_pad_to_prefix_ranges() {
        assert_eq!(
            parse_date("2007").unwrap(),
            DateRange {
                from: 20070000000000,
                to: 20079999999999
            }
        );
        assert_eq!(
            parse_date("20071001-20071003").unwrap(),
            DateRange {
                from: 20071001000000,
                to: 20071003999999
            }
        );
        assert_eq!(
            parse_date("20071004120000").unwrap(),
            DateRange {
                from: 20071004120000,
                to: 20071004120000
            }
        );
        assert!(parse_date("200").is_err());
        assert!(parse_date("2007x").is_err());
        assert!(parse_date("2008-2007").is_err());
        assert!(parse_date("200710041200001").is_err());
    }

    #[test]
    fn filters_come_out_of_the_text() {
        let p =
            parse("example \"news page\" site:WWW.Example.org -type:image/png date:2007").unwrap();
        assert_eq!(p.text, "example \"news page\"");
        assert_eq!(p.filters, vec![(FilterField::Site, "example.org".into())]);
        assert_eq!(p.excluded, vec![(FilterField::Type, "image/png".into())]);
        assert_eq!(p.dates.len(), 1);
        assert!(p.has_site_filter());
    }

    #[test]
    fn urls_become_phrases() {
        let p = parse("http://example.org/about.html").unwrap();
        assert_eq!(p.text, "\"http://example.org/about.html\"");
        assert_eq!(parse("title:example").unwrap().text, "title:example");
    }

    #[test]
    fn words_with_punctuation_are_phrases_and_lone_signs_are_dropped() {
        let text = |q: &str| parse(q).unwrap().text;
        assert_eq!(text("os.path.join()"), "\"os.path.join()\"");
        assert_eq!(text("getpolicy() -x(y)"), "\"getpolicy()\" -\"x(y)\"");
        assert_eq!(text("a - b ~ c"), "a b c");
        assert_eq!(text("vacuum! author^2"), "\"vacuum!\" \"author^2\"");
        assert_eq!(text("café \"a phrase\" -word"), "café \"a phrase\" -word");
        assert!(parse("- ~").is_err());
    }

    #[test]
    fn user_errors() {
        assert!(parse("").is_err());
        assert!(parse("   ").is_err());
        assert!(parse("\"unclosed").is_err());
        assert!(parse("site:").is_err());
        assert!(parse("-site:x").is_err());
        assert!(parse("date:abcd").is_err());
        assert!(parse(&"a".repeat(MAX_QUERY_BYTES + 1)).is_err());
        assert!(parse(&"a ".repeat(MAX_CLAUSES + 1)).is_err());
    }

    #[test]
    fn only_queries_of_plain_words_are_relaxed() {
        assert_eq!(relaxable_words("alpha beta gamma"), 3);
        assert_eq!(
            relaxable_words("java.util.List iterator site:docs.example date:2007"),
            2
        );
        for q in ["\"a b\" c", "a OR b", "a -b", "title:a b", "(a b)", "+a b"] {
            assert_eq!(relaxable_words(q), 0, "{q}");
        }
    }
}
