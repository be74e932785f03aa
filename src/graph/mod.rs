//! The link graph of a collection (`warcdex graph`, issue 46): who links to whom among
//! the versions a query selects, at the level of pages, hosts or registered domains, as
//! CSV, GEXF 1.3 or GraphML (for Gephi and networkx).
//!
//! A source is a version (URL + digest) that the query matches and the access rules
//! show ([`SearchIndex::for_each_match`], as `warcdex export` lists them), kept when one
//! of its capture dates the asker may see is in the `--from`/`--to` window (the dates
//! come from the dates index, so a version captured again in a later batch has them
//! all). Each source counts once, however often it was captured unchanged. Its links
//! are the outlinks of its segment row. An edge's weight is the number of links from
//! its source node to its target node summed over the sources; at page level it also
//! keeps the distinct anchor texts (see [`anchor_text`]; at most [`MAX_ANCHORS`] in
//! byte order, within [`MAX_ANCHOR_BYTES`] joined). Self-loops are kept at every level.
//! A link (or source) that is no http or https URL with a host is skipped and counted.
//!
//! Memory does not grow with the collection: the sources and the segments' outlinks are
//! joined through an external sort on (URL key, digest), and the edges and nodes come
//! out of two more, counted as their sorted runs go by.

mod node;
mod write;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use warcdex_cdx::{ExternalSorter, SortOptions};

use crate::access::Viewer;
use crate::progress::Progress;
use crate::search::query::parse_date;
use crate::search::{QueryError, SearchError, SearchIndex};
use crate::segment::layout::ROWS_FILE;
use crate::segment::rows::{read_rows_with, row_count, Columns};
use crate::segment::sort_safe;

pub use node::{anchor_text, node_of, safe_name, ANCHOR_BYTES};
pub use write::{xml_escape, ANCHOR_SEPARATOR};

/// Distinct anchor texts an edge keeps (the first in byte order).
pub const MAX_ANCHORS: usize = 10;

/// The most bytes of an edge's anchor texts joined by [`ANCHOR_SEPARATOR`].
pub const MAX_ANCHOR_BYTES: usize = 1024;

const _: () = assert!(
    MAX_ANCHORS * ANCHOR_BYTES + (MAX_ANCHORS - 1) * ANCHOR_SEPARATOR.len() <= MAX_ANCHOR_BYTES
);

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphLevel {
    /// A URL.
    Page,
    /// A host, lower case, without port.
    Host,
    /// A registered domain (the Public Suffix List's), or the host when it has none.
    Domain,
}

impl GraphLevel {
    /// Reads `page`, `host` or `domain`.
    pub fn parse(s: &str) -> Option<GraphLevel> {
        match s {
            "page" => Some(GraphLevel::Page),
            "host" => Some(GraphLevel::Host),
            "domain" => Some(GraphLevel::Domain),
            _ => None,
        }
    }

    /// Its name, as [`GraphLevel::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            GraphLevel::Page => "page",
            GraphLevel::Host => "host",
            GraphLevel::Domain => "domain",
        }
    }
}

/// A graph's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphFormat {
    /// An edge list with a header line, `source,target,weight[,anchors]` (RFC 4180).
    Csv,
    /// GEXF 1.3, Gephi's format: a directed graph, node ids and labels the node names.
    Gexf,
    /// GraphML: `edgedefault="directed"`, keys `label`, `weight` and `anchors`.
    Graphml,
}

impl GraphFormat {
    /// Reads `csv`, `gexf` or `graphml`.
    pub fn parse(s: &str) -> Option<GraphFormat> {
        match s {
            "csv" => Some(GraphFormat::Csv),
            "gexf" => Some(GraphFormat::Gexf),
            "graphml" => Some(GraphFormat::Graphml),
            _ => None,
        }
    }
}

/// How a graph is made.
#[derive(Debug, Clone)]
pub struct GraphOptions {
    /// What a node is.
    pub level: GraphLevel,
    /// The output's format.
    pub format: GraphFormat,
    /// Sources need a capture date at or after this one (14 digits), if given.
    pub from: Option<u64>,
    /// Sources need a capture date at or before this one (14 digits), if given.
    pub to: Option<u64>,
    /// The external sorts' memory (shared by the three) and temporary directory.
    pub sort: SortOptions,
}

/// What a graph holds, for the summary line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GraphSummary {
    /// Versions the query matched.
    pub matched: u64,
    /// Of them, the sources: those with a capture date in the window.
    pub sources: u64,
    /// Sources left out for a URL that is no http or https URL with a host.
    pub skipped_sources: u64,
    /// Links of the sources read (skipped ones included).
    pub links: u64,
    /// Links skipped for a target that is no http or https URL with a host.
    pub skipped_links: u64,
    /// Nodes written.
    pub nodes: u64,
    /// Edges written.
    pub edges: u64,
}

