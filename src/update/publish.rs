//! Publishing a staged batch or compaction. The one step readers see is the last rename
//! of the `pindexes` link to the new generation; the steps after it move the CDX, lists,
//! segment, ZipNum cluster and `collection.json` into place. Every step can be repeated (a run killed
//! here is finished by the next `update`, which finds `.staging/READY`).

use super::batch::StagedPlan;
use super::error::Result;
use super::files::{self, move_into_place};
use crate::collection::layout::{generation_name, Layout, Staging};
use crate::collection::{ALL_CDX, ALL_DUP, ALL_REV};

/// Publishes what `staging` holds for `plan` (see the module's text) and removes the
/// generations that no reader can still be opening: all but the new one and the one
/// before it (a `search` that resolved the link just before the swap reads that one).
pub fn publish(layout: &Layout, staging: &Staging, plan: &StagedPlan) -> Result<()> {
    let next = plan.base_generation + 1;
    let generation = layout.generation(next);
    move_into_place(&staging.generation(), &generation)?;
    super::crash_point("publish-generation");
    let target = std::path::Path::new(".generations").join(generation_name(next));
    files::swap_symlink(&layout.pindexes(), &target)?;
    super::crash_point("publish-link");
    for a in &plan.archives {
        move_into_place(
            &staging.cdx(&a.name),
            &layout.cdx_dir().join(format!("{}.cdx", a.name)),
        )?;
        super::crash_point("publish-cdx");
    }
    if plan.kind == "batch" {
        move_into_place(&staging.segment(), &layout.segment(&plan.name))?;
        super::crash_point("publish-segment");
        let table = staging.file(super::batch::STAGED_CAPTURES);
        if table.exists() {
            move_into_place(&table, &super::captures::table_path(layout, &plan.name))?;
        }
    }
    // `all.pos` right after `all.cdx`, which it was made from: in between, a server
    // finds it older than `all.cdx` and makes its own.
    for list in [
        ALL_CDX,
        warcdex_cdx::positions::POSITIONS_FILE,
        ALL_DUP,
        ALL_REV,
    ] {
        if staging.file(list).exists() {
            move_into_place(&staging.file(list), &layout.list(list))?;
            super::crash_point("publish-lists");
        }
    }
    super::zipnum::publish(layout, staging, &plan.name)?;
    super::crash_point("publish-zipnum");
    move_into_place(&staging.manifest(), &layout.manifest())?;
    super::crash_point("publish-manifest");
    // READY first: removing the folder is not one step, and a run killed in it had left
    // READY without `plan.json`, which the next run could neither finish nor drop (found
    // by the test that kills runs at random moments). Without READY, the next run drops
    // what is left (its plan is of an older generation).
    files::remove_any(&staging.ready())?;
    files::remove_any(&staging.dir)?;
    super::crash_point("published");
    remove_old_generations(layout, next)
}

/// Removes every generation but `current` and the one before it (a `search` that
/// resolved the `pindexes` link just before it moved may still be opening that one).
pub fn remove_old_generations(layout: &Layout, current: u64) -> Result<()> {
    let keep = [
        generation_name(current),
        generation_name(current.saturating_sub(1)),
    ];
    if let Ok(entries) = std::fs::read_dir(layout.generations()) {
        for e in entries.flatten() {
            if !keep.iter().any(|k| e.file_name().to_string_lossy() == *k) {
                files::remove_any(&e.path())?;
            }
        }
    }
    Ok(())
}
