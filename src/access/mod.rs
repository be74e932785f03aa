//! Access rules: pywb 2.10's access-control lists and embargo, the one set
//! of rules that pywb's replay and every answer of warcdex obey. docs/access.md.
//!
//! [`Rules`] is one immutable reading of the rules files; [`LiveRules`] holds the
//! current one and re-reads the files when they change, so a takedown takes effect
//! without touching any index. [`Viewer`] is who asks: the rules and the access point
//! (user) a request comes from.

mod live;
mod rules;
pub mod time;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use warcdex_cdx::rendered::page_key_of;

pub use live::LiveRules;
pub use rules::{read_list, Access, DateCondition, Embargo, Reason, Rule, RuleList, Verdict};

/// A rules file that cannot be read or understood: its path, the line (0: the file as
/// a whole) and what is wrong, or the system's error as its source.
#[derive(Debug, thiserror::Error)]
#[error("{}{}", path.display(), at_line(*line, message))]
pub struct AccessError {
    /// The file.
    pub path: PathBuf,
    /// The line, from 1 (0: not one line).
    pub line: usize,
    /// What is wrong (empty when the file could not be read: the source says why).
    pub message: String,
    #[source]
    source: Option<std::io::Error>,
}

/// `:LINE: MESSAGE`, each part only when there is one.
fn at_line(line: usize, message: &str) -> String {
    let line = match line {
        0 => String::new(),
        n => format!(":{n}"),
    };
    match message {
        "" => line,
        m => format!("{line}: {m}"),
    }
}

impl AccessError {
    fn at(path: &Path, line: usize, message: String) -> AccessError {
        AccessError {
            path: path.to_path_buf(),
            line,
            message,
            source: None,
        }
    }

    fn io(path: &Path, e: std::io::Error) -> AccessError {
        AccessError {
            path: path.to_path_buf(),
            line: 0,
            message: String::new(),
            source: Some(e),
        }
    }
}

/// Where the rules come from: pywb's `acl_paths`, `default_access` and `embargo`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RulesConfig {
    /// `.aclj` files, or directories whose `.aclj` files are all read.
    pub acl_paths: Vec<PathBuf>,
    /// What a capture no rule names gets (pywb's default: allow).
    pub default_access: Option<Access>,
    /// The embargo.
    pub embargo: Option<Embargo>,
}

impl RulesConfig {
    /// Whether any rule is configured.
    pub fn is_empty(&self) -> bool {
        self.acl_paths.is_empty() && self.embargo.is_none() && self.default_access.is_none()
    }

    /// A collection's `access.json` (`{"acl_paths": […], "default_access": …,
    /// "embargo": {…}}`, pywb's keys), paths relative to the collection; `None` when the
    /// file does not exist.
    pub fn of_collection(dir: &Path) -> Result<Option<RulesConfig>, AccessError> {
        let path = dir.join("access.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(AccessError::io(&path, e)),
        };
        let err = |m: String| AccessError::at(&path, 0, m);
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| err(e.to_string()))?;
        let obj = v
            .as_object()
            .ok_or_else(|| err("not a JSON object".into()))?;
        let mut c = RulesConfig::default();
        for (k, v) in obj {
            match k.as_str() {
                "acl_paths" => {
                    let list = match v {
                        serde_json::Value::String(s) => vec![s.clone()],
                        serde_json::Value::Array(a) => (a.iter())
                            .map(|p| p.as_str().map(str::to_string))
                            .collect::<Option<Vec<_>>>()
                            .ok_or_else(|| err("acl_paths is a list of paths".into()))?,
                        _ => return Err(err("acl_paths is a list of paths".into())),
                    };
                    c.acl_paths = list.into_iter().map(|p| dir.join(p)).collect();
                }
                "default_access" => {
                    let s = v.as_str().unwrap_or_default();
                    c.default_access = Some(
                        Access::parse(s)
                            .ok_or_else(|| err(format!("default_access {v} is not an access")))?,
                    );
                }
                "embargo" => c.embargo = Some(Embargo::from_json(v).map_err(err)?),
                other => return Err(err(format!("unknown setting {other:?}"))),
            }
        }
        Ok(Some(c))
    }

    /// The files the configuration reads now: each file named, and each directory's
    /// `.aclj` files in name order.
    pub fn files(&self) -> Result<Vec<PathBuf>, AccessError> {
        let mut out = Vec::new();
        for p in &self.acl_paths {
            if p.is_dir() {
                let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                    .map_err(|e| AccessError::io(p, e))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|f| f.extension().is_some_and(|x| x == "aclj"))
                    .collect();
                found.sort();
                out.extend(found);
            } else {
                out.push(p.clone());
            }
        }
        Ok(out)
    }
}

