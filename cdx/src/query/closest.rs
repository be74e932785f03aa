//! `closest=`: pywb's `cdx_sort_closest`, a stable sort of the captures by their distance
//! in seconds from a time, cut at `limit`, in bounded memory.
//!
//! When the captures' times never decrease in file order (the captures of one URL, since
//! 14-digit timestamps sort as times), the sorted order is a merge of two streams from
//! the first capture at or after the time: backwards (read from there towards the range's
//! start) and forwards; nothing is held but a run of captures of the same second. Other
//! ranges (a prefix's URLs interleave their times), and `collapseTime`, keep the best
//! `limit` in a heap, at most [`MAX_CLOSEST`] captures.

use std::collections::{BinaryHeap, VecDeque};
use std::io;

use super::record::Record;
use super::run::{for_each_forward, Plan};
use super::{AnswerError, QueryError, MAX_CLOSEST, MAX_CLOSEST_BYTES};
use crate::date::Date14;
use crate::lookup::SortedCdx;

/// Runs `closest=sec` with `limit`; returns how many captures were emitted.
pub(crate) fn closest(
    cdx: &SortedCdx,
    plan: &Plan,
    sec: i64,
    limit: i64,
    emit: &mut dyn FnMut(&Record) -> io::Result<()>,
) -> Result<u64, AnswerError> {
    // One pass first, as pywb reads every capture whatever the limit (so a line of an
    // unknown layout fails the query before any output): are the times in order, and
    // where do they reach `sec`?
    let mut ordered = true;
    let mut last = i64::MIN;
    let mut split: Option<Vec<u8>> = None;
    for line in cdx.lines_from(&plan.range.start)? {
        let line = line?;
        if line.as_slice() >= plan.range.end.as_slice() {
            break;
        }
        let r = Record::parse(&line)?;
        if !plan.keeps(&r) {
            continue;
        }
        let s = Date14::pad_up(r.timestamp()).unix_seconds();
        ordered &= s >= last;
        last = s;
        if split.is_none() && s >= sec {
            split = Some(line);
        }
    }
    if limit <= 0 {
        return Ok(0);
    }
    if ordered && plan.collapse.is_none() {
        merge(cdx, plan, sec, limit as u64, split, emit)
    } else {
        closest_heap(cdx, plan, sec, limit, emit)
    }
}

/// The captures passing the plan's tests backwards from `before` (a line; the range's
/// end when `None`), a run of one second at a time in file order.
struct Backwards<I: Iterator<Item = io::Result<Vec<u8>>>> {
    lines: std::iter::Peekable<I>,
    start: Vec<u8>,
}

impl<I: Iterator<Item = io::Result<Vec<u8>>>> Backwards<I> {
    /// The next run of captures of one second, with that second: its first `want` in
    /// file order (read last, so the others are dropped as they come).
    fn next_run(
        &mut self,
        plan: &Plan,
        want: u64,
    ) -> Result<Option<(i64, Vec<Record>)>, AnswerError> {
        let mut run: VecDeque<Record> = VecDeque::new();
        let mut run_sec = 0;
        while let Some(line) = self.lines.peek() {
            let line = match line {
                Ok(l) => l,
                Err(_) => {
                    let e = self.lines.next().and_then(Result::err);
                    return Err(e.unwrap_or_else(|| io::Error::other("read")).into());
                }
            };
            if line.as_slice() < self.start.as_slice() {
                break;
            }
            let r = Record::parse(line)?;
            if !plan.keeps(&r) {
                self.lines.next();
                continue;
            }
            let s = Date14::pad_up(r.timestamp()).unix_seconds();
            if !run.is_empty() && s != run_sec {
                break;
            }
            run_sec = s;
            run.push_back(r);
            self.lines.next();
            if run.len() as u64 > want {
                run.pop_front();
            }
            if run.len() > MAX_CLOSEST {
                return Err(QueryError::bad(format!(
                    "closest= holds at most {MAX_CLOSEST} captures of one second: give limit={MAX_CLOSEST} or less"
                ))
                .into());
            }
        }
        let started = !run.is_empty();
        Ok(started.then(|| (run_sec, run.into_iter().rev().collect())))
    }
}

