// Helpers shared by the tests: a minimal JSON reader for the flat objects in
// CDXJ lines and test-vector files (no dev-dependency). Plain comments: this
// file is also `include!`d by the unit tests in src/surt.rs.

/// The members of a flat JSON object: string values decoded, `null` as
/// `None`, other values (numbers, booleans) as their raw text. `None` on
/// malformed input.
pub fn json_object(s: &str) -> Option<Vec<(String, Option<String>)>> {
    let mut p = Parser {
        s: s.as_bytes(),
        i: 0,
    };
    p.ws();
    p.eat(b'{')?;
    let mut members = Vec::new();
    p.ws();
    if p.peek() == Some(b'}') {
        return Some(members);
    }
    loop {
        p.ws();
        let key = p.string()?;
        p.ws();
        p.eat(b':')?;
        p.ws();
        let value = if p.peek() == Some(b'"') {
            Some(p.string()?)
        } else {
            let start = p.i;
            while !matches!(p.peek()?, b',' | b'}') {
                p.i += 1;
            }
            let raw = s[start..p.i].trim();
            (raw != "null").then(|| raw.to_owned())
        };
        members.push((key, value));
        p.ws();
        match p.peek()? {
            b',' => p.i += 1,
            b'}' => return Some(members),
            _ => return None,
        }
    }
}

/// The value of `key` in a flat JSON object: `None` if the object is
/// malformed or has no such key, `Some(None)` for `null`.
pub fn json_field(s: &str, key: &str) -> Option<Option<String>> {
    json_object(s)?
        .into_iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.i += 1)
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = std::str::from_utf8(self.s.get(self.i..self.i + 4)?).ok()?;
        self.i += 4;
        u32::from_str_radix(h, 16).ok()
    }

    fn string(&mut self) -> Option<String> {
        self.eat(b'"')?;
        let mut out = Vec::new();
        loop {
            let b = self.peek()?;
            self.i += 1;
            match b {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let e = self.peek()?;
                    self.i += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xd800..0xdc00).contains(&hi) {
                                self.eat(b'\\')?;
                                self.eat(b'u')?;
                                let lo = self.hex4()?;
                                0x10000 + ((hi - 0xd800) << 10) + (lo.checked_sub(0xdc00)?)
                            } else {
                                hi
                            };
                            char::from_u32(code)?
                        }
                        _ => return None,
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                _ => out.push(b),
            }
        }
    }
}

#[test]
fn json_reader_decodes_escapes() {
    let obj = r#"{"url": "http://x/\u00e9\ud83d\ude00\"\\", "n": 12, "v": null}"#;
    let url = json_field(obj, "url").unwrap().unwrap();
    assert_eq!(url, "http://x/\u{e9}\u{1f600}\"\\");
    assert_eq!(json_field(obj, "n"), Some(Some("12".to_owned())));
    assert_eq!(json_field(obj, "v"), Some(None));
    assert_eq!(json_field(obj, "w"), None);
    assert!(json_object(r#"{"a": "x"#).is_none());
}
