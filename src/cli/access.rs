//! `warcdex access check` and the access-rule flags shared by `serve` and `search`.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, Subcommand};
use warcdex::access::{Access, Embargo, Reason, Rules, RulesConfig, UserClass, Viewer};
use warcdex_cdx::date::Date14;

/// The rules a command applies: the collection's `access.json`, then these.
#[derive(Debug, Args, Clone, Default)]
pub struct AccessFlags {
    /// An access-control list in pywb's `.aclj` format, or a directory of them; repeat
    /// for several. Added to the collection's `access.json` `acl_paths`.
    #[arg(long = "acl", value_name = "FILE")]
    pub acl: Vec<PathBuf>,
    /// pywb's embargo as KEY=VALUE: `newer=1y`, `older=50y`, `before=20100101`,
    /// `after=20240101`, `access=block` (default exclude); repeat for several keys.
    /// Replaces the collection's `access.json` embargo.
    #[arg(long = "embargo", value_name = "KEY=VALUE")]
    pub embargo: Vec<String>,
    /// What a capture no rule names gets: allow (default), block or exclude.
    #[arg(long = "default-access", value_name = "ACCESS", value_parser = parse_access)]
    pub default_access: Option<Access>,
}

fn parse_access(s: &str) -> Result<Access, String> {
    Access::parse(s).ok_or_else(|| format!("{s:?} is none of allow, block, exclude"))
}

impl AccessFlags {
    /// Who asks from the command line: `user` under the rules of collection `dir` with
    /// these flags; `None` when no rule is configured (everything shown).
    pub fn viewer(&self, dir: &Path, user: Option<&str>) -> anyhow::Result<Option<Viewer>> {
        let config = self.config(dir)?;
        if config.is_empty() {
            return Ok(None);
        }
        let rules = Rules::load(&config)?;
        warn(&rules);
        Ok(Some(Viewer::new(Arc::new(rules), user)))
    }

    /// The rules of collection `dir` with these flags applied.
    pub fn config(&self, dir: &Path) -> anyhow::Result<RulesConfig> {
        let mut c = RulesConfig::of_collection(dir)?.unwrap_or_default();
        c.acl_paths.extend(self.acl.iter().cloned());
        if let Some(e) = Embargo::from_flags(&self.embargo).map_err(anyhow::Error::msg)? {
            c.embargo = Some(e);
        }
        if self.default_access.is_some() {
            c.default_access = self.default_access;
        }
        Ok(c)
    }
}

/// Prints the rules' warnings (a file pywb would misapply) on stderr.
pub fn warn(rules: &Rules) {
    for w in rules.warnings() {
        eprintln!("warcdex: warning: {w}");
    }
}

/// `warcdex access`.
#[derive(Debug, Args)]
pub struct AccessArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: AccessCommand,
}

/// `warcdex access` subcommands.
#[derive(Debug, Subcommand)]
pub enum AccessCommand {
    /// Which rule decides a URL's captures, and what it gives: ACCESS, the URL key, the
    /// date, and why (the rule's file:line and text, the default, or the embargo). With
    /// no URL, reads `URL [DATE14]` lines from standard input.
    Check(CheckArgs),
}

/// `warcdex access check COLL [URL [DATE]]`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The collection (its `access.json`, if any, is read).
    pub coll: PathBuf,
    /// The URL (or a SURT key, `com,example)/`).
    pub url: Option<String>,
    /// The capture date, up to 14 digits (default: now).
    pub date: Option<String>,
    /// The user (access point) asking; none: the public.
    #[arg(long)]
    pub user: Option<String>,
    #[command(flatten)]
    pub rules: AccessFlags,
}

/// Runs `warcdex access`.
pub fn run(a: AccessArgs) -> anyhow::Result<i32> {
    let AccessCommand::Check(c) = a.command;
    let rules = Rules::load(&c.rules.config(&c.coll)?)?;
    warn(&rules);
    let class = rules.class_of(c.user.as_deref());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match &c.url {
        Some(url) => check(&rules, &class, url, c.date.as_deref(), &mut out)?,
        None => {
            for line in std::io::stdin().lock().lines() {
                let line = line?;
                let mut f = line.split_whitespace();
                if let Some(url) = f.next() {
                    check(&rules, &class, url, f.next(), &mut out)?;
                }
            }
        }
    }
    out.flush()?;
    Ok(0)
}

/// A 14-digit date from up to 14 digits, padded as pywb pads an access query's date.
fn date14(date: Option<&str>) -> anyhow::Result<u64> {
    let Some(d) = date else {
        return Ok(Date14::now().number());
    };
    if d.is_empty() || d.len() > 14 || !d.bytes().all(|b| b.is_ascii_digit()) {
        anyhow::bail!("{d:?}: a date is up to 14 digits, YYYYMMDDhhmmss");
    }
    Ok(Date14::pad_up(d).number())
}

fn check(
    rules: &Rules,
    class: &UserClass,
    url: &str,
    date: Option<&str>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let key = match url.contains(")/") && !url.contains("://") {
        true => url.to_string(),
        false => warcdex_cdx::surt::surt_key(url)
            .map_err(|e| anyhow::anyhow!("{url}: not a URL: {e}"))?,
    };
    let date = date14(date)?;
    let v = rules.decide(
        key.as_bytes(),
        date,
        class,
        warcdex_cdx::date::now_seconds(),
    );
    let rule =
        |r: &warcdex::access::Rule| format!("{}:{}: {}", r.file.display(), r.line_no, r.line);
    let why = match (v.reason, v.rule) {
        (Reason::Rule, Some(r)) => format!("rule {}", rule(r)),
        (Reason::RuleDatesNotMet, Some(r)) => {
            format!("default, the dates of rule {} do not hold", rule(r))
        }
        (Reason::Embargo, Some(r)) => format!("embargo, over rule {}", rule(r)),
        (Reason::Embargo, None) => "embargo".to_string(),
        _ => "default".to_string(),
    };
    writeln!(out, "{}\t{key}\t{date:014}\t{why}", v.access.name())?;
    Ok(())
}
