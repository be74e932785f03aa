//! pywb's `process_cdx` over a key range, streamed: filters, `from`/`to`, `collapseTime`,
//! then `closest` (closest.rs), `sort=reverse` (the range read backwards from its end) or
//! `limit`.

use std::io;

use super::filter::Filter;
use super::params::Range;
use super::record::Record;
use super::{AnswerError, QueryError};
use crate::lookup::SortedCdx;

/// What to do after filtering.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Order {
    /// File order; `limit` 0 is no limit and a negative limit gives nothing.
    Forward { limit: i64 },
    /// The last `limit` captures, last first.
    Reverse { limit: i64 },
    /// The `limit` captures closest in time to `sec`, ties in file order.
    Closest { sec: i64, limit: i64 },
}

/// One query over one range.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) range: Range,
    pub(crate) filters: Vec<Filter>,
    /// Padded to 14 digits when shorter.
    pub(crate) from: Option<String>,
    pub(crate) to: Option<String>,
    /// `collapseTime`: captures whose timestamps share this many leading characters and
    /// whose status is the same as the previous capture's are dropped.
    pub(crate) collapse: Option<i64>,
    pub(crate) order: Order,
    /// The captures the asker may see ([`AccessTest`]); `None`: all.
    pub(crate) access: Option<AccessTest>,
}

/// The test of [`AccessTest`]: (URL key, timestamp) to whether the capture is answered.
pub type AccessFn = dyn Fn(&str, &str) -> bool + Send + Sync;

/// Whether a capture (URL key, timestamp) may be answered: the server's access rules.
#[derive(Clone)]
pub struct AccessTest(pub std::sync::Arc<AccessFn>);

impl std::fmt::Debug for AccessTest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AccessTest")
    }
}

impl Plan {
    /// Filters and `from`/`to`, the tests that do not depend on other captures.
    pub(crate) fn keeps(&self, r: &Record) -> bool {
        let ts = r.timestamp();
        if self.from.as_deref().is_some_and(|f| ts < f) {
            return false;
        }
        if self.to.as_deref().is_some_and(|t| ts > t) {
            return false;
        }
        self.filters.iter().all(|f| f.accepts(r))
            && self.access.as_ref().is_none_or(|a| (a.0)(r.urlkey(), ts))
    }

    /// The `collapseTime` token: the timestamp's first characters (a Python slice, so a
    /// negative length counts from the end) and the status.
    fn collapse_token(&self, r: &Record) -> Option<(String, String)> {
        let n = self.collapse?;
        let ts: Vec<char> = r.timestamp().chars().collect();
        let len = ts.len() as i64;
        let end = if n < 0 { (len + n).max(0) } else { n.min(len) };
        Some((
            ts[..end as usize].iter().collect(),
            r.get("status").unwrap_or("").to_string(),
        ))
    }
}

/// Runs `plan`, handing each capture to `emit`; returns how many were emitted.
pub(crate) fn run(
    cdx: &SortedCdx,
    plan: &Plan,
    emit: &mut dyn FnMut(&Record) -> io::Result<()>,
) -> Result<u64, AnswerError> {
    match plan.order {
        Order::Forward { limit } => {
            // pywb's `zip(cdx_iter, range(limit))` pulls one capture more than it keeps
            // (one for a negative limit, which keeps none): a line it cannot read before
            // that capture fails the answer there too.
            let cap = match limit {
                0 => u64::MAX,
                l if l < 0 => 0,
                l => l as u64,
            };
            let mut n = 0;
            for_each_forward(cdx, plan, &mut |r| {
                if n >= cap {
                    return Ok(false);
                }
                emit(&r)?;
                n += 1;
                Ok(true)
            })?;
            Ok(n)
        }
        Order::Reverse { limit } => reverse(cdx, plan, limit, emit),
        Order::Closest { sec, limit } => super::closest::closest(cdx, plan, sec, limit, emit),
    }
}

/// The range's captures that pass the plan's tests, in file order, until `f` says stop.
pub(crate) fn for_each_forward(
    cdx: &SortedCdx,
    plan: &Plan,
    f: &mut dyn FnMut(Record) -> Result<bool, AnswerError>,
) -> Result<(), AnswerError> {
    let mut last_token = None;
    for line in cdx.lines_from(&plan.range.start)? {
        let line = line?;
        if line.as_slice() >= plan.range.end.as_slice() {
            break;
        }
        let r = Record::parse(&line)?;
        if !plan.keeps(&r) {
            continue;
        }
        if plan.collapse.is_some() {
            let token = plan.collapse_token(&r);
            if token == last_token {
                continue;
            }
            last_token = token;
        }
        if !f(r)? {
            break;
        }
    }
    Ok(())
}

/// `cdx_reverse`: the last `limit` captures, last first, read backwards from the end of
/// the range so that nothing is held.
fn reverse(
    cdx: &SortedCdx,
    plan: &Plan,
    limit: i64,
    emit: &mut dyn FnMut(&Record) -> io::Result<()>,
) -> Result<u64, AnswerError> {
    if limit < 0 {
        return Err(QueryError::bad(format!(
            "Invalid value for limit= param with sort=reverse: {limit}"
        ))
        .into());
    }
    // pywb reads the whole range before its first answer, so a line of an unknown
    // layout anywhere in it fails the query; read it once to say so before answering.
    for line in cdx.lines_from(&plan.range.start)? {
        let line = line?;
        if line.as_slice() >= plan.range.end.as_slice() {
            break;
        }
        Record::parse(&line)?;
    }
    let cap = limit as u64;
    let mut n = 0;
    // collapseTime keeps the first of a run in file order; backwards, a capture is kept
    // once the one before it (the next one read) turns out to differ.
    let mut pending: Option<(Record, Option<(String, String)>)> = None;
    for line in cdx.lines_before(&plan.range.end)? {
        if n >= cap {
            return Ok(n);
        }
        let line = line?;
        if line.as_slice() < plan.range.start.as_slice() {
            break;
        }
        let r = Record::parse(&line)?;
        if !plan.keeps(&r) {
            continue;
        }
        if plan.collapse.is_none() {
            emit(&r)?;
            n += 1;
            continue;
        }
        let token = plan.collapse_token(&r);
        if let Some((p, p_token)) = pending.take() {
            if p_token != token {
                emit(&p)?;
                n += 1;
            }
        }
        pending = Some((r, token));
    }
    if let Some((p, _)) = pending {
        if n < cap {
            emit(&p)?;
            n += 1;
        }
    }
    Ok(n)
}
