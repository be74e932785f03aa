//! A budget of fetches a day spread over pages so that the importance-weighted freshness
//! `Σ w_i F(r_i, f_i)` is the most it can be, with `Σ f_i ≤ budget` and every `f_i` within
//! `[1/max_interval, 1/min_interval]` (Cho & Garcia-Molina, SIGMOD 2000, §5).
//!
//! `F(r, f) = (f/r)(1 − e^(−r/f))` is concave in `f`, so the optimum gives every page the
//! same marginal gain `μ`: `∂F/∂f · w = (w/r)(1 − (1 + x)e^(−x))` with `x = r/f`, which falls
//! from `w/r` (rarely fetched) to 0 (fetched all the time). For a `μ` each page's frequency
//! follows (its own equation, solved for `x`); the total falls as `μ` grows, and `μ` is
//! found by bisection so that the budget is spent. A page whose gain never reaches `μ` —
//! one that changes so fast a fetch is stale at once, or too little to matter — gets the
//! floor, which is why chasing the fastest pages (Nutch's rule) loses freshness.

/// A page to plan: its change rate (changes a day) and its importance (> 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Page {
    /// Changes a day (0: never changes).
    pub rate: f64,
    /// Its weight in the objective.
    pub importance: f64,
}

/// Bounds of every page's revisit interval, in days.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// The shortest interval.
    pub min_days: f64,
    /// The longest interval.
    pub max_days: f64,
}

/// The marginal gain of fetching a page of `rate` and `importance` more often, at `freq`.
pub fn marginal_gain(p: Page, freq: f64) -> f64 {
    if p.rate <= 0.0 || freq <= 0.0 {
        return 0.0;
    }
    let x = p.rate / freq;
    (p.importance / p.rate) * gain_shape(x)
}

/// `1 − (1 + x)e^(−x)`: rises from 0 at `x = 0` to 1.
fn gain_shape(x: f64) -> f64 {
    // −expm1(−x) − x·e^(−x), exact for small x.
    -(-x).exp_m1() - x * (-x).exp()
}

/// The frequency of page `p` at which its marginal gain is `mu`, within `bounds`: the
/// page's share of a budget spent at marginal gain `mu` (`mu` = ∞: the floor; 0: the
/// ceiling).
pub fn freq_at(p: Page, mu: f64, bounds: Bounds) -> f64 {
    let (lo, hi) = (1.0 / bounds.max_days, 1.0 / bounds.min_days);
    if p.rate <= 0.0 || p.importance <= 0.0 {
        return lo;
    }
    // gain_shape(x) = mu·r/w; more than 1 is never reached (the floor), 0 at once.
    let target = mu * p.rate / p.importance;
    if target >= 1.0 || target.is_nan() {
        return lo;
    }
    // gain_shape rises with x: solved for x between the bounds' x.
    let (x_lo, x_hi) = (p.rate / hi, p.rate / lo);
    if gain_shape(x_lo) >= target {
        return hi;
    }
    if gain_shape(x_hi) <= target {
        return lo;
    }
    (p.rate / solve_shape(target, x_lo, x_hi)).clamp(lo, hi)
}

/// The `x` in `[lo, hi]` where `gain_shape(x) = target` (`gain_shape(lo) < target <
/// gain_shape(hi)`): Newton's steps (`gain_shape' = x·e^(−x)`) kept inside a shrinking
/// bracket, a bisection step where one would leave it. A plan of a million pages solves
/// this some sixty million times (once per page for each trial of `mu`): bisection alone
/// took sixty steps a solve, this takes about six.
fn solve_shape(target: f64, mut lo: f64, mut hi: f64) -> f64 {
    // Near 0 the shape is x²/2; near 1 it is 1 − (1 + x)e^(−x) ≈ 1 − x·e^(−x).
    let mut x = if target < 0.5 {
        (2.0 * target).sqrt()
    } else {
        -(1.0 - target).ln() + (1.0 - (1.0 - target).ln()).ln()
    }
    .clamp(lo, hi);
    for _ in 0..100 {
        let g = gain_shape(x) - target;
        if g < 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let slope = x * (-x).exp();
        let next = x - g / slope;
        let next = if next.is_finite() && next > lo && next < hi {
            next
        } else {
            0.5 * (lo + hi)
        };
        if (next - x).abs() <= 1e-13 * x.max(1e-300) || hi - lo <= 1e-13 * hi {
            return next;
        }
        x = next;
    }
    x
}

