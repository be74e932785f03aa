//! The change feed of a collection: [`changes::scan`](super::changes::scan) over its
//! `all.cdx` (from a URL prefix's keys when one is given), for the URLs a query matches
//! when one is given, under the asker's access rules; each changed version's share of
//! words changed from the search index's texts; written as JSON or Atom, changed, new and
//! gone listed apart, with links to the capture, the URL's history and the diff.
//!
//! The entries are spilled to temporary files as the scan finds them (at most `limit` of
//! each kind, all of them counted), so memory does not grow with the feed; the query's
//! URL keys go through an external sort and are read beside the CDX in key order.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, Write};

use serde::Serialize;
use warcdex_cdx::date::Date14;
use warcdex_cdx::{ExternalSorter, KeyStyle, SortOptions};

use super::changes::{scan, ChangeCounts, ChangeEntry, ChangeKind, Window};
use crate::access::{Access, Viewer};
use crate::collection::Collection;
use crate::near::word_diff::diff_words;
use crate::render::escape::escape;
use crate::search::history::version_text;
use crate::search::{SearchError, SearchIndex, Selection};

/// What feed to make.
#[derive(Debug, Clone)]
pub struct FeedOptions {
    /// The window.
    pub window: Window,
    /// The window in words, for titles (`since 2024-06-01`, `batch batch-0002`).
    pub label: String,
    /// Only URLs under this prefix (a URL, or a host).
    pub prefix: Option<String>,
    /// Entries of each kind written at most (all are counted).
    pub limit: Option<u64>,
    /// The sort of a query's URL keys.
    pub sort: SortOptions,
}

/// A feed made, its entries in temporary files.
#[derive(Debug)]
pub struct Feed {
    /// The window in words.
    pub label: String,
    /// Entries of each kind (all, kept or not).
    pub counts: ChangeCounts,
    /// CDX lines that were no capture.
    pub bad_lines: u64,
    /// Each kind's kept entries, one JSON line each.
    spills: [File; 3],
    kept: [u64; 3],
}

impl Feed {
    /// Whether entries were left out by the limit.
    pub fn truncated(&self) -> bool {
        ChangeKind::ALL
            .iter()
            .enumerate()
            .any(|(i, &k)| self.kept[i] < self.counts.of(k))
    }
}

/// An entry as the feeds show it: the entry and its links (paths on the server).
#[derive(Debug, Serialize)]
struct Shown<'a> {
    #[serde(flatten)]
    entry: &'a ChangeEntry,
    capture: String,
    history: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
}

fn shown(e: &ChangeEntry) -> Shown<'_> {
    Shown {
        capture: format!("/web/{}/{}", e.date, e.url),
        history: format!("/history/{}", e.url),
        diff: (e.previous_date.as_ref())
            .filter(|_| e.kind == ChangeKind::Changed)
            .map(|p| format!("/diff/{p}/{}/{}", e.date, e.url)),
        entry: e,
    }
}

/// The URL keys a query matches, in ascending order, for lookups in ascending order.
pub struct KeyFilter {
    lines: io::Split<BufReader<File>>,
    next: Option<Vec<u8>>,
}

impl std::fmt::Debug for KeyFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyFilter").finish_non_exhaustive()
    }
}

impl KeyFilter {
    /// The keys of every version `selection` matches that its viewer may see.
    pub fn of_matches(
        index: &SearchIndex,
        selection: &Selection,
        sort: SortOptions,
    ) -> Result<KeyFilter, SearchError> {
        let tmp_dir = sort.tmp_dir.clone();
        let mut sorter = ExternalSorter::new(SortOptions {
            unique: true,
            ..sort
        });
        index.for_each_match(selection, false, |v| sorter.push(v.urlkey.as_bytes()))?;
        let sorted = || -> io::Result<File> {
            let mut file = warcdex_cdx::sort::temp_file(tmp_dir.as_deref())?;
            sorter.finish_into(file.try_clone()?)?;
            file.seek(io::SeekFrom::Start(0))?;
            Ok(file)
        };
        let file = sorted().map_err(|e| SearchError::Index(Box::new(e)))?;
        Ok(KeyFilter {
            lines: BufReader::new(file).split(b'\n'),
            next: None,
        })
    }

