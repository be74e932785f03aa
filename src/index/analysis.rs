//! How the text fields of a main index are cut into words (issue 19, items 1–2).
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
//! (a dictionary segmenter would be needed; see the closing note of issue 19).
//!
//! Stemming: for each of the 18 languages tantivy has a Snowball stemmer for, an
//! analyzer `warcdex_stem_<code>` (the same chain with the language's stemmer between
//! lower-casing and folding) and a field `stem_<code>` of the main index: a document's
//! text goes into the field of its detected language (src/import/language.rs), and a
//! query word is looked for, stemmed, in the stemmed field of every language the
//! collection has, beside its exact form in the other fields (src/search/set.rs), so an
//! exact match and a stemmed one both count.
//!
//! An index records its fields' analyzer by name in its schema: indexes built before
//! this analyzer existed say `default` and keep working; [`register`] must be called on
//! every index opened or created so that `warcdex` resolves.

use std::iter::Peekable;
use std::str::CharIndices;

use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, Stemmer, TextAnalyzer, Token,
    TokenStream, Tokenizer,
};
use tantivy::Index;

/// The analyzer's name in an index's schema.
pub const TEXT_ANALYZER: &str = "warcdex";

/// The longest token kept, in bytes (tantivy's default analyzer's limit).
const MAX_TOKEN_BYTES: usize = 40;

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
/// src/import/language.rs names them.
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

/// The position of language `code` in [`STEMMED_LANGUAGES`] (`no`, Norwegian's
/// macrolanguage code, is Bokmål's `nb`).
pub fn stem_index(code: &str) -> Option<usize> {
    let code = if code == "no" { "nb" } else { code };
    STEMMED_LANGUAGES.iter().position(|(c, _)| *c == code)
}

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
        .filter(Stemmer::new(lang))
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

/// Words of letters and digits; CJK runs as bigrams (see the module comment).
#[derive(Clone, Default)]
pub struct WordTokenizer {
    token: Token,
}

/// The tokens of one text.
pub struct WordStream<'a> {
    text: &'a str,
    chars: Peekable<CharIndices<'a>>,
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
            chars: text.char_indices().peekable(),
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
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        self.token.text.clear();
        self.token.position = self.token.position.wrapping_add(1);
        loop {
            if let Some((at, c, paired)) = self.cjk {
                match self.chars.peek() {
                    Some(&(next_at, next)) if is_cjk(next) => {
                        self.chars.next();
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
            let Some((at, c)) = self.chars.next() else {
                return false;
            };
            if is_cjk(c) {
                self.cjk = Some((at, c, false));
            } else if c.is_alphanumeric() {
                let mut end = at + c.len_utf8();
                while let Some(&(next_at, next)) = self.chars.peek() {
                    if !next.is_alphanumeric() || is_cjk(next) {
                        break;
                    }
                    self.chars.next();
                    end = next_at + next.len_utf8();
                }
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
}
