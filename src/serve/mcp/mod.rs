//! The Model Context Protocol server: `warcdex mcp` over stdio, and `serve`'s `/mcp`
//! over MCP's streamable HTTP transport, both with rmcp (the protocol's official Rust
//! SDK). Five tools (`search`, `get_text`, `list_captures`, `history`, `diff`), each with
//! a JSON Schema for its arguments and for its structured result, answered over the same
//! state and access rules as the HTTP routes (`calls.rs`); every capture an answer names
//! carries its provenance (archive file, offset, length, digest, date: `answers.rs`).
//!
//! One resource, `warcdex://collection`, says what the collection holds (versions, years,
//! sites, types, languages) as the asker may see it.
//!
//! Bad arguments are tool errors that say what to fix (`args.rs`), never protocol errors.
//! Calls in flight are bounded ([`MAX_CALLS`]; past it a call is refused at once), and
//! their work runs under the server's search permits. A call the client cancels, or whose
//! client went away, is dropped where it waits; work already on the blocking pool ends on
//! its own, bounded as a search is.

mod answers;
mod args;
mod calls;

use std::io;
use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Serialize;
use tokio::sync::Semaphore;

use answers::Render;
use calls::Ask;

use super::state::AppState;

/// Tool calls answered at once by one server, at most; one more is refused with a tool
/// error (an agent retries) rather than queued without bound.
pub const MAX_CALLS: usize = 64;

/// The header the stdio server's fixed user (`warcdex mcp --user`) is carried in.
const STDIO_USER_HEADER: &str = "x-warcdex-mcp-user";

/// The MCP server over one collection.
#[derive(Clone)]
pub struct McpServer {
    state: Arc<AppState>,
    /// The stdio server's headers (its fixed user); `None` over HTTP, where each
    /// request's own headers name the user as on every other route.
    fixed: Option<HeaderMap>,
    calls: Arc<Semaphore>,
}

impl McpServer {
    fn new(state: Arc<AppState>, fixed: Option<HeaderMap>) -> McpServer {
        McpServer {
            state,
            fixed,
            calls: Arc::new(Semaphore::new(MAX_CALLS)),
        }
    }

    fn headers(&self, ctx: &RequestContext<RoleServer>) -> HeaderMap {
        if let Some(h) = &self.fixed {
            return h.clone();
        }
        (ctx.extensions.get::<axum::http::request::Parts>())
            .map(|p| p.headers.clone())
            .unwrap_or_default()
    }

    async fn call(&self, name: &str, req: CallToolRequestParams, ask: Ask) -> CallToolResult {
        let a = req.arguments;
        let out = match name {
            "search" => run(args::read("search", a), |x| calls::search(&ask, x)).await,
            "get_text" => run(args::read("get_text", a), |x| calls::get_text(&ask, x)).await,
            "list_captures" => {
                run(args::read("list_captures", a), |x| {
                    calls::list_captures(&ask, x)
                })
                .await
            }
            "history" => run(args::read("history", a), |x| calls::history(&ask, x)).await,
            "diff" => run(args::read("diff", a), |x| calls::diff(&ask, x)).await,
            _ => Err(format!("no tool named {name:?}")),
        };
        match out {
            Ok(r) => r,
            Err(msg) => CallToolResult::error(vec![ContentBlock::text(msg)]),
        }
    }
}

/// Runs a tool over its read arguments; the answer as structured content with its text.
async fn run<A, T, F>(
    args: Result<A, String>,
    f: impl FnOnce(A) -> F,
) -> Result<CallToolResult, String>
where
    T: Serialize + Render,
    F: std::future::Future<Output = Result<T, String>>,
{
    let answer = f(args?).await?;
    let value = serde_json::to_value(&answer).map_err(|e| e.to_string())?;
    // Not `CallToolResult::structured`: it writes the whole value out as the text too.
    let mut r = CallToolResult::success(vec![ContentBlock::text(answer.render())]);
    r.structured_content = Some(value);
    Ok(r)
}

fn tool<A: JsonSchema + 'static, T: JsonSchema + 'static>(
    name: &'static str,
    title: &str,
    description: &'static str,
) -> Tool {
    Tool::new(name, description, schema_for_type::<A>())
        .with_title(title)
        .with_raw_output_schema(schema_for_output::<T>())
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        )
}

