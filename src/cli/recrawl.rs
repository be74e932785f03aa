//! `warcdex recrawl-plan`: flags, then the library (`warcdex::recrawl::plan`); the plan
//! on stdout or `-o`, the summary on stderr.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use warcdex::collection::Collection;
use warcdex::freshness::allocate::Bounds;
use warcdex::recrawl::feed::{date_flag, window_of};
use warcdex::recrawl::write::{collection_name, CsvWriter, Tier, TierFormat};
use warcdex::recrawl::{plan, PlanOptions, PlannedUrl, Schedule};
use warcdex_cdx::SortOptions;

use super::MemoryFlags;

/// How `recrawl-plan` plans (its `--help`).
pub const RECRAWL_HELP: &str = "\
How each URL is planned (docs/recrawl.md):
  change rate  the maximum-likelihood rate of a Poisson process from the intervals
               between its captures and whether the digest changed across each
               (revisits count as unchanged; error responses are no content); with one
               capture, the collection's median rate
  importance   its link-analysis boost (OPIC/PageRank score ^ 0.5) in the index; run
               `update --compact` first for scores over the whole collection
  interval     optimal: the budget spread so that importance-weighted freshness is the
               most it can be (equal marginal gains, Cho & Garcia-Molina 2000);
               nutch-adaptive: Nutch's AdaptiveFetchSchedule (from 30 days, x1.4 when
               unchanged, x0.8 when changed) scaled to the same budget
  gone         latest capture 404/410: the longest interval; --drop-after such captures
               in a row: dropped
  redirect     latest capture a redirect: its target planned in its place
Formats: csv (url,interval_days,next_due,change_rate,importance,reason,tier,captures,
last_capture,redirected_from); heritrix (TIER-seeds.txt) and browsertrix (TIER.yaml with
seeds: and scopeType: page) in the directory -o names, one file per tier that holds URLs
(daily, weekly, monthly, quarterly, yearly: the nearest period on a log scale), with
plan.csv beside them.";

/// `warcdex recrawl-plan`.
#[derive(Debug, Args)]
pub struct RecrawlPlanArgs {
    /// The collection's directory.
    pub coll: PathBuf,
    /// Fetches a day the plan may spend: the sum of 1/interval over the planned URLs.
    #[arg(long, value_parser = positive)]
    pub budget: f64,
    /// The shortest interval, in days.
    #[arg(long = "min", default_value_t = 1.0, value_parser = positive)]
    pub min_days: f64,
    /// The longest interval, in days (gone URLs get it).
    #[arg(long = "max", default_value_t = 365.0, value_parser = positive)]
    pub max_days: f64,
    /// Plan from the captures up to this date (YYYY-MM-DD or 4 to 14 digits), and no URL
    /// due before it (default: every capture, and nothing due before now).
    #[arg(long, value_name = "DATE")]
    pub as_of: Option<String>,
    /// optimal or nutch-adaptive.
    #[arg(long, default_value = "optimal", value_parser = schedule)]
    pub schedule: Schedule,
    /// Drop a URL whose latest N captures answered 404 or 410 (0: never drop; one or
    /// more in a row but fewer: the longest interval).
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub drop_after: usize,
    /// csv, heritrix or browsertrix.
    #[arg(long, default_value = "csv", value_parser = ["csv", "heritrix", "browsertrix"])]
    pub format: String,
    /// The CSV file (default: stdout), or the directory of the tier files.
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub memory: MemoryFlags,
}

fn positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("{s:?} is not a number above 0")),
    }
}

fn schedule(s: &str) -> Result<Schedule, String> {
    Schedule::parse(s).ok_or_else(|| format!("{s:?}: optimal or nutch-adaptive"))
}

