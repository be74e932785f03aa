//! How the text fields of a main index are cut into words.
//!
//! tantivy's default analyzer keeps a run of letters as one token, so a Chinese,
//! Japanese or Korean word inside a sentence (which has no spaces) could never be found,
//! and it keeps accents, so `cinema allocine` did not find `Cinéma Allociné`. The
//! `warcdex` analyzer, used for indexing and for parsing queries alike:
//! - cuts text at every character that is not a letter or digit, as tantivy's
//!   `SimpleTokenizer` does;
//! - within that, indexes a run of Han, Hiragana, Katakana or Hangul characters as
//!   overlapping bigrams (`卫生部` → `卫生`, `生部`; a lone character as itself), as
//!   Lucene's `CJKAnalyzer` does: a query word of two or more such characters becomes
//!   the phrase of its bigrams and is found wherever it appears; a query of one such
//!   character finds only that character standing alone;
//! - drops tokens longer than 40 bytes, lower-cases, and folds diacritics to ASCII
//!   (tantivy's `AsciiFoldingFilter`); stored text keeps its accents for display and
//!   snippets.
//!
//! Thai, Lao, Khmer and Myanmar, also written without spaces, are kept as runs between
//! spaces and punctuation: a word inside a run is not found unless it is the whole run
//! (a dictionary segmenter would be needed).
//!
//! Stemming: for each of the 18 languages tantivy has a Snowball stemmer for, an
//! analyzer `warcdex_stem_<code>` (the same chain with the language's stemmer between
//! lower-casing and folding) and a field `stem_<code>` of the main index: a document's
//! text goes into the field of its detected language (src/extract/language.rs), and a
//! query word is looked for, stemmed, in the stemmed field of every language the
//! collection has, beside its exact form in the other fields (src/search/set.rs), so an
//! exact match and a stemmed one both count.
//!
//! An index records its fields' analyzer by name in its schema: indexes built before
//! this analyzer existed say `default` and keep working; [`register`] must be called on
//! every index opened or created so that `warcdex` resolves.

use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, TextAnalyzer, Token, TokenStream,
    Tokenizer,
};
use tantivy::Index;

use super::stem_cache::CachedStemmer;

/// The analyzer's name in an index's schema.
pub const TEXT_ANALYZER: &str = "warcdex";

/// Tokens this long or longer are dropped, in bytes (tantivy's default analyzer's limit;
/// `RemoveLongFilter` keeps the shorter ones).
pub(crate) const MAX_TOKEN_BYTES: usize = 40;

/// Makes the `warcdex` analyzer known to `index` (to index with it and to parse queries
/// of fields that use it).
pub fn register(index: &Index) {
    index.tokenizers().register(TEXT_ANALYZER, text_analyzer());
    for &(code, lang) in STEMMED_LANGUAGES {
        index
            .tokenizers()
            .register(&stem_analyzer_name(code), stem_analyzer(lang));
    }
}

/// The languages with a stemmer (tantivy's Snowball stemmers), by ISO 639-1 code as
/// src/extract/language.rs names them.
pub const STEMMED_LANGUAGES: &[(&str, Language)] = &[
    ("ar", Language::Arabic),
    ("da", Language::Danish),
    ("de", Language::German),
    ("el", Language::Greek),
    ("en", Language::English),
    ("es", Language::Spanish),
    ("fi", Language::Finnish),
    ("fr", Language::French),
    ("hu", Language::Hungarian),
    ("it", Language::Italian),
    ("nb", Language::Norwegian),
    ("nl", Language::Dutch),
    ("pt", Language::Portuguese),
    ("ro", Language::Romanian),
    ("ru", Language::Russian),
    ("sv", Language::Swedish),
    ("ta", Language::Tamil),
    ("tr", Language::Turkish),
];

/// The main index's stemmed field of language `code` (`stem_en`).
pub fn stem_field_name(code: &str) -> String {
    format!("stem_{code}")
}

/// The analyzer of [`stem_field_name`]`(code)`.
pub fn stem_analyzer_name(code: &str) -> String {
    format!("warcdex_stem_{code}")
}

