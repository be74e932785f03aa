//! Stages 2 and 3 of a batch ([`super::batch`]): the collection's CDX with the batch's
//! merged in, where each capture lies (`all.pos`), and the lists made from them.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use warcdex_cdx::dedup::{revisits, Input, ListOptions};
use warcdex_cdx::plumbing::merge_cdx_distinct;
use warcdex_cdx::positions::{write_positions, POSITIONS_FILE};
use warcdex_cdx::sort::{merge_sorted, SortOptions};

use super::error::Result;
use super::files::{self, write_with};
use super::plan::GivenArchive;
use crate::collection::layout::{Layout, Staging};
use crate::collection::{ALL_CDX, ALL_DUP, ALL_REV};
use crate::path_error::{AtPath, ResultAtPath};

/// Stages 2 and 3 after the merge: `all.pos` beside the lists (each a single-threaded
/// read and sort of the CDX: 0.05 and 0.1 s on the bench, one after the other before),
/// each sort given half of `sort`'s memory while both are to be made (a resumed run may
/// have made one).
pub(super) fn stage_positions_and_lists(
    layout: &Layout,
    staging: &Staging,
    new: &[GivenArchive],
    collections: &BTreeMap<String, String>,
    sort: &SortOptions,
) -> Result<()> {
    let both = !positions_made(staging) && !lists_made(staging);
    let each = SortOptions {
        memory: if both { sort.memory / 2 } else { sort.memory },
        ..sort.clone()
    };
    std::thread::scope(|scope| {
        let positions = scope.spawn(|| stage_positions(staging, &each));
        let lists = stage_lists(layout, staging, new, collections, &each);
        let positions = positions
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        lists.and(positions)
    })
}

/// Stage 2: `all.cdx`, the collection's sorted CDX with the batch's merged in, each
/// line once (a capture held under one file name by an earlier batch and by this one,
/// as a WARC and a WACZ holding it are, is one line).
pub(super) fn stage_merge(layout: &Layout, staging: &Staging, new: &[GivenArchive]) -> Result<()> {
    let dest = staging.file(ALL_CDX);
    if dest.exists() {
        return Ok(());
    }
    let mut inputs: Vec<PathBuf> = Vec::new();
    if layout.list(ALL_CDX).exists() {
        inputs.push(layout.list(ALL_CDX));
    }
    inputs.extend(new.iter().map(|a| staging.cdx(&a.name)));
    write_with(&dest, |out| {
        let readers = inputs
            .iter()
            .map(|p| -> Result<Box<dyn BufRead>> {
                let f = std::fs::File::open(p).at(p)?;
                Ok(Box::new(BufReader::with_capacity(1 << 16, f)))
            })
            .collect::<Result<Vec<_>>>()?;
        merge_cdx_distinct(readers, out).at(&dest)?;
        Ok(())
    })
}

/// Stage 2 too: `all.pos`, where each capture of the new `all.cdx` lies, by archive and
/// offset, which `serve` judges a byte range of an archive by under access rules
/// (`warcdex_cdx::positions`).
fn stage_positions(staging: &Staging, sort: &SortOptions) -> Result<()> {
    if positions_made(staging) {
        return Ok(());
    }
    let dest = staging.file(POSITIONS_FILE);
    let all_cdx = staging.file(ALL_CDX);
    write_with(&dest, |out| {
        let f = std::fs::File::open(&all_cdx).at(&all_cdx)?;
        let len = f.metadata().at(&all_cdx)?.len();
        write_positions(BufReader::with_capacity(1 << 16, f), len, out, sort.clone()).at(&dest)?;
        Ok(())
    })
}

/// Whether `all.pos` is made.
fn positions_made(staging: &Staging) -> bool {
    staging.file(POSITIONS_FILE).exists()
}

/// Whether stage 3 is done: its last list is made.
fn lists_made(staging: &Staging) -> bool {
    staging.file("new.dates").exists()
}

