//! A host to ASCII as Python's `encodings.idna` codec (IDNA 2003) gives it, which is what
//! the `surt` package, and so pywb, puts in a URL key: RFC 3491 nameprep, approximated
//! (see the notes of [`crate::surt`]), then Punycode. Not the `idna` crate's mapping,
//! which is UTS 46 (IDNA 2008): `ß.de` is `ss.de` here and in Python, `xn--zca.de` there.

/// `host.decode('utf-8', 'ignore').encode('idna')`; `None` where Python
/// raises (surt then keeps the raw bytes).
pub(crate) fn to_ascii(host: &[u8]) -> Option<Vec<u8>> {
    // Quirk (surt): 'ignore' silently drops invalid UTF-8, so an escaped
    // Latin-1 byte ("b%E4r") vanishes from the host.
    let mut text = String::with_capacity(host.len());
    for chunk in host.utf8_chunks() {
        text.push_str(chunk.valid());
    }
    if text.is_ascii() {
        // The codec's ASCII fast path only checks label lengths.
        let labels: Vec<&str> = text.split('.').collect();
        let (last, init) = labels.split_last()?;
        if init.iter().any(|l| l.is_empty() || l.len() >= 64) || last.len() >= 64 {
            return None;
        }
        return Some(text.into_bytes());
    }
    let mut labels: Vec<&str> = text
        .split(['.', '\u{3002}', '\u{ff0e}', '\u{ff61}'])
        .collect();
    let trailing_dot = labels.last() == Some(&"");
    if trailing_dot {
        labels.pop();
    }
    let mut out = Vec::with_capacity(text.len() + 8);
    for (i, label) in labels.iter().enumerate() {
        if i > 0 {
            out.push(b'.');
        }
        out.extend_from_slice(&label_to_ascii(label)?);
    }
    if trailing_dot {
        out.push(b'.');
    }
    Some(out)
}

/// RFC 3490 ToASCII with UseSTD3ASCIIRules off.
fn label_to_ascii(label: &str) -> Option<Vec<u8>> {
    let ascii = if label.is_ascii() {
        label.to_owned()
    } else {
        let prepped = nameprep(label)?;
        if prepped.is_ascii() {
            prepped
        } else {
            if prepped.starts_with("xn--") {
                return None;
            }
            let chars: Vec<char> = prepped.chars().collect();
            // RFC 3492 via the `idna` crate; `None` (overflow) only where the
            // label would be over 63 bytes, which is refused below anyway.
            format!("xn--{}", idna::punycode::encode(&chars)?)
        }
    };
    (!ascii.is_empty() && ascii.len() < 64).then(|| ascii.into_bytes())
}

