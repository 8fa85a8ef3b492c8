//! `navguard validate`: without a browser, checks that every contract has a scenario, every
//! scenario proves known contracts, every step is defined exactly once, and every feature
//! parses.

use crate::summary::unmatched_steps;
use cucumber::feature::Ext as _;
use cucumber::gherkin::{self, GherkinEnv};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The tag prefix that names a contract.
pub const CONTRACT_TAG: &str = "contract-";

/// What validation found.
#[derive(Debug, Default)]
pub struct Findings {
    /// Each problem, as one line naming its file and line.
    pub problems: Vec<String>,
    /// How many contracts the file lists.
    pub contracts: usize,
    /// How many scenarios (outline examples expanded) were read.
    pub scenarios: usize,
}

/// Reads `id sentence` lines (blank lines and `#` comments skipped).
pub fn read_contracts(path: &Path, findings: &mut Findings) -> BTreeMap<String, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            findings.problems.push(format!("{}: cannot read the contracts file: {e}", path.display()));
            return BTreeMap::new();
        }
    };
    let mut contracts = BTreeMap::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
    {
        let (id, sentence) = line.trim().split_once(char::is_whitespace).unwrap_or((line.trim(), ""));
        if sentence.trim().is_empty() {
            findings.problems.push(format!("{}:{}: contract {id} has no sentence", path.display(), n + 1));
        }
        if contracts.insert(id.to_owned(), sentence.trim().to_owned()).is_some() {
            findings.problems.push(format!("{}:{}: contract {id} is listed twice", path.display(), n + 1));
        }
    }
    findings.contracts = contracts.len();
    contracts
}

/// The `.feature` files under `dir` (or `dir` itself if it is a file), sorted.
pub fn feature_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return vec![dir.to_owned()].into_iter().filter(|p| p.is_file()).collect();
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    files
        .into_iter()
        .flat_map(|p| {
            if p.is_dir() {
                feature_files(&p)
            } else if p.extension().is_some_and(|e| e == "feature") {
                vec![p]
            } else {
                vec![]
            }
        })
        .collect()
}

/// Parses a feature and expands its outlines' examples; a problem goes to `findings`.
pub fn parse(path: &Path, findings: &mut Findings) -> Option<gherkin::Feature> {
    let feature = match gherkin::Feature::parse_path(path, GherkinEnv::default()) {
        Ok(feature) => feature,
        Err(gherkin::ParseFileError::Parsing { source, .. }) => {
            // The parser's own text carries the line and column ("Error at L:C: expected …").
            findings.problems.push(format!("{}: the feature does not parse: {source}", path.display()));
            return None;
        }
        Err(e) => {
            findings.problems.push(format!("{}: {e}", path.display()));
            return None;
        }
    };
    match feature.expand_examples() {
        Ok(feature) => Some(feature),
        Err(e) => {
            findings.problems.push(format!("{}: {e}", path.display()));
            None
        }
    }
}

/// Validates the features under `features` against the contracts in `contracts`.
pub fn validate(features: &Path, contracts: &Path) -> Findings {
    let mut findings = Findings::default();
    let known = read_contracts(contracts, &mut findings);
    let mut proven = BTreeSet::new();
    for path in feature_files(features) {
        let Some(feature) = parse(&path, &mut findings) else { continue };
        let background: Vec<gherkin::Step> = feature.background.iter().flat_map(|b| b.steps.clone()).collect();
        let rules = feature.rules.iter().flat_map(|r| r.scenarios.iter().map(move |s| (r.tags.clone(), s)));
        let scenarios = feature.scenarios.iter().map(|s| (Vec::new(), s)).chain(rules);
        for (rule_tags, scenario) in scenarios {
            findings.scenarios += 1;
            let at = format!("{}:{}", path.display(), scenario.position.line);
            let tags = feature.tags.iter().chain(&rule_tags).chain(&scenario.tags);
            let ids: Vec<&str> = tags.filter_map(|t| t.strip_prefix(CONTRACT_TAG)).collect();
            if ids.is_empty() {
                findings.problems.push(format!(
                    "{at}: scenario {:?} proves no contract (tag it @{CONTRACT_TAG}<id>)",
                    scenario.name
                ));
            }
            for id in ids {
                match known.contains_key(id) {
                    true => drop(proven.insert(id.to_owned())),
                    false => findings
                        .problems
                        .push(format!("{at}: scenario {:?} names an unknown contract {id}", scenario.name)),
                }
            }
            let steps: Vec<gherkin::Step> = background.iter().chain(&scenario.steps).cloned().collect();
            for problem in unmatched_steps(&steps) {
                findings.problems.push(format!("{}: {problem} (scenario {:?})", path.display(), scenario.name));
            }
        }
    }
    for id in known.keys().filter(|id| !proven.contains(*id)) {
        findings.problems.push(format!("{}: contract {id} has no scenario", contracts.display()));
    }
    findings
}
