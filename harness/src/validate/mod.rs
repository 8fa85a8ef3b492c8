//! `navguard validate [PATH]`: without a browser, checks a feature file or a folder of them:
//! every feature parses (as the official Gherkin parser reads it), every step is defined exactly
//! once (Backgrounds, Rules and their Backgrounds, and `*` steps included), and, when there is a
//! contracts file, every contract has a scenario and every scenario proves known contracts.

mod parse;
mod syntax;

pub use parse::{FileError, bind_star_steps, parse};
pub use syntax::{SyntaxError, check_syntax, normalise};

use crate::world::NavWorld;
use cucumber::gherkin;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The tag prefix that names a contract.
pub const CONTRACT_TAG: &str = "contract-";

/// The contracts file a folder of features may hold.
pub const CONTRACTS_FILE: &str = "contracts.txt";

/// What validation found.
#[derive(Debug, Default)]
pub struct Findings {
    /// Each problem, as one line naming its file and line.
    pub problems: Vec<String>,
    /// The contracts file read, if any.
    pub contracts_file: Option<PathBuf>,
    /// How many contracts the file lists.
    pub contracts: usize,
    /// How many feature files were read.
    pub files: usize,
    /// How many scenarios (outline examples expanded) were read.
    pub scenarios: usize,
}

/// Why there is nothing to validate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ValidateError {
    #[error("no such feature file or folder: {}", .0.display())]
    NoSuchPath(PathBuf),
    #[error("{} holds no .feature file", .0.display())]
    NoFeatures(PathBuf),
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

