//! `warcdex graph`: the link graph of a collection, as CSV, GEXF or GraphML.

use std::path::PathBuf;

use clap::Args;
use warcdex::collection::layout::Layout;
use warcdex::collection::manifest::read_manifest;
use warcdex::graph::{
    date_bound, open_index, write_graph, GraphFormat, GraphLevel, GraphOptions, GraphProgress,
};
use warcdex_cdx::SortOptions;

use super::access::AccessFlags;
use super::{MemoryFlags, OutputFlag};

/// What `warcdex graph --help` says after the flags (docs/guide.md, "The link graph").
pub const GRAPH_HELP: &str = "\
What the graph holds:
  sources  the versions (URL + digest) --query matches and the access rules show, as
           `warcdex export` lists them; with --from/--to, those with a capture date in
           the window (any of its dates, from the dates index, later batches included).
           A version captured ten times unchanged counts once.
  nodes    page: URLs as stored (targets resolved, without fragment); host: the host in
           lower case, without port (www. kept); domain: the registered domain by the
           Public Suffix List (an IP address, or a host without one, stays the host).
           Every source's node is in the graph, with or without links.
  edges    source node -> target node; weight: the number of links, summed over the
           sources; page level: the distinct anchor texts (white space collapsed, each
           cut to 96 bytes, the first 10 in byte order, joined by \" | \"). Self-loops are
           kept. Links to anything but an http(s) URL with a host (ftp:; the import
           already drops mailto: and javascript:) are skipped and counted in the
           summary on stderr.
Formats: csv (source,target,weight[,anchors]: an edge list), gexf (GEXF 1.3, Gephi),
graphml (networkx, Gephi, yEd).";

/// `warcdex graph`.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// The collection (made by `warcdex update`).
    pub coll: PathBuf,
    /// What a node is: page (a URL), host or domain (a registered domain).
    #[arg(long, default_value = "page", value_parser = parse_level)]
    pub level: GraphLevel,
    /// csv (an edge list), gexf (GEXF 1.3) or graphml.
    #[arg(long, default_value = "csv", value_parser = parse_format)]
    pub format: GraphFormat,
    /// The sources: the versions this query matches, as `warcdex search` takes it
    /// (filters, `as-of:` included); `*` is every version.
    #[arg(long, default_value = "*")]
    pub query: String,
    /// Only sources with a capture date at or after this one, YYYY[MM[DD[hh[mm[ss]]]]]
    /// (padded with 0s).
    #[arg(long, value_name = "DATE")]
    pub from: Option<String>,
    /// Only sources with a capture date at or before this one (padded with 9s: --to 2007
    /// is up to the end of 2007).
    #[arg(long, value_name = "DATE")]
    pub to: Option<String>,
    #[command(flatten)]
    pub output: OutputFlag,
    #[command(flatten)]
    pub memory: MemoryFlags,
    /// The access rules: the collection's `access.json`, and these (docs/access.md).
    #[command(flatten)]
    pub access: AccessFlags,
    /// As this user (access point) of the rules; none: the public.
    #[arg(long)]
    pub user: Option<String>,
}

fn parse_level(s: &str) -> Result<GraphLevel, String> {
    GraphLevel::parse(s).ok_or_else(|| format!("{s:?}: page, host or domain"))
}

fn parse_format(s: &str) -> Result<GraphFormat, String> {
    GraphFormat::parse(s).ok_or_else(|| format!("{s:?}: csv, gexf or graphml"))
}

/// Runs `warcdex graph`: 0, or 2 for a malformed query or date.
pub fn run(a: GraphArgs) -> anyhow::Result<i32> {
    a.memory.check()?;
    let bounds = (
        a.from.as_deref().map(|d| date_bound(d, false)).transpose(),
        a.to.as_deref().map(|d| date_bound(d, true)).transpose(),
    );
    let (from, to) = match bounds {
        (Ok(f), Ok(t)) => (f, t),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("warcdex: {e}");
            return Ok(2);
        }
    };
    if let (Some(f), Some(t)) = (from, to) {
        if f > t {
            eprintln!("warcdex: --from is after --to: no version can be in the window");
            return Ok(2);
        }
    }
    let Some(manifest) = read_manifest(&a.coll)? else {
        anyhow::bail!(
            "{}: not a collection (no collection.json; make one with `warcdex update`)",
            a.coll.display()
        );
    };
    let layout = Layout::new(&a.coll);
    let segments: Vec<PathBuf> = (manifest.batches.iter())
        .map(|b| layout.segment(&b.name))
        .collect();
    let index = open_index(&a.coll)?;
    let viewer = a.access.viewer(&a.coll, a.user.as_deref())?;
    let Some(total) = super::export::matches_total(&index, &a.query, viewer.as_ref())? else {
        return Ok(2);
    };
    let opts = GraphOptions {
        level: a.level,
        format: a.format,
        from,
        to,
        sort: SortOptions {
            memory: a.memory.bytes(4),
            tmp_dir: a.memory.tmp_dir.clone(),
            unique: false,
        },
    };
    let versions = warcdex::progress::count_bar(total, "graph: sources", "versions");
    let rows = warcdex::progress::count_bar(0, "graph: links", "rows");
    let progress = GraphProgress {
        versions: &versions,
        rows: &rows,
    };
    let s = super::with_output(a.output.output.as_deref(), |out| {
        let s = write_graph(
            &index,
            &a.query,
            viewer.as_ref(),
            &segments,
            &opts,
            out,
            progress,
        );
        s.map_err(anyhow::Error::new)
    })?;
    versions.finish_and_clear();
    rows.finish_and_clear();
    eprintln!(
        "warcdex graph: {} sources ({} versions matched{}), {} nodes, {} edges ({} level); \
         {} links, {} skipped (not http(s)){}",
        s.sources,
        s.matched,
        match (from, to) {
            (None, None) => String::new(),
            _ => ", the others outside --from/--to".to_string(),
        },
        s.nodes,
        s.edges,
        a.level.name(),
        s.links,
        s.skipped_links,
        match s.skipped_sources {
            0 => String::new(),
            n => format!("; {n} sources skipped (not http(s))"),
        }
    );
    Ok(0)
}
