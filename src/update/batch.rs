//! One batch of `update`, built under `.staging/` one stage at a time. Each stage writes
//! its outputs under temporary names and is skipped when they are already there, so a
//! run killed at any point and started again with the same archives goes on where it
//! stopped and builds the same batch.
//!
//! 1. `cdx/<archive>.cdx`: each new archive's sorted CDX (archives in parallel).
//! 2. `all.cdx`: the collection's CDX and the batch's, merged ([`super::lists`]); then
//!    beside each other `all.pos` (where each capture lies) and the lists of 3; after them
//!    `zipnum/`, its ZipNum cluster, when the collection keeps one ([`super::zipnum`]).
//! 3. `all.dup`, `all.rev`: the collection's lists; `batch.dup`: the batch's captures that
//!    are not new versions ([`super::identity`]); `batch.rev`: its revisits;
//!    `batch.dates` (`batch.dup` + `batch.rev`: dates for the earlier sets) and
//!    `new.dates` (`batch.dup` + `all.rev` + `batch.rev`: dates for the batch's own set).
//!    The dates lists name each batch capture's collection in a fifth field, so that a
//!    version belongs to every collection it was captured in.
//! 4. `segment/`: `import -e batch.dup` of the new archives.
//! 5. `generation/`: the next generation of parallel sets ([`build_generation`]); beside
//!    its index, `captures.parquet`, the batch's capture table ([`super::captures`]).
//! 6. `collection.json` and `READY`; then [`super::publish`].

use crate::progress::Unit;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::captures::{write_staged_table, TableArchive};
use super::error::{Error, Result};
use super::files::{self, write_with};
use super::plan::GivenArchive;
use super::set_build::{dates_options, index_and_dates, with_first_pass};
use super::{Stages, UpdateOptions};
use crate::cdx_writer::run::{run_cdx, RunOptions};
use crate::collection::layout::{Layout, Staging};
use crate::collection::manifest::{ArchiveEntry, BatchEntry, CollectionManifest};
use crate::dates::add::{add_dates, DatesInput};
use crate::import::manifest::ManifestEntry;
use crate::import::{import_versions, load_exclusions, segment_dir, ImportOptions};
use crate::index::first_pass::LinksOfSegment;
use crate::path_error::ResultAtPath;
use crate::segment::layout::ExclusionsInfo;

/// The batch's capture table while it is staged (`captures/<batch>.parquet` once
/// published).
pub(super) const STAGED_CAPTURES: &str = "captures.parquet";

/// What is being built under `.staging/`: a resumed run goes on with it only if it is
/// what the run would build anew.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StagedPlan {
    /// `batch` or `compact`.
    pub kind: String,
    /// The batch's name, or the compacted set's.
    pub name: String,
    /// The generation current when it was planned (the next one is this + 1).
    pub base_generation: u64,
    /// The archives of a batch.
    pub archives: Vec<GivenArchive>,
    /// Each archive's `collection:` (by name).
    pub collections: BTreeMap<String, String>,
}

/// Reads `.staging/plan.json`.
pub fn read_plan(staging: &Staging) -> Result<StagedPlan> {
    let p = staging.plan();
    let text = std::fs::read_to_string(&p).at(&p)?;
    Ok(serde_json::from_str(&text).at(&p)?)
}

/// Keeps `.staging/` when it holds `plan`'s work, else starts it anew for `plan`.
pub fn prepare(staging: &Staging, plan: &StagedPlan) -> Result<bool> {
    if staging.dir.exists() {
        if read_plan(staging).ok().as_ref() == Some(plan) {
            return Ok(true);
        }
        files::remove_any(&staging.dir)?;
    }
    std::fs::create_dir_all(&staging.dir).at(&staging.dir)?;
    let json = serde_json::to_string_pretty(plan).at(&staging.plan())?;
    files::write_file(&staging.plan(), (json + "\n").as_bytes())?;
    Ok(false)
}