/// The `.feature` files under `path` (itself, if it is a file), in name order.
pub fn feature_files(path: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(path) else {
        return vec![path.to_owned()].into_iter().filter(|p| p.is_file()).collect();
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    files
        .into_iter()
        .flat_map(|p| match (p.is_dir(), p.extension().is_some_and(|e| e == "feature")) {
            (true, _) => feature_files(&p),
            (false, true) => vec![p],
            (false, false) => vec![],
        })
        .collect()
}

/// The steps no definition matches, or several do.
fn unmatched(steps: &[gherkin::Step]) -> Vec<String> {
    let collection = <NavWorld as cucumber::World>::collection();
    steps
        .iter()
        .filter_map(|step| {
            let how = match collection.find(step) {
                Ok(Some(_)) => return None,
                Ok(None) => "undefined",
                Err(_) => "ambiguous",
            };
            Some(format!("{how} step at line {}: {}{}", step.position.line, step.keyword, step.value))
        })
        .collect()
}

/// The contracts file to check against: the one given, or `<folder>/contracts.txt` beside the
/// features if there is one.
pub fn contracts_for(path: &Path, given: Option<&Path>) -> Option<PathBuf> {
    given.map(Path::to_owned).or_else(|| Some(path.join(CONTRACTS_FILE)).filter(|c| path.is_dir() && c.is_file()))
}

/// Validates the features at `path` (a file or a folder), against `contracts` if given.
pub fn validate(path: &Path, contracts: Option<&Path>) -> Result<Findings, ValidateError> {
    if !path.exists() {
        return Err(ValidateError::NoSuchPath(path.to_owned()));
    }
    let files = feature_files(path);
    if files.is_empty() {
        return Err(ValidateError::NoFeatures(path.to_owned()));
    }
    let mut findings =
        Findings { files: files.len(), contracts_file: contracts.map(Path::to_owned), ..Default::default() };
    let known = contracts.map(|c| read_contracts(c, &mut findings));
    let mut proven = BTreeSet::new();
    for path in files {
        let feature = match parse(&path) {
            Ok(Some(feature)) => feature,
            Ok(None) => continue,
            Err(e @ (FileError::Syntax(_) | FileError::Parser { .. })) => {
                findings.problems.push(format!("{}:{e}", path.display()));
                continue;
            }
            Err(e) => {
                findings.problems.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let background: Vec<gherkin::Step> = feature.background.iter().flat_map(|b| b.steps.clone()).collect();
        let mut checked = BTreeSet::new();
        let mut check = |steps: &[gherkin::Step], findings: &mut Findings, scenario: &str| {
            for step in steps.iter().filter(|s| checked.insert(s.position.line)) {
                for problem in unmatched(std::slice::from_ref(step)) {
                    findings.problems.push(format!("{}: {problem} (in {scenario})", path.display()));
                }
            }
        };
        check(&background, &mut findings, "the Background");
        for rule in &feature.rules {
            if let Some(b) = &rule.background {
                check(&b.steps, &mut findings, &format!("the Background of rule {:?}", rule.name));
            }
        }
        let rules = feature.rules.iter().flat_map(|r| r.scenarios.iter().map(move |s| (r.tags.clone(), s)));
        let scenarios = feature.scenarios.iter().map(|s| (Vec::new(), s)).chain(rules);
        for (rule_tags, scenario) in scenarios {
            findings.scenarios += 1;
            let at = format!("{}:{}", path.display(), scenario.position.line);
            check(&scenario.steps, &mut findings, &format!("scenario {:?}", scenario.name));
            let Some(known) = &known else { continue };
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
        }
    }
    if let (Some(known), Some(file)) = (&known, contracts) {
        for id in known.keys().filter(|id| !proven.contains(*id)) {
            findings.problems.push(format!("{}: contract {id} has no scenario", file.display()));
        }
    }
    Ok(findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPEN: &str = "When a new tab is created on \"{site}/page\"";

    /// Validates `files` (name, content) in a fresh folder, with `contracts` beside them if given.
    fn check(files: &[(&str, &[u8])], contracts: Option<&str>) -> Findings {
        let dir = tempfile::tempdir().unwrap();
        for (name, body) in files {
            std::fs::write(dir.path().join(name), body).unwrap();
        }
        if let Some(c) = contracts {
            std::fs::write(dir.path().join(CONTRACTS_FILE), c).unwrap();
        }
        validate(dir.path(), contracts_for(dir.path(), None).as_deref()).unwrap()
    }

    fn problems(files: &[(&str, &[u8])]) -> Vec<String> {
        check(files, None)
            .problems
            .into_iter()
            .map(|p| p.rsplit_once('/').map_or(p.clone(), |(_, f)| f.to_owned()))
            .collect()
    }

    #[test]
    fn a_byte_order_mark_an_empty_file_and_a_comments_only_file_are_valid() {
        let bom = format!("\u{feff}Feature: f\n  Scenario: s\n    {OPEN}\n");
        let files: [(&str, &[u8]); 3] =
            [("bom.feature", bom.as_bytes()), ("empty.feature", b""), ("comments.feature", b"# later\n\n# more\n")];
        let findings = check(&files, None);
        assert_eq!((findings.problems, findings.scenarios, findings.files), (Vec::<String>::new(), 1, 3));
    }

    #[test]
    fn a_table_row_without_its_closing_bar_is_read_as_the_official_parser_reads_it() {
        assert_eq!(normalise("| a | b\n| c |\n").unwrap(), "| a |\n| c |\n");
        assert_eq!(normalise("| a \\| b\n").unwrap(), "|\n", "an escaped bar is not a cell's end");
        let kept = "Feature: f\n  Scenario: s\n    Given x\n      \"\"\"\n      | inside a doc string\n      \"\"\"\n";
        assert_eq!(normalise(kept).unwrap(), kept);
        let body = format!(
            "Feature: f\n  Scenario Outline: s\n    {OPEN}\n    Examples:\n      | n | m |\n      | 1 | 2 | dropped\n"
        );
        assert_eq!(problems(&[("row.feature", body.as_bytes())]), Vec::<String>::new());
    }

    #[test]
    fn an_undefined_step_in_a_rule_s_background_is_found() {
        let body = format!(
            "Feature: f\n  Rule: r\n    Background:\n      Given the frobnicator spins\n    Scenario: s\n      {OPEN}\n"
        );
        let found = problems(&[("rule.feature", body.as_bytes())]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("rule.feature: undefined step at line 4: Given the frobnicator spins"),
            "{found:?}"
        );
    }

    #[test]
    fn a_star_step_binds_as_the_keyword_before_it_or_as_any_keyword() {
        let body = format!(
            "Feature: f\n  Background:\n    * a new tab is created on \"{{site}}/a\"\n  Scenario: s\n    {OPEN}\n    \
             * the tab is not loading\n    And the tab has no pending URL\n    * the frobnicator spins\n"
        );
        let found = problems(&[("star.feature", body.as_bytes())]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("undefined step at line 8: * the frobnicator spins"), "{found:?}");
    }

    #[test]
    fn syntax_errors_name_their_own_line_in_a_sentence() {
        for (text, line, says) in [
            ("Feature: f\n  Scenarioo: nope\n   | x |\n", 3, "a table row belongs right under a step"),
            (
                "Feature: f\n  Scenario: s\n    Given x\n    hello world\n    Then y\n",
                4,
                "\"hello world\" is not a step",
            ),
            ("Feature: f\n  Scenario: s\n    Given x\n      \"\"\"\n      text\n", 4, "never closed"),
            ("Feature: f\n  @tag\n  Given x\n", 3, "the tags on line 2 must be followed"),
            ("Scenario: s\n  Given x\n", 1, "expected a Feature line"),
            ("Feature: f\n  Scenario: s\n    Given x\nFeature: g\n", 4, "a second"),
            ("Feature: f\n  Scenario: s\n    Given x\n  Background:\n", 4, "a Background must come before"),
        ] {
            let e = check_syntax(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.message.contains(says), "{text:?}: {e}");
            assert!(!e.message.contains('{'), "a token set: {e}");
            let file = problems(&[("bad.feature", text.as_bytes())]);
            assert_eq!(file, vec![format!("bad.feature:{line}: {}", e.message)]);
        }
        for fine in ["Feature: f\n  Given this is description\n  Scenario: s\n    Given x\n", "@a\n@b\nFeature: f\n"] {
            assert_eq!(check_syntax(fine), Ok(()), "{fine:?}");
        }
    }

    #[test]
    fn a_binary_file_is_named_as_not_text() {
        let found = problems(&[("bin.feature", &[0x46, 0xff, 0xfe, 0x00])]);
        assert_eq!(found, vec!["bin.feature: is not UTF-8 text (a binary file?): invalid byte at offset 1".to_owned()]);
    }

    #[test]
    fn contracts_beside_the_features_are_checked_and_without_them_only_steps_and_syntax() {
        let body = format!("Feature: f\n  Scenario: untagged\n    {OPEN}\n");
        let files: [(&str, &[u8]); 1] = [("a.feature", body.as_bytes())];
        assert!(check(&files, None).problems.is_empty());
        let with = check(&files, Some("c1   A thing.\n"));
        assert_eq!((with.contracts, with.problems.len()), (1, 2), "{:?}", with.problems);
    }

    #[test]
    fn a_missing_path_and_a_folder_without_features_are_errors_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        assert!(matches!(validate(&missing, None), Err(ValidateError::NoSuchPath(p)) if p == missing));
        assert!(matches!(validate(dir.path(), None), Err(ValidateError::NoFeatures(p)) if p == dir.path()));
    }
}
