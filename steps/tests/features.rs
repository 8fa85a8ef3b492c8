//! `cargo test --test features`: every feature in `features/` on a real browser.
//! `cargo test --test features -- --input <glob>` runs other feature files with the same steps.

use std::process::ExitCode;

fn main() -> ExitCode {
    navguard_harness::init_tracing();
    // Run from the workspace's top folder, as a user runs `navguard run`: feature paths in the
    // reports and the default report folder (target/navguard) are relative to it.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("steps/ sits in the workspace");
    if let Err(e) = std::env::set_current_dir(root) {
        eprintln!("cannot enter {}: {e}", root.display());
        return ExitCode::from(2);
    }
    let features = std::path::PathBuf::from("features");
    let (input, opts) = match navguard_harness::runner::parse_args(std::env::args().collect(), features) {
        Ok(parsed) => parsed,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(navguard_harness::run_features(input, opts))
}
