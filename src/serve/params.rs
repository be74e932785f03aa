//! The parameters of every route that takes a query (`/`, `/opensearch`, `/search.json`,
//! `/export`, the shard routes), parsed once by one extractor (`Params`): NutchWAX's
//! servlet names, bounded numbers, `asOf`, `sort`, the near-duplicate display, and who
//! asks; a malformed one is a message for a 400 ([`BadParams`]).

use std::sync::Arc;

use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::respond::plain;
use super::state::AppState;
use super::ServeOptions;
use crate::access::Viewer;
use crate::search::query::QueryError;
use crate::search::{HitOrder, NearDisplay, Selection, MAX_HITS_PER_PAGE};

/// The request parameters, parsed; a message for the user when they are malformed.
pub(super) struct Params {
    pub(super) query: Option<String>,
    pub(super) start: usize,
    pub(super) hits: usize,
    pub(super) hits_per_site: usize,
    /// `nearDups=show` and `collapse=near`.
    pub(super) near: NearDisplay,
    /// `asOf=YYYY[MM[DD…]]`: the query's `as-of:`.
    pub(super) as_of: Option<String>,
    /// `sort=relevance|date|-date`.
    pub(super) order: HitOrder,
    /// `strict=1`: only pages with every word, no fallback.
    pub(super) strict: bool,
    /// As given, echoed in the RSS.
    pub(super) raw: Vec<(String, String)>,
    /// Who asks, under the server's access rules (`None`: no rules, everything shown).
    pub(super) viewer: Option<Viewer>,
}

impl Params {
    /// What the reader asked for: the query with its `asOf` date, for the viewer;
    /// `None` without a query, an error when the query or date is malformed.
    pub(super) fn selection(&self) -> Result<Option<Selection>, QueryError> {
        let Some(query) = &self.query else {
            return Ok(None);
        };
        Selection::as_of(query, self.as_of.as_deref(), self.viewer.clone()).map(Some)
    }

    /// The last value of parameter `name`, trimmed; `None` when absent or blank.
    pub(super) fn last(&self, name: &str) -> Option<&str> {
        last(&self.raw, name)
    }
}

/// A request whose parameters are malformed: the message of its 400.
pub(super) struct BadParams(pub(super) String);

impl IntoResponse for BadParams {
    fn into_response(self) -> Response {
        plain(StatusCode::BAD_REQUEST, self.0)
    }
}

impl FromRequestParts<Arc<AppState>> for Params {
    type Rejection = BadParams;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Params, BadParams> {
        let Query(raw) = Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
            .map_err(|e| BadParams(e.body_text()))?;
        let mut p = params(raw, &state.opts).map_err(BadParams)?;
        p.viewer = state.opts.viewer(&parts.headers);
        Ok(p)
    }
}

/// The last value of parameter `name` in `raw`, trimmed; `None` when absent or blank.
fn last<'r>(raw: &'r [(String, String)], name: &str) -> Option<&'r str> {
    (raw.iter().rev())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

/// `nearDups=show` shows every version of a URL; `collapse=near` folds near-identical
/// pages of other URLs into one hit. Other values are refused.
pub(super) fn near_display(raw: &[(String, String)]) -> Result<NearDisplay, String> {
    let last = |name: &str| {
        raw.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
    };
    let show_versions = match last("nearDups") {
        None | Some("" | "collapse") => false,
        Some("show") => true,
        Some(v) => return Err(format!("nearDups is show or collapse, not {v:?}")),
    };
    let collapse_urls = match last("collapse") {
        None | Some("" | "none") => false,
        Some("near") => true,
        Some(v) => return Err(format!("collapse is near or none, not {v:?}")),
    };
    Ok(NearDisplay {
        show_versions,
        collapse_urls,
    })
}

pub(super) fn number(
    raw: &[(String, String)],
    names: &[&str],
    default: usize,
) -> Result<usize, String> {
    match raw.iter().rev().find(|(k, _)| names.contains(&k.as_str())) {
        None => Ok(default),
        Some((k, v)) if v.trim().is_empty() => Err(format!("{k} is empty")),
        Some((k, v)) => v
            .trim()
            .parse()
            .map_err(|_| format!("{k} must be a whole number ≥ 0, not {v:?}")),
    }
}

/// The last `query` (or `q`) parameter, trimmed; `None` when there is none or it is blank.
fn query_param(raw: &[(String, String)]) -> Option<String> {
    raw.iter()
        .rev()
        .find(|(k, _)| k == "query" || k == "q")
        .map(|(_, v)| v.trim().to_string())
        .filter(|q| !q.is_empty())
}

/// The answer to an API request without a query.
pub(super) const NO_QUERY: &str = "no query: add ?query=words";

fn params(raw: Vec<(String, String)>, opts: &ServeOptions) -> Result<Params, String> {
    let query = query_param(&raw);
    let start = number(&raw, &["start"], 0)?;
    let hits = number(&raw, &["hitsPerPage"], 10)?.clamp(1, MAX_HITS_PER_PAGE);
    let hits_per_site = number(&raw, &["hitsPerSite", "hitsPerDup"], opts.hits_per_site)?;
    let near = near_display(&raw)?;
    let as_of = last(&raw, "asOf").map(str::to_string);
    if let Some(a) = &as_of {
        crate::search::selection::check_as_of(a).map_err(|e| e.0)?;
    }
    let order = match last(&raw, "sort") {
        None => HitOrder::Relevance,
        Some(v) => HitOrder::parse(v)
            .ok_or("sort is relevance, date (oldest first) or -date (newest first)")?,
    };
    let strict = match last(&raw, "strict") {
        None | Some("" | "0" | "false") => false,
        Some("1" | "true") => true,
        Some(v) => return Err(format!("strict is 1 or 0, not {v:?}")),
    };
    Ok(Params {
        query,
        start,
        hits,
        hits_per_site,
        near,
        as_of,
        order,
        strict,
        raw,
        viewer: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::NearDisplay;

    fn near(pairs: &[(&str, &str)]) -> Result<NearDisplay, String> {
        let raw: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        near_display(&raw)
    }

    #[test]
    fn near_duplicate_parameters() {
        assert_eq!(near(&[]), Ok(NearDisplay::default()));
        let both = near(&[("nearDups", "show"), ("collapse", "near")]).unwrap();
        assert!(both.show_versions && both.collapse_urls);
        // The last value wins, as for the other parameters.
        let last = near(&[("collapse", "near"), ("collapse", "none")]).unwrap();
        assert!(!last.collapse_urls);
        assert!(near(&[("nearDups", "hide")])
            .unwrap_err()
            .contains("nearDups"));
        assert!(near(&[("collapse", "<b>")])
            .unwrap_err()
            .contains("collapse"));
    }
}