/// Each reading of rules gets a new number, so answers computed under one are known.
static GENERATION: AtomicU64 = AtomicU64::new(1);

/// One reading of the rules.
#[derive(Debug)]
pub struct Rules {
    generation: u64,
    list: RuleList,
    default: Access,
    embargo: Option<Embargo>,
    files: Vec<PathBuf>,
    /// Per file read (in `files`' order): its rule lines, and whether it was empty (no
    /// byte but white space), which [`LiveRules`] tells a file being rewritten by.
    read: Vec<FileRead>,
    /// What the reading warned of (an unsorted file), for the caller to show.
    warnings: Vec<String>,
}

/// What one rules file held when read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileRead {
    /// Its rule lines.
    pub rules: usize,
    /// Nothing but white space in it.
    pub empty: bool,
}

/// Who a user is to the rules: everyone who no rule names is treated alike, so answers
/// can be shared among them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum UserClass {
    /// A request without a user (pywb's `acl_user` None).
    Public,
    /// A user some rule names.
    Named(String),
    /// A user no rule names.
    Other,
}

impl Rules {
    /// Reads every file of `config`; the first error stops the reading.
    pub fn load(config: &RulesConfig) -> Result<Rules, AccessError> {
        let files = config.files()?;
        let mut all = Vec::new();
        let mut read = Vec::with_capacity(files.len());
        for f in &files {
            let text = std::fs::read_to_string(f).map_err(|e| AccessError::io(f, e))?;
            let rules = read_list(f, &text)?;
            read.push(FileRead {
                rules: rules.len(),
                empty: text.trim().is_empty(),
            });
            all.extend(rules);
        }
        let mut rules = Rules::new(all, config.default_access, config.embargo.clone(), files);
        rules.read = read;
        Ok(rules)
    }

    /// Why this reading looks like one of files caught while being rewritten, compared
    /// with `before`, the reading in force: a file that held rules is empty now, or most
    /// of the rules are gone. A server keeps `before` then (a file rewritten
    /// in place was read while empty, and what it excluded was served until the write
    /// ended); `None` when nothing looks so.
    pub(crate) fn looks_half_written(&self, before: &Rules) -> Option<AccessError> {
        for (f, r) in self.files.iter().zip(&self.read) {
            let held = (before.files.iter().zip(&before.read))
                .find(|(g, _)| *g == f)
                .map_or(0, |(_, b)| b.rules);
            if r.empty && held > 0 {
                return Some(AccessError::at(
                    f,
                    0,
                    format!(
                        "empty now, where it held {held} rules: read while being rewritten? \
                         The rules in force are kept (replace a rules file by a rename)"
                    ),
                ));
            }
        }
        let (now, was) = (self.rule_count(), before.rule_count());
        if now * 2 < was {
            let path = self.files.first().or(before.files.first());
            return Some(AccessError::at(
                path.map_or(Path::new(""), PathBuf::as_path),
                0,
                format!(
                    "only {now} of {was} rules would remain: read while being rewritten? The \
                     rules in force are kept (replace rules files by a rename; to drop most \
                     rules at once, restart the server)"
                ),
            ));
        }
        None
    }

    /// Rules from parsed lines.
    pub fn new(
        rules: Vec<Rule>,
        default: Option<Access>,
        embargo: Option<Embargo>,
        files: Vec<PathBuf>,
    ) -> Rules {
        Rules {
            generation: GENERATION.fetch_add(1, Ordering::Relaxed),
            warnings: self::rules::out_of_order(&rules),
            list: RuleList::new(rules),
            default: default.unwrap_or(Access::Allow),
            embargo,
            files,
            read: Vec::new(),
        }
    }

