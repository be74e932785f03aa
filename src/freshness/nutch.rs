//! Nutch's `AdaptiveFetchSchedule` replayed over a URL's history, for comparison with the
//! plan `allocate` makes: a URL starts at Nutch's default interval
//! (`db.fetch.interval.default`, 30 days); at each fetch its interval grows by `inc_rate`
//! (0.4) when the content was unchanged and shrinks by `dec_rate` (0.2) when it changed,
//! within `[min, max]` (`db.fetch.schedule.adaptive.{inc_rate,dec_rate,min_interval}`,
//! `db.fetch.interval.max`). Nutch's optional sync-delta step, which moves the next fetch
//! toward the time a change was seen, needs the server's modification times and is left
//! out: web archives rarely have them.

use super::allocate::Bounds;
use super::rate::Interval;

/// Nutch's default fetch interval, in days.
pub const DEFAULT_INTERVAL_DAYS: f64 = 30.0;
/// How much an unchanged fetch lengthens the interval.
pub const INC_RATE: f64 = 0.4;
/// How much a changed fetch shortens it.
pub const DEC_RATE: f64 = 0.2;

/// The interval, in days, Nutch's adaptive schedule reaches after the fetches whose
/// `intervals` (in order) are given, starting from [`DEFAULT_INTERVAL_DAYS`].
pub fn adaptive_interval(intervals: &[Interval], bounds: Bounds) -> f64 {
    let mut days = DEFAULT_INTERVAL_DAYS.clamp(bounds.min_days, bounds.max_days);
    for i in intervals {
        days *= if i.changed {
            1.0 - DEC_RATE
        } else {
            1.0 + INC_RATE
        };
        days = days.clamp(bounds.min_days, bounds.max_days);
    }
    days
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: Bounds = Bounds {
        min_days: 1.0,
        max_days: 365.0,
    };

    fn iv(changed: bool) -> Interval {
        Interval {
            days: 10.0,
            changed,
        }
    }

    #[test]
    fn unchanged_lengthens_changed_shortens_within_bounds() {
        assert_eq!(adaptive_interval(&[], B), 30.0);
        assert!((adaptive_interval(&[iv(false)], B) - 42.0).abs() < 1e-12);
        assert!((adaptive_interval(&[iv(true)], B) - 24.0).abs() < 1e-12);
        assert!((adaptive_interval(&[iv(true), iv(false)], B) - 33.6).abs() < 1e-12);
        // Changed at every fetch: down to the minimum and no lower.
        assert_eq!(adaptive_interval(&[iv(true); 40], B), 1.0);
        assert_eq!(adaptive_interval(&[iv(false); 40], B), 365.0);
    }
}
