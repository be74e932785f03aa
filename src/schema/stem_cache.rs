//! A stemming token filter that remembers the stems of the words it has seen.
//!
//! Snowball stemming was an eighth of `index`'s time on the bench (profiled:
//! frostem's `english_stemmer::stem`, `find_among_b`, `in_grouping`), and web text repeats
//! a small vocabulary: most words are stemmed again and again. [`CachedStemmer`] gives
//! exactly the stems of tantivy's `Stemmer` filter (the same frostem algorithm per
//! language; a test in `analysis.rs` compares the two on every stemmed language), and keeps
//! up to [`CACHE_WORDS`] of them per analyzer, which tantivy holds per indexing thread.

use std::borrow::Cow;
use std::collections::HashMap;

use rustc_hash::FxBuildHasher;
use tantivy::tokenizer::{Language, Token, TokenFilter, TokenStream, Tokenizer};

/// Words whose stems an analyzer remembers before it starts again (some 4 MiB).
const CACHE_WORDS: usize = 1 << 16;

/// Words longer than this (bytes) are stemmed every time, never remembered.
const CACHED_WORD_BYTES: usize = 24;

/// tantivy's `Stemmer` filter with a cache of stems.
#[derive(Clone, Copy)]
pub struct CachedStemmer {
    stemmer: frostem::Stemmer,
}

impl CachedStemmer {
    /// The stemmer of `lang`: the algorithm tantivy's `Stemmer::new(lang)` applies.
    pub fn new(lang: Language) -> CachedStemmer {
        use frostem::Algorithm as A;
        let algorithm = match lang {
            Language::Arabic => A::Arabic,
            Language::Danish => A::Danish,
            Language::Dutch => A::Dutch,
            Language::English => A::English,
            Language::Finnish => A::Finnish,
            Language::French => A::French,
            Language::German => A::German,
            Language::Greek => A::Greek,
            Language::Hungarian => A::Hungarian,
            Language::Italian => A::Italian,
            Language::Norwegian => A::Norwegian,
            Language::Portuguese => A::Portuguese,
            Language::Romanian => A::Romanian,
            Language::Russian => A::Russian,
            Language::Spanish => A::Spanish,
            Language::Swedish => A::Swedish,
            Language::Tamil => A::Tamil,
            Language::Turkish => A::Turkish,
        };
        CachedStemmer {
            stemmer: frostem::Stemmer::new(algorithm),
        }
    }
}

impl TokenFilter for CachedStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter {
            stemmer: self.stemmer,
            stems: Stems::default(),
            inner,
        }
    }
}

/// A word and its stem (`None`: the word is its own stem).
type Stems = HashMap<Box<str>, Option<Box<str>>, FxBuildHasher>;

/// The tokenizer [`CachedStemmer`] makes of the one before it.
#[derive(Clone)]
pub struct CachedStemmerFilter<T> {
    stemmer: frostem::Stemmer,
    stems: Stems,
    inner: T,
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemStream {
            tail: self.inner.token_stream(text),
            stemmer: self.stemmer,
            stems: &mut self.stems,
        }
    }
}

/// The stemmed tokens of one text.
pub struct CachedStemStream<'a, S> {
    tail: S,
    stemmer: frostem::Stemmer,
    stems: &'a mut Stems,
}

impl<S: TokenStream> TokenStream for CachedStemStream<'_, S> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let text = &mut self.tail.token_mut().text;
        if let Some(stem) = self.stems.get(text.as_str()) {
            if let Some(stem) = stem {
                text.clear();
                text.push_str(stem);
            }
            return true;
        }
        let stem: Option<Box<str>> = match self.stemmer.stem(text) {
            Cow::Borrowed(_) => None,
            Cow::Owned(stem) => Some(stem.into()),
        };
        if text.len() <= CACHED_WORD_BYTES {
            if self.stems.len() >= CACHE_WORDS {
                self.stems.clear();
            }
            self.stems.insert(text.as_str().into(), stem.clone());
        }
        if let Some(stem) = stem {
            text.clear();
            text.push_str(&stem);
        }
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}
