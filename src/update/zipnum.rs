//! `update --zipnum`: the collection keeps a ZipNum cluster of `all.cdx`
//! ([`crate::cdx_writer::zipnum`]) for a replay server, written again with every batch.
//!
//! The cluster a server reads is `zipnum/`, a symbolic link to `.zipnum/<name>`, moved
//! in one rename as `pindexes` is: a batch stages the cluster of its `all.cdx` under
//! `.staging/zipnum` ([`stage`]), and publishing moves it to `.zipnum/<batch>` and the
//! link to it ([`publish`]); both steps can run twice, so a killed run is finished by
//! the next. `collection.json` records the settings (`zipnum`), so later batches keep
//! the cluster without the flag.

use crate::collection::ALL_CDX;
use std::path::Path;

use super::error::Result;
use super::files::{self, move_into_place};
use crate::cdx_writer::zipnum::{write_zipnum, ZipNumReport};
use crate::collection::layout::{Layout, Staging};
use crate::collection::manifest::{write_manifest, CollectionManifest, ZipNumSettings};

/// Stage: the cluster of the staged `all.cdx`, unless an earlier run staged it.
pub fn stage(staging: &Staging, settings: ZipNumSettings) -> Result<Option<ZipNumReport>> {
    let dest = staging.zipnum();
    if dest.exists() {
        return Ok(None);
    }
    let report = write_zipnum(&staging.file(ALL_CDX), &dest, &settings.options())?;
    Ok(Some(report))
}

/// Publishing: the staged cluster moved to `.zipnum/<name>` and `zipnum` pointed at it;
/// nothing when the batch staged none. Then every other cluster is removed.
pub fn publish(layout: &Layout, staging: &Staging, name: &str) -> Result<()> {
    let cluster = layout.zipnum_cluster(name);
    if !staging.zipnum().exists() && !cluster.exists() {
        return Ok(());
    }
    move_into_place(&staging.zipnum(), &cluster)?;
    point_at(layout, name)
}

/// Moves the `zipnum` link to `.zipnum/<name>` and removes the clusters it no longer
/// names (a server keeps reading a file it opened; the next query opens the new ones).
fn point_at(layout: &Layout, name: &str) -> Result<()> {
    files::swap_symlink(&layout.zipnum(), &Path::new(".zipnum").join(name))?;
    let entries = match std::fs::read_dir(layout.zipnum_clusters()) {
        Ok(e) => e,
        Err(_) => return Ok(()),
    };
    for e in entries.flatten() {
        if e.file_name() != name {
            files::remove_any(&e.path())?;
        }
    }
    Ok(())
}

/// `update --zipnum` on a collection whose cluster is missing or cut otherwise (the
/// batch of this run, if any, already wrote it with `settings`): the cluster of the
/// current `all.cdx` written and swapped in, and `settings` recorded in
/// `collection.json`. A collection without `all.cdx` yet only records them.
pub fn keep(
    layout: &Layout,
    m: &mut CollectionManifest,
    settings: ZipNumSettings,
) -> Result<Option<ZipNumReport>> {
    if m.zipnum == Some(settings) && layout.zipnum().exists() {
        return Ok(None);
    }
    // Recorded first: a run killed before the new cluster is in place leaves the old
    // one to the next batch, which writes it again (never a cluster older than all.cdx
    // that no batch would replace).
    if m.zipnum != Some(settings) {
        m.zipnum = Some(settings);
        write_manifest(&layout.manifest(), m)?;
    }
    let all_cdx = layout.list(ALL_CDX);
    if !all_cdx.exists() {
        return Ok(None);
    }
    // A new name each time, so the link moves from one whole cluster to another.
    let base = m.batches.last().map(|b| b.name.clone()).unwrap_or_default();
    let name = (1..)
        .map(|k| format!("{base}-r{k}"))
        .find(|n| !layout.zipnum_cluster(n).exists())
        .expect("a free name");
    let report = write_zipnum(&all_cdx, &layout.zipnum_cluster(&name), &settings.options())?;
    point_at(layout, &name)?;
    Ok(Some(report))
}
