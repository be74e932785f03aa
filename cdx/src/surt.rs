//! CDX URL keys exactly as pywb 2.10 writes them.
//!
//! pywb's `pywb.utils.canonicalize.canonicalize(url, surt_ordered)` calls the
//! Python `surt` 0.3.1 package (`surt.surt(url)`: `handyurl.parse`, then the
//! `GoogleURLCanonicalizer` and `IAURLCanonicalizer` rules, then SURT output
//! without scheme or trailing comma). This module re-implements that pipeline
//! on bytes, step for step, so that keys match pywb byte for byte, quirks
//! included. Each quirk is tagged `Quirk:` with the tool it comes from.
//!
//! Input is a `&str`: the caller decodes a WARC/ARC URL as UTF-8, falling back
//! to Latin-1, which is what warcio does before pywb sees the URL. As in
//! Python, the string is then processed as its UTF-8 bytes; every byte outside
//! `0x21..=0x7E` ends up `%XX`-escaped in the key.
//!
//! Known, deliberate gaps (all in rarely seen inputs):
//! * IDNA: Python's `idna` codec runs full RFC 3491 nameprep (NFKC, bidi
//!   tables). We apply the case folding, "map to nothing", the NFKC mappings
//!   that matter for hosts (full-width ASCII, Unicode spaces) and the
//!   prohibited-character and bidi checks with approximate tables, but no
//!   general NFKC. Hosts that are not NFKC-normalized may differ. Punycode
//!   (RFC 3492) is the `idna` crate's; its domain mapping is UTS 46 (IDNA
//!   2008), not IDNA 2003 nameprep (`ß.de` is `ss.de` in Python but
//!   `xn--zca.de` under UTS 46), so nameprep stays here.
//! * IP normalisation: surt asks the system resolver (`gethostbyname_ex`) about
//!   dotted-number hosts. We emulate glibc `inet_aton` and treat every other
//!   such host as unresolvable, as pywb does on a machine whose DNS does not
//!   answer for numeric names.
//! * Python version: ports follow Python 3.11+ `urllib` (ASCII digits only,
//!   so `:+80` is refused) and all-digit hosts over 4300 digits are refused
//!   (`int()` limit), as on the machine that produced the reference CDX.
//!
//! There is no `warcinfo` special case (docs/formats.md lists one for Java): Python
//! surt treats `warcinfo:/x` like any host-less URL (path lowercased).

/// Which URL key style a CDX uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum KeyStyle {
    /// SURT-ordered key, e.g. `org,example)/index.html` (pywb's default).
    #[default]
    Surt,
    /// Canonical URL without scheme, e.g. `example.org/index.html`
    /// (pywb `cdx-indexer -u`: the SURT key passed through pywb's `unsurt`).
    Url,
}

/// Error for URLs pywb refuses (it raises `UrlCanonicalizeException`
/// "Invalid Url: ...", and `cdx-indexer` aborts the file).
// Same text as pywb's exception, plus the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid Url: {url} ({reason})")]
pub struct CanonicalizeError {
    url: String,
    reason: &'static str,
}

impl CanonicalizeError {
    /// The URL that was refused.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Why the Python code would have raised (e.g. a non-numeric port).
    pub fn reason(&self) -> &'static str {
        self.reason
    }
}

/// Why surt 0.3.1 would raise; becomes [`CanonicalizeError::reason`].
type Invalid = &'static str;

/// SURT key as pywb writes it in CDX column 1, e.g. `org,example)/index.html`.
///
/// Errors where pywb raises "Invalid Url" (non-numeric or out-of-range port,
/// whitespace-only URL).
pub fn surt_key(url: &str) -> Result<String, CanonicalizeError> {
    if let Some(key) = fast_surt(url.as_bytes()) {
        return Ok(key);
    }
    match surt_bytes(url) {
        Ok(key) => Ok(key),
        // Quirk (pywb canonicalize): when surt raises, a `urn:` URL is
        // "already canonical" and is used unchanged.
        Err(_) if url.starts_with("urn:") => Ok(url.to_owned()),
        Err(reason) => Err(CanonicalizeError {
            url: url.to_owned(),
            reason,
        }),
    }
}

/// Key in the given style ([`KeyStyle::Url`] = pywb `cdx-indexer -u`).
pub fn url_key(url: &str, style: KeyStyle) -> Result<String, CanonicalizeError> {
    let key = surt_key(url)?;
    Ok(match style {
        KeyStyle::Surt => key,
        KeyStyle::Url => unsurt(&key),
    })
}

/// pywb `unsurt`: reverse the comma-separated part before the first `)/`.
///
/// Quirk (pywb): the port is inside that part, so `org,example:8080)/` becomes
/// `example:8080.org/`; a key without `)/` (e.g. `dns:...`) is unchanged.
fn unsurt(key: &str) -> String {
    let Some(idx) = key.find(")/") else {
        return key.to_owned();
    };
    let mut out = String::with_capacity(key.len());
    for (i, part) in key[..idx].rsplit(',').enumerate() {
        if i > 0 {
            out.push('.');
        }
        out.push_str(part);
    }
    out.push_str(&key[idx + 1..]);
    out
}

