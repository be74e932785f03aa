//! The plan's first pass: `all.cdx` read once, URL by URL (its lines come grouped by URL
//! key, in date order), each URL's captures up to the plan's date turned into a
//! candidate — its change rate estimated from its history, its importance from the link
//! scores read beside it in key order, and what its latest captures say (gone, or a
//! redirect to plan at its target). Candidates go through an external sort by the key
//! they are planned under, so that a redirect's target and the target's own history
//! become one candidate, and are written to two spill files the budget's solver and the
//! writer read in turn. Memory holds one URL's captures (the latest [`MAX_CAPTURES`]).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufWriter, Write};
use std::path::Path;

use warcdex_cdx::{url_key, ExternalSorter, KeyStyle, SortOptions};

use super::importance::LinkScores;
use super::{PlanOptions, Reason};
use crate::freshness::history::{history, Capture, History};
use crate::freshness::nutch::adaptive_interval;
use crate::freshness::rate::estimate;
use crate::path_error::ResultAtPath;
use crate::progress::Progress;

/// The captures of one URL the estimate reads at most: its latest. A URL captured every
/// hour for years would otherwise hold them all in memory; a thousand intervals measure
/// a rate to a few per cent.
pub const MAX_CAPTURES: usize = 1000;

/// One URL to plan, as the spill files hold it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Candidate {
    /// The URL to fetch.
    pub url: String,
    /// Why it is planned as it is.
    pub reason: Reason,
    /// Its estimated change rate (changes a day); `None`: the prior.
    pub rate: Option<f64>,
    /// Its importance.
    pub importance: f64,
    /// Nutch's adaptive interval over its history, in days.
    pub nutch_days: f64,
    /// Its latest capture (seconds since 1970).
    pub last_seconds: i64,
    /// Its captures up to the plan's date.
    pub captures: u64,
    /// The URL that redirects to it, for a redirect's target.
    pub from: Option<String>,
}

/// Counts of the first pass.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct FirstPass {
    /// URLs read.
    pub urls: u64,
    /// URLs dropped: 404 or 410 on their latest `drop_after` captures.
    pub dropped: u64,
    /// URLs that are no http(s) URL (`dns:`, `whois:` records).
    pub skipped: u64,
    /// Lines that are no CDX line of a capture.
    pub bad_lines: u64,
    /// Captures after the plan's date, left out.
    pub later: u64,
    /// Candidates written.
    pub candidates: u64,
    /// Redirects whose target could not be read from their record (planned as they are).
    pub unread_redirects: u64,
}

/// The log-rate histogram whose median is the prior of a URL without an estimate.
#[derive(Debug, Clone)]
pub(super) struct RateHistogram {
    bins: Vec<u64>,
}

const BIN_LO: f64 = -16.0; // e^-16 a day: once in 24,000 years
const BIN_WIDTH: f64 = 0.05;
const BINS: usize = 460; // up to e^7, a thousand times a day

impl RateHistogram {
    fn new() -> Self {
        RateHistogram {
            bins: vec![0; BINS],
        }
    }
    fn add(&mut self, rate: f64) {
        let i = ((rate.ln() - BIN_LO) / BIN_WIDTH).floor();
        let i = i.clamp(0.0, (BINS - 1) as f64) as usize;
        self.bins[i] += 1;
    }
    /// The median rate (the middle of its bin), `None` without one.
    pub fn median(&self) -> Option<f64> {
        let n: u64 = self.bins.iter().sum();
        if n == 0 {
            return None;
        }
        let mut seen = 0;
        for (i, &c) in self.bins.iter().enumerate() {
            seen += c;
            if 2 * seen >= n {
                return Some((BIN_LO + (i as f64 + 0.5) * BIN_WIDTH).exp());
            }
        }
        None
    }
}