/// The marginal gain `mu` at which pages spend `budget`, given `total(mu)`: the fetches a
/// day of every page at `mu` (falling as `mu` grows), and `top`, the largest
/// `importance / rate` (above it every page is at its floor). `f64::INFINITY` when even
/// the floors exceed the budget, 0 when the ceilings fit within it; otherwise the
/// smallest `mu` found whose total is within the budget.
pub fn mu_for_budget(mut total: impl FnMut(f64) -> f64, top: f64, budget: f64) -> f64 {
    if top.is_nan() || top <= 0.0 || total(f64::INFINITY) >= budget {
        return f64::INFINITY;
    }
    if total(0.0) <= budget {
        return 0.0;
    }
    // The total falls as mu grows: bisection on log mu.
    let (mut lo_mu, mut hi_mu) = ((top * 1e-15).max(f64::MIN_POSITIVE).ln(), top.ln());
    for _ in 0..64 {
        let mid = (lo_mu + hi_mu) / 2.0;
        if total(mid.exp()) > budget {
            lo_mu = mid;
        } else {
            hi_mu = mid;
        }
    }
    hi_mu.exp()
}

/// Each page's fetches a day: the most importance-weighted freshness for `budget`
/// fetches a day within `bounds`. When even the longest interval for every page exceeds
/// the budget, every page gets the longest (the plan then says it is over budget).
pub fn allocate(pages: &[Page], budget: f64, bounds: Bounds) -> Vec<f64> {
    let total = |mu: f64| -> f64 { pages.iter().map(|&p| freq_at(p, mu, bounds)).sum() };
    let top = pages
        .iter()
        .filter(|p| p.rate > 0.0)
        .map(|p| p.importance / p.rate)
        .fold(0.0, f64::max);
    if pages.is_empty() {
        return Vec::new();
    }
    if top <= 0.0 {
        // Nothing changes: every page at its floor.
        return vec![1.0 / bounds.max_days; pages.len()];
    }
    let mu = mu_for_budget(total, top, budget);
    pages.iter().map(|&p| freq_at(p, mu, bounds)).collect()
}

