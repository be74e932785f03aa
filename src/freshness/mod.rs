//! How fresh a copy of a page stays, the freshness literature's way (Cho & Garcia-Molina,
//! "Synchronizing a database to improve freshness", SIGMOD 2000, and "Estimating frequency
//! of change", TOIT 2003): a page changes as a Poisson process of rate `r` (changes a day);
//! revisited `f` times a day, its copy is current a share `(f/r)(1 − e^(−r/f))` of the time.
//! `history` reads a URL's captures from its CDX lines, `rate` estimates `r` from captures at
//! irregular dates; `allocate` spreads a budget of fetches a day over pages so that
//! importance-weighted freshness is the most it can be; `nutch` replays Nutch's adaptive
//! schedule over the same history, for comparison.
//! Pure arithmetic: the re-crawl plan that reads a collection builds on it.

pub mod allocate;
pub mod history;
pub mod nutch;
pub mod rate;

/// The share of time a copy of a page changing `rate` times a day stays current when it is
/// fetched `freq` times a day (1 for a page that never changes; 0 when never fetched).
pub fn freshness(rate: f64, freq: f64) -> f64 {
    if rate <= 0.0 {
        return 1.0;
    }
    if freq <= 0.0 {
        return 0.0;
    }
    let x = rate / freq;
    // (1 − e^(−x)) / x, with its limit 1 as x → 0 (`exp_m1` keeps small x exact).
    if x < 1e-12 {
        1.0
    } else {
        -(-x).exp_m1() / x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freshness_is_the_share_of_time_current() {
        assert_eq!(freshness(0.0, 0.1), 1.0);
        assert_eq!(freshness(1.0, 0.0), 0.0);
        // Fetched as often as it changes: (1 − 1/e).
        assert!((freshness(1.0, 1.0) - (1.0 - (-1.0f64).exp())).abs() < 1e-12);
        // Much more often than it changes: almost always current.
        assert!(freshness(0.001, 10.0) > 0.9999);
        // Monotone in the frequency.
        let mut last = 0.0;
        for f in [0.01, 0.1, 0.5, 1.0, 2.0, 10.0] {
            let v = freshness(0.7, f);
            assert!(v > last);
            last = v;
        }
    }
}
