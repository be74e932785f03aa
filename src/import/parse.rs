//! The per-capture parse: a claimed capture's payload decoded and parsed (HTML, plain
//! text or PDF) into its row, in parallel over a batch, each row then offered to its
//! version.

use std::collections::{BTreeMap, HashMap};

use super::capture::{Claimed, HttpFacts};
use super::versions::Versions;
use crate::extract::{body, language, pdf};
use crate::segment::SegmentRow;

/// Parses a batch of claimed captures in parallel and offers their rows; returns the
/// number of parse failures and the PDF outcomes by kind.
pub(super) fn parse_batch(
    batch: &mut Vec<Claimed>,
    limit: usize,
    versions: &Versions,
    titles: &HashMap<String, String>,
) -> (u64, BTreeMap<String, u64>) {
    use rayon::prelude::*;
    batch
        .par_drain(..)
        .map(|mut c| {
            let parsed = parse_into(&mut c.row, &c.body, &c.facts, limit);
            if c.row.title.as_deref().is_none_or(|t| t.trim().is_empty()) {
                if let Some(t) = titles.get(&c.row.url) {
                    c.row.title = Some(t.clone());
                }
            }
            versions.offer(&c.key, &c.order, c.row);
            let mut pdf = BTreeMap::new();
            if let Some(kind) = parsed.pdf {
                pdf.insert(kind.to_string(), 1);
            }
            if parsed.element_cap {
                pdf.insert(ELEMENT_CAP.to_string(), 1);
            }
            (u64::from(!parsed.ok), pdf)
        })
        .reduce(
            || (0, BTreeMap::new()),
            |(fa, mut pa), (fb, pb)| {
                for (k, n) in pb {
                    *pa.entry(k).or_default() += n;
                }
                (fa + fb, pa)
            },
        )
}

/// The key an HTML page stopped at the open-element cap is counted under while a batch
/// is parsed (it goes to [`SourceReport::element_cap`]).
pub(super) const ELEMENT_CAP: &str = "html-element-cap";

/// The MIME type of PDF documents.
pub(super) const PDF_MIME: &str = "application/pdf";

/// Limits of a PDF capture's extraction: 32 MiB of PDF (a larger one is counted as
/// `too-large`), 10 s, a stream inflating to at most 16 MiB (src/extract/pdf.rs).
pub(super) static PDF_LIMITS: std::sync::LazyLock<pdf::PdfLimits> =
    std::sync::LazyLock::new(pdf::PdfLimits::default);

/// What parsing a capture gave.
struct ParseResult {
    /// False when the parser failed (the row keeps its metadata).
    ok: bool,
    /// For a PDF: `text`, `no-text`, `failed`, `panicked`, `timed-out` or `too-large`.
    pdf: Option<&'static str>,
    /// An HTML page whose parse stopped at the open-element cap.
    element_cap: bool,
}

/// Fills title, text, outlinks and charset for text types, and title and text for PDFs.
fn parse_into(row: &mut SegmentRow, stored: &[u8], facts: &HttpFacts, limit: usize) -> ParseResult {
    let is_html = matches!(row.mime.as_str(), "text/html" | "application/xhtml+xml");
    let is_text = row.mime == "text/plain";
    let is_pdf = row.mime == PDF_MIME;
    if !is_html && !is_text && !is_pdf {
        return ParseResult {
            ok: true,
            pdf: None,
            element_cap: false,
        };
    }
    let decoded_cap = if is_pdf {
        PDF_LIMITS.max_input + 1
    } else {
        limit.saturating_mul(4)
    };
    let body = body::undo_codings(
        stored,
        facts.transfer_encoding.as_deref(),
        facts.content_encoding.as_deref(),
        decoded_cap,
    );
    if is_pdf {
        return parse_pdf(row, &body, limit);
    }
    let ct = facts.content_type.clone();
    let url = row.url.clone();
    // Isolation: one bad page must never stop an import.
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if is_html {
            let (p, extras) = crate::html::parse_html_main(&body, ct.as_deref(), &url, limit);
            let lang = extras.declared_lang;
            let capped = extras.element_cap;
            (
                p.title,
                p.text,
                Some(extras.main),
                p.outlinks,
                p.charset,
                lang,
                capped,
            )
        } else {
            let (text, charset, _) = crate::html::plain_text(&body, ct.as_deref(), limit);
            (None, text, None, Vec::new(), charset, None, false)
        }
    }));
    match parsed {
        Ok((title, text, main_text, outlinks, charset, declared, capped)) => {
            // The language of the main content: navigation is often in another (an
            // English menu around a page in Dutch).
            let sample = main_text
                .as_deref()
                .filter(|m| !m.is_empty())
                .unwrap_or(&text);
            row.lang = language::detect_declared(sample, declared.as_deref()).map(str::to_string);
            row.main_text = main_text;
            row.title = title;
            row.text = text;
            row.outlinks = outlinks;
            row.charset = Some(charset.to_string());
            ParseResult {
                ok: true,
                pdf: None,
                element_cap: capped,
            }
        }
        Err(_) => ParseResult {
            ok: false,
            pdf: None,
            element_cap: false,
        },
    }
}

/// A PDF capture's title and text (src/extract/pdf.rs runs the parser on a thread of its
/// own, under a size and a time cap, its panics caught); its outcome is counted.
fn parse_pdf(row: &mut SegmentRow, body: &[u8], limit: usize) -> ParseResult {
    let limits = pdf::PdfLimits {
        max_text: limit,
        ..PDF_LIMITS.clone()
    };
    let (ok, kind) = match pdf::extract_pdf(body, &limits) {
        pdf::PdfOutcome::Text { title, text, .. } => {
            row.lang = language::detect(&text).map(str::to_string);
            row.title = title;
            let kind = if text.is_empty() { "no-text" } else { "text" };
            row.text = text;
            (true, kind)
        }
        pdf::PdfOutcome::TooLarge => (false, "too-large"),
        pdf::PdfOutcome::Failed(_) => (false, "failed"),
        pdf::PdfOutcome::Panicked => (false, "panicked"),
        pdf::PdfOutcome::TimedOut => (false, "timed-out"),
    };
    ParseResult {
        ok,
        pdf: Some(kind),
        element_cap: false,
    }
}
