//! The `warcdex` binary: parses flags and calls the library.

mod cli;

use std::io;
use std::process::ExitCode;

use clap::Parser;

/// mimalloc: an import in glibc's malloc took a fifth longer (docs/performance.md,
/// "Allocator and heap policy"); src/cli/heap.rs sets its policy per command.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The error and its causes, `a: b: c` as `{:#}` shows them
/// ([`warcdex::path_error::Chain`]).
fn message(e: &anyhow::Error) -> String {
    warcdex::path_error::Chain(e.as_ref()).to_string()
}

fn main() -> ExitCode {
    let args = match cli::Cli::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            if let Some(hint) = cli::query_dash_hint(&e) {
                eprintln!("{hint}");
            }
            std::process::exit(e.exit_code());
        }
    };
    cli::set_no_wait(args.no_wait);
    if cli::heap::frees_large_buffers(&args.command) {
        cli::heap::give_back_freed_memory();
    }
    let result = match args.command {
        cli::Command::Records(a) => cli::records::run(a),
        cli::Command::Access(a) => cli::access::run(a),
        cli::Command::Export(a) => cli::export::run(a),
        cli::Command::Graph(a) => cli::graph::run(a),
        cli::Command::RecrawlPlan(a) => cli::recrawl::run(a),
        cli::Command::Changes(a) => cli::recrawl::changes(a),
        cli::Command::Cdx(a) => cli::cdx::run(a),
        cli::Command::DedupCdx(a) => cli::lists::run_list(cli::lists::List::Dedup, a),
        cli::Command::Revisits(a) => cli::lists::run_list(cli::lists::List::Revisits, a),
        cli::Command::SortCdx(a) => cli::lists::run_sort(cli::lists::SortCommand::Sort, a),
        cli::Command::MergeCdx(a) => cli::lists::run_sort(cli::lists::SortCommand::Merge, a),
        cli::Command::Import(a) => cli::import::run(a),
        cli::Command::SegmentInfo(a) => cli::import::info(a),
        cli::Command::Index(a) => cli::index::run(a),
        cli::Command::LinkGraph(a) => cli::index::link_graph(a),
        cli::Command::Dumpindex(a) => cli::index::dump_cmd(a),
        cli::Command::Merge(a) => cli::index::merge(a),
        cli::Command::AddDates(a) => cli::dates::run(a),
        cli::Command::Search(a) => cli::search::run(a),
        cli::Command::Serve(a) => cli::search::serve_cmd(a),
        cli::Command::Mcp(a) => cli::mcp::run(a),
        cli::Command::Update(a) => cli::update::run(a),
        cli::Command::PywbConfig(a) => cli::pywb::run(a),
        cli::Command::NearDups(a) => cli::near::near_dups(a),
        cli::Command::History(a) => cli::near::history_cmd(a),
        cli::Command::Diff(a) => cli::near::diff_cmd(a),
        cli::Command::Inflate { file } => cli::inflate::run(&file),
    };
    match result {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            // A closed pipe (`warcdex records x | head`) is not a failure.
            if e.downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("warcdex: {}", message(&e));
            ExitCode::from(1)
        }
    }
}
