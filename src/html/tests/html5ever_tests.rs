//! warcdex's extraction against html5ever's tree (`html5ever_reference`) on every HTML
//! page of the real corpus (`fixtures/corpus/real`): title, text and the set of outlink
//! targets. A page whose result differs must be in [`KNOWN`] with the reason, and
//! every entry of [`KNOWN`] must still differ; the figures and the reasons are in
//! `docs/html-differences.md`. `H5DIFF_VERBOSE=1` prints every difference, and
//! `H5DIFF_DUMP=<dir>` writes the payload of each page that differs into `<dir>`.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha1::{Digest, Sha1};

use super::html5ever_reference;
use crate::html::ParsedHtml;
use crate::reader::header::decode;
use crate::reader::ArchiveReader;

/// The cap on `text` for both extractions: no corpus page comes near it, so the text is
/// compared whole.
const TEXT_LIMIT: usize = 64 << 20;
/// Fewer distinct pages than this means the corpus was not read.
const MIN_PAGES: usize = 300;

/// A field of the extraction that can differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Field {
    Title,
    Text,
    Outlinks,
}

/// Why html5ever's tree gives another result than warcdex's tokenizer
/// (`docs/html-differences.md` has a section for each; [`CLASSES`] shows each on a
/// minimal page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    /// Content misplaced in a `<table>` is moved before the table in the tree
    /// (foster parenting): the same words in another order.
    FosterParenting,
    /// Misnested formatting elements (`<b><p>x</b>y`): the adoption agency keeps `y`
    /// in the paragraph, warcdex's end tag ends the paragraph too (a word break).
    AdoptionAgency,
    /// `</p>` without an open `<p>` is an empty paragraph to HTML5; warcdex ignores a
    /// stray end tag (no word break). (`</br>` is a line break to both.)
    StrayEndTag,
    /// `<image>` is `<img>` to HTML5's tree builder; an unknown element to warcdex.
    ImageIsImg,
    /// A `<noscript>` left open to the end: warcdex parses its content only at its end
    /// tag (by design), html5ever's tree ends it at the end of the document.
    UnclosedNoscript,
    /// U+0000 in text: dropped by HTML5's tree builder, a separator to warcdex.
    NulCharacter,
}

/// A known difference: the archive (under `fixtures/corpus/real`), the page's URL
/// (every distinct capture of it), the field and why.
struct Known {
    archive: &'static str,
    url: &'static str,
    field: Field,
    reason: Reason,
}

/// Every difference on the corpus, explained.
const KNOWN: &[Known] = &[
    // `<p>Show full item record</p>` between `</tr>` and `</table>` (DSpace).
    Known {
        archive: "aut/warc/example.pdf.warc.gz",
        url: "https://yorkspace.library.yorku.ca/xmlui/handle/10315/36158",
        field: Field::Text,
        reason: Reason::FosterParenting,
    },
];

/// Each difference class on a minimal page: the field, then the value warcdex gives and
/// the value html5ever's tree gives (the title or `""`; the text; the outlink targets,
/// sorted, joined by spaces), for the page at [`MINIMAL_URL`]. Most classes do not
/// occur in the corpus; these pin what `docs/html-differences.md` says of them.
const CLASSES: &[(Reason, &str, Field, &str, &str)] = &[
    (
        Reason::FosterParenting,
        "<table><tr><td>a</td></tr><p>moved</p></table>after",
        Field::Text,
        "a moved after",
        "moved a after",
    ),
    (
        Reason::AdoptionAgency,
        "<b><p>x</b>y</p>",
        Field::Text,
        "x y",
        "xy",
    ),
    (
        Reason::AdoptionAgency,
        "<div><b>x<div>y</b>z</div></div>",
        Field::Text,
        "x y z",
        "x yz",
    ),
    (Reason::StrayEndTag, "a</p>b", Field::Text, "ab", "a b"),
    (
        Reason::ImageIsImg,
        "a<image src=i.png>b",
        Field::Text,
        "ab",
        "a b",
    ),
    (
        Reason::UnclosedNoscript,
        "<noscript><a href=n>n</a>",
        Field::Outlinks,
        "",
        "http://example.com/n",
    ),
    (Reason::NulCharacter, "a\0b", Field::Text, "a b", "ab"),
];

