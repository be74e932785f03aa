//! Identity across a whole collection (docs/design.md §2: a version is a URL key + payload
//! digest, never a URL): from the collection's sorted CDX, the exclusion list of the whole
//! collection (`all.dup`, exactly what `dedup-cdx` writes) and the batch's own exclusions:
//! the captures of the batch's archives that are not new versions.
//!
//! A capture of the batch is excluded when its URL key + digest already has a capture in
//! an earlier batch that is not a revisit record (the version exists there and keeps it;
//! the capture only adds its date), or when an earlier capture of the batch has them (as
//! `dedup-cdx` would). So a
//! crawl added after a later one never makes a second document of a version; when batches
//! come in date order this is exactly `dedup-cdx`'s list restricted to the batch.

use std::io::{self, BufRead, Write};

use warcdex_cdx::dedup::{parse_capture, project_dedup};
use warcdex_cdx::sort::{ExternalSorter, SortOptions};

/// What [`exclusions`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IdentityCounts {
    /// Lines of `all.dup`.
    pub collection_exclusions: u64,
    /// Lines of the batch's exclusion list.
    pub batch_exclusions: u64,
    /// Of those, captures of versions that an earlier batch holds.
    pub of_earlier_versions: u64,
    /// CDX lines that could not be parsed (each is also reported by `cdx`).
    pub broken: u64,
}

/// Reads the collection's CDX as it was before the batch (`earlier`) and the batch's
/// (`batch`: each new archive's CDX) and writes `all.dup` (of both together) to
/// `collection_dup` and the batch's exclusions (`URLKEY sha1:DIGEST DATE14 FILE`,
/// sorted) to `batch_dup`.
///
/// A line is the batch's because it comes from a batch input, never because of its file
/// name: a WACZ's lines name its inner WARCs, which may be the names of archives that
/// earlier batches added (the same WARC added plainly, or packed in another WACZ), so
/// the same capture can sit on both sides under one name.
pub fn exclusions<E: BufRead, B: BufRead>(
    earlier: impl IntoIterator<Item = E>,
    batch: impl IntoIterator<Item = B>,
    sort: SortOptions,
    collection_dup: &mut dyn Write,
    batch_dup: &mut dyn Write,
) -> io::Result<IdentityCounts> {
    let mut sorter = ExternalSorter::new(SortOptions {
        unique: true,
        ..sort
    });
    let mut counts = IdentityCounts::default();
    for input in earlier {
        project_into(input, false, &mut sorter, &mut counts)?;
    }
    for input in batch {
        project_into(input, true, &mut sorter, &mut counts)?;
    }
    let mut w = GroupWalk {
        current: Vec::new(),
        current_in_batch: false,
        current_holds: false,
        group: Vec::new(),
        first: Vec::new(),
        first_in_batch: false,
        earlier: false,
        pending: Vec::new(),
        collection_dup,
        batch_dup,
        counts,
    };
    sorter.finish_with(|line| w.line(line))?;
    w.finish()?;
    Ok(w.counts)
}

/// Pushes the `dedup-cdx` projection of every capture of `cdx` into `sorter`, tagged
/// with where it comes from and whether it is a revisit record.
fn project_into(
    cdx: impl BufRead,
    in_batch: bool,
    sorter: &mut ExternalSorter,
    counts: &mut IdentityCounts,
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(512);
    for line in cdx.split(b'\n') {
        let line = line?;
        let text = String::from_utf8_lossy(&line);
        match parse_capture(&text) {
            Ok(Some(c)) => {
                buf.clear();
                project_dedup(&c, &mut buf);
                // A tab sorts before every character of a file name, so a tagged line
                // stays where the untagged one would be, next to its other copies.
                if in_batch {
                    buf.extend_from_slice(BATCH_TAG);
                }
                if c.revisit {
                    buf.extend_from_slice(REVISIT_TAG);
                }
                sorter.push(&buf)?;
            }
            Ok(None) => {}
            Err(_) if text.trim().is_empty() => {}
            Err(_) => counts.broken += 1,
        }
    }
    Ok(())
}

/// The walk over the sorted, projected lines, one group (URL key + digest) at a time.
/// The copies of one projected line (from the batch and from earlier batches, revisit
/// or not: `sort -u` makes them one line of the lists) are gathered first.
struct GroupWalk<'a> {
    /// The projected line being gathered, untagged.
    current: Vec<u8>,
    /// One of its copies comes from the batch.
    current_in_batch: bool,
    /// One of its copies comes from an earlier batch and is not a revisit record.
    current_holds: bool,
    group: Vec<u8>,
    /// The group's first (earliest) line.
    first: Vec<u8>,
    first_in_batch: bool,
    /// A capture of the group that is not a revisit comes from an earlier batch: the
    /// version is held there (a revisit alone holds no version).
    earlier: bool,
    /// Later lines of the batch held (in order) while the first is the batch's and no
    /// earlier batch's line has been seen: written at the group's end either way, after
    /// the first if it turns out to be excluded too, so the list stays sorted.
    pending: Vec<Vec<u8>>,
    collection_dup: &'a mut dyn Write,
    batch_dup: &'a mut dyn Write,
    counts: IdentityCounts,
}

