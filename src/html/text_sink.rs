//! Text collected into a capped string, white space collapsed: the page text, the
//! title and each anchor text.

/// Appends words to a capped string, collapsing white space; a separator is written
/// only between two words, so the result has no leading or trailing space.
pub(super) struct TextSink {
    pub(super) out: String,
    pub(super) limit: usize,
    /// White space or a block boundary was seen since the last word.
    pub(super) space: bool,
    /// The cap was reached: nothing more is taken.
    pub(super) full: bool,
    /// A word was cut or dropped at the cap.
    pub(super) truncated: bool,
}

/// How [`TextSink::push`] reads a byte.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ByteClass {
    /// Part of a word: printable ASCII, a UTF-8 continuation byte, or the lead byte of
    /// a character that cannot be white space or a control character.
    Word,
    /// ASCII white space or control character: a separator.
    Sep,
    /// The lead byte of a character that may be a separator (C1 controls, U+0085,
    /// U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
    Check,
}

/// [`ByteClass`] of every byte.
pub(super) static BYTE_CLASS: [ByteClass; 256] = {
    let mut t = [ByteClass::Word; 256];
    let mut i = 0;
    while i <= 0x20 {
        t[i] = ByteClass::Sep;
        i += 1;
    }
    t[0x7F] = ByteClass::Sep;
    t[0xC2] = ByteClass::Check;
    t[0xE1] = ByteClass::Check;
    t[0xE2] = ByteClass::Check;
    t[0xE3] = ByteClass::Check;
    t
};

/// For the 8 bytes of `x` (little-endian): the high bit of each byte set in `.0` if
/// it is printable ASCII (`0x21..=0x7E`, part of a word), in `.1` if it is ASCII white
/// space or a control character (a separator). Exact for every byte (no carry crosses
/// a byte), so the lowest set bit finds the first such byte.
#[inline]
pub(super) fn ascii_classes(x: u64) -> (u64, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7F * ONES;
    let low = x & LOW7;
    // low + 0x5F reaches 0x80 exactly when low >= 0x21; t + 0x7F does when t != 0.
    let ge21 = (low + 0x5F * ONES) & HIGH;
    let t = low ^ LOW7;
    let not_del = (t + LOW7) & HIGH;
    let ascii = !x & HIGH;
    let graphic = ge21 & not_del;
    (ascii & graphic, ascii & !graphic)
}

/// The 8 bytes of `b` at `i` as a little-endian word.
#[inline]
fn word_at(b: &[u8], i: usize) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

/// The high bits of a mask byte.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

impl TextSink {
    pub(super) fn new(limit: usize) -> Self {
        Self::with_buffer(limit, String::new())
    }

    /// A sink that writes into `buf` (cleared), to reuse its allocation.
    pub(super) fn with_buffer(limit: usize, mut buf: String) -> Self {
        buf.clear();
        TextSink {
            out: buf,
            limit,
            space: false,
            full: false,
            truncated: false,
        }
    }

    pub(super) fn boundary(&mut self) {
        self.space = true;
    }

    pub(super) fn push(&mut self, s: &str) {
        if self.full {
            return;
        }
        let mut i = 0;
        while i < s.len() {
            i = self.skip_separators(s, i);
            if i == s.len() {
                return;
            }
            let end = run_end(s, i);
            self.run(&s[i..end]);
            if self.full {
                return;
            }
            i = end;
        }
    }

    /// Words separated by single spaces (as most text is): copied in one piece when
    /// they fit, which is what adding them word by word would do.
    fn run(&mut self, run: &str) {
        let sep = self.space && !self.out.is_empty();
        if self.out.len() + usize::from(sep) + run.len() <= self.limit {
            self.space = false;
            if sep {
                self.out.push(' ');
            }
            self.out.push_str(run);
            return;
        }
        for (k, w) in run.split(' ').enumerate() {
            if k > 0 {
                self.space = true;
            }
            self.word(w);
            if self.full {
                return;
            }
        }
    }