/// The URL of the pages of [`CLASSES`].
const MINIMAL_URL: &str = "http://example.com/";

/// An HTML page of the corpus: where it is, its URL, HTTP Content-Type and payload
/// as `import` hands it to the parser: its first `content_limit` bytes (1 MiB; the one
/// page longer than that, `giant_html.warc.gz`, is 431 MB of one PHP warning repeated,
/// which took html5ever 18 s), de-chunked and decoded.
struct Page {
    archive: String,
    url: String,
    content_type: Option<String>,
    body: Vec<u8>,
}

/// The archive files under `dir`, sorted (so that the first capture of a page is
/// always the same).
fn archives(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.expect("directory entry").path();
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            if p.is_dir() {
                todo.push(p);
            } else if [".warc", ".warc.gz", ".arc", ".arc.gz"]
                .iter()
                .any(|s| name.ends_with(s))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The HTML pages of one archive, selected as `import` selects them: WARC response and
/// resource records and ARC records, status 200–299 (a resource record counts as 200),
/// media type `text/html` or `application/xhtml+xml`. As in `import`, a record lost in a
/// damaged gzip member is skipped and any other error ends the file (some corpus files
/// are damaged on purpose).
fn html_pages(path: &Path, name: &str, cap: usize, out: &mut Vec<Page>) -> usize {
    let Ok(mut r) = ArchiveReader::open(path) else {
        return 0;
    };
    let mut records = 0;
    while let Ok(Some(mut rec)) = r.next_record() {
        records += 1;
        let h = rec.header();
        let is_arc = h.format().is_arc();
        let rtype = h.type_name().into_owned();
        let wanted = rtype == "response" || (!is_arc && rtype == "resource");
        let Some(url) = h.target_uri().map(|u| decode(u).into_owned()) else {
            continue;
        };
        if !wanted {
            continue;
        }
        let record_ct = h.content_type().map(|v| decode(v).into_owned());
        let (status, ct, te, ce) = match rec.http() {
            Err(_) => continue,
            Ok(Some(head)) if !head.is_blank() => (
                head.status(),
                head.get_str("Content-Type").map(|v| v.into_owned()),
                head.get_str("Transfer-Encoding").map(|v| v.into_owned()),
                head.get_str("Content-Encoding").map(|v| v.into_owned()),
            ),
            _ if rtype == "resource" => (Some(200), record_ct, None, None),
            _ => (None, record_ct.filter(|_| is_arc), None, None),
        };
        let mime = ct
            .as_deref()
            .and_then(|c| c.split(';').next())
            .map(|m| m.trim().to_ascii_lowercase());
        let html = matches!(mime.as_deref(), Some("text/html" | "application/xhtml+xml"));
        if !html || !status.is_some_and(|s| (200..300).contains(&s)) {
            continue;
        }
        let mut body = Vec::new();
        if (&mut rec).take(cap as u64).read_to_end(&mut body).is_err() {
            break;
        }
        match rec.finish() {
            Ok(_) => {}
            // In a damaged gzip member: not a capture.
            Err(e) if e.is_record_lost() => continue,
            Err(_) => break,
        }
        if te
            .as_deref()
            .is_some_and(|t| t.to_ascii_lowercase().contains("chunked"))
        {
            if let Some(d) = crate::reader::chunked::dechunk(&body) {
                body = d;
            }
        }
        if let Some(ce) = ce.as_deref() {
            if let Some(d) = crate::extract::body::decode_content(&body, ce, cap.saturating_mul(4))
            {
                body = d;
            }
        }
        out.push(Page {
            archive: name.to_string(),
            url,
            content_type: ct,
            body,
        });
    }
    records
}

/// What differs between the two results, as lines for a report.
fn describe(field: Field, ours: &ParsedHtml, theirs: &ParsedHtml) -> String {
    match field {
        Field::Title => format!(
            "  warcdex:  {:?}\n  html5ever: {:?}",
            ours.title, theirs.title
        ),
        Field::Text => {
            let (a, b) = (ours.text.as_str(), theirs.text.as_str());
            let at = a
                .char_indices()
                .zip(b.chars())
                .find(|((_, x), y)| x != y)
                .map_or(a.len().min(b.len()), |((i, _), _)| i);
            let from = floor_char(a, at.saturating_sub(60));
            let ctx = |s: &str| {
                let end = floor_char(s, (at + 60).min(s.len()));
                let from = floor_char(s, from.min(end));
                s[from..end].to_string()
            };
            let words = if squeeze(a) == squeeze(b) {
                "the same characters, other word boundaries"
            } else {
                "other characters"
            };
            format!(
                "  {} vs {} bytes, {words}; first difference at byte {at}:\n  warcdex:  …{:?}…\n  html5ever: …{:?}…",
                a.len(),
                b.len(),
                ctx(a),
                ctx(b)
            )
        }
        Field::Outlinks => {
            let (a, b) = (url_set(ours), url_set(theirs));
            let only = |x: &BTreeSet<&str>, y: &BTreeSet<&str>| {
                x.difference(y)
                    .copied()
                    .collect::<Vec<_>>()
                    .join("\n      ")
            };
            format!(
                "  only warcdex:  {}\n  only html5ever: {}",
                only(&a, &b),
                only(&b, &a)
            )
        }
    }
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The text without its spaces: equal when only word boundaries differ.
fn squeeze(s: &str) -> String {
    s.chars().filter(|&c| c != ' ').collect()
}

fn url_set(p: &ParsedHtml) -> BTreeSet<&str> {
    p.outlinks.iter().map(|o| o.url.as_str()).collect()
}

/// Every HTML page of the corpus, each distinct capture once, through both extractions.
#[test]
fn same_as_html5ever_on_the_corpus() {
    let started = Instant::now();
    let verbose = std::env::var_os("H5DIFF_VERBOSE").is_some();
    let dump = std::env::var_os("H5DIFF_DUMP");
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus/real");
    let files = archives(&real);
    let cap = crate::import::ImportOptions::default().content_limit;
    let mut pages = Vec::new();
    let mut records = 0;
    for f in &files {
        let name = f
            .strip_prefix(&real)
            .expect("under the corpus")
            .to_string_lossy()
            .into_owned();
        records += html_pages(f, &name, cap, &mut pages);
    }
    let read_time = started.elapsed();
    let html_records = pages.len();
    // The same capture in several files (`warcfile.warc` and `warcfile.warc.gz`, ...)
    // is compared once, in the first file.
    let mut seen = HashSet::new();
    pages.retain(|p| seen.insert((p.url.clone(), Sha1::digest(&p.body))));

    let mut identical: BTreeMap<Field, usize> = BTreeMap::new();
    let mut same_words = 0;
    let mut anchors_same = 0;
    let mut robots_same = 0;
    let mut found: Vec<(usize, Field)> = Vec::new();
    let mut results = Vec::with_capacity(pages.len());
    let (mut ours_time, mut theirs_time) = (Duration::ZERO, Duration::ZERO);
    for p in &pages {
        let ct = p.content_type.as_deref();
        let t = Instant::now();
        let ours = crate::html::parse_html(&p.body, ct, &p.url, TEXT_LIMIT);
        ours_time += t.elapsed();
        let t = Instant::now();
        let theirs = html5ever_reference::parse_html(&p.body, ct, &p.url, TEXT_LIMIT);
        theirs_time += t.elapsed();
        let same = [
            (Field::Title, ours.title == theirs.title),
            (Field::Text, ours.text == theirs.text),
            (Field::Outlinks, url_set(&ours) == url_set(&theirs)),
        ];
        for (field, same) in same {
            if same {
                *identical.entry(field).or_default() += 1;
            } else {
                found.push((results.len(), field));
            }
        }
        same_words += usize::from(squeeze(&ours.text) == squeeze(&theirs.text));
        anchors_same += usize::from(ours.outlinks == theirs.outlinks);
        robots_same += usize::from(ours.robots == theirs.robots);
        results.push((ours, theirs));
    }

    let n = pages.len();
    eprintln!(
        "{} archive files, {records} records, {html_records} HTML records, {n} distinct pages compared",
        files.len()
    );
    for field in [Field::Title, Field::Text, Field::Outlinks] {
        let same = identical.get(&field).copied().unwrap_or(0);
        eprintln!("{field:?}: {same}/{n} identical");
    }
    eprintln!("Text up to word boundaries: {same_words}/{n} identical");
    eprintln!("Outlinks with anchors, in order (not checked): {anchors_same}/{n} identical");
    eprintln!("Robots (not checked): {robots_same}/{n} identical");

    let mut unexplained = Vec::new();
    let mut used = vec![false; KNOWN.len()];
    for &(i, field) in &found {
        let p = &pages[i];
        let (ours, theirs) = &results[i];
        let known = KNOWN
            .iter()
            .position(|k| k.archive == p.archive && k.url == p.url && k.field == field);
        if let Some(k) = known {
            used[k] = true;
        }
        let report = || {
            format!(
                "{} {} {field:?}{}\n{}",
                p.archive,
                p.url,
                known.map_or(String::new(), |k| format!(" ({:?})", KNOWN[k].reason)),
                describe(field, ours, theirs)
            )
        };
        if verbose {
            eprintln!("{}", report());
        }
        if let Some(dir) = &dump {
            let file = Path::new(dir).join(format!("page-{i}.html"));
            std::fs::write(&file, &p.body).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            eprintln!("  payload in {}", file.display());
        }
        if known.is_none() {
            unexplained.push(report());
        }
    }
    let stale: Vec<String> = KNOWN
        .iter()
        .zip(&used)
        .filter(|(_, &u)| !u)
        .map(|(k, _)| format!("{} {} {:?}", k.archive, k.url, k.field))
        .collect();
    eprintln!(
        "{:.1} s: reading {:.1} s, warcdex {:.2} s, html5ever {:.2} s",
        started.elapsed().as_secs_f64(),
        read_time.as_secs_f64(),
        ours_time.as_secs_f64(),
        theirs_time.as_secs_f64()
    );

    assert!(
        n >= MIN_PAGES,
        "only {n} HTML pages read from {}",
        real.display()
    );
    assert!(
        unexplained.is_empty(),
        "{} differences not in KNOWN:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    assert!(
        stale.is_empty(),
        "KNOWN entries that no longer differ:\n{}",
        stale.join("\n")
    );
}

/// A field's value as [`CLASSES`] writes it.
fn value(field: Field, p: &ParsedHtml) -> String {
    match field {
        Field::Title => p.title.clone().unwrap_or_default(),
        Field::Text => p.text.clone(),
        Field::Outlinks => url_set(p).into_iter().collect::<Vec<_>>().join(" "),
    }
}

/// Each difference class gives, on its minimal page, the values
/// `docs/html-differences.md` gives; and the open-element cap, on a page too long for
/// the table.
#[test]
fn difference_classes_on_minimal_pages() {
    for &(reason, html, field, ours, theirs) in CLASSES {
        let got_ours = crate::html::parse_html(html.as_bytes(), None, MINIMAL_URL, 1000);
        let got_theirs = html5ever_reference::parse_html(html.as_bytes(), None, MINIMAL_URL, 1000);
        assert_eq!(
            (value(field, &got_ours), value(field, &got_theirs)),
            (ours.to_string(), theirs.to_string()),
            "{reason:?} {field:?}: {html:?}"
        );
    }
    // warcdex stops at 2^17 open elements, where lol_html ran out of memory
    // (`open_elements_are_capped_where_lol_html_ran_out_of_memory`); html5ever has no
    // such cap.
    let html = format!("a{}<i>x", "<b>".repeat(1 << 17));
    let ours = crate::html::parse_html(html.as_bytes(), None, MINIMAL_URL, 1000);
    let theirs = html5ever_reference::parse_html(html.as_bytes(), None, MINIMAL_URL, 1000);
    assert_eq!((ours.text.as_str(), theirs.text.as_str()), ("a", "ax"));
}