fn in_ranges(c: char, ranges: &[(u32, u32)]) -> bool {
    let c = c as u32;
    ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// RFC 3491 nameprep, approximated (see the module docs): mapping (B.1, B.2
/// via Unicode lowercase plus [`FOLD_EXCEPTIONS`]), the NFKC mappings of
/// full-width ASCII and Unicode spaces, then the prohibited tables (C.1.2 to
/// C.9) and the bidi rule.
fn nameprep(label: &str) -> Option<String> {
    const MAP_TO_NOTHING: &[(u32, u32)] = &[
        (0x00ad, 0x00ad),
        (0x034f, 0x034f),
        (0x1806, 0x1806),
        (0x180b, 0x180d),
        (0x200b, 0x200d),
        (0x2060, 0x2060),
        (0xfe00, 0xfe0f),
        (0xfeff, 0xfeff),
    ];
    const PROHIBITED: &[(u32, u32)] = &[
        (0x0080, 0x009f),
        (0x0340, 0x0341),
        (0x06dd, 0x06dd),
        (0x070f, 0x070f),
        (0x1680, 0x1680),
        (0x180e, 0x180e),
        (0x200b, 0x200f),
        (0x2028, 0x202e),
        (0x2060, 0x2063),
        (0x206a, 0x206f),
        (0x2ff0, 0x2ffb),
        (0xd800, 0xf8ff),
        (0xfdd0, 0xfdef),
        (0xfeff, 0xfeff),
        (0xfff9, 0xfffd),
        (0x1d173, 0x1d17a),
        (0xe0001, 0xe0001),
        (0xe0020, 0xe007f),
        (0xf0000, 0x10ffff),
    ];
    let mut out = String::with_capacity(label.len());
    for c in label.chars() {
        if in_ranges(c, MAP_TO_NOTHING) {
            continue;
        }
        if let Ok(i) = FOLD_EXCEPTIONS.binary_search_by_key(&c, |&(k, _)| k) {
            out.push_str(FOLD_EXCEPTIONS[i].1);
            continue;
        }
        match c {
            // NFKC: Unicode spaces become ASCII space (which is allowed).
            '\u{a0}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' => {
                out.push(' ')
            }
            // NFKC: full-width ASCII.
            '\u{ff01}'..='\u{ff5e}' => {
                let a = char::from_u32(c as u32 - 0xfee0).unwrap_or(c);
                out.push(a.to_ascii_lowercase());
            }
            _ => out.extend(c.to_lowercase()),
        }
    }
    let prohibited = |c: char| in_ranges(c, PROHIBITED) || (c as u32 & 0xfffe) == 0xfffe;
    if out.chars().any(prohibited) {
        return None;
    }
    // Bidi: a label with a right-to-left character must have no
    // left-to-right letter and must start and end with right-to-left ones.
    if out.chars().any(is_rand_al) {
        let first = out.chars().next().is_some_and(is_rand_al);
        let last = out.chars().next_back().is_some_and(is_rand_al);
        if out.chars().any(is_l_approx) || !first || !last {
            return None;
        }
    }
    Some(out)
}

/// Where nameprep (B.2 case folding + NFKC) differs from `char::to_lowercase`
/// for Latin-1, Latin Extended and Greek: every Latin-1 character can reach
/// a host through the caller's Latin-1 fallback. Sorted by char.
const FOLD_EXCEPTIONS: &[(char, &str)] = &[
    ('\u{a8}', " \u{308}"),
    ('\u{aa}', "a"),
    ('\u{af}', " \u{304}"),
    ('\u{b2}', "2"),
    ('\u{b3}', "3"),
    ('\u{b4}', " \u{301}"),
    ('\u{b5}', "\u{3bc}"),
    ('\u{b8}', " \u{327}"),
    ('\u{b9}', "1"),
    ('\u{ba}', "o"),
    ('\u{bc}', "1\u{2044}4"),
    ('\u{bd}', "1\u{2044}2"),
    ('\u{be}', "3\u{2044}4"),
    ('\u{df}', "ss"),
    ('\u{132}', "ij"),
    ('\u{133}', "ij"),
    ('\u{13f}', "l\u{b7}"),
    ('\u{140}', "l\u{b7}"),
    ('\u{149}', "\u{2bc}n"),
    ('\u{17f}', "s"),
    ('\u{1c4}', "d\u{17e}"),
    ('\u{1c5}', "d\u{17e}"),
    ('\u{1c6}', "d\u{17e}"),
    ('\u{1c7}', "lj"),
    ('\u{1c8}', "lj"),
    ('\u{1c9}', "lj"),
    ('\u{1ca}', "nj"),
    ('\u{1cb}', "nj"),
    ('\u{1cc}', "nj"),
    ('\u{1f1}', "dz"),
    ('\u{1f2}', "dz"),
    ('\u{1f3}', "dz"),
    ('\u{3c2}', "\u{3c3}"),
    ('\u{3d0}', "\u{3b2}"),
    ('\u{3d1}', "\u{3b8}"),
    ('\u{3d2}', "\u{3c5}"),
    ('\u{3d5}', "\u{3c6}"),
    ('\u{3d6}', "\u{3c0}"),
    ('\u{3f0}', "\u{3ba}"),
    ('\u{3f1}', "\u{3c1}"),
    ('\u{3f2}', "\u{3c3}"),
    ('\u{3f5}', "\u{3b5}"),
    ('\u{3f9}', "\u{3c3}"),
    ('\u{1e9e}', "ss"),
];

/// RFC 3454 table D.1 (RandALCat).
fn is_rand_al(c: char) -> bool {
    const D1: &[(u32, u32)] = &[
        (0x05be, 0x05be),
        (0x05c0, 0x05c0),
        (0x05c3, 0x05c3),
        (0x05d0, 0x05ea),
        (0x05f0, 0x05f4),
        (0x061b, 0x061b),
        (0x061f, 0x061f),
        (0x0621, 0x063a),
        (0x0640, 0x064a),
        (0x066d, 0x066f),
        (0x0671, 0x06d5),
        (0x06dd, 0x06dd),
        (0x06e5, 0x06e6),
        (0x06fa, 0x06fe),
        (0x0700, 0x070d),
        (0x0710, 0x0710),
        (0x0712, 0x072c),
        (0x0780, 0x07a5),
        (0x07b1, 0x07b1),
        (0x200f, 0x200f),
        (0xfb1d, 0xfb1d),
        (0xfb1f, 0xfb28),
        (0xfb2a, 0xfb36),
        (0xfb38, 0xfb3c),
        (0xfb3e, 0xfb3e),
        (0xfb40, 0xfb41),
        (0xfb43, 0xfb44),
        (0xfb46, 0xfbb1),
        (0xfbd3, 0xfd3d),
        (0xfd50, 0xfd8f),
        (0xfd92, 0xfdc7),
        (0xfdf0, 0xfdfc),
        (0xfe70, 0xfe74),
        (0xfe76, 0xfefc),
    ];
    in_ranges(c, D1)
}

/// Approximation of table D.2 (LCat): letters that are neither right-to-left
/// nor Hebrew/Arabic combining marks.
fn is_l_approx(c: char) -> bool {
    const RTL_MARKS: &[(u32, u32)] = &[
        (0x0591, 0x05c7),
        (0x0610, 0x061a),
        (0x064b, 0x065f),
        (0x0670, 0x0670),
        (0x06d6, 0x06ed),
        (0x0711, 0x0711),
        (0x0730, 0x074a),
        (0x07a6, 0x07b0),
    ];
    c.is_alphabetic() && !is_rand_al(c) && !in_ranges(c, RTL_MARKS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_exceptions_sorted() {
        assert!(FOLD_EXCEPTIONS.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn punycode_rfc3492_sample() {
        // RFC 3492 7.1 (B) Chinese (simplified), as a host label.
        let host = "\u{4ed6}\u{4eec}\u{4e3a}\u{4ec0}\u{4e48}\u{4e0d}\u{8bf4}\u{4e2d}\u{6587}.cn";
        assert_eq!(
            to_ascii(host.as_bytes()).unwrap(),
            b"xn--ihqwcrb4cv8a8dqg056pqjye.cn"
        );
    }
}
