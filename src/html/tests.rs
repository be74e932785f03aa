use super::*;

const URL: &str = "http://example.com/dir/page.html";

fn parse(html: &str) -> ParsedHtml {
    parse_html(html.as_bytes(), None, URL, 100_000)
}

fn links(p: &ParsedHtml) -> Vec<(&str, &str)> {
    p.outlinks
        .iter()
        .map(|o| (o.url.as_str(), o.anchor.as_str()))
        .collect()
}

fn charset(body: &[u8], ct: Option<&str>) -> (&'static str, CharsetSource) {
    let (e, s) = detect_charset(body, ct, Some(URL));
    (e.name(), s)
}

#[test]
fn http_charset_beats_meta() {
    let body = br#"<meta charset="koi8-r"><p>x"#;
    assert_eq!(
        charset(body, Some("text/html; charset=ISO-8859-2")),
        ("ISO-8859-2", CharsetSource::Http)
    );
    // An unknown HTTP label falls through to the meta.
    assert_eq!(
        charset(body, Some("text/html; charset=foo")),
        ("KOI8-R", CharsetSource::Meta)
    );
}

#[test]
fn bom_beats_meta_and_http() {
    let body = b"\xEF\xBB\xBF<meta charset=\"koi8-r\"><p>\xC3\xA9";
    assert_eq!(charset(body, None), ("UTF-8", CharsetSource::Bom));
    assert_eq!(
        charset(body, Some("text/html; charset=windows-1252")),
        ("UTF-8", CharsetSource::Bom)
    );
    let p = parse_html(body, Some("text/html; charset=windows-1252"), URL, 100);
    assert_eq!(p.text, "é");
    let le = b"\xFF\xFE<\0p\0>\0h\0i\0";
    assert_eq!(charset(le, None), ("UTF-16LE", CharsetSource::Bom));
    assert_eq!(parse_html(le, None, URL, 100).text, "hi");
}

#[test]
fn meta_charset_found_and_used() {
    let body =
        b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">\
                 <title>Caf\xE9</title></head><body>na\xEFve</body></html>";
    let p = parse_html(body, Some("text/html"), URL, 100);
    assert_eq!(
        (p.charset, p.charset_source),
        ("windows-1252", CharsetSource::Meta)
    );
    assert_eq!(p.title.as_deref(), Some("Café"));
    assert_eq!(p.text, "naïve");
}

#[test]
fn meta_after_1024_bytes_is_not_seen() {
    let mut body = format!("<!-- {} -->", "x".repeat(1100)).into_bytes();
    body.extend_from_slice(b"<meta charset=koi8-r><p>plain");
    assert_eq!(
        charset(&body, None),
        ("windows-1252", CharsetSource::Default)
    );
}

#[test]
fn detection_of_legacy_encodings() {
    let latin = "<p>Le cœur a ses raisons que la raison ne connaît point. Où êtes-vous, \
                 déjà? À bientôt, très élégant garçon français.</p>";
    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(latin);
    assert_eq!(
        charset(&bytes, None),
        ("windows-1252", CharsetSource::Detected)
    );
    let p = parse_html(&bytes, None, URL, 10_000);
    assert!(p.text.starts_with("Le cœur a ses raisons"), "{}", p.text);

    let jp = "<p>日本語のテキストです。これは文字コードの判定のための文章で、ひらがなとカタカナと\
              漢字が含まれています。東京都千代田区。</p>";
    let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(jp);
    let (e, s) = detect_charset(&bytes, None, Some("http://www.example.jp/"));
    assert_eq!((e.name(), s), ("Shift_JIS", CharsetSource::Detected));
    let p = parse_html(&bytes, None, "http://www.example.jp/", 10_000);
    assert!(p.text.starts_with("日本語のテキストです。"), "{}", p.text);

    let utf8 = "<p>Grüße aus Köln, schöne Straße</p>";
    assert_eq!(
        charset(utf8.as_bytes(), None),
        ("UTF-8", CharsetSource::Detected)
    );
    assert_eq!(
        charset(b"<p>ascii only</p>", None),
        ("windows-1252", CharsetSource::Default)
    );
}

#[test]
fn detection_looks_past_a_long_ascii_prefix() {
    let mut body = format!("<script>{}</script>", "var a = 1;\n".repeat(20_000));
    body.push_str("<p>Grüße aus Köln, schöne Straße</p>");
    assert_eq!(
        charset(body.as_bytes(), None),
        ("UTF-8", CharsetSource::Detected)
    );
}

