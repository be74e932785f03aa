//! `warcdex search` and `warcdex serve`: flags, then the library (`warcdex::search`,
//! `warcdex::serve`).

use std::io::{self, BufWriter, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use warcdex::access::LiveRules;
use warcdex::collection::Collection;
use warcdex::render::{json, text};
use warcdex::search::{HitOrder, NearDisplay, SearchIndex, SearchRequest, DEFAULT_HITS_PER_SITE};
use warcdex::serve::{
    front_router, routers, serve, serve_with_replay, ConnLimits, Front, ScriptReplay, ServeOptions,
};

use super::access::AccessFlags;

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
    /// Near-identical versions of a URL: `collapse` shows them as one hit with all their
    /// dates (the newest version shown), `show` lists every version.
    #[arg(long = "near-dups", value_enum, default_value_t = NearDupsArg::Collapse)]
    pub near_dups: NearDupsArg,
    /// `near` folds near-identical pages of other URLs (mirrors) into one hit, listing
    /// their hosts.
    #[arg(long, value_enum, default_value_t = CollapseArg::None)]
    pub collapse: CollapseArg,
    /// Replay links are PREFIX/DATE14/URL (shown in --json), e.g. a `warcdex serve`'s
    /// http://HOST:PORT/web; none by default.
    #[arg(long = "replay-prefix", default_value = "")]
    pub replay_prefix: String,
    /// The access rules: the collection's `access.json`, and these (docs/access.md).
    #[command(flatten)]
    pub access: AccessFlags,
    /// Search as this user (access point) of the rules; none: the public.
    #[arg(long)]
    pub user: Option<String>,
    /// The order of the hits: relevance, date (oldest first capture first) or -date
    /// (newest last capture first, at or before the query's as-of:).
    #[arg(long, default_value = "relevance", value_parser = parse_order, allow_hyphen_values = true)]
    pub sort: HitOrder,
    /// Only pages with every word: no fallback to fewer words or to a suggested query
    /// when nothing holds them all.
    #[arg(long)]
    pub strict: bool,
    /// The query: words, "phrases", site:HOST, type:MIME, lang:xx, collection:NAME,
    /// date:YYYY[MM[DD…]] or date:A-B (several words are joined by spaces).
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
}

/// `search --near-dups`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NearDupsArg {
    /// One hit per group of near-identical versions of a URL.
    Collapse,
    /// Every version its own hit.
    Show,
}

