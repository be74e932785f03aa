use super::*;
use std::io::Write;

const CDX: &str = " CDX N b a m s k r M S V g
com,example)/ 20200101000000 http://example.com/ text/html 200 AAA - - 10 0 a.warc.gz
com,example)/ 20200601000000 http://example.com/ text/html 200 BBB - - 10 10 a.warc.gz
com,example)/ 20210101000000 http://example.com/ warc/revisit - BBB - - 10 20 a.warc.gz
com,example)/a.html 20200301000000 http://example.com/a.html text/html 404 CCC - - 10 30 a.warc.gz
com,example)/a.html?x=1 20200301000000 http://example.com/a.html?x=1 text/html 200 DDD - - 10 40 a.warc.gz
com,example,www2)/ 20200301000000 http://www2.example.com/ text/html 200 EEE - - 10 50 a.warc.gz
";

fn ask(q: &str) -> Result<String, QueryError> {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(CDX.as_bytes()).unwrap();
    let cdx = SortedCdx::open(f.path()).unwrap();
    let query = CdxQuery::parse(q.as_bytes())?;
    let mut out = Vec::new();
    query.answer(&cdx, &mut out).map_err(|e| match e {
        AnswerError::Query(q) => q,
        AnswerError::Io(e) => panic!("{e}"),
    })?;
    Ok(String::from_utf8(out).unwrap())
}

fn timestamps(q: &str) -> Vec<String> {
    ask(&format!("{q}&output=text&fl=timestamp"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn match_types_and_star_forms() {
    assert_eq!(timestamps("url=example.com/").len(), 3);
    assert_eq!(timestamps("url=example.com/*").len(), 5);
    assert_eq!(timestamps("url=example.com/&matchType=host").len(), 5);
    assert_eq!(timestamps("url=*.example.com").len(), 6);
    assert_eq!(timestamps("url=example.com&matchType=domain").len(), 6);
}

#[test]
fn orders_and_limits() {
    assert_eq!(
        timestamps("url=example.com/&sort=reverse&limit=2"),
        ["20210101000000", "20200601000000"]
    );
    assert_eq!(
        timestamps("url=example.com/&closest=20200515&sort=closest&limit=2"),
        ["20200601000000", "20200101000000"]
    );
    assert_eq!(timestamps("url=example.com/&limit=1"), ["20200101000000"]);
    assert_eq!(timestamps("url=example.com/&limit=0").len(), 3);
    assert!(timestamps("url=example.com/&limit=-1").is_empty());
    assert_eq!(
        timestamps("url=example.com/&from=2020&to=202006"),
        ["20200101000000", "20200601000000"]
    );
    assert_eq!(timestamps("url=example.com/&collapseTime=4").len(), 2);
}

#[test]
fn fuzzy_fallback_when_nothing_is_found() {
    // The query string differs: the capture without it is found, marked.
    let out = ask("url=http://example.com/a.html?x=2&output=json").unwrap();
    assert!(out.contains("\"is_fuzzy\": \"1\""), "{out}");
    assert_eq!(out.lines().count(), 2);
    assert!(ask("url=http://example.com/a.html?x=2&allowFuzzy=0")
        .unwrap()
        .is_empty());
    // Without a scheme the URL never equals a capture's: only equal keys are kept.
    assert!(ask("url=example.com/a.html?x=2").unwrap().is_empty());
}

#[test]
fn errors_in_pywb_words() {
    assert_eq!(
        ask("").unwrap_err().message,
        "The \"url\" param is required"
    );
    assert_eq!(
        ask("url=a&output=xml").unwrap_err().message,
        "output=xml not supported"
    );
    assert_eq!(
        ask("url=a&matchType=blah").unwrap_err().message,
        "Invalid match_type: blah"
    );
    assert_eq!(ask("url=a&limit=x").unwrap_err().status, 400);
    assert_eq!(ask("url=a&filter=~url:(").unwrap_err().status, 400);
    let many = "&filter=a".repeat(MAX_FILTERS + 1);
    assert!(ask(&format!("url=a{many}")).is_err());
}

#[test]
fn closest_refuses_more_captures_than_it_may_hold() {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    for i in 0..MAX_CLOSEST + 1 {
        writeln!(
            f,
            "com,example)/p{i:06} 20200101000000 http://example.com/p{i:06} - - - - - 1 0 f"
        )
        .unwrap();
    }
    let cdx = SortedCdx::open(f.path()).unwrap();
    let answer = |q: &str| {
        let mut out = Vec::new();
        CdxQuery::parse(q.as_bytes())
            .unwrap()
            .answer(&cdx, &mut out)
            .map(|()| out)
    };
    match answer("url=example.com/*&closest=2020") {
        Err(AnswerError::Query(e)) => assert!(e.message.contains("closest")),
        other => panic!("{:?}", other.map(|o| o.len())),
    }
    let ten = answer(&format!(
        "url=example.com/*&closest=2020&limit={MAX_CLOSEST}&output=text"
    ))
    .unwrap();
    assert_eq!(ten.iter().filter(|&&b| b == b'\n').count(), MAX_CLOSEST);
    // Other orders stream: no cap.
    let all = answer("url=example.com/*&sort=reverse&output=text").unwrap();
    assert_eq!(all.iter().filter(|&&b| b == b'\n').count(), MAX_CLOSEST + 1);
}

/// The two-direction merge gives what a stable sort of every capture by distance gives,
/// ties (same second, or as far before as after) in file order.
#[test]
fn closest_merge_is_a_stable_sort_by_distance() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    for round in 0..40 {
        let mut stamps: Vec<String> = (0..next(300) + 1)
            .map(|_| format!("2020{:02}{:02}{:02}0000", 1 + next(3), 1 + next(3), next(3)))
            .collect();
        stamps.sort();
        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(f, "com,a)/ 1 http://a.com/ - - - - - 1 0 f").unwrap();
        for (i, ts) in stamps.iter().enumerate() {
            // The field filtered on comes after the digest, so the file stays sorted.
            let part = i % 3;
            writeln!(
                f,
                "com,b)/ {ts} http://b.com/ text/html 200 D{i:04} - - 1 {i} f{part}"
            )
            .unwrap();
        }
        writeln!(f, "com,c)/ 1 http://c.com/ - - - - - 1 0 f").unwrap();
        let cdx = SortedCdx::open(f.path()).unwrap();
        let c = format!("2020{:02}{:02}{:02}", 1 + next(3), 1 + next(3), next(4));
        let limit = 1 + next(40);
        let filter = if round % 2 == 0 {
            "&filter=!=filename:f0"
        } else {
            ""
        };
        let q = format!("url=b.com/&closest={c}&limit={limit}&output=text&fl=digest{filter}");
        let mut out = Vec::new();
        CdxQuery::parse(q.as_bytes())
            .unwrap()
            .answer(&cdx, &mut out)
            .unwrap();
        let got = String::from_utf8(out).unwrap();
        let sec = crate::date::Date14::pad_up(&c).unix_seconds();
        let mut want: Vec<(i64, String)> = stamps
            .iter()
            .enumerate()
            .filter(|(i, _)| filter.is_empty() || i % 3 != 0)
            .map(|(i, ts)| {
                (
                    (sec - crate::date::Date14::pad_up(ts).unix_seconds()).abs(),
                    format!("D{i:04}\n"),
                )
            })
            .collect();
        want.sort_by_key(|(d, _)| *d);
        let want: String = want
            .into_iter()
            .take(limit as usize)
            .map(|(_, d)| d)
            .collect();
        assert_eq!(got, want, "{q}");
    }
}
