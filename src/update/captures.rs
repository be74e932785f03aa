//! The capture table: `captures/<batch>.parquet`, one row per capture (each line of the
//! batch's archives' CDX, revisits included), the way Common Crawl's columnar index lays
//! out its captures, for DuckDB, Spark or pandas: `SELECT year(capture_time), count(*)
//! FROM 'COLL/captures/*.parquet' GROUP BY 1` counts what `all.cdx` holds.
//!
//! Columns (no name a reserved word of SQL, no value that needs a cast): `url`, `surt`,
//! `host` (lower case, no port), `domain` (the registered domain by the public suffix
//! list; the host itself for an IP address or a host without one), `capture_time`
//! (TIMESTAMP, microseconds, UTC), `mime`, `status` (INT32, null without one), `digest`
//! (`sha1:…`), `language` (the version's, from its segment row; null when the capture is
//! of no indexed version: a 404 left out, a DNS record), `archive` (the absolute path of
//! the archive), `record_offset`, `record_length` (BIGINT), `version_key` (`SURT
//! sha1:DIGEST`: the version the capture belongs to, as `export`'s `surt` and `digest`
//! name it), `collection` and `batch`.
//!
//! `update` writes the table of a batch while it builds the batch's index (staged, and
//! published with the batch), and after publishing, that of any batch that has none (a
//! run stopped after publishing, a collection made before the table existed, a staged
//! table that failed): a batch's captures are final once it is published. Each file is written under a temporary name and
//! renamed; rows are in `surt`, digest and date order, in row groups of 8,192.

