//! The tools' arguments: their types (whose JSON Schemas `tools/list` gives) and their
//! checks. An argument that is missing, of the wrong type, unknown or out of range is
//! the caller's to fix, so it is a tool error with a message that names it, never a
//! protocol error (which agents show as an opaque failure).

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::search::history::pad_date;

/// Hits a `search` page holds at most.
pub const MAX_PAGE_SIZE: usize = 50;
/// Characters of text `get_text` returns at most in one call (`max_chars`).
pub const MAX_TEXT_CHARS: usize = 100_000;
/// Characters of text `get_text` returns by default.
pub const DEFAULT_TEXT_CHARS: usize = 20_000;
/// Captures `list_captures` returns at most in one call.
pub const MAX_CAPTURES: usize = 1_000;
/// Captures `list_captures` returns by default.
pub const DEFAULT_CAPTURES: usize = 100;
/// Bytes of a URL or a query an argument may hold.
pub const MAX_ARG_BYTES: usize = 8_192;

/// `search`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// The query: words (all required, fewer when no page holds them all), "phrases",
    /// -excluded words, and the filters site:HOST, type:MIME, lang:xx, date:YYYY[-YYYY].
    pub query: String,
    /// The page of hits, from 1.
    #[serde(default)]
    pub page: Option<u32>,
    /// Hits per page, 1 to 50 (default 10).
    #[serde(default)]
    pub page_size: Option<u32>,
    /// Search the collection as it stood at this date (YYYY[MM[DD[hh[mm[ss]]]]]): each
    /// URL's version current then.
    #[serde(default)]
    pub as_of: Option<String>,
    /// Only pages of this host (and its subdomains), as site: in the query.
    #[serde(default)]
    pub site: Option<String>,
    /// Only versions captured on or after this date (YYYY[MM[DD…]]).
    #[serde(default)]
    pub from: Option<String>,
    /// Only versions captured on or before this date (YYYY[MM[DD…]]; a prefix covers
    /// its whole year, month or day).
    #[serde(default)]
    pub to: Option<String>,
}

/// `get_text`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetTextArgs {
    /// The archived URL.
    pub url: String,
    /// The capture nearest this date is read (YYYY[MM[DD[hh[mm[ss]]]]]); default: the
    /// latest.
    #[serde(default)]
    pub date: Option<String>,
    /// The first character of the text to return (a previous answer's `next_offset`).
    #[serde(default)]
    pub offset: Option<u64>,
    /// Characters to return, 1 to 100,000 (default 20,000).
    #[serde(default)]
    pub max_chars: Option<u32>,
}

/// How `list_captures` matches URLs (pywb's CDX API `matchType`).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MatchType {
    /// This URL only.
    Exact,
    /// Every URL that begins with it.
    Prefix,
    /// Every URL of its host.
    Host,
    /// Every URL of its host and subdomains.
    Domain,
}

impl MatchType {
    /// The CDX API's name.
    pub fn name(self) -> &'static str {
        match self {
            MatchType::Exact => "exact",
            MatchType::Prefix => "prefix",
            MatchType::Host => "host",
            MatchType::Domain => "domain",
        }
    }
}

/// `list_captures`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListCapturesArgs {
    /// The archived URL.
    pub url: String,
    /// exact (default), prefix, host or domain.
    #[serde(default)]
    pub match_type: Option<MatchType>,
    /// Only captures on or after this date (YYYY[MM[DD[hh[mm[ss]]]]]).
    #[serde(default)]
    pub from: Option<String>,
    /// Only captures on or before this date (a prefix covers its whole period).
    #[serde(default)]
    pub to: Option<String>,
    /// Captures to return, 1 to 1,000 (default 100), oldest first.
    #[serde(default)]
    pub limit: Option<u32>,
}

/// `history`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryArgs {
    /// The archived URL.
    pub url: String,
}

/// `diff`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffArgs {
    /// The archived URL.
    pub url: String,
    /// The older date: the version holding the capture nearest it (YYYY[MM[DD…]]).
    pub date1: String,
    /// The newer date, likewise.
    pub date2: String,
}

/// Reads a tool's arguments (none is an empty object), with serde's message on a
/// missing field, a wrong type or an unknown name.
pub fn read<T: DeserializeOwned>(
    tool: &str,
    args: Option<serde_json::Map<String, serde_json::Value>>,
) -> Result<T, String> {
    let v = serde_json::Value::Object(args.unwrap_or_default());
    serde_json::from_value(v).map_err(|e| format!("{tool}: bad arguments: {e}"))
}

