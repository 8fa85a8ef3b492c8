//! The `navguard` command: its arguments, parsed by clap, and one module per command, each a
//! library function the binary calls and a test can call without it. `main.rs` only parses and
//! dispatches.

pub mod compare;
pub mod executor;
pub mod gate;
pub mod mcp;
pub mod replay;
pub mod repro;
pub mod run;
pub mod serve;
pub mod site;
mod suite;
pub mod validate;

pub use suite::SuiteError;

use clap::{Parser, Subcommand};

/// `navguard`: run feature files on a real browser, judge them, compare agents, or serve.
#[derive(Parser, Debug)]
#[command(name = "navguard", version, about = "A browser agent's navigation guards, proven on a real browser")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run feature files (a file or a folder) with the harness's steps, on a real browser.
    Run(run::RunArgs),
    /// Run one scenario (`<feature file>:<line>`), print its timeline (model, agent and browser
    /// lanes) and say in one line whether the race reproduced.
    Repro(repro::ReproArgs),
    /// The release gate: run the suite (repeated, sharded, filtered by name or tags),
    /// measure pass, flake, false-stop and misjudgement rates and the p50/p95 of scenario time
    /// and guard wait, and fail on a missed threshold or an unexpected result.
    ///
    /// Its files are looked for in the current folder, laid out as navguard's repository lays
    /// them out (features/, gate/); navguard carries its own thresholds, the browsers' and the
    /// built-in agents' known failures and the agent-neutral scenarios, and uses them where the
    /// folder has none.
    Gate(gate::GateArgs),
    /// The same scenarios against several agents, one after the other, on this machine and
    /// browser: writes `index.html` and `compare.md` (per scenario and agent: passed, failed
    /// with its first failing step, or not applicable; per agent its version and totals; each
    /// call's time with its ratio to navguard's).
    Compare(compare::CompareArgs),
    /// Serve the fixture site on two loopback origins, for writing a feature or reproducing a
    /// race by hand in your own browser: prints both origins and the routes, serves until
    /// Ctrl-C or SIGTERM.
    #[command(alias = "serve-fixtures")]
    Site(site::SiteArgs),
    /// Renders a task's audit (`DIR/audit/<taskId>.jsonl`) as one self-contained page: each
    /// step, its risk and confirmation, its screenshots inline.
    Replay(replay::ReplayArgs),
    /// The orchestrator (docs/design/orchestrator.md): tasks, actions and confirmations over HTTP on loopback,
    /// kept in SQLite under --data-dir; the bearer secret comes from NAVGUARD_SECRET (at least
    /// 16 characters). Its first line: `navguard serve: listening on http://127.0.0.1:<port>`.
    Serve(serve::ServeArgs),
    /// The executor (docs/design/orchestrator.md), beside its browser: launches the browser, asks the orchestrator
    /// at --server for actions, runs each task on its own tabs through the agent core's tools
    /// and guards, and reports what it saw with before/after screenshots. A journal under
    /// --data-dir keeps it from running an action twice across restarts; `{secret:NAME}` in an
    /// action is typed from --secrets (a dotenv file) and never reported. The secret comes from
    /// NAVGUARD_SECRET. Its first line: `navguard executor: <browser> ready; polling <server>`.
    Executor(executor::ExecutorArgs),
    /// The agent core as a Model Context Protocol server over stdio: the core's tools (each
    /// one's name, description and JSON Schema from its tool table) with every guard on, for
    /// Claude Code, Cursor, VS Code or an agent of your own (docs/mcp.md). The browser starts
    /// on the first call; the server exits when its input ends or on SIGTERM, and leaves no
    /// driver or browser behind.
    Mcp(mcp::McpArgs),
    /// Check feature files without a browser: every feature parses (as the official Gherkin
    /// parser reads it), every step is defined exactly once, and, with a contracts file, every
    /// contract has a scenario and every scenario proves a known contract.
    Validate(validate::ValidateArgs),
}
