//! Archival URLs, the Wayback form every replay tool reads: `/web/DATE[MOD_]/URL`, where
//! DATE is 1 to 14 digits (a partial date means "nearest to the start of that period", as
//! in pywb and the Wayback Machine) and MOD one of the replay modes below.

/// How a capture is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// No modifier: the top page, a banner above the capture in a frame.
    Frame,
    /// `mp_`: the capture itself, rewritten to point back into the collection (what the
    /// frame holds, and what rewritten links to stylesheets and images ask for).
    Page,
    /// `id_`: the original payload with its archived headers, nothing rewritten.
    Identity,
    /// `ir_`: the archived response for a client-side rewriter (wabac.js's service
    /// worker): its status and headers as archived, the payload with its content coding
    /// undone, redirects reported in headers rather than followed (`replay::body`).
    Raw,
}

impl Mode {
    /// The modifier written after the date (`""`, `"mp_"`, `"id_"`).
    pub fn modifier(self) -> &'static str {
        match self {
            Mode::Frame => "",
            Mode::Page => "mp_",
            Mode::Identity => "id_",
            Mode::Raw => "ir_",
        }
    }
}

/// A request for a capture: `/web/DATE[MOD_]/URL` after the `/web/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivalUrl {
    /// The date asked for, 14 digits (a partial date padded as [`pad_date`] does).
    pub date: String,
    /// Whether the request gave all 14 digits.
    pub exact: bool,
    /// The replay mode.
    pub mode: Mode,
    /// The archived URL, with a scheme (`http://` added when it had none).
    pub url: String,
}

/// Why an archival URL was refused (answered with a 400).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadArchivalUrl(pub String);

/// The longest archived URL accepted (pywb and browsers accept about this much).
pub const MAX_URL: usize = 8192;

/// Parses what follows `/web/`: `DATE[MOD_]/URL` (the query string, if any, already
/// appended to it by the caller).
pub fn parse(rest: &str) -> Result<ArchivalUrl, BadArchivalUrl> {
    let bad = |m: &str| Err(BadArchivalUrl(m.to_string()));
    let Some((stamp, url)) = rest.split_once('/') else {
        return bad("an archival URL is /web/DATE/URL (DATE of 1 to 14 digits)");
    };
    let digits = stamp.bytes().take_while(u8::is_ascii_digit).count();
    let (date, modifier) = stamp.split_at(digits);
    let mode = match modifier {
        "" => Mode::Frame,
        "mp_" => Mode::Page,
        "id_" => Mode::Identity,
        "ir_" => Mode::Raw,
        // pywb's other modifiers (images, scripts, stylesheets, iframes) all replay the
        // capture rewritten; a link written by another tool still opens.
        "im_" | "js_" | "cs_" | "if_" | "fr_" | "oe_" => Mode::Page,
        _ => return bad("the date is 1 to 14 digits, then mp_, id_ or nothing"),
    };
    if date.is_empty() || date.len() > 14 {
        return bad("the date is 1 to 14 digits (YYYYMMDDhhmmss)");
    }
    let url = with_scheme(url);
    if url.len() > MAX_URL {
        return bad("the archived URL is over 8,192 bytes");
    }
    if !is_archivable(&url) {
        return bad("the archived URL must be an http or https URL with a host");
    }
    Ok(ArchivalUrl {
        date: pad_date(date),
        exact: date.len() == 14,
        mode,
        url,
    })
}

/// `DATE` padded to 14 digits the way pywb pads a `closest` date: the earliest moment of
/// the period it names (`2007` is `20070101000000`), with a zero month or day raised to 1.
pub fn pad_date(date: &str) -> String {
    let mut d: String = date.chars().take(14).collect();
    const FILL: &str = "00000101000000";
    d.push_str(&FILL[d.len()..]);
    // A month or day of 00 (from a 5- or 7-digit date like 20070) means the first.
    let mut b = d.into_bytes();
    for at in [4, 6] {
        if b[at] == b'0' && b[at + 1] == b'0' {
            b[at + 1] = b'1';
        }
    }
    String::from_utf8(b).expect("digits")
}

/// The URL with `http://` put in front when it has no scheme, and a scheme's slashes
/// restored when a proxy or a browser merged them (`http:/example.com`).
fn with_scheme(url: &str) -> String {
    for scheme in ["http:", "https:"] {
        if let Some(rest) = strip_prefix_ci(url, scheme) {
            let rest = rest.trim_start_matches('/');
            return format!("{scheme}//{rest}");
        }
    }
    if url.contains("://") {
        return url.to_string();
    }
    format!("http://{url}")
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// An http or https URL with a host: the only URLs the capture view replays or writes
/// links to (never `javascript:`, `file:` or a data URL).
pub fn is_archivable(url: &str) -> bool {
    match url::Url::parse(url) {
        Ok(u) => {
            matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
        }
        Err(_) => false,
    }
}

/// `PREFIX/DATEMOD/URL`: the archival URL of `url` at `date` in `mode` under `prefix`
/// (`/web` for this server's own view).
pub fn format(prefix: &str, date: &str, mode: Mode, url: &str) -> String {
    format!(
        "{}/{date}{}/{url}",
        prefix.trim_end_matches('/'),
        mode.modifier()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dates_modes_and_urls() {
        let a = parse("20071001120000/http://www.example.org/index.html").unwrap();
        assert_eq!(a.date, "20071001120000");
        assert!(a.exact);
        assert_eq!(a.mode, Mode::Frame);
        assert_eq!(a.url, "http://www.example.org/index.html");
        let b = parse("2007mp_/example.org/a?b=1").unwrap();
        assert_eq!(
            (b.date.as_str(), b.exact, b.mode, b.url.as_str()),
            (
                "20070101000000",
                false,
                Mode::Page,
                "http://example.org/a?b=1"
            )
        );
        let c = parse("20071001120000id_/https:/example.org/").unwrap();
        assert_eq!(
            (c.mode, c.url.as_str()),
            (Mode::Identity, "https://example.org/")
        );
        assert_eq!(parse("2007im_/HTTP://x.org/").unwrap().url, "http://x.org/");
    }

    #[test]
    fn refuses_what_is_not_an_archival_url() {
        for bad in [
            "",
            "2007",
            "abc/http://x.org/",
            "/http://x.org/",
            "200710011200001/http://x.org/",
            "2007xx_/http://x.org/",
            "2007/javascript:alert(1)",
            "2007/file:///etc/passwd",
            "2007/http://",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
        let long = format!("2007/http://x.org/{}", "a".repeat(MAX_URL));
        assert!(parse(&long).is_err());
    }

    #[test]
    fn pads_partial_dates_to_the_start_of_the_period() {
        assert_eq!(pad_date("2007"), "20070101000000");
        assert_eq!(pad_date("200710"), "20071001000000");
        assert_eq!(pad_date("20070"), "20070101000000");
        assert_eq!(pad_date("2007100112"), "20071001120000");
        assert_eq!(pad_date("20071001120000"), "20071001120000");
    }

    #[test]
    fn formats_each_mode() {
        assert_eq!(
            format("/web/", "20071001120000", Mode::Page, "http://x.org/a"),
            "/web/20071001120000mp_/http://x.org/a"
        );
        assert_eq!(
            format("/web", "20071001120000", Mode::Frame, "http://x.org/"),
            "/web/20071001120000/http://x.org/"
        );
    }
}
