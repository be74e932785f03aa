//! Each document's language, told from its text by whatlang (trigram profiles of 70
//! languages, pure Rust, no model files), as the ISO 639-1 code that `lang:` filters on
//! and that picks the stemmer of the index's stemmed field (src/schema/analysis.rs).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use sha1::{Digest, Sha1};
use whatlang::{Lang, Script};

/// Bytes of text the detector looks at: the start of the main content says the
/// language as well as the whole page does, at a fixed cost per document. whatlang's
/// time grows with the text: with 4 KiB it was a sixth of the import's time
/// (scripts/bench-import.sh, perf); 1 KiB is some 150 words.
const SAMPLE_BYTES: usize = 1024;

/// Letters a text needs before its language is told: shorter texts (a title, a caption)
/// give guesses, not answers.
const MIN_LETTERS: usize = 40;

/// The language of `text` (`en`, `zh`, ...), or `None` when the text is too short or the
/// detector is not confident (whatlang's own reliability test).
pub fn detect(text: &str) -> Option<&'static str> {
    let sample = sample(text);
    if sample.chars().filter(|c| c.is_alphabetic()).count() < MIN_LETTERS {
        return None;
    }
    let key: [u8; 20] = Sha1::digest(sample.as_bytes()).into();
    let memo = || MEMO.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&told) = memo().recall(&key) {
        return told;
    }
    let told = whatlang::detect(sample)
        .filter(|info| info.is_reliable())
        .map(|info| iso639_1(info.lang()));
    memo().remember(key, told);
    told
}

/// Samples told lately, in two generations of at most this many each (some 4 MiB).
const MEMO_ENTRIES: usize = 1 << 16;

/// What whatlang told of recently seen samples, by the sample's SHA-1. whatlang's
/// answer depends on the sample alone, and it costs some 100 µs whatever the text (it
/// scores 300 trigrams of each of 37 Latin-script languages), while the versions of a
/// page captured again and again mostly begin alike: on the bench 27 % of the
/// documents share their first KiB of main content with an earlier one
/// (scripts/bench-import.sh).
static MEMO: LazyLock<Mutex<Memo>> = LazyLock::new(Mutex::default);

/// [`MEMO`]'s two generations: when the current one is full it becomes the previous
/// one, and the previous one is dropped.
#[derive(Default)]
struct Memo {
    current: HashMap<[u8; 20], Option<&'static str>>,
    previous: HashMap<[u8; 20], Option<&'static str>>,
}

impl Memo {
    fn recall(&self, key: &[u8; 20]) -> Option<&Option<&'static str>> {
        self.current.get(key).or_else(|| self.previous.get(key))
    }

    fn remember(&mut self, key: [u8; 20], told: Option<&'static str>) {
        if self.current.len() >= MEMO_ENTRIES {
            self.previous = std::mem::take(&mut self.current);
        }
        self.current.insert(key, told);
    }
}

/// The language of a page: the one its `<html lang>` declares when the text is written
/// in that language's script, else what [`detect`] tells. A declaration is the author's
/// word and costs nothing, where whatlang scores some 30 trigram profiles for every
/// Latin-script text (a fifth of the import's time on the bench, scripts/bench-import.sh
/// with perf); the script check (cheap: a count of characters) catches the commonest
/// wrong declaration, a template's `lang="en"` around text in another script.
pub fn detect_declared(text: &str, declared: Option<&str>) -> Option<&'static str> {
    if let Some(code) = declared.and_then(primary_subtag) {
        let sample = sample(text);
        match whatlang::detect_script(sample) {
            Some(script) if script_fits(code, script) => return Some(code),
            // No letters to check against: the declaration stands.
            None => return Some(code),
            Some(_) => {}
        }
    }
    detect(text)
}

/// The ISO 639-1 language of a language tag (`en-GB` → `en`), among those [`iso639_1`]
/// names (`iw` and `in`, the old codes of Hebrew and Indonesian, and `no` are mapped).
fn primary_subtag(tag: &str) -> Option<&'static str> {
    let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
    let primary = match primary.as_str() {
        "iw" => "he",
        "in" => "id",
        "no" | "nn" => "nb",
        "ji" => "yi",
        p => p,
    };
    Lang::all()
        .iter()
        .map(|&l| iso639_1(l))
        .find(|&c| c == primary)
}

/// Whether text in `script` can be in language `code`.
fn script_fits(code: &str, script: Script) -> bool {
    use Script::*;
    let want: &[Script] = match code {
        "ru" | "uk" | "bg" | "sr" | "mk" | "be" => &[Cyrillic],
        "el" => &[Greek],
        "he" | "yi" => &[Hebrew],
        "ar" | "fa" | "ur" => &[Arabic],
        "hi" | "mr" | "ne" => &[Devanagari],
        "bn" => &[Bengali],
        "th" => &[Thai],
        "ka" => &[Georgian],
        "hy" => &[Armenian],
        "am" => &[Ethiopic],
        "ta" => &[Tamil],
        "te" => &[Telugu],
        "kn" => &[Kannada],
        "ml" => &[Malayalam],
        "gu" => &[Gujarati],
        "pa" => &[Gurmukhi],
        "or" => &[Oriya],
        "my" => &[Myanmar],
        "si" => &[Sinhala],
        "km" => &[Khmer],
        "zh" | "ja" | "ko" => &[Mandarin, Hiragana, Katakana, Hangul],
        _ => &[Latin],
    };
    want.contains(&script)
}

