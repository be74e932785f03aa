//! Choosing the character encoding of a payload: BOM, HTTP `charset`, the WHATWG
//! `<meta>` prescan of the first 1024 bytes, chardetng, windows-1252.

use encoding_rs::Encoding;

use super::CharsetSource;

/// How many bytes the `<meta>` prescan looks at (WHATWG: 1024).
const PRESCAN_LEN: usize = 1024;
/// How many bytes chardetng sees, from just before the first non-ASCII byte: enough for
/// a confident guess, and it keeps a 100 MB page from costing a full detector pass.
const DETECT_LEN: usize = 64 * 1024;
/// ASCII context kept before the first non-ASCII byte, so the detector sees the word
/// the byte belongs to.
const DETECT_BACKUP: usize = 64;

/// The encoding for `body` and where the choice came from. `meta` turns the `<meta>`
/// prescan on (HTML) or off (plain text).
///
/// The BOM goes first, before HTTP: the WHATWG decode algorithm lets a BOM override the
/// transport-layer label, and a UTF-8 BOM decoded as windows-1252 would only add
/// `ï»¿` to every page that has one.
pub(super) fn choose(
    body: &[u8],
    content_type: Option<&str>,
    tld: Option<&[u8]>,
    meta: bool,
) -> (&'static Encoding, CharsetSource) {
    if let Some((enc, _)) = Encoding::for_bom(body) {
        return (enc, CharsetSource::Bom);
    }
    if let Some(enc) = content_type.and_then(|ct| charset_param(ct.as_bytes())) {
        return (enc, CharsetSource::Http);
    }
    if meta {
        if let Some(enc) = prescan(&body[..body.len().min(PRESCAN_LEN)]) {
            return (enc, CharsetSource::Meta);
        }
    }
    match detect(body, tld) {
        Some(enc) => (enc, CharsetSource::Detected),
        None => (encoding_rs::WINDOWS_1252, CharsetSource::Default),
    }
}

/// chardetng's guess, or `None` when the body is all ASCII (nothing to go on: any
/// ASCII-compatible encoding decodes it the same).
fn detect(body: &[u8], tld: Option<&[u8]>) -> Option<&'static Encoding> {
    let first = first_non_ascii(body)?;
    let start = first.saturating_sub(DETECT_BACKUP);
    let end = body.len().min(start + DETECT_LEN);
    let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    det.feed(&body[start..end], end == body.len());
    // Archives hold pages of every age and origin: an undeclared UTF-8 page is common
    // there, unlike on the live web where browsers refuse to guess UTF-8.
    Some(det.guess(tld, chardetng::Utf8Detection::Allow))
}

/// Index of the first byte >= 0x80.
fn first_non_ascii(b: &[u8]) -> Option<usize> {
    // `is_ascii` on blocks is word-at-a-time; the byte loop only runs in the block
    // that has the hit.
    let mut off = 0;
    for block in b.chunks(256) {
        if !block.is_ascii() {
            return block.iter().position(|&c| c >= 0x80).map(|i| off + i);
        }
        off += block.len();
    }
    None
}

/// The top-level label of `url`'s host, lower-case, in the form chardetng accepts.
pub(super) fn tld_of(url: &url::Url) -> Option<Vec<u8>> {
    let url::Host::Domain(d) = url.host()? else {
        return None;
    };
    let label = d.trim_end_matches('.').rsplit('.').next()?;
    let label = label.to_ascii_lowercase();
    let ok = !label.is_empty()
        && label
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-');
    ok.then(|| label.into_bytes())
}

/// The encoding a label names, for labels worth honouring: `replacement` (the labels of
/// ISO-2022-KR, HZ and similar) would turn the whole page into one U+FFFD, so it is
/// treated as no label and the next source decides.
fn for_label(label: &[u8]) -> Option<&'static Encoding> {
    Encoding::for_label(label).filter(|e| *e != encoding_rs::REPLACEMENT)
}

/// The `charset` of a Content-Type value (`text/html; charset="utf-8"`), parsed with
/// the WHATWG rule for `<meta content>`, which also copes with the malformed values
/// real servers send (`text/html;charset=ISO-8859-1;`, `text/html, charset=utf-8`).
/// Not [`crate::reader::content_type::ContentType::charset`], the capture view's strict
/// reading: this one decides the text that is indexed, and a page a server mislabels in
/// these ways is still read in its charset.
pub(super) fn charset_param(ct: &[u8]) -> Option<&'static Encoding> {
    charset_from_content(ct)
}

