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
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.0\r\nHost: {addr}\r\n").into_bytes();
    req.extend_from_slice(extra.as_ref());
    req.extend_from_slice(b"\r\n");
    s.write_all(&req).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
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
