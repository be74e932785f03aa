//! `warcdex records`: one JSON line per record, with the fields and values of
//! `warcio index -f offset,length,warc-type,warc-target-uri,warc-date,warc-record-id,
//! http:status,http:content-type,warc-payload-digest`, plus warcdex's own fields.

use std::io::{Read, Write};

use crate::reader::error::{Anomaly, AnomalyCounts, Error, Result};
use crate::reader::header::decode;
use crate::reader::{ArchiveReader, DigestCheck, RecordType};

/// What `records` adds beyond warcio's fields.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordsOptions {
    /// Add `payload-digest`: the sha1 header value, or base32 SHA-1 computed over the
    /// payload when the record has none (ARC records, for example).
    pub digest: bool,
    /// Recompute every sha1 payload digest and add `digest-check`.
    pub verify: bool,
}

/// What one file gave.
#[derive(Debug, Default)]
pub struct FileReport {
    /// Records written.
    pub records: u64,
    /// Anomalies by kind.
    pub counts: AnomalyCounts,
    /// The error that stopped the file early, if one did.
    pub error: Option<Error>,
}

/// Writes one JSON line per record of `reader` to `out`. Each anomaly is passed to
/// `on_anomaly` as it is found. A record lost to a damaged gzip member is counted, not
/// written; another error in the file stops the file (what came before is kept) and is
/// returned in the report; only write errors are returned as `Err`.
pub fn write_records<R: Read, W: Write>(
    reader: &mut ArchiveReader<R>,
    out: &mut W,
    opts: RecordsOptions,
    on_anomaly: &mut dyn FnMut(&Anomaly),
) -> std::io::Result<FileReport> {
    let mut report = FileReport::default();
    let mut line = String::with_capacity(512);
    loop {
        let result = next_line(reader, opts, &mut line);
        for a in reader.take_anomalies() {
            on_anomaly(&a);
        }
        match result {
            Ok(true) => {
                out.write_all(line.as_bytes())?;
                report.records += 1;
            }
            Ok(false) => break,
            // Counted (and reported) as `lost-record` by the reader, which reads on.
            Err(e) if e.is_record_lost() => {}
            Err(e) => {
                report.error = Some(e);
                break;
            }
        }
    }
    report.counts = reader.counts().clone();
    Ok(report)
}

fn next_line<R: Read>(
    reader: &mut ArchiveReader<R>,
    opts: RecordsOptions,
    line: &mut String,
) -> Result<bool> {
    let Some(mut rec) = reader.next_record()? else {
        return Ok(false);
    };
    line.clear();
    let h = rec.header();
    let format = if h.format().is_arc() { "arc" } else { "warc" };
    let rtype = h.type_name().into_owned();
    // Quirk (warcio 1.8.1): spaces in the target URI are written as %20.
    let uri = h.target_uri().map(|u| decode(u).replace(' ', "%20"));
    let date = h.date_iso();
    let id = h.record_id().map(|v| decode(v).into_owned());
    let header_digest = h.get_str("WARC-Payload-Digest").map(|v| v.into_owned());
    let is_arc_info = h.format().is_arc() && h.record_type() == RecordType::Warcinfo;
    let rt = h.record_type();
    let (status, ctype) = match rec.http()? {
        Some(http) => {
            let status = matches!(rt, RecordType::Response | RecordType::Revisit)
                .then(|| decode(http.status_code()).into_owned());
            (status, http.get_str("Content-Type").map(|v| v.into_owned()))
        }
        None => (None, None),
    };
    let check = if opts.verify {
        Some(rec.verify_payload_digest()?)
    } else {
        None
    };
    let digest = if opts.digest && !is_arc_info {
        rec.payload_digest()?.map(|d| d.value().to_string())
    } else {
        None
    };
    let span = rec.finish()?;
    line.push('{');
    push(line, "offset", &span.offset.to_string(), true);
    push(line, "length", &span.length.to_string(), false);
    push(line, "warc-type", &rtype, false);
    let fields: [(&str, Option<&str>); 7] = [
        ("warc-target-uri", uri.as_deref().filter(|_| !is_arc_info)),
        ("warc-date", date.as_deref()),
        ("warc-record-id", id.as_deref()),
        ("http:status", status.as_deref()),
        ("http:content-type", ctype.as_deref()),
        ("warc-payload-digest", header_digest.as_deref()),
        ("payload-digest", digest.as_deref()),
    ];
    for (k, v) in fields {
        if let Some(v) = v {
            push(line, k, v, false);
        }
    }
    push(line, "format", format, false);
    if let Some(c) = check {
        let v = match c {
            DigestCheck::NoDigest => "none".to_string(),
            DigestCheck::MatchesStored => "ok".to_string(),
            DigestCheck::MatchesDechunked => "ok-dechunked".to_string(),
            DigestCheck::Mismatch { computed } => format!("mismatch:sha1:{computed}"),
        };
        push(line, "digest-check", &v, false);
    }
    line.push_str("}\n");
    Ok(true)
}

fn push(line: &mut String, key: &str, value: &str, first: bool) {
    if !first {
        line.push_str(", ");
    }
    line.push('"');
    line.push_str(key);
    line.push_str("\": ");
    line.push_str(&serde_json::to_string(value).expect("strings serialize"));
}
