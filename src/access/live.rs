//! The rules in force, re-read when a file changes: a takedown is an edit of a rules
//! file, in force for the next request, with no index rewritten.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use super::{AccessError, Rules, RulesConfig};

/// What a file looked like: a change of any of these is a change of the rules.
type Stamp = Vec<(PathBuf, Option<(SystemTime, u64, u64)>)>;

fn stamp(config: &RulesConfig) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    let mut paths = config.files().unwrap_or_default();
    // A directory's listing changes when a list is added or removed.
    paths.extend(config.acl_paths.iter().filter(|p| p.is_dir()).cloned());
    paths
        .into_iter()
        .map(|p| {
            let m = std::fs::metadata(&p).ok();
            let s = m.map(|m| {
                (
                    m.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                    m.len(),
                    m.ino(),
                )
            });
            (p, s)
        })
        .collect()
}

/// The rules in force and where they come from.
#[derive(Debug)]
pub struct LiveRules {
    config: RulesConfig,
    current: RwLock<(Stamp, Arc<Rules>)>,
}

impl LiveRules {
    /// Reads the rules once; an error here is the caller's to report (a server does not
    /// start on rules it cannot read).
    pub fn load(config: RulesConfig) -> Result<Arc<LiveRules>, AccessError> {
        let s = stamp(&config);
        let rules = Arc::new(Rules::load(&config)?);
        Ok(Arc::new(LiveRules {
            config,
            current: RwLock::new((s, rules)),
        }))
    }

    /// The rules in force.
    pub fn current(&self) -> Arc<Rules> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .1
            .clone()
    }

    /// Re-reads the files if any changed since the last reading. A file that no longer
    /// reads leaves the rules in force as they were (taking them all away would show what
    /// they hold back) and is reported; so does a reading that looks like files caught
    /// while being rewritten in place (a file that held rules is empty, or most rules
    /// are gone), which the next change of the files
    /// reads again. `Ok(true)` when new rules are in force.
    pub fn refresh(&self) -> Result<bool, AccessError> {
        let now = stamp(&self.config);
        if self.current.read().unwrap_or_else(|e| e.into_inner()).0 == now {
            return Ok(false);
        }
        let result = Rules::load(&self.config);
        let mut cur = self.current.write().unwrap_or_else(|e| e.into_inner());
        // Remembered either way, so a broken file is reported once per change.
        cur.0 = now;
        let rules = result?;
        if let Some(why) = rules.looks_half_written(&cur.1) {
            return Err(why);
        }
        cur.1 = Arc::new(rules);
        Ok(true)
    }

    /// Checks the files every `every` on a thread of its own for the life of the
    /// process, reporting changes and errors on stderr.
    pub fn watch(self: &Arc<Self>, every: Duration) {
        let live = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("access-rules".into())
            .spawn(move || loop {
                std::thread::sleep(every);
                let Some(live) = live.upgrade() else { return };
                let t0 = std::time::Instant::now();
                match live.refresh() {
                    Ok(true) => {
                        let r = live.current();
                        eprintln!(
                            "warcdex: access rules re-read: {} rules from {} files in {} ms",
                            r.rule_count(),
                            r.files().len(),
                            t0.elapsed().as_millis()
                        );
                    }
                    Ok(false) => {}
                    Err(e) => eprintln!(
                        "warcdex: access rules not changed: {}",
                        crate::path_error::Chain(&e)
                    ),
                }
            });
        if let Err(e) = spawned {
            eprintln!("warcdex: cannot watch the access rules: {e}");
        }
    }
}
