//! The graph's formats: CSV (an edge list), GEXF 1.3 (Gephi's) and GraphML, written
//! as the sorted streams come: the nodes first, then the edges, nothing held.

use std::io::{self, Write};

use super::GraphFormat;

/// What separates an edge's anchor texts.
pub const ANCHOR_SEPARATOR: &str = " | ";

/// Writes one graph to `out`, nodes before edges.
pub(super) struct GraphWriter<'a> {
    out: &'a mut dyn Write,
    format: GraphFormat,
    anchors: bool,
    edges: u64,
    buf: Vec<u8>,
}

/// `s` as XML 1.0 text or attribute value: markup characters and white space other than
/// the space as references (so an attribute keeps its tabs and line breaks), characters
/// XML 1.0 cannot hold left out.
pub fn xml_escape(out: &mut Vec<u8>, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.extend_from_slice(b"&amp;"),
            '<' => out.extend_from_slice(b"&lt;"),
            '>' => out.extend_from_slice(b"&gt;"),
            '"' => out.extend_from_slice(b"&quot;"),
            '\'' => out.extend_from_slice(b"&apos;"),
            '\t' => out.extend_from_slice(b"&#9;"),
            '\n' => out.extend_from_slice(b"&#10;"),
            '\r' => out.extend_from_slice(b"&#13;"),
            c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => {
                let mut b = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
}

impl<'a> GraphWriter<'a> {
    /// Writes the header of `format` (with an `anchors` column or attribute when
    /// `anchors`); `level` names the graph in the XML formats.
    pub fn begin(
        out: &'a mut dyn Write,
        format: GraphFormat,
        level: &str,
        anchors: bool,
    ) -> io::Result<Self> {
        let w = GraphWriter {
            out,
            format,
            anchors,
            edges: 0,
            buf: Vec::with_capacity(1 << 12),
        };
        let version = env!("CARGO_PKG_VERSION");
        let head = match format {
            GraphFormat::Csv if anchors => "source,target,weight,anchors\r\n".to_string(),
            GraphFormat::Csv => "source,target,weight\r\n".to_string(),
            GraphFormat::Gexf => {
                let attributes = match anchors {
                    true => {
                        "    <attributes class=\"edge\" mode=\"static\">\n      \
                             <attribute id=\"anchors\" title=\"anchors\" type=\"string\"/>\n    \
                             </attributes>\n"
                    }
                    false => "",
                };
                format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                     <gexf xmlns=\"http://gexf.net/1.3\" \
                     xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
                     xsi:schemaLocation=\"http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd\" \
                     version=\"1.3\">\n  \
                     <meta>\n    <creator>warcdex {version}</creator>\n    \
                     <description>link graph, {level} level</description>\n  </meta>\n  \
                     <graph defaultedgetype=\"directed\" mode=\"static\">\n\
                     {attributes}    <nodes>\n"
                )
            }
            GraphFormat::Graphml => {
                let key = match anchors {
                    true => {
                        "  <key id=\"anchors\" for=\"edge\" attr.name=\"anchors\" \
                             attr.type=\"string\"/>\n"
                    }
                    false => "",
                };
                format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                     <!-- warcdex {version}: link graph, {level} level -->\n\
                     <graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" \
                     xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
                     xsi:schemaLocation=\"http://graphml.graphdrawing.org/xmlns \
                     http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd\">\n  \
                     <key id=\"label\" for=\"node\" attr.name=\"label\" attr.type=\"string\"/>\n  \
                     <key id=\"weight\" for=\"edge\" attr.name=\"weight\" attr.type=\"long\"/>\n\
                     {key}  <graph id=\"G\" edgedefault=\"directed\">\n"
                )
            }
        };
        w.out.write_all(head.as_bytes())?;
        Ok(w)
    }

    /// A node (nothing in CSV, an edge list).
    pub fn node(&mut self, name: &str) -> io::Result<()> {
        let b = &mut self.buf;
        b.clear();
        match self.format {
            GraphFormat::Csv => return Ok(()),
            GraphFormat::Gexf => {
                b.extend_from_slice(b"      <node id=\"");
                xml_escape(b, name);
                b.extend_from_slice(b"\" label=\"");
                xml_escape(b, name);
                b.extend_from_slice(b"\"/>\n");
            }
            GraphFormat::Graphml => {
                b.extend_from_slice(b"    <node id=\"");
                xml_escape(b, name);
                b.extend_from_slice(b"\"><data key=\"label\">");
                xml_escape(b, name);
                b.extend_from_slice(b"</data></node>\n");
            }
        }
        self.out.write_all(b)
    }

    /// Ends the nodes: every edge comes after.
    pub fn end_nodes(&mut self) -> io::Result<()> {
        match self.format {
            GraphFormat::Gexf => self.out.write_all(b"    </nodes>\n    <edges>\n"),
            _ => Ok(()),
        }
    }

    /// An edge with its weight and (when the graph has them) its anchor texts.
    pub fn edge(
        &mut self,
        source: &str,
        target: &str,
        weight: u64,
        anchors: &[String],
    ) -> io::Result<()> {
        let id = self.edges;
        self.edges += 1;
        let joined = anchors.join(ANCHOR_SEPARATOR);
        let b = &mut self.buf;
        b.clear();
        match self.format {
            GraphFormat::Csv => {
                crate::output::csv_field(b, source);
                b.push(b',');
                crate::output::csv_field(b, target);
                b.extend_from_slice(format!(",{weight}").as_bytes());
                if self.anchors {
                    b.push(b',');
                    crate::output::csv_field(b, &joined);
                }
                b.extend_from_slice(b"\r\n");
            }
            GraphFormat::Gexf => {
                b.extend_from_slice(format!("      <edge id=\"{id}\" source=\"").as_bytes());
                xml_escape(b, source);
                b.extend_from_slice(b"\" target=\"");
                xml_escape(b, target);
                b.extend_from_slice(format!("\" weight=\"{weight}\"").as_bytes());
                if self.anchors && !joined.is_empty() {
                    b.extend_from_slice(b"><attvalues><attvalue for=\"anchors\" value=\"");
                    xml_escape(b, &joined);
                    b.extend_from_slice(b"\"/></attvalues></edge>\n");
                } else {
                    b.extend_from_slice(b"/>\n");
                }
            }
            GraphFormat::Graphml => {
                b.extend_from_slice(b"    <edge source=\"");
                xml_escape(b, source);
                b.extend_from_slice(b"\" target=\"");
                xml_escape(b, target);
                b.extend_from_slice(format!("\"><data key=\"weight\">{weight}</data>").as_bytes());
                if self.anchors && !joined.is_empty() {
                    b.extend_from_slice(b"<data key=\"anchors\">");
                    xml_escape(b, &joined);
                    b.extend_from_slice(b"</data>");
                }
                b.extend_from_slice(b"</edge>\n");
            }
        }
        self.out.write_all(b)
    }

    /// Closes the document.
    pub fn finish(self) -> io::Result<()> {
        let tail: &[u8] = match self.format {
            GraphFormat::Csv => b"",
            GraphFormat::Gexf => b"    </edges>\n  </graph>\n</gexf>\n",
            GraphFormat::Graphml => b"  </graph>\n</graphml>\n",
        };
        self.out.write_all(tail)?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escapes_markup_and_drops_what_xml_cannot_hold() {
        let mut b = Vec::new();
        xml_escape(&mut b, "a&b<c>\"d'\te\u{1}\u{FFFF}é");
        assert_eq!(
            String::from_utf8(b).unwrap(),
            "a&amp;b&lt;c&gt;&quot;d&apos;&#9;eé"
        );
    }

    #[test]
    fn csv_quotes_as_rfc_4180() {
        let mut out = Vec::new();
        let mut w = GraphWriter::begin(&mut out, GraphFormat::Csv, "page", true).unwrap();
        w.node("x").unwrap();
        w.end_nodes().unwrap();
        w.edge(
            "http://a/?x=1,2",
            "http://b/\"q\"",
            3,
            &["A".into(), "B, c".into()],
        )
        .unwrap();
        w.finish().unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "source,target,weight,anchors\r\n\
             \"http://a/?x=1,2\",\"http://b/\"\"q\"\"\",3,\"A | B, c\"\r\n"
        );
    }
}
