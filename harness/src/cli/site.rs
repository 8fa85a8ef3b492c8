//! `navguard site`: the fixture site served alone (as the fixture crate's `navguard-site` does),
//! for a person writing a feature or reproducing a race by hand in their own browser.

use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct SiteArgs {
    /// The first origin's port (the second takes any free one); 0 or absent: any free port.
    #[arg(long, default_value_t = 0)]
    pub port: u16,
}

/// Serves until Ctrl-C or SIGTERM; exits 2 when the site cannot start.
pub async fn site(args: SiteArgs) -> ExitCode {
    navguard_fixtures::serve_by_hand(args.port, "navguard site").await
}
