//! pywb's fuzzy fallback (pywb/warcserver/index/fuzzymatcher.py): a query that finds
//! nothing is asked again as set by the first of pywb's rules (`fuzzy_rules.rs`, from its
//! rules.yaml) whose URL-key prefix and pattern match the query's key. A site rule
//! (Twitter, Facebook, YouTube…) keeps every capture of the second query; the rule for
//! every URL asks for the URL without its query string as a prefix and keeps the captures
//! whose URL differs only by query, or whose key equals the query's once known
//! cache-busting arguments are removed. The captures kept carry `is_fuzzy: 1`.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use super::fuzzy_rules::RULES;
use super::record::Record;

/// Extensions that do not make a URL a file (`default_filters.not_exts`).
const NOT_EXTS: [&str; 7] = ["asp", "aspx", "jsp", "php", "pl", "exe", "dll"];
/// Media types whose query arguments are ignored (`default_filters.mimes`).
const MIMES: [&str; 4] = [
    "application/x-shockwave-flash",
    "application/dash+xml",
    "application/x-mpegURL",
    "application/vnd.apple.mpegurl",
];

/// How a rule's pattern is applied to the query's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReType {
    /// `re.search`: the groups of the first match make the filters.
    Search,
    /// `re.findall`: every match's group makes a filter.
    FindAll,
    /// `re.sub` on the URL: the rule always applies.
    Sub,
}

/// One of pywb's rules, as its `FuzzyMatcher` parses it.
#[derive(Debug)]
pub(crate) struct RuleSpec {
    pub(crate) url_prefix: &'static [&'static str],
    pub(crate) regex: &'static str,
    pub(crate) replace_after: &'static str,
    pub(crate) filters: &'static [&'static str],
    /// `type: domain` (else `prefix`).
    pub(crate) domain: bool,
    pub(crate) re_type: ReType,
}

/// The rules' patterns, compiled once; `None` for one the `regex` crate cannot compile
/// (none of pywb 2.10's), whose rule is then never applied.
fn patterns() -> &'static [Option<regex::Regex>] {
    static PATTERNS: OnceLock<Vec<Option<regex::Regex>>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        RULES
            .iter()
            .map(|r| regex::Regex::new(r.regex).ok())
            .collect()
    })
}

/// The second query of the fallback (`get_fuzzy_match`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fallback {
    pub(crate) url: String,
    /// `matchType=domain` (else `prefix`).
    pub(crate) domain: bool,
    /// `filter=` values, `urlkey:GROUP` mostly.
    pub(crate) filters: Vec<String>,
    /// A site rule: every capture found is kept.
    pub(crate) custom: bool,
}

/// The fallback for a query of `url` whose range starts at `urlkey`; `None` when no rule
/// applies (or pywb would fail on it).
pub(crate) fn fallback(url: &str, urlkey: &str) -> Option<Fallback> {
    let patterns = patterns();
    let mut filters = BTreeSet::new();
    let mut matched = None;
    for (i, rule) in RULES.iter().enumerate() {
        if !rule.url_prefix.iter().any(|p| urlkey.starts_with(p)) {
            continue;
        }
        let Some(re) = &patterns[i] else { continue };
        let groups: Vec<String> = match rule.re_type {
            ReType::Sub => {
                matched = Some((rule, re));
                break;
            }
            ReType::Search => match re.captures(urlkey) {
                None => continue,
                // `m.groups()`: a group that took no part is `None`, formatted so.
                Some(c) => (1..c.len())
                    .map(|g| c.get(g).map_or("None", |m| m.as_str()).to_string())
                    .collect(),
            },
            ReType::FindAll => findall(re, urlkey),
        };
        for g in &groups {
            for f in rule.filters {
                filters.insert(f.replace("{0}", g));
            }
        }
        matched = Some((rule, re));
        break;
    }
    let (rule, re) = matched?;
    let sub = rule.re_type == ReType::Sub;
    let only_key = filters.is_empty() || (filters.len() == 1 && filters.contains("urlkey:"));
    let no_filters = only_key && rule.replace_after == "?";
    let mut url = url.to_string();
    match url.find(rule.replace_after) {
        Some(inx) if inx > 0 && !sub => {
            let mut len = inx + rule.replace_after.len();
            if no_filters {
                len -= 1;
                if url.as_bytes()[len - 1] == b'/' {
                    len -= 1;
                }
            }
            url.truncate(len);
        }
        _ if !no_filters && !sub => url.push_str(&rule.replace_after[..1]),
        _ => {}
    }
    if rule.domain {
        // `urlsplit(url).netloc.split('.', 1)[1]`; pywb fails without a dot.
        let (_, rest) = netloc(&url).split_once('.')?;
        url = rest.to_string();
    }
    if sub {
        filters = BTreeSet::from(["urlkey:".to_string()]);
        url = re
            .replace_all(&url, python_template(rule.replace_after).as_str())
            .into_owned();
    }
    Some(Fallback {
        url,
        domain: rule.domain,
        filters: filters.into_iter().collect(),
        custom: rule.url_prefix != [""],
    })
}