    /// Whether `key` is one of them (keys asked in ascending order).
    pub fn wants(&mut self, key: &str) -> bool {
        loop {
            if self.next.is_none() {
                match self.lines.next() {
                    Some(Ok(l)) => self.next = Some(l),
                    _ => return false,
                }
            }
            match self.next.as_deref().map(|n| n.cmp(key.as_bytes())) {
                Some(std::cmp::Ordering::Less) => self.next = None,
                Some(std::cmp::Ordering::Equal) => return true,
                _ => return false,
            }
        }
    }
}

/// The URL key prefix of a `prefix` (a URL or a host): the key of the URL with its
/// canonical trailing parts left as given.
pub fn key_prefix(prefix: &str) -> Option<String> {
    let with_scheme = if prefix.contains("://") {
        prefix.to_string()
    } else {
        format!("http://{prefix}")
    };
    let key = warcdex_cdx::url_key(&with_scheme, KeyStyle::Surt).ok()?;
    // A bare host's key ends `)/`: every URL of the host. A path keeps what was given
    // (`/docs` also matches `/docs2`, as pywb's prefix match does).
    Some(key)
}

/// Makes the feed of `collection` for `viewer` (`None`: everything shown). `index` gives
/// the changed versions' share of words changed (none without it); `filter` the URLs a
/// query matched.
pub fn collect(
    collection: &Collection,
    index: Option<&SearchIndex>,
    opts: &FeedOptions,
    viewer: Option<&Viewer>,
    mut filter: Option<KeyFilter>,
) -> io::Result<Feed> {
    let cdx = collection.cdx()?;
    let prefix = match &opts.prefix {
        Some(p) => Some(key_prefix(p).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{p}: not a URL prefix"),
            )
        })?),
        None => None,
    };
    let start = prefix.clone().unwrap_or_default();
    let lines = cdx
        .lines_from(start.as_bytes())?
        .take_while(|l| match (l, &prefix) {
            (Ok(l), Some(p)) => l.starts_with(p.as_bytes()),
            _ => true,
        });
    let viewer = viewer.filter(|v| !v.sees_everything());
    let shown_to = |key: &str, date: u64| match viewer {
        None => true,
        Some(v) => matches!(
            v.access(key.as_bytes(), date),
            Access::Allow | Access::AllowIgnoreEmbargo
        ),
    };
    let mut wanted = |key: &str| filter.as_mut().is_none_or(|f| f.wants(key));
    let tmp = opts.sort.tmp_dir.as_deref();
    let spills = [
        warcdex_cdx::sort::temp_file(tmp)?,
        warcdex_cdx::sort::temp_file(tmp)?,
        warcdex_cdx::sort::temp_file(tmp)?,
    ];
    let mut writers: Vec<BufWriter<File>> = spills
        .iter()
        .map(|f| f.try_clone().map(BufWriter::new))
        .collect::<io::Result<_>>()?;
    let mut kept = [0u64; 3];
    let (counts, bad_lines) = scan(lines, &opts.window, &shown_to, &mut wanted, |mut e| {
        let i = e.kind as usize;
        if opts.limit.is_some_and(|l| kept[i] >= l) {
            return Ok(());
        }
        if let (ChangeKind::Changed, Some(index), Some(prev)) =
            (e.kind, index, e.previous_digest.as_deref())
        {
            let text = |d: &str| version_text(index, &e.url, d).ok().flatten();
            if let (Some(a), Some(b)) = (text(prev), text(&e.digest)) {
                e.share_changed = Some(diff_words(&a, &b).share_changed());
            }
        }
        kept[i] += 1;
        serde_json::to_writer(&mut writers[i], &shown(&e))?;
        writers[i].write_all(b"\n")
    })?;
    for w in writers {
        w.into_inner().map_err(|e| e.into_error())?;
    }
    Ok(Feed {
        label: opts.label.clone(),
        counts,
        bad_lines,
        spills,
        kept,
    })
}

/// Each kept entry of `kind`, as its JSON line.
fn each_line(
    feed: &Feed,
    kind: ChangeKind,
    mut f: impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mut file = feed.spills[kind as usize].try_clone()?;
    file.seek(io::SeekFrom::Start(0))?;
    for line in BufReader::new(file).split(b'\n') {
        let line = line?;
        if !line.is_empty() {
            f(&line)?;
        }
    }
    Ok(())
}