#[test]
fn entities_in_text_title_and_attributes() {
    let p = parse(
        "<title>Tom &amp; Jerry&nbsp;&#8211; caf&eacute;</title>\
         <p>a &lt;b&gt; &#233;&#xE9; &copy 2001 &unknown; x&nbsp;&nbsp;y</p>\
         <a href=\"/q?a=1&amp;b=2&copy=3\">R&eacute;sum&eacute;</a>",
    );
    assert_eq!(p.title.as_deref(), Some("Tom & Jerry – café"));
    assert_eq!(
        p.text, "a <b> éé © 2001 &unknown; x y Résumé",
        "nbsp collapses like a space"
    );
    assert_eq!(
        links(&p),
        [("http://example.com/q?a=1&b=2&copy=3", "Résumé")]
    );
}

#[test]
fn entities_split_across_chunks() {
    // Long enough to span several decode chunks; every reference must survive its split.
    let unit = "x&amp;y &eacute; &#233;&#x41; ";
    let html = format!("<p>{}</p>", unit.repeat(20_000));
    let p = parse_html(html.as_bytes(), None, URL, usize::MAX);
    let want = "x&y é éA ".repeat(20_000);
    assert_eq!(p.text, want.trim_end());
}

#[test]
fn script_style_noscript_template_comments_excluded() {
    let p = parse(
        "<html><head><style>p { color: red }</style><script>var x = '<p>no</p>';</script></head>\
         <body>one<!-- hidden --><script type=\"text/javascript\">alert(1)</script>two\
         <noscript>enable js</noscript><template><p>tpl</p></template> three\
         <iframe src=\"/f.html\">fallback</iframe><textarea>typed &amp; kept</textarea>\
         <svg><title>icon</title></svg></body></html>",
    );
    assert_eq!(p.text, "onetwo three typed & kept icon");
    assert_eq!(p.title, None, "an SVG title is not the page title");
    assert_eq!(links(&p), [("http://example.com/f.html", "")]);
}

#[test]
fn block_boundaries_separate_words() {
    let p = parse(
        "<div>alpha</div><div>beta</div>gamma<br>delta<b>bold</b>er<ul><li>one<li>two</ul>\
         <table><tr><td>c1</td><td>c2</td></tr></table><h1>head</h1>tail<p>x</p>\
         image<img src=\"i.png\">after",
    );
    assert_eq!(
        p.text,
        "alpha beta gamma deltabolder one two c1 c2 head tail x image after"
    );
}

#[test]
fn whitespace_collapsed_and_trimmed() {
    let p = parse("<title>\n  A \t title\n</title>\n\n  <p>  lots \r\n of\u{3000}space  </p>  ");
    assert_eq!(p.title.as_deref(), Some("A title"));
    assert_eq!(p.text, "lots of space");
    assert_eq!(parse("<title> \n </title>").title, None);
}

#[test]
fn first_title_only() {
    let p = parse("<title>first</title><body><title>second</title>body");
    assert_eq!(p.title.as_deref(), Some("first"));
    assert_eq!(p.text, "body");
}

#[test]
fn base_href_applies_to_later_links() {
    let p = parse(
        "<a href=\"a.html\">before</a><base href=\"http://other.org/sub/\">\
         <base href=\"http://ignored.org/\"><a href=\"b.html#frag\">after</a>\
         <a href=\"/root\">root</a><a href=\"//cdn.net/x\">scheme-relative</a>",
    );
    assert_eq!(
        links(&p),
        [
            ("http://example.com/dir/a.html", "before"),
            ("http://other.org/sub/b.html", "after"),
            ("http://other.org/root", "root"),
            ("http://cdn.net/x", "scheme-relative"),
        ]
    );
}

#[test]
fn relative_base_href_resolves_against_the_document() {
    let p = parse("<base href=\"../up/\"><a href=\"x\">x</a>");
    assert_eq!(links(&p), [("http://example.com/up/x", "x")]);
}

#[test]
fn robots_meta() {
    let p = parse(
        "<meta name=\"ROBOTS\" content=\"NOINDEX, follow\"><meta name=robots content=noarchive>",
    );
    assert_eq!(
        p.robots,
        Robots {
            noindex: true,
            nofollow: false,
            noarchive: true
        }
    );
    let p = parse(
        "<meta name=\"robots\" content=\"none\"><meta name=\"description\" content=\"noindex\">",
    );
    assert_eq!(
        p.robots,
        Robots {
            noindex: true,
            nofollow: true,
            noarchive: false
        }
    );
    assert_eq!(parse("<p>x").robots, Robots::default());
}

#[test]
fn link_skipping_and_fragments() {
    let p = parse(
        "<a href=\"javascript:void(0)\">js</a><a href=\"mailto:a@b.c\">mail</a>\
         <a href=\"data:text/html,hi\">data</a><a href=\"#top\">frag</a><a href=\"\">empty</a>\
         <a href=\" JavaScript:x\">js2</a><a name=\"anchor\">no href</a>\
         <a href=\"page2.html#sec\">kept</a><a href=\"page2.html#sec\">kept again</a>\
         <a href=\"  http://x.org/ a \">spaces</a><a href=\"http://[bad\">bad</a>",
    );
    assert_eq!(
        links(&p),
        [
            ("http://example.com/dir/page2.html", "kept"),
            ("http://example.com/dir/page2.html", "kept again"),
            ("http://x.org/%20a", "spaces"),
        ]
    );
    assert_eq!(
        p.text,
        "jsmaildatafragemptyjs2no hrefkeptkept againspacesbad"
    );
}

