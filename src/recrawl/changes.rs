//! What changed (`warcdex changes`, `serve`'s `/changes`): the versions first captured in
//! a window — after a date, or in one `update` batch — that replace an earlier version of
//! the same URL, with the share of their words that changed; the URLs first captured in
//! it (new); and the URLs whose latest capture in it answered 404 or 410 after content
//! before it (gone). Read from `all.cdx` URL by URL (a URL prefix seeks to its keys), so
//! memory holds one URL's state whatever the collection, under the asker's access
//! rules: a capture they may not see is as if it had not been made.
//!
//! A URL's captures are read in date order. A capture of content (a 2xx response, or a
//! revisit, which repeats the content before it) in the window whose digest differs from
//! the content captured just before it is a change, when the URL had content before the
//! window; the URL's first content, in the window, makes it new.

use std::collections::BTreeSet;
use std::io;

use serde::Serialize;
use warcdex_cdx::date::Date14;

/// Which captures are in the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Window {
    /// Captured at or after this date (14 digits) and not after `until` (14 digits).
    Since {
        /// The first date in it.
        since: u64,
        /// The last date in it.
        until: u64,
    },
    /// Captured in these archives (a batch's, by their CDX file names).
    Archives(BTreeSet<String>),
}

/// What kind of change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// A new version of a URL captured before.
    Changed,
    /// A URL first captured in the window.
    New,
    /// A URL whose latest capture, in the window, answered 404 or 410 after content.
    Gone,
}

impl ChangeKind {
    /// Every kind, in the order the feeds list them.
    pub const ALL: [ChangeKind; 3] = [ChangeKind::Changed, ChangeKind::New, ChangeKind::Gone];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Changed => "changed",
            ChangeKind::New => "new",
            ChangeKind::Gone => "gone",
        }
    }
}

/// One entry of the feed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangeEntry {
    /// Changed, new or gone.
    pub kind: ChangeKind,
    /// The URL as captured.
    pub url: String,
    /// Its URL key.
    pub urlkey: String,
    /// The capture in the window (14 digits): the new version's first, or the first
    /// 404/410 of a gone URL's last run of them.
    pub date: String,
    /// Its content digest (`sha1:…`); a gone URL's last content's.
    pub digest: String,
    /// The HTTP status of that capture.
    pub status: u16,
    /// The capture of the content it replaces (changed), or of the last content (gone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_date: Option<String>,
    /// That content's digest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_digest: Option<String>,
    /// The share of words changed, 0 to 1 (changed entries whose two texts are indexed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub share_changed: Option<f64>,
}

/// Counts of a scan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ChangeCounts {
    /// Changed entries.
    pub changed: u64,
    /// New URLs.
    pub new: u64,
    /// Gone URLs.
    pub gone: u64,
    /// URLs read.
    pub urls: u64,
}

impl ChangeCounts {
    fn add(&mut self, k: ChangeKind) {
        match k {
            ChangeKind::Changed => self.changed += 1,
            ChangeKind::New => self.new += 1,
            ChangeKind::Gone => self.gone += 1,
        }
    }
    /// The count of `k`.
    pub fn of(&self, k: ChangeKind) -> u64 {
        match k {
            ChangeKind::Changed => self.changed,
            ChangeKind::New => self.new,
            ChangeKind::Gone => self.gone,
        }
    }
}

/// One capture, as the scan reads it from a CDX line.
#[derive(Debug, Clone)]
struct Seen {
    date: u64,
    url: String,
    status: u16,
    digest: String,
    revisit: bool,
    in_window: bool,
}

impl Seen {
    fn is_content(&self) -> bool {
        crate::freshness::history::holds_content(self.status, self.revisit)
    }
}

/// The CDX line's key and capture (CDX11 or CDX9; the archive is the last field).
fn parse(line: &str, window: &Window) -> Option<(String, Seen)> {
    let f: Vec<&str> = line.split(' ').collect();
    if f.len() < 9 {
        return None;
    }
    let date: u64 = Date14::parse(f[1]).ok()?.number();
    let in_window = match window {
        Window::Since { since, until } => date >= *since && date <= *until,
        Window::Archives(names) => names.contains(*f.last()?),
    };
    // Captures after `until` are not read at all: the feed is of the window's end.
    if let Window::Since { until, .. } = window {
        if date > *until {
            return None;
        }
    }
    Some((
        f[0].to_string(),
        Seen {
            date,
            url: f[2].to_string(),
            status: f[4].parse().unwrap_or(0),
            digest: f[5].to_string(),
            revisit: f[3] == "warc/revisit",
            in_window,
        },
    ))
}

