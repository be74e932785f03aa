//! Serve's pages of a URL's versions, `/history/URL` and
//! `/diff/DATE1/DATE2/URL`, over a collection built by `update`.

use std::path::{Path, PathBuf};

use crate::util::http::request;
use crate::util::{run_warcdex, start_in_process, write_warc};
use warcdex::serve::ServeOptions;

const URL: &str = "http://museum.example/hours";

fn page(hours: &str, day: u32) -> String {
    format!(
        "<html><head><title>Museum hours</title></head><body><h1>Museum hours</h1>\
         <p>The museum opens at {hours} every day but Monday. Tickets cost five euros; \
         children and students enter free. Guided tours start at the main hall on the \
         hour, and the café on the roof serves lunch until three.</p>\
         <p>Note: &lt;script&gt;alert(1)&lt;/script&gt; is not a ticket code. Updated {day}.</p>\
         </body></html>"
    )
}

/// Three captures: two of one text (only the digits of the last line differ), then the
/// opening hour changed.
fn collection(dir: &Path) -> PathBuf {
    let warc = dir.join("museum.warc");
    let captures = vec![
        (
            URL.to_string(),
            "2025-03-01T06:00:00Z".to_string(),
            page("nine", 1),
        ),
        (
            URL.to_string(),
            "2025-03-02T06:00:00Z".to_string(),
            page("nine", 2),
        ),
        (
            URL.to_string(),
            "2025-03-09T06:00:00Z".to_string(),
            page("ten", 9),
        ),
    ];
    write_warc(&warc, &captures);
    let coll = dir.join("coll");
    let (code, _, err) = run_warcdex(&["update".as_ref(), coll.as_os_str(), warc.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    coll
}

#[test]
fn history_and_diff_pages_show_what_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = collection(tmp.path());
    let addr = start_in_process(&coll, ServeOptions::default());

    let h = request(&addr, "GET", &format!("/history/{URL}"), "");
    assert_eq!(h.status, 200, "{}", h.text());
    let body = h.text();
    assert!(body.contains("3 versions, 3 captures"), "{body}");
    for d in ["20250301060000", "20250302060000", "20250309060000"] {
        assert!(
            body.contains(&format!("href=\"/web/{d}/{URL}\"")),
            "{d}: {body}"
        );
    }
    // The second version changed a number only: no word of the text but that one.
    assert!(
        body.contains(&format!(
            "href=\"/diff/20250302060000/20250309060000/{URL}\">"
        )),
        "{body}"
    );
    assert!(h
        .header("content-security-policy")
        .is_some_and(|c| c.contains("default-src 'none'")));

    let d = request(&addr, "GET", &format!("/diff/20250302/20250309/{URL}"), "");
    assert_eq!(d.status, 200, "{}", d.text());
    let body = d.text();
    assert!(
        body.contains("The museum opens at <del>nine</del> <ins>ten</ins> every day"),
        "{body}"
    );
    assert!(body.contains("<del>2.</del> <ins>9.</ins>"), "{body}");
    // The text's `<script>` is escaped, never markup.
    assert!(
        body.contains("Note: &lt;script&gt;alert(1)&lt;/script&gt;"),
        "{body}"
    );
    assert!(!body.contains("<script>"), "{body}");
    assert!(
        body.contains("of the words changed (2 removed, 2 added)"),
        "{body}"
    );

    // Not archived, not a date, a wrong path: refused, the server still up.
    assert_eq!(
        request(&addr, "GET", "/history/http://elsewhere.example/", "").status,
        404
    );
    assert_eq!(
        request(&addr, "GET", &format!("/diff/20x5/2026/{URL}"), "").status,
        400
    );
    assert_eq!(request(&addr, "GET", "/diff/2025", "").status, 400);
    assert_eq!(
        request(&addr, "GET", &format!("/history/{URL}"), "").status,
        200
    );
}