#[test]
fn anchors_area_img_alt_and_frames_in_document_order() {
    let p = parse(
        "<a href=\"/1\"><img src=\"i.gif\" alt=\"Logo &amp; Co\"></a>\
         <a href=\"/2\">text <img alt=\"ignored when text\"> wins</a>\
         <map><area href=\"/3\" alt=\"Region\"></map>\
         <frameset><frame src=\"/4\"></frameset>\
         <a href=\"/5\">outer<iframe src=\"/6\"></iframe> <b>bold</b></a>\
         <a href=\"/7\">unclosed<a href=\"/8\">next</a>",
    );
    assert_eq!(
        links(&p),
        [
            ("http://example.com/1", "Logo & Co"),
            ("http://example.com/2", "text wins"),
            ("http://example.com/3", "Region"),
            ("http://example.com/4", ""),
            ("http://example.com/5", "outer bold"),
            ("http://example.com/6", ""),
            ("http://example.com/7", "unclosed"),
            ("http://example.com/8", "next"),
        ]
    );
}

#[test]
fn anchor_text_is_capped() {
    let html = format!("<a href=\"/x\">{}</a>", "word ".repeat(1000));
    let p = parse(&html);
    assert!(p.outlinks[0].anchor.len() <= MAX_ANCHOR);
    assert!(p.outlinks[0].anchor.starts_with("word word"));
}

#[test]
fn outlinks_are_capped_but_text_limit_does_not_stop_links() {
    let html = format!(
        "<p>{}</p>",
        "<a href=\"/l\">link</a> ".repeat(MAX_OUTLINKS + 10)
    );
    let p = parse_html(html.as_bytes(), None, URL, 20);
    assert_eq!(p.outlinks.len(), MAX_OUTLINKS);
    assert_eq!(p.outlinks[MAX_OUTLINKS - 1].anchor, "link");
    assert_eq!(p.text, "link link link link");
    assert!(p.truncated);
}

#[test]
fn text_cap_cuts_on_char_boundary() {
    let p = parse_html("<p>ab cé dé</p>".as_bytes(), None, URL, 5);
    assert_eq!((p.text.as_str(), p.truncated), ("ab c", true));
    let p = parse_html("<p>ab cé</p>".as_bytes(), None, URL, 6);
    assert_eq!((p.text.as_str(), p.truncated), ("ab cé", false));
    let p = parse_html("<p>ab</p> <p>cd</p>".as_bytes(), None, URL, 3);
    assert_eq!((p.text.as_str(), p.truncated), ("ab", true));
    let p = parse_html(b"<p>x</p>", None, URL, 0);
    assert_eq!((p.text.as_str(), p.truncated), ("", true));
    let p = parse_html(b"<p> </p>", None, URL, 0);
    assert_eq!((p.text.as_str(), p.truncated), ("", false));
}

#[test]
fn plain_text_payloads() {
    let (t, cs, tr) = plain_text(
        b"  hello\n\n  world \t",
        Some("text/plain; charset=utf-8"),
        100,
    );
    assert_eq!((t.as_str(), cs, tr), ("hello world", "UTF-8", false));
    let (t, cs, tr) = plain_text(b"caf\xE9 <meta charset=utf-8> au lait", None, 8);
    assert_eq!((t.as_str(), cs, tr), ("café <m", "windows-1252", true));
    let (t, cs, _) = plain_text(b"\xEF\xBB\xBFbom", Some("text/plain; charset=latin1"), 8);
    assert_eq!((t.as_str(), cs), ("bom", "UTF-8"));
}

#[test]
fn unresolvable_document_url_keeps_absolute_links() {
    let p = parse_html(
        b"<a href=\"rel.html\">rel</a><a href=\"http://abs.org/\">abs</a>",
        None,
        "not a url",
        100,
    );
    assert_eq!(links(&p), [("http://abs.org/", "abs")]);
}

#[test]
fn garbage_does_not_panic() {
    let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pieces: [&[u8]; 14] = [
        b"<a href=",
        b"<!--",
        b"-->",
        b"<script>",
        b"</script>",
        b"&amp",
        b"&#x",
        b"<meta charset=",
        b"<title>",
        b"\"",
        b"<",
        b">",
        b"\xC3",
        b"\xFF\xFE",
    ];
    for _ in 0..300 {
        let mut body = Vec::new();
        for _ in 0..(next() % 200) {
            if next() % 3 == 0 {
                body.push(next() as u8);
            } else {
                body.extend_from_slice(pieces[(next() % pieces.len() as u64) as usize]);
            }
        }
        let p = parse_html(&body, None, URL, 50);
        assert!(p.text.len() <= 50);
    }
}

