//! pywb's fuzzy fallback (pywb/warcserver/index/fuzzymatcher.py): a query that finds
//! nothing is asked again as a prefix query for its URL without the query string, and the
//! captures kept are those whose URL differs only by query, or whose key equals the
//! query's once known cache-busting arguments are removed. They carry `is_fuzzy: 1`.
//!
//! Only the rule pywb applies to every URL (`url_prefix: ''`, the last of its
//! `rules.yaml`) is reproduced; its site rules (Twitter, Facebook, YouTube…) are not.

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

/// The URL the fallback asks for as a prefix: `url` cut before its first `?` (and a `/`
/// just before it), when the `?` is not its first character.
pub(crate) fn fallback_url(url: &str) -> String {
    let chars: Vec<char> = url.chars().collect();
    match chars.iter().position(|&c| c == '?') {
        Some(inx) if inx > 0 => {
            let mut len = inx;
            if chars[len - 1] == '/' {
                len -= 1;
            }
            chars[..len].iter().collect()
        }
        _ => url.to_string(),
    }
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

    #[test]
    fn fallback_urls() {
        assert_eq!(fallback_url("http://a.com/x?y=1"), "http://a.com/x");
        assert_eq!(fallback_url("http://a.com/x/?y=1"), "http://a.com/x");
        assert_eq!(fallback_url("?y"), "?y");
        assert_eq!(fallback_url("http://a.com/x"), "http://a.com/x");
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
