//! The search routes' parameters, parsed once (`Params`): NutchWAX's servlet names,
//! bounded numbers, `asOf`, `sort`, the near-duplicate display; a malformed one is a
//! message for a 400.

use super::ServeOptions;
use crate::search::{HitOrder, NearDisplay, MAX_HITS_PER_PAGE};

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
    /// As given, echoed in the RSS.
    pub(super) raw: Vec<(String, String)>,
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
pub(super) fn query_param(raw: &[(String, String)]) -> Option<String> {
    raw.iter()
        .rev()
        .find(|(k, _)| k == "query" || k == "q")
        .map(|(_, v)| v.trim().to_string())
        .filter(|q| !q.is_empty())
}

/// The answer to an API request without a query.
pub(super) const NO_QUERY: &str = "no query: add ?query=words";

pub(super) fn params(raw: Vec<(String, String)>, opts: &ServeOptions) -> Result<Params, String> {
    let query = query_param(&raw);
    let start = number(&raw, &["start"], 0)?;
    let hits = number(&raw, &["hitsPerPage"], 10)?.clamp(1, MAX_HITS_PER_PAGE);
    let hits_per_site = number(&raw, &["hitsPerSite", "hitsPerDup"], opts.hits_per_site)?;
    let near = near_display(&raw)?;
    let last = |name: &str| {
        (raw.iter().rev())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let as_of = last("asOf");
    if let Some(a) = &as_of {
        crate::search::selection::check_as_of(a).map_err(|e| e.0)?;
    }
    let order = match last("sort") {
        None => HitOrder::Relevance,
        Some(v) => HitOrder::parse(&v)
            .ok_or("sort is relevance, date (oldest first) or -date (newest first)")?,
    };
    Ok(Params {
        query,
        start,
        hits,
        hits_per_site,
        near,
        as_of,
        order,
        raw,
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
