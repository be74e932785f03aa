//! `update --compact`: every batch's segment indexed again into one set, `compacted`,
//! with anchors and link scores over the whole collection, and its dates from the
//! collection's `all.dup` and `all.rev`: what a one-shot build of every archive gives
//! (the steps of scripts/example.sh), and every version's collections from the capture
//! tables. It replaces every set in one generation swap.

use crate::collection::{ALL_DUP, ALL_REV};
use crate::progress::Unit;
use std::path::PathBuf;

use super::batch::{prepare, StagedPlan};
use super::error::Result;
use super::files;
use super::set_build::{dates_options, index_segments};
use super::{Stages, UpdateOptions};
use crate::collection::layout::Layout;
use crate::collection::manifest::{write_manifest, CollectionManifest, CompactionEntry};
use crate::dates::add::{add_dates, DatesInput};

/// The compacted set's name.
pub const COMPACTED: &str = "compacted";

/// Compacts the collection `m` describes; returns its record (no documents and nothing
/// changed when the collection has no batch yet).
pub fn run(
    layout: &Layout,
    m: &CollectionManifest,
    opts: &UpdateOptions,
    stages: &dyn Stages,
) -> Result<CompactionEntry> {
    let mut entry = CompactionEntry {
        pindex: COMPACTED.into(),
        batches: m.batches.len() as u64,
        documents: 0,
    };
    if m.batches.is_empty() {
        stages.message("nothing to compact: the collection has no batch yet");
        return Ok(entry);
    }
    let staging = layout.staging_area();
    let plan = StagedPlan {
        kind: "compact".into(),
        name: COMPACTED.into(),
        base_generation: m.generation,
        archives: Vec::new(),
        collections: Default::default(),
    };
    prepare(&staging, &plan)?;
    let sort = opts.sort_options();
    if !staging.generation().exists() {
        let tmp = staging.generation_tmp();
        files::remove_any(&tmp)?;
        let set = tmp.join(COMPACTED);
        let segments: Vec<PathBuf> = m.batches.iter().map(|b| layout.segment(&b.name)).collect();
        index_segments(&segments, &set.join("main"), opts, stages)?;
        let bar = stages.stage("dates", 0, Unit::Bytes);
        let dopts = dates_options(&sort);
        let first = staging.file("dates-dup");
        files::remove_any(&first)?;
        add_dates(
            &set.join("main"),
            &[set.join("main")],
            &first,
            &DatesInput::File(layout.list(ALL_DUP)),
            &dopts,
        )?;
        let second = staging.file("dates-rev");
        files::remove_any(&second)?;
        add_dates(
            &set.join("main"),
            std::slice::from_ref(&first),
            &second,
            &DatesInput::File(layout.list(ALL_REV)),
            &dopts,
        )?;
        let collections = staging.file("collections.dates");
        super::captures::collection_dates(layout, m, stages, &collections, sort.clone())?;
        add_dates(
            &set.join("main"),
            std::slice::from_ref(&second),
            &set.join("dates"),
            &DatesInput::File(collections.clone()),
            &dopts,
        )?;
        files::remove_any(&second)?;
        files::remove_any(&collections)?;
        files::remove_any(&first)?;
        bar.finish();
        crate::output::sync_tree(&tmp)?;
        files::move_into_place(&tmp, &staging.generation())?;
    }
    let main = staging.generation().join(COMPACTED).join("main");
    entry.documents = crate::pindex::info::read_main_info(&main)?.documents;
    let mut next = m.clone();
    next.generation = plan.base_generation + 1;
    next.pindexes = vec![COMPACTED.into()];
    next.compactions.push(entry.clone());
    write_manifest(&staging.manifest(), &next)?;
    files::write_file(&staging.ready(), b"ready\n")?;
    super::publish::publish(layout, &staging, &plan)?;
    Ok(entry)
}
