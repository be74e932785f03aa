//! Publishing a staged batch or compaction. The one step readers see is the last rename
//! of the `pindexes` link to the new generation; the steps after it move the CDX, lists,
//! segment and `collection.json` into place. Every step can be repeated (a run killed
//! here is finished by the next `update`, which finds `.staging/READY`).

use super::batch::StagedPlan;
use super::error::Result;
use super::files::{self, move_into_place};
use super::layout::{generation_name, Layout, Staging};

/// Publishes what `staging` holds for `plan` (see the module's text) and removes the
/// generations that no reader can still be opening: all but the new one and the one
/// before it (a `search` that resolved the link just before the swap reads that one).
pub fn publish(layout: &Layout, staging: &Staging, plan: &StagedPlan) -> Result<()> {
    let next = plan.base_generation + 1;
    let generation = layout.generation(next);
    move_into_place(&staging.generation(), &generation)?;
    let target = std::path::Path::new(".generations").join(generation_name(next));
    files::swap_symlink(&layout.pindexes(), &target)?;
    for a in &plan.archives {
        move_into_place(
            &staging.cdx(&a.name),
            &layout.cdx_dir().join(format!("{}.cdx", a.name)),
        )?;
    }
    if plan.kind == "batch" {
        move_into_place(&staging.segment(), &layout.segment(&plan.name))?;
    }
    for list in ["all.cdx", "all.dup", "all.rev"] {
        if staging.file(list).exists() {
            move_into_place(&staging.file(list), &layout.list(list))?;
        }
    }
    move_into_place(&staging.manifest(), &layout.manifest())?;
    files::remove_any(&staging.dir)?;
    if let Ok(entries) = std::fs::read_dir(layout.generations()) {
        for e in entries.flatten() {
            let keep = [generation_name(next), generation_name(plan.base_generation)];
            if !keep.iter().any(|k| e.file_name().to_string_lossy() == *k) {
                files::remove_any(&e.path())?;
            }
        }
    }
    Ok(())
}