fn sha1(digest: &str) -> String {
    if digest.contains(':') {
        digest.to_string()
    } else {
        format!("sha1:{digest}")
    }
}

/// Per-URL state of the scan.
#[derive(Debug, Default)]
struct UrlState {
    key: String,
    /// The content captured last: (date, digest).
    content: Option<(u64, String)>,
    /// Whether content was captured outside the window before.
    existed: bool,
    /// The first 404/410 of the run the captures end with, if in the window and after
    /// content.
    gone_since: Option<Seen>,
    /// The changed and new entries found so far.
    entries: Vec<ChangeEntry>,
}

/// Scans `lines` (a CDX's lines, in its order: URL by URL, each in date order) for the
/// changes of `window`, keeping the captures `shown(key, date)` allows and the URL keys
/// `wanted(key)` allows, and hands each entry to `emit` in URL key order (a URL's
/// entries in date order). Lines that are no capture are skipped and counted in the
/// returned `bad` count.
pub fn scan(
    lines: impl Iterator<Item = io::Result<Vec<u8>>>,
    window: &Window,
    shown: &dyn Fn(&str, u64) -> bool,
    wanted: &mut dyn FnMut(&str) -> bool,
    mut emit: impl FnMut(ChangeEntry) -> io::Result<()>,
) -> io::Result<(ChangeCounts, u64)> {
    let mut counts = ChangeCounts::default();
    let mut bad = 0u64;
    let mut state: Option<UrlState> = None;
    let mut finish = |s: UrlState, counts: &mut ChangeCounts| -> io::Result<()> {
        counts.urls += 1;
        let mut entries = s.entries;
        if let Some(g) = s.gone_since {
            let (previous_date, previous_digest) = match s.content {
                Some((d, dg)) => (Some(d.to_string()), Some(sha1(&dg))),
                None => (None, None),
            };
            entries.push(ChangeEntry {
                kind: ChangeKind::Gone,
                url: g.url,
                urlkey: s.key.clone(),
                date: g.date.to_string(),
                digest: previous_digest.clone().unwrap_or_default(),
                status: g.status,
                previous_date,
                previous_digest,
                share_changed: None,
            });
        }
        for e in entries {
            counts.add(e.kind);
            emit(e)?;
        }
        Ok(())
    };
    for line in lines {
        let line = line?;
        let Ok(text) = std::str::from_utf8(&line) else {
            bad += 1;
            continue;
        };
        let text = text.trim_end_matches('\r');
        if text.is_empty() || text.starts_with(" CDX") {
            continue;
        }
        let Some((key, seen)) = parse(text, window) else {
            bad += u64::from(text.split(' ').count() < 9);
            continue;
        };
        if state.as_ref().is_none_or(|s| s.key != key) {
            if let Some(s) = state.take() {
                finish(s, &mut counts)?;
            }
            state = Some(UrlState {
                key: key.clone(),
                ..UrlState::default()
            });
        }
        if !wanted(&key) || !shown(&key, seen.date) {
            continue;
        }
        let s = state.as_mut().expect("set above");
        step(s, seen);
    }
    if let Some(s) = state.take() {
        finish(s, &mut counts)?;
    }
    Ok((counts, bad))
}

/// One capture of the URL `s` is about.
fn step(s: &mut UrlState, seen: Seen) {
    if matches!(seen.status, 404 | 410) {
        if seen.in_window && s.gone_since.is_none() && s.content.is_some() {
            s.gone_since = Some(seen.clone());
        }
    } else if seen.is_content() {
        s.gone_since = None;
    }
    if seen.is_content() {
        // A revisit repeats the content before it, whatever its digest field says.
        let digest = match (&s.content, seen.revisit) {
            (Some((_, d)), true) => d.clone(),
            _ => seen.digest.clone(),
        };
        if seen.in_window {
            match &s.content {
                None => {
                    s.entries
                        .push(entry(ChangeKind::New, &s.key, &seen, &digest, None));
                }
                Some((d, prev)) if *prev != digest && s.existed => {
                    let prev = (*d, prev.clone());
                    s.entries.push(entry(
                        ChangeKind::Changed,
                        &s.key,
                        &seen,
                        &digest,
                        Some(prev),
                    ));
                }
                _ => {}
            }
        } else {
            s.existed = true;
        }
        s.content = Some((seen.date, digest));
    }
}

