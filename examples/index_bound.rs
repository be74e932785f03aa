//! `index_bound SEGMENT OUT`, for `scripts/bench-index-bound.sh` (issue 22): the part of
//! `warcdex index` that is tantivy's alone. The segment's rows are read into memory first
//! (untimed), then written with `warcdex::index::MainWriter` as `index` writes them (same
//! schema, analyzers, threads, memory budget and final merge to one segment), but without
//! anchors or boosts, so without the link passes. Prints the rows and the seconds of the
//! writing.

use std::path::Path;
use std::time::Instant;

use warcdex::index::MainWriter;
use warcdex::pindex::LinkOptions;
use warcdex::segment::rows::read_rows;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, seg, out] = args.as_slice() else {
        eprintln!("usage: index_bound SEGMENT OUT");
        std::process::exit(2);
    };
    let rows: Vec<_> = read_rows(&Path::new(seg).join("documents.parquet"))
        .expect("segment readable")
        .map(|r| r.expect("row readable"))
        .collect();
    let t = Instant::now();
    let mut w = MainWriter::create(Path::new(out), warcdex::index::DEFAULT_WRITER_MEMORY)
        .expect("output creatable");
    for r in &rows {
        w.add(r, Default::default(), 1.0).expect("document added");
    }
    w.finish(String::new(), Vec::new(), &LinkOptions::default(), None)
        .expect("index written");
    println!("{} {:.3}", rows.len(), t.elapsed().as_secs_f64());
}