/// Where [`write_graph`] shows its progress.
#[derive(Clone, Copy)]
pub struct GraphProgress<'a> {
    /// The versions the query matched, one by one.
    pub versions: &'a dyn Progress,
    /// The segments' rows read (started with their total).
    pub rows: &'a dyn Progress,
}

/// Why a graph could not be made.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// The search failed (a malformed query is the user's).
    #[error(transparent)]
    Search(#[from] SearchError),
    /// A segment could not be read (its path is in the error).
    #[error(transparent)]
    Segment(#[from] crate::segment::Error),
    /// An external sort failed (a temporary file in `dir`).
    #[error("sorting the graph (temporary files in {}): {source}", dir.display())]
    Sort {
        /// The sorts' temporary directory.
        dir: PathBuf,
        /// What failed.
        source: io::Error,
    },
    /// Writing the output failed.
    #[error("writing the graph: {0}")]
    Write(#[source] io::Error),
}

/// A `--from` (`end` false: padded with 0s) or `--to` (`end` true: padded with 9s)
/// date, `YYYY[MM[DD[hh[mm[ss]]]]]`, as 14 digits.
pub fn date_bound(value: &str, end: bool) -> Result<u64, QueryError> {
    let flag = if end { "--to" } else { "--from" };
    if value.contains('-') {
        return Err(QueryError(format!(
            "{flag} {value}: a date is 4 to 14 digits (YYYY[MM[DD[hh[mm[ss]]]]])"
        )));
    }
    let range = parse_date(value).map_err(|e| {
        let said = e.0.replacen("date:", &format!("{flag} "), 1);
        QueryError(said.replace(", or two joined by '-'", ""))
    })?;
    Ok(if end { range.to } else { range.from })
}

/// The search index of the collection in `dir`, as [`write_graph`] reads it: through
/// `pindex::directory::ReleasingDirectory` ([`SearchIndex::open_released`]), so that
/// the pages read do not stay resident.
///
/// Why: each version's stored fields are read once, but with the server's mapping every
/// page read (and opening reads every file, for its checksum) stayed in the process until
/// it ended, so the peak held the whole index, which grows with the collection and with
/// its links (their anchors are stored with their targets): on the bench's three crawls
/// at `--memory 64`, 67 MiB of a 145 MiB peak, about 50 bytes a link.
pub fn open_index(dir: &Path) -> io::Result<SearchIndex> {
    SearchIndex::open_released(dir)
}

/// An I/O error inside a sort, told apart from the output's (stashed by the callback).
struct Failure {
    dir: PathBuf,
    write: Option<io::Error>,
}

impl Failure {
    fn new(opts: &SortOptions) -> Failure {
        Failure {
            dir: opts.tmp_dir.clone().unwrap_or_else(std::env::temp_dir),
            write: None,
        }
    }

    /// The output's error, stashed; the sort stops with a stand-in.
    fn output(&mut self, e: io::Error) -> io::Error {
        self.write = Some(e);
        io::Error::other("the output failed")
    }

    /// The error a sort (or its callback) ended with.
    fn of(&mut self, e: io::Error) -> GraphError {
        match self.write.take() {
            Some(w) => GraphError::Write(w),
            None => GraphError::Sort {
                dir: self.dir.clone(),
                source: e,
            },
        }
    }
}

/// The fields of a sort line, split on `\x01`.
fn fields(line: &[u8]) -> Vec<&str> {
    // The lines were built from `str`s and `\x01`s: splitting on an ASCII byte keeps
    // them UTF-8.
    std::str::from_utf8(line)
        .unwrap_or_default()
        .split('\x01')
        .collect()
}

/// Writes the link graph of the versions matching `query` that `viewer` may see to
/// `out`: their outlinks read from `segments` (every segment of the collection, so
/// that each source finds its row), at `opts.level`, as `opts.format`.
pub fn write_graph(
    index: &SearchIndex,
    query: &str,
    viewer: Option<&Viewer>,
    segments: &[PathBuf],
    opts: &GraphOptions,
    out: &mut dyn Write,
    progress: GraphProgress<'_>,
) -> Result<GraphSummary, GraphError> {
    let mut summary = GraphSummary::default();
    let part = SortOptions {
        memory: (opts.sort.memory / 3).max(1 << 20),
        tmp_dir: opts.sort.tmp_dir.clone(),
        unique: false,
    };
    let mut failure = Failure::new(&part);
    let mut join = ExternalSorter::new(part.clone());

    // 1. The sources: `URLKEY \x01 DIGEST \x01 0 \x01 URL`.
    let window = opts.from.is_some() || opts.to.is_some();
    let (from, to) = (opts.from.unwrap_or(0), opts.to.unwrap_or(u64::MAX));
    let mut line = String::new();
    let mut pushed: Option<io::Error> = None;
    let matched = index.for_each_match(query, viewer, false, |v| {
        progress.versions.advance(1);
        let dated = |d: &String| d.parse::<u64>().is_ok_and(|d| (from..=to).contains(&d));
        if window && !v.dates.iter().any(dated) {
            return Ok(());
        }
        line.clear();
        line.push_str(&sort_safe(&v.urlkey));
        line.push('\x01');
        line.push_str(&sort_safe(&v.digest));
        line.push_str("\x010\x01");
        line.push_str(&safe_name(&v.url));
        join.push(line.as_bytes()).map_err(|e| {
            pushed = Some(e);
            io::Error::other("the sort failed")
        })
    });
    if let Some(e) = pushed {
        return Err(failure.of(e));
    }
    summary.matched = matched?;

    // 2. Every row's links: `URLKEY \x01 DIGEST \x01 1 \x01 FIRST_DATE \x01 SEGMENT \x01
    //    TARGET \x01 ANCHOR` (the row's first date and segment tell two rows of one
    //    version apart: the earliest is taken, as the index takes it).
    let mut total = 0;
    for seg in segments {
        total += row_count(&seg.join(ROWS_FILE))?;
    }
    progress.rows.start(total);
    let page = opts.level == GraphLevel::Page;
    for (i, seg) in segments.iter().enumerate() {
        for row in read_rows_with(&seg.join(ROWS_FILE), Columns::WithoutText)? {
            let row = row?;
            progress.rows.advance(1);
            for link in &row.outlinks {
                line.clear();
                line.push_str(&sort_safe(&row.urlkey));
                line.push('\x01');
                line.push_str(&sort_safe(&row.digest));
                line.push_str("\x011\x01");
                line.push_str(&sort_safe(&row.first_date));
                line.push_str(&format!("\x01{i:010}\x01"));
                line.push_str(&safe_name(&link.url));
                line.push('\x01');
                if page {
                    line.push_str(&anchor_text(&link.anchor));
                }
                join.push(line.as_bytes()).map_err(|e| failure.of(e))?;
            }
        }
    }
    progress.rows.finish();

    // 3. The join: each source's node, and its links as `SOURCE \x01 TARGET \x01 ANCHOR`.
    let mut edges = ExternalSorter::new(part.clone());
    let mut nodes = ExternalSorter::new(SortOptions {
        unique: true,
        ..part.clone()
    });
    let mut version = String::new();
    let mut source: Option<Option<String>> = None;
    let mut chosen = String::new();
    join.finish_with(|l| {
        let f = fields(l);
        let (key, tag) = (f[..2].join("\x01"), f[2]);
        if key != version {
            version = key;
            source = None;
            chosen.clear();
        }
        if tag == "0" {
            if source.is_none() {
                summary.sources += 1;
                let n = node_of(f[3], opts.level);
                match &n {
                    Some(n) => nodes.push(n.as_bytes())?,
                    None => summary.skipped_sources += 1,
                }
                source = Some(n);
            }
            return Ok(());
        }
        let Some(Some(src)) = &source else {
            return Ok(());
        };
        let row = format!("{}\x01{}", f[3], f[4]);
        if chosen.is_empty() {
            chosen = row;
        } else if chosen != row {
            return Ok(());
        }
        summary.links += 1;
        let Some(target) = node_of(f[5], opts.level) else {
            summary.skipped_links += 1;
            return Ok(());
        };
        nodes.push(target.as_bytes())?;
        edges.push(format!("{src}\x01{target}\x01{}", f[6]).as_bytes())
    })
    .map_err(|e| failure.of(e))?;

    // 4. The nodes, then the edges (runs of one source and target).
    let mut w = write::GraphWriter::begin(out, opts.format, opts.level.name(), page)
        .map_err(GraphError::Write)?;
    summary.nodes = nodes
        .finish_with(|n| {
            let n = std::str::from_utf8(n).unwrap_or_default();
            w.node(n).map_err(|e| failure.output(e))
        })
        .map_err(|e| failure.of(e))?;
    w.end_nodes().map_err(GraphError::Write)?;
    let mut run = EdgeRun::default();
    edges
        .finish_with(|l| {
            let f = fields(l);
            if run.weight > 0 && (run.source != f[0] || run.target != f[1]) {
                run.write(&mut w).map_err(|e| failure.output(e))?;
                summary.edges += 1;
            }
            run.add(f[0], f[1], f[2]);
            Ok(())
        })
        .map_err(|e| failure.of(e))?;
    if run.weight > 0 {
        run.write(&mut w).map_err(GraphError::Write)?;
        summary.edges += 1;
    }
    w.finish().map_err(GraphError::Write)?;
    Ok(summary)
}

/// The edge being counted: its ends, links so far and distinct anchors.
#[derive(Default)]
struct EdgeRun {
    source: String,
    target: String,
    weight: u64,
    anchors: Vec<String>,
}

impl EdgeRun {
    /// One more link (its anchors come in byte order, so a repeat is the last one).
    fn add(&mut self, source: &str, target: &str, anchor: &str) {
        if self.weight == 0 {
            self.source.clear();
            self.source.push_str(source);
            self.target.clear();
            self.target.push_str(target);
            self.anchors.clear();
        }
        self.weight += 1;
        let new = self.anchors.last().is_none_or(|a| a != anchor);
        if !anchor.is_empty() && new && self.anchors.len() < MAX_ANCHORS {
            self.anchors.push(anchor.to_string());
        }
    }

    fn write(&mut self, w: &mut write::GraphWriter<'_>) -> io::Result<()> {
        let r = w.edge(&self.source, &self.target, self.weight, &self.anchors);
        self.weight = 0;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Resident kB of the mappings of files under `dir` (this process's page table,
    /// /proc/self/smaps).
    #[cfg(target_os = "linux")]
    fn resident_kb_under(dir: &Path) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let dir = dir.to_string_lossy();
        let mut inside = false;
        let mut kb = 0;
        for line in smaps.lines() {
            let mut words = line.split_whitespace();
            let first = words.next().unwrap_or_default();
            if first.contains('-') && first.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
                inside = words.nth(4).is_some_and(|path| path.starts_with(&*dir));
            } else if inside && first == "Rss:" {
                kb += words
                    .next()
                    .and_then(|n| n.parse::<u64>().ok())
                    .unwrap_or(0);
            }
        }
        kb
    }

    /// The index a graph reads leaves no page of its files resident once read: opening
    /// alone reads every file (the checksums), and with the server's mapping those pages
    /// stayed, so a graph's peak grew with the index.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_index_a_graph_reads_does_not_stay_resident() {
        let dir = tempfile::tempdir().unwrap();
        crate::testing::build_fixture_index(dir.path(), "example", "example").unwrap();
        let pindexes = dir.path().join("pindexes");
        let index = open_index(dir.path()).unwrap();
        assert!(index.broken().is_empty());
        // Pages are dropped every RELEASE_PERIOD; on a loaded machine that can take longer.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut resident = resident_kb_under(&pindexes);
        while resident > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
            resident = resident_kb_under(&pindexes);
        }
        assert_eq!(resident, 0, "kB of the index's files still resident");
        drop(index);
    }

    #[test]
    fn date_bounds_pad_as_date_filters_do() {
        assert_eq!(date_bound("2007", false).unwrap(), 20070000000000);
        assert_eq!(date_bound("2007", true).unwrap(), 20079999999999);
        assert_eq!(date_bound("200710", true).unwrap(), 20071099999999);
        assert_eq!(date_bound("20071004120000", false).unwrap(), 20071004120000);
        let e = date_bound("2007-2008", false).unwrap_err();
        assert!(e.0.starts_with("--from 2007-2008:"), "{e}");
        let e = date_bound("20071301", true).unwrap_err();
        assert!(e.0.starts_with("--to 20071301: month 13"), "{e}");
        assert!(date_bound("207", false).is_err());
    }

    #[test]
    fn an_edge_keeps_ten_distinct_anchors_and_counts_every_link() {
        let mut out = Vec::new();
        let mut w = write::GraphWriter::begin(&mut out, GraphFormat::Csv, "page", true).unwrap();
        let mut run = EdgeRun::default();
        // In byte order, as the sort hands them: empty first, repeats together.
        let mut anchors = vec![String::new(), String::new()];
        for i in 0..12 {
            anchors.push(format!("a{i:02}"));
            anchors.push(format!("a{i:02}"));
        }
        for a in &anchors {
            run.add("s", "t", a);
        }
        assert_eq!(run.weight, 26);
        run.write(&mut w).unwrap();
        run.add("s", "u", "");
        run.write(&mut w).unwrap();
        w.finish().unwrap();
        let text = String::from_utf8(out).unwrap();
        let kept: Vec<String> = (0..10).map(|i| format!("a{i:02}")).collect();
        assert_eq!(
            text,
            format!(
                "source,target,weight,anchors\r\ns,t,26,{}\r\ns,u,1,\r\n",
                kept.join(" | ")
            )
        );
    }
}