fn entry(
    kind: ChangeKind,
    key: &str,
    seen: &Seen,
    digest: &str,
    previous: Option<(u64, String)>,
) -> ChangeEntry {
    ChangeEntry {
        kind,
        url: seen.url.clone(),
        urlkey: key.to_string(),
        date: seen.date.to_string(),
        digest: sha1(digest),
        status: seen.status,
        previous_date: previous.as_ref().map(|(d, _)| d.to_string()),
        previous_digest: previous.map(|(_, dg)| sha1(&dg)),
        share_changed: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(key: &str, ts: &str, status: &str, digest: &str, file: &str) -> String {
        let mime = if status == "-" {
            "warc/revisit"
        } else {
            "text/html"
        };
        format!("{key} {ts} http://{key}/ {mime} {status} {digest} - - 100 0 {file}")
    }

    fn run(lines: &[String], window: &Window, hide: &str) -> Vec<(ChangeKind, String, String)> {
        let iter = lines.iter().map(|l| Ok(l.as_bytes().to_vec()));
        let hidden = hide.to_string();
        let shown = move |k: &str, _d: u64| k != hidden;
        let mut out = Vec::new();
        scan(iter, window, &shown, &mut |_| true, |e| {
            out.push((e.kind, e.urlkey.clone(), e.date.clone()));
            Ok(())
        })
        .unwrap();
        out
    }

    fn lines() -> Vec<String> {
        vec![
            // a: changed in the window (B), then back to A: two changes.
            line("a", "20240101000000", "200", "A", "one.warc"),
            line("a", "20240201000000", "200", "B", "two.warc"),
            line("a", "20240202000000", "200", "A", "two.warc"),
            // b: unchanged (a revisit and the same digest).
            line("b", "20240101000000", "200", "A", "one.warc"),
            line("b", "20240201000000", "-", "A", "two.warc"),
            // c: new in the window, then changed in it: new only.
            line("c", "20240201000000", "200", "A", "two.warc"),
            line("c", "20240202000000", "200", "B", "two.warc"),
            // d: gone in the window.
            line("d", "20240101000000", "200", "A", "one.warc"),
            line("d", "20240201000000", "404", "N", "two.warc"),
            // e: a 404 in the window, then content again: not gone.
            line("e", "20240101000000", "200", "A", "one.warc"),
            line("e", "20240201000000", "404", "N", "two.warc"),
            line("e", "20240202000000", "200", "A", "two.warc"),
            // f: a 503 between equal contents: unchanged.
            line("f", "20240101000000", "200", "A", "one.warc"),
            line("f", "20240201000000", "503", "Z", "two.warc"),
            line("f", "20240202000000", "200", "A", "two.warc"),
        ]
    }

    #[test]
    fn changed_new_and_gone_in_a_window_of_dates_and_of_a_batch() {
        let want = vec![
            (
                ChangeKind::Changed,
                "a".to_string(),
                "20240201000000".to_string(),
            ),
            (ChangeKind::Changed, "a".into(), "20240202000000".into()),
            (ChangeKind::New, "c".into(), "20240201000000".into()),
            (ChangeKind::Gone, "d".into(), "20240201000000".into()),
        ];
        let since = Window::Since {
            since: 20240115000000,
            until: 20991231235959,
        };
        assert_eq!(run(&lines(), &since, ""), want);
        let batch = Window::Archives(["two.warc".to_string()].into());
        assert_eq!(run(&lines(), &batch, ""), want);
    }

    #[test]
    fn a_hidden_url_is_not_told() {
        let since = Window::Since {
            since: 20240115000000,
            until: 20991231235959,
        };
        let got = run(&lines(), &since, "a");
        assert!(got.iter().all(|(_, k, _)| k != "a"), "{got:?}");
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn until_leaves_later_captures_unread() {
        let w = Window::Since {
            since: 20240115000000,
            until: 20240201120000,
        };
        let got = run(&lines(), &w, "");
        // a's return to A and c's change come after `until`; e's 404 is its last
        // capture then: e is gone.
        assert_eq!(
            got.iter()
                .map(|(k, u, _)| (*k, u.as_str()))
                .collect::<Vec<_>>(),
            [
                (ChangeKind::Changed, "a"),
                (ChangeKind::New, "c"),
                (ChangeKind::Gone, "d"),
                (ChangeKind::Gone, "e"),
            ]
        );
    }
}