/// The importance-weighted freshness of `pages` fetched at `freqs`, over the total
/// importance (1: every copy always current).
pub fn weighted_freshness(pages: &[Page], freqs: &[f64]) -> f64 {
    let total: f64 = pages.iter().map(|p| p.importance).sum();
    let got: f64 = (pages.iter().zip(freqs))
        .map(|(p, &f)| p.importance * super::freshness(p.rate, f))
        .sum();
    if total > 0.0 {
        got / total
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::freshness::freshness;
    use crate::test_rng::XorShift;

    const BOUNDS: Bounds = Bounds {
        min_days: 0.5,
        max_days: 365.0,
    };

    #[test]
    fn the_marginal_gain_is_the_derivative_of_freshness() {
        for (rate, w, f) in [(0.3, 2.0, 0.1), (5.0, 1.0, 1.0), (0.01, 0.5, 0.02)] {
            let p = Page {
                rate,
                importance: w,
            };
            let h = f * 1e-6;
            let numeric = w * (freshness(rate, f + h) - freshness(rate, f - h)) / (2.0 * h);
            let exact = marginal_gain(p, f);
            assert!(
                (numeric - exact).abs() < 1e-6 * exact.max(1e-9),
                "{numeric} {exact}"
            );
        }
    }

    fn pages(n: usize, seed: u64) -> Vec<Page> {
        let mut rng = XorShift::new(seed);
        let mut uniform = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        (0..n)
            .map(|i| Page {
                // A quarter never change; the rest from once in 180 days to twice a day.
                rate: match i % 4 {
                    0 => 0.0,
                    _ => (1.0 / 180.0) * (360.0f64).powf(uniform()),
                },
                // Few important pages, many unimportant (a power law).
                importance: 1.0 / (1.0 + uniform() * 99.0).powi(2),
            })
            .collect()
    }

    #[test]
    fn the_budget_and_bounds_hold_and_the_optimum_beats_simpler_plans() {
        let ps = pages(2000, 42);
        // A monthly fetch of every page.
        let budget = ps.len() as f64 / 30.0;
        let f = allocate(&ps, budget, BOUNDS);
        let spent: f64 = f.iter().sum();
        assert!(spent <= budget * (1.0 + 1e-9), "{spent} > {budget}");
        assert!(spent >= budget * 0.999, "budget left unspent: {spent}");
        for &x in &f {
            assert!((1.0 / 365.0 - 1e-12..=2.0 + 1e-12).contains(&x), "{x}");
        }
        let optimum = weighted_freshness(&ps, &f);
        let uniform = weighted_freshness(&ps, &vec![1.0 / 30.0; ps.len()]);
        // Proportional to the change rate (within the bounds, scaled to the budget).
        let rates: f64 = ps.iter().map(|p| p.rate.max(1.0 / 365.0)).sum();
        let prop: Vec<f64> = ps
            .iter()
            .map(|p| p.rate.max(1.0 / 365.0) * budget / rates)
            .collect();
        let proportional = weighted_freshness(&ps, &prop);
        assert!(optimum > uniform + 0.01, "{optimum} vs uniform {uniform}");
        assert!(
            optimum > proportional,
            "{optimum} vs proportional {proportional}"
        );
        // Pages that never change get the floor.
        for (p, &x) in ps.iter().zip(&f) {
            if p.rate == 0.0 {
                assert_eq!(x, 1.0 / 365.0);
            }
        }
    }

    #[test]
    fn two_pages_match_a_search_of_every_split() {
        let ps = [
            Page {
                rate: 0.5,
                importance: 1.0,
            },
            Page {
                rate: 0.05,
                importance: 3.0,
            },
        ];
        let budget = 0.2;
        let f = allocate(&ps, budget, BOUNDS);
        let best = (1..2000)
            .map(|k| {
                let a = budget * k as f64 / 2000.0;
                weighted_freshness(&ps, &[a, budget - a])
            })
            .fold(0.0, f64::max);
        let got = weighted_freshness(&ps, &f);
        assert!(got >= best - 1e-6, "{got} < {best}");
    }

    #[test]
    fn an_impossible_budget_gives_every_page_the_longest_interval() {
        let ps = pages(100, 7);
        let f = allocate(&ps, 0.01, BOUNDS);
        assert!(f.iter().all(|&x| x == 1.0 / 365.0));
        // A budget beyond every ceiling: the pages that change at their shortest
        // interval, those that never change still at their longest.
        let f = allocate(&ps, 1e6, BOUNDS);
        for (p, &x) in ps.iter().zip(&f) {
            assert_eq!(x, if p.rate > 0.0 { 2.0 } else { 1.0 / 365.0 });
        }
    }

    #[test]
    fn the_shape_is_solved_to_the_bit_a_bisection_finds() {
        let mut rng = XorShift::new(11);
        for _ in 0..2000 {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let (lo, hi) = (1e-6, 1e4);
            // Targets from 1e-12 to 1 − 1e-9, spread on a log scale.
            let target = (10f64.powf(-12.0 * u)).min(1.0 - 1e-9);
            if gain_shape(lo) >= target || gain_shape(hi) <= target {
                continue;
            }
            let x = solve_shape(target, lo, hi);
            let (mut a, mut b) = (lo, hi);
            for _ in 0..200 {
                let m = 0.5 * (a + b);
                if gain_shape(m) < target {
                    a = m;
                } else {
                    b = m;
                }
            }
            assert!((x - a).abs() <= 1e-9 * a, "target {target}: {x} vs {a}");
        }
    }
}