/// The first pass over `cdx` (`all.cdx`, named `path` in errors): candidates sorted by
/// the key they are planned under, in `out`.
///
/// `locate(archive, offset, length)` reads the `Location` of a redirect whose CDX line
/// does not say it (pywb's CDX leaves its `redirect` field `-`): only the latest capture
/// of a URL whose latest capture is a redirect is read.
pub(super) fn first_pass(
    path: &Path,
    cdx: impl BufRead,
    opts: &PlanOptions,
    style: KeyStyle,
    scores: &mut LinkScores,
    locate: &dyn Fn(&str, u64, u64) -> Option<String>,
    progress: &dyn Progress,
) -> crate::path_error::Result<(ExternalSorter, RateHistogram, FirstPass)> {
    let mut state = Pass {
        sorter: ExternalSorter::new(SortOptions {
            unique: false,
            ..opts.sort.clone()
        }),
        rates: RateHistogram::new(),
        counts: FirstPass::default(),
        opts,
        style,
        locate,
        line: Vec::new(),
    };
    let mut group = Group::default();
    let mut key = String::new();
    let mut reported = 0;
    for (n, line) in cdx.split(b'\n').enumerate() {
        let line = line.at(path)?;
        progress.advance(line.len() as u64 + 1);
        let Ok(text) = std::str::from_utf8(&line) else {
            state.counts.bad_lines += 1;
            continue;
        };
        let text = text.trim_end_matches('\r');
        if text.is_empty() || text.starts_with(" CDX") {
            continue;
        }
        let f: Vec<&str> = text.split(' ').collect();
        let Some((k, capture)) = Capture::from_cdx_fields(&f) else {
            state.counts.bad_lines += 1;
            if reported < 10 {
                reported += 1;
                eprintln!(
                    "warcdex: {}: line {}: not a CDX line, left out",
                    path.display(),
                    n + 1
                );
            }
            continue;
        };
        if capture.seconds > opts.as_of {
            state.counts.later += 1;
            continue;
        }
        if k != key {
            if !group.captures.is_empty() {
                state.flush(&key, &mut group, scores)?;
            }
            group.clear();
            key.clear();
            key.push_str(k);
        }
        group.push(capture, &f);
    }
    if !group.captures.is_empty() {
        state.flush(&key, &mut group, scores)?;
    }
    Ok((state.sorter, state.rates, state.counts))
}

/// The captures of the URL being read, and what its plan needs of their CDX lines.
#[derive(Debug, Default)]
struct Group {
    /// The latest [`MAX_CAPTURES`], in date order.
    captures: VecDeque<Capture>,
    /// All of them, counted.
    count: u64,
    /// The URL as the latest capture of content gave it (http and https of one page share
    /// a key), and as the latest capture did.
    content_url: String,
    last_url: String,
    /// Where the latest capture is: archive, offset and length (CDX11 lines only).
    archive: String,
    place: Option<(u64, u64)>,
}

impl Group {
    fn clear(&mut self) {
        self.captures.clear();
        self.count = 0;
        self.content_url.clear();
    }

    /// Adds `capture`, whose CDX line's fields are `f`.
    fn push(&mut self, capture: Capture, f: &[&str]) {
        if capture.is_content() {
            self.content_url.clear();
            self.content_url.push_str(f[2]);
        }
        self.last_url.clear();
        self.last_url.push_str(f[2]);
        self.place = None;
        if f.len() >= 11 {
            self.archive.clear();
            self.archive.push_str(f[10]);
            self.place = f[9].parse().ok().zip(f[8].parse().ok());
        }
        if self.captures.len() == MAX_CAPTURES {
            self.captures.pop_front();
        }
        self.captures.push_back(capture);
        self.count += 1;
    }

    /// The URL to fetch: the latest capture of content's, else the latest capture's.
    fn url(&self) -> &str {
        if self.content_url.is_empty() {
            &self.last_url
        } else {
            &self.content_url
        }
    }
}

struct Pass<'a> {
    sorter: ExternalSorter,
    rates: RateHistogram,
    counts: FirstPass,
    opts: &'a PlanOptions,
    style: KeyStyle,
    locate: &'a dyn Fn(&str, u64, u64) -> Option<String>,
    line: Vec<u8>,
}

impl Pass<'_> {
    fn flush(&mut self, key: &str, group: &mut Group, scores: &mut LinkScores) -> io::Result<()> {
        self.counts.urls += 1;
        let Some(h) = history(group.captures.make_contiguous()) else {
            return Ok(());
        };
        let importance = scores.boost_of(key.as_bytes()).unwrap_or(scores.floor());
        let url = group.url();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            self.counts.skipped += 1;
            return Ok(());
        }
        if self.opts.drop_after > 0 && h.gone_streak >= self.opts.drop_after {
            self.counts.dropped += 1;
            return Ok(());
        }
        let nutch_days = adaptive_interval(&h.intervals, self.opts.bounds);
        let mut c = Candidate {
            url: url.to_string(),
            reason: Reason::Estimated,
            rate: None,
            importance,
            nutch_days,
            last_seconds: h.last_seconds,
            captures: group.count,
            from: None,
        };
        let mut plan_key = key.to_string();
        if h.gone_streak > 0 {
            c.reason = Reason::Gone;
        } else if let Some(target) = self.redirect_of(&h, group).and_then(|t| resolve(url, &t)) {
            match url_key(&target, self.style) {
                Ok(k) if k != key => {
                    c.reason = Reason::Redirect;
                    c.from = Some(std::mem::replace(&mut c.url, target));
                    c.nutch_days = self.opts.bounds.max_days.min(30.0);
                    plan_key = k;
                }
                _ => {}
            }
        }
        if c.reason == Reason::Estimated {
            c.rate = estimate(&h.intervals);
            match c.rate {
                Some(r) => self.rates.add(r),
                None => c.reason = Reason::Prior,
            }
        }
        // A redirect's own entry sorts after the target's own history (origin 1).
        let origin = u8::from(c.reason == Reason::Redirect);
        self.line.clear();
        self.line.extend_from_slice(plan_key.as_bytes());
        write!(self.line, "\x01{origin}\x01")?;
        encode(&c, &mut self.line);
        self.sorter.push(&self.line)?;
        self.counts.candidates += 1;
        Ok(())
    }
}

