//! Each document's language, told from its text by whatlang (trigram profiles of 70
//! languages, pure Rust, no model files), as the ISO 639-1 code that `lang:` filters on
//! and that picks the stemmer of the index's stemmed field (src/index/analysis.rs).

use whatlang::Lang;

/// Bytes of text the detector looks at: the start of the main content says the
/// language as well as the whole page does, at a fixed cost per document.
const SAMPLE_BYTES: usize = 4096;

/// Letters a text needs before its language is told: shorter texts (a title, a caption)
/// give guesses, not answers.
const MIN_LETTERS: usize = 40;

/// The language of `text` (`en`, `zh`, ...), or `None` when the text is too short or the
/// detector is not confident (whatlang's own reliability test).
pub fn detect(text: &str) -> Option<&'static str> {
    let mut end = text.len().min(SAMPLE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let sample = &text[..end];
    if sample.chars().filter(|c| c.is_alphabetic()).count() < MIN_LETTERS {
        return None;
    }
    let info = whatlang::detect(sample)?;
    info.is_reliable().then(|| iso639_1(info.lang()))
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
        assert_eq!(detect(""), None);
    }
}
