//! sort-cdx, merge-cdx and --check on the pywb-layout worked example.

use std::io::BufRead;
use std::path::Path;

use warcdex_cdx::plumbing::{check_cdx, merge_cdx, merge_cdx_distinct, sort_cdx};

fn worked() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/dedup/worked.cdx11"),
    )
    .unwrap()
}

fn inputs(parts: &[String]) -> Vec<Box<dyn BufRead + '_>> {
    parts
        .iter()
        .map(|p| Box::new(p.as_bytes()) as Box<dyn BufRead>)
        .collect()
}

#[test]
fn sort_keeps_one_legend_and_sorts_bytewise() {
    let sorted = worked();
    let mut lines: Vec<&str> = sorted.lines().collect();
    let legend = lines.remove(0);
    let shuffled_a = format!(
        "{legend}\n{}\n",
        lines
            .iter()
            .rev()
            .step_by(2)
            .copied()
            .collect::<Vec<_>>()
            .join("\n")
    );
    let shuffled_b = format!(
        "{legend}\n{}\n",
        lines
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .copied()
            .collect::<Vec<_>>()
            .join("\n")
    );
    let mut out = Vec::new();
    let r = sort_cdx(
        inputs(&[shuffled_a.clone(), shuffled_b.clone()]),
        &mut out,
        200,
        None,
    )
    .unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), sorted);
    assert_eq!(r.lines, 10);
    assert_eq!(r.conflicting_legends, 0);
    // Not sorted: --check names the first line out of order.
    let e = check_cdx(shuffled_a.as_bytes()).unwrap().unwrap_err();
    assert_eq!(e.line, 3);
    assert_eq!(check_cdx(sorted.as_bytes()).unwrap().unwrap(), 11);
}

#[test]
fn merge_of_sorted_parts() {
    let sorted = worked();
    let mut lines: Vec<&str> = sorted.lines().collect();
    let legend = lines.remove(0);
    let a: Vec<&str> = lines.iter().step_by(2).copied().collect();
    let b: Vec<&str> = lines.iter().skip(1).step_by(2).copied().collect();
    let parts = [
        format!("{legend}\n{}\n", a.join("\n")),
        format!("{legend}\n{}", b.join("\n")),
    ];
    let mut out = Vec::new();
    let r = merge_cdx(inputs(&parts), &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), sorted);
    assert_eq!(r.lines, 10);
}

#[test]
fn merge_distinct_writes_a_line_held_by_two_inputs_once() {
    // The same CDX twice (a WARC and a WACZ holding it, whose lines name the inner
    // WARC): merge-cdx keeps both copies, the distinct merge one.
    let sorted = worked();
    let parts = vec![sorted.clone(), sorted.clone()];
    let mut out = Vec::new();
    let r = merge_cdx(inputs(&parts), &mut out).unwrap();
    assert_eq!(r.lines, 20);
    let mut out = Vec::new();
    let r = merge_cdx_distinct(inputs(&parts), &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), sorted);
    assert_eq!(r.lines, 10);
}
