//! What `cargo test` and `cargo nextest` ask of the features binary (`harness = false`), in
//! libtest's words. Each scenario is a test named `<feature file>:<line>: <scenario name>`
//! (the line tells an outline's example rows apart); a feature file that does not parse is a
//! test named by its path, which fails. `--list` prints them as `<name>: test`; a filter (`cargo
//! test <filter>`) runs the scenarios whose test name contains it (one that matches none runs
//! nothing and passes, as libtest does); `--exact <name>` runs that one scenario, as `cargo
//! nextest run` does for each test it listed, each in its own process.

/// libtest's arguments, as `cargo test` and `cargo nextest` pass them.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LibtestArgs {
    /// Only the scenarios whose test name (`<feature file>:<line>: <scenario name>`, as --list
    /// prints them) contains one of these (`cargo test <filter>`).
    #[arg(value_name = "filter")]
    pub filters: Vec<String>,
    /// A filter is a whole test name.
    #[arg(long)]
    pub exact: bool,
    /// List the tests (`<name>: test`, one a line) and run nothing.
    #[arg(long)]
    pub list: bool,
    /// Only ignored tests: there are none.
    #[arg(long)]
    pub ignored: bool,
    /// Accepted for libtest's sake: scenarios are never ignored.
    #[arg(long, hide = true)]
    pub include_ignored: bool,
    /// Show every step as it runs and the progress of waits, as --verbose does (the output is
    /// never captured).
    #[arg(long)]
    pub nocapture: bool,
    #[arg(long, hide = true)]
    pub show_output: bool,
    #[arg(long, hide = true, value_name = "fmt")]
    pub format: Option<String>,
    #[arg(long, hide = true, value_name = "n")]
    pub test_threads: Option<usize>,
    #[arg(long, short = 'q', hide = true)]
    pub quiet: bool,
    #[arg(long, hide = true, value_name = "when")]
    pub color: Option<String>,
    #[arg(short = 'Z', hide = true, value_name = "flag")]
    pub unstable: Vec<String>,
}

/// What the libtest arguments ask of the features binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LibtestAsk {
    /// Print the tests (the ignored ones with `ignored`: none) and stop.
    List { ignored: bool },
    /// Run nothing and pass (only ignored tests were asked for).
    Nothing,
    /// Run the scenarios the filter admits ([`LibtestArgs::filter`]).
    Run,
}

impl LibtestArgs {
    pub fn ask(&self) -> LibtestAsk {
        if self.list {
            return LibtestAsk::List { ignored: self.ignored };
        }
        match self.ignored {
            true => LibtestAsk::Nothing,
            false => LibtestAsk::Run,
        }
    }

    /// The tests the filters admit, listed or run; `None`: all of them.
    pub fn filter(&self) -> Option<TestFilter> {
        (!self.filters.is_empty()).then(|| TestFilter { names: self.filters.clone(), exact: self.exact })
    }
}

/// The tests a libtest filter admits, by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestFilter {
    names: Vec<String>,
    /// Whole names, not parts.
    exact: bool,
}

impl TestFilter {
    /// Exactly the tests named `names` (whole test names, as [`test_name`] makes them).
    pub fn exact(names: Vec<String>) -> Self {
        Self { names, exact: true }
    }

    /// Whether the test called `test` runs.
    pub fn admits(&self, test: &str) -> bool {
        match self.exact {
            true => self.names.iter().any(|name| name == test),
            false => self.names.iter().any(|name| test.contains(name.as_str())),
        }
    }

    /// The one feature file an `--exact` filter names, if it names tests of a single file: the
    /// run then reads only that file (nextest runs each test in a process of its own).
    pub fn only_file(&self) -> Option<&str> {
        let (first, rest) = self.names.split_first()?;
        let file = feature_of(first);
        (self.exact && rest.iter().all(|name| feature_of(name) == file)).then_some(file)
    }

    /// The one scenario an `--exact` filter names, as (feature file, line).
    pub fn only_scenario(&self) -> Option<(&str, usize)> {
        match (self.exact, self.names.as_slice()) {
            (true, [name]) => {
                let (file, rest) = name.split_at(feature_of(name).len());
                let line = rest.strip_prefix(':')?.split_once(": ")?.0.parse().ok()?;
                Some((file, line))
            }
            _ => None,
        }
    }
}

const EXTENSION: &str = ".feature";

/// The feature file part of a test name: what comes before `:<line>: `, or the whole name (a
/// file that does not parse).
fn feature_of(test: &str) -> &str {
    match test.find(&format!("{EXTENSION}:")) {
        Some(at) => &test[..at + EXTENSION.len()],
        None => test,
    }
}