/// The `warcdex` analyzer with `lang`'s stemmer: words are stemmed before their
/// diacritics are folded, since the Snowball rules are written for the accented forms.
pub fn stem_analyzer(lang: Language) -> TextAnalyzer {
    TextAnalyzer::builder(WordTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
        .filter(LowerCaser)
        .filter(CachedStemmer::new(lang))
        .filter(AsciiFoldingFilter)
        .build()
}

/// The `warcdex` analyzer.
pub fn text_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(WordTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// Whether `c` is written without spaces between words and is indexed as bigrams:
/// Han (CJK Unified Ideographs and their extensions, compatibility ideographs),
/// Hiragana, Katakana (with the half-width forms) and Hangul.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF
        | 0x20000..=0x2FA1F
        | 0x3040..=0x309F
        | 0x30A0..=0x30FF
        | 0x31F0..=0x31FF
        | 0xFF66..=0xFF9F
        | 0x1100..=0x11FF
        | 0x3130..=0x318F
        | 0xA960..=0xA97F
        | 0xAC00..=0xD7AF
        | 0xD7B0..=0xD7FF)
}

/// Whether the analyzer puts character `c` into a token (a letter or digit, or a
/// character of a CJK block, which [`WordStream`] cuts into bigrams): text whose only
/// such characters are ASCII is cut into runs of ASCII letters and digits, which the
/// snippet and the word finder rely on (`src/search/ascii_words.rs`).
pub(crate) fn in_a_token(c: char) -> bool {
    c.is_alphanumeric() || is_cjk(c)
}

/// Words of letters and digits; CJK runs as bigrams (see the module comment).
#[derive(Clone, Default)]
pub struct WordTokenizer {
    token: Token,
}

/// The tokens of one text.
pub struct WordStream<'a> {
    text: &'a str,
    /// The byte where the next character starts.
    pos: usize,
    token: &'a mut Token,
    /// Inside a CJK run: its last character read, and whether a bigram ended there.
    cjk: Option<(usize, char, bool)>,
}

impl Tokenizer for WordTokenizer {
    type TokenStream<'a> = WordStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream<'a> {
        self.token.reset();
        WordStream {
            text,
            pos: 0,
            token: &mut self.token,
            cjk: None,
        }
    }
}

