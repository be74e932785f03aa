//! What to crawl next (`warcdex recrawl-plan`): for every URL of a collection, an interval
//! between fetches that makes the collection's importance-weighted freshness the most a
//! budget of fetches a day allows (docs/recrawl.md), from each URL's captures in
//! `all.cdx` and its link score; or, for comparison, the intervals Nutch's
//! `AdaptiveFetchSchedule` reaches over the same history, scaled to the same budget.
//!
//! Three passes, none holding more than one URL or a sort's budget in memory: the CDX
//! with the link scores beside it gives each URL's candidate (`candidates`); the solver
//! reads their rates and importances from a spill file as often as its bisection needs
//! (`solve`); a last pass writes each URL's interval and next date. The arithmetic is
//! `crate::freshness`'s.

mod candidates;
pub mod changes;
pub mod feed;
pub mod importance;
mod solve;
pub mod write;

use std::fs::File;
use std::io::{self, BufReader, Seek};

use warcdex_cdx::{KeyStyle, SortOptions};

use crate::collection::Collection;
use crate::freshness::allocate::Bounds;
use crate::path_error::{Result, ResultAtPath};
use crate::progress::Progress;
pub use candidates::MAX_CAPTURES;
use importance::LinkScores;

/// Which schedule to plan by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// The most importance-weighted freshness for the budget (Cho & Garcia-Molina).
    Optimal,
    /// Nutch's `AdaptiveFetchSchedule` over each URL's history, scaled to the budget.
    NutchAdaptive,
}

impl Schedule {
    /// Reads `optimal` or `nutch-adaptive`.
    pub fn parse(s: &str) -> Option<Schedule> {
        match s {
            "optimal" => Some(Schedule::Optimal),
            "nutch-adaptive" | "nutch" => Some(Schedule::NutchAdaptive),
            _ => None,
        }
    }
}

/// How to plan.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// Fetches a day the plan may spend (the sum of `1 / interval` over planned URLs).
    pub budget: f64,
    /// The shortest and longest interval, in days.
    pub bounds: Bounds,
    /// Plan from the history up to this date (seconds since 1970); captures after it are
    /// left out (`i64::MAX`: every capture).
    pub as_of: i64,
    /// No URL is due before this date (seconds since 1970): `as_of`, or now.
    pub due_from: i64,
    /// The schedule.
    pub schedule: Schedule,
    /// A URL whose latest this many captures answered 404 or 410 is dropped (0: never);
    /// one whose latest capture did, fewer times, is planned at the longest interval.
    pub drop_after: usize,
    /// Memory and temporary files of the sorts.
    pub sort: SortOptions,
}

/// Why a URL is planned as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// Its change rate estimated from its captures.
    Estimated,
    /// One capture of content (or none yet): the collection's median rate as its prior.
    Prior,
    /// Its latest capture answered 404 or 410: backed off to the longest interval.
    Gone,
    /// The target of a URL whose latest capture redirects to it, planned in its place.
    Redirect,
}

impl Reason {
    /// Its name in the outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Estimated => "estimated",
            Reason::Prior => "prior",
            Reason::Gone => "gone",
            Reason::Redirect => "redirect",
        }
    }
    /// The reason [`Reason::as_str`] names.
    pub fn parse(s: &str) -> Option<Reason> {
        [
            Reason::Estimated,
            Reason::Prior,
            Reason::Gone,
            Reason::Redirect,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
    }
}

/// One URL of the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedUrl {
    /// The URL to fetch.
    pub url: String,
    /// Days between fetches (rounded up to 1/10,000 of a day, so the plan stays within
    /// its budget).
    pub interval_days: f64,
    /// When it is next due (seconds since 1970): its latest capture plus the interval,
    /// and not before the plan's date (`PlanOptions::due_from`).
    pub next_due: i64,
    /// Its change rate (changes a day): estimated, or the prior; `None` for a gone URL.
    pub change_rate: Option<f64>,
    /// Its importance (the link-analysis boost).
    pub importance: f64,
    /// Why.
    pub reason: Reason,
    /// Its captures up to the plan's date (0 for a redirect's target never captured).
    pub captures: u64,
    /// Its latest capture (seconds since 1970), or the redirect's.
    pub last_capture: i64,
    /// For a redirect's target, the URL that redirects to it.
    pub redirected_from: Option<String>,
}