use crate::progress::Unit;
use std::cmp::Ordering;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{
    Int32Builder, Int64Builder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use warcdex_cdx::sort::{ExternalSorter, SortOptions};

use super::error::Result;
use super::Stages;
use crate::collection::layout::Layout;
use crate::collection::manifest::CollectionManifest;
use crate::path_error::{AtPath, ResultAtPath};

/// `captures/`, beside the segments.
pub const CAPTURES_DIR: &str = "captures";

/// Rows a row group holds.
const ROWS_PER_GROUP: usize = 8192;

/// `captures/<batch>.parquet`.
pub fn table_path(layout: &Layout, batch: &str) -> PathBuf {
    layout
        .dir
        .join(CAPTURES_DIR)
        .join(format!("{batch}.parquet"))
}

/// The columns, in order.
fn schema() -> SchemaRef {
    let text = |n: &str, null: bool| Field::new(n, DataType::Utf8, null);
    Arc::new(Schema::new(vec![
        text("url", false),
        text("surt", false),
        text("host", true),
        text("domain", true),
        Field::new(
            "capture_time",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        text("mime", true),
        Field::new("status", DataType::Int32, true),
        text("digest", true),
        text("language", true),
        text("archive", false),
        Field::new("record_offset", DataType::Int64, true),
        Field::new("record_length", DataType::Int64, true),
        text("version_key", false),
        text("collection", true),
        text("batch", false),
    ]))
}

/// Writes the table of every batch of `m` that has none; returns how many were written.
pub fn keep(layout: &Layout, m: &CollectionManifest, stages: &dyn Stages) -> Result<usize> {
    let missing: Vec<&str> = (m.batches.iter())
        .map(|b| b.name.as_str())
        .filter(|b| !table_path(layout, b).exists())
        .collect();
    if missing.is_empty() || m.generation == 0 {
        return Ok(0);
    }
    let (tmp, languages) = languages_in(&layout.dir, layout, None, SORT_MEMORY)?;
    for batch in &missing {
        let archives: Vec<TableArchive> = (m.archives.iter())
            .filter(|a| a.batch == *batch)
            .map(|a| TableArchive {
                cdx: layout.cdx_dir().join(format!("{}.cdx", a.name)),
                path: layout.archive_path(&a.path),
                collection: a.collection.clone(),
            })
            .collect();
        let bar = stages.stage("captures", archives.len() as u64, Unit::Items("archives"));
        let dest = table_path(layout, batch);
        write_table(
            batch,
            &archives,
            &languages,
            tmp.path(),
            &dest,
            SORT_MEMORY,
            &*bar,
        )?;
        bar.finish();
    }
    Ok(missing.len())
}

/// An archive of a batch as its capture table needs it.
pub(super) struct TableArchive {
    /// Its CDX (CDX11, as the cdx stage writes it).
    pub(super) cdx: PathBuf,
    /// The archive itself (the table holds its absolute path).
    pub(super) path: PathBuf,
    /// Its collection (empty for none).
    pub(super) collection: String,
}

/// The capture table `dest` of batch `batch` while it is staged (`update` writes it
/// beside the index, where a core is idle, and publishes it with the batch): the
/// archives' CDX in staging, the languages of the collection's segments and of the
/// batch's own `segment`. The same file [`keep`] writes after publishing.
pub(super) fn write_staged_table(
    layout: &Layout,
    segment: &Path,
    batch: &str,
    archives: &[TableArchive],
    dest: &Path,
) -> Result<()> {
    // Beside the index, near `update`'s peak: a quarter of the sorts' memory (the
    // same table; the sorts spill sooner).
    let memory = SORT_MEMORY / 4;
    let beside = dest.parent().unwrap_or(Path::new("."));
    let (tmp, languages) = languages_in(beside, layout, Some(segment), memory)?;
    write_table(batch, archives, &languages, tmp.path(), dest, memory, &())
}

/// A temporary directory in `dir` and in it the languages of the versions of the
/// collection's segments and of `segment` (one not yet in the collection), sorted
/// within `memory` ([`version_languages`]).
fn languages_in(
    dir: &Path,
    layout: &Layout,
    segment: Option<&Path>,
    memory: usize,
) -> Result<(tempfile::TempDir, PathBuf)> {
    let tmp = tempfile::Builder::new()
        .prefix(".captures-")
        .tempdir_in(dir)
        .at(dir)?;
    let languages = tmp.path().join("versions");
    let mut rows = Vec::new();
    rows_files(&layout.dir.join("segments"), &mut rows)?;
    rows.extend(segment.map(|s| s.join(crate::segment::layout::ROWS_FILE)));
    version_languages(&rows, &languages, tmp.path(), memory)?;
    Ok((tmp, languages))
}

/// The memory of each of the table's two sorts (the versions' languages, the captures).
const SORT_MEMORY: usize = 64 << 20;

/// Writes `dest`: `SURT sha1:DIGEST DATE14 - COLLECTION` for every capture of every batch
/// that names a collection, sorted and each once, from the capture tables (written first
/// where a batch has none): the dates list that gives a set built anew (a compaction)
/// every collection of its versions, as each batch's lists gave its own set.
pub fn collection_dates(
    layout: &Layout,
    m: &CollectionManifest,
    stages: &dyn Stages,
    dest: &Path,
    sort: SortOptions,
) -> Result<()> {
    keep(layout, m, stages)?;
    let mut sorter = ExternalSorter::new(SortOptions {
        unique: true,
        ..sort
    });
    let mut line = Vec::new();
    for b in &m.batches {
        let f = table_path(layout, &b.name);
        if !f.exists() {
            continue;
        }
        // Checked and guarded as the segments' rows are: damage is an error naming it.
        let names = ["version_key", "capture_time", "collection"];
        for batch in crate::segment::rows::read_columns(&f, &names)? {
            let batch = batch?;
            let text = |n: &str| string_column(&batch, n);
            let times = batch.column_by_name("capture_time").and_then(|c| {
                c.as_any()
                    .downcast_ref::<arrow_array::TimestampMicrosecondArray>()
                    .cloned()
            });
            let (Some(keys), Some(collections), Some(times)) =
                (text("version_key"), text("collection"), times)
            else {
                continue;
            };
            for i in 0..batch.num_rows() {
                if collections.is_null(i) || times.is_null(i) || collections.value(i).is_empty() {
                    continue;
                }
                // A time here is a capture's (`capture_micros`), within the years 1991 to now.
                let secs = times.value(i).div_euclid(1_000_000);
                let Some(date) = warcdex_cdx::date::Date14::from_unix(secs) else {
                    continue;
                };
                let date = date.to_string();
                line.clear();
                line.extend_from_slice(keys.value(i).as_bytes());
                line.push(b' ');
                line.extend_from_slice(date.as_bytes());
                line.extend_from_slice(b" - ");
                line.extend_from_slice(collections.value(i).as_bytes());
                sorter.push(&line).at(&f)?;
            }
        }
    }
    super::files::write_with(dest, |out| {
        sorter
            .finish_with(|l| {
                out.write_all(l)?;
                out.write_all(b"\n")
            })
            .at(dest)?;
        Ok(())
    })
}

/// The text column `name` of `batch`, if it has one of that type.
fn string_column(batch: &RecordBatch, name: &str) -> Option<StringArray> {
    (batch.column_by_name(name))
        .and_then(|c| c.as_any().downcast_ref::<StringArray>())
        .cloned()
}

/// `SURT sha1:DIGEST\tLANGUAGE` of every version of the collection, sorted: from the
/// segments' rows `files`, where each version has its one row (in the batch that first saw it). Three
/// columns of the rows are read, a row group at a time; opening the search index instead
/// held its tables for every version (1.2 GB on the million-version benchmark).
fn version_languages(files: &[PathBuf], to: &Path, tmp: &Path, memory: usize) -> Result<()> {
    let mut sorter = ExternalSorter::new(SortOptions {
        memory,
        tmp_dir: Some(tmp.to_path_buf()),
        unique: true,
    });
    let mut line = Vec::new();
    for f in files {
        // Checked and guarded: a damaged segment is an error naming it, not a panic.
        for batch in crate::segment::rows::read_columns(f, &["urlkey", "digest", "lang"])? {
            let batch = batch?;
            let text = |n: &str| string_column(&batch, n);
            let (Some(keys), Some(digests)) = (text("urlkey"), text("digest")) else {
                continue;
            };
            let langs = text("lang");
            for i in 0..batch.num_rows() {
                line.clear();
                line.extend_from_slice(keys.value(i).as_bytes());
                line.extend_from_slice(b" sha1:");
                line.extend_from_slice(bare(digests.value(i)).as_bytes());
                line.push(b'\t');
                if let Some(l) = langs.as_ref().filter(|l| !l.is_null(i)) {
                    line.extend_from_slice(l.value(i).as_bytes());
                }
                sorter.push(&line).at(f)?;
            }
        }
    }
    let mut out = BufWriter::new(File::create(to).at(to)?);
    sorter
        .finish_with(|l| {
            out.write_all(l)?;
            out.write_all(b"\n")
        })
        .at(to)?;
    out.flush().at(to)?;
    Ok(())
}

/// Every segment rows file under `dir` (a batch's, or its shards').
fn rows_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(AtPath {
                path: dir.to_path_buf(),
                source: e,
            }
            .into())
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            rows_files(&p, out)?;
        } else if p
            .file_name()
            .is_some_and(|n| n == crate::segment::layout::ROWS_FILE)
        {
            out.push(p);
        }
    }
    Ok(())
}