// ---------------------------------------------------------------------------
// The general path: surt 0.3.1 `_surt_bytes`.

/// A parsed URL as `handyurl` holds it. An empty host, path or query stands
/// for Python's `None`: surt only ever tests them for truthiness.
struct HandyUrl {
    scheme: Vec<u8>,
    host: Vec<u8>,
    port: Option<u16>,
    path: Vec<u8>,
    query: Vec<u8>,
}

fn surt_bytes(url: &str) -> Result<String, Invalid> {
    if url.is_empty() {
        return Ok("-".to_owned());
    }
    // Quirk (surt): ARC `filedesc://` header URLs pass through untouched.
    if url.starts_with("filedesc") {
        return Ok(url.to_owned());
    }
    let mut u = parse(url.as_bytes())?;
    google_canonicalize(&mut u)?;
    ia_canonicalize(&mut u);
    let key = format_surt(&u);
    // Every byte is escaped to ASCII by now; Python decodes it as UTF-8.
    String::from_utf8(key).map_err(|_| "key is not UTF-8")
}

/// `handyurl.parse`, including the parts of `urllib`'s `SplitResult` it uses.
fn parse(raw: &[u8]) -> Result<HandyUrl, Invalid> {
    // bytes.strip() (ASCII whitespace incl. \x0b \x0c), then drop every
    // \n \r \t. Quirk (surt): inner spaces stay (escaped later as %20).
    let mut s: Vec<u8> = Vec::with_capacity(raw.len() + 7);
    s.extend(
        trim_py(raw)
            .iter()
            .filter(|&&b| !matches!(b, b'\n' | b'\r' | b'\t')),
    );
    if s.is_empty() {
        // Python: the scheme is None and `scheme.startswith` raises.
        return Err("empty URL");
    }
    if scheme_end(&s).is_none() {
        // Quirk (surt): anything not starting `scheme:` gets `http://`, so
        // `example.com:80/` keeps "example.com" as its scheme.
        s.splice(0..0, *b"http://");
    }
    // Quirk (surt): `^(https?://)+` is replaced by its last repetition
    // ("http://https://x" -> "https://x").
    let mut start = 0;
    while let Some(n) = http_prefix(&s[start..]) {
        if http_prefix(&s[start + n..]).is_none() {
            break;
        }
        start += n;
    }
    let s = &s[start..];

    // RFC 2396 regex split. A scheme is always present here.
    let colon = scheme_end(s).ok_or("no scheme")?;
    let scheme = s[..colon].to_vec();
    let mut rest = &s[colon + 1..];
    let mut netloc = None;
    if let Some(r) = rest.strip_prefix(b"//") {
        let end = r
            .iter()
            .position(|b| matches!(b, b'/' | b'?' | b'#'))
            .unwrap_or(r.len());
        netloc = Some(&r[..end]);
        rest = &r[end..];
    }
    // The fragment goes (the Google canonicalizer drops it anyway).
    if let Some(i) = rest.iter().position(|&b| b == b'#') {
        rest = &rest[..i];
    }
    let (mut path, query) = match rest.iter().position(|&b| b == b'?') {
        Some(i) => (rest[..i].to_vec(), rest[i + 1..].to_vec()),
        None => (rest.to_vec(), Vec::new()),
    };

    let (mut host, port) = match netloc {
        Some(n) => split_netloc(n)?,
        None => (Vec::new(), None),
    };

    // Quirk (surt): "http:////www.x.com/a" - with no host, the first path
    // segment becomes the host, unparsed (a ":80" in it stays in the host).
    if scheme.starts_with(b"http") && host.is_empty() && !path.is_empty() {
        let p = trim_start_slashes(&path);
        let (h, tail) = match p.iter().position(|&b| b == b'/') {
            Some(i) => (&p[..i], &p[i + 1..]),
            None => (p, &b""[..]),
        };
        host = h.to_vec();
        let mut new_path = Vec::with_capacity(tail.len() + 1);
        new_path.push(b'/');
        new_path.extend_from_slice(tail);
        path = new_path;
    }

    Ok(HandyUrl {
        scheme,
        host,
        port,
        path,
        query,
    })
}

/// Python `bytes.strip()`: ASCII whitespace including \x0b (which
/// `trim_ascii` keeps).
fn trim_py(s: &[u8]) -> &[u8] {
    let end = s
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
        .map_or(0, |i| i + 1);
    let s = &s[..end];
    let start = s
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
        .unwrap_or(s.len());
    &s[start..]
}

fn trim_start_slashes(s: &[u8]) -> &[u8] {
    let i = s.iter().position(|&b| b != b'/').unwrap_or(s.len());
    &s[i..]
}

