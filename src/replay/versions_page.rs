//! The pages of a URL's versions: `/history/URL`, every version with its
//! captures and the share of words changed from the one before, each capture a link to
//! the capture view; and `/diff/DATE1/DATE2/URL`, what changed between two versions, word
//! by word.

use std::fmt::Write;

use crate::near::word_diff::{percent, WordDiff, WordRun};
use crate::render::escape::escape;
use crate::render::layout::{Head, READING_CSS};
use crate::search::history::Version;

use super::archival_url::{format, Mode};
use super::frame::display_date;

/// The rules the history and diff pages add to [`READING_CSS`].
const STYLE: &str = "table{border-collapse:collapse}td,th{padding:.2em .6em;text-align:left;vertical-align:top;border-bottom:1px solid #ddd}\
    .meta{color:#555}del{background:#fdd;color:#900}ins{background:#dfd;color:#060;text-decoration:none}\
    details ul{columns:14em;margin:.3em 0;padding-left:1.2em}.diff{white-space:pre-wrap;word-wrap:break-word}";

/// A page of the history or the diff: the layout, a link back to the search page, then
/// what `body` writes.
fn page(title: &str, capacity: usize, body: impl FnOnce(&mut String)) -> String {
    let head = Head {
        title,
        css: &[READING_CSS, STYLE],
        extra: "",
    };
    head.page(capacity, |out| {
        out.push_str("<p><a href=\"/\">Search</a></p>\n");
        body(out);
    })
}

/// The link to the diff page between the captures `date1` and `date2` of `url`.
pub fn diff_link(date1: &str, date2: &str, url: &str) -> String {
    format!("/diff/{date1}/{date2}/{url}")
}

/// The link to the history page of `url`.
pub fn history_link(url: &str) -> String {
    format!("/history/{url}")
}

/// The history page of `url`: `versions` earliest first (`search::history::history`).
pub fn history_page(prefix: &str, url: &str, versions: &[Version]) -> String {
    let captures: usize = versions.iter().map(|v| v.dates.len()).sum();
    page(
        &format!("Versions of {url}"),
        2048 + 200 * versions.len() + 120 * captures,
        |out| {
            let _ = write!(
                out,
                "<h1>Versions of {}</h1>\n<p class=meta>{} version{}, {} capture{}. A version is one \
                 payload (the same bytes however often captured); \"changed\" is the share of its \
                 words removed or added since the version before.</p>\n<table><tr><th>first \
                 capture</th><th>last capture</th><th>captures</th><th>words</th><th>changed</th></tr>\n",
                escape(url),
                versions.len(),
                if versions.len() == 1 { "" } else { "s" },
                captures,
                if captures == 1 { "" } else { "s" },
            );
            let view = |date: &str| escape(&format(prefix, date, Mode::Frame, url));
            for (i, v) in versions.iter().enumerate() {
                let (Some(first), Some(last)) = (v.dates.first(), v.dates.last()) else {
                    continue;
                };
                let changed = match (i, v.changed) {
                    (0, _) | (_, None) => "first".to_string(),
                    (_, Some(share)) => {
                        let prev = versions[i - 1].dates.first().map_or("", String::as_str);
                        format!(
                            "<a href=\"{}\">{} · {}</a>",
                            escape(&diff_link(prev, first, url)),
                            escape(&percent(share)),
                            escape(v.change.label())
                        )
                    }
                };
                let _ = write!(
                    out,
                    "<tr><td><a href=\"{}\">{}</a></td><td><a href=\"{}\">{}</a></td><td>",
                    view(first),
                    escape(&display_date(first)),
                    view(last),
                    escape(&display_date(last)),
                );
                if v.dates.len() > 2 {
                    let _ = write!(out, "<details><summary>{}</summary><ul>", v.dates.len());
                    for d in &v.dates {
                        let _ = write!(
                            out,
                            "<li><a href=\"{}\">{}</a></li>",
                            view(d),
                            escape(&display_date(d))
                        );
                    }
                    out.push_str("</ul></details>");
                } else {
                    let _ = write!(out, "{}", v.dates.len());
                }
                let _ = writeln!(out, "</td><td>{}</td><td>{changed}</td></tr>", v.words);
            }
            out.push_str("</table>\n");
        },
    )
}