    /// Where the separators starting at `i` end (noting that there were some).
    fn skip_separators(&mut self, s: &str, mut i: usize) -> usize {
        let b = s.as_bytes();
        let start = i;
        loop {
            // Eight at a time to the first byte that is not an ASCII separator.
            while i + 8 <= b.len() {
                let other = !ascii_classes(word_at(b, i)).1 & HIGH_BITS;
                if other != 0 {
                    i += (other.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            let Some(&c) = b.get(i) else { break };
            match BYTE_CLASS[usize::from(c)] {
                ByteClass::Sep => i += 1,
                ByteClass::Check => match separator_len(s, i) {
                    0 => break,
                    len => i += len,
                },
                ByteClass::Word => break,
            }
        }
        if i > start {
            self.space = true;
        }
        i
    }

    fn word(&mut self, w: &str) {
        let sep = self.space && !self.out.is_empty();
        self.space = false;
        if self.out.len() + usize::from(sep) + w.len() <= self.limit {
            if sep {
                self.out.push(' ');
            }
            self.out.push_str(w);
            return;
        }
        self.full = true;
        self.truncated = true;
        let mut room = self.limit.saturating_sub(self.out.len());
        if sep {
            if room <= 1 {
                return;
            }
            self.out.push(' ');
            room -= 1;
        }
        let mut cut = room.min(w.len());
        while !w.is_char_boundary(cut) {
            cut -= 1;
        }
        self.out.push_str(&w[..cut]);
    }

    pub(super) fn finish(mut self) -> String {
        let end = self.out.trim_end_matches(' ').len();
        self.out.truncate(end);
        self.out
    }

    /// A copy of what [`finish`](Self::finish) returns (allocated to size), and the
    /// buffer back for reuse.
    pub(super) fn finish_copy(mut self) -> (String, String) {
        let text = self.out.trim_end_matches(' ').to_owned();
        self.out.clear();
        (text, self.out)
    }
}

/// Where the words starting at `i` (not a separator) and separated by single spaces
/// end.
fn run_end(s: &str, i: usize) -> usize {
    let b = s.as_bytes();
    let mut end = word_end(s, i);
    while b.get(end) == Some(&b' ') && starts_word(s, end + 1) {
        end = word_end(s, end + 1);
    }
    end
}

/// Whether a word starts at `i` (a char boundary, or the end).
fn starts_word(s: &str, i: usize) -> bool {
    match s.as_bytes().get(i) {
        None => false,
        Some(&c) => match BYTE_CLASS[usize::from(c)] {
            ByteClass::Word => true,
            ByteClass::Sep => false,
            ByteClass::Check => separator_len(s, i) == 0,
        },
    }
}

/// Where the word starting at `i` (not a separator) ends.
fn word_end(s: &str, mut i: usize) -> usize {
    let b = s.as_bytes();
    loop {
        // Eight at a time to the first byte that is not printable ASCII.
        while i + 8 <= b.len() {
            let other = !ascii_classes(word_at(b, i)).0 & HIGH_BITS;
            if other != 0 {
                i += (other.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        let Some(&c) = b.get(i) else { return i };
        match BYTE_CLASS[usize::from(c)] {
            ByteClass::Sep => return i,
            ByteClass::Check => {
                if separator_len(s, i) > 0 {
                    return i;
                }
                i += utf8_len(c);
            }
            ByteClass::Word => {
                // Printable ASCII, or a run of non-ASCII characters (continuation
                // bytes are never `Check`, so stepping byte by byte stays on track).
                i += 1;
                while b
                    .get(i)
                    .is_some_and(|&c| c >= 0x80 && BYTE_CLASS[usize::from(c)] == ByteClass::Word)
                {
                    i += 1;
                }
            }
        }
    }
}

/// The length of the separator at `s[i..]` (`i` on a char boundary), or 0: white
/// space, and control characters (NUL padding, stray C1 bytes), which are no text.
fn separator_len(s: &str, i: usize) -> usize {
    let c = s.as_bytes()[i];
    if c < 0x80 {
        return usize::from(c <= b' ' || c == 0x7F);
    }
    match s[i..].chars().next() {
        Some(ch) if ch.is_whitespace() || ch.is_control() => ch.len_utf8(),
        _ => 0,
    }
}

/// The length of the UTF-8 sequence a lead byte starts.
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        _ => 2,
    }
}
