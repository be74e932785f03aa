//! `warcdex pywb-config`: flags, then the library (`warcdex::serve::pywb`).

use std::path::PathBuf;

use clap::Args;
use warcdex::serve::pywb::{collection_name, write_config, PywbConfig, DEFAULT_SERVER};

/// `warcdex pywb-config`.
#[derive(Debug, Args)]
pub struct PywbConfigArgs {
    /// The collection's directory (built by `warcdex update`, served by `warcdex serve -d`).
    pub collection: PathBuf,
    /// The collection's name in pywb, the first segment of its replay URLs (default: the
    /// directory's name).
    #[arg(long)]
    pub name: Option<String>,
    /// The URL pywb reaches `warcdex serve` at (its /cdx and /warcs/ routes).
    #[arg(long, value_name = "URL", default_value = DEFAULT_SERVER)]
    pub server: String,
    /// Write the config to this file (under a temporary name, renamed when complete)
    /// instead of stdout.
    #[arg(short = 'o', long = "out", value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Runs `warcdex pywb-config`.
pub fn run(a: PywbConfigArgs) -> anyhow::Result<i32> {
    let dir_name = collection_name(&a.collection)?;
    let cfg = PywbConfig::new(a.name.as_deref().unwrap_or(&dir_name), &a.server)?;
    super::with_output(a.out.as_deref(), |out| Ok(write_config(out, &cfg)?))?;
    Ok(0)
}
