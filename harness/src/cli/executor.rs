//! `navguard executor`: the orchestrator's executor, beside its browser.

use super::serve::{risk_policy, secret};
use crate::runner::BrowserOptions;
use std::path::PathBuf;
use std::process::ExitCode;

// What `navguard executor` is given.
#[derive(clap::Args, Debug)]
pub struct ExecutorArgs {
    /// The orchestrator's URL (loopback), as `navguard serve` printed it.
    #[arg(long, value_name = "url")]
    pub server: String,
    /// Where the journal lives.
    #[arg(long, value_name = "dir", default_value = "navguard-executor")]
    pub data_dir: PathBuf,
    /// A dotenv file of the values `{secret:NAME}` stands for.
    #[arg(long, value_name = "file")]
    pub secrets: Option<PathBuf>,
    /// The words that make a click high-risk when a control's accessible name says one,
    /// comma-separated; they replace the default list (buy, order, pay, purchase, delete,
    /// remove, send, publish, post, checkout, transfer).
    #[arg(long, value_name = "words", value_delimiter = ',')]
    pub risk_words: Option<Vec<String>>,
    /// The folder `upload_file` may take files from (none by default: every upload is
    /// refused); a path outside it, or a link that leads outside it, is refused.
    #[arg(long, value_name = "dir")]
    pub files: Option<PathBuf>,
    #[command(flatten)]
    pub browser: BrowserOptions,
}

/// Runs until stopped; a bad argument or environment exits 2, any other failure 1.
pub async fn executor(args: ExecutorArgs) -> ExitCode {
    let ExecutorArgs { server, data_dir, secrets, risk_words, files, browser } = args;
    let config = navguard_orchestrator::executor::ExecutorConfig {
        server,
        browser: browser.browser,
        webdriver_url: browser.webdriver_url,
        headless: !browser.headful,
        data_dir,
        secrets,
        secret: secret(),
        risk: risk_policy(risk_words),
        files,
    };
    match navguard_orchestrator::executor::run(config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("navguard executor: {e}");
            ExitCode::from(if e.is_usage() { 2 } else { 1 })
        }
    }
}
