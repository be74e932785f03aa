//! pywb 2.10's access-control lists (`.aclj`) and embargo, read and applied exactly as
//! its `AccessChecker` applies them (`pywb/warcserver/access_checker.py`).
//!
//! A line is `SURT-PREFIX TIMESTAMP JSON`; the timestamp field is reserved (`-`) and, as
//! in pywb, not read. The rule of a capture is found by walking the lines in reverse
//! byte order from its key: the first rule whose key is a prefix of the capture's key
//! (or the key followed by `###`, an exact-URL rule, or `*,`) decides; among the lines
//! of that key, one naming the asking user wins over those naming no user, and lines
//! naming another user are passed over. pywb walks line by line; here each candidate key
//! is looked up directly, and the few places where pywb's walk stops early (it gives up
//! at the first line below the key's top-level domain) are kept, so the answers are the
//! same (a test compares them with pywb's on random rules).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::time::Period;
use super::AccessError;
use warcdex_cdx::date::Date14;

/// What a rule or the default gives a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Shown.
    Allow,
    /// Shown and not embargoed (pywb's `allow_ignore_embargo`).
    AllowIgnoreEmbargo,
    /// Known to exist, not shown: asked for by URL, a 451.
    Block,
    /// As if the collection never held it.
    Exclude,
}

impl Access {
    /// Reads pywb's name of an access.
    pub fn parse(s: &str) -> Option<Access> {
        Some(match s {
            "allow" => Access::Allow,
            "allow_ignore_embargo" => Access::AllowIgnoreEmbargo,
            "block" => Access::Block,
            "exclude" => Access::Exclude,
            _ => return None,
        })
    }

    /// pywb's name of the access.
    pub fn name(self) -> &'static str {
        match self {
            Access::Allow => "allow",
            Access::AllowIgnoreEmbargo => "allow_ignore_embargo",
            Access::Block => "block",
            Access::Exclude => "exclude",
        }
    }
}

/// A date condition of a rule or an embargo: only the first of `before`, `after`,
/// `newer`, `older` that is set counts, as in pywb.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DateCondition {
    /// Captures before this moment (seconds since the epoch).
    pub before: Option<i64>,
    /// Captures after this moment.
    pub after: Option<i64>,
    /// Captures newer than now less this period.
    pub newer: Option<Period>,
    /// Captures older than now less this period.
    pub older: Option<Period>,
}

impl DateCondition {
    /// Whether the condition names a date (`None` when no field is set).
    pub fn holds(&self, capture: i64, now: i64) -> Option<bool> {
        if let Some(b) = self.before {
            return Some(capture < b);
        }
        if let Some(a) = self.after {
            return Some(capture > a);
        }
        if let Some(p) = self.newer {
            return Some(p.before(now) < capture);
        }
        if let Some(p) = self.older {
            return Some(p.before(now) > capture);
        }
        None
    }

    /// Whether the answer depends on the moment asked.
    pub fn relative(&self) -> bool {
        self.before.is_none()
            && self.after.is_none()
            && (self.newer.is_some() || self.older.is_some())
    }

    /// Reads the fields of a JSON object (a rule's or an embargo's); `false`-like values
    /// (`""`, `0`, `{}`) count as not set, as pywb's `if value:` does.
    pub fn from_json(obj: &serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        let stamp = |k: &str| -> Result<Option<i64>, String> {
            match obj.get(k) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::String(s)) if s.is_empty() => Ok(None),
                Some(serde_json::Value::String(s)) => Ok(Some(Date14::pad_up(s).unix_seconds())),
                Some(serde_json::Value::Number(n)) if n.as_u64() == Some(0) => Ok(None),
                Some(serde_json::Value::Number(n)) if n.is_u64() => {
                    Ok(Some(Date14::pad_up(&n.to_string()).unix_seconds()))
                }
                Some(v) => Err(format!("{k} is a timestamp such as \"20200101\", not {v}")),
            }
        };
        let period = |k: &str| -> Result<Option<Period>, String> {
            match obj.get(k) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(v) if v.as_object().is_some_and(|o| o.is_empty()) => Ok(None),
                Some(v) => Period::from_json(v)
                    .map(Some)
                    .map_err(|e| format!("{k}: {e}")),
            }
        };
        Ok(DateCondition {
            before: stamp("before")?,
            after: stamp("after")?,
            newer: period("newer")?,
            older: period("older")?,
        })
    }
}