/// What a batch did.
pub struct BatchOutcome {
    /// Its record in `collection.json`.
    pub entry: BatchEntry,
    /// Archives with anomalies or damage: name, anomalies by kind, the error.
    pub anomalies: Vec<(String, BTreeMap<String, u64>, Option<String>)>,
    /// The ZipNum cluster this run wrote, if it wrote one.
    pub zipnum: Option<crate::cdx_writer::zipnum::ZipNumReport>,
}

/// Counts of stage 5, kept beside the generation for a resumed run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct GenerationCounts {
    dates_added_to_earlier: u64,
    new_versions: u64,
}

/// Builds and publishes one batch of `new` archives.
pub fn run(
    layout: &Layout,
    m: &CollectionManifest,
    new: &[GivenArchive],
    collections: &BTreeMap<String, Option<String>>,
    opts: &UpdateOptions,
    stages: &dyn Stages,
) -> Result<BatchOutcome> {
    let staging = layout.staging_area();
    let plan = StagedPlan {
        kind: "batch".into(),
        name: m.next_batch_name(),
        base_generation: m.generation,
        archives: new.to_vec(),
        collections: new
            .iter()
            .map(|a| {
                let c = collections.get(&a.path).cloned().flatten();
                (a.name.clone(), c.unwrap_or_else(|| opts.collection.clone()))
            })
            .collect(),
    };
    if prepare(&staging, &plan)? {
        stages.message(&format!(
            "resuming {}: the stages an earlier run finished are kept",
            plan.name
        ));
    }
    let sort = opts.sort_options();
    super::crash_point("planned");
    let clean = stage_cdx(&staging, new, opts, stages)?;
    super::crash_point("cdx");
    super::lists::stage_merge(layout, &staging, new)?;
    super::crash_point("merge");
    super::lists::stage_positions_and_lists(layout, &staging, new, &plan.collections, &sort)?;
    super::crash_point("lists");
    let zipnum_settings = opts.zipnum.or(m.zipnum);
    let zipnum = match zipnum_settings {
        Some(z) => super::zipnum::stage(&staging, z)?,
        None => None,
    };
    super::crash_point("zipnum");
    let (segment, links) = stage_import(layout, &staging, &plan, &clean, opts, stages)?;
    super::crash_point("import");
    let counts = stage_generation(layout, m, &staging, &plan, opts, stages, links)?;
    super::crash_point("generation");
    // Stage 6: the manifest after this batch, then READY.
    let mut next = m.clone();
    let mut anomalies = Vec::new();
    let mut entry = BatchEntry {
        name: plan.name.clone(),
        archives: new.len() as u64,
        captures: 0,
        new_versions: counts.new_versions,
        dates_added_to_earlier: counts.dates_added_to_earlier,
        revisits: count_lines(&staging.file("batch.rev"))?,
        anomalies: 0,
    };
    for (a, src) in new.iter().zip(&segment.sources) {
        let captures = count_cdx_lines(&staging.cdx(&a.name))?;
        entry.captures += captures;
        let n: u64 = src.anomalies.values().sum();
        entry.anomalies += n;
        if n > 0 || src.error.is_some() {
            anomalies.push((a.name.clone(), src.anomalies.clone(), src.error.clone()));
        }
        next.archives.push(ArchiveEntry {
            name: a.name.clone(),
            path: layout.recorded_path(Path::new(&a.path))?,
            size: a.size,
            sha1: a.sha1.clone(),
            collection: plan.collections.get(&a.name).cloned().unwrap_or_default(),
            batch: plan.name.clone(),
            records: src.records,
            captures,
            imported: src.imported,
            excluded: src.excluded,
            anomalies: src.anomalies.clone(),
            error: src.error.clone(),
        });
    }
    next.batches.push(entry.clone());
    next.zipnum = zipnum_settings;
    next.generation = plan.base_generation + 1;
    next.pindexes = generation_sets(&staging.generation())?;
    crate::collection::manifest::write_manifest(&staging.manifest(), &next)?;
    super::crash_point("manifest");
    files::write_file(&staging.ready(), b"ready\n")?;
    super::crash_point("ready");
    super::publish::publish(layout, &staging, &plan)?;
    Ok(BatchOutcome {
        entry,
        anomalies,
        zipnum,
    })
}

