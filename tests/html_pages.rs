//! HTML extraction on real pages from the corpus, compared with hand-checked goldens in
//! `fixtures/html/` (see the README there).

use std::io::Read;
use std::path::Path;

use serde::Serialize;
use warcdex::html::parse_html;
use warcdex::reader::ArchiveReader;
use warcdex::segment::Outlink;

use crate::util::{check_snapshot, corpus};

/// An HTML response: its URI, HTTP Content-Type and entity body (de-chunked and
/// gunzipped when the HTTP head says so, as an importer would hand it over).
struct Page {
    uri: String,
    content_type: Option<String>,
    body: Vec<u8>,
}

/// Every response in `path` whose HTTP Content-Type is HTML.
fn html_pages(path: &Path) -> Vec<Page> {
    let mut r = ArchiveReader::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    while let Some(mut rec) = r.next_record().expect("readable corpus file") {
        let uri =
            String::from_utf8_lossy(rec.header().target_uri().unwrap_or_default()).into_owned();
        let Some(http) = rec.http().expect("http head") else {
            continue;
        };
        let ct = http.get_str("Content-Type").map(|c| c.into_owned());
        let te = http.get_str("Transfer-Encoding").map(|c| c.into_owned());
        let ce = http.get_str("Content-Encoding").map(|c| c.into_owned());
        if !ct
            .as_deref()
            .is_some_and(|c| c.to_ascii_lowercase().contains("html"))
        {
            continue;
        }
        let mut body = Vec::new();
        rec.read_to_end(&mut body).expect("record body");
        if te
            .as_deref()
            .is_some_and(|t| t.eq_ignore_ascii_case("chunked"))
        {
            if let Some(d) = dechunk(&body) {
                body = d;
            }
        }
        if ce
            .as_deref()
            .is_some_and(|c| c.eq_ignore_ascii_case("gzip"))
        {
            let mut d = Vec::new();
            if flate2::read::MultiGzDecoder::new(&body[..])
                .read_to_end(&mut d)
                .is_ok()
            {
                body = d;
            }
        }
        out.push(Page {
            uri,
            content_type: ct,
            body,
        });
    }
    out
}

/// Removes chunked transfer coding; `None` when the bytes are not chunked (some
/// writers store the body de-chunked under the original header).
fn dechunk(raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = raw;
    loop {
        let nl = rest.iter().position(|&c| c == b'\n')?;
        let size = std::str::from_utf8(&rest[..nl]).ok()?;
        let size = size.split(';').next()?.trim();
        let size = usize::from_str_radix(size, 16).ok()?;
        rest = &rest[nl + 1..];
        if size == 0 {
            return Some(out);
        }
        let take = size.min(rest.len());
        out.extend_from_slice(&rest[..take]);
        rest = &rest[take..];
        rest = rest.strip_prefix(b"\r\n").unwrap_or(rest);
        if rest.is_empty() {
            return Some(out);
        }
    }
}