/// One line of an access-control list.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The SURT prefix (or `KEY###`, or `*,`).
    pub key: Vec<u8>,
    /// The whole line, as the order of the list compares it.
    pub line: String,
    /// `access`; pywb reads a rule without one as `exclude`.
    pub access: Access,
    /// `user`: the access point the rule is for (`None`: everyone).
    pub user: Option<String>,
    /// `before`/`after`/`newer`/`older`: when the rule's access applies (else the default).
    pub dates: DateCondition,
    /// Where the line is.
    pub file: PathBuf,
    /// Its line number, from 1.
    pub line_no: usize,
}

/// Reads one list: blank lines and lines starting `#` are skipped; any other line that
/// is not `KEY TIMESTAMP {JSON}` with a known `access` is an error naming it.
pub fn read_list(path: &Path, text: &str) -> Result<Vec<Rule>, AccessError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |m: String| AccessError::at(path, i + 1, m);
        let mut parts = line.splitn(3, ' ');
        let (Some(key), Some(ts), Some(json)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(err("a rule is `SURT-PREFIX - {\"access\": …}`".into()));
        };
        if key.is_empty() || !(ts == "-" || ts.bytes().all(|b| b.is_ascii_digit())) {
            return Err(err("a rule is `SURT-PREFIX - {\"access\": …}`".into()));
        }
        let v: serde_json::Value =
            serde_json::from_str(json).map_err(|e| err(format!("its JSON: {e}")))?;
        let obj = v
            .as_object()
            .ok_or_else(|| err("its third field is a JSON object".into()))?;
        let access = match obj.get("access") {
            None => Access::Exclude,
            Some(serde_json::Value::String(s)) => Access::parse(s).ok_or_else(|| {
                err(format!(
                    "access {s:?} is none of allow, block, exclude, allow_ignore_embargo"
                ))
            })?,
            Some(v) => return Err(err(format!("access is a string, not {v}"))),
        };
        let user = match obj.get("user") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(v) => return Err(err(format!("user is a string, not {v}"))),
        };
        out.push(Rule {
            key: key.as_bytes().to_vec(),
            line: line.to_string(),
            access,
            user,
            dates: DateCondition::from_json(obj).map_err(err)?,
            file: path.to_path_buf(),
            line_no: i + 1,
        });
    }
    Ok(out)
}

/// A warning for each file of `rules` (in the order read) whose lines are not in reverse
/// byte order, naming its first line out of place. pywb finds a rule by binary search,
/// so it misapplies such a file; warcdex sorts what it reads, so it answers what the
/// sorted file gives, and only warns.
pub fn out_of_order(rules: &[Rule]) -> Vec<String> {
    let mut out = Vec::new();
    let mut warned: Option<&Path> = None;
    for pair in rules.windows(2) {
        let (above, below) = (&pair[0], &pair[1]);
        if above.file != below.file || warned == Some(below.file.as_path()) {
            continue;
        }
        if below.line.as_bytes() > above.line.as_bytes() {
            warned = Some(below.file.as_path());
            out.push(format!(
                "{}: line {}: not in the order pywb reads (it sorts above line {}); warcdex \
                 reads the file sorted, pywb would misapply it: sort it (pywb expects \
                 SURT-sorted, reverse order: LC_ALL=C sort -r)",
                below.file.display(),
                below.line_no,
                above.line_no
            ));
        }
    }
    out
}

