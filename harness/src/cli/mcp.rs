//! `navguard mcp`: the agent core as an MCP server over stdio (the `navguard-mcp` crate).

use navguard::adapter::{BrowserConfig, BrowserKind};
use navguard_mcp::Reach;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct McpArgs {
    /// The browser it starts on the first call: chromium or firefox, with a fresh profile.
    #[arg(long, default_value = "chromium")]
    pub browser: BrowserKind,
    /// A running WebDriver remote end (a chromedriver, a Selenium Grid) to open the session
    /// on, instead of starting the browser's driver here.
    #[arg(long, value_name = "url", conflicts_with = "join")]
    pub webdriver_url: Option<String>,
    /// Show the browser window (needs a display).
    #[arg(long, alias = "headful")]
    pub headed: bool,
    /// Act in a browser another program drives, by joining its WebDriver BiDi session at its
    /// WebSocket URL (`ws://127.0.0.1:PORT/session/ID`, its new session's `webSocketUrl`); the
    /// browser is left open at the end. `navguard compare` runs the server so.
    #[arg(long, value_name = "ws-url")]
    pub join: Option<String>,
    /// The folder `upload_file` may take files from (none by default: every upload is
    /// refused); a path outside it, or a link that leads outside it, is refused.
    #[arg(long, value_name = "dir")]
    pub files: Option<std::path::PathBuf>,
}

/// Serves until the client ends its input or shuts the session down, or SIGTERM; exits 1 when
/// no MCP client spoke to it.
pub async fn mcp(args: McpArgs) -> ExitCode {
    let McpArgs { browser, webdriver_url, headed, join, files } = args;
    let config = BrowserConfig { browser, webdriver_url, headless: !headed, ..BrowserConfig::default() };
    let reach = match join {
        Some(bidi_url) => Reach::Join { bidi_url, config },
        None => Reach::Launch(config),
    };
    match navguard_mcp::serve_stdio(reach, files).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("navguard mcp: {e}");
            ExitCode::FAILURE
        }
    }
}