/// `search --collapse`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CollapseArg {
    /// Pages of different URLs are different hits.
    None,
    /// Near-identical pages of different URLs are one hit.
    Near,
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
    /// How captures are replayed: `scripts`, this server's capture view running each
    /// page's own scripts (wabac.js's service worker, on the replay origin; needs
    /// `--wabac`); `safe`, the capture view without scripts; `builtin` (the default),
    /// `scripts` when `--wabac` is given, else `safe`; or `pywb=URL`, hits link to a pywb
    /// collection (URL/DATE14/URL; `warcdex pywb-config` writes one that reads from this
    /// server).
    #[arg(long = "replay", default_value = "builtin", value_parser = parse_replay)]
    pub replay: Replay,
    /// The directory holding wabac.js's service worker (`sw.js` of the
    /// `@webrecorder/wabac` npm package; scripts/fetch-wabac.sh puts it in place).
    #[arg(long = "wabac", value_name = "DIR")]
    pub wabac: Option<PathBuf>,
    /// Where the replay origin listens, the origin of its own on which archived pages run
    /// their scripts (default: the `--addr` port + 1, on the same address).
    #[arg(long = "replay-origin", value_name = "ADDR")]
    pub replay_origin: Option<SocketAddr>,
    /// The replay origin as readers reach it (https://replay.archive.example.org): a
    /// host of its own behind a proxy (default: the request's host name and the replay
    /// origin's port).
    #[arg(long = "replay-origin-url", value_name = "URL")]
    pub replay_origin_url: Option<String>,
    /// Hits link to an outside Wayback instead: PREFIX/DATE14/URL (an empty value shows
    /// dates without links). The only way a hit links to another server unasked.
    #[arg(long = "replay-prefix")]
    pub replay_prefix: Option<String>,
    /// This server's address as readers reach it (https://archive.example.org), for the
    /// absolute links of Memento headers, TimeMaps and the OpenSearch feed; by default the
    /// request's Host.
    #[arg(long = "public-url")]
    pub public_url: Option<String>,
    /// Hits per site when a request does not say (`hitsPerSite=0`: all).
    #[arg(long = "hits-per-site", default_value_t = DEFAULT_HITS_PER_SITE)]
    pub hits_per_site: usize,
    /// Searches run at once (default: the cores); more requests wait their turn. More
    /// helps when the index is read from a slow disk rather than the page cache.
    #[arg(long = "search-threads")]
    pub search_threads: Option<usize>,
    /// Threads that read requests and write responses (default: half the cores, at
    /// least one).
    #[arg(long = "io-threads")]
    pub io_threads: Option<usize>,
    /// Seconds a client has to send a request head (also how long a kept-alive
    /// connection may wait for its next request).
    #[arg(long = "header-timeout", default_value_t = 10.0)]
    pub header_timeout: f64,
    /// Seconds a connection may stay with no request being answered and no byte moving
    /// either way (a client that stopped reading) before it is closed.
    #[arg(long = "idle-timeout", default_value_t = 60.0)]
    pub idle_timeout: f64,
    /// Connections open at once; at the cap (or out of file descriptors) the connection
    /// idle the longest is closed to make room.
    #[arg(long = "max-connections", default_value_t = 512)]
    pub max_connections: usize,
    /// Seconds between checks (made by a request) for sets whose pindex.json changed,
    /// which are then reopened (after `add-dates --in-place`, say); 0 checks on every
    /// request.
    #[arg(long = "reload-interval", default_value_t = 5.0)]
    pub reload_interval: f64,
    /// Never reopen the index: serve what was opened at start until restarted.
    #[arg(long = "no-reload")]
    pub no_reload: bool,
    /// Be a front server: send each search to this shard server (another `warcdex
    /// serve`, http://HOST:PORT) and merge the hits of all of them. Repeat it for each
    /// shard server; no index is opened here (docs/cluster.md).
    #[arg(long = "remote", value_name = "URL", conflicts_with = "dir")]
    pub remote: Vec<String>,
    /// Be a shard server: answer a front server's `/shard/stats.json` and
    /// `/shard/search.json` (`serve --remote` on another machine). Without it those
    /// routes do not exist: their statistics are for front servers, not for the public.
    /// Under access rules, give the shard server the front's `--user-header`.
    #[arg(long = "shard", conflicts_with = "remote")]
    pub shard: bool,
    /// Seconds a front server waits for each shard server in each round of a search; a
    /// server slower than that is left out and the results say they are partial.
    #[arg(long = "remote-timeout", default_value_t = 5.0)]
    pub remote_timeout: f64,
    /// The access rules applied to every route: the collection's `access.json`, and
    /// these. Rules files are re-read within a second of a change (docs/access.md).
    #[command(flatten)]
    pub access: AccessFlags,
    /// The request header that names the user (access point) whose rules apply, set by
    /// a front proxy (pywb's convention: X-Pywb-ACL-User); without it, or without the
    /// header in a request, the public's rules apply. Only a proxy that sets or strips
    /// the header on every request may sit in front.
    #[arg(long = "user-header", value_name = "NAME")]
    pub user_header: Option<String>,
    /// Where `/export?format=wacz` packs a WACZ before sending it (default: the system's
    /// temporary folder).
    #[arg(long = "export-tmp-dir", value_name = "DIR")]
    pub export_tmp_dir: Option<PathBuf>,
    /// The most MiB one WACZ export may take in that folder (about twice its size);
    /// past it the export is refused with a 507. 0: no limit.
    #[arg(long = "export-tmp-limit", value_name = "MIB", default_value_t = 2048)]
    pub export_tmp_limit: u64,
}