impl WordStream<'_> {
    fn emit(&mut self, from: usize, to: usize) -> bool {
        self.token.offset_from = from;
        self.token.offset_to = to;
        self.token.text.push_str(&self.text[from..to]);
        true
    }

    /// The character at `pos` and where it starts, without taking it. An ASCII byte is
    /// its own character: most of the indexed text is ASCII, and decoding UTF-8 for it
    /// was a tenth of `index`.
    fn peek(&self) -> Option<(usize, char)> {
        let b = *self.text.as_bytes().get(self.pos)?;
        if b.is_ascii() {
            return Some((self.pos, char::from(b)));
        }
        self.text[self.pos..].chars().next().map(|c| (self.pos, c))
    }

    /// Takes the character at `pos`.
    fn next_char(&mut self) -> Option<(usize, char)> {
        let next = self.peek()?;
        self.pos += next.1.len_utf8();
        Some(next)
    }

    /// The end of the word whose first character ends at `end`: letters and digits up to
    /// the first other character or CJK character. ASCII letters and digits are skipped
    /// byte by byte (for them `char::is_alphanumeric` is `u8::is_ascii_alphanumeric`).
    fn word_end(&mut self, mut end: usize) -> usize {
        let bytes = self.text.as_bytes();
        loop {
            while bytes.get(end).is_some_and(u8::is_ascii_alphanumeric) {
                end += 1;
            }
            self.pos = end;
            match self.peek() {
                Some((_, next)) if !next.is_ascii() && next.is_alphanumeric() && !is_cjk(next) => {
                    end += next.len_utf8();
                }
                _ => return end,
            }
        }
    }
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        self.token.text.clear();
        self.token.position = self.token.position.wrapping_add(1);
        loop {
            if let Some((at, c, paired)) = self.cjk {
                match self.peek() {
                    Some((next_at, next)) if is_cjk(next) => {
                        self.pos += next.len_utf8();
                        self.cjk = Some((next_at, next, true));
                        return self.emit(at, next_at + next.len_utf8());
                    }
                    _ => {
                        self.cjk = None;
                        if !paired {
                            return self.emit(at, at + c.len_utf8());
                        }
                    }
                }
            }
            let Some((at, c)) = self.next_char() else {
                return false;
            };
            if is_cjk(c) {
                self.cjk = Some((at, c, false));
            } else if c.is_alphanumeric() {
                let end = self.word_end(at + c.len_utf8());
                return self.emit(at, end);
            }
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut a = text_analyzer();
        let mut s = a.token_stream(text);
        let mut out = Vec::new();
        while s.advance() {
            let t = s.token();
            out.push((t.text.clone(), t.position, t.offset_from, t.offset_to));
        }
        out
    }

    fn words(text: &str) -> Vec<String> {
        tokens(text).into_iter().map(|t| t.0).collect()
    }

    #[test]
    fn latin_words_are_cut_lowered_and_folded() {
        assert_eq!(
            words("Cinéma Allociné, l'été!"),
            ["cinema", "allocine", "l", "ete"]
        );
        assert_eq!(
            words("Straße ÆSIR naïve 2007"),
            ["strasse", "aesir", "naive", "2007"]
        );
    }

    #[test]
    fn cjk_runs_are_bigrams_at_consecutive_positions() {
        let t = tokens("国家卫生部 news");
        let w: Vec<&str> = t.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(w, ["国家", "家卫", "卫生", "生部", "news"]);
        let positions: Vec<usize> = t.iter().map(|t| t.1).collect();
        assert_eq!(positions, [0, 1, 2, 3, 4]);
        // Offsets are the bigram's bytes in the text.
        assert_eq!((t[2].2, t[2].3), (6, 12));
        // A lone character is itself; runs end at other scripts and punctuation.
        assert_eq!(
            words("卫 abc日本語def。한국어"),
            ["卫", "abc", "日本", "本語", "def", "한국", "국어"]
        );
        assert_eq!(words("カタカナ"), ["カタ", "タカ", "カナ"]);
    }

    #[test]
    fn long_tokens_are_dropped() {
        let long = "a".repeat(41);
        assert_eq!(words(&format!("x {long} y")), ["x", "y"]);
    }

    #[test]
    fn cached_stems_are_tantivys_stems() {
        use tantivy::tokenizer::Stemmer;
        // Words of several scripts, each twice so the second is answered by the cache.
        let text = "Running runners ran easily; connection connections connected. \
            Cinéma allociné Straße Häuser bibliothèques généralement 2007 \
            Достопримечательности говорили κατάσταση καταστάσεις évaluations \
            yazılımları kitaplarımızdan இந்தியாவின் المكتبات والمكتبة \
            国家卫生部 a "
            .repeat(2);
        for &(code, lang) in STEMMED_LANGUAGES {
            let mut ours = stem_analyzer(lang);
            let mut theirs = TextAnalyzer::builder(WordTokenizer::default())
                .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
                .filter(LowerCaser)
                .filter(Stemmer::new(lang))
                .filter(AsciiFoldingFilter)
                .build();
            let collect = |a: &mut TextAnalyzer| {
                let mut s = a.token_stream(&text);
                let mut out = Vec::new();
                while s.advance() {
                    let t = s.token();
                    out.push((t.text.clone(), t.position, t.offset_from, t.offset_to));
                }
                out
            };
            // Twice through the same analyzer: the second text is all cache hits.
            for _ in 0..2 {
                assert_eq!(collect(&mut ours), collect(&mut theirs), "{code}");
            }
        }
    }

    #[test]
    fn ascii_and_other_letters_mix_in_one_word() {
        assert_eq!(words("abcé1ü-x_y"), ["abce1u", "x", "y"]);
        assert_eq!(words("café日本x"), ["cafe", "日本", "x"]);
        assert_eq!(words(""), Vec::<String>::new());
        assert_eq!(words("  ..  "), Vec::<String>::new());
    }
}