impl Pass<'_> {
    /// Where a URL whose latest capture is a redirect leads: its CDX line's `redirect`
    /// field, else the `Location` of its record.
    fn redirect_of(&mut self, h: &History, group: &Group) -> Option<String> {
        if !(300..400).contains(&h.last_status) {
            return None;
        }
        if let Some(r) = &h.redirect {
            return Some(r.clone());
        }
        let (offset, length) = group.place?;
        let found = (self.locate)(&group.archive, offset, length);
        if found.is_none() {
            self.counts.unread_redirects += 1;
        }
        found
    }
}

/// `target` (a redirect's `Location`) made absolute against `base`; `None` when it is no
/// http(s) URL.
fn resolve(base: &str, target: &str) -> Option<String> {
    let u = url::Url::parse(base).ok()?.join(target).ok()?;
    matches!(u.scheme(), "http" | "https").then(|| {
        let mut u = u;
        u.set_fragment(None);
        u.to_string()
    })
}

/// A candidate as one line of tab-separated fields (URLs of CDX lines hold no tab).
pub(super) fn encode(c: &Candidate, out: &mut Vec<u8>) {
    let rate = c
        .rate
        .map_or("-".to_string(), |r| format!("{:016x}", r.to_bits()));
    let _ = write!(
        out,
        "{}\t{}\t{rate}\t{:016x}\t{:016x}\t{}\t{}\t{}",
        c.url,
        c.reason.as_str(),
        c.importance.to_bits(),
        c.nutch_days.to_bits(),
        c.last_seconds,
        c.captures,
        c.from.as_deref().unwrap_or("-"),
    );
}

/// The candidate [`encode`] wrote.
pub(super) fn decode(line: &[u8]) -> Option<Candidate> {
    let text = std::str::from_utf8(line).ok()?;
    let f: Vec<&str> = text.split('\t').collect();
    if f.len() != 8 {
        return None;
    }
    let bits = |s: &str| u64::from_str_radix(s, 16).ok().map(f64::from_bits);
    Some(Candidate {
        url: f[0].to_string(),
        reason: Reason::parse(f[1])?,
        rate: if f[2] == "-" { None } else { Some(bits(f[2])?) },
        importance: bits(f[3])?,
        nutch_days: bits(f[4])?,
        last_seconds: f[5].parse().ok()?,
        captures: f[6].parse().ok()?,
        from: (f[7] != "-").then(|| f[7].to_string()),
    })
}

/// The sorted candidates merged by the key they are planned under — a target's own
/// history first, then the redirects to it, whose importance it takes when greater —
/// and written to `spill`, one line each; returns how many.
pub(super) fn merge(sorter: ExternalSorter, spill: &File) -> io::Result<u64> {
    let mut out = BufWriter::new(spill.try_clone()?);
    let mut current: Option<(Vec<u8>, Candidate)> = None;
    let mut n = 0u64;
    let mut line = Vec::new();
    let mut emit = |c: &Candidate, out: &mut BufWriter<File>| -> io::Result<()> {
        line.clear();
        encode(c, &mut line);
        line.push(b'\n');
        n += 1;
        out.write_all(&line)
    };
    sorter.finish_with(|l| {
        let mut parts = l.splitn(3, |&b| b == 0x01);
        let (Some(key), Some(_), Some(rest)) = (parts.next(), parts.next(), parts.next()) else {
            return Ok(());
        };
        let Some(c) = decode(rest) else {
            return Ok(());
        };
        match &mut current {
            Some((k, held)) if k.as_slice() == key => {
                held.importance = held.importance.max(c.importance);
            }
            _ => {
                if let Some((_, held)) = current.take() {
                    emit(&held, &mut out)?;
                }
                current = Some((key.to_vec(), c));
            }
        }
        Ok(())
    })?;
    if let Some((_, held)) = current.take() {
        emit(&held, &mut out)?;
    }
    out.flush()?;
    Ok(n)
}

/// Hands each candidate of `spill` (what [`merge`] wrote) to `f`, in order.
pub(super) fn each_candidate(
    spill: &File,
    mut f: impl FnMut(Candidate) -> io::Result<()>,
) -> io::Result<()> {
    let mut reader = io::BufReader::new(super::rewound(spill)?);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if let Some(c) = decode(&line) {
            f(c)?;
        }
    }
}
