//! URLs in CSS (`url(…)` and `@import "…"`), rewritten over bytes: a stylesheet in any
//! ASCII-compatible encoding keeps every byte that is not one of its URLs.

use std::borrow::Cow;

use regex::bytes::Captures;

use super::url::UrlRewriter;
use crate::html::requisites::CSS_URL;
use crate::replay::archival_url::Mode;

/// `css` with each URL in it in archival form (embedded resources: [`Mode::Page`]).
pub fn rewrite_css<'a>(css: &'a [u8], rw: &UrlRewriter) -> Cow<'a, [u8]> {
    CSS_URL.replace_all(css, |c: &Captures<'_>| -> Vec<u8> {
        let whole = c.get(0).expect("a match").as_bytes();
        let (lead, quote, url, tail): (&[u8], &[u8], &[u8], &[u8]) = if let Some(lead) = c.get(1) {
            let (q, u) = match (c.get(2), c.get(3), c.get(4)) {
                (Some(u), _, _) => (&b"\""[..], u.as_bytes()),
                (_, Some(u), _) => (&b"'"[..], u.as_bytes()),
                (_, _, Some(u)) => (&b""[..], u.as_bytes()),
                _ => return whole.to_vec(),
            };
            (
                lead.as_bytes(),
                q,
                u,
                c.get(5).map_or(&b")"[..], |m| m.as_bytes()),
            )
        } else {
            let lead = c.get(6).map_or(&b""[..], |m| m.as_bytes());
            match (c.get(7), c.get(8)) {
                (Some(u), _) => (lead, &b"\""[..], u.as_bytes(), &b""[..]),
                (_, Some(u)) => (lead, &b"'"[..], u.as_bytes(), &b""[..]),
                _ => return whole.to_vec(),
            }
        };
        let Ok(text) = std::str::from_utf8(url) else {
            return whole.to_vec();
        };
        let Some(new) = rw.rewrite(text, Mode::Page) else {
            return whole.to_vec();
        };
        let mut out = Vec::with_capacity(whole.len() + 40);
        out.extend_from_slice(lead);
        out.extend_from_slice(quote);
        out.extend_from_slice(new.as_bytes());
        out.extend_from_slice(quote);
        out.extend_from_slice(tail);
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_every_form_and_keeps_the_rest() {
        let rw = UrlRewriter {
            base: url::Url::parse("http://example.org/css/site.css").unwrap(),
            date: "20240115030000".into(),
            prefix: "/web".into(),
        };
        let css = b"@import \"base.css\";\n@import url(print.css) print;\nbody { background: URL( '../img/bg.png' ) }\n.a { b: url(data:image/png;base64,AA) } /* caf\xe9 */";
        let out = rewrite_css(css, &rw);
        let want: &[u8] = b"@import \"/web/20240115030000mp_/http://example.org/css/base.css\";\n@import url(/web/20240115030000mp_/http://example.org/css/print.css) print;\nbody { background: URL( '/web/20240115030000mp_/http://example.org/img/bg.png' ) }\n.a { b: url(data:image/png;base64,AA) } /* caf\xe9 */";
        assert_eq!(&out[..], want, "{}", String::from_utf8_lossy(&out));
    }
}
