//! A minimal HTTP client for the server tests: one request over HTTP/1.0, so the answer's
//! body comes as it is (never chunked) and ends with the connection.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// An answer: status, headers (names in lower case) and body.
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// Header fields, names in lower case, in order.
    pub headers: Vec<(String, String)>,
    /// The body, whole.
    pub body: Vec<u8>,
}

impl Answer {
    /// The first value of a header field (`name` in lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        (self.headers.iter())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends `METHOD PATH` with `extra` header lines (bytes, not always text), and reads the
/// answer to the end.
pub fn request(addr: &str, method: &str, path: &str, extra: impl AsRef<[u8]>) -> Answer {
    let mut req = format!("{method} {path} HTTP/1.0\r\nHost: {addr}\r\n").into_bytes();
    req.extend_from_slice(extra.as_ref());
    req.extend_from_slice(b"\r\n");
    send(addr, &req, false)
}

/// Writes `req` to `addr` and reads the answer to the end. With `early_answer`, a server
/// may answer (and close) before it has read a body it refuses: a failed write or a reset
/// after the answer is then not an error.
fn send(addr: &str, req: &[u8], early_answer: bool) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let wrote = s.write_all(req);
    let mut raw = Vec::new();
    let read = s.read_to_end(&mut raw);
    if !early_answer {
        wrote.unwrap();
        read.unwrap();
    }
    let split = (raw.windows(4))
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap()[9..12].parse().unwrap();
    let headers = lines
        .map(|l| {
            let (k, v) = l.split_once(':').unwrap();
            (k.trim().to_ascii_lowercase(), v.trim().to_string())
        })
        .collect();
    Answer {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

/// One JSON-RPC call to the MCP server at `addr`'s `/mcp` (stateless streamable HTTP),
/// with `extra` header lines; the parsed answer and its HTTP status.
pub fn mcp(
    addr: &str,
    method: &str,
    params: serde_json::Value,
    extra: &str,
) -> (u16, serde_json::Value) {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let a = post(addr, "/mcp", body.to_string().as_bytes(), extra);
    let v = serde_json::from_slice(&a.body).unwrap_or(serde_json::Value::Null);
    (a.status, v)
}

/// `tools/call` of `tool` with `args` over [`mcp`]: the result (`isError`,
/// `structuredContent`, `content`).
pub fn mcp_tool(addr: &str, tool: &str, args: serde_json::Value, extra: &str) -> serde_json::Value {
    let (status, v) = mcp(
        addr,
        "tools/call",
        serde_json::json!({"name": tool, "arguments": args}),
        extra,
    );
    assert_eq!(status, 200, "{tool} {v}");
    v["result"].clone()
}

/// POSTs `body` as JSON to `path` with `extra` header lines, as an MCP client does.
pub fn post(addr: &str, path: &str, body: &[u8], extra: &str) -> Answer {
    let head = format!(
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\n{extra}",
        body.len()
    );
    let mut req = format!("POST {path} HTTP/1.0\r\nHost: {addr}\r\n{head}\r\n").into_bytes();
    req.extend_from_slice(body);
    send(addr, &req, true)
}