impl GroupWalk<'_> {
    fn line(&mut self, tagged: &[u8]) -> io::Result<()> {
        let (rest, revisit) = match tagged.strip_suffix(REVISIT_TAG) {
            Some(l) => (l, true),
            None => (tagged, false),
        };
        let (line, in_batch) = match rest.strip_suffix(BATCH_TAG) {
            Some(l) => (l, true),
            None => (rest, false),
        };
        let holds = !in_batch && !revisit;
        if line != self.current.as_slice() {
            self.flush()?;
            self.current.clear();
            self.current.extend_from_slice(line);
        }
        self.current_in_batch |= in_batch;
        self.current_holds |= holds;
        Ok(())
    }

    /// The walk's end: the last line and its group.
    fn finish(&mut self) -> io::Result<()> {
        self.flush()?;
        self.end_group()
    }

    /// Takes the gathered line (if any) into its group.
    fn flush(&mut self) -> io::Result<()> {
        if self.current.is_empty() {
            return Ok(());
        }
        let line = std::mem::take(&mut self.current);
        let (in_batch, holds) = (self.current_in_batch, self.current_holds);
        self.current_in_batch = false;
        self.current_holds = false;
        self.distinct(&line, in_batch, holds)?;
        self.current = line;
        self.current.clear();
        Ok(())
    }

    /// One distinct projected line: `in_batch` when the batch has that capture, `holds`
    /// when an earlier batch has it as a record that holds a version.
    fn distinct(&mut self, line: &[u8], in_batch: bool, holds: bool) -> io::Result<()> {
        if group_prefix(line) != self.group.as_slice() {
            self.end_group()?;
            self.group.clear();
            self.group.extend_from_slice(group_prefix(line));
            self.first.clear();
            self.first.extend_from_slice(line);
            self.first_in_batch = in_batch;
            self.earlier = false;
            if holds {
                // The batch's copy of a capture an earlier batch holds only adds its
                // date (already there): excluded too.
                self.held_earlier()?;
            }
            return Ok(());
        }
        write_line(self.collection_dup, line)?;
        self.counts.collection_exclusions += 1;
        if holds {
            self.held_earlier()?;
        }
        if in_batch {
            if self.earlier {
                write_line(self.batch_dup, line)?;
                self.counts.batch_exclusions += 1;
                self.counts.of_earlier_versions += 1;
            } else {
                self.pending.push(line.to_vec());
            }
        }
        Ok(())
    }

    /// The group's version turns out to be an earlier batch's: the batch's captures of
    /// it, its first included, only add dates.
    fn held_earlier(&mut self) -> io::Result<()> {
        if self.earlier {
            return Ok(());
        }
        self.earlier = true;
        if self.first_in_batch {
            write_line(self.batch_dup, &self.first)?;
            self.counts.batch_exclusions += 1;
            self.counts.of_earlier_versions += 1;
        }
        for p in std::mem::take(&mut self.pending) {
            write_line(self.batch_dup, &p)?;
            self.counts.batch_exclusions += 1;
            self.counts.of_earlier_versions += 1;
        }
        Ok(())
    }

    fn end_group(&mut self) -> io::Result<()> {
        for p in std::mem::take(&mut self.pending) {
            write_line(self.batch_dup, &p)?;
            self.counts.batch_exclusions += 1;
        }
        Ok(())
    }
}

fn write_line(out: &mut dyn Write, line: &[u8]) -> io::Result<()> {
    out.write_all(line)?;
    out.write_all(b"\n")
}

/// Appended to the projected line of a revisit record.
const REVISIT_TAG: &[u8] = b"\tR";

/// Appended to the projected line of a capture of the batch (before [`REVISIT_TAG`]).
const BATCH_TAG: &[u8] = b"\tB";

