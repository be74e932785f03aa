//! The external sorter and the merge must agree with an in-memory sort
//! (`Vec::sort` on bytes is exactly C byte order) whatever the memory budget,
//! i.e. however the lines are cut into runs.

use proptest::prelude::*;
use warcdex_cdx::{check_sorted, merge_sorted, ExternalSorter, SortOptions};

/// A few stems and a small alphabet, so that lines often share prefixes, are
/// prefixes of each other, or are equal; high bytes and `\r` test byte order.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let stem = prop::sample::select(vec![&b""[..], b"a", b"ab", b"com,example)/", b"\xc3\xa9"]);
    let tail = prop::collection::vec(
        prop::sample::select(vec![
            b'a', b'b', b' ', b'\r', b'\0', b'~', 0x7f, 0x80, 0xc3, 0xff,
        ]),
        0..6,
    );
    (stem, tail).prop_map(|(stem, tail)| [stem, &tail[..]].concat())
}

fn lines() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(line(), 0..200)
}

fn collect(f: impl FnOnce(&mut dyn FnMut(&[u8]) -> std::io::Result<()>) -> u64) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let n = f(&mut |l| {
        out.push(l.to_vec());
        Ok(())
    });
    assert_eq!(n, out.len() as u64);
    out
}

proptest! {
    #[test]
    fn external_sort_matches_vec_sort(v in lines(), memory in 0usize..600, unique: bool) {
        let dir = tempfile::tempdir().unwrap();
        let mut sorter = ExternalSorter::new(SortOptions {
            memory,
            tmp_dir: Some(dir.path().to_path_buf()),
            unique,
        });
        for l in &v {
            sorter.push(l).unwrap();
        }
        prop_assert_eq!(sorter.len(), v.len() as u64);
        let got = collect(|f| sorter.finish_with(f).unwrap());
        let mut want = v.clone();
        want.sort();
        if unique {
            want.dedup();
        }
        prop_assert_eq!(got, want);
        prop_assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn finish_into_output_is_checked_sorted(v in lines(), memory in 0usize..600, unique: bool) {
        let mut sorter = ExternalSorter::new(SortOptions { memory, tmp_dir: None, unique });
        for l in &v {
            sorter.push(l).unwrap();
        }
        let mut out = Vec::new();
        let n = sorter.finish_into(&mut out).unwrap();
        prop_assert_eq!(check_sorted(&out[..], unique).unwrap(), Ok(n));
    }

    #[test]
    fn merge_of_sorted_chunks_matches_full_sort(
        v in lines(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        no_final_newline in prop::collection::vec(any::<bool>(), 9),
        unique: bool,
    ) {
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c.index(v.len() + 1)).collect();
        bounds.push(0);
        bounds.push(v.len());
        bounds.sort();
        let inputs: Vec<Vec<u8>> = bounds
            .windows(2)
            .zip(&no_final_newline)
            .map(|(w, &no_nl)| {
                let mut chunk = v[w[0]..w[1]].to_vec();
                chunk.sort();
                let mut text = Vec::new();
                for l in &chunk {
                    text.extend_from_slice(l);
                    text.push(b'\n');
                }
                // Only a non-empty last line survives losing its newline.
                if no_nl && chunk.last().is_some_and(|l| !l.is_empty()) {
                    text.pop();
                }
                text
            })
            .collect();
        let readers: Vec<&[u8]> = inputs.iter().map(|t| &t[..]).collect();
        let got = collect(|f| merge_sorted(readers, unique, f).unwrap());
        let mut want = v.clone();
        want.sort();
        if unique {
            want.dedup();
        }
        prop_assert_eq!(got, want);
    }

    #[test]
    fn check_sorted_agrees_with_is_sorted(v in lines(), unique: bool) {
        let mut text = Vec::new();
        for l in &v {
            text.extend_from_slice(l);
            text.push(b'\n');
        }
        let got = check_sorted(&text[..], unique).unwrap();
        let first_bad = v.windows(2).position(|w| if unique { w[0] >= w[1] } else { w[0] > w[1] });
        match first_bad {
            None => prop_assert_eq!(got, Ok(v.len() as u64)),
            Some(i) => {
                let err = got.unwrap_err();
                prop_assert_eq!(err.line, i as u64 + 2);
                prop_assert_eq!(&err.previous, &v[i]);
                prop_assert_eq!(&err.current, &v[i + 1]);
            }
        }
    }
}
