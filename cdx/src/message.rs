//! Input echoed in messages is capped, so a 50 MB line without a newline (or a binary
//! file given by mistake) cannot flood the terminal or a log.

use std::borrow::Cow;

/// Bytes of an input line that a message shows; longer lines are cut and end with `…`.
pub const ECHO_BYTES: usize = 200;

/// Messages of one kind shown per input file; the rest are counted ("… and N more").
pub const MESSAGES_PER_FILE: u64 = 10;

/// `line` as a message shows it: at most [`ECHO_BYTES`] bytes, cut on a character
/// boundary, then `…`.
pub fn echo(line: &str) -> Cow<'_, str> {
    if line.len() <= ECHO_BYTES {
        return Cow::Borrowed(line);
    }
    let mut end = ECHO_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}…", &line[..end]))
}

/// [`echo`] for bytes that may not be UTF-8 (invalid sequences become U+FFFD).
pub fn echo_bytes(line: &[u8]) -> String {
    let cut = &line[..line.len().min(ECHO_BYTES + 4)];
    let s = String::from_utf8_lossy(cut);
    if line.len() <= ECHO_BYTES {
        return s.into_owned();
    }
    let mut end = ECHO_BYTES.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_kept_long_ones_cut_on_a_char_boundary() {
        assert_eq!(echo("abc"), "abc");
        let long = "é".repeat(150); // 300 bytes
        let e = echo(&long);
        assert!(e.ends_with('…'));
        assert_eq!(e.len(), 200 + '…'.len_utf8());
        assert_eq!(echo_bytes(b"x\xffy"), "x\u{fffd}y");
        let b = vec![b'a'; 5000];
        assert_eq!(echo_bytes(&b), format!("{}…", "a".repeat(200)));
        assert_eq!(echo_bytes(long.as_bytes()), e);
    }
}
