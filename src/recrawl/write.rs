//! The plan in the forms crawlers read: a CSV of every URL (`--format csv`), and the URLs
//! split into the frequency tiers web archives schedule crawls by — daily, weekly,
//! monthly, quarterly, yearly, as UKWA's W3ACT does — as Heritrix seed files or
//! Browsertrix Crawler configurations.
//!
//! A URL goes to the tier whose period is nearest its interval on a log scale (the
//! boundaries are the geometric means of neighbouring periods: 2.6, 14.5, 52.2 and
//! 182.2 days), so no URL is fetched more than 2.7 times as often as planned, or less
//! than 1/2.7 as often; each tier's fetches a day are said in the summary.

use std::io::{self, Write};

use warcdex_cdx::date::Date14;

use super::PlannedUrl;

/// The CSV header.
pub const CSV_HEADER: &str = "url,interval_days,next_due,change_rate,importance,reason,tier,captures,last_capture,redirected_from";

/// A frequency tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// Every day.
    Daily,
    /// Every week.
    Weekly,
    /// Every month.
    Monthly,
    /// Every three months.
    Quarterly,
    /// Every year.
    Yearly,
}

impl Tier {
    /// Every tier, the most frequent first.
    pub const ALL: [Tier; 5] = [
        Tier::Daily,
        Tier::Weekly,
        Tier::Monthly,
        Tier::Quarterly,
        Tier::Yearly,
    ];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Daily => "daily",
            Tier::Weekly => "weekly",
            Tier::Monthly => "monthly",
            Tier::Quarterly => "quarterly",
            Tier::Yearly => "yearly",
        }
    }

    /// Its period in days.
    pub fn days(self) -> f64 {
        match self {
            Tier::Daily => 1.0,
            Tier::Weekly => 7.0,
            Tier::Monthly => 30.0,
            Tier::Quarterly => 91.0,
            Tier::Yearly => 365.0,
        }
    }

    /// The tier of an interval: the one whose period is nearest on a log scale.
    pub fn of(interval_days: f64) -> Tier {
        let mut best = Tier::Daily;
        for t in Tier::ALL {
            let d = (interval_days.ln() - t.days().ln()).abs();
            if d < (interval_days.ln() - best.days().ln()).abs() {
                best = t;
            }
        }
        best
    }
}

/// An ISO date (`YYYY-MM-DD`) of seconds since 1970.
pub fn iso_day(seconds: i64) -> String {
    Date14::from_unix(seconds).map_or_else(String::new, |d| d.iso()[..10].to_string())
}

/// One CSV row (with its line break) of `p`.
pub fn csv_row(p: &PlannedUrl, out: &mut Vec<u8>) {
    use crate::output::csv_field;
    csv_field(out, &p.url);
    let rate = p.change_rate.map_or(String::new(), |r| format!("{r:.6}"));
    let _ = write!(
        out,
        ",{:.4},{},{rate},{:.6},{},{},{},{},",
        p.interval_days,
        iso_day(p.next_due),
        p.importance,
        p.reason.as_str(),
        Tier::of(p.interval_days).name(),
        p.captures,
        iso_day(p.last_capture),
    );
    if let Some(f) = &p.redirected_from {
        csv_field(out, f);
    }
    out.push(b'\n');
}

/// Writes the plan as CSV, header first.
#[derive(Debug)]
pub struct CsvWriter<W: Write> {
    out: W,
    row: Vec<u8>,
}

impl<W: Write> CsvWriter<W> {
    /// A writer that has written the header.
    pub fn new(mut out: W) -> io::Result<Self> {
        writeln!(out, "{CSV_HEADER}")?;
        Ok(CsvWriter {
            out,
            row: Vec::new(),
        })
    }
    /// Writes one URL.
    pub fn write(&mut self, p: &PlannedUrl) -> io::Result<()> {
        self.row.clear();
        csv_row(p, &mut self.row);
        self.out.write_all(&self.row)
    }
    /// The writer, flushed.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The crawler a tiered plan is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TierFormat {
    /// Heritrix: `TIER-seeds.txt`, one URL a line (`#` lines are comments, as Heritrix's
    /// `TextSeedModule` reads them).
    Heritrix,
    /// Browsertrix Crawler: `TIER.yaml`, a `--config` file with `seeds:` and
    /// `scopeType: page` (each seed captured alone, its links not followed).
    Browsertrix,
}

impl TierFormat {
    /// The file name of `tier`'s file.
    pub fn file_name(self, tier: Tier) -> String {
        match self {
            TierFormat::Heritrix => format!("{}-seeds.txt", tier.name()),
            TierFormat::Browsertrix => format!("{}.yaml", tier.name()),
        }
    }

    /// The start of `tier`'s file, for `collection` (a name of letters, digits, `_` and
    /// `-`, as Browsertrix requires), before its URLs.
    pub fn head(self, tier: Tier, collection: &str, urls: u64, fetches: f64) -> String {
        let about = format!(
            "# warcdex recrawl-plan: the {} tier, {urls} URLs, each every {} days or so \
             ({fetches:.3} fetches a day)\n",
            tier.name(),
            tier.days()
        );
        match self {
            TierFormat::Heritrix => about,
            TierFormat::Browsertrix => format!(
                "{about}collection: {}\nscopeType: page\nseeds:\n",
                yaml_string(&format!("{collection}-{}", tier.name()))
            ),
        }
    }

    /// One URL's line.
    pub fn line(self, url: &str) -> String {
        match self {
            TierFormat::Heritrix => format!("{url}\n"),
            TierFormat::Browsertrix => format!("  - {}\n", yaml_string(url)),
        }
    }
}

/// A YAML double-quoted scalar: a JSON string is one (YAML 1.2 is a superset of JSON,
/// and these strings hold no `\/`).
pub fn yaml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// `name` as Browsertrix accepts a collection name: letters, digits, `_` and `-`.
pub fn collection_name(name: &str) -> String {
    let n: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let n = n.trim_start_matches('-').to_string();
    if n.is_empty() {
        "warcdex".into()
    } else {
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_go_to_the_nearest_tier() {
        let cases = [
            (0.5, Tier::Daily),
            (1.0, Tier::Daily),
            (2.6, Tier::Daily),
            (2.7, Tier::Weekly),
            (14.0, Tier::Weekly),
            (15.0, Tier::Monthly),
            (52.0, Tier::Monthly),
            (53.0, Tier::Quarterly),
            (182.0, Tier::Quarterly),
            (183.0, Tier::Yearly),
            (3650.0, Tier::Yearly),
        ];
        for (days, tier) in cases {
            assert_eq!(Tier::of(days), tier, "{days}");
        }
    }

    #[test]
    fn names_and_strings_are_safe_for_yaml() {
        assert_eq!(collection_name("my coll.v2"), "my-coll-v2");
        assert_eq!(collection_name("..."), "warcdex");
        assert_eq!(
            yaml_string("http://a/b?c=\"d\"#x"),
            "\"http://a/b?c=\\\"d\\\"#x\""
        );
    }
}