/// Checks a URL argument: not blank, not over [`MAX_ARG_BYTES`].
pub fn url(name: &str, v: &str) -> Result<String, String> {
    let v = v.trim();
    if v.is_empty() {
        return Err(format!("{name} is empty: give the archived URL"));
    }
    if v.len() > MAX_ARG_BYTES {
        return Err(format!(
            "{name} is too long (at most {MAX_ARG_BYTES} bytes)"
        ));
    }
    if v.chars().any(char::is_control) {
        return Err(format!("{name} holds a control character"));
    }
    Ok(v.to_string())
}

/// Checks a date argument: 4 to 14 digits making a calendar date (a prefix of one).
pub fn date(name: &str, v: &str) -> Result<String, String> {
    let bad =
        || format!("{name} {v:?} is not a date: give YYYY[MM[DD[hh[mm[ss]]]]] (4 to 14 digits)");
    let v = v.trim();
    if !(4..=14).contains(&v.len()) || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let full = pad_date(v).ok_or_else(bad)?;
    crate::reader::date::capture_micros(&full, i64::MAX).ok_or_else(bad)?;
    Ok(v.to_string())
}

/// A number argument within `1..=max`, `default` when absent.
pub fn bounded(name: &str, v: Option<u32>, default: usize, max: usize) -> Result<usize, String> {
    match v {
        None => Ok(default),
        Some(0) => Err(format!("{name} is at least 1")),
        Some(n) if n as usize > max => Err(format!("{name} is at most {max}, not {n}")),
        Some(n) => Ok(n as usize),
    }
}

/// A `site` argument: a host name, no spaces or colons (it goes into the query).
pub fn site(v: &str) -> Result<String, String> {
    let v = v.trim().trim_end_matches('/');
    let ok = !v.is_empty()
        && v.len() <= 253
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b));
    match ok {
        true => Ok(v.to_ascii_lowercase()),
        false => Err(format!(
            "site {v:?} is not a host name (letters, digits, '-', '.')"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: serde_json::Value) -> Option<serde_json::Map<String, serde_json::Value>> {
        v.as_object().cloned()
    }

    #[test]
    fn wrong_types_missing_and_unknown_fields_are_named() {
        let e = read::<SearchArgs>("search", obj(json!({"query": 3}))).unwrap_err();
        assert!(e.contains("invalid type") && e.contains("string"), "{e}");
        let e = read::<SearchArgs>("search", obj(json!({}))).unwrap_err();
        assert!(e.contains("missing field `query`"), "{e}");
        let e = read::<SearchArgs>("search", obj(json!({"query": "a", "pages": 2}))).unwrap_err();
        assert!(e.contains("unknown field `pages`"), "{e}");
        let e = read::<SearchArgs>("search", obj(json!({"query": "a", "page": -1}))).unwrap_err();
        assert!(e.contains("invalid value"), "{e}");
        let a = read::<ListCapturesArgs>(
            "list_captures",
            obj(json!({"url": "x", "match_type": "prefix"})),
        );
        assert_eq!(a.unwrap().match_type, Some(MatchType::Prefix));
        let e = read::<ListCapturesArgs>(
            "list_captures",
            obj(json!({"url": "x", "match_type": "all"})),
        )
        .unwrap_err();
        assert!(e.contains("unknown variant"), "{e}");
    }

    #[test]
    fn dates_must_be_calendar_dates() {
        assert_eq!(date("date", "2024").unwrap(), "2024");
        assert_eq!(date("date", "20240229").unwrap(), "20240229");
        for bad in [
            "",
            "24",
            "2024-01",
            "20241301",
            "20230229",
            "202401011200000",
            "yesterday",
        ] {
            assert!(date("date", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sizes_are_bounded() {
        assert_eq!(bounded("page_size", None, 10, 50), Ok(10));
        assert_eq!(bounded("page_size", Some(50), 10, 50), Ok(50));
        assert!(bounded("page_size", Some(51), 10, 50).is_err());
        assert!(bounded("page_size", Some(0), 10, 50).is_err());
        assert!(site("example.org").is_ok());
        assert!(site("a b").is_err() && site("x:y").is_err() && site("").is_err());
        assert!(url("url", " ").is_err() && url("url", "a\u{0}b").is_err());
    }
}
