//! POST/PUT append (pywb `cdx-indexer -p`): the method and request body of a non-GET
//! request become query parameters of its response's URL key, so two POSTs to one URL
//! with different bodies are different captures. Encoding per the IIPC draft "CDX for
//! non-GET requests" (compatible with pywb 2.6.7+):
//! `__wb_method=POST&<body as query>`, where the body is decoded by content type.

use std::fmt::Write as _;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::reader::content_type::ContentType;

/// The query to append for a request with `method`, `content_type` and `body` (at most
/// Content-Length bytes). `None` for GET, whose key is left alone.
pub fn method_query(
    method: &str,
    content_type: Option<&str>,
    body: Option<&[u8]>,
) -> Option<String> {
    let method = method.to_ascii_uppercase();
    if method == "GET" || method.is_empty() {
        return None;
    }
    let mut q = format!("__wb_method={method}");
    if method == "HEAD" || method == "OPTIONS" {
        return Some(q);
    }
    if let Some(body) = body.filter(|b| !b.is_empty()) {
        let body_query = encode_body(content_type.unwrap_or(""), body);
        if !body_query.is_empty() {
            q.push('&');
            q.push_str(&body_query);
        }
    }
    Some(q)
}

/// Appends `query` to `url` with `?` or `&`.
pub fn append_query(url: &str, query: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{query}")
}

fn encode_body(content_type: &str, body: &[u8]) -> String {
    let ct = content_type.to_ascii_lowercase();
    let decoded = if ct.starts_with("application/x-www-form-urlencoded") {
        // pywb appends the form decoded (`unquote_plus`), not re-encoded.
        std::str::from_utf8(body).ok().map(unquote_plus)
    } else if ct.starts_with("multipart/") {
        multipart_query(content_type, body)
    } else if ct.starts_with("application/json") || ct.starts_with("text/plain") {
        json_query(body)
    } else {
        None
    };
    decoded.unwrap_or_else(|| format!("__wb_post_data={}", data_encoding::BASE64.encode(body)))
}

