//! The budget spread over the candidates: the marginal gain `mu` at which the optimal
//! schedule spends the budget (`crate::freshness::allocate`), or the factor that scales
//! Nutch's intervals to it. The candidates' numbers are copied once into a binary spill
//! file (25 bytes a URL) that each step of the bisection reads through: memory stays
//! flat however many URLs there are, and a million URLs take a few seconds.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};

use super::candidates::{each_candidate, Candidate};
use super::{rewound, PlanOptions, Reason, Schedule};
use crate::freshness::allocate::{freq_at, mu_for_budget, Page};

/// The solved budget: how to get each candidate's fetches a day.
#[derive(Debug, Clone, Copy)]
pub(super) struct Solved {
    schedule: Schedule,
    /// The optimal schedule's marginal gain (∞: every URL at its floor).
    mu: f64,
    /// Nutch's scale on its frequencies.
    scale: f64,
    prior: f64,
    bounds: crate::freshness::allocate::Bounds,
    /// Even the floors exceed the budget.
    pub over_budget: bool,
}

impl Solved {
    /// Fetches a day of `c`.
    pub fn freq_of(&self, c: &Candidate) -> f64 {
        let n = Numbers::of(c, self.prior);
        self.freq(&n)
    }

    fn freq(&self, n: &Numbers) -> f64 {
        let (lo, hi) = (1.0 / self.bounds.max_days, 1.0 / self.bounds.min_days);
        if n.gone {
            return lo;
        }
        match self.schedule {
            Schedule::Optimal => freq_at(n.page(), self.mu, self.bounds),
            Schedule::NutchAdaptive => (self.scale / n.nutch_days).clamp(lo, hi),
        }
    }
}

/// What the solver reads of a candidate.
#[derive(Debug, Clone, Copy)]
struct Numbers {
    gone: bool,
    rate: f64,
    importance: f64,
    nutch_days: f64,
}

impl Numbers {
    fn of(c: &Candidate, prior: f64) -> Numbers {
        Numbers {
            gone: c.reason == Reason::Gone,
            rate: c.rate.unwrap_or(prior),
            importance: c.importance,
            nutch_days: c.nutch_days,
        }
    }
    fn page(&self) -> Page {
        Page {
            rate: self.rate,
            importance: self.importance,
        }
    }
    fn write(&self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(&[u8::from(self.gone)])?;
        for x in [self.rate, self.importance, self.nutch_days] {
            w.write_all(&x.to_le_bytes())?;
        }
        Ok(())
    }
    fn read(r: &mut impl Read) -> io::Result<Option<Numbers>> {
        let mut b = [0u8; 25];
        match r.read_exact(&mut b) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        let f = |i: usize| f64::from_le_bytes(b[1 + 8 * i..9 + 8 * i].try_into().expect("8"));
        Ok(Some(Numbers {
            gone: b[0] != 0,
            rate: f(0),
            importance: f(1),
            nutch_days: f(2),
        }))
    }
}

/// Solves the budget over the candidates in `spill` (the lines `candidates::merge` wrote).
pub(super) fn solve(spill: &File, opts: &PlanOptions, prior: f64) -> io::Result<Solved> {
    let bounds = opts.bounds;
    let (lo, hi) = (1.0 / bounds.max_days, 1.0 / bounds.min_days);
    let numbers = warcdex_cdx::sort::temp_file(opts.sort.tmp_dir.as_deref())?;
    let mut w = BufWriter::new(numbers.try_clone()?);
    let (mut gone, mut live) = (0u64, 0u64);
    let (mut top, mut min_nutch, mut max_nutch) = (0.0f64, f64::INFINITY, 0.0f64);
    each_candidate(spill, |c| {
        let n = Numbers::of(&c, prior);
        if n.gone {
            gone += 1;
            return Ok(());
        }
        live += 1;
        if n.rate > 0.0 {
            top = top.max(n.importance / n.rate);
        }
        min_nutch = min_nutch.min(n.nutch_days);
        max_nutch = max_nutch.max(n.nutch_days);
        n.write(&mut w)
    })?;
    w.flush()?;
    drop(w);
    // Gone URLs are at their floor whatever the rest get.
    let budget = opts.budget - gone as f64 * lo;
    let over_budget = budget < live as f64 * lo * (1.0 - 1e-12);
    let mut solved = Solved {
        schedule: opts.schedule,
        mu: f64::INFINITY,
        scale: 0.0,
        prior,
        bounds,
        over_budget,
    };
    let total = |s: &Solved| -> io::Result<f64> {
        let mut r = BufReader::with_capacity(1 << 20, rewound(&numbers)?);
        let mut sum = 0.0;
        while let Some(n) = Numbers::read(&mut r)? {
            sum += s.freq(&n);
        }
        Ok(sum)
    };
    let mut failed = None;
    match opts.schedule {
        Schedule::Optimal => {
            let mu = mu_for_budget(
                |mu| {
                    let s = Solved { mu, ..solved };
                    total(&s).unwrap_or_else(|e| {
                        failed = Some(e);
                        0.0
                    })
                },
                top,
                budget,
            );
            solved.mu = mu;
        }
        Schedule::NutchAdaptive if live > 0 && !over_budget => {
            // Σ clamp(scale / days) rises with scale: bisection on log scale between
            // every URL at its floor and every URL at its ceiling.
            let (mut a, mut b) = ((lo * min_nutch).ln() - 1.0, (hi * max_nutch).ln() + 1.0);
            for _ in 0..64 {
                let mid = 0.5 * (a + b);
                let s = Solved {
                    scale: mid.exp(),
                    ..solved
                };
                if total(&s)? > budget {
                    b = mid;
                } else {
                    a = mid;
                }
            }
            solved.scale = a.exp();
        }
        Schedule::NutchAdaptive => solved.scale = lo * min_nutch,
    }
    if let Some(e) = failed {
        return Err(e);
    }
    Ok(solved)
}