/// Index of the `:` ending a `[a-zA-Z][a-zA-Z0-9+.-]*:` scheme.
fn scheme_end(s: &[u8]) -> Option<usize> {
    if !s.first()?.is_ascii_alphabetic() {
        return None;
    }
    let i = s
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))?;
    (s[i] == b':').then_some(i)
}

/// Length of a leading `http://` or `https://` (case-sensitive, as in surt).
fn http_prefix(s: &[u8]) -> Option<usize> {
    if s.starts_with(b"http://") {
        Some(7)
    } else if s.starts_with(b"https://") {
        Some(8)
    } else {
        None
    }
}

/// `SplitResult.hostname` and `.port` (Python 3.11+ rules) of a netloc.
fn split_netloc(mut netloc: &[u8]) -> Result<(Vec<u8>, Option<u16>), Invalid> {
    // Quirk (surt): "host:" (colon, no port) drops every trailing colon.
    while let Some(n) = netloc.strip_suffix(b":") {
        netloc = n;
    }
    // userinfo is everything up to the last '@' and is never used.
    let hostinfo = match netloc.iter().rposition(|&b| b == b'@') {
        Some(i) => &netloc[i + 1..],
        None => netloc,
    };
    let (host, port): (&[u8], &[u8]) = match hostinfo.iter().position(|&b| b == b'[') {
        // Quirk (urllib): an IPv6 literal is whatever sits between '[' and ']';
        // anything before '[' is lost. The port follows the first ':' after ']'.
        Some(i) => {
            let br = &hostinfo[i + 1..];
            match br.iter().position(|&b| b == b']') {
                Some(j) => {
                    let after = &br[j + 1..];
                    let port = match after.iter().position(|&b| b == b':') {
                        Some(k) => &after[k + 1..],
                        None => b"",
                    };
                    (&br[..j], port)
                }
                None => (br, b""),
            }
        }
        None => match hostinfo.iter().position(|&b| b == b':') {
            Some(i) => (&hostinfo[..i], &hostinfo[i + 1..]),
            None => (hostinfo, b""),
        },
    };
    let port = if port.is_empty() {
        None
    } else {
        // Quirk (urllib, via surt): a non-numeric port ("http://JavaScript:x")
        // raises ValueError, which pywb reports as "Invalid Url".
        if !port.iter().all(u8::is_ascii_digit) {
            return Err("port is not a number");
        }
        let mut v: u32 = 0;
        for &d in port {
            v = v * 10 + u32::from(d - b'0');
            if v > 65535 {
                return Err("port out of range 0-65535");
            }
        }
        // `o.port or None`: port 0 counts as no port.
        (v != 0).then_some(v as u16)
    };
    Ok((host.to_vec(), port))
}

/// `GoogleURLCanonicalizer.canonicalize`.
fn google_canonicalize(u: &mut HandyUrl) -> Result<(), Invalid> {
    if !u.query.is_empty() {
        u.query = escape_once(&unescape_repeatedly(&u.query));
    }
    if !u.host.is_empty() {
        let mut host = unescape_repeatedly(&u.host);
        if !host.is_ascii() {
            // On an IDNA error surt keeps the raw bytes (escaped below).
            if let Some(ace) = crate::idna2003::to_ascii(&host) {
                host = ace;
            }
        }
        // Quirk (surt): a single left-to-right pass, so "a...b" -> "a..b".
        let host = replace_double_dots(&host);
        let host = trim_dots(&host);
        u.host = match attempt_ip_formats(host)? {
            Some(ip) => ip,
            None => escape_once(&host.to_ascii_lowercase()),
        };
    }
    let path = unescape_repeatedly(&u.path);
    // Without a host the path is free-form (e.g. "mailto:x") and is only
    // escaped.
    let path = if u.host.is_empty() {
        path
    } else {
        normalize_path(&path)
    };
    u.path = escape_once(&path);
    Ok(())
}

/// `IAURLCanonicalizer.canonicalize` with its default options.
fn ia_canonicalize(u: &mut HandyUrl) {
    u.host.make_ascii_lowercase();
    // Quirk (surt): strips ONE leading `www\d*.` (the Java version loops),
    // and not when the scheme is exactly `dns` ("dns://www.x").
    if !u.host.is_empty() && u.scheme != b"dns" {
        if let Some(n) = www_prefix(&u.host) {
            u.host.drain(..n);
        }
    }
    let default_port = if u.scheme.eq_ignore_ascii_case(b"http") {
        Some(80)
    } else if u.scheme.eq_ignore_ascii_case(b"https") {
        Some(443)
    } else {
        None
    };
    if default_port.is_some() && u.port == default_port {
        u.port = None;
    }
    if !u.path.is_empty() {
        // Lowercasing also turns escapes into "%c3%a9".
        u.path.make_ascii_lowercase();
        strip_path_session_id(&mut u.path);
        if u.path.len() > 1 && u.path.ends_with(b"/") {
            u.path.pop();
        }
    }
    if !u.query.is_empty() {
        strip_query_session_id(&mut u.query);
        u.query.make_ascii_lowercase();
        u.query = alpha_reorder_query(&u.query);
    }
}