/// WHATWG "extracting a character encoding from a meta element", over bytes.
fn charset_from_content(s: &[u8]) -> Option<&'static Encoding> {
    let mut pos = 0;
    loop {
        let rel = find_ci(&s[pos..], b"charset")?;
        pos += rel + b"charset".len();
        let mut p = pos;
        while p < s.len() && is_ws(s[p]) {
            p += 1;
        }
        if s.get(p) != Some(&b'=') {
            continue;
        }
        p += 1;
        while p < s.len() && is_ws(s[p]) {
            p += 1;
        }
        let c = *s.get(p)?;
        if c == b'"' || c == b'\'' {
            let rest = &s[p + 1..];
            let close = memchr::memchr(c, rest)?;
            return for_label(&rest[..close]);
        }
        let end = s[p..]
            .iter()
            .position(|&c| is_ws(c) || c == b';')
            .map_or(s.len(), |i| p + i);
        return for_label(&s[p..end]);
    }
}

/// ASCII case-insensitive search for a lower-case needle.
fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

fn is_ws(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// WHATWG "prescan a byte stream to determine its encoding", over `b` (the caller
/// passes the first 1024 bytes).
pub(super) fn prescan(b: &[u8]) -> Option<&'static Encoding> {
    let mut pos = 0;
    while pos < b.len() {
        let rest = &b[pos..];
        if rest.starts_with(b"<!--") {
            // The end is the first `>` preceded by `--`; the dashes may be those of `<!--`.
            let mut p = pos + 2;
            loop {
                let gt = p + 2 + memchr::memchr(b'>', b.get(p + 2..)?)?;
                if &b[gt - 2..gt] == b"--" {
                    pos = gt + 1;
                    break;
                }
                p = gt - 1;
            }
            continue;
        }
        if rest.len() >= 6
            && rest[..5].eq_ignore_ascii_case(b"<meta")
            && (is_ws(rest[5]) || rest[5] == b'/')
        {
            pos += 5;
            if let Some(enc) = meta_attributes(b, &mut pos).ok()? {
                return Some(enc);
            }
            pos += 1;
            continue;
        }
        let tag_start = match rest {
            [b'<', c, ..] if c.is_ascii_alphabetic() => Some(1),
            [b'<', b'/', c, ..] if c.is_ascii_alphabetic() => Some(2),
            _ => None,
        };
        if let Some(skip) = tag_start {
            pos += skip;
            while pos < b.len() && !is_ws(b[pos]) && b[pos] != b'>' {
                pos += 1;
            }
            while get_attribute(b, &mut pos).ok()?.is_some() {}
            pos += 1;
            continue;
        }
        if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            pos += 2 + memchr::memchr(b'>', &rest[2..])? + 1;
            continue;
        }
        pos += 1;
    }
    None
}