/// What a plan did, for the summary.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanSummary {
    /// URLs read from the CDX.
    pub urls: u64,
    /// URLs planned, by reason (estimated, prior, gone, redirect).
    pub planned: u64,
    /// Planned with an estimated rate.
    pub estimated: u64,
    /// Planned with the prior.
    pub prior: u64,
    /// Planned gone, at the longest interval.
    pub gone: u64,
    /// Planned at a redirect's target.
    pub redirect: u64,
    /// Dropped: gone on their latest `drop_after` captures.
    pub dropped: u64,
    /// Not http(s) URLs, left out.
    pub skipped: u64,
    /// CDX lines that were no capture, left out.
    pub bad_lines: u64,
    /// Captures after the plan's date, left out.
    pub later_captures: u64,
    /// Redirects whose record could not be read for its `Location` (planned as they are).
    pub unread_redirects: u64,
    /// Fetches a day the plan spends.
    pub fetches_per_day: f64,
    /// Whether even the longest interval for every URL spends more than the budget.
    pub over_budget: bool,
    /// The prior rate given to URLs without an estimate (changes a day).
    pub prior_rate: f64,
    /// The importance-weighted freshness the plan expects under the estimated rates
    /// (gone URLs left out).
    pub expected_freshness: f64,
}

/// Plans the collection's next crawls, handing each URL's plan to `emit` in URL key
/// order.
pub fn plan(
    collection: &Collection,
    opts: &PlanOptions,
    progress: &dyn Progress,
    mut emit: impl FnMut(&PlannedUrl) -> io::Result<()>,
) -> Result<PlanSummary> {
    let style = match collection.manifest()?.map(|m| m.canonicalizer) {
        Some(c) if c == "url" => KeyStyle::Url,
        _ => KeyStyle::Surt,
    };
    let mut scores = LinkScores::of_collection(collection, opts.sort.clone())?;
    let path = collection.cdx_path();
    let file = File::open(&path).at(&path)?;
    progress.start(file.metadata().at(&path)?.len());
    let table = collection.archives().table().ok();
    let locate = |name: &str, offset: u64, length: u64| -> Option<String> {
        let at = table.as_ref()?.location(name)?;
        let opts = crate::reader::ReaderOptions {
            buffer_size: 64 * 1024,
            max_header: 1 << 20,
        };
        let mut reader = at.open_range(offset, length, opts).ok()?;
        let mut rec = reader.next_record().ok()??;
        let http = rec.http().ok()??;
        http.get_str("Location").map(|l| l.trim().to_string())
    };
    let (sorter, rates, first) = candidates::first_pass(
        &path,
        BufReader::with_capacity(1 << 16, file),
        opts,
        style,
        &mut scores,
        &locate,
        progress,
    )?;
    progress.finish();
    let spill = warcdex_cdx::sort::temp_file(opts.sort.tmp_dir.as_deref())?;
    candidates::merge(sorter, &spill)?;
    let prior = rates.median().unwrap_or(1.0 / 30.0);
    let solved = solve::solve(&spill, opts, prior)?;
    let mut summary = PlanSummary {
        urls: first.urls,
        dropped: first.dropped,
        skipped: first.skipped,
        bad_lines: first.bad_lines,
        later_captures: first.later,
        unread_redirects: first.unread_redirects,
        over_budget: solved.over_budget,
        prior_rate: prior,
        ..PlanSummary::default()
    };
    let (mut weighted, mut weights) = (0.0, 0.0);
    candidates::each_candidate(&spill, |c| {
        let freq = solved.freq_of(&c);
        // Rounded up: a longer interval spends less, so the plan stays within budget.
        let interval_days = ((1.0 / freq) * 1e4).ceil() / 1e4;
        let rate = match c.reason {
            Reason::Gone => None,
            _ => Some(c.rate.unwrap_or(prior)),
        };
        if let Some(r) = rate {
            weighted += c.importance * crate::freshness::freshness(r, 1.0 / interval_days);
            weights += c.importance;
        }
        let due = c.last_seconds + (interval_days * 86_400.0).round() as i64;
        summary.planned += 1;
        summary.fetches_per_day += 1.0 / interval_days;
        match c.reason {
            Reason::Estimated => summary.estimated += 1,
            Reason::Prior => summary.prior += 1,
            Reason::Gone => summary.gone += 1,
            Reason::Redirect => summary.redirect += 1,
        }
        emit(&PlannedUrl {
            url: c.url,
            interval_days,
            next_due: due.max(opts.due_from),
            change_rate: rate,
            importance: c.importance,
            reason: c.reason,
            captures: c.captures,
            last_capture: c.last_seconds,
            redirected_from: c.from,
        })
    })?;
    summary.expected_freshness = if weights > 0.0 {
        weighted / weights
    } else {
        1.0
    };
    Ok(summary)
}

/// A second handle on `f` at its start.
fn rewound(f: &File) -> io::Result<File> {
    let mut f = f.try_clone()?;
    f.seek(io::SeekFrom::Start(0))?;
    Ok(f)
}