/// `handyurl.geturl_bytes(surt=True, with_scheme=False)`.
fn format_surt(u: &HandyUrl) -> Vec<u8> {
    let mut out = Vec::with_capacity(u.host.len() + u.path.len() + u.query.len() + 16);
    if u.host.is_empty() {
        // Quirk (surt): host-less URLs ("dns:x", "urn:x", "mailto:x") keep
        // their scheme, in its original case.
        out.extend_from_slice(&u.scheme);
        out.push(b':');
    } else {
        push_reversed_labels(&mut out, &u.host);
        if let Some(p) = u.port {
            out.push(b':');
            out.extend_from_slice(p.to_string().as_bytes());
        }
        out.push(b')');
    }
    if !u.path.is_empty() {
        out.extend_from_slice(&u.path);
    } else if !u.query.is_empty() {
        out.push(b'/');
    }
    if !u.query.is_empty() {
        out.push(b'?');
        out.extend_from_slice(&u.query);
    }
    out
}

/// `hostToSURT`: labels reversed and comma-joined. IPv4 addresses too.
fn push_reversed_labels(out: &mut Vec<u8>, host: &[u8]) {
    for (i, label) in host.rsplit(|&b| b == b'.').enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(label);
    }
}

/// Length of a leading `www\d*\.`.
fn www_prefix(host: &[u8]) -> Option<usize> {
    let rest = host.strip_prefix(b"www")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    (rest.get(digits) == Some(&b'.')).then_some(3 + digits + 1)
}