/// Stage 1: each archive's sorted CDX, several archives at once. Returns the names of
/// the archives this run read without any anomaly or damage (not those whose CDX an
/// earlier run made): the import may pass over their excluded records.
fn stage_cdx(
    staging: &Staging,
    new: &[GivenArchive],
    opts: &UpdateOptions,
    stages: &dyn Stages,
) -> Result<BTreeSet<String>> {
    use rayon::prelude::*;
    let todo: Vec<&GivenArchive> = new
        .iter()
        .filter(|a| !staging.cdx(&a.name).exists())
        .collect();
    let bar = stages.stage("cdx", todo.iter().map(|a| a.size).sum(), Unit::Bytes);
    let jobs = archives_at_once(todo.len(), opts.jobs);
    let run_opts = RunOptions {
        sort: true,
        sort_memory: (opts.memory / 2 / jobs).max(1 << 20),
        tmp_dir: opts.tmp_dir.clone(),
        jobs: 1,
        ..RunOptions::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(std::io::Error::other)?;
    let clean = std::sync::Mutex::new(BTreeSet::new());
    pool.install(|| {
        todo.par_iter().try_for_each(|a| -> Result<()> {
            let dest = staging.cdx(&a.name);
            write_with(&dest, |out| {
                let mut log = |m: &str| stages.message(m);
                let r = run_cdx(&[PathBuf::from(&a.path)], &run_opts, out, &*bar, &mut log)
                    .at(Path::new(&a.path))?;
                if r.unopened > 0 {
                    return Err(Error::NotAnArchive(a.path.clone()));
                }
                if r.damaged == 0 && r.total.error.is_none() && r.total.counts.total() == 0 {
                    clean.lock().expect("clean list").insert(a.name.clone());
                }
                Ok(())
            })?;
            super::crash_point("cdx-archive");
            Ok(())
        })
    })?;
    bar.finish();
    Ok(clean.into_inner().expect("clean list"))
}

/// How many archives the cdx stage reads at once, for `jobs` cores: all of them up to
/// twice the cores, else one a core. Each archive is inflated on one thread, so three on
/// two cores took two archives' time, the last alone on a core; run together they share
/// both (the bench's three crawls: 0.7 -> 0.5 s). Past twice the cores, the last one
/// alone is a small part of the whole.
fn archives_at_once(archives: usize, jobs: usize) -> usize {
    let jobs = jobs.max(1);
    if archives <= 2 * jobs {
        archives.max(1)
    } else {
        jobs
    }
}

/// Stage 4: the segment of the batch's new versions.
fn stage_import(
    layout: &Layout,
    staging: &Staging,
    plan: &StagedPlan,
    clean: &BTreeSet<String>,
    opts: &UpdateOptions,
    stages: &dyn Stages,
) -> Result<(
    crate::segment::layout::SegmentManifest,
    Option<LinksOfSegment>,
)> {
    let dest = staging.segment();
    if dest.exists() {
        // Resumed: `index` reads the segment for its first pass.
        return Ok((crate::segment::layout::read_manifest(&dest)?, None));
    }
    let mut iopts = ImportOptions {
        memory: opts.memory / 4 * 3,
        tmp_dir: opts.tmp_dir.clone(),
        // Rows name their archive as `collection.json` does (`Layout::recorded_path`):
        // relative to the collection inside it, else absolute (the plan's paths are).
        archive_base: Some(layout.dir.clone()),
        ..ImportOptions::default()
    };
    let batch_dup = staging.file("batch.dup");
    let exclusions =
        load_exclusions(&batch_dup, iopts.key, &mut |m| stages.message(m)).at(&batch_dup)?;
    let jobs = opts.jobs.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(std::io::Error::other)?;
    let spans = pool.install(|| {
        use rayon::prelude::*;
        plan.archives
            .par_iter()
            .filter(|a| clean.contains(&a.name))
            .map(|a| -> Result<_> {
                let (cdx, path) = (staging.cdx(&a.name), PathBuf::from(&a.path));
                let spans =
                    super::excluded_spans::excluded_spans(&cdx, &path, &exclusions, &iopts.status)
                        .at(&cdx)?;
                Ok((path, spans))
            })
            .collect::<Vec<Result<_>>>()
    });
    // The first failure in the plan's order, whichever thread met it first.
    let spans = spans.into_iter().collect::<Result<Vec<_>>>()?;
    iopts.excluded_spans.extend(spans);
    let entries: Vec<ManifestEntry> = plan
        .archives
        .iter()
        .enumerate()
        .map(|(i, a)| ManifestEntry {
            path: PathBuf::from(&a.path),
            collection: plan.collections.get(&a.name).cloned(),
            line: i as u64 + 1,
        })
        .collect();
    let bar = stages.stage(
        "import",
        plan.archives.iter().map(|a| a.size).sum(),
        Unit::Bytes,
    );
    let sizes: BTreeMap<PathBuf, u64> = plan
        .archives
        .iter()
        .map(|a| (PathBuf::from(&a.path), a.size))
        .collect();
    // The cdx stage showed each archive's problems already; their counts come from here.
    let (versions, sources) = pool.install(|| {
        import_versions(
            &entries,
            Some(&exclusions),
            &iopts,
            &|p| bar.advance(sizes.get(p).copied().unwrap_or(0)),
            &|_| {},
        )
    });
    bar.finish();
    if opts.strict {
        let bad: Vec<String> = sources
            .iter()
            .filter(|s| s.error.is_some() || s.anomalies.values().sum::<u64>() > 0)
            .map(|s| s.path.clone())
            .collect();
        if !bad.is_empty() {
            files::remove_any(&staging.dir)?;
            return Err(Error::Strict(format!(
                "damage or anomalies in {}",
                bad.join(", ")
            )));
        }
    }
    // `segment.json` names each archive as the rows and `collection.json` do, not by
    // the absolute path the run read it from.
    let mut sources = sources;
    for (s, a) in sources.iter_mut().zip(&plan.archives) {
        s.path = layout.recorded_path(Path::new(&a.path))?;
    }
    let info = ExclusionsInfo {
        path: "batch.dup".into(),
        entries: exclusions.len() as u64,
        malformed: exclusions.malformed,
    };
    with_first_pass(&dest, iopts.key, opts, |then| {
        segment_dir::write_imported_then(&dest, versions, sources, &iopts, Some(info), then)
    })
}

/// Stage 5: the next generation, built in `generation.tmp/` and renamed to
/// `generation/`: the batch's set (its segment indexed, its dates from `new.dates`),
/// and each set of the current generation, linked file by file, with a new dates index
/// where `batch.dates` adds dates to it.
fn stage_generation(
    layout: &Layout,
    m: &CollectionManifest,
    staging: &Staging,
    plan: &StagedPlan,
    opts: &UpdateOptions,
    stages: &dyn Stages,
    links: Option<LinksOfSegment>,
) -> Result<GenerationCounts> {
    let sort = &opts.sort_options();
    let counts_file = staging.file("generation.json");
    if staging.generation().exists() {
        let text = std::fs::read_to_string(&counts_file).at(&counts_file)?;
        return Ok(serde_json::from_str(&text).at(&counts_file)?);
    }
    let tmp = staging.generation_tmp();
    files::remove_any(&tmp)?;
    std::fs::create_dir_all(&tmp).at(&tmp)?;
    let mut counts = GenerationCounts::default();
    let set = tmp.join(&plan.name);
    let table = staging.file(STAGED_CAPTURES);
    let info = std::thread::scope(|scope| {
        // The batch's capture table beside the index, which leaves a core idle for a
        // while (its one indexing thread); published with the batch. Should it fail,
        // `captures::keep` writes it after publishing, as for a batch without one.
        let staged = (!table.exists()).then(|| {
            scope.spawn(|| {
                let archives: Vec<TableArchive> = (plan.archives.iter())
                    .map(|a| TableArchive {
                        cdx: staging.cdx(&a.name),
                        path: PathBuf::from(&a.path),
                        collection: plan.collections.get(&a.name).cloned().unwrap_or_default(),
                    })
                    .collect();
                let segment = staging.segment();
                let made = write_staged_table(layout, &segment, &plan.name, &archives, &table);
                if made.is_err() {
                    let _ = files::remove_any(&table);
                }
                made
            })
        });
        let info = index_and_dates(
            &staging.segment(),
            &set.join("main"),
            &set.join("dates"),
            &DatesInput::File(staging.file("new.dates")),
            opts,
            stages,
            links,
        );
        let failed = match staged.map(|h| h.join()) {
            Some(Ok(Err(e))) => Some(e.to_string()),
            Some(Err(panic)) => Some(format!(
                "its writer panicked: {}",
                (panic.downcast_ref::<&str>().copied())
                    .or(panic.downcast_ref::<String>().map(String::as_str))
                    .unwrap_or("no message")
            )),
            _ => None,
        };
        // Said only when the batch goes on to be published.
        if let (Some(why), true) = (failed, info.is_ok()) {
            stages.message(&format!(
                "the batch's capture table was not written beside its index ({why}); it is written after publishing"
            ));
        }
        info
    })?;
    super::crash_point("index");
    counts.new_versions = info.documents;
    let dopts = dates_options(sort);
    // The earlier sets' dates indexes, where the batch's lists add dates to them.
    let bar = (!m.pindexes.is_empty()).then(|| stages.stage("earlier dates", 0, Unit::Bytes));
    let current = layout.generation(m.generation);
    let batch_dates = staging.file("batch.dates");
    let has_dates = std::fs::metadata(&batch_dates).at(&batch_dates)?.len() > 0;
    for name in &m.pindexes {
        let (from, to) = (current.join(name), tmp.join(name));
        if has_dates {
            let new_dates = staging.file(&format!("dates-{name}"));
            files::remove_any(&new_dates)?;
            let r = add_dates(
                &from.join("main"),
                &[from.join("dates")],
                &new_dates,
                &DatesInput::File(batch_dates.clone()),
                &dopts,
            )?;
            if r.info.counts.dates_added > 0 || r.info.counts.collections_added > 0 {
                counts.dates_added_to_earlier += r.info.counts.dates_added;
                files::link_tree(&from.join("main"), &to.join("main"))?;
                files::move_into_place(&new_dates, &to.join("dates"))?;
                continue;
            }
            files::remove_any(&new_dates)?;
        }
        files::link_tree(&from, &to)?;
    }
    if let Some(bar) = bar {
        bar.finish();
    }
    let json = serde_json::to_string(&counts).at(&counts_file)?;
    files::write_file(&counts_file, json.as_bytes())?;
    crate::output::sync_tree(&tmp)?;
    files::move_into_place(&tmp, &staging.generation())?;
    Ok(counts)
}

/// The set names of a generation, in order.
pub fn generation_sets(dir: &Path) -> Result<Vec<String>> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .at(dir)?
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    Ok(out)
}

/// Lines of a file.
fn count_lines(p: &Path) -> Result<u64> {
    let f = std::fs::File::open(p).at(p)?;
    let mut n = 0;
    for l in BufReader::new(f).split(b'\n') {
        l.at(p)?;
        n += 1;
    }
    Ok(n)
}

/// CDX lines of a file, its legend not counted.
fn count_cdx_lines(p: &Path) -> Result<u64> {
    let f = std::fs::File::open(p).at(p)?;
    let mut n = 0;
    for l in BufReader::new(f).split(b'\n') {
        if !l.at(p)?.starts_with(b" CDX") {
            n += 1;
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::archives_at_once;

    #[test]
    fn archives_share_the_cores_until_twice_their_count() {
        // (archives, cores) -> archives read at once
        for (n, jobs, want) in [
            (0, 2, 1),
            (1, 2, 1),
            (3, 2, 3),
            (4, 2, 4),
            (5, 2, 2),
            (8, 4, 8),
            (9, 4, 4),
        ] {
            assert_eq!(
                archives_at_once(n, jobs),
                want,
                "{n} archives, {jobs} cores"
            );
        }
        assert_eq!(archives_at_once(2, 0), 2);
        assert_eq!(archives_at_once(3, 0), 1);
    }
}