/// The diff page of `url` between its captures `old.1` and `new.1` (the versions
/// holding them) with their word-level difference.
pub fn diff_page(
    prefix: &str,
    url: &str,
    old: (&Version, &str),
    new: (&Version, &str),
    diff: &WordDiff,
) -> String {
    page(
        &format!("What changed · {url}"),
        4096 + 2 * diff.old_words.max(diff.new_words) * 8,
        |out| {
            let side = |(v, date): (&Version, &str)| {
                format!(
                    "<a href=\"{}\">{}</a> <span class=meta>({} · {} words)</span>",
                    escape(&format(prefix, date, Mode::Frame, url)),
                    escape(&display_date(date)),
                    escape(&v.digest),
                    v.words
                )
            };
            let _ = write!(
                out,
                "<h1>What changed on {}</h1>\n<p>From {} to {}: <b>{}</b> of the words changed ({} \
                 removed, {} added){}. <a href=\"{}\">All versions</a></p>\n<p class=diff>",
                escape(url),
                side(old),
                side(new),
                escape(&percent(diff.share_changed())),
                diff.removed,
                diff.added,
                if diff.cut {
                    " — the texts were cut at their first 200,000 words"
                } else {
                    ""
                },
                escape(&history_link(url)),
            );
            for (i, run) in diff.runs.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                match run {
                    WordRun::Same(t) => out.push_str(&escape(t)),
                    WordRun::Removed(t) => {
                        let _ = write!(out, "<del>{}</del>", escape(t));
                    }
                    WordRun::Added(t) => {
                        let _ = write!(out, "<ins>{}</ins>", escape(t));
                    }
                }
            }
            out.push_str("</p>\n");
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::near::word_diff::diff_words;
    use crate::search::history::Change;

    fn version(digest: &str, dates: &[&str], changed: Option<f64>) -> Version {
        Version {
            url: "http://a.example/<x>".into(),
            digest: digest.into(),
            dates: dates.iter().map(|d| d.to_string()).collect(),
            words: 4,
            changed,
            change: if changed.is_some() {
                Change::Minor
            } else {
                Change::First
            },
        }
    }

    #[test]
    fn history_links_every_capture_and_each_change_to_its_diff() {
        let vs = [
            version(
                "sha1:A",
                &["20250301060000", "20250302060000", "20250303060000"],
                None,
            ),
            version("sha1:B", &["20250310060000"], Some(0.25)),
        ];
        let page = history_page("/web", "http://a.example/<x>", &vs);
        assert!(
            page.contains("Versions of http://a.example/&lt;x&gt;"),
            "{page}"
        );
        for d in [
            "20250301060000",
            "20250302060000",
            "20250303060000",
            "20250310060000",
        ] {
            assert!(
                page.contains(&format!("href=\"/web/{d}/http://a.example/&lt;x&gt;\"")),
                "{d}"
            );
        }
        assert!(page.contains(
            "<a href=\"/diff/20250301060000/20250310060000/http://a.example/&lt;x&gt;\">25 % · minor change</a>"
        ));
        assert!(!page.contains("<x>"));
    }

    #[test]
    fn diff_marks_removed_and_added_words_escaped() {
        let (a, b) = (
            version("sha1:A", &["20250301060000"], None),
            version("sha1:B", &["20250310060000"], Some(0.5)),
        );
        let d = diff_words("open at <nine>", "open at ten");
        let page = diff_page(
            "/web",
            "http://a.example/",
            (&a, "20250301060000"),
            (&b, "20250310060000"),
            &d,
        );
        assert!(
            page.contains("open at <del>&lt;nine&gt;</del> <ins>ten</ins>"),
            "{page}"
        );
        assert!(
            page.contains("<b>33 %</b> of the words changed (1 removed, 1 added)"),
            "{page}"
        );
        assert!(page.contains("href=\"/history/http://a.example/\""));
    }
}
