//! One feature file read as the run reads it: its text made what the `gherkin` crate reads as
//! the official parser does, parsed, its examples expanded and its `*` steps bound.

use super::syntax::{SyntaxError, check_syntax, normalise};
use crate::world::NavWorld;
use cucumber::feature::Ext as _;
use cucumber::gherkin::{self, GherkinEnv, StepType};
use std::path::Path;

/// The line and column in the `gherkin` crate's error text (`Error at L:C: …`); its fields are
/// private.
fn parser_position(error: &gherkin::ParseError) -> Option<(usize, usize)> {
    let text = error.to_string();
    let (line, col) = text.strip_prefix("Error at ")?.split(':').next().zip(text.split(':').nth(1))?;
    Some((line.trim().parse().ok()?, col.trim().parse().ok()?))
}

/// Why a feature file cannot be read as a feature.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    #[error("cannot read it: {0}")]
    Unreadable(#[source] std::io::Error),
    #[error("is not UTF-8 text (a binary file?): invalid byte at offset {0}")]
    NotText(usize),
    #[error("{}: {}", .0.line, .0.message)]
    Syntax(SyntaxError),
    /// What the check of lines let pass but the `gherkin` crate refused.
    #[error("{line}: the feature does not parse here (column {column})")]
    Parser { line: usize, column: usize },
    #[error("the feature does not parse")]
    Unparsed,
    #[error("cannot expand its examples: {0}")]
    Examples(String),
}

/// Reads and parses one feature file; `Ok(None)` for a file that holds no feature (empty, or
/// only comments).
pub fn parse(path: &Path) -> Result<Option<gherkin::Feature>, FileError> {
    let bytes = std::fs::read(path).map_err(FileError::Unreadable)?;
    let text = String::from_utf8(bytes).map_err(|e| FileError::NotText(e.utf8_error().valid_up_to()))?;
    let Some(text) = normalise(&text) else { return Ok(None) };
    let syntax = check_syntax(&text);
    let mut feature = match (gherkin::Feature::parse(&text, GherkinEnv::default()), syntax) {
        (Ok(feature), _) => feature,
        (Err(_), Err(e)) => return Err(FileError::Syntax(e)),
        (Err(e), Ok(())) => {
            return Err(match parser_position(&e) {
                Some((line, column)) => FileError::Parser { line, column },
                None => FileError::Unparsed,
            });
        }
    };
    feature.path = Some(path.to_owned());
    let mut feature = feature.expand_examples().map_err(|e| FileError::Examples(e.to_string()))?;
    bind_star_steps(&mut feature);
    Ok(Some(feature))
}

/// Gives each `*` step the type of the step before it, or, if no step of that type matches it,
/// the first type (Given, When, Then) whose steps do; an And or But after it inherits that
/// type. (The `gherkin` crate makes every `*` a Given.)
pub fn bind_star_steps(feature: &mut gherkin::Feature) {
    let collection = <NavWorld as cucumber::World>::collection();
    let bind = |steps: &mut Vec<gherkin::Step>| {
        let mut last: Option<StepType> = None;
        for step in steps {
            let keyword = step.keyword.trim();
            if keyword == "*" {
                let candidates = last.into_iter().chain([StepType::Given, StepType::When, StepType::Then]);
                let mut probe = step.clone();
                let found = candidates.clone().find(|ty| {
                    probe.ty = *ty;
                    matches!(collection.find(&probe), Ok(Some(_)))
                });
                step.ty = found.or(last).unwrap_or(StepType::Given);
            } else if matches!(keyword, "And" | "But") {
                step.ty = last.unwrap_or(step.ty);
            }
            last = Some(step.ty);
        }
    };
    if let Some(b) = &mut feature.background {
        bind(&mut b.steps);
    }
    feature.scenarios.iter_mut().for_each(|s| bind(&mut s.steps));
    for rule in &mut feature.rules {
        if let Some(b) = &mut rule.background {
            bind(&mut b.steps);
        }
        rule.scenarios.iter_mut().for_each(|s| bind(&mut s.steps));
    }
}