/// `re.findall`: the whole matches, the one group's values, or tuples of several.
fn findall(re: &regex::Regex, s: &str) -> Vec<String> {
    re.captures_iter(s)
        .map(|c| match c.len() {
            1 => c[0].to_string(),
            2 => c.get(1).map_or("", |m| m.as_str()).to_string(),
            n => {
                let parts: Vec<String> = (1..n)
                    .map(|g| format!("'{}'", c.get(g).map_or("", |m| m.as_str())))
                    .collect();
                format!("({})", parts.join(", "))
            }
        })
        .collect()
}

/// `urllib.parse.urlsplit(url).netloc`: after `scheme://` (or a leading `//`), up to
/// the path, query or fragment.
fn netloc(url: &str) -> &str {
    let after_scheme = match url.find(':') {
        Some(i)
            if url.as_bytes()[0].is_ascii_alphabetic()
                && url[..i]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)) =>
        {
            &url[i + 1..]
        }
        _ => url,
    };
    match after_scheme.strip_prefix("//") {
        Some(rest) => rest.split(['/', '?', '#']).next().unwrap_or(""),
        None => "",
    }
}

/// A Python replacement template (`\1`) as the `regex` crate's (`${1}`).
fn python_template(t: &str) -> String {
    let mut out = String::new();
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' => out.push_str("$$"),
            '\\' if chars.peek().is_some_and(char::is_ascii_digit) => {
                out.push_str("${");
                while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                    out.push(d);
                    chars.next();
                }
                out.push('}');
            }
            c => out.push(c),
        }
    }
    out
}

/// The test each capture of the fallback query passes (`match_general_fuzzy_query`),
/// with pywb's cache of the query key's normalised forms, whose filling depends on the
/// captures seen before (a capture accepted at the first rule leaves the later forms
/// computed from the unnormalised key).
pub(crate) struct FuzzyMatch {
    url_no_query: String,
    /// Whether the URL's last path segment has an extension that makes it a file.
    file_ext: bool,
    urlkey: String,
    cache: [Option<String>; 3],
    normalize: Normalizer,
}

impl FuzzyMatch {
    /// For the query's URL (`*` forms removed) and its start key.
    pub(crate) fn new(url: &str, urlkey: &str) -> FuzzyMatch {
        let url_no_query = url.split('?').next().unwrap_or("").to_string();
        let last_path = url_no_query.rsplit('/').next().unwrap_or("");
        let ext = splitext_ext(last_path);
        FuzzyMatch {
            file_ext: !ext.is_empty() && !NOT_EXTS.contains(&ext),
            url_no_query,
            urlkey: urlkey.to_string(),
            cache: [None, None, None],
            normalize: Normalizer::new(),
        }
    }

    /// Whether the fallback keeps this capture.
    pub(crate) fn accepts(&mut self, r: &Record) -> bool {
        let urlkey = r.get("urlkey").unwrap_or("");
        if r.get("status") == Some("204") && urlkey.contains("__pywb_method=options") {
            return false;
        }
        let check_query = self.file_ext || r.get("mime").is_some_and(|m| MIMES.contains(&m));
        if check_query {
            let url = r.get("url").unwrap_or("");
            let prefix = url.strip_prefix(self.url_no_query.as_str());
            if prefix.is_some_and(|rest| rest.is_empty() || rest.starts_with('?')) {
                return true;
            }
        }
        let mut match_key = urlkey.to_string();
        let mut query_key = self.urlkey.clone();
        for i in 0..3 {
            match_key = self.normalize.apply(i, &match_key);
            let cached = match &self.cache[i] {
                Some(k) if !k.is_empty() => k.clone(),
                _ => {
                    let k = self.normalize.apply(i, &query_key);
                    self.cache[i] = Some(k.clone());
                    query_key = k.clone();
                    k
                }
            };
            if cached == match_key {
                return true;
            }
        }
        false
    }
}

/// `os.path.splitext(p)[1][1:]` for a path without `/`: the text after the last dot,
/// when something other than dots comes before it.
fn splitext_ext(p: &str) -> &str {
    match p.rfind('.') {
        Some(dot) if p[..dot].bytes().any(|b| b != b'.') => &p[dot + 1..],
        _ => "",
    }
}

/// `default_filters.url_normalize`: cache-busting arguments, Google Analytics
/// arguments, JSONP callbacks.
struct Normalizer {
    cache_bust: regex::Regex,
    utm: regex::Regex,
    jsonp: regex::Regex,
}

