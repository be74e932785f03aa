//! Progress bars on stderr, hidden when stderr is not a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A byte-count progress bar for `total` bytes of input; hidden unless stderr is a terminal.
pub fn bytes_bar(total: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}