/// The attributes of a `<meta>` at `pos`, and the encoding they declare if any;
/// `Err` when the bytes end inside the tag (the prescan stops there).
fn meta_attributes(b: &[u8], pos: &mut usize) -> Result<Option<&'static Encoding>, ()> {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut got_pragma = false;
    // None: no charset attribute yet; Some(true): from `content`, needs the pragma.
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<&'static Encoding> = None;
    let mut charset_failed = false;
    while let Some((name, value)) = get_attribute(b, pos)? {
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" if value == b"content-type" => got_pragma = true,
            b"content" if charset.is_none() && !charset_failed => {
                if let Some(enc) = charset_from_content(&value) {
                    charset = Some(enc);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = for_label(&value);
                charset_failed = charset.is_none();
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    let Some(need) = need_pragma else {
        return Ok(None);
    };
    if need && !got_pragma {
        return Ok(None);
    }
    let Some(enc) = charset else {
        return Ok(None);
    };
    Ok(Some(
        if enc == encoding_rs::UTF_16BE || enc == encoding_rs::UTF_16LE {
            // A page that can be read as ASCII to find this tag is not UTF-16.
            encoding_rs::UTF_8
        } else if enc == encoding_rs::X_USER_DEFINED {
            encoding_rs::WINDOWS_1252
        } else {
            enc
        },
    ))
}

/// An attribute's name and value as the prescan reads them.
type Attr = (Vec<u8>, Vec<u8>);

/// WHATWG "get an attribute" (names and values lower-cased, as the spec does):
/// `Ok(Some)` an attribute, `Ok(None)` the tag's `>`, `Err` the end of the bytes.
fn get_attribute(b: &[u8], pos: &mut usize) -> Result<Option<Attr>, ()> {
    let at = |p: usize| b.get(p).copied().ok_or(());
    while is_ws(at(*pos)?) || at(*pos)? == b'/' {
        *pos += 1;
    }
    if at(*pos)? == b'>' {
        return Ok(None);
    }
    let mut name = Vec::new();
    let mut value = Vec::new();
    loop {
        let c = at(*pos)?;
        if c == b'=' && !name.is_empty() {
            *pos += 1;
            break;
        }
        if is_ws(c) {
            while is_ws(at(*pos)?) {
                *pos += 1;
            }
            if at(*pos)? != b'=' {
                return Ok(Some((name, value)));
            }
            *pos += 1;
            break;
        }
        if c == b'/' || c == b'>' {
            return Ok(Some((name, value)));
        }
        name.push(c.to_ascii_lowercase());
        *pos += 1;
    }
    while is_ws(at(*pos)?) {
        *pos += 1;
    }
    let c = at(*pos)?;
    if c == b'"' || c == b'\'' {
        loop {
            *pos += 1;
            let d = at(*pos)?;
            if d == c {
                *pos += 1;
                return Ok(Some((name, value)));
            }
            value.push(d.to_ascii_lowercase());
        }
    }
    if c == b'>' {
        return Ok(Some((name, value)));
    }
    loop {
        let d = at(*pos)?;
        if is_ws(d) || d == b'>' {
            return Ok(Some((name, value)));
        }
        value.push(d.to_ascii_lowercase());
        *pos += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pre(s: &str) -> Option<&'static str> {
        prescan(s.as_bytes()).map(Encoding::name)
    }

    #[test]
    fn prescan_finds_meta_forms() {
        assert_eq!(
            pre(r#"<html><head><meta charset="iso-8859-2">"#),
            Some("ISO-8859-2")
        );
        assert_eq!(pre("<meta charset=shift_jis>"), Some("Shift_JIS"));
        assert_eq!(
            pre(r#"<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=windows-1251">"#),
            Some("windows-1251")
        );
        assert_eq!(
            pre(r#"<meta content='text/html; charset="koi8-r"' http-equiv=content-type>"#),
            Some("KOI8-R")
        );
        // `content` without the pragma does not count.
        assert_eq!(pre(r#"<meta content="text/html; charset=koi8-r">"#), None);
        assert_eq!(pre(r#"<meta charset="utf-16le">"#), Some("UTF-8"));
        assert_eq!(
            pre(r#"<meta charset="x-user-defined">"#),
            Some("windows-1252")
        );
        assert_eq!(
            pre(r#"<meta charset="bogus"><meta charset="euc-jp">"#),
            Some("EUC-JP")
        );
    }

    #[test]
    fn prescan_skips_comments_and_other_tags() {
        assert_eq!(
            pre(r#"<!-- <meta charset="koi8-r"> --><meta charset="gbk">"#),
            Some("GBK")
        );
        assert_eq!(pre(r#"<!--><meta charset="gbk">"#), Some("GBK"));
        assert_eq!(
            pre(r#"<div title='<meta charset="koi8-r">'><meta charset=big5>"#),
            Some("Big5")
        );
        assert_eq!(pre("<meta"), None);
        assert_eq!(pre("<!-- never closed <meta charset=gbk>"), None);
        assert_eq!(pre("<metacharset=gbk>"), None);
    }

    #[test]
    fn content_type_charset() {
        let cs = |s: &str| charset_param(s.as_bytes()).map(Encoding::name);
        assert_eq!(cs("text/html; charset=UTF-8"), Some("UTF-8"));
        assert_eq!(cs("text/html;charset=\"iso-8859-1\""), Some("windows-1252"));
        assert_eq!(
            cs("text/html; charset=Shift_JIS; foo=bar"),
            Some("Shift_JIS")
        );
        assert_eq!(cs("text/html"), None);
        assert_eq!(cs("text/html; charset=nonsense"), None);
        assert_eq!(cs("text/html; charset=iso-2022-kr"), None);
    }

    #[test]
    fn tld_hint() {
        let t = |s: &str| tld_of(&url::Url::parse(s).unwrap());
        assert_eq!(t("http://www.example.co.JP./x"), Some(b"jp".to_vec()));
        assert_eq!(t("http://127.0.0.1/"), None);
        assert_eq!(
            t("http://xn--fiqs8s.xn--fiqz9s/"),
            Some(b"xn--fiqz9s".to_vec())
        );
    }
}