/// The feed as JSON: `{"collection", "window", "counts", "truncated", "changed": [...],
/// "new": [...], "gone": [...]}`.
pub fn write_json(feed: &Feed, collection: &str, out: &mut dyn Write) -> io::Result<()> {
    write!(
        out,
        "{{\"collection\":{},\"window\":{},\"counts\":{},\"truncated\":{}",
        serde_json::to_string(collection)?,
        serde_json::to_string(&feed.label)?,
        serde_json::to_string(&feed.counts)?,
        feed.truncated()
    )?;
    for kind in ChangeKind::ALL {
        write!(out, ",\"{}\":[", kind.name())?;
        let mut first = true;
        each_line(feed, kind, |l| {
            if !first {
                out.write_all(b",")?;
            }
            first = false;
            out.write_all(l)
        })?;
        out.write_all(b"]")?;
    }
    out.write_all(b"}\n")
}

/// The feed as JSON lines, one entry a line, changed then new then gone.
pub fn write_jsonl(feed: &Feed, out: &mut dyn Write) -> io::Result<()> {
    for kind in ChangeKind::ALL {
        each_line(feed, kind, |l| {
            out.write_all(l)?;
            out.write_all(b"\n")
        })?;
    }
    Ok(())
}

/// An RFC 3339 date of 14 digits.
fn rfc3339(date14: &str) -> String {
    Date14::parse(date14).map_or_else(|_| "1970-01-01T00:00:00Z".into(), |d| d.iso())
}

/// A tag URI (RFC 4151) naming an entry: the same change has the same id in every feed.
fn entry_id(kind: &str, date: &str, url: &str) -> String {
    let url: String = url::form_urlencoded::byte_serialize(url.as_bytes()).collect();
    format!("tag:warcdex,2024:change/{kind}/{date}/{url}")
}

/// The feed as Atom (RFC 4287): an entry per change, its category the kind, its link the
/// diff (changed) or the capture, relative to `base` (the server's URL, or empty for
/// paths).
pub fn write_atom(
    feed: &Feed,
    collection: &str,
    base: &str,
    self_link: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    let title = format!("What changed in {collection}, {}", feed.label);
    let c = &feed.counts;
    writeln!(out, "<?xml version=\"1.0\" encoding=\"utf-8\"?>")?;
    writeln!(out, "<feed xmlns=\"http://www.w3.org/2005/Atom\">")?;
    writeln!(out, "  <title>{}</title>", escape(&title))?;
    writeln!(
        out,
        "  <subtitle>{} changed, {} new, {} gone{}</subtitle>",
        c.changed,
        c.new,
        c.gone,
        if feed.truncated() {
            " (the first of each listed)"
        } else {
            ""
        }
    )?;
    writeln!(
        out,
        "  <id>{}</id>",
        escape(&entry_id("feed", &feed.label.replace(' ', "-"), collection))
    )?;
    writeln!(out, "  <updated>{}</updated>", Date14::now().iso())?;
    writeln!(out, "  <author><name>warcdex</name></author>")?;
    writeln!(
        out,
        "  <link rel=\"self\" href=\"{}\"/>",
        escape(&format!("{base}{self_link}"))
    )?;
    for kind in ChangeKind::ALL {
        each_line(feed, kind, |l| {
            let v: serde_json::Value = serde_json::from_slice(l)?;
            let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or_default();
            let share = v.get("share_changed").and_then(|x| x.as_f64());
            let what = match (kind, share) {
                (ChangeKind::Changed, Some(x)) => format!("changed ({:.0}% of words)", x * 100.0),
                (ChangeKind::Changed, None) => "changed".to_string(),
                (ChangeKind::New, _) => "new".into(),
                (ChangeKind::Gone, _) => format!("gone ({})", v["status"]),
            };
            let link = if kind == ChangeKind::Changed && !s("diff").is_empty() {
                s("diff")
            } else {
                s("capture")
            };
            writeln!(out, "  <entry>")?;
            writeln!(
                out,
                "    <title>{}: {}</title>",
                escape(&what),
                escape(s("url"))
            )?;
            writeln!(
                out,
                "    <id>{}</id>",
                escape(&entry_id(kind.name(), s("date"), s("url")))
            )?;
            writeln!(out, "    <updated>{}</updated>", rfc3339(s("date")))?;
            writeln!(out, "    <category term=\"{}\"/>", kind.name())?;
            writeln!(
                out,
                "    <link rel=\"alternate\" href=\"{}\"/>",
                escape(&format!("{base}{link}"))
            )?;
            writeln!(
                out,
                "    <link rel=\"related\" href=\"{}\"/>",
                escape(&format!("{base}{}", s("history")))
            )?;
            let mut summary = format!("{what} {}", s("url"));
            if let Some(p) = v.get("previous_date").and_then(|x| x.as_str()) {
                summary.push_str(&format!(", from the capture of {}", rfc3339(p)));
            }
            writeln!(out, "    <summary>{}</summary>", escape(&summary))?;
            writeln!(out, "  </entry>")
        })?;
    }
    writeln!(out, "</feed>")
}