/// `URLKEY sha1:DIGEST`: everything before the second space.
fn group_prefix(line: &[u8]) -> &[u8] {
    match memchr::memchr_iter(b' ', line).nth(1) {
        Some(i) => &line[..i],
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEGEND: &str = " CDX N b a m s k r M S V g";

    fn line(key: &str, date: &str, digest: &str, file: &str) -> String {
        format!("{key} {date} http://x/ text/html 200 {digest} - - 100 0 {file}")
    }

    /// The identity of `lines`, those whose file is one of `batch` read as the batch's.
    fn run(lines: &[String], batch: &[&str]) -> (String, String, IdentityCounts) {
        let (mut earlier, mut mine) = (format!("{LEGEND}\n"), format!("{LEGEND}\n"));
        for l in lines {
            let file = l.rsplit(' ').next().unwrap();
            let to = if batch.contains(&file) {
                &mut mine
            } else {
                &mut earlier
            };
            to.push_str(l);
            to.push('\n');
        }
        run_inputs(&[&earlier], &[&mine])
    }

    /// The identity of CDX texts read as the earlier batches' and the batch's.
    fn run_inputs(earlier: &[&str], batch: &[&str]) -> (String, String, IdentityCounts) {
        let (mut all, mut mine) = (Vec::new(), Vec::new());
        let c = exclusions(
            earlier.iter().map(|t| t.as_bytes()),
            batch.iter().map(|t| t.as_bytes()),
            SortOptions::default(),
            &mut all,
            &mut mine,
        )
        .unwrap();
        (
            String::from_utf8(all).unwrap(),
            String::from_utf8(mine).unwrap(),
            c,
        )
    }

    #[test]
    fn a_later_batch_capture_of_a_held_version_is_excluded() {
        let lines = [
            line("a)/", "20200101000000", "AAAA", "old.warc"),
            line("a)/", "20210101000000", "AAAA", "new.warc"),
            line("a)/", "20210101000000", "BBBB", "new.warc"),
            line("a)/", "20210201000000", "BBBB", "new.warc"),
        ];
        let (all, mine, c) = run(&lines, &["new.warc"]);
        assert_eq!(
            all,
            "a)/ sha1:AAAA 20210101000000 new.warc\na)/ sha1:BBBB 20210201000000 new.warc\n"
        );
        assert_eq!(all, mine);
        assert_eq!((c.batch_exclusions, c.of_earlier_versions), (2, 1));
    }

    #[test]
    fn an_earlier_capture_in_a_later_batch_only_adds_its_date() {
        // The batch brings a capture older than the one an earlier batch holds: the
        // collection's list names the held one (it is not the first any more), and the
        // batch excludes its own captures of that version, first included, in order.
        let lines = [
            line("a)/", "20190101000000", "AAAA", "new.warc"),
            line("a)/", "20190601000000", "AAAA", "new.warc"),
            line("a)/", "20200101000000", "AAAA", "old.warc"),
            line("b)/", "20190101000000", "CCCC", "new.warc"),
        ];
        let (all, mine, c) = run(&lines, &["new.warc"]);
        assert_eq!(
            all,
            "a)/ sha1:AAAA 20190601000000 new.warc\na)/ sha1:AAAA 20200101000000 old.warc\n"
        );
        assert_eq!(
            mine,
            "a)/ sha1:AAAA 20190101000000 new.warc\na)/ sha1:AAAA 20190601000000 new.warc\n"
        );
        assert_eq!((c.batch_exclusions, c.of_earlier_versions), (2, 2));
    }

    #[test]
    fn an_earlier_revisit_holds_no_version() {
        // Only a revisit of the version came first (a crawl of revisits added before the
        // crawl of the original): the batch's first capture is the version.
        let mut revisit = line("a)/", "20200101000000", "AAAA", "old.warc");
        revisit = revisit.replace("text/html", "warc/revisit");
        let lines = [
            line("a)/", "20190101000000", "AAAA", "new.warc"),
            line("a)/", "20190601000000", "AAAA", "new.warc"),
            revisit,
        ];
        let (all, mine, c) = run(&lines, &["new.warc"]);
        assert_eq!(
            all,
            "a)/ sha1:AAAA 20190601000000 new.warc\na)/ sha1:AAAA 20200101000000 old.warc\n"
        );
        assert_eq!(mine, "a)/ sha1:AAAA 20190601000000 new.warc\n");
        assert_eq!((c.batch_exclusions, c.of_earlier_versions), (1, 0));
    }

    #[test]
    fn the_same_capture_under_one_name_in_both_is_the_earlier_batchs() {
        // A WACZ's lines name its inner WARC, which an earlier batch added as a plain
        // file (or the reverse): the same line on both sides. Every capture of the
        // batch is held already, the first included.
        let lines = [
            line("a)/", "20200101000000", "AAAA", "data.warc.gz"),
            line("a)/", "20200201000000", "AAAA", "data.warc.gz"),
            line("b)/", "20200101000000", "BBBB", "data.warc.gz"),
        ];
        let text = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
        let (all, mine, c) = run_inputs(&[&text], &[&text]);
        assert_eq!(all, "a)/ sha1:AAAA 20200201000000 data.warc.gz\n");
        assert_eq!(
            mine,
            "a)/ sha1:AAAA 20200101000000 data.warc.gz\n\
             a)/ sha1:AAAA 20200201000000 data.warc.gz\n\
             b)/ sha1:BBBB 20200101000000 data.warc.gz\n"
        );
        assert_eq!((c.batch_exclusions, c.of_earlier_versions), (3, 3));
        // Within one batch (a WACZ and its WARC added together) the first stays.
        let (all2, mine2, _) = run_inputs(&[], &[&text, &text]);
        assert_eq!(all2, all);
        assert_eq!(mine2, all);
    }
}