/// `serve --replay`: how captures are replayed and where hits link to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replay {
    /// The built-in capture view: with scripts when wabac.js is at hand.
    Builtin,
    /// The built-in capture view, running the pages' scripts.
    Scripts,
    /// The built-in capture view without scripts.
    Safe,
    /// A pywb collection's URL.
    Pywb(String),
}

fn parse_replay(v: &str) -> Result<Replay, String> {
    match v.split_once('=') {
        None if v == "builtin" => Ok(Replay::Builtin),
        None if v == "scripts" => Ok(Replay::Scripts),
        None if v == "safe" => Ok(Replay::Safe),
        Some(("pywb", url)) if url.starts_with("http://") || url.starts_with("https://") => {
            Ok(Replay::Pywb(url.trim_end_matches('/').to_string()))
        }
        _ => Err(format!(
            "--replay is builtin, scripts, safe or pywb=URL (an http(s) URL of a pywb collection), not {v:?}"
        )),
    }
}

/// wabac.js's service worker when captures are to run their scripts (`--replay
/// scripts`, or the default with `--wabac`), read from `--wabac DIR`.
fn script_replay_wanted(a: &ServeArgs) -> anyhow::Result<Option<Vec<u8>>> {
    let wanted = match a.replay {
        Replay::Scripts => true,
        Replay::Builtin => a.wabac.is_some(),
        Replay::Safe | Replay::Pywb(_) => false,
    };
    if !wanted {
        return Ok(None);
    }
    let Some(dir) = &a.wabac else {
        bail!("--replay scripts needs wabac.js's service worker: scripts/fetch-wabac.sh DIR, then --wabac DIR");
    };
    let path = dir.join("sw.js");
    let sw = std::fs::read(&path).with_context(|| {
        format!(
            "{}: wabac.js's service worker (scripts/fetch-wabac.sh puts it there)",
            path.display()
        )
    })?;
    Ok(Some(sw))
}

fn seconds(name: &str, v: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(v)
        .map_err(|_| anyhow::anyhow!("--{name} must be a number of seconds ≥ 0, not {v}"))
}

