//! `warcdex update`: a collection that grows one batch of archives at a time, as Nutch's
//! `update` grew a crawl and pywb's `wb-manager add` grows a replay collection.
//!
//! One run is one batch: the new archives' CDX is merged into the collection's, identity
//! is decided across the whole collection ([`identity`]), only versions new to the
//! collection are imported and indexed into a new parallel set, and the dates of the
//! batch's other captures and revisits are added to the sets of earlier batches. Every
//! step writes under `.staging/` ([`layout`]); the batch becomes visible when the
//! `pindexes` link moves to the new generation ([`publish`]). The run is locked, skips
//! archives it already holds, and after a crash at any point the same command finishes
//! the same batch. [`compact`] indexes every segment again into one set, with link
//! analysis over the whole collection.

pub mod batch;
pub mod captures;
pub mod compact;
pub mod error;
pub mod excluded_spans;
pub mod files;
pub mod identity;
mod lists;

pub mod plan;
pub mod publish;
mod set_build;
pub mod zipnum;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::collection::layout::{self, Layout};
use crate::collection::manifest::{
    self, read_manifest, write_manifest, CollectionManifest, CompactionEntry,
};
pub use error::{Error, Result};

use crate::output::OutputLock;
use crate::progress::{Progress, Unit};

/// How to update.
#[derive(Debug, Clone)]
pub struct UpdateOptions {
    /// Memory budget in bytes for every step (each step runs alone, within it).
    pub memory: usize,
    /// Where sorts spill (default: the system's temporary directory).
    pub tmp_dir: Option<PathBuf>,
    /// Archives read at once.
    pub jobs: usize,
    /// Fail at once when another `update` holds the collection, instead of waiting.
    pub no_wait: bool,
    /// Refuse the batch when an archive is damaged or has anomalies.
    pub strict: bool,
    /// After the batch (if any), index every segment again into one set.
    pub compact: bool,
    /// The `collection:` of documents whose archive names none.
    pub collection: String,
    /// Keep a ZipNum cluster of `all.cdx` cut this way (`--zipnum`); recorded in
    /// `collection.json`, so later runs keep it without being told.
    pub zipnum: Option<manifest::ZipNumSettings>,
}

impl UpdateOptions {
    /// The sorts' share of the budget: half (the other half is the reading, parsing and
    /// index-writing of the stage the sort belongs to).
    pub fn sort_options(&self) -> warcdex_cdx::sort::SortOptions {
        warcdex_cdx::sort::SortOptions {
            memory: self.memory / 2,
            tmp_dir: self.tmp_dir.clone(),
            unique: false,
        }
    }
}

/// One archive to add, as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveArg {
    /// The path.
    pub path: PathBuf,
    /// Its `collection:` when it names one (a `--from` line `PATH COLLECTION`).
    pub collection: Option<String>,
}

/// Where `update` shows its progress and messages.
pub trait Stages: Sync {
    /// A progress display for a stage of `total` in `unit` (0: not known).
    fn stage(&self, name: &str, total: u64, unit: Unit) -> Box<dyn Progress + '_>;
    /// A message (a problem with an archive, a skipped archive).
    fn message(&self, m: &str);
}

/// Stages shown nowhere.
impl Stages for () {
    fn stage(&self, _: &str, _: u64, _: Unit) -> Box<dyn Progress + '_> {
        Box::new(())
    }
    fn message(&self, _: &str) {}
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct UpdateReport {
    /// The batch added, if any archive was new.
    pub batch: Option<manifest::BatchEntry>,
    /// A batch that an earlier, interrupted run had built and this run published first.
    pub finished_earlier: Option<String>,
    /// Archives added (file names).
    pub added: Vec<String>,
    /// Archives already in the collection (absolute paths).
    pub skipped: Vec<String>,
    /// Archives refused because they cannot be read (path as given, why): not recorded
    /// in `collection.json`, not imported.
    pub refused: Vec<(String, String)>,
    /// Archives added with anomalies or damage: name, anomalies by kind, the error.
    pub anomalies: Vec<(String, BTreeMap<String, u64>, Option<String>)>,
    /// The compaction, if one ran.
    pub compaction: Option<CompactionEntry>,
    /// The ZipNum cluster, if this run wrote one.
    pub zipnum: Option<crate::cdx_writer::zipnum::ZipNumReport>,
}

/// The collection's lock file, held for the whole run.
fn lock(layout: &Layout, no_wait: bool) -> Result<OutputLock> {
    Ok(OutputLock::acquire(&layout.manifest(), no_wait)?)
}