/// A scenario's test name: `<feature file>:<line>: <scenario name>`, with what libtest's list
/// format cannot hold (a line break, a tab, any control character) as a space: nextest reads one
/// test a line.
pub fn test_name(feature: &str, line: usize, scenario: &str) -> String {
    format!("{feature}:{line}: {scenario}").chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        libtest: LibtestArgs,
    }

    fn libtest(args: &[&str]) -> LibtestArgs {
        Cli::try_parse_from(std::iter::once("features").chain(args.iter().copied())).unwrap().libtest
    }

    fn ask(args: &[&str]) -> LibtestAsk {
        libtest(args).ask()
    }

    const TABS: &str = "features/browser/tabs.feature:12: A tab: closed";

    #[test]
    fn what_cargo_test_and_nextest_pass_is_understood() {
        assert_eq!(ask(&["--list", "--format", "terse"]), LibtestAsk::List { ignored: false });
        assert_eq!(ask(&["--list", "--format", "terse", "--ignored"]), LibtestAsk::List { ignored: true });
        assert_eq!(ask(&["--ignored"]), LibtestAsk::Nothing);
        let everything = libtest(&["--nocapture", "-q", "--test-threads", "2", "-Zunstable-options"]);
        assert_eq!(everything.ask(), LibtestAsk::Run);
        assert!(everything.nocapture && everything.filter().is_none());
        let one = libtest(&[TABS, "--exact", "--nocapture"]);
        assert_eq!(one.ask(), LibtestAsk::Run);
        let filter = one.filter().expect("a filter");
        assert!(filter.admits(TABS));
        assert!(!filter.admits("features/browser/tabs.feature:12: A tab"));
        assert_eq!(filter.only_file(), Some("features/browser/tabs.feature"));
        assert_eq!(filter.only_scenario(), Some(("features/browser/tabs.feature", 12)));
    }

    #[test]
    fn a_filter_is_a_part_of_the_name_unless_exact() {
        let filter = libtest(&["tabs.feature", "dialogs"]).filter().expect("a filter");
        assert!(filter.admits(TABS) && filter.admits("features/agents/dialogs.feature:3: x"));
        assert!(!filter.admits("features/core/reliability.feature:3: x"));
        assert_eq!(filter.only_file(), None);
        assert_eq!(filter.only_scenario(), None);
    }

    #[test]
    fn an_exact_file_that_does_not_parse_is_its_own_test() {
        let filter = libtest(&["--exact", "features/broken.feature"]).filter().expect("a filter");
        assert_eq!(filter.only_file(), Some("features/broken.feature"));
        assert_eq!(filter.only_scenario(), None);
    }

    fn tests_of(dir: &std::path::Path) -> Vec<String> {
        let cli = crate::runner::FeaturesCli::try_parse_from(["features"]).unwrap();
        let input = crate::runner::Input::Path(dir.to_owned());
        futures::executor::block_on(crate::runner::scenario_tests(&input, &cli.options, &Default::default()))
    }

    #[test]
    fn each_scenario_of_the_repository_is_a_test_of_its_own() {
        let features = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../features");
        let tests = tests_of(&features);
        assert!(tests.len() > 100, "{tests:?}");
        let unique: std::collections::BTreeSet<&String> = tests.iter().collect();
        assert_eq!(unique.len(), tests.len(), "two scenarios share a test name");
        assert!(tests.iter().all(|t| t.contains(".feature:")), "{tests:?}");
    }

    #[test]
    fn an_outline_s_rows_are_tests_of_their_own_and_a_file_that_does_not_parse_is_one() {
        let dir = tempfile::tempdir().unwrap();
        let outline = "Feature: f\n  Scenario Outline: open <page>\n    When a new tab is created on \"{site}/<page>\"\n\n    \
                       Examples:\n      | page |\n      | a    |\n      | b    |\n";
        std::fs::write(dir.path().join("good.feature"), outline).unwrap();
        std::fs::write(dir.path().join("broken.feature"), "Feature: b\n  Scenarioo: nope\n   | x |\n").unwrap();
        let good = dir.path().join("good.feature").display().to_string();
        let mut tests = tests_of(dir.path());
        tests.sort();
        let expected = [
            dir.path().join("broken.feature").display().to_string(),
            format!("{good}:7: open a"),
            format!("{good}:8: open b"),
        ];
        assert_eq!(tests, expected);
    }

    #[test]
    fn names_are_one_line_each() {
        assert_eq!(test_name("a.feature", 3, "x"), "a.feature:3: x");
        assert_eq!(test_name("a.feature", 3, "two\nlines\t"), "a.feature:3: two lines ");
    }
}
