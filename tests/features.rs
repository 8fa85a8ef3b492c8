//! `cargo test --test features`: every feature in `features/` on a real browser.
//! `cargo test --test features -- --input <glob>` runs other feature files with the same steps.

// Shared with the `navguard` binary; each target uses a part of it.
#[allow(dead_code, unused_imports)]
#[path = "../steps/mod.rs"]
mod steps;

use std::process::ExitCode;

fn main() -> ExitCode {
    steps::init_tracing();
    let features = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("features");
    let (input, opts) = match steps::runner::parse_args(std::env::args().collect(), features) {
        Ok(parsed) => parsed,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(steps::run_features(input, opts))
}