/// Opens the collection (making it on first use): its manifest, with any batch that an
/// interrupted run had finished building published first.
fn open(
    layout: &Layout,
    stages: &dyn Stages,
    report: &mut UpdateReport,
) -> Result<CollectionManifest> {
    let dir = &layout.dir;
    std::fs::create_dir_all(dir).map_err(|e| files::at(e, dir))?;
    let m = match read_manifest(dir)? {
        Some(m) => m,
        None => {
            let lock_name = crate::output::lock_path(&layout.manifest());
            let foreign = std::fs::read_dir(dir)
                .map_err(|e| files::at(e, dir))?
                .flatten()
                .any(|e| e.path() != lock_name);
            if foreign {
                return Err(Error::NotACollection(dir.clone()));
            }
            let m = CollectionManifest::new();
            write_manifest(&layout.manifest(), &m)?;
            m
        }
    };
    let staging = layout.staging_area();
    if staging.ready().exists() {
        let plan = batch::read_plan(&staging)?;
        stages.message(&format!(
            "finishing {}, built by an earlier run that stopped while publishing it",
            plan.name
        ));
        publish::publish(layout, &staging, &plan)?;
        report.finished_earlier = Some(plan.name);
        return Ok(read_manifest(dir)?.unwrap_or(m));
    }
    // A run killed after publishing, before this cleanup, left one generation too many.
    publish::remove_old_generations(layout, m.generation)?;
    Ok(m)
}

/// Adds `archives` to the collection at `dir` as one batch (see the module's text), then
/// compacts it with `opts.compact`.
pub fn update(
    dir: &Path,
    archives: &[ArchiveArg],
    opts: &UpdateOptions,
    stages: &dyn Stages,
) -> Result<UpdateReport> {
    let mut report = UpdateReport::default();
    // Archives that cannot be read are refused before anything is made, so that a run
    // given only such files leaves no collection behind (it made one before failing).
    let mut readable = Vec::with_capacity(archives.len());
    for a in archives {
        match plan::unreadable(&a.path) {
            // Printed by the caller from the report only (a message here as well named
            // each refusal twice).
            Some(why) => report.refused.push((a.path.display().to_string(), why)),
            None => readable.push(a.clone()),
        }
    }
    if opts.strict {
        if let Some((_, why)) = report.refused.first() {
            return Err(Error::Strict(format!(
                "{} archives cannot be read ({why})",
                report.refused.len()
            )));
        }
    }
    if readable.is_empty() && !opts.compact && opts.zipnum.is_none() {
        return Ok(report);
    }
    let archives = &readable[..];
    let layout = Layout::new(dir);
    let _lock = lock(&layout, opts.no_wait)?;
    let mut m = open(&layout, stages, &mut report)?;
    let paths: Vec<PathBuf> = archives.iter().map(|a| a.path.clone()).collect();
    let total = files::total_size(&paths);
    let plan = {
        let bar = stages.stage("identify", total, Unit::Bytes);
        let p = plan::plan(&layout, &m, &paths, &*bar)?;
        bar.finish();
        p
    };
    for s in &plan.skipped {
        stages.message(&format!(
            "{}: already in the collection (same name, size and SHA-1); skipped",
            s.path
        ));
        report.skipped.push(s.path.clone());
    }
    if !plan.new.is_empty() {
        // Keyed as the plan names archives: by absolute path (every one exists: the
        // plan read them all).
        let collections: BTreeMap<String, Option<String>> = archives
            .iter()
            .map(|a| {
                let p = layout::absolute(&a.path)?;
                Ok((p.display().to_string(), a.collection.clone()))
            })
            .collect::<Result<_>>()?;
        let b = batch::run(&layout, &m, &plan.new, &collections, opts, stages)?;
        report.added = plan.new.iter().map(|a| a.name.clone()).collect();
        report.anomalies = b.anomalies;
        report.batch = Some(b.entry);
        report.zipnum = b.zipnum;
        m = read_manifest(dir)?.unwrap_or(m);
    } else {
        // A staged batch of other archives (an interrupted run given other files) is
        // not this run's: it is dropped, and its archives are added when given again.
        files::remove_any(&layout.staging())?;
    }
    if let Some(z) = opts.zipnum {
        if let Some(r) = zipnum::keep(&layout, &mut m, z)? {
            report.zipnum = Some(r);
        }
    }
    if opts.compact {
        report.compaction = Some(compact::run(&layout, &m, opts, stages)?);
    }
    // The capture table of the batch just published, and of any batch without one.
    let m = read_manifest(dir)?.unwrap_or(m);
    captures::keep(&layout, &m, stages)?;
    Ok(report)
}

/// Fault injection for the crash tests (tests/update.rs): when the environment variable
/// `WARCDEX_CRASH_AT` names this point, the process kills itself with SIGKILL here, as
/// `kill -9` would, so no destructor, flush or cleanup runs.
#[doc(hidden)]
pub fn crash_point(point: &str) {
    if std::env::var_os("WARCDEX_CRASH_AT").is_some_and(|v| v == point) {
        #[cfg(target_os = "linux")]
        // SAFETY: kill(2) on our own pid has no memory effects.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
        std::process::abort();
    }
}

/// Every point [`crash_point`] is called at, in the order a batch passes them.
#[doc(hidden)]
pub const CRASH_POINTS: &[&str] = &[
    "planned",
    "cdx-archive",
    "cdx",
    "merge",
    "lists",
    "zipnum",
    "import",
    "index",
    "generation",
    "manifest",
    "ready",
    "publish-generation",
    "publish-link",
    "publish-cdx",
    "publish-segment",
    "publish-lists",
    "publish-zipnum",
    "publish-manifest",
    "published",
];
