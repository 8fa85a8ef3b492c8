//! Which scenarios of the input a run runs (`--name`, `--tags`, the gate's shard, repro's line,
//! libtest's filter), and the feature files read as the run and `navguard validate` read them.

use super::{Input, RunOptions};
use crate::report;
use crate::run_context::RunMode;
use cucumber::gherkin::tagexpr::TagOperation;
use cucumber::parser;
use cucumber::tag::Ext as _;
use std::path::{Path, PathBuf};

/// Which scenarios of the input a run runs: `--name`, `--tags`, the gate's shard, repro's line
/// and libtest's filter all narrow them.
#[derive(Clone, Debug)]
pub(super) struct Selection {
    name: Option<regex::Regex>,
    tags: Option<TagOperation>,
    shard: Option<crate::gate::Shard>,
    line: Option<usize>,
    tests: Option<crate::libtest::TestFilter>,
}

impl Selection {
    pub(super) fn of(options: &RunOptions, mode: &RunMode) -> Self {
        Self {
            name: options.name.clone(),
            tags: options.tags.clone(),
            shard: mode.shard,
            line: mode.line,
            tests: mode.tests.clone(),
        }
    }

    pub(super) fn admits(
        &self,
        feature: &cucumber::gherkin::Feature,
        rule: Option<&cucumber::gherkin::Rule>,
        scenario: &cucumber::gherkin::Scenario,
    ) -> bool {
        let tagged = || {
            let all = feature.tags.iter().chain(rule.iter().flat_map(|r| &r.tags)).chain(&scenario.tags);
            self.tags.as_ref().is_none_or(|t| t.eval(all))
        };
        let test = || {
            let name = crate::libtest::test_name(&report::feature_key(feature), scenario.position.line, &scenario.name);
            self.tests.as_ref().is_none_or(|tests| tests.admits(&name))
        };
        self.name.as_ref().is_none_or(|re| re.is_match(&scenario.name))
            && tagged()
            && self.shard.is_none_or(|shard| shard.contains(&scenario.name))
            && self.line.is_none_or(|line| scenario.position.line == line)
            && test()
    }
}

/// The test names (`cargo test -- --list`, [`crate::libtest`]) of the scenarios a run of
/// `input` with `options` would run, and of the feature files that do not parse (a run fails
/// on each), in the order the files are read. Reads the files only: no browser.
pub async fn scenario_tests(input: &Input, options: &RunOptions, mode: &RunMode) -> Vec<String> {
    use cucumber::Parser as _;
    use futures::StreamExt as _;
    let selection = Selection::of(options, mode);
    let (path, features) = match input {
        Input::Path(path) => (path.clone(), None),
        Input::Glob(glob) => (PathBuf::new(), Some(glob.clone())),
    };
    let parsed: Vec<Parsed> = StarBinding::default().parse(path, parser::basic::Cli { features }).collect().await;
    let mut tests = Vec::new();
    for feature in parsed {
        let feature = match feature {
            Ok(feature) => feature,
            Err(e) => {
                // Named by its file, as `--exact` finds it again: a run of it fails on the error.
                let failure = report::parse_failure(&e);
                let name = failure.path.map_or(failure.message, |p| report::as_typed(Path::new(&p)));
                if selection.tests.as_ref().is_none_or(|tests| tests.admits(&name)) {
                    tests.push(name);
                }
                continue;
            }
        };
        let key = report::feature_key(&feature);
        let scenarios = feature.scenarios.iter().map(|s| (None, s));
        let in_rules = feature.rules.iter().flat_map(|r| r.scenarios.iter().map(move |s| (Some(r), s)));
        for (rule, scenario) in scenarios.chain(in_rules) {
            if selection.admits(&feature, rule, scenario) {
                tests.push(crate::libtest::test_name(&key, scenario.position.line, &scenario.name));
            }
        }
    }
    tests
}

/// cucumber's parser, with `*` steps bound as `navguard validate` binds them
/// ([`crate::validate::bind_star_steps`]): what validate accepts, the run runs.
#[derive(Clone, Debug, Default)]
pub(super) struct StarBinding(parser::Basic);

pub(super) type Parsed = parser::Result<cucumber::gherkin::Feature>;

impl<I: AsRef<Path>> cucumber::Parser<I> for StarBinding {
    type Cli = parser::basic::Cli;
    type Output = futures::stream::Map<<parser::Basic as cucumber::Parser<I>>::Output, fn(Parsed) -> Parsed>;

    fn parse(self, input: I, cli: Self::Cli) -> Self::Output {
        use futures::StreamExt as _;
        fn bind(parsed: Parsed) -> Parsed {
            parsed.map(|mut feature| {
                crate::validate::bind_star_steps(&mut feature);
                feature
            })
        }
        self.0.parse(input, cli).map(bind as fn(Parsed) -> Parsed)
    }
}