/// Stage 3: the lists.
fn stage_lists(
    layout: &Layout,
    staging: &Staging,
    new: &[GivenArchive],
    collections: &BTreeMap<String, String>,
    sort: &SortOptions,
) -> Result<()> {
    if lists_made(staging) {
        return Ok(());
    }
    let all_cdx = staging.file(ALL_CDX);
    // Identity reads the collection's CDX before the batch and the batch's own, not the
    // merged `all.cdx`: which captures are the batch's is known by where they come from
    // (a file name does not tell, see `identity::exclusions`).
    let earlier: Vec<PathBuf> = Some(layout.list(ALL_CDX))
        .filter(|p| p.exists())
        .into_iter()
        .collect();
    let batch: Vec<PathBuf> = new.iter().map(|a| staging.cdx(&a.name)).collect();
    let open = |paths: &[PathBuf]| -> Result<Vec<(PathBuf, BufReader<std::fs::File>)>> {
        paths
            .iter()
            .map(|p| {
                let f = std::fs::File::open(p).at(p)?;
                Ok((p.clone(), BufReader::with_capacity(1 << 16, f)))
            })
            .collect()
    };
    let (all_dup, batch_dup) = (staging.file(ALL_DUP), staging.file("batch.dup"));
    write_with(&all_dup, |w_all| {
        write_with(&batch_dup, |w_batch| {
            let (earlier, batch) = (open(&earlier)?, open(&batch)?);
            // A read error names the CDX file it came from; any other is the lists'.
            let named = |(path, inner)| NamedRead { path, inner };
            super::identity::exclusions(
                earlier.into_iter().map(named),
                batch.into_iter().map(named),
                sort.clone(),
                w_all,
                w_batch,
            )
            .at(&all_dup)?;
            Ok(())
        })
    })?;
    let list_opts = ListOptions {
        memory: sort.memory,
        tmp_dir: sort.tmp_dir.clone(),
        strict: false,
    };
    let all_rev = staging.file(ALL_REV);
    write_with(&all_rev, |w| {
        revisits(&[Input::File(all_cdx.clone())], w, &list_opts, &mut |_| {}).at(&all_rev)?;
        Ok(())
    })?;
    // Each archive's revisits, its collection appended (`URLKEY sha1:DIGEST DATE14 -
    // COLLECTION`), merged into `batch.rev`.
    let mut revs = Vec::with_capacity(new.len());
    for (i, a) in new.iter().enumerate() {
        let rev = staging.file(&format!("batch-{i}.rev"));
        let collection = collections.get(&a.name).map(String::as_str).unwrap_or("");
        write_with(&rev, |w| {
            let mut tagged = Suffixed::new(w, &[b"-", collection.as_bytes()]);
            revisits(
                &[Input::File(staging.cdx(&a.name))],
                &mut tagged,
                &list_opts,
                &mut |_| {},
            )
            .at(&rev)?;
            tagged.write_line().at(&rev)?;
            Ok(())
        })?;
        revs.push(rev);
    }
    let batch_rev = staging.file("batch.rev");
    merge_lists(
        &revs.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
        &batch_rev,
    )?;
    for r in &revs {
        files::remove_any(r)?;
    }
    // `batch.dup` with the collection of each line's archive (a WACZ's lines name its
    // WARCs): `batch.dup` itself stays the exclusion list `dedup-cdx` would write.
    let by_file = file_collections(new, collections);
    let dup_tagged = staging.file("batch.dup.collections");
    write_with(&dup_tagged, |w| {
        let f = std::fs::File::open(&batch_dup).at(&batch_dup)?;
        for line in BufReader::with_capacity(1 << 16, f).split(b'\n') {
            let line = line.at(&batch_dup)?;
            let file = line.split(|b| *b == b' ').nth(3).unwrap_or_default();
            let file = String::from_utf8_lossy(file);
            match by_file.get(file.as_ref()) {
                Some(cs) => {
                    for c in cs {
                        write_fields(w, &line, &[c.as_bytes()]).at(&dup_tagged)?;
                    }
                }
                None => write_fields(w, &line, &[]).at(&dup_tagged)?,
            }
        }
        Ok(())
    })?;
    merge_lists(&[&dup_tagged, &batch_rev], &staging.file("batch.dates"))?;
    merge_lists(
        &[&dup_tagged, &all_rev, &batch_rev],
        &staging.file("new.dates"),
    )?;
    files::remove_any(&dup_tagged)?;
    Ok(())
}

