//! The fixture site served by hand, until the person stops it.

use crate::{FixtureSite, ROUTES};
use std::io::Write;
use std::process::ExitCode;

/// Serves the site on loopback (the first origin on `port`, 0 for any free one), prints both
/// origins' URLs and the routes, and serves until Ctrl-C or SIGTERM, releasing every held
/// response on the way out: the site for a person writing a feature or reproducing a race by
/// hand in their own browser (`navguard-site`, `navguard site`). `program` names the command in
/// its messages. Exit codes: 0 after a clean stop, 2 when the site could not start, 1 when its
/// URLs could not be printed or the stop signals not listened for.
pub async fn serve_by_hand(port: u16, program: &str) -> ExitCode {
    // Listen for the stop signals before printing the URLs: a SIGTERM sent as soon as they are
    // read must stop the site cleanly, not kill it with held responses still open.
    let stop = match stop_signals() {
        Ok(stop) => stop,
        Err(e) => {
            eprintln!("{program}: cannot listen for Ctrl-C and SIGTERM: {e}");
            return ExitCode::FAILURE;
        }
    };
    let site = match FixtureSite::start_on_port(port).await {
        Ok(site) => site,
        Err(e) => {
            eprintln!("{program}: cannot serve on 127.0.0.1:{port}: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = announce(&site, &mut std::io::stdout().lock()) {
        eprintln!("{program}: cannot print the site's URLs: {e}");
        site.shutdown().await;
        return ExitCode::FAILURE;
    }
    stop.await;
    site.shutdown().await;
    ExitCode::SUCCESS
}

/// Both origins' URLs, then the routes, one per line, flushed: a reader waits for these lines.
fn announce(site: &FixtureSite, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "site:  {}", site.site)?;
    writeln!(out, "other: {}", site.other)?;
    writeln!(out, "routes, on both origins (docs/gherkin-language.md says what each does):")?;
    for route in ROUTES {
        writeln!(out, "  {route}")?;
    }
    writeln!(out, "try {}/page?title=Hello; Ctrl-C or SIGTERM stops the site", site.site)?;
    out.flush()
}

/// Resolves on the first Ctrl-C (SIGINT) or SIGTERM; the handlers are in place when it returns.
#[cfg(unix)]
fn stop_signals() -> std::io::Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            biased;
            // Either signal stops the site the same way; the order is only fixed.
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}

/// Resolves on the first Ctrl-C (there is no SIGTERM here).
#[cfg(not(unix))]
fn stop_signals() -> std::io::Result<impl Future<Output = ()>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