fn parse_order(v: &str) -> Result<HitOrder, String> {
    HitOrder::parse(v).ok_or_else(|| format!("{v:?}: relevance, date or -date"))
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
    let viewer = a.access.viewer(&a.dir, a.user.as_deref())?;
    let req = SearchRequest {
        viewer,
        order: a.sort,
        query: a.query.join(" "),
        start: a.start,
        hits: a.hits,
        hits_per_site: a.hits_per_site,
        replay_prefix: prefix(&a.replay_prefix),
        near: NearDisplay {
            show_versions: a.near_dups == NearDupsArg::Show,
            collapse_urls: a.collapse == CollapseArg::Near,
        },
        history: true,
        strict: a.strict,
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

/// Listens on `addr`, and says where (tests and scripts read the line).
fn bind(addr: SocketAddr) -> anyhow::Result<std::net::TcpListener> {
    let listener =
        std::net::TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
    eprintln!(
        "warcdex serve: listening on http://{}/",
        listener.local_addr()?
    );
    Ok(listener)
}

/// Runs `warcdex serve` until interrupted.
pub fn serve_cmd(a: ServeArgs) -> anyhow::Result<i32> {
    let pywb = match &a.replay {
        Replay::Pywb(url) => Some(url.clone()),
        _ => None,
    };
    // Hits link to the outside Wayback when one is named, else to pywb, else to the view.
    let replay_prefix = match (&a.replay_prefix, &pywb) {
        (Some(p), _) => prefix(p),
        (None, Some(url)) => Some(url.clone()),
        (None, None) => Some(warcdex::serve::VIEW_PREFIX.to_string()),
    };
    let mut opts = ServeOptions {
        replay_prefix,
        pywb,
        public_url: a
            .public_url
            .clone()
            .map(|u| u.trim_end_matches('/').to_string()),
        hits_per_site: a.hits_per_site,
        shard: a.shard,
        ..ServeOptions::default()
    };
    if let Some(n) = a.search_threads {
        opts.search_threads = n.max(1);
    }
    opts.export_tmp_dir = a.export_tmp_dir.clone();
    opts.export_tmp_limit =
        (a.export_tmp_limit > 0).then_some(a.export_tmp_limit.saturating_mul(1 << 20));
    if let Some(n) = a.io_threads {
        opts.io_threads = n.max(1);
    }
    opts.limits = ConnLimits {
        header_timeout: seconds("header-timeout", a.header_timeout)?,
        idle_timeout: seconds("idle-timeout", a.idle_timeout)?,
        max_connections: a.max_connections.max(1),
    };
    opts.reload_interval = match a.no_reload {
        true => None,
        false => Some(seconds("reload-interval", a.reload_interval)?),
    };
    if let Some(h) = &a.user_header {
        opts.user_header = Some(
            axum::http::HeaderName::try_from(h.as_str())
                .with_context(|| format!("--user-header {h:?} is not a header name"))?,
        );
    }
    if !a.remote.is_empty() {
        if !(a.access.acl.is_empty() && a.access.embargo.is_empty())
            || a.access.default_access.is_some()
        {
            bail!("a front server holds no captures: give the access rules to the shard servers (docs/access.md)");
        }
        let front = Front::new(&a.remote, seconds("remote-timeout", a.remote_timeout)?)
            .map_err(anyhow::Error::msg)?;
        for s in front.servers() {
            eprintln!("warcdex serve: shard server {s}");
        }
        let listener = bind(a.addr)?;
        serve(listener, front_router(front, opts.clone()), &opts)?;
        return Ok(0);
    }
    let index = open(&a.dir)?;
    let config = a.access.config(&a.dir)?;
    if !config.is_empty() {
        let live = LiveRules::load(config)?;
        let r = live.current();
        super::access::warn(&r);
        eprintln!(
            "warcdex serve: access rules: {} rules from {} files",
            r.rule_count(),
            r.files().len()
        );
        // Checked ten times a second: a takedown holds within a second under load.
        live.watch(Duration::from_millis(100));
        opts.access = Some(live);
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
    let listener = bind(a.addr)?;
    let app_addr = listener.local_addr()?;
    let replay_listener = match script_replay_wanted(&a)? {
        Some(sw) => {
            let at = a.replay_origin.unwrap_or_else(|| {
                let mut at = app_addr;
                at.set_port(match a.addr.port() {
                    0 => 0,
                    p => p.checked_add(1).unwrap_or(0),
                });
                at
            });
            let l = std::net::TcpListener::bind(at).with_context(|| {
                format!("cannot listen on {at} for the replay origin (--replay-origin; --replay safe replays without it)")
            })?;
            let port = l.local_addr()?.port();
            eprintln!(
                "warcdex serve: replay origin (pages run their scripts) on http://{}/",
                l.local_addr()?
            );
            opts.scripts = Some(ScriptReplay {
                service_worker: sw.into(),
                replay_port: port,
                replay_url: a
                    .replay_origin_url
                    .as_ref()
                    .map(|u| u.trim_end_matches('/').to_string()),
                app_port: app_addr.port(),
            });
            Some(l)
        }
        None => None,
    };
    let (app, replay) = routers(Collection::open(&a.dir), index, opts.clone());
    let replay = replay_listener.zip(replay);
    serve_with_replay(listener, app, replay, &opts)?;
    Ok(0)
}