    /// No rules: everything allowed.
    pub fn none() -> Rules {
        Rules::new(Vec::new(), None, None, Vec::new())
    }

    /// This reading's number.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The files read.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// What the rules' files do that pywb would read otherwise (a file out of order),
    /// for the commands to print: warcdex reads them as meant.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// How many rule lines.
    pub fn rule_count(&self) -> usize {
        self.list.len()
    }

    /// Whether every capture is allowed to everyone whatever its URL and date.
    pub fn allows_everything(&self) -> bool {
        self.list.is_empty() && self.embargo.is_none() && self.default == Access::Allow
    }

    /// Whether answers depend on the moment asked (`newer`/`older`).
    pub fn relative(&self) -> bool {
        self.list.relative || self.embargo.as_ref().is_some_and(|e| e.when.relative())
    }

    /// The class of `user` under these rules.
    pub fn class_of(&self, user: Option<&str>) -> UserClass {
        match user {
            None => UserClass::Public,
            Some(u) if self.list.users.contains(u) => UserClass::Named(u.to_string()),
            Some(_) => UserClass::Other,
        }
    }

    /// The rule found for a URL key (pywb's `find_access_rule`), `None` for the default.
    /// A rendered text's key (`urn:text:URL`, `urn:textfinal:URL`) finds its page's rule:
    /// the words of a page a rule hides are hidden with it.
    pub fn rule_for(&self, urlkey: &[u8], class: &UserClass) -> Option<&Rule> {
        // Every capture's check passes here: only a `urn:` key is read as text.
        let urn = urlkey
            .get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case(b"urn:"));
        let page_key = (urn.then(|| std::str::from_utf8(urlkey).ok()))
            .flatten()
            .and_then(page_key_of);
        let urlkey = page_key.as_deref().map_or(urlkey, str::as_bytes);
        match class {
            UserClass::Public => self.list.find(urlkey, None),
            UserClass::Named(u) => self.list.find(urlkey, Some(u)),
            // A user no rule names: matches no rule's user, as any such name would.
            UserClass::Other => self.list.find(urlkey, Some("\u{0}")),
        }
    }

    /// The access of a capture of the URL key at a 14-digit date, given the rule found
    /// for the key; `now` in seconds since the epoch.
    pub fn verdict<'a>(&'a self, rule: Option<&'a Rule>, date: u64, now: i64) -> Verdict<'a> {
        rules::verdict(
            rule,
            self.default,
            self.embargo.as_ref(),
            time::capture_seconds(date),
            now,
        )
    }

    /// The access of one capture: `verdict(rule_for(key), date)`.
    pub fn decide(&self, urlkey: &[u8], date: u64, class: &UserClass, now: i64) -> Verdict<'_> {
        self.verdict(self.rule_for(urlkey, class), date, now)
    }
}

/// Who asks: the rules in force and the user's class under them.
#[derive(Debug, Clone)]
pub struct Viewer {
    /// The rules read when the request came.
    pub rules: Arc<Rules>,
    /// The user's class under them.
    pub class: UserClass,
}

impl PartialEq for Viewer {
    fn eq(&self, other: &Viewer) -> bool {
        self.rules.generation == other.rules.generation && self.class == other.class
    }
}

impl Eq for Viewer {}

impl Viewer {
    /// `user` (`None`: the public) under `rules`.
    pub fn new(rules: Arc<Rules>, user: Option<&str>) -> Viewer {
        let class = rules.class_of(user);
        Viewer { rules, class }
    }

    /// The access of a capture of `urlkey` at `date` (14 digits) now.
    pub fn access(&self, urlkey: &[u8], date: u64) -> Access {
        self.rules
            .decide(urlkey, date, &self.class, warcdex_cdx::date::now_seconds())
            .access
    }

    /// Whether nothing is held back from this viewer.
    pub fn sees_everything(&self) -> bool {
        self.rules.allows_everything()
    }
}

#[cfg(test)]
mod tests;