/// Python's `urllib.parse.unquote_plus`: `+` is a space, `%XX` a byte; bytes that are
/// not UTF-8 become U+FFFD.
pub fn unquote_plus(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Python's `urllib.parse.quote_plus` (what `urlencode` applies to each name and value).
pub fn quote_plus(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// A JSON value that keeps object members in document order (the draft numbers
/// repeated names in the order they appear).
enum Json {
    Object(Vec<(String, Json)>),
    Array(Vec<Json>),
    Scalar(String),
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Scalar(if v { "True" } else { "False" }.into()))
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Scalar("None".into()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(Json::Scalar(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(Json::Scalar(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
                // Python's repr of a float: always a decimal point.
                let s = if v.fract() == 0.0 && v.abs() < 1e16 {
                    format!("{v:.1}")
                } else {
                    v.to_string()
                };
                Ok(Json::Scalar(s))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::Scalar(quote_plus(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(v) = a.next_element()? {
                    items.push(v);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut members = Vec::new();
                while let Some((k, v)) = a.next_entry::<String, Json>()? {
                    members.push((k, v));
                }
                Ok(Json::Object(members))
            }
        }
        d.deserialize_any(V)
    }
}

fn json_query(body: &[u8]) -> Option<String> {
    let value: Json = serde_json::from_slice(body).ok()?;
    let mut counts: Vec<(String, u32)> = Vec::new();
    let mut out = String::new();
    flatten("", &value, &mut counts, &mut out);
    Some(out.strip_prefix('&').unwrap_or(&out).to_string())
}

fn flatten(name: &str, v: &Json, counts: &mut Vec<(String, u32)>, out: &mut String) {
    match v {
        Json::Object(members) => {
            for (k, v) in members {
                flatten(k, v, counts, out);
            }
        }
        Json::Array(items) => {
            for v in items {
                flatten(name, v, counts, out);
            }
        }
        Json::Scalar(s) => match counts.iter_mut().find(|(n, _)| n == name) {
            Some((_, c)) => {
                *c += 1;
                let _ = write!(out, "&{name}.{c}_={s}");
            }
            None => {
                counts.push((name.to_string(), 1));
                let _ = write!(out, "&{name}={s}");
            }
        },
    }
}

/// `multipart/form-data` fields as `name=value&...` (urlencoded), or `None` when the
/// body is not a multipart message with the declared boundary.
fn multipart_query(content_type: &str, body: &[u8]) -> Option<String> {
    // The media type (`multipart/…`, the caller's test) holds no `boundary=`.
    let boundary = ContentType::new(content_type).param("boundary")?;
    let delim = format!("--{boundary}");
    let text = String::from_utf8_lossy(body);
    let mut pairs = Vec::new();
    let mut parts = text.split(delim.as_str());
    parts.next()?; // preamble
    for part in parts {
        if part.starts_with("--") {
            break;
        }
        let part = part
            .strip_prefix("\r\n")
            .or_else(|| part.strip_prefix('\n'))?;
        let (head, value) = part
            .split_once("\r\n\r\n")
            .or_else(|| part.split_once("\n\n"))?;
        let name = head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            if !k.trim().eq_ignore_ascii_case("content-disposition") {
                return None;
            }
            v.split(';').map(str::trim).find_map(|p| {
                p.strip_prefix("name=")
                    .map(|n| n.trim_matches('"').to_string())
            })
        })?;
        let value = value
            .strip_suffix("\r\n")
            .or_else(|| value.strip_suffix('\n'))
            .unwrap_or(value);
        pairs.push(format!("{}={}", quote_plus(&name), quote_plus(value)));
    }
    (!pairs.is_empty()).then(|| pairs.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORM: &[u8] = b"foo=bar&dir=%2Fbaz";

    fn q(method: &str, ct: &str, body: &[u8]) -> String {
        append_query(
            "http://example.com/",
            &method_query(method, Some(ct), Some(body)).unwrap(),
        )
    }

    // Expected values from pywb's tests of MethodQueryCanonicalizer (test_inputreq.py)
    // and the IIPC draft's JSON example.
    #[test]
    fn form_is_decoded() {
        assert_eq!(
            q("POST", "application/x-www-form-urlencoded", FORM),
            "http://example.com/?__wb_method=POST&foo=bar&dir=/baz"
        );
        assert_eq!(
            append_query(
                "http://example.com/?123=ABC",
                "__wb_method=POST&foo=bar&dir=/baz"
            ),
            "http://example.com/?123=ABC&__wb_method=POST&foo=bar&dir=/baz"
        );
        assert_eq!(
            q("PUT", "application/x-www-form-urlencoded", FORM),
            "http://example.com/?__wb_method=PUT&foo=bar&dir=/baz"
        );
    }

    #[test]
    fn json_is_flattened() {
        assert_eq!(
            q(
                "POST",
                "application/json",
                br#"{"a": "b", "c": {"a": 2}, "d": "e"}"#
            ),
            "http://example.com/?__wb_method=POST&a=b&a.2_=2&d=e"
        );
        let body = br#"{"type": "event", "id": 44.0, "values": [true, false, null],
            "source": {"type": "component", "id": "a+b&c= d", "values": [3, 4]}}"#;
        assert_eq!(
            q("POST", "application/json", body),
            "http://example.com/?__wb_method=POST&type=event&id=44.0&values=True&values.2_=False&values.3_=None&type.2_=component&id.2_=a%2Bb%26c%3D+d&values.4_=3&values.5_=4"
        );
    }

    #[test]
    fn other_bodies_are_base64() {
        assert_eq!(
            q("POST", "application/octet-stream", FORM),
            "http://example.com/?__wb_method=POST&__wb_post_data=Zm9vPWJhciZkaXI9JTJGYmF6"
        );
        assert_eq!(
            q("POST", "text/plain", FORM),
            "http://example.com/?__wb_method=POST&__wb_post_data=Zm9vPWJhciZkaXI9JTJGYmF6"
        );
        assert_eq!(
            q("POST", "multipart/form-data", FORM),
            "http://example.com/?__wb_method=POST&__wb_post_data=Zm9vPWJhciZkaXI9JTJGYmF6"
        );
        let binary = b"\x816l`L\xa04P\x0e\xe0r\x02\xb5\x89\x19\x00fP\xdb\x0e\xb0\x02,";
        assert_eq!(
            q("POST", "application/x-www-form-urlencoded", binary),
            "http://example.com/?__wb_method=POST&__wb_post_data=gTZsYEygNFAO4HICtYkZAGZQ2w6wAiw="
        );
    }

    #[test]
    fn methods_without_body() {
        assert_eq!(
            q("OPTIONS", "", b""),
            "http://example.com/?__wb_method=OPTIONS"
        );
        assert_eq!(q("HEAD", "", b""), "http://example.com/?__wb_method=HEAD");
        assert_eq!(
            q("POST", "application/x-www-form-urlencoded", b""),
            "http://example.com/?__wb_method=POST"
        );
        assert_eq!(method_query("GET", None, None), None);
    }

    #[test]
    fn multipart_fields() {
        let body = b"--XX\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1 2\r\n--XX\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\nx&y\r\n--XX--\r\n";
        assert_eq!(
            q("POST", "multipart/form-data; boundary=XX", body),
            "http://example.com/?__wb_method=POST&a=1+2&b=x%26y"
        );
    }
}
