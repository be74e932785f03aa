//! `warcdex mcp`: flags, then the library's MCP server over stdio (`warcdex::serve::mcp`).

use std::path::PathBuf;

use anyhow::bail;
use clap::Args;
use warcdex::access::LiveRules;
use warcdex::collection::Collection;
use warcdex::search::SearchIndex;
use warcdex::serve::ServeOptions;

use super::access::AccessFlags;

/// `warcdex mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The collection (search directory): it holds `pindexes/<name>/{main,dates}`.
    #[arg(short = 'd', long = "dir", default_value = ".")]
    pub dir: PathBuf,
    /// The access rules every call is answered under: the collection's `access.json`,
    /// and these (docs/access.md).
    #[command(flatten)]
    pub access: AccessFlags,
    /// The user (access point) every call is asked as; without it, the public.
    #[arg(long = "user", value_name = "NAME")]
    pub user: Option<String>,
    /// The address of the collection's `warcdex serve` as readers reach it
    /// (https://archive.example.org): capture-view links are made absolute with it.
    #[arg(long = "public-url")]
    pub public_url: Option<String>,
    /// Tool calls whose work runs at once (default: the cores).
    #[arg(long = "search-threads")]
    pub search_threads: Option<usize>,
}

/// Runs the MCP server on stdin and stdout until the client closes them.
pub fn run(a: McpArgs) -> anyhow::Result<i32> {
    let index = SearchIndex::open(&a.dir)?;
    if index.sets().is_empty() {
        bail!(
            "{}: no parallel set could be opened ({} refused)",
            a.dir.join("pindexes").display(),
            index.broken().len()
        );
    }
    let mut opts = ServeOptions {
        public_url: (a.public_url.as_ref()).map(|u| u.trim_end_matches('/').to_string()),
        ..ServeOptions::default()
    };
    if let Some(n) = a.search_threads {
        opts.search_threads = n.max(1);
    }
    let config = a.access.config(&a.dir)?;
    if !config.is_empty() {
        let live = LiveRules::load(config)?;
        super::access::warn(&live.current());
        live.watch(std::time::Duration::from_millis(100));
        opts.access = Some(live);
    }
    // stdout is the protocol's: whatever the server says for people goes to stderr.
    eprintln!(
        "warcdex mcp: {} set(s) of {} on stdio",
        index.sets().len(),
        a.dir.display()
    );
    warcdex::serve::mcp::serve_stdio(Collection::open(&a.dir), index, opts, a.user.as_deref())?;
    Ok(0)
}