/// The collections of the CDX file names of the batch's archives: an archive file's own
/// name, or each WARC's in a WACZ (a name two archives share has both collections).
fn file_collections(
    new: &[GivenArchive],
    collections: &BTreeMap<String, String>,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for a in new {
        let Some(c) = collections.get(&a.name).filter(|c| !c.is_empty()) else {
            continue;
        };
        let names = match crate::reader::wacz::archive_parts(Path::new(&a.path)) {
            Ok(parts) => parts.iter().map(|p| p.filename()).collect(),
            Err(_) => vec![a.name.clone()],
        };
        for n in names {
            out.entry(n).or_default().insert(c.clone());
        }
    }
    out
}

/// Writes `line` with `fields` appended (empty ones left out), then its end; nothing for
/// an empty line.
fn write_fields(out: &mut dyn Write, line: &[u8], fields: &[&[u8]]) -> std::io::Result<()> {
    if line.is_empty() {
        return Ok(());
    }
    out.write_all(line)?;
    for f in fields.iter().filter(|f| !f.is_empty()) {
        out.write_all(b" ")?;
        out.write_all(f)?;
    }
    out.write_all(b"\n")
}

/// A writer that writes each line written to it with the same fields appended (as
/// [`write_fields`] appends them), for a list written by code that knows nothing of them.
struct Suffixed<'a> {
    out: &'a mut dyn Write,
    /// The fields, each after a space.
    suffix: Vec<u8>,
    /// The line being written, until its end comes.
    line: Vec<u8>,
}

impl<'a> Suffixed<'a> {
    fn new(out: &'a mut dyn Write, fields: &[&[u8]]) -> Self {
        let mut suffix = Vec::new();
        for f in fields.iter().filter(|f| !f.is_empty()) {
            suffix.push(b' ');
            suffix.extend_from_slice(f);
        }
        Suffixed {
            out,
            suffix,
            line: Vec::new(),
        }
    }

    /// Writes the line `line` holds (nothing for an empty one); also the last line,
    /// written without its end.
    fn write_line(&mut self) -> std::io::Result<()> {
        if !self.line.is_empty() {
            self.out.write_all(&self.line)?;
            self.out.write_all(&self.suffix)?;
            self.out.write_all(b"\n")?;
            self.line.clear();
        }
        Ok(())
    }
}

impl Write for Suffixed<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            self.line.extend_from_slice(&rest[..i]);
            self.write_line()?;
            rest = &rest[i + 1..];
        }
        self.line.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// A reader whose errors name its file (an [`AtPath`] inside the `io::Error`, keeping
/// the error as its source), for readers handed to code that knows no paths.
struct NamedRead<R> {
    path: PathBuf,
    inner: R,
}

impl<R> NamedRead<R> {
    fn named(&self, e: std::io::Error) -> std::io::Error {
        let kind = e.kind();
        std::io::Error::new(
            kind,
            AtPath {
                path: self.path.clone(),
                source: e,
            },
        )
    }
}

impl<R: std::io::Read> std::io::Read for NamedRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf).map_err(|e| self.named(e))
    }
}

impl<R: BufRead> BufRead for NamedRead<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        // Not `map_err` on the borrow: the error path needs `self` again.
        if let Err(e) = self.inner.fill_buf() {
            return Err(self.named(e));
        }
        self.inner.fill_buf()
    }
    fn consume(&mut self, n: usize) {
        self.inner.consume(n)
    }
}

/// Merges sorted lists into one sorted list `dest`.
fn merge_lists(inputs: &[&Path], dest: &Path) -> Result<()> {
    write_with(dest, |out| {
        let readers = inputs
            .iter()
            .map(|p| {
                let f = std::fs::File::open(p).at(p)?;
                Ok(BufReader::with_capacity(1 << 16, f))
            })
            .collect::<Result<Vec<_>>>()?;
        merge_sorted(readers, false, |line| {
            out.write_all(line)?;
            out.write_all(b"\n")
        })
        .at(dest)?;
        Ok(())
    })
}