#[test]
fn huge_attribute_and_single_line_pages() {
    // A tag larger than the parser's memory: the text before it is kept.
    let mut html = String::from("<p>before</p><a href=\"");
    html.push_str(&"x".repeat(PARSER_MEMORY + 1024));
    html.push_str("\">after</a>");
    let p = parse(&html);
    assert!(
        p.text.starts_with("before"),
        "{}",
        &p.text[..p.text.len().min(40)]
    );

    // 20 MB of text on one line without tags.
    let html = format!("<p>{}", "word ".repeat(4_000_000));
    let p = parse_html(html.as_bytes(), None, URL, 1000);
    assert!(p.truncated);
    assert!(p.text.len() <= 1000);

    // Unclosed elements pile up without end tags.
    let html = "<div><p>x".repeat(200_000);
    let p = parse_html(html.as_bytes(), None, URL, 100);
    assert!(p.text.starts_with("x x"));
}

/// One HTML response for the throughput test: (URI, Content-Type, entity body).
type BenchPage = (String, Option<String>, Vec<u8>);

/// HTML responses of one archive (at most `max`), de-chunked and gunzipped as the
/// importer would hand them over.
fn bench_pages(path: &std::path::Path, max: usize, out: &mut Vec<BenchPage>) {
    use std::io::Read;
    let Ok(mut r) = crate::reader::ArchiveReader::open(path) else {
        return;
    };
    let mut n = 0;
    while n < max {
        let Ok(Some(mut rec)) = r.next_record() else {
            return;
        };
        let uri =
            String::from_utf8_lossy(rec.header().target_uri().unwrap_or_default()).into_owned();
        let Ok(Some(http)) = rec.http() else {
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
        if rec.read_to_end(&mut body).is_err() {
            continue;
        }
        if te.is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
            continue;
        }
        if ce.is_some_and(|c| c.eq_ignore_ascii_case("gzip")) {
            let mut d = Vec::new();
            if flate2::read::MultiGzDecoder::new(&body[..])
                .read_to_end(&mut d)
                .is_err()
            {
                continue;
            }
            body = d;
        }
        out.push((uri, ct, body));
        n += 1;
    }
}

/// Archive files under `dir`, sorted.
fn archive_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            archive_files(&p, out);
        } else if p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.contains(".warc") || n.contains(".arc"))
        {
            out.push(p);
        }
    }
}

/// Throughput of `parse_html` on the real corpus and the first 3,000 HTML responses of
/// the benchmark archive: `cargo test --release --lib html_throughput -- --ignored
/// --nocapture`. With `HTML_FINGERPRINT=<file>` it also writes one hash of each
/// page's full result per line, so two builds can be compared on every page (the
/// goldens only look at the start of the text and the first outlinks).
#[test]
#[ignore]
fn html_throughput() {
    use std::hash::{Hash, Hasher};
    let mut pages = Vec::new();
    let mut files = Vec::new();
    archive_files(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/real"),
        &mut files,
    );
    for f in &files {
        bench_pages(f, usize::MAX, &mut pages);
    }
    let corpus = pages.len();
    bench_pages(
        std::path::Path::new("/work/bench-data/full/full/DOCS-20240115030000-00000.warc.gz"),
        3000,
        &mut pages,
    );
    let bytes: usize = pages.iter().map(|p| p.2.len()).sum();
    eprintln!(
        "{} pages ({} from corpus/real), {:.1} MB",
        pages.len(),
        corpus,
        bytes as f64 / 1e6
    );
    const LIMIT: usize = 1 << 20;
    if let Ok(path) = std::env::var("HTML_FINGERPRINT") {
        let mut out = String::new();
        for (uri, ct, body) in &pages {
            let p = parse_html(body, ct.as_deref(), uri, LIMIT);
            let mut h = std::hash::DefaultHasher::new();
            format!("{p:?}").hash(&mut h);
            out.push_str(&format!("{:016x} {uri}\n", h.finish()));
        }
        std::fs::write(path, out).unwrap();
    }
    let reps: usize = std::env::var("HTML_REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    for _ in 0..reps {
        let t = std::time::Instant::now();
        let mut sink = 0usize;
        for (uri, ct, body) in &pages {
            let p = parse_html(body, ct.as_deref(), uri, LIMIT);
            sink += p.text.len() + p.outlinks.len();
        }
        let s = t.elapsed().as_secs_f64();
        eprintln!(
            "{:.2} s, {:.1} MB/s (checksum {sink})",
            s,
            bytes as f64 / 1e6 / s
        );
    }
}