impl Normalizer {
    fn new() -> Normalizer {
        let re = |p: &str| regex::Regex::new(p).expect("a fixed pattern");
        Normalizer {
            cache_bust: re(r"[?&](?:_|cb|uncache)=\d+"),
            // pywb's `(?=&|$)` after `[^&]+` always holds, so it is left out.
            utm: re(r"[?&]utm_[^=]+=[^&]+"),
            jsonp: re(r"[?&](callback=jsonp)[^&]+"),
        }
    }

    fn apply(&self, rule: usize, s: &str) -> String {
        match rule {
            0 => remove_followed_by_amp_or_end(&self.cache_bust, s),
            1 => self.utm.replace_all(s, "").into_owned(),
            _ => self.jsonp.replace_all(s, "${1}").into_owned(),
        }
    }
}

/// `re.sub(pattern + '(?=&|$)', '', s)` for a pattern ending in `\d+`: a match counts
/// only when `&` or the end follows it (a shorter `\d+` would be followed by a digit).
fn remove_followed_by_amp_or_end(re: &regex::Regex, s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut copied = 0;
    let mut at = 0;
    while at <= s.len() {
        let Some(m) = re.find_at(s, at) else { break };
        let rest = &s[m.end()..];
        if rest.is_empty() || rest.starts_with('&') || rest == "\n" {
            out.push_str(&s[copied..m.start()]);
            copied = m.end();
            at = m.end();
        } else {
            // Try again one character after this match's start.
            at = m.start() + s[m.start()..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out.push_str(&s[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fb(url: &str) -> Fallback {
        let key = crate::surt::surt_key(url).unwrap();
        fallback(url, &key).unwrap()
    }

    #[test]
    fn every_rule_compiles() {
        assert!(patterns().iter().all(Option::is_some));
        assert_eq!(RULES.last().unwrap().url_prefix, [""]);
    }

    #[test]
    fn the_rule_for_every_url() {
        let f = fb("http://a.com/x?y=1");
        assert_eq!(f.url, "http://a.com/x");
        assert_eq!(f.filters, ["urlkey:"]);
        assert!(!f.custom && !f.domain);
        assert_eq!(fb("http://a.com/x/?y=1").url, "http://a.com/x");
        assert_eq!(fb("http://a.com/x").url, "http://a.com/x");
        assert_eq!(fb("?y").url, "?y");
    }

    #[test]
    fn site_rules_and_helpers() {
        let f = fb("https://www.youtube.com/get_video_info?html5=1&video_id=abc&x=2");
        assert!(f.custom);
        assert_eq!(f.url, "https://www.youtube.com/get_video_info?");
        assert_eq!(f.filters, ["urlkey:html5=1", "urlkey:video_id=abc"]);
        // pywb's answers (get_fuzzy_match): a site rule whose pattern fails on the key
        // gives way to the next rule that applies.
        assert!(!fb("https://www.facebook.com/some/page?a=1").custom);
        let f = fb("https://www.facebook.com/some/page?ab=1&cd=2");
        assert!(f.custom);
        assert_eq!(f.url, "https://www.facebook.com/some/page?");
        assert_eq!(f.filters, ["urlkey:&cd=2"]);
        let f = fb("http://example.com/matched/x");
        assert_eq!(f.url, "http://example.com/replaced/x");
        assert_eq!(f.filters, ["urlkey:"]);
        let f = fb("http://r3---sn.googlevideo.com/videoplayback?id=5&itag=22&z=1");
        assert_eq!(f.url, "googlevideo.com");
        assert!(f.domain);
        assert_eq!(
            f.filters,
            ["!mimetype:text/plain", "urlkey:id=5", "urlkey:itag=22"]
        );
        assert_eq!(netloc("http://a.b.com:80/x"), "a.b.com:80");
        assert_eq!(netloc("a.com/x"), "");
        assert_eq!(python_template(r"a\1$"), "a${1}$$");
    }

    #[test]
    fn extensions() {
        assert_eq!(splitext_ext("a.html"), "html");
        assert_eq!(splitext_ext("iana.org"), "org");
        assert_eq!(splitext_ext(".bashrc"), "");
        assert_eq!(splitext_ext("..a"), "");
        assert_eq!(splitext_ext("a..b"), "b");
        assert_eq!(splitext_ext("noext"), "");
    }

    #[test]
    fn normalization_rules() {
        let n = Normalizer::new();
        assert_eq!(n.apply(0, "a?_=123&b=1"), "a&b=1");
        assert_eq!(n.apply(0, "a?cb=12x&uncache=5"), "a?cb=12x");
        assert_eq!(n.apply(1, "a?utm_source=x&b=1"), "a&b=1");
        assert_eq!(n.apply(2, "a?callback=jsonp123&b"), "acallback=jsonp&b");
    }
}