/// Every rule of the lists in the reverse byte order of their lines (the order pywb
/// keeps them in and merges several lists in), indexed by key.
#[derive(Debug, Default)]
pub struct RuleList {
    rules: Vec<Rule>,
    /// Each key with its lines `rules[a..b]`, in ascending order of keys.
    keys: Vec<(Vec<u8>, (usize, usize))>,
    /// The users named by any rule.
    pub(super) users: HashSet<String>,
    /// Whether any rule's date condition depends on the moment asked.
    pub(super) relative: bool,
}

impl RuleList {
    /// Orders the rules as pywb reads them (reverse byte order of the lines).
    pub fn new(mut rules: Vec<Rule>) -> RuleList {
        rules.sort_by(|a, b| b.line.as_bytes().cmp(a.line.as_bytes()));
        let mut by_key: HashMap<&[u8], (usize, usize)> = HashMap::new();
        for (i, r) in rules.iter().enumerate() {
            let e = by_key.entry(&r.key).or_insert((i, i));
            e.1 = i + 1;
        }
        let mut keys: Vec<(Vec<u8>, (usize, usize))> =
            by_key.into_iter().map(|(k, g)| (k.to_vec(), g)).collect();
        keys.sort_unstable();
        RuleList {
            users: rules.iter().filter_map(|r| r.user.clone()).collect(),
            relative: rules.iter().any(|r| r.dates.relative()),
            rules,
            keys,
        }
    }

    /// How many rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether there is no rule.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The lines of key `k`.
    fn group(&self, k: &[u8]) -> Option<(usize, usize)> {
        let i = self
            .keys
            .binary_search_by(|(x, _)| x.as_slice().cmp(k))
            .ok()?;
        Some(self.keys[i].1)
    }

    /// The longest key that is a prefix of `k` (its length and lines). The greatest key
    /// not above `k` lies between any prefix key of `k` and `k`, so it starts with that
    /// prefix: when it is no prefix itself, the prefix is no longer than what it shares
    /// with `k`, and the search goes on below that.
    fn longest_prefix(&self, k: &[u8]) -> Option<(usize, (usize, usize))> {
        let mut k = k;
        loop {
            let i = self.keys.partition_point(|(x, _)| x.as_slice() <= k);
            let (p, g) = self.keys.get(i.checked_sub(1)?)?;
            if k.starts_with(p) {
                return Some((p.len(), *g));
            }
            let shared = p.iter().zip(k).take_while(|(a, b)| a == b).count();
            k = &k[..shared];
        }
    }

    /// The first line at or after which the lines are below `probe` (reverse order).
    fn first_below_or_at(&self, probe: &[u8]) -> usize {
        self.rules.partition_point(|r| r.line.as_bytes() > probe)
    }

    /// The rule pywb's `find_access_rule` finds for the URL key `key` and `user` (`None`:
    /// the default rule).
    pub fn find(&self, key: &[u8], user: Option<&str>) -> Option<&Rule> {
        if self.rules.is_empty() {
            return None;
        }
        let mut exact = key.to_vec();
        exact.extend_from_slice(b"###");
        let mut probe = exact.clone();
        probe.push(b'#');
        let start = self.first_below_or_at(&probe);
        let tld = key.split(|&b| b == b',').next().unwrap_or(key);
        // pywb stops after the first line below the top-level domain.
        let stop = self.rules.partition_point(|r| r.line.as_bytes() >= tld);
        let mut groups: Vec<(usize, usize)> = Vec::new();
        groups.extend(self.group(&exact));
        // The keys that are prefixes of `key`, longest first, each found by bisection.
        let mut below = key.len();
        while let Some((len, g)) = self.longest_prefix(&key[..below]) {
            groups.push(g);
            if len == 0 {
                break;
            }
            below = len - 1;
        }
        groups.extend(self.group(b"*,"));
        groups.sort_unstable();
        groups.dedup();
        for (a, b) in groups {
            let (a, b) = (a.max(start), b.min(stop + 1));
            let mut last: Option<&Rule> = None;
            for r in &self.rules[a.min(b)..b] {
                if r.user.as_deref() == user {
                    return Some(r);
                }
                if r.user.as_deref().is_none_or(str::is_empty) {
                    last = Some(r);
                }
            }
            if last.is_some() || b == stop + 1 {
                return last;
            }
        }
        None
    }
}

