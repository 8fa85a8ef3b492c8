//! `navguard validate`: feature files checked without a browser.

use super::suite::{FEATURES, SuiteError};
use crate::validate::{Findings, ValidateError, contracts_for, validate as check};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

// What `navguard validate` is given.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// A .feature file or a folder of them [default: ./features]
    pub path: Option<PathBuf>,
    /// The same as PATH.
    #[arg(long, value_name = "path", conflicts_with = "path")]
    pub features: Option<PathBuf>,
    /// The contracts file [default: <folder>/contracts.txt when the folder has one; else
    /// contracts are not checked]
    #[arg(long, value_name = "file")]
    pub contracts: Option<PathBuf>,
}

/// Validates the path given, else `./features`; prints each problem and one closing line.
/// Exits 0 valid, 1 invalid or nothing to check, 2 a path that does not exist.
pub fn validate(args: ValidateArgs) -> ExitCode {
    let ValidateArgs { path, features, contracts } = args;
    match path.or(features) {
        Some(path) => validate_at(&path, contracts.as_deref()),
        None if Path::new(FEATURES).exists() => validate_at(Path::new(FEATURES), contracts.as_deref()),
        None => {
            eprintln!("navguard validate: {}", SuiteError::NoFeatures);
            ExitCode::from(2)
        }
    }
}

fn validate_at(path: &Path, contracts: Option<&Path>) -> ExitCode {
    let contracts = contracts_for(path, contracts);
    let findings = match check(path, contracts.as_deref()) {
        Ok(findings) => findings,
        Err(e) => {
            eprintln!("navguard validate: {e}");
            // A path that does not exist is a bad argument (2); a folder with no feature has
            // nothing to check (1).
            return ExitCode::from(if matches!(e, ValidateError::NoSuchPath(_)) { 2 } else { 1 });
        }
    };
    for problem in &findings.problems {
        println!("{problem}");
    }
    println!("{}", closing_line(&findings));
    if findings.contracts_file.is_none() {
        println!("(no contracts file: {} has no contracts.txt and --contracts was not given)", path.display());
    }
    if findings.problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// `navguard validate: valid: …`: the verdict and what was counted.
pub fn closing_line(findings: &Findings) -> String {
    let verdict = if findings.problems.is_empty() { "valid" } else { "INVALID" };
    let contracts = match &findings.contracts_file {
        Some(_) => format!("{} contracts, ", findings.contracts),
        None => String::new(),
    };
    format!(
        "navguard validate: {verdict}: {contracts}{} scenarios, {} problems ({} feature files)",
        findings.scenarios,
        findings.problems.len(),
        findings.files
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closing_line_counts_contracts_only_when_there_is_a_file() {
        let mut findings = Findings { files: 2, scenarios: 5, ..Findings::default() };
        assert_eq!(closing_line(&findings), "navguard validate: valid: 5 scenarios, 0 problems (2 feature files)");
        findings.contracts_file = Some(PathBuf::from("features/contracts.txt"));
        findings.contracts = 3;
        findings.problems.push("x.feature:1: bad".into());
        assert_eq!(
            closing_line(&findings),
            "navguard validate: INVALID: 3 contracts, 5 scenarios, 1 problems (2 feature files)"
        );
    }
}