/// A date as seconds since 1970: `YYYY-MM-DD[Thh:mm:ss[Z]]` or 4 to 14 digits, the start
/// of what it names (`end` false) or its end (`end` true); the error names `flag`.
pub fn date_flag(flag: &str, value: &str, end: bool) -> Result<i64, String> {
    let digits: String = value
        .chars()
        .filter(|c| !matches!(c, '-' | ':' | 'T' | 'Z' | ' '))
        .collect();
    if digits.len() < 4 || digits.len() > 14 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{flag} {value}: a date is YYYY-MM-DD or 4 to 14 digits"
        ));
    }
    let d = if end {
        Date14::pad_up(&digits)
    } else {
        let full = crate::search::history::pad_date(&digits).unwrap_or_default();
        Date14::parse(&full).map_err(|e| format!("{flag} {value}: {e}"))?
    };
    Ok(d.unix_seconds())
}

/// The window of `batch` (a batch's name, or `last`): the archives it added.
fn batch_window(collection: &Collection, name: &str) -> Result<(Window, String), String> {
    let m = collection
        .manifest()
        .map_err(|e| crate::path_error::Chain(&e).to_string())?
        .ok_or_else(|| "the collection has no collection.json, so no batches".to_string())?;
    let batch = if name == "last" {
        m.batches.last().map(|b| b.name.clone())
    } else {
        (m.batches.iter().find(|b| b.name == name)).map(|b| b.name.clone())
    };
    let batch = batch.ok_or_else(|| format!("batch {name}: the collection has no such batch"))?;
    // A WACZ's captures name the WARCs inside it in the CDX: those names are the batch's.
    let mut names = std::collections::BTreeSet::new();
    for a in m.archives.iter().filter(|a| a.batch == batch) {
        names.insert(a.name.clone());
        let file = collection.layout().archive_path(&a.path);
        if crate::reader::wacz::is_wacz(&file) {
            let w = crate::reader::wacz::Wacz::open(&file)
                .map_err(|e| crate::path_error::Chain(&e).to_string())?;
            names.extend(w.archives().map(|e| e.base_name().to_string()));
        }
    }
    Ok((Window::Archives(names), format!("batch {batch}")))
}

/// The window of `since` (and `until`) dates, or of a `batch`; with its label.
pub fn window_of(
    collection: &Collection,
    since: Option<&str>,
    until: Option<&str>,
    batch: Option<&str>,
) -> Result<(Window, String), String> {
    if let Some(b) = batch {
        return batch_window(collection, b);
    }
    let since_s = since.ok_or_else(|| "give since=DATE or batch=NAME".to_string())?;
    let from = date_flag("since", since_s, false)?;
    let to = until.map(|u| date_flag("until", u, true)).transpose()?;
    let d14 = |s: i64| Date14::from_unix(s).map_or(0, |d| d.number());
    let label = match until {
        Some(u) => format!("from {since_s} to {u}"),
        None => format!("since {since_s}"),
    };
    Ok((
        Window::Since {
            since: d14(from),
            until: to.map_or(99_991_231_235_959, d14),
        },
        label,
    ))
}
