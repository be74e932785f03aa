//! A `Content-Type` value (an HTTP header's or a WARC record's) read once: its media
//! type and its parameters.
//!
//! This is the reading of the capture view, the import and the POST keys of the CDX:
//! the media type is what comes before the first `;`, trimmed and lower-cased, and a
//! parameter is a `name=value` after a `;`, its name in any case, its value trimmed and
//! unquoted. Two readings stay apart on purpose. The CDX's mime field keeps the case and
//! cuts at a space as well (`cdx_writer`'s `pywb_mime` and the cdx-writer column): it is
//! the peers' text, compared byte for byte. The charset that decodes a page for the
//! search index is found with the WHATWG rule for `<meta content>` (`html::charset`),
//! which also copes with the malformed values servers send (`text/html, charset=utf-8`):
//! it decides what text is indexed.

/// A `Content-Type` value, borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContentType<'a> {
    value: &'a str,
}

impl<'a> ContentType<'a> {
    /// The value as it was sent (`text/html; charset=UTF-8`).
    pub fn new(value: &'a str) -> ContentType<'a> {
        ContentType { value }
    }

    /// The media type, without parameters, trimmed and lower-cased (`text/html`); empty
    /// when the value is.
    pub fn media_type(&self) -> String {
        let first = self.value.split(';').next().unwrap_or("");
        first.trim().to_ascii_lowercase()
    }

    /// The value of the first parameter called `name` (in any case), trimmed and without
    /// its double quotes (`"utf-8"` is `utf-8`); `None` when there is none.
    pub fn param(&self, name: &str) -> Option<&'a str> {
        (self.value.split(';').skip(1))
            .filter_map(|p| p.split_once('='))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().trim_matches('"'))
    }

    /// The `charset` parameter ([`ContentType::param`]).
    pub fn charset(&self) -> Option<&'a str> {
        self.param("charset")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ct(v: &str) -> ContentType<'_> {
        ContentType::new(v)
    }

    #[test]
    fn media_type_without_parameters_in_lower_case() {
        assert_eq!(ct("text/html").media_type(), "text/html");
        assert_eq!(ct("Text/HTML; charset=UTF-8").media_type(), "text/html");
        assert_eq!(ct("  text/css  ;x=y").media_type(), "text/css");
        assert_eq!(ct("text/html;").media_type(), "text/html");
        assert_eq!(ct("").media_type(), "");
        assert_eq!(ct(" ; charset=utf-8").media_type(), "");
        // No `;`: the rest is part of the type (a malformed value is not repaired).
        assert_eq!(
            ct("text/html, charset=utf-8").media_type(),
            "text/html, charset=utf-8"
        );
        assert_eq!(
            ct("text/html charset=x").media_type(),
            "text/html charset=x"
        );
    }

    #[test]
    fn parameters_by_name_in_any_case_unquoted() {
        assert_eq!(ct("text/html; charset=utf-8").charset(), Some("utf-8"));
        assert_eq!(
            ct("text/html;CHARSET = \"ISO-8859-1\" ").charset(),
            Some("ISO-8859-1")
        );
        assert_eq!(ct("text/html; Charset=\"\"").charset(), Some(""));
        assert_eq!(
            ct("text/html;charset=ISO-8859-1;").charset(),
            Some("ISO-8859-1")
        );
        // The first parameter of the name counts, whatever it says.
        assert_eq!(
            ct("text/html; charset=bogus; charset=utf-8").charset(),
            Some("bogus")
        );
        assert_eq!(ct("text/html").charset(), None);
        assert_eq!(ct("text/html; charset").charset(), None);
        // The media type is no parameter, and a comma does not separate one.
        assert_eq!(ct("charset=utf-8").charset(), None);
        assert_eq!(ct("text/html, charset=utf-8").charset(), None);
        assert_eq!(ct("text/html; xcharset=utf-8").charset(), None);
        // Single quotes are kept, as before.
        assert_eq!(ct("text/html; charset='utf-8'").charset(), Some("'utf-8'"));
    }

    #[test]
    fn multipart_boundaries() {
        let v = "multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxk";
        assert_eq!(
            ct(v).param("boundary"),
            Some("----WebKitFormBoundary7MA4YWxk")
        );
        let v = "multipart/form-data;BOUNDARY=\"a b\"; charset=utf-8";
        assert_eq!(ct(v).param("boundary"), Some("a b"));
        assert_eq!(ct("multipart/form-data").param("boundary"), None);
    }
}