// ---------------------------------------------------------------------------
// Escaping.

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// One pass of `urllib.parse.unquote_to_bytes`: `%XX` with two hex digits is
/// decoded, any other `%` is kept. `None` when nothing was decoded.
fn unescape_once(s: &[u8]) -> Option<Vec<u8>> {
    let first = s.iter().position(|&b| b == b'%')?;
    let mut out = Vec::with_capacity(s.len());
    out.extend_from_slice(&s[..first]);
    let mut changed = false;
    let mut i = first;
    while i < s.len() {
        if s[i] == b'%' && i + 2 < s.len() {
            if let (Some(h), Some(l)) = (hex_val(s[i + 1]), hex_val(s[i + 2])) {
                out.push(h << 4 | l);
                changed = true;
                i += 3;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    changed.then_some(out)
}

/// Quirk (surt): unescape until nothing changes, so "%2541" is "A".
fn unescape_repeatedly(s: &[u8]) -> Vec<u8> {
    let mut cur = s.to_vec();
    while let Some(next) = unescape_once(&cur) {
        cur = next;
    }
    cur
}

/// surt `escapeOnce`: `quote_from_bytes` with everything in `0x21..=0x7E`
/// safe except `#` and `%` (the backslash too: surt's safe string has `\]`).
fn escape_once(s: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        if (0x21..=0x7e).contains(&b) && b != b'#' && b != b'%' {
            out.push(b);
        } else {
            out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Host.

fn replace_double_dots(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        out.push(s[i]);
        i += if s[i] == b'.' && s.get(i + 1) == Some(&b'.') {
            2
        } else {
            1
        };
    }
    out
}

fn trim_dots(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| b != b'.').unwrap_or(s.len());
    let end = s.iter().rposition(|&b| b != b'.').map_or(start, |i| i + 1);
    &s[start..end]
}

/// surt `attemptIPFormats`: all-digit hosts are a 32-bit number, and
/// dotted-number hosts go through the resolver (here: glibc `inet_aton`).
fn attempt_ip_formats(host: &[u8]) -> Result<Option<Vec<u8>>, Invalid> {
    if host.is_empty() {
        return Ok(None);
    }
    if host.iter().all(u8::is_ascii_digit) {
        // Quirk (surt): `int(host) & 0xffffffff`, a decimal number even with
        // a leading zero, masked "to work around liveweb ARC files".
        if host.len() > 4300 {
            // Python 3.11+ refuses to convert longer digit strings.
            return Err("integer string too long");
        }
        let v = host.iter().fold(0u32, |acc, &d| {
            acc.wrapping_mul(10).wrapping_add(u32::from(d - b'0'))
        });
        return Ok(Some(dotted_quad(v)));
    }
    let parts: Vec<&[u8]> = host.split(|&b| b == b'.').collect();
    let shape_ok = parts.len() <= 4
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.iter().all(u8::is_ascii_digit));
    if !shape_ok {
        return Ok(None);
    }
    let decimal = parts[0][0] != b'0';
    let octal = !decimal && parts.iter().all(|p| p.iter().all(|&d| d < b'8'));
    if !decimal && !octal {
        return Ok(None);
    }
    Ok(inet_aton(&parts).map(dotted_quad))
}

/// glibc `inet_aton` on digit-only parts: a leading 0 means octal; the last
/// part fills the remaining bytes (`1.2.3` is `1.2.0.3`).
fn inet_aton(parts: &[&[u8]]) -> Option<u32> {
    let mut vals = Vec::with_capacity(parts.len());
    for p in parts {
        let (digits, radix) = if p.len() > 1 && p[0] == b'0' {
            (&p[1..], 8)
        } else {
            (*p, 10)
        };
        let mut v: u64 = 0;
        for &d in digits {
            let d = u64::from(d - b'0');
            if d >= radix {
                return None;
            }
            v = v * radix + d;
            if v > 0xffff_ffff {
                return None;
            }
        }
        vals.push(v as u32);
    }
    let (last, init) = vals.split_last()?;
    let mut addr: u32 = 0;
    for (i, &v) in init.iter().enumerate() {
        if v > 0xff {
            return None;
        }
        addr |= v << (24 - 8 * i);
    }
    let max: u64 = [0xffff_ffff, 0xff_ffff, 0xffff, 0xff][init.len()];
    if u64::from(*last) > max {
        return None;
    }
    Some(addr | last)
}

fn dotted_quad(v: u32) -> Vec<u8> {
    let [a, b, c, d] = v.to_be_bytes();
    format!("{a}.{b}.{c}.{d}").into_bytes()
}

// ---------------------------------------------------------------------------
// Path.

/// surt `normalizePath`: resolve `.` and `..`, drop empty segments but keep
/// a trailing `/`.
fn normalize_path(path: &[u8]) -> Vec<u8> {
    if path.is_empty() {
        return b"/".to_vec();
    }
    let mut kept: Vec<&[u8]> = Vec::new();
    // Quirk (surt): whatever precedes the first '/' is skipped (always empty
    // for a path that follows a host).
    for seg in path.split(|&b| b == b'/').skip(1) {
        match seg {
            b"." => {}
            // Quirk (surt): ".." above the root is kept as a segment.
            b".." => {
                if kept.pop().is_none() {
                    kept.push(seg);
                }
            }
            _ => kept.push(seg),
        }
    }
    let mut out = Vec::with_capacity(path.len());
    out.push(b'/');
    if let Some((last, init)) = kept.split_last() {
        for seg in init.iter().filter(|s| !s.is_empty()) {
            out.extend_from_slice(seg);
            out.push(b'/');
        }
        out.extend_from_slice(last);
    }
    out
}

/// Matches a fixed pattern at the start of a slice; returns its length.
type Matcher = fn(&[u8]) -> Option<usize>;

/// surt `stripPathSessionID`: ASP.NET session ids in the path, e.g.
/// `/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx`. The two regexes run in
/// order, each anchored with a greedy `^(.*/)`, so the last match wins.
fn strip_path_session_id(path: &mut Vec<u8>) {
    for pattern in [aspx_session_multi as Matcher, aspx_session_single] {
        // Greedy `(.*/)`: try the longest prefix first.
        let found = (1..=path.len()).rev().find_map(|start| {
            if path[start - 1] != b'/' {
                return None;
            }
            let len = pattern(&path[start..])?;
            aspx_tail(&path[start + len..]).then_some((start, len))
        });
        if let Some((start, len)) = found {
            path.drain(start..start + len);
        }
    }
}

/// `\((?:[a-z]\([0-9a-z]{24}\))+\)/` (case-insensitive); its length.
fn aspx_session_multi(s: &[u8]) -> Option<usize> {
    let mut i = 1;
    if s.first() != Some(&b'(') {
        return None;
    }
    let mut reps = 0;
    while s.len() >= i + 27
        && s[i].is_ascii_alphabetic()
        && s[i + 1] == b'('
        && s[i + 2..i + 26].iter().all(u8::is_ascii_alphanumeric)
        && s[i + 26] == b')'
    {
        i += 27;
        reps += 1;
    }
    (reps > 0 && s[i..].starts_with(b")/")).then_some(i + 2)
}

/// `\([0-9a-z]{24}\)/` (case-insensitive); its length.
fn aspx_session_single(s: &[u8]) -> Option<usize> {
    (s.len() >= 27
        && s[0] == b'('
        && s[1..25].iter().all(u8::is_ascii_alphanumeric)
        && s[25] == b')'
        && s[26] == b'/')
        .then_some(27)
}

/// `[^\?]+\.aspx.*$`: ".aspx" after at least one byte, before any '?'.
fn aspx_tail(s: &[u8]) -> bool {
    let before_q = s.iter().position(|&b| b == b'?').unwrap_or(s.len());
    before_q >= 6
        && s[1..before_q]
            .windows(5)
            .any(|w| w.eq_ignore_ascii_case(b".aspx"))
}

// ---------------------------------------------------------------------------
// Query.

/// surt `stripQuerySessionID`: five regexes `^(.*)ID(?:&(.*))?$`, in order;
/// the greedy `(.*)` makes the last match win, and the result is
/// `group1 + group2`, so the `&` before the id stays.
fn strip_query_session_id(q: &mut Vec<u8>) {
    let patterns: [Matcher; 5] = [
        |s| alnum_id(s, b"jsessionid="),
        |s| alnum_id(s, b"phpsessid="),
        |s| alnum_id(s, b"sid="),
        asp_session_id,
        cfid_cftoken,
    ];
    for pattern in patterns {
        let found = (0..q.len()).rev().find_map(|start| {
            let len = pattern(&q[start..])?;
            let end = start + len;
            (end == q.len() || q[end] == b'&').then_some((start, end))
        });
        if let Some((start, end)) = found {
            // Drop the id and the '&' after it (an empty group 2 adds nothing).
            let end = (end + 1).min(q.len());
            q.drain(start..end);
        }
    }
}

fn starts_with_ci(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// `NAME=[0-9a-zA-Z]{32}` (case-insensitive name); its length.
fn alnum_id(s: &[u8], name: &[u8]) -> Option<usize> {
    let n = name.len() + 32;
    (starts_with_ci(s, name)
        && s.len() >= n
        && s[name.len()..n].iter().all(u8::is_ascii_alphanumeric))
    .then_some(n)
}

/// `ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24}`; its length.
fn asp_session_id(s: &[u8]) -> Option<usize> {
    (starts_with_ci(s, b"aspsessionid")
        && s.len() >= 45
        && s[12..20].iter().all(u8::is_ascii_alphabetic)
        && s[20] == b'='
        && s[21..45].iter().all(u8::is_ascii_alphabetic))
    .then_some(45)
}

/// `cfid=[^&]+&cftoken=[^&]+`; its length.
fn cfid_cftoken(s: &[u8]) -> Option<usize> {
    if !starts_with_ci(s, b"cfid=") {
        return None;
    }
    let v1 = s[5..].iter().position(|&b| b == b'&')?;
    let rest = &s[5 + v1..];
    if v1 == 0 || !starts_with_ci(rest, b"&cftoken=") {
        return None;
    }
    let rest = &rest[9..];
    let v2 = rest.iter().position(|&b| b == b'&').unwrap_or(rest.len());
    (v2 > 0).then_some(5 + v1 + 9 + v2)
}

/// surt `alphaReorderQuery`: sort `&`-separated args as Python tuples
/// `(key,)` / `(key, value)`, so "a" sorts before "a=" and an empty arg
/// (from "a=1&") comes first.
fn alpha_reorder_query(q: &[u8]) -> Vec<u8> {
    if q.len() <= 1 {
        return q.to_vec();
    }
    let mut args: Vec<(&[u8], Option<&[u8]>)> = q
        .split(|&b| b == b'&')
        .map(|arg| match arg.iter().position(|&b| b == b'=') {
            Some(i) => (&arg[..i], Some(&arg[i + 1..])),
            None => (arg, None),
        })
        .collect();
    args.sort_unstable();
    let mut out = Vec::with_capacity(q.len());
    for (i, (k, v)) in args.into_iter().enumerate() {
        if i > 0 {
            out.push(b'&');
        }
        out.extend_from_slice(k);
        if let Some(v) = v {
            out.push(b'=');
            out.extend_from_slice(v);
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Fast path.

/// Key for the common, unambiguous URL shape, or `None` to take the general
/// path. Accepted: `http://` or `https://`, a host of letters, digits, `-`
/// and single inner dots with at least one letter (so never an IP form),
/// an optional non-zero port, and a path/query of printable ASCII without
/// `%`, `#`, `(`, `//`, dot segments or session-id names. For these
/// the general pipeline reduces to: lowercase, strip `www\d*.` and the
/// default port, strip a trailing `/`, sort the query.
fn fast_surt(url: &[u8]) -> Option<String> {
    let (rest, default_port) = if let Some(r) = url.strip_prefix(b"http://") {
        (r, 80)
    } else if let Some(r) = url.strip_prefix(b"https://") {
        (r, 443)
    } else {
        return None;
    };
    let auth_end = rest
        .iter()
        .position(|&b| matches!(b, b'/' | b'?'))
        .unwrap_or(rest.len());
    let (auth, tail) = rest.split_at(auth_end);
    let (host, port) = match auth.iter().position(|&b| b == b':') {
        Some(i) => (&auth[..i], Some(&auth[i + 1..])),
        None => (auth, None),
    };
    let host_ok = !host.is_empty()
        && host.first() != Some(&b'.')
        && host.last() != Some(&b'.')
        && host
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        && host.iter().any(u8::is_ascii_alphabetic)
        && !host.windows(2).any(|w| w == b"..");
    if !host_ok {
        return None;
    }
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.len() <= 5 && p.iter().all(u8::is_ascii_digit) => {
            let v: u32 = p.iter().fold(0, |a, &d| a * 10 + u32::from(d - b'0'));
            if v == 0 || v > 65535 {
                return None;
            }
            (v != default_port).then_some(v)
        }
        Some(_) => return None,
    };
    // Printable ASCII only: no whitespace to strip, nothing to escape.
    if !tail
        .iter()
        .all(|&b| (0x21..=0x7e).contains(&b) && !matches!(b, b'%' | b'#' | b'('))
    {
        return None;
    }
    let (path, query) = match tail.iter().position(|&b| b == b'?') {
        Some(i) => (&tail[..i], &tail[i + 1..]),
        None => (tail, &b""[..]),
    };
    // No empty or dot segments, so normalizePath is the identity.
    if path.windows(2).any(|w| w == b"//")
        || path
            .split(|&b| b == b'/')
            .skip(1)
            .any(|s| s == b"." || s == b"..")
    {
        return None;
    }
    let lower_query = query.to_ascii_lowercase();
    // Session-id names: "sid=" (also in "phpsessid="), "jsessionid=",
    // "aspsessionid", "cfid=".
    if lower_query.windows(3).any(|w| w == b"sid")
        || lower_query.windows(9).any(|w| w == b"sessionid")
        || lower_query.windows(4).any(|w| w == b"cfid")
    {
        return None;
    }

    let mut out = Vec::with_capacity(url.len() + 8);
    let mut host = host.to_ascii_lowercase();
    if let Some(n) = www_prefix(&host) {
        host.drain(..n);
    }
    if host.is_empty() {
        return None;
    }
    push_reversed_labels(&mut out, &host);
    if let Some(p) = port {
        out.push(b':');
        out.extend_from_slice(p.to_string().as_bytes());
    }
    out.push(b')');
    if path.len() <= 1 {
        out.push(b'/');
    } else {
        let path = path.strip_suffix(b"/").unwrap_or(path);
        out.extend(path.iter().map(u8::to_ascii_lowercase));
    }
    if !lower_query.is_empty() {
        out.push(b'?');
        out.extend_from_slice(&alpha_reorder_query(&lower_query));
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both paths must agree wherever the fast path answers.
    fn key(url: &str) -> String {
        let slow = surt_bytes(url);
        if let Some(fast) = fast_surt(url.as_bytes()) {
            assert_eq!(Ok(&fast), slow.as_ref(), "fast path differs for {url:?}");
        }
        surt_key(url).unwrap()
    }

    mod common {
        include!("../tests/common/mod.rs");
    }

    /// The integration tests check `surt_key` (fast path first) against
    /// pywb; this makes sure the general path agrees on every URL the fast
    /// path takes, so both are covered by those expectations.
    #[test]
    fn fast_path_agrees_with_general_path() {
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/corpus/expected");
        let mut jsonl: Vec<String> = vec![include_str!("../tests/data/surt_vectors.jsonl").into()];
        let mut stack = vec![std::path::PathBuf::from(corpus).join("cdxj-indexer")];
        while let Some(dir) = stack.pop() {
            for entry in
                std::fs::read_dir(&dir).expect("fixtures/corpus/expected is part of the repository")
            {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "cdxj") {
                    jsonl.push(std::fs::read_to_string(path).unwrap());
                }
            }
        }
        let (mut fast, mut total) = (0, 0);
        for line in jsonl.iter().flat_map(|t| t.lines()) {
            // Vector lines are bare JSON; CDXJ lines are `key timestamp {json}`.
            let json = if line.starts_with('{') {
                line
            } else {
                line.splitn(3, ' ').nth(2).unwrap_or("")
            };
            let Some(Some(url)) = common::json_field(json, "url") else {
                panic!("no url in {line:?}");
            };
            total += 1;
            if let Some(f) = fast_surt(url.as_bytes()) {
                fast += 1;
                assert_eq!(Ok(&f), surt_bytes(&url).as_ref(), "{url:?}");
            }
        }
        eprintln!("fast path took {fast} of {total} URLs");
        assert!(total > 5000 && fast > 2000, "{fast} of {total}");
    }

    /// docs/formats.md §2.3, "SURT key" column (Python surt variant).
    #[test]
    fn formats_md_table() {
        let rows = [
            (
                "http://www.example.org/index.html",
                "org,example)/index.html",
            ),
            (
                "http://WWW.Example.ORG:80/Index.HTML",
                "org,example)/index.html",
            ),
            ("http://www.example.org", "org,example)/"),
            ("http://example.org/path/", "org,example)/path"),
            (
                "https://www2.example.org:443/a/b/?b=2&a=1&A=3",
                "org,example)/a/b?a=1&a=3&b=2",
            ),
            (
                "http://example.org:8080/foo?z=1&y=2",
                "org,example:8080)/foo?y=2&z=1",
            ),
            ("http://user:pass@www.example.org/a#frag", "org,example)/a"),
            (
                "http://foo.com/bar?bo=lo&jsessionid=0123456789abcdefghijklemopqrstuv&gum=yum",
                "com,foo)/bar?bo=lo&gum=yum",
            ),
            (
                "http://foo.com/bar?bo=lo&CFID=12412453&CFTOKEN=15501799&gum=yum",
                "com,foo)/bar?bo=lo&gum=yum",
            ),
            (
                "http://legislature.mi.gov/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx",
                "gov,mi,legislature)/mileg.aspx",
            ),
            ("http://example.org/a/./b/../c//d", "org,example)/a/c/d"),
            (
                "http://example.org/pa%20th?a%20a=b",
                "org,example)/pa%20th?a%20a=b",
            ),
            ("http://example.org/foo?&a=1", "org,example)/foo?&a=1"),
            ("http://example.org/foo?a=1&", "org,example)/foo?&a=1"),
            ("http://example.org/%7Euser/", "org,example)/~user"),
            ("http://example.org/%41%42", "org,example)/ab"),
            ("http://example.org/a%2fb?x=%41", "org,example)/a/b?x=a"),
            ("http://www3.example.org/", "org,example)/"),
            ("http://wwwfoo.example.org/", "org,example,wwwfoo)/"),
            ("http://www.www2.example.org/", "org,example,www2)/"),
            ("ftp://ftp.example.org/file", "org,example,ftp)/file"),
            ("http://example.org/a b", "org,example)/a%20b"),
            ("http://127.0.0.1/x", "1,0,0,127)/x"),
            ("dns:www.example.org", "dns:www.example.org"),
        ];
        for (url, want) in rows {
            assert_eq!(key(url), want, "{url}");
        }
    }

    /// Checked against surt 0.3.1 (`surt.surt`) and pywb's `canonicalize`.
    #[test]
    fn python_quirks() {
        let rows = [
            ("", "-"),
            ("filedesc://IAH-2008.arc", "filedesc://IAH-2008.arc"),
            ("http://1.2.3.4%0A/", "4%0a,3,2,1)/"),
            ("http://017700000001/", "1,145,0,31)/"),
            ("http://0x7f.1/", "1,0x7f)/"),
            ("http://1.2.3/", "3,0,2,1)/"),
            ("http://010.0.0.1/", "1,0,0,8)/"),
            ("http://1.2.3.999/", "999,3,2,1)/"),
            ("http://a.b:0/", "b,a)/"),
            ("http://[::1]:8080/x", "::1:8080)/x"),
            ("http:///www.Foo.com:80/a", "com:80,foo)/a"),
            ("HTTP://www.foo.com:80/A/", "com,foo)/a"),
            ("urn:X:Y/", "urn:x:y"),
            ("dns:WWW.Foo.org", "dns:www.foo.org"),
            ("http://www.f%C3%BCr.de/", "de,xn--fr-xka)/"),
            ("http://f\u{fc}r.de/", "de,xn--fr-xka)/"),
            ("http://stra\u{df}e.de/", "de,strasse)/"),
            ("http://b%E4r.de/", "de,br)/"),
            ("http://foo..b\u{e4}r.de/", "de,b%c3%a4r,foo)/"),
            ("http://http://https://example.com/", "com,example)/"),
            ("example.com/foo", "com,example)/foo"),
            ("  http://example.com/a\tb\n ", "com,example)/ab"),
            ("http://example.com/%2541", "com,example)/a"),
            ("http://example.com/a?b=%2", "com,example)/a?b=%252"),
            ("http://example.com/../a/..", "com,example)/.."),
            ("http://example.com/?", "com,example)/"),
            ("http://example.com?x", "com,example)/?x"),
            ("mailto:Foo@Bar.com", "mailto:foo@bar.com"),
        ];
        for (url, want) in rows {
            assert_eq!(key(url), want, "{url:?}");
        }
    }

    #[test]
    fn refused_like_pywb() {
        for url in [
            "http://JavaScript:Wtop('www.pick2hand.com/index2.html')",
            "http://mhtml:d.hatena.ne.jp/images/top/greenpower_logo.gif",
            "http://example.com:65536/",
            " ",
        ] {
            let err = surt_key(url).unwrap_err();
            assert_eq!(err.url(), url);
            assert!(err.to_string().starts_with("Invalid Url: "));
        }
        // Quirk (surt on Python 3.11+): `int()` refuses more than 4300 digits.
        let digits = |n| format!("http://{}/", "1".repeat(n));
        assert_eq!(surt_key(&digits(4300)).unwrap(), "199,113,28,199)/");
        assert!(surt_key(&digits(4301)).is_err());
        // Quirk (pywb): a refused urn: is its own key.
        assert_eq!(surt_key("urn://a:b").unwrap(), "urn://a:b");
    }

    #[test]
    fn url_style_is_unsurt() {
        let rows = [
            ("http://example.com?example=1", "example.com/?example=1"),
            ("http://www.example.org:8080/a", "example:8080.org/a"),
            ("dns:www.example.org", "dns:www.example.org"),
        ];
        for (url, want) in rows {
            assert_eq!(url_key(url, KeyStyle::Url).unwrap(), want);
            assert_eq!(
                url_key(url, KeyStyle::Surt).unwrap(),
                surt_key(url).unwrap()
            );
        }
    }
}
