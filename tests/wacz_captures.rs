//! A collection built from a WACZ serves and exports its captures as one built from the
//! WACZ's WARCs does: every capture's original payload (`id_`), every record's bytes
//! from `/warcs/NAME` at its CDX offset and length (the WARC's own name, as the CDX gives
//! it), and a WARC export of every version, compared with the same collection made of
//! the WARCs taken out of the WACZ.

use std::path::{Path, PathBuf};

use crate::util::http::{request, Answer};
use crate::util::{fixtures, run_warcdex, start_in_process, unpack_wacz};
use warcdex::serve::ServeOptions;

fn get(addr: &str, path: &str, extra: &str) -> Answer {
    request(addr, "GET", path, extra)
}

fn update(coll: &Path, archives: &[PathBuf]) {
    let mut args: Vec<std::ffi::OsString> = vec!["update".into(), coll.into()];
    args.extend(archives.iter().map(|p| p.into()));
    let (code, _, err) = run_warcdex(&args);
    assert_eq!(code, 0, "update: {err}");
}

/// `(url, date, status, file, offset, length)` of every capture in `coll`'s `all.cdx`.
fn captures(coll: &Path) -> Vec<(String, String, String, String, u64, u64)> {
    let cdx = std::fs::read_to_string(coll.join("all.cdx")).unwrap();
    cdx.lines()
        .filter(|l| !l.starts_with(" CDX"))
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            (
                f[2].to_string(),
                f[1].to_string(),
                f[4].to_string(),
                f[10].to_string(),
                f[9].parse().unwrap(),
                f[8].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn captures_held_in_a_wacz_open_and_export_as_those_of_its_warcs() {
    let tmp = tempfile::tempdir().unwrap();
    let wacz = fixtures().join("wacz/crawl.wacz");
    let warcs = unpack_wacz(&wacz, &tmp.path().join("unpacked"));
    assert!(warcs.len() >= 2, "{warcs:?}");
    let (from_wacz, from_warcs) = (tmp.path().join("wacz"), tmp.path().join("warcs"));
    update(&from_wacz, &[wacz]);
    update(&from_warcs, &warcs);
    let caps = captures(&from_wacz);
    assert_eq!(caps, captures(&from_warcs), "the same CDX");
    assert!(caps.len() >= 4, "{caps:?}");

    let opts = || ServeOptions {
        replay_prefix: Some(warcdex::serve::VIEW_PREFIX.into()),
        ..ServeOptions::default()
    };
    let (a, b) = (
        start_in_process(&from_wacz, opts()),
        start_in_process(&from_warcs, opts()),
    );
    let mut opened = 0;
    for (url, date, status, file, offset, length) in &caps {
        // The record's bytes, by the name the CDX gives its archive.
        let range = format!("Range: bytes={offset}-{}\r\n", offset + length - 1);
        let got = get(&a, &format!("/warcs/{file}"), &range);
        assert_eq!(got.status, 206, "/warcs/{file} {range}: {}", got.text());
        let unpacked = std::fs::read(tmp.path().join("unpacked").join(file)).unwrap();
        assert_eq!(
            got.body,
            unpacked[*offset as usize..(offset + length) as usize],
            "{file} at {offset}"
        );
        // The original payload of every capture that has one.
        if status == "200" {
            let path = format!("/web/{date}id_/{url}");
            let (x, y) = (get(&a, &path, ""), get(&b, &path, ""));
            assert_eq!(x.status, 200, "{path}: {}", x.text());
            assert_eq!((x.status, &x.body), (y.status, &y.body), "{path}");
            opened += 1;
        }
    }
    assert!(opened >= 2, "{opened} captures opened");

    // A WARC export of every version holds every record, as from the WARCs.
    let export = |coll: &Path, out: &Path| {
        let (code, _, err) = run_warcdex(&[
            "export".as_ref(),
            "-d".as_ref(),
            coll.as_os_str(),
            "*".as_ref(),
            "--format".as_ref(),
            "warc".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        assert_eq!(code, 0, "export: {err}");
        err
    };
    let (ea, eb) = (tmp.path().join("a.warc.gz"), tmp.path().join("b.warc.gz"));
    let (said_a, said_b) = (export(&from_wacz, &ea), export(&from_warcs, &eb));
    assert!(said_a.contains(" 0 captures left out"), "{said_a}");
    let summary = |s: &str| s.lines().last().unwrap_or("").to_string();
    assert_eq!(summary(&said_a), summary(&said_b));
    let records = |p: &Path| {
        let (text, report) = crate::util::records_of(p, 1 << 16, Default::default());
        assert!(
            report.error.is_none(),
            "{}: {:?}",
            p.display(),
            report.error
        );
        // The warcinfo record says when the export ran; every other record is compared
        // whole (type, URL, date, digests, length, and offset from the first of them: the
        // warcinfo's gzip member is a byte longer or shorter as its date compresses).
        let lines: Vec<serde_json::Value> = (text.lines())
            .filter(|l| !l.contains("warcinfo"))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let offset =
            |v: &serde_json::Value| -> u64 { v["offset"].as_str().unwrap().parse().unwrap() };
        let base = lines.first().map_or(0, offset);
        (lines.iter())
            .map(|v| {
                let mut v = v.clone();
                v["offset"] = (offset(&v) - base).to_string().into();
                v.to_string()
            })
            .collect::<Vec<_>>()
    };
    let (ra, rb) = (records(&ea), records(&eb));
    assert!(!ra.is_empty());
    assert_eq!(ra, rb);
}