/// The merge of the captures before the split (nearest first) and from it on.
fn merge(
    cdx: &SortedCdx,
    plan: &Plan,
    sec: i64,
    limit: u64,
    split: Option<Vec<u8>>,
    emit: &mut dyn FnMut(&Record) -> io::Result<()>,
) -> Result<u64, AnswerError> {
    let boundary = split.clone().unwrap_or_else(|| plan.range.end.clone());
    let mut back = Backwards {
        lines: cdx.lines_before(&boundary)?.peekable(),
        start: plan.range.start.clone(),
    };
    let mut fwd = match &split {
        Some(line) => Some(cdx.lines_from(line)?),
        None => None,
    };
    let mut next_fwd = || -> Result<Option<(i64, Record)>, AnswerError> {
        let Some(lines) = fwd.as_mut() else {
            return Ok(None);
        };
        for line in lines.by_ref() {
            let line = line?;
            if line.as_slice() >= plan.range.end.as_slice() {
                break;
            }
            let r = Record::parse(&line)?;
            if plan.keeps(&r) {
                return Ok(Some((Date14::pad_up(r.timestamp()).unix_seconds(), r)));
            }
        }
        fwd = None;
        Ok(None)
    };
    let mut n = 0u64;
    let mut b = back.next_run(plan, limit)?;
    let mut f = next_fwd()?;
    while n < limit {
        // Equal distances: the earlier in the file (the backward side) first.
        let take_back = match (&b, &f) {
            (Some((bs, _)), Some((fs, _))) => sec - bs <= fs - sec,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if take_back {
            let (_, run) = b.take().expect("a backward run");
            for r in &run {
                if n == limit {
                    break;
                }
                emit(r)?;
                n += 1;
            }
            b = back.next_run(plan, limit - n)?;
        } else {
            let (_, r) = f.take().expect("a forward capture");
            emit(&r)?;
            n += 1;
            f = next_fwd()?;
        }
    }
    Ok(n)
}

/// A capture waiting in the closest heap: ordered by distance, then file order.
struct Near {
    distance: i64,
    seq: u64,
    record: Record,
    bytes: usize,
}

impl PartialEq for Near {
    fn eq(&self, other: &Self) -> bool {
        (self.distance, self.seq) == (other.distance, other.seq)
    }
}
impl Eq for Near {}
impl PartialOrd for Near {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Near {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.distance, self.seq).cmp(&(other.distance, other.seq))
    }
}

/// A stable sort by distance, cut at `limit`, as a heap of at most `limit` captures: for
/// ranges whose times are not in file order, or with `collapseTime`.
fn closest_heap(
    cdx: &SortedCdx,
    plan: &Plan,
    sec: i64,
    limit: i64,
    emit: &mut dyn FnMut(&Record) -> io::Result<()>,
) -> Result<u64, AnswerError> {
    let limit = limit.max(0) as u64;
    let mut heap: BinaryHeap<Near> = BinaryHeap::new();
    let mut bytes = 0usize;
    let mut seq = 0u64;
    for_each_forward(cdx, plan, &mut |r| {
        let distance = (sec - Date14::pad_up(r.timestamp()).unix_seconds()).abs();
        seq += 1;
        let near = Near {
            distance,
            seq,
            bytes: r.line().len() + 64,
            record: r,
        };
        if limit == 0 {
            return Ok(true);
        }
        if (heap.len() as u64) < limit {
            bytes += near.bytes;
            heap.push(near);
        } else if heap.peek().is_some_and(|top| near < *top) {
            let out = heap.pop().map_or(0, |o| o.bytes);
            bytes = bytes - out + near.bytes;
            heap.push(near);
        }
        if heap.len() > MAX_CLOSEST || bytes > MAX_CLOSEST_BYTES {
            return Err(QueryError::bad(format!(
                "closest= keeps at most {MAX_CLOSEST} captures in order: give limit={MAX_CLOSEST} or less, or a narrower query"
            ))
            .into());
        }
        Ok(true)
    })?;
    let sorted = heap.into_sorted_vec();
    for near in &sorted {
        emit(&near.record)?;
    }
    Ok(sorted.len() as u64)
}