/// pywb's embargo: captures matching the condition get `access` (by default `exclude`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embargo {
    /// What an embargoed capture gets.
    pub access: Access,
    /// Which captures.
    pub when: DateCondition,
}

impl Embargo {
    /// Reads pywb's `embargo` setting: `{"newer": {"days": 365}, "access": "block"}`.
    pub fn from_json(v: &serde_json::Value) -> Result<Embargo, String> {
        let obj = v.as_object().ok_or_else(|| {
            format!("an embargo is an object such as {{\"newer\": {{\"days\": 365}}}}, not {v}")
        })?;
        for k in obj.keys() {
            if !matches!(
                k.as_str(),
                "access" | "before" | "after" | "newer" | "older"
            ) {
                return Err(format!("unknown embargo setting {k:?}"));
            }
        }
        let access = match obj.get("access") {
            None => Access::Exclude,
            Some(serde_json::Value::String(s)) => {
                Access::parse(s).ok_or_else(|| format!("unknown access {s:?}"))?
            }
            Some(v) => return Err(format!("access is a string, not {v}")),
        };
        Ok(Embargo {
            access,
            when: DateCondition::from_json(obj)?,
        })
    }

    /// Reads the command line's `KEY=VALUE` settings: `before=20200101`,
    /// `after=…`, `newer=1y`, `older=10y6m`, `access=block`.
    pub fn from_flags(flags: &[String]) -> Result<Option<Embargo>, String> {
        if flags.is_empty() {
            return Ok(None);
        }
        let mut obj = serde_json::Map::new();
        for f in flags {
            let (k, v) = f
                .split_once('=')
                .ok_or_else(|| format!("--embargo {f:?}: expected KEY=VALUE, as newer=1y"))?;
            let value = match k {
                "newer" | "older" => {
                    let p = Period::parse_short(v)?;
                    serde_json::json!({"years": p.years, "months": p.months, "weeks": p.weeks, "days": p.days})
                }
                _ => serde_json::Value::String(v.to_string()),
            };
            obj.insert(k.to_string(), value);
        }
        Embargo::from_json(&serde_json::Value::Object(obj)).map(Some)
    }
}

/// Why a capture gets its access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// No rule matched: the default.
    Default,
    /// The rule's access.
    Rule,
    /// The rule's date condition did not hold: the default.
    RuleDatesNotMet,
    /// The embargo overrode what the rule or default gave.
    Embargo,
}

/// The access of one capture and what decided it.
#[derive(Debug, Clone, Copy)]
pub struct Verdict<'a> {
    /// Shown, blocked or excluded (`AllowIgnoreEmbargo` is reported as `Allow`).
    pub access: Access,
    /// The rule found for the URL, if any.
    pub rule: Option<&'a Rule>,
    /// Why.
    pub reason: Reason,
}

/// pywb's `wrap_iter` for one capture: the rule's access, or the default where its dates
/// do not hold, overridden by the embargo unless excluded or `allow_ignore_embargo`.
pub(super) fn verdict<'a>(
    rule: Option<&'a Rule>,
    default: Access,
    embargo: Option<&Embargo>,
    capture: i64,
    now: i64,
) -> Verdict<'a> {
    let (mut access, mut reason) = match rule {
        None => (default, Reason::Default),
        Some(r) => match r.dates.holds(capture, now) {
            Some(false) => (default, Reason::RuleDatesNotMet),
            _ => (r.access, Reason::Rule),
        },
    };
    if !matches!(access, Access::AllowIgnoreEmbargo | Access::Exclude) {
        if let Some(e) = embargo {
            if e.when.holds(capture, now) == Some(true) && e.access != Access::Allow {
                access = e.access;
                reason = Reason::Embargo;
            }
        }
    }
    if access == Access::AllowIgnoreEmbargo {
        access = Access::Allow;
    }
    Verdict {
        access,
        rule,
        reason,
    }
}