/// The start of `text` the detectors look at.
fn sample(text: &str) -> &str {
    let mut end = text.len().min(SAMPLE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Every language [`detect`] tells, as `(ISO 639-1 code, English name)`, by code: the
/// values `lang:` can match.
pub fn languages() -> Vec<(&'static str, &'static str)> {
    let mut all: Vec<(&'static str, &'static str)> = Lang::all()
        .iter()
        .map(|&l| (iso639_1(l), l.eng_name()))
        .collect();
    all.sort_unstable();
    all
}

/// The ISO 639-1 code `lang:` matches for `name`: a code [`detect`] gives (`en`), or a
/// language's English name in any case (`English`, `german`; also `Chinese` and
/// `Norwegian`, which whatlang names Mandarin and Bokmal).
pub fn code_of(name: &str) -> Option<&'static str> {
    let name = name.to_lowercase();
    match name.as_str() {
        "chinese" => return Some("zh"),
        "norwegian" => return Some("nb"),
        _ => {}
    }
    Lang::all()
        .iter()
        .map(|&l| (iso639_1(l), l.eng_name()))
        .find(|(code, eng)| *code == name || eng.to_lowercase() == name)
        .map(|(code, _)| code)
}

/// whatlang's ISO 639-3 language as ISO 639-1, the two letters of `lang` attributes,
/// HTTP `Content-Language` and Solr/Nutch language fields. Mandarin is `zh` and Persian
/// (Iranian) `fa`, Norwegian Bokmål `nb`; Akan has no two-letter code beyond `ak`.
fn iso639_1(lang: Lang) -> &'static str {
    use Lang::*;
    match lang {
        Epo => "eo",
        Eng => "en",
        Rus => "ru",
        Cmn => "zh",
        Spa => "es",
        Por => "pt",
        Ita => "it",
        Ben => "bn",
        Fra => "fr",
        Deu => "de",
        Ukr => "uk",
        Kat => "ka",
        Ara => "ar",
        Hin => "hi",
        Jpn => "ja",
        Heb => "he",
        Yid => "yi",
        Pol => "pl",
        Amh => "am",
        Jav => "jv",
        Kor => "ko",
        Nob => "nb",
        Dan => "da",
        Swe => "sv",
        Fin => "fi",
        Tur => "tr",
        Nld => "nl",
        Hun => "hu",
        Ces => "cs",
        Ell => "el",
        Bul => "bg",
        Bel => "be",
        Mar => "mr",
        Kan => "kn",
        Ron => "ro",
        Slv => "sl",
        Hrv => "hr",
        Srp => "sr",
        Mkd => "mk",
        Lit => "lt",
        Lav => "lv",
        Est => "et",
        Tam => "ta",
        Vie => "vi",
        Urd => "ur",
        Tha => "th",
        Guj => "gu",
        Uzb => "uz",
        Pan => "pa",
        Aze => "az",
        Ind => "id",
        Tel => "te",
        Pes => "fa",
        Mal => "ml",
        Ori => "or",
        Mya => "my",
        Nep => "ne",
        Sin => "si",
        Khm => "km",
        Tuk => "tk",
        Aka => "ak",
        Zul => "zu",
        Sna => "sn",
        Afr => "af",
        Lat => "la",
        Slk => "sk",
        Cat => "ca",
        Tgl => "tl",
        Hye => "hy",
        Cym => "cy",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_common_languages() {
        let en = "The quick brown fox jumps over the lazy dog while the archive keeps every \
                  version of the page that was crawled over the years.";
        let fr = "Le cinéma est un art qui raconte des histoires avec des images animées, et \
                  les archives du web gardent la mémoire des sites qui en parlent.";
        let de = "Die Archive des Webs bewahren die Seiten auf, die im Laufe der Jahre \
                  gesammelt wurden, damit man sie später wieder lesen kann.";
        let zh = "卫生部门今天发布了关于公共卫生的新规定，要求各地加强对食品安全和环境卫生的检查工作，确保人民群众的身体健康。";
        assert_eq!(detect(en), Some("en"));
        assert_eq!(detect(fr), Some("fr"));
        assert_eq!(detect(de), Some("de"));
        assert_eq!(detect(zh), Some("zh"));
        assert_eq!(detect("Home | About"), None);
        // A declaration stands when the text's script fits it, and not otherwise.
        assert_eq!(detect_declared(en, Some("en-GB")), Some("en"));
        assert_eq!(detect_declared(fr, Some("EN")), Some("en"));
        assert_eq!(detect_declared(zh, Some("en")), Some("zh"));
        assert_eq!(detect_declared(zh, Some("zh-Hans")), Some("zh"));
        assert_eq!(detect_declared(de, Some("x-klingon")), Some("de"));
        assert_eq!(detect_declared("", Some("iw")), Some("he"));
        assert_eq!(detect(""), None);
    }

    /// A remembered answer is the answer, and the memo keeps at most two generations.
    #[test]
    fn remembered_answers_are_whatlangs() {
        let en = "The archive keeps every version of the page that was crawled over the \
                  years, and a reader can see each of them.";
        assert_eq!(detect(en), Some("en"));
        assert_eq!(detect(en), Some("en"), "from the memo");
        let mut memo = Memo::default();
        for k in 0..=MEMO_ENTRIES as u32 * 2 {
            let mut key = [0; 20];
            key[..4].copy_from_slice(&k.to_le_bytes());
            memo.remember(key, Some("en"));
        }
        assert_eq!(memo.current.len() + memo.previous.len(), MEMO_ENTRIES + 1);
        assert_eq!(memo.recall(&[0; 20]), None, "the oldest generation is gone");
    }
}
