//! The runner's options, defined once: `navguard run`, `gate`, `repro` and `compare` take them,
//! and `cargo test --test features -- <options>` parses them; the input a run reads.

use cucumber::gherkin::tagexpr::TagOperation;
use cucumber::parser;
use navguard::adapter::{BrowserConfig, BrowserKind};
use std::path::{Path, PathBuf};

/// How many scenarios run at once unless `--concurrency` says otherwise.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// Where a run's reports go unless `--report-dir` says otherwise.
pub const DEFAULT_REPORT_DIR: &str = "target/navguard";

pub use crate::world::DEFAULT_CALL_TIMEOUT;

/// The browser a run drives: `navguard run`, `gate` and `repro` all take these.
#[derive(clap::Args, Clone, Debug)]
pub struct BrowserOptions {
    /// The browser: chromium or firefox.
    #[arg(long, env = "NAVGUARD_BROWSER", default_value = "chromium")]
    pub browser: BrowserKind,
    /// A running WebDriver remote end (another chromedriver, a Selenium Grid) to use instead of
    /// starting the browser's driver here.
    #[arg(long, env = "NAVGUARD_WEBDRIVER_URL", value_name = "url")]
    pub webdriver_url: Option<String>,
    /// Show the browser window (needs a display).
    #[arg(long)]
    pub headful: bool,
}

/// The runner's options, defined once: `navguard run` and `navguard gate` flatten them, and
/// `cargo test --test features -- <options>` parses them ([`FeaturesCli`]). Nothing is
/// retried: a flaky scenario shows as one.
#[derive(clap::Args, Clone, Debug)]
pub struct RunOptions {
    /// Only the scenarios whose name matches this regular expression.
    #[arg(long, short = 'n', value_name = "regex")]
    pub name: Option<regex::Regex>,
    /// Only the scenarios whose tags (with their feature's and rule's) match this expression,
    /// e.g. `@browser and not @slow`.
    #[arg(long, short = 't', value_name = "tagexpr")]
    pub tags: Option<TagOperation>,
    /// How many scenarios run at once (at least 1).
    #[arg(long, short = 'c', value_name = "n", default_value_t = DEFAULT_CONCURRENCY, value_parser = at_least_one::<usize>)]
    pub concurrency: usize,
    /// Stop after the first failed scenario; the rest do not run.
    #[arg(long)]
    pub fail_fast: bool,
    /// Spread the scenarios over this many browser sessions (here or on a Selenium Grid), each
    /// scenario still in a user context of its own (at least 1).
    #[arg(long, value_name = "n", default_value_t = 1, value_parser = at_least_one::<usize>)]
    pub sessions: usize,
    /// The agent under test of the conformance steps: a built-in agent (navguard, navguard-mcp,
    /// playwright-mcp, playwright-cli, chrome-devtools-mcp, browser-use, agent-browser,
    /// agent-infra, vibium, stagehand) or the path of a description file (agents/*.toml). The built-in agents run from their
    /// packages in $NAVGUARD_AGENTS_DIR, else in ./agents (`bash ci/setup.sh agents`).
    #[arg(long, value_name = "name|path")]
    pub agent: Option<String>,
    /// How long one call of the agent under test may take, in seconds (at least 1); a call
    /// that does not answer in time fails its scenario.
    #[arg(long, value_name = "s", default_value_t = DEFAULT_CALL_TIMEOUT.as_secs(), value_parser = at_least_one::<u64>)]
    pub call_timeout: u64,
    /// Print every step of every scenario as it runs, and the progress of waits live. Without
    /// it: one line per scenario as it ends (status, time, file:line, name), then each failure
    /// in full and the summary; progress shows live only on a terminal.
    #[arg(long, short = 'v', env = "NAVGUARD_VERBOSE", value_parser = clap::builder::BoolishValueParser::new())]
    pub verbose: bool,
    #[command(flatten)]
    pub browser: BrowserOptions,
}

/// Parses a count that must be at least 1 (`--concurrency`, `--repeat`).
pub fn at_least_one<N>(text: &str) -> Result<N, OptionError>
where
    N: std::str::FromStr<Err = std::num::ParseIntError> + Default + PartialEq,
{
    match text.parse::<N>() {
        Ok(n) if n == N::default() => Err(OptionError::Zero),
        Ok(n) => Ok(n),
        Err(source) => Err(OptionError::NotANumber { text: text.to_owned(), source }),
    }
}

/// Why an option's value cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OptionError {
    #[error("0 would run nothing: give at least 1")]
    Zero,
    #[error("{text:?} is not a whole number")]
    NotANumber {
        text: String,
        #[source]
        source: std::num::ParseIntError,
    },
    #[error("{text:?} is neither an existing file or folder nor a glob: {source}")]
    BadGlob {
        text: String,
        #[source]
        source: <parser::basic::Walker as std::str::FromStr>::Err,
    },
}

/// The feature files a run reads: a file or a folder, or a glob of files.
#[derive(Clone, Debug)]
pub enum Input {
    Path(PathBuf),
    Glob(parser::basic::Walker),
}

impl Input {
    /// An existing file or folder is a path (as a glob, an absolute path would silently match
    /// nothing); anything else must be a glob.
    pub fn parse(text: &str) -> Result<Self, OptionError> {
        if Path::new(text).exists() {
            return Ok(Self::Path(PathBuf::from(text)));
        }
        text.parse().map(Self::Glob).map_err(|source| OptionError::BadGlob { text: text.to_owned(), source })
    }
}

/// `cargo test --test features -- <options>`: the runner's options, the input and the report
/// folder.
#[derive(clap::Parser, Clone, Debug)]
#[command(
    name = "features",
    bin_name = "cargo test --test features --",
    about = "Runs feature files (features/ unless --input says otherwise) on a real browser with navguard's steps."
)]
pub struct FeaturesCli {
    /// A feature file or folder, or a glob of feature files [default: features]
    #[arg(long, short = 'i', value_name = "path|glob", value_parser = Input::parse)]
    pub input: Option<Input>,
    /// Where the reports and the failure artifacts go [default: target/navguard; for one
    /// scenario named with --exact, as nextest runs each, a folder of its own under
    /// target/navguard/tests]
    #[arg(long, value_name = "dir")]
    pub report_dir: Option<PathBuf>,
    #[command(flatten)]
    pub options: RunOptions,
    #[command(flatten)]
    pub libtest: crate::libtest::LibtestArgs,
}

/// The browser a run starts, from its options.
pub(super) fn browser_config(options: &BrowserOptions) -> BrowserConfig {
    BrowserConfig {
        browser: options.browser,
        webdriver_url: options.webdriver_url.clone(),
        headless: !options.headful,
        // A failed scenario's artifacts hold the BiDi events behind it (bidi.jsonl).
        record_wire: true,
        ..BrowserConfig::default()
    }
}
