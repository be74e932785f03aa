//! What a reader asked for, parsed once: the query (with its filters and `as-of:` date)
//! and who asks. Every route and command that takes a query builds one, and every
//! consumer of the matches (search counts, exports, the link graph) takes it whole.

use crate::access::Viewer;

use super::query::{self, ParsedQuery, QueryError};

/// A query as parsed, the date the collection is seen as of, and who asks.
#[derive(Debug, Clone)]
pub struct Selection {
    /// The query's text with its `as-of:` date, as `warcdex search` would take it (an
    /// export's `warcinfo` names it; the search of a page of hits reads it).
    pub text: String,
    /// The query, parsed.
    pub query: ParsedQuery,
    /// Who asks, under which access rules (`None`: everything is shown).
    pub viewer: Option<Viewer>,
}

/// The error for an `asOf` that is not a date.
const BAD_AS_OF: &str = "asOf is a date of 4 to 14 digits, YYYY[MM[DD[hh[mm[ss]]]]]";

impl Selection {
    /// The selection of `text` (`as-of:` in it, if any) for `viewer`.
    pub fn parse(text: &str, viewer: Option<Viewer>) -> Result<Selection, QueryError> {
        Ok(Selection {
            text: text.to_string(),
            query: query::parse(text)?,
            viewer,
        })
    }

    /// The selection of `text` seen as of `as_of` (an API's `asOf`: 4 to 14 digits),
    /// for `viewer`. The date is the query's `as-of:`, so a query that gives one too is
    /// refused as one that gives it twice.
    pub fn as_of(
        text: &str,
        as_of: Option<&str>,
        viewer: Option<Viewer>,
    ) -> Result<Selection, QueryError> {
        let Some(at) = as_of else {
            return Selection::parse(text, viewer);
        };
        check_as_of(at)?;
        Selection::parse(&format!("{text} as-of:{at}"), viewer)
    }
}

/// Refuses an `asOf` that is not 4 to 14 digits.
pub fn check_as_of(at: &str) -> Result<(), QueryError> {
    if !(4..=14).contains(&at.len()) || !at.bytes().all(|b| b.is_ascii_digit()) {
        return Err(QueryError(BAD_AS_OF.into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_of_is_checked_and_becomes_the_query_date() {
        let s = Selection::as_of("museum", Some("2020"), None).unwrap();
        assert_eq!(s.query.as_of, Some(20209999999999));
        assert_eq!(s.text, "museum as-of:2020");
        assert_eq!(
            Selection::as_of("museum", None, None).unwrap().query.as_of,
            None
        );
        for bad in ["20", "2020x", "202001010000000", "", "２０２０"] {
            let e = Selection::as_of("museum", Some(bad), None).unwrap_err();
            assert_eq!(e.0, BAD_AS_OF, "{bad:?}");
        }
        assert!(Selection::as_of("museum as-of:2019", Some("2020"), None).is_err());
        assert!(Selection::parse("a as-of:", None).is_err());
    }
}
