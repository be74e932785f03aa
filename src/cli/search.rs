//! `warcdex search` and `warcdex serve`: flags, then the library (`warcdex::search`,
//! `warcdex::serve`).

use std::io::{self, BufWriter, Write};
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;

use warcdex::search::{json, text, SearchIndex, SearchRequest, DEFAULT_HITS_PER_SITE};
use warcdex::serve::{router, serve, ServeOptions};

/// The Wayback URL form used for replay links unless `--replay-prefix` says otherwise.
const DEFAULT_REPLAY_PREFIX: &str = "https://web.archive.org/web";

/// `warcdex search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The search directory: it holds `pindexes/<name>/{main,dates}`.
    #[arg(short = 'd', long = "dir", default_value = ".")]
    pub dir: PathBuf,
    /// Hits to show.
    #[arg(short = 'n', long = "hits", default_value_t = 10)]
    pub hits: usize,
    /// The first hit to show (0-based), for the next pages.
    #[arg(long, default_value_t = 0)]
    pub start: usize,
    /// At most this many hits per site; 0 shows every hit.
    #[arg(long = "hits-per-site", default_value_t = DEFAULT_HITS_PER_SITE)]
    pub hits_per_site: usize,
    /// One JSON document instead of NutchWaxBean's text lines.
    #[arg(long)]
    pub json: bool,
    /// Replay links are PREFIX/DATE14/URL (shown in --json).
    #[arg(long = "replay-prefix", default_value = DEFAULT_REPLAY_PREFIX)]
    pub replay_prefix: String,
    /// The query: words, "phrases", site:HOST, type:MIME, collection:NAME,
    /// date:YYYY[MM[DD…]] or date:A-B (several words are joined by spaces).
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
}

/// `warcdex serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The search directory: it holds `pindexes/<name>/{main,dates}`.
    #[arg(short = 'd', long = "dir", default_value = ".")]
    pub dir: PathBuf,
    /// Address to listen on (loopback unless you mean to publish the archive).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Replay links are PREFIX/DATE14/URL (Wayback form); an empty value shows dates
    /// without links.
    #[arg(long = "replay-prefix", default_value = DEFAULT_REPLAY_PREFIX)]
    pub replay_prefix: String,
    /// Hits per site when a request does not say (`hitsPerSite=0`: all).
    #[arg(long = "hits-per-site", default_value_t = DEFAULT_HITS_PER_SITE)]
    pub hits_per_site: usize,
    /// Searches run at once (default: twice the cores); more requests wait their turn.
    #[arg(long = "search-threads")]
    pub search_threads: Option<usize>,
}

fn prefix(p: &str) -> Option<String> {
    Some(p.trim().to_string()).filter(|p| !p.is_empty())
}

fn open(dir: &std::path::Path) -> anyhow::Result<SearchIndex> {
    let index = SearchIndex::open(dir)?;
    if index.sets().is_empty() {
        bail!(
            "{}: no parallel set could be opened ({} refused)",
            dir.join("pindexes").display(),
            index.broken().len()
        );
    }
    Ok(index)
}

/// Runs `warcdex search`: exit 0 with results (even none), 2 for a malformed query.
pub fn run(a: SearchArgs) -> anyhow::Result<i32> {
    let index = open(&a.dir)?;
    let req = SearchRequest {
        query: a.query.join(" "),
        start: a.start,
        hits: a.hits,
        hits_per_site: a.hits_per_site,
        replay_prefix: prefix(&a.replay_prefix),
    };
    let results = match index.search(&req) {
        Ok(r) => r,
        Err(warcdex::search::SearchError::Query(e)) => {
            eprintln!("warcdex: bad query: {e}");
            return Ok(2);
        }
        Err(e) => return Err(e.into()),
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if a.json {
        writeln!(out, "{}", json::to_json(&results))?;
    } else {
        text::write_text(&results, &mut out)?;
    }
    out.flush()?;
    Ok(0)
}

/// Runs `warcdex serve` until interrupted.
pub fn serve_cmd(a: ServeArgs) -> anyhow::Result<i32> {
    let index = open(&a.dir)?;
    let mut opts = ServeOptions {
        replay_prefix: prefix(&a.replay_prefix),
        hits_per_site: a.hits_per_site,
        ..ServeOptions::default()
    };
    if let Some(n) = a.search_threads {
        opts.search_threads = n.max(1);
    }
    for s in index.sets() {
        eprintln!(
            "warcdex serve: set {}: {} documents, dates from {}",
            s.name,
            s.documents,
            s.dates
                .as_ref()
                .map_or_else(|| "main".to_string(), |d| d.display().to_string())
        );
    }
    let listener = std::net::TcpListener::bind(a.addr)
        .with_context(|| format!("cannot listen on {}", a.addr))?;
    eprintln!(
        "warcdex serve: listening on http://{}/",
        listener.local_addr()?
    );
    let threads = opts.search_threads;
    serve(listener, router(index, opts), threads)?;
    Ok(0)
}
