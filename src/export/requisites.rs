//! A page's requisites written beside it in a WARC or WACZ export, so that the export
//! replays styled: the stylesheets, scripts, images, fonts and frames the page loads
//! ([`crate::html::requisites`]), and what its stylesheets load in turn, each at its
//! capture nearest the page's date that the asker may see (a 2xx capture with a payload,
//! found in the collection's CDX). A requisite the collection holds no capture of is
//! counted and named in the report; one written already (a stylesheet many pages share)
//! is not written again.

use std::collections::HashSet;
use std::io::{self, Read};

use url::Url;
use warcdex_cdx::date::Date14;
use warcdex_cdx::line::CdxLine;
use warcdex_cdx::lookup::SortedCdx;
use warcdex_cdx::surt_key;

use crate::access::{Access, Viewer};
use crate::extract::body::undo_codings;
use crate::html::requisites::{css_urls, html_requisites, resolve};
use crate::reader::location::ArchiveLocation;
use crate::reader::ReaderOptions;

/// Bytes of a page or stylesheet read to find its requisites.
const MAX_READ: u64 = 4 << 20;

/// Captures looked at on each side of the page's date for one requisite: past them (all
/// revisits, errors or hidden) it counts as missing.
const MAX_LOOKED_AT: usize = 1000;

/// Records remembered as written: past them a record many pages share may be written
/// again (harmless: a replay reads either copy).
const MAX_REMEMBERED: usize = 100_000;

/// How many missing requisites the report names.
pub(super) const MAX_NAMED: usize = 20;

/// What one export has written of requisites.
#[derive(Default)]
pub(super) struct Requisites {
    written: HashSet<(String, u64)>,
}

impl Requisites {
    /// Whether the record `(archive, offset)` is new to the export (and remembers it).
    pub(super) fn first_time(&mut self, name: &str, offset: u64) -> bool {
        let key = (name.to_string(), offset);
        if self.written.contains(&key) {
            return false;
        }
        if self.written.len() < MAX_REMEMBERED {
            self.written.insert(key);
        }
        true
    }
}

/// A requisite of a page: its URL, and whether it is the page's own (its stylesheets'
/// URLs are then requisites too).
pub(super) struct Wanted {
    pub(super) url: String,
    pub(super) of_page: bool,
}

/// The requisites of the capture `l` of an HTML page or a stylesheet, read from `at`.
pub(super) fn requisites_of(l: &CdxLine, at: &ArchiveLocation, of_page: bool) -> Vec<Wanted> {
    let (Some(original), Some(offset), Some(length)) = (
        l.original.as_deref(),
        l.offset.as_deref().and_then(|s| s.parse().ok()),
        l.length.as_deref().and_then(|s| s.parse().ok()),
    ) else {
        return Vec::new();
    };
    let Ok(base) = Url::parse(original) else {
        return Vec::new();
    };
    let Some(body) = payload(at, offset, length) else {
        return Vec::new();
    };
    let css = l.mime.as_deref() == Some("text/css");
    let urls = match css {
        true => (css_urls(&body).iter())
            .filter_map(|u| resolve(&base, u))
            .collect(),
        false => html_requisites(&body, &base),
    };
    urls.into_iter()
        .map(|url| Wanted {
            url,
            of_page: of_page && !css,
        })
        .collect()
}

/// The payload of the record at `offset` (`length` stored bytes), its transfer and
/// content codings undone, at most [`MAX_READ`] bytes of it; `None` when it cannot be
/// read (the page is then written without requisites).
fn payload(at: &ArchiveLocation, offset: u64, length: u64) -> Option<Vec<u8>> {
    let opts = ReaderOptions {
        buffer_size: 64 * 1024,
        max_header: 1 << 20,
    };
    let mut reader = at.open_range(offset, length, opts).ok()?;
    let mut rec = reader.next_record().ok()??;
    let (transfer, coding) = match rec.http().ok()? {
        Some(h) => (
            h.get_str("Transfer-Encoding").map(|t| t.into_owned()),
            h.get_str("Content-Encoding").map(|c| c.into_owned()),
        ),
        None => (None, None),
    };
    let mut raw = Vec::new();
    (&mut rec).take(MAX_READ).read_to_end(&mut raw).ok()?;
    let body = undo_codings(
        &raw,
        transfer.as_deref(),
        coding.as_deref(),
        MAX_READ as usize,
    );
    Some(body.into_owned())
}

/// The capture of `url` nearest `date` that `viewer` may see and that replays as it was
/// (a 2xx status, not a revisit, an archive offset); `None` when the collection holds
/// none.
pub(super) fn nearest(
    cdx: &SortedCdx,
    url: &str,
    date: &str,
    viewer: Option<&Viewer>,
) -> io::Result<Option<CdxLine>> {
    let Ok(key) = surt_key(url) else {
        return Ok(None);
    };
    let prefix = format!("{key} ");
    let at = format!("{key} {date}");
    let usable = |line: &[u8]| -> Option<CdxLine> {
        let (_, l) = CdxLine::parse(&String::from_utf8_lossy(line)).ok()?;
        let replayable = l.mime.as_deref() != Some("warc/revisit")
            && l.status.as_deref().is_some_and(|s| s.starts_with('2'))
            && l.offset.is_some()
            && l.filename.is_some();
        let shown = viewer.is_none_or(|v| {
            v.access(key.as_bytes(), l.timestamp.parse().unwrap_or(0)) == Access::Allow
        });
        (replayable && shown).then_some(l)
    };
    let mut after = None;
    for line in cdx.lines_from(at.as_bytes())?.take(MAX_LOOKED_AT) {
        let line = line?;
        if !line.starts_with(prefix.as_bytes()) {
            break;
        }
        if let Some(l) = usable(&line) {
            after = Some(l);
            break;
        }
    }
    let mut before = None;
    for line in cdx.lines_before(at.as_bytes())?.take(MAX_LOOKED_AT) {
        let line = line?;
        if !line.starts_with(prefix.as_bytes()) {
            break;
        }
        if let Some(l) = usable(&line) {
            before = Some(l);
            break;
        }
    }
    let seconds = |d: &str| Date14::parse(d).map_or(0, |d| d.unix_seconds());
    let want = seconds(date);
    Ok(match (before, after) {
        (Some(b), Some(a)) => {
            // Ties go to the earlier, as the capture view's do.
            if (want - seconds(&b.timestamp)).abs() <= (seconds(&a.timestamp) - want).abs() {
                Some(b)
            } else {
                Some(a)
            }
        }
        (b, a) => b.or(a),
    })
}