fn bare(d: &str) -> &str {
    d.strip_prefix("sha1:").unwrap_or(d)
}

/// The rows of one batch: its archives' CDX lines keyed by version and sorted, joined
/// with the versions' languages, written as Parquet.
fn write_table(
    batch: &str,
    archives: &[TableArchive],
    languages: &Path,
    tmp: &Path,
    path: &Path,
    memory: usize,
    progress: &dyn crate::progress::Progress,
) -> Result<()> {
    let mut sorter = ExternalSorter::new(SortOptions {
        memory,
        tmp_dir: Some(tmp.to_path_buf()),
        unique: false,
    });
    let mut line = Vec::new();
    for (i, a) in archives.iter().enumerate() {
        let cdx = &a.cdx;
        let r = BufReader::new(File::open(cdx).at(cdx)?);
        for l in r.lines() {
            let l = l.at(cdx)?;
            if l.starts_with(" CDX") || l.is_empty() {
                continue;
            }
            let f: Vec<&str> = l.split(' ').collect();
            if f.len() < 11 {
                continue;
            }
            // `SURT sha1:DIGEST\tARCHIVE-INDEX\tLINE`: sorted by version, then date.
            line.clear();
            line.extend_from_slice(format!("{} sha1:{}\t{i}\t{l}", f[0], bare(f[5])).as_bytes());
            sorter.push(&line).at(cdx)?;
        }
        progress.advance(1);
    }
    let dir = path.parent().expect("a table is a file in a folder");
    std::fs::create_dir_all(dir).at(dir)?;
    let file = crate::output::temp_file_beside(path).at(path)?;
    let mut rows = Rows::new(file.reopen().at(path)?, batch)?;
    let mut langs = BufReader::new(File::open(languages).at(languages)?).lines();
    let mut lang_line: Option<String> = langs.next().transpose().at(languages)?;
    let archive_paths: Vec<String> = (archives.iter())
        .map(|a| {
            std::fs::canonicalize(&a.path)
                .unwrap_or_else(|_| a.path.clone())
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut failed: Option<crate::path_error::Error> = None;
    sorter
        .finish_with(|l| {
            let l = std::str::from_utf8(l).map_err(io::Error::other)?;
            let mut parts = l.splitn(3, '\t');
            let (key, i, cdx) = (
                parts.next().unwrap_or(""),
                parts.next().unwrap_or("0").parse::<usize>().unwrap_or(0),
                parts.next().unwrap_or(""),
            );
            // The languages are in key order too: move on to this key.
            let mut language = None;
            while let Some(ll) = &lang_line {
                let (k, lang) = ll.split_once('\t').unwrap_or((ll, ""));
                match k.cmp(key) {
                    Ordering::Less => lang_line = langs.next().transpose()?,
                    Ordering::Equal => {
                        language = Some(lang.to_string()).filter(|l| !l.is_empty());
                        break;
                    }
                    Ordering::Greater => break,
                }
            }
            let a = &archives[i];
            if let Err(e) = rows.push(
                cdx,
                key,
                language.as_deref(),
                &archive_paths[i],
                &a.collection,
            ) {
                failed.get_or_insert(e);
            }
            Ok(())
        })
        .at(path)?;
    if let Some(e) = failed {
        return Err(e);
    }
    rows.finish()?;
    crate::output::persist_file(file, path).at(path)?;
    Ok(())
}

/// The columns of the row group being filled, and the writer.
struct Rows {
    batch: String,
    schema: SchemaRef,
    writer: ArrowWriter<BufWriter<File>>,
    n: usize,
    url: StringBuilder,
    surt: StringBuilder,
    host: StringBuilder,
    domain: StringBuilder,
    time: TimestampMicrosecondBuilder,
    mime: StringBuilder,
    status: Int32Builder,
    digest: StringBuilder,
    language: StringBuilder,
    archive: StringBuilder,
    offset: Int64Builder,
    length: Int64Builder,
    version: StringBuilder,
    collection: StringBuilder,
    batch_col: StringBuilder,
}

impl Rows {
    fn new(file: File, batch: &str) -> Result<Rows> {
        let schema = schema();
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_max_row_group_row_count(Some(ROWS_PER_GROUP))
            .build();
        let writer = ArrowWriter::try_new(BufWriter::new(file), schema.clone(), Some(props))
            .map_err(|e| AtPath {
                path: PathBuf::from(batch),
                source: e,
            })?;
        Ok(Rows {
            batch: batch.to_string(),
            schema,
            writer,
            n: 0,
            url: StringBuilder::new(),
            surt: StringBuilder::new(),
            host: StringBuilder::new(),
            domain: StringBuilder::new(),
            time: TimestampMicrosecondBuilder::new().with_timezone("UTC"),
            mime: StringBuilder::new(),
            status: Int32Builder::new(),
            digest: StringBuilder::new(),
            language: StringBuilder::new(),
            archive: StringBuilder::new(),
            offset: Int64Builder::new(),
            length: Int64Builder::new(),
            version: StringBuilder::new(),
            collection: StringBuilder::new(),
            batch_col: StringBuilder::new(),
        })
    }

    /// One CDX11 line (`urlkey timestamp original mime status digest redirect meta
    /// length offset filename`) as a row.
    fn push(
        &mut self,
        cdx: &str,
        version: &str,
        language: Option<&str>,
        archive: &str,
        collection: &str,
    ) -> Result<()> {
        let f: Vec<&str> = cdx.split(' ').collect();
        let dash = |s: &str| (s != "-").then(|| s.to_string());
        let (host, domain) = host_and_domain(f[2]);
        self.url.append_value(f[2]);
        self.surt.append_value(f[0]);
        self.host.append_option(host.as_deref());
        self.domain.append_option(domain.as_deref());
        self.time
            .append_option(crate::reader::date::capture_micros(f[1], i64::MAX / 2));
        self.mime.append_option(dash(f[3]));
        self.status.append_option(f[4].parse::<i32>().ok());
        self.digest
            .append_option(dash(f[5]).map(|d| format!("sha1:{d}")));
        self.language.append_option(language);
        self.archive.append_value(archive);
        self.offset.append_option(f[9].parse::<i64>().ok());
        self.length.append_option(f[8].parse::<i64>().ok());
        self.version.append_value(version);
        self.collection
            .append_option((!collection.is_empty()).then_some(collection));
        self.batch_col.append_value(&self.batch);
        self.n += 1;
        if self.n >= ROWS_PER_GROUP {
            self.write_group()?;
        }
        Ok(())
    }

    fn write_group(&mut self) -> Result<()> {
        if self.n == 0 {
            return Ok(());
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.url.finish()),
            Arc::new(self.surt.finish()),
            Arc::new(self.host.finish()),
            Arc::new(self.domain.finish()),
            Arc::new(self.time.finish()),
            Arc::new(self.mime.finish()),
            Arc::new(self.status.finish()),
            Arc::new(self.digest.finish()),
            Arc::new(self.language.finish()),
            Arc::new(self.archive.finish()),
            Arc::new(self.offset.finish()),
            Arc::new(self.length.finish()),
            Arc::new(self.version.finish()),
            Arc::new(self.collection.finish()),
            Arc::new(self.batch_col.finish()),
        ];
        let at = |source| AtPath {
            path: PathBuf::from(&self.batch),
            source,
        };
        let group = RecordBatch::try_new(self.schema.clone(), columns).map_err(at)?;
        self.writer.write(&group).map_err(|e| AtPath {
            path: PathBuf::from(&self.batch),
            source: e,
        })?;
        self.n = 0;
        Ok(())
    }

    fn finish(mut self) -> Result<()> {
        self.write_group()?;
        let batch = PathBuf::from(&self.batch);
        let mut inner = self.writer.into_inner().map_err(|e| AtPath {
            path: batch.clone(),
            source: e,
        })?;
        inner.flush().at(&batch)?;
        Ok(())
    }
}

/// The host of a URL (lower case, without port) and its registered domain (the host
/// for an IP address or a host the public suffix list gives none for).
fn host_and_domain(url: &str) -> (Option<String>, Option<String>) {
    let Ok(u) = url::Url::parse(url) else {
        return (None, None);
    };
    let Some(host) = u.host() else {
        return (None, None);
    };
    match host {
        url::Host::Domain(h) => {
            let h = h.trim_end_matches('.').to_ascii_lowercase();
            let domain = psl::domain_str(&h)
                .map(str::to_string)
                .unwrap_or_else(|| h.clone());
            (Some(h), Some(domain))
        }
        ip => {
            let s = ip.to_string();
            (Some(s.clone()), Some(s))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::host_and_domain;

    #[test]
    fn hosts_and_registered_domains() {
        let d = |u: &str| host_and_domain(u);
        assert_eq!(
            d("http://News.BBC.co.uk:8080/a"),
            (Some("news.bbc.co.uk".into()), Some("bbc.co.uk".into()))
        );
        assert_eq!(
            d("https://example.com/"),
            (Some("example.com".into()), Some("example.com".into()))
        );
        assert_eq!(
            d("http://192.168.0.1/x"),
            (Some("192.168.0.1".into()), Some("192.168.0.1".into()))
        );
        assert_eq!(
            d("http://[::1]/"),
            (Some("[::1]".into()), Some("[::1]".into()))
        );
        assert_eq!(d("dns:example.com"), (None, None));
        assert_eq!(
            d("http://localhost/"),
            (Some("localhost".into()), Some("localhost".into()))
        );
    }
}