/// Plans; the summary on stderr.
pub fn run(a: RecrawlPlanArgs) -> anyhow::Result<i32> {
    a.memory.check()?;
    if a.min_days > a.max_days {
        eprintln!("warcdex: --min is longer than --max");
        return Ok(2);
    }
    let (as_of, due_from) = match a.as_of.as_deref() {
        Some(d) => {
            let t = date_flag("--as-of", d, true).map_err(anyhow::Error::msg)?;
            (t, t)
        }
        None => (i64::MAX, warcdex_cdx::date::now_seconds()),
    };
    let collection = Collection::open(&a.coll);
    if !collection.cdx_path().is_file() {
        anyhow::bail!(
            "{}: not a collection (no all.cdx; make one with `warcdex update`)",
            a.coll.display()
        );
    }
    let opts = PlanOptions {
        budget: a.budget,
        bounds: Bounds {
            min_days: a.min_days,
            max_days: a.max_days,
        },
        as_of,
        due_from,
        schedule: a.schedule,
        drop_after: a.drop_after,
        sort: SortOptions {
            memory: a.memory.bytes(8),
            tmp_dir: a.memory.tmp_dir.clone(),
            unique: false,
        },
    };
    let bar = warcdex::progress::bytes_bar(0, "recrawl-plan: all.cdx");
    let summary = match a.format.as_str() {
        "csv" => super::with_output(a.output.as_deref(), |out| {
            let mut w = CsvWriter::new(out)?;
            let s = plan(&collection, &opts, &bar, |p| w.write(p))?;
            w.finish()?;
            Ok(s)
        })?,
        format => {
            let Some(dir) = a.output.as_deref() else {
                eprintln!("warcdex: --format {format} writes a directory: give it with -o DIR");
                return Ok(2);
            };
            let tf = if format == "heritrix" {
                TierFormat::Heritrix
            } else {
                TierFormat::Browsertrix
            };
            let name = collection_name(&collection.dir_name().unwrap_or_default());
            write_tiers(&collection, &opts, &bar, dir, tf, &name)?
        }
    };
    bar.finish_and_clear();
    eprintln!(
        "recrawl-plan: {} URLs planned ({} estimated, {} prior, {} gone at the longest \
         interval, {} redirect targets); {} dropped as gone, {} not http(s), {} lines not \
         CDX, {} captures after --as-of left out, {} redirects whose target could not be \
         read (planned as they are)",
        summary.planned,
        summary.estimated,
        summary.prior,
        summary.gone,
        summary.redirect,
        summary.dropped,
        summary.skipped,
        summary.bad_lines,
        summary.later_captures,
        summary.unread_redirects,
    );
    eprintln!(
        "recrawl-plan: {:.3} fetches a day of a budget of {} ({}); prior rate {:.5} a day; \
         expected importance-weighted freshness {:.4}",
        summary.fetches_per_day,
        a.budget,
        if summary.over_budget {
            "OVER BUDGET: every URL is at --max and still spends more; raise --budget or --max"
        } else {
            "within budget"
        },
        summary.prior_rate,
        summary.expected_freshness,
    );
    Ok(i32::from(summary.over_budget))
}

/// The tier files and `plan.csv` in `dir`, written whole under a temporary name and put
/// in place of what was there.
fn write_tiers(
    collection: &Collection,
    opts: &PlanOptions,
    bar: &indicatif::ProgressBar,
    dir: &Path,
    tf: TierFormat,
    name: &str,
) -> anyhow::Result<warcdex::recrawl::PlanSummary> {
    use std::collections::BTreeMap;
    let _lock = super::lock_output(dir)?;
    let tmp = warcdex::output::temp_dir_beside(dir)?;
    // Each tier's URLs go to a file of their own as the plan comes (it comes in key
    // order, not by tier); the heads, which count them, are written before them at the
    // end.
    let mut bodies: BTreeMap<Tier, (std::io::BufWriter<std::fs::File>, u64, f64)> = BTreeMap::new();
    let csv = std::fs::File::create(tmp.path().join("plan.csv"))?;
    let mut w = CsvWriter::new(std::io::BufWriter::new(csv))?;
    let summary = plan(collection, opts, bar, |p: &PlannedUrl| {
        w.write(p)?;
        let tier = Tier::of(p.interval_days);
        let (out, n, fetches) = match bodies.entry(tier) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => {
                let body = tmp.path().join(format!(".{}.body", tier.name()));
                e.insert((
                    std::io::BufWriter::new(std::fs::File::create(body)?),
                    0,
                    0.0,
                ))
            }
        };
        *n += 1;
        *fetches += 1.0 / p.interval_days;
        out.write_all(tf.line(&p.url).as_bytes())
    })?;
    w.finish()?.into_inner()?.sync_all()?;
    for (tier, (body, n, fetches)) in bodies {
        drop(body.into_inner()?);
        let body_path = tmp.path().join(format!(".{}.body", tier.name()));
        let path = tmp.path().join(tf.file_name(tier));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
        out.write_all(tf.head(tier, name, n, fetches).as_bytes())?;
        std::io::copy(&mut std::fs::File::open(&body_path)?, &mut out)?;
        out.into_inner()?.sync_all()?;
        std::fs::remove_file(&body_path)?;
        eprintln!(
            "recrawl-plan: {}: {n} URLs, {fetches:.3} fetches a day",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
    }
    warcdex::output::replace_dir(tmp, dir)?;
    Ok(summary)
}

