//! A page's change rate from its captures. Consecutive captures at irregular dates give
//! intervals `t_i` (days) and whether the content changed across each. Under a Poisson
//! process of rate `r` an interval of length `t` shows a change with probability
//! `1 − e^(−rt)`; several changes inside one interval look like one.
//!
//! The naive estimate, changes seen over days observed, therefore falls short as soon as
//! intervals are long against `1/r` (it can never exceed one change per interval), and
//! the share of intervals that saw a change says nothing of the days between them when
//! the intervals differ. The estimate here is the maximum of the likelihood over the
//! intervals as they were (Cho & Garcia-Molina, TOIT 2003, the irregular-access case): the
//! `r` where `Σ_changed t_i / (e^(r t_i) − 1) = Σ_unchanged t_j`. With no change seen it
//! would be 0 and with every interval changed infinite; each is then given half an
//! observation more (half a change over the days observed; an unchanged interval half the
//! shortest), so a page is never planned as changeless or as changing without bound.

/// One interval between two consecutive captures of a page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Its length in days (> 0).
    pub days: f64,
    /// Whether the content (its digest) differed at its end from its start.
    pub changed: bool,
}

/// The slowest and fastest rates the estimate is bounded to (changes a day): once in 10,000
/// years, a thousand times a day.
const MIN_RATE: f64 = 1.0 / 3_650_000.0;
const MAX_RATE: f64 = 1000.0;

/// The naive estimate: changes seen over days observed (`None` without an interval).
pub fn naive(intervals: &[Interval]) -> Option<f64> {
    let days: f64 = intervals.iter().map(|i| i.days).sum();
    let changes = intervals.iter().filter(|i| i.changed).count() as f64;
    (days > 0.0).then(|| changes / days)
}

/// The maximum-likelihood change rate over `intervals` (changes a day), with the half
/// observation of the degenerate cases; `None` without an interval of positive length.
pub fn estimate(intervals: &[Interval]) -> Option<f64> {
    let valid: Vec<Interval> = intervals.iter().copied().filter(|i| i.days > 0.0).collect();
    if valid.is_empty() {
        return None;
    }
    let days: f64 = valid.iter().map(|i| i.days).sum();
    let changed = valid.iter().filter(|i| i.changed).count();
    if changed == 0 {
        return Some((0.5 / days).clamp(MIN_RATE, MAX_RATE));
    }
    let mut unchanged_days: f64 = valid.iter().filter(|i| !i.changed).map(|i| i.days).sum();
    if unchanged_days == 0.0 {
        let shortest = valid.iter().map(|i| i.days).fold(f64::INFINITY, f64::min);
        unchanged_days = shortest / 2.0;
    }
    // The score Σ_changed t/(e^(rt) − 1) falls from +∞ to 0 as r grows: bisection on
    // log r finds where it meets the unchanged days.
    let score = |r: f64| -> f64 {
        valid
            .iter()
            .filter(|i| i.changed)
            .map(|i| i.days / (r * i.days).exp_m1())
            .sum()
    };
    let (mut lo, mut hi) = (MIN_RATE.ln(), MAX_RATE.ln());
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if score(mid.exp()) > unchanged_days {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(((lo + hi) / 2.0).exp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    /// Intervals of a page changing at `rate`, observed at irregular dates (each interval
    /// uniform in [min_days, max_days]), `n` of them.
    fn observe(rate: f64, n: usize, min_days: f64, max_days: f64, seed: u64) -> Vec<Interval> {
        let mut rng = XorShift::new(seed);
        let mut uniform = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        (0..n)
            .map(|_| {
                let days = min_days + (max_days - min_days) * uniform();
                // A change happened within `days` with probability 1 − e^(−rate·days).
                let changed = uniform() < 1.0 - (-rate * days).exp();
                Interval { days, changed }
            })
            .collect()
    }

    #[test]
    fn the_estimate_recovers_known_rates_from_irregular_intervals() {
        // From once in 100 days to twice a day, observed at intervals of 1 to 30 days (a
        // fast page more often: a page changing twice a day and seen monthly shows no
        // unchanged interval to measure it by).
        let cases = [
            (0.01, 1.0, 30.0),
            (0.05, 1.0, 30.0),
            (0.2, 1.0, 30.0),
            (0.5, 1.0, 10.0),
            (2.0, 0.1, 2.0),
        ];
        for (i, (rate, min, max)) in cases.into_iter().enumerate() {
            let mut sum = 0.0;
            let seeds = 20;
            for s in 0..seeds {
                let obs = observe(rate, 1000, min, max, 7 + 100 * i as u64 + s);
                sum += estimate(&obs).unwrap();
            }
            let mean = sum / seeds as f64;
            assert!(
                (mean / rate - 1.0).abs() < 0.1,
                "rate {rate}: mean estimate {mean}"
            );
        }
    }

    #[test]
    fn the_naive_share_falls_short_where_the_estimate_does_not() {
        // Changing about every 2 days, seen every 1 to 30 days: most intervals hold
        // several changes, which the naive estimate counts as one.
        let rate = 0.5;
        let obs = observe(rate, 3000, 1.0, 30.0, 99);
        let naive = naive(&obs).unwrap();
        let mle = estimate(&obs).unwrap();
        assert!(naive < 0.2 * rate, "naive {naive}");
        assert!((mle / rate - 1.0).abs() < 0.15, "estimate {mle}");
    }

    #[test]
    fn no_change_and_every_change_are_bounded() {
        let calm = [Interval {
            days: 30.0,
            changed: false,
        }; 4];
        let r = estimate(&calm).unwrap();
        assert!((r - 0.5 / 120.0).abs() < 1e-12, "{r}");
        let busy = [Interval {
            days: 1.0,
            changed: true,
        }; 5];
        let r = estimate(&busy).unwrap();
        assert!(r.is_finite() && r > 1.0 && r < MAX_RATE, "{r}");
        assert_eq!(estimate(&[]), None);
        assert_eq!(
            estimate(&[Interval {
                days: 0.0,
                changed: true
            }]),
            None
        );
    }
}
