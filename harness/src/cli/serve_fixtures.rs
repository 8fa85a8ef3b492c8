//! `navguard serve-fixtures`: the fixture site on two loopback origins, until Ctrl-C.

use crate::fixtures::FixtureSite;
use std::process::ExitCode;

/// Serves the site and prints its origins; exits 2 when it cannot start.
pub async fn serve_fixtures() -> ExitCode {
    let site = match FixtureSite::start().await {
        Ok(site) => site,
        Err(e) => {
            eprintln!("navguard: cannot start the fixture site: {e}");
            return ExitCode::from(2);
        }
    };
    println!("site:  {}", site.site);
    println!("other: {}", site.other);
    println!("try {}/page?title=Hello — Ctrl-C stops", site.site);
    let _ = tokio::signal::ctrl_c().await;
    site.shutdown().await;
    ExitCode::SUCCESS
}