/// `warcdex changes`.
#[derive(Debug, Args)]
pub struct ChangesArgs {
    /// The collection's directory.
    pub coll: PathBuf,
    /// The window: captures from this date on (YYYY-MM-DD or 4 to 14 digits).
    #[arg(long, value_name = "DATE", required_unless_present = "batch")]
    pub since: Option<String>,
    /// ... up to this date (default: every later capture).
    #[arg(long, value_name = "DATE", requires = "since")]
    pub until: Option<String>,
    /// The window: the captures of one `update` batch (its name, or `last`).
    #[arg(long, value_name = "NAME", conflicts_with = "since")]
    pub batch: Option<String>,
    /// Only URLs under this prefix (a URL or a host).
    #[arg(long, value_name = "URL")]
    pub prefix: Option<String>,
    /// Only URLs with a version this query matches.
    #[arg(long, value_name = "QUERY")]
    pub query: Option<String>,
    /// json (changed, new and gone listed apart), jsonl (one entry a line) or atom.
    #[arg(long, default_value = "json", value_parser = ["json", "jsonl", "atom"])]
    pub format: String,
    /// Entries of each kind listed at most (all are counted).
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    #[command(flatten)]
    pub output: super::OutputFlag,
    #[command(flatten)]
    pub memory: MemoryFlags,
    #[command(flatten)]
    pub access: super::access::AccessFlags,
    /// Ask as this user of the access rules.
    #[arg(long)]
    pub user: Option<String>,
}

/// Lists what changed; the counts on stderr.
pub fn changes(a: ChangesArgs) -> anyhow::Result<i32> {
    use warcdex::recrawl::feed::{
        collect, write_atom, write_json, write_jsonl, FeedOptions, KeyFilter,
    };
    a.memory.check()?;
    let collection = Collection::open(&a.coll);
    if !collection.cdx_path().is_file() {
        anyhow::bail!(
            "{}: not a collection (no all.cdx; make one with `warcdex update`)",
            a.coll.display()
        );
    }
    let (window, label) = window_of(
        &collection,
        a.since.as_deref(),
        a.until.as_deref(),
        a.batch.as_deref(),
    )
    .map_err(anyhow::Error::msg)?;
    let viewer = a.access.viewer(&a.coll, a.user.as_deref())?;
    let sort = SortOptions {
        memory: a.memory.bytes(8),
        tmp_dir: a.memory.tmp_dir.clone(),
        unique: false,
    };
    let index = if a.coll.join("pindexes").exists() {
        Some(warcdex::search::SearchIndex::open_released(&a.coll)?)
    } else {
        None
    };
    let filter = match &a.query {
        None => None,
        Some(q) => {
            let Some(index) = &index else {
                anyhow::bail!("--query needs the collection's search index (pindexes/)");
            };
            let Some((selection, _)) = super::counted_selection(index, q, viewer.clone())? else {
                return Ok(2);
            };
            Some(KeyFilter::of_matches(index, &selection, sort.clone())?)
        }
    };
    let opts = FeedOptions {
        window,
        label,
        prefix: a.prefix.clone(),
        limit: a.limit,
        sort,
    };
    let feed = collect(&collection, index.as_ref(), &opts, viewer.as_ref(), filter)?;
    let name = collection.dir_name().unwrap_or_default();
    super::with_output(a.output.output.as_deref(), |out| {
        match a.format.as_str() {
            "jsonl" => write_jsonl(&feed, out)?,
            "atom" => write_atom(&feed, &name, "", "/changes", out)?,
            _ => write_json(&feed, &name, out)?,
        }
        Ok(())
    })?;
    let c = feed.counts;
    eprintln!(
        "changes: {}: {} changed, {} new, {} gone, of {} URLs read{}{}",
        feed.label,
        c.changed,
        c.new,
        c.gone,
        c.urls,
        if feed.truncated() {
            " (--limit: the first of each listed)"
        } else {
            ""
        },
        if feed.bad_lines > 0 {
            format!("; {} lines not CDX", feed.bad_lines)
        } else {
            String::new()
        },
    );
    Ok(0)
}