/// The five tools, with their schemas.
fn tools() -> Vec<Tool> {
    vec![
        tool::<args::SearchArgs, answers::SearchAnswer>(
            "search",
            "Search the archive",
            "Full-text search of the archived pages (every version of a page is its own document). \
             Returns hits with title, snippet, capture dates and each hit's provenance (archive \
             file, offset, length, payload digest), the total, and facets by site, year, type and \
             language. A query whose words no page holds all of falls back to pages with most of \
             them, and says so (`relaxed`, `suggestion`).",
        ),
        tool::<args::GetTextArgs, answers::TextAnswer>(
            "get_text",
            "Read an archived page's text",
            "The indexed text of the capture of a URL nearest a date (the latest by default), \
             with its provenance and its capture-view link. Long texts come in parts of at most \
             max_chars characters: call again with next_offset.",
        ),
        tool::<args::ListCapturesArgs, answers::CapturesAnswer>(
            "list_captures",
            "List a URL's captures",
            "Every capture of a URL (or of URLs under it: match_type prefix, host, domain) as the \
             CDX server API gives them: timestamp, status, MIME type, digest, archive file, \
             offset and length, oldest first.",
        ),
        tool::<args::HistoryArgs, answers::HistoryAnswer>(
            "history",
            "A page's versions",
            "The versions of a URL (each a distinct payload), in order, with their capture dates \
             and the share of words changed from the version before.",
        ),
        tool::<args::DiffArgs, answers::DiffAnswer>(
            "diff",
            "What changed on a page",
            "The words removed and added between the versions of a URL captured nearest two dates.",
        ),
    ]
}

/// The resource describing the collection.
const COLLECTION_URI: &str = "warcdex://collection";

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("warcdex", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "A web archive collection (WARC/WACZ captures). Use search to find pages, \
                 get_text to read one, list_captures, history and diff for its captures and \
                 versions. Cite a capture by its provenance: URL, timestamp, archive, offset, \
                 digest.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let r = Resource::new(COLLECTION_URI, "collection")
            .with_title("What the collection holds")
            .with_description(
                "Versions, the years of capture, the sites, types and languages of the \
                 collection, as the asker may see it (JSON).",
            )
            .with_mime_type("application/json");
        Ok(ListResourcesResult::with_all_items(vec![r]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != COLLECTION_URI {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource {:?}: the server has {COLLECTION_URI}",
                    request.uri
                ),
                None,
            ));
        }
        let ask = Ask {
            state: self.state.clone(),
            headers: self.headers(&ctx),
        };
        let answer = calls::describe(&ask)
            .await
            .map_err(|e| ErrorData::internal_error(e, None))?;
        let text = serde_json::to_string(&answer)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let contents = ResourceContents::TextResourceContents {
            uri: COLLECTION_URI.into(),
            mime_type: Some("application/json".into()),
            text,
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Ok(_slot) = self.calls.clone().try_acquire_owned() else {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "the server is answering {MAX_CALLS} calls already; try again shortly"
            ))])
            .into());
        };
        let ask = Ask {
            state: self.state.clone(),
            headers: self.headers(&ctx),
        };
        let name = request.name.to_string();
        tokio::select! {
            r = self.call(&name, request, ask) => Ok(r.into()),
            () = ctx.ct.cancelled() => Err(ErrorData::internal_error("the call was cancelled", None)),
        }
    }
}

/// `/mcp`: the server over MCP's streamable HTTP transport, stateless (no session is
/// kept between requests, so a client can fill no table), answering JSON. The user is
/// read from each request's headers, as on every route. Hosts are not checked: the
/// routes beside it answer any Host, and what the rules hide stays hidden whoever asks.
pub(super) fn http_service(
    state: Arc<AppState>,
) -> StreamableHttpService<McpServer, NeverSessionManager> {
    let mut config = StreamableHttpServerConfig::default().disable_allowed_hosts();
    config.legacy_session_mode = false;
    config.json_response = true;
    let server = McpServer::new(state, None);
    StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// `warcdex mcp`: the server over stdio until the client closes it. `user` is the user
/// every call is asked as under `opts`' access rules (the public's without one).
pub fn serve_stdio(
    collection: crate::collection::Collection,
    index: crate::search::SearchIndex,
    mut opts: super::ServeOptions,
    user: Option<&str>,
) -> io::Result<()> {
    let mut fixed = HeaderMap::new();
    if let Some(u) = user {
        let name = HeaderName::from_static(STDIO_USER_HEADER);
        let value = HeaderValue::from_str(u).map_err(|_| {
            io::Error::new(io::ErrorKind::InvalidInput, "--user is not a header value")
        })?;
        opts.user_header = Some(name.clone());
        fixed.insert(name, value);
    } else {
        opts.user_header = None;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(opts.io_threads.max(1))
        .enable_all()
        .build()?;
    let state = super::local_state(collection, index, opts);
    let server = McpServer::new(state, Some(fixed));
    runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| io::Error::other(format!("MCP initialisation failed: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| io::Error::other(format!("the MCP server stopped: {e}")))?;
        Ok(())
    })
}
