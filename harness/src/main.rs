//! `navguard`: run feature files on a real browser, judge them, compare agents, or serve. Each
//! command is a library function ([`navguard_harness::cli`]); here they are only parsed and
//! dispatched.

use clap::Parser as _;
use navguard_harness::cli::{self, Cli, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
    navguard_harness::init_tracing();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("navguard: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Command::Run(args) => runtime.block_on(cli::run::run(args)),
        Command::Repro(args) => runtime.block_on(cli::repro::repro(args)),
        Command::Gate(args) => runtime.block_on(cli::gate::gate(args)),
        Command::Compare(args) => runtime.block_on(cli::compare::compare(args)),
        Command::Site(args) => runtime.block_on(cli::site::site(args)),
        Command::Replay(args) => cli::replay::replay(&args),
        Command::Serve(args) => runtime.block_on(cli::serve::serve(args)),
        Command::Executor(args) => runtime.block_on(cli::executor::executor(args)),
        Command::Mcp(args) => {
            let code = runtime.block_on(cli::mcp::mcp(args));
            // Where stdin is not a pipe (a terminal), tokio reads it on a blocking thread that
            // cannot be cancelled: after SIGTERM, with the input still open, dropping the
            // runtime would wait for that read (the next line of input) forever.
            runtime.shutdown_background();
            code
        }
        Command::Validate(args) => cli::validate::validate(args),
    }
}
