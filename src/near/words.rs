//! The words of a text as the near-duplicate fingerprints count them: runs of letters
//! and digits, lower-cased; a Han, Kana or Hangul character is a word of its own (those
//! scripts have no spaces); words of digits only are left out (a visit counter, the
//! numbers of a date line, a price change from capture to capture while the page stays
//! the same).

/// Calls `f` with the UTF-8 bytes of every lower-cased word of `text`, digits-only words
/// left out.
pub fn for_each_word(text: &str, mut f: impl FnMut(&[u8])) {
    let mut word = String::new();
    let mut letters = false;
    let mut flush = |word: &mut String, letters: &mut bool| {
        if *letters {
            f(word.as_bytes());
        }
        word.clear();
        *letters = false;
    };
    for c in text.chars() {
        if is_cjk(c) {
            flush(&mut word, &mut letters);
            word.push(c);
            letters = true;
            flush(&mut word, &mut letters);
        } else if c.is_alphanumeric() {
            if c.is_ascii() {
                word.push(c.to_ascii_lowercase());
            } else {
                word.extend(c.to_lowercase());
            }
            letters |= !c.is_numeric();
        } else if !word.is_empty() {
            flush(&mut word, &mut letters);
        }
    }
    flush(&mut word, &mut letters);
}

/// Han, Kana and Hangul: scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF
        | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for_each_word(text, |w| out.push(String::from_utf8(w.to_vec()).unwrap()));
        out
    }

    #[test]
    fn words_are_lowered_digits_only_words_dropped_and_cjk_split() {
        assert_eq!(
            words("Visits: 12,345 — Straße v2 ÉTÉ 2026-11-24"),
            ["visits", "straße", "v2", "été"]
        );
        assert_eq!(words("日本語 text"), ["日", "本", "語", "text"]);
    }
}
