//! Progress bars on stderr, hidden when stderr is not a terminal (a command that runs long
//! prints plain lines there instead, see `cli/update.rs`).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A byte-count progress bar for `total` bytes of input; hidden unless stderr is a terminal.
pub fn bytes_bar(total: u64, what: &str) -> ProgressBar {
    bar_on_stderr(
        total,
        what,
        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    )
}

/// A progress bar counting `total` items (named by `unit`); hidden unless stderr is a
/// terminal.
pub fn count_bar(total: u64, what: &str, unit: &str) -> ProgressBar {
    bar_on_stderr(
        total,
        what,
        &format!("{{msg}} [{{bar:30}}] {{pos}}/{{len}} {unit} eta {{eta}}"),
    )
}

/// What a stage's total counts: bytes of input, or items of a kind (`archives`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Bytes, shown as KiB, MiB….
    Bytes,
    /// Items, shown as the number and this plural (`5 archives`).
    Items(&'static str),
}

impl Unit {
    /// `total` in this unit as a reader reads it (`26.4 KiB`, `5 archives`).
    pub fn show(self, total: u64) -> String {
        match self {
            Unit::Bytes => indicatif::HumanBytes(total).to_string(),
            Unit::Items(what) => format!("{total} {what}"),
        }
    }
}

/// A bar for `total` in `unit`, or a spinner when the total is not known (0); hidden
/// unless stderr is a terminal.
pub fn bar_of(total: u64, what: &str, unit: Unit) -> ProgressBar {
    match (total, unit) {
        (0, _) => spinner(what),
        (_, Unit::Bytes) => bytes_bar(total, what),
        (_, Unit::Items(items)) => count_bar(total, what, items),
    }
}

/// Whether bars are drawn: stderr is a terminal. Elsewhere (a log file, a pipe) a
/// long command says what it does in lines, which bars would fill with redraws.
pub fn draws_bars() -> bool {
    std::io::stderr().is_terminal()
}

fn bar_on_stderr(total: u64, what: &str, template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template(template)
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// What a long library operation reports as it goes: library functions take one, the
/// CLI passes a bar ([`indicatif::ProgressBar`] is one), tests and tools pass `()`.
/// Shared (`&self`, `Sync`): worker threads of one run report to the same one.
pub trait Progress: Sync {
    /// The work ahead is `total` units, counted from 0 (again, if the work restarts).
    fn start(&self, total: u64);
    /// `n` more units are done.
    fn advance(&self, n: u64);
    /// The work is over (done or abandoned).
    fn finish(&self);
}

/// No progress shown.
impl Progress for () {
    fn start(&self, _: u64) {}
    fn advance(&self, _: u64) {}
    fn finish(&self) {}
}

impl Progress for ProgressBar {
    fn start(&self, total: u64) {
        self.set_length(total);
        self.set_position(0);
    }
    fn advance(&self, n: u64) {
        self.inc(n);
    }
    fn finish(&self) {
        self.finish_and_clear();
    }
}

/// A spinner with elapsed time for a stage whose size is not known in advance; hidden
/// unless stderr is a terminal.
pub fn spinner(what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template"),
    );
    bar.set_message(what.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}