/// The pages with goldens: (golden name, file under `corpus/real`, target URI prefix).
/// A prefix, because some archived URIs hold raw non-UTF-8 bytes.
const PAGES: &[(&str, &str, &str)] = &[
    ("iana-home", "pywb-2.10.0/warcs/iana.warc.gz", "http://www.iana.org/"),
    ("example-com", "warcio-py/example.warc.gz", "http://example.com/"),
    (
        "allocine-latin1",
        "cdx-writer/small_warcs/alexa_charset_in_header.arc.gz",
        "http://free.allocine.fr:80/tv/cineaction.asp",
    ),
    (
        "pconline-gbk",
        "cdx-writer/small_warcs/chardet_failure_url.arc.gz",
        "http://guide.pconline.com.cn:80/gamecomment/post.jsp",
    ),
    (
        "umkc-1997-detected",
        "jwat/jwat-arc/small_BNF.arc",
        "http://cctr.umkc.edu:80/user/jbenz/tst.htm",
    ),
    (
        "archive-org-2008",
        "jwat/jwat-arc/IAH-20080430204825-00000-blackbook.arc.gz",
        "http://www.archive.org/index.php",
    ),
    ("spb-windows-1251", "resiliparse/warcfile.warc.gz", "http://01spb.ru/company/"),
    (
        "chinatrust-big5-meta",
        "jwat/jwat-warc/invalid-warcfile-encoding-headers.warc.gz",
        "https://ecorp.chinatrust.com.tw/cts/static/ag_stockdiv_cash_history.jsp?comCode=689",
    ),
    (
        "uraharajuku-euc-jp",
        "resiliparse/clueweb-quirk.warc.gz",
        "http://www.uraharajuku.st/shopdetail/001019000061/order/",
    ),
    (
        "python-tutorial",
        "wget-1.21.3-local/wget-1.21.3-crawl1.warc.gz",
        "http://127.0.0.1:8765/tutorial/index.html",
    ),
    (
        "data-gov-uk",
        "webarchive-discovery/gov.uk-revisit-warcs/BL-20140325121225068-00000-32090~opera~8443.warc.gz",
        "http://data.gov.uk/",
    ),
    ("books-toscrape", "node-warc/books.toscrape.warc", "http://books.toscrape.com/"),
    (
        "sueddeutsche-de",
        "cdx-writer/small_warcs/uncompressed.arc",
        "http://www.sueddeutsche.de:80/muenchen/",
    ),
    (
        "richmond-robots-meta",
        "cdx-writer/small_warcs/meta_tag_large.warc.gz",
        "http://www.richmondstrikers.com/Alumni/index_E.html",
    ),
    (
        "xhtml-base-href",
        "ia-web-commons/resource/html/link-extraction-test.warc",
        "http://www.example.com/html4.html",
    ),
    (
        "xhtml-entities",
        "ia-web-commons/resource/html/link-extraction-test.warc",
        "http://www.example.com/link-extraction-test-unescaped-entities.xhtml",
    ),
    (
        "anchor-text-blocks",
        "ia-web-commons/resource/html/link-extraction-test.warc",
        "http://example.org/cc/link-extraction-test-anchor-text.html",
    ),
    (
        "text-spacing",
        "ia-web-commons/resource/html/text-extraction-test.warc",
        "http://www.example.com/html2text-spacing.html",
    ),
    (
        "svg-title",
        "ia-web-commons/resource/html/title-extraction-embedded-SVG.warc",
        "https://www.example.org/testEmbeddedSVG.html",
    ),
];

/// The text cap the goldens are made with (the import's default is of this order).
const LIMIT: usize = 100_000;

/// What a golden records of a parsed page, in reading order.
#[derive(Serialize)]
struct Golden<'a> {
    file: &'a str,
    uri: &'a str,
    content_type: Option<&'a str>,
    body_bytes: usize,
    title: Option<&'a str>,
    charset: &'a str,
    charset_source: String,
    /// The robots directives found.
    robots: Vec<&'static str>,
    text_bytes: usize,
    truncated: bool,
    /// The first 300 chars of the text.
    text_start: String,
    outlinks: usize,
    first_outlinks: &'a [Outlink],
}

fn golden(file: &str, page: &Page) -> String {
    let p = parse_html(&page.body, page.content_type.as_deref(), &page.uri, LIMIT);
    let g = Golden {
        file,
        uri: &page.uri,
        content_type: page.content_type.as_deref(),
        body_bytes: page.body.len(),
        title: p.title.as_deref(),
        charset: p.charset,
        charset_source: format!("{:?}", p.charset_source),
        robots: [
            ("noindex", p.robots.noindex),
            ("nofollow", p.robots.nofollow),
            ("noarchive", p.robots.noarchive),
        ]
        .into_iter()
        .filter_map(|(n, set)| set.then_some(n))
        .collect(),
        text_bytes: p.text.len(),
        truncated: p.truncated,
        text_start: p.text.chars().take(300).collect(),
        outlinks: p.outlinks.len(),
        first_outlinks: &p.outlinks[..p.outlinks.len().min(10)],
    };
    serde_json::to_string_pretty(&g).expect("JSON") + "\n"
}

#[test]
fn real_pages_match_goldens() {
    let root = corpus().join("real");
    let mut failures = Vec::new();
    for (name, file, uri) in PAGES {
        let pages = html_pages(&root.join(file));
        let page = pages
            .iter()
            .find(|p| p.uri.starts_with(uri))
            .unwrap_or_else(|| panic!("{file}: no HTML response for {uri}"));
        if let Err(e) = check_snapshot(&format!("html/{name}.json"), &golden(file, page)) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
