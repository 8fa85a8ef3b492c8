//! The step language and the harness do not drift apart: every phrase `docs/gherkin-language.md`
//! documents (a backticked `Given …` / `When …` / `Then …`, placeholders in `<angle brackets>`)
//! names exactly one step definition, every step definition is documented, and every documented
//! phrase is used by some scenario under `features/`.
//!
//! A sample of each phrase (its placeholders replaced by the values of [`PLACEHOLDERS`]) is
//! matched by the harness's own step collection, as `navguard validate` matches a feature's steps;
//! the features are read with validate's parser.

use cucumber::World as _;
use cucumber::codegen::{StepConstructor, WorldInventory};
use cucumber::gherkin::{self, GherkinEnv, StepType};
use navguard_harness::validate;
use navguard_harness::world::NavWorld;
use regex::Regex;
use std::path::{Path, PathBuf};

/// A sample value for each placeholder the language uses, and what it stands for in a feature
/// (a regex). A placeholder missing here fails the test: add it.
const PLACEHOLDERS: &[(&str, &str, &str)] = &[
    ("url", "{site}/page", ".*"),
    ("css", "#go", ".*"),
    ("text", "hello", ".*"),
    ("key", "Enter", ".*"),
    ("script", "document.title = 'x'", ".*"),
    ("expression", "document.title", ".*"),
    ("gate", "A", ".*"),
    ("event", "load", ".*"),
    ("title", "Home", ".*"),
    ("path", "/page", ".*"),
    ("origin", "{site}", ".*"),
    ("exact stop message", "Task stopped by the user", ".*"),
    ("outcome", "committed", ".*"),
    ("outcomes", "committed, timeout", ".*"),
    ("kind", "settled", ".*"),
    ("tool", "open_url", ".*"),
    ("substring", "did not commit", ".*"),
    ("name", "B", ".*"),
    ("id", "task-1", ".*"),
    ("list", "open_url, done", ".*"),
    ("field", "title", ".*"),
    ("value", "Renamed", ".*"),
    ("role", "button", ".*"),
    ("reason", "no-progress", ".*"),
    ("class", "stale-ref", ".*"),
    ("n", "2", r"\d+"),
    ("r", "3", r"\d+"),
    ("k", "2", r"\d+"),
    ("ms", "1000", r"\d+"),
    // The user's actions, as `UserAction` words them.
    (
        "action",
        "reloads the tab",
        r#"(?:reloads the tab|goes back|navigates the tab to ".*"|closes the tab|closes the newest tab|opens ".*" in a new tab)"#,
    ),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("harness/ sits in the workspace")
}

/// A documented phrase: its keyword, its words after the keyword, and where the doc says it.
#[derive(Debug)]
struct Phrase {
    ty: StepType,
    text: String,
    line: usize,
}

impl std::fmt::Display for Phrase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "docs/gherkin-language.md:{}: `{} {}`", self.line, keyword(self.ty), self.text)
    }
}

fn keyword(ty: StepType) -> &'static str {
    match ty {
        StepType::Given => "Given",
        StepType::When => "When",
        StepType::Then => "Then",
    }
}

/// Every backticked span of the doc that starts with a step keyword (a span may wrap onto the
/// next line). A span that elides its start (`` `… is on` ``) cannot be checked: it fails the
/// test.
fn documented(doc: &str) -> Vec<Phrase> {
    let span = Regex::new(r"`([^`]+)`").expect("regex");
    let keyword = Regex::new(r"^(Given|When|Then) (.+)$").expect("regex");
    let mut phrases = Vec::new();
    for m in span.captures_iter(doc) {
        let at = m.get(0).expect("a match").start();
        let line = doc[..at].matches('\n').count() + 1;
        let text = m[1].split_whitespace().collect::<Vec<_>>().join(" ");
        if text.starts_with('…') || text.starts_with("...") {
            panic!("docs/gherkin-language.md:{line}: `{text}` elides its start: write the whole phrase");
        }
        let Some(c) = keyword.captures(&text) else { continue };
        let ty = match &c[1] {
            "Given" => StepType::Given,
            "When" => StepType::When,
            _ => StepType::Then,
        };
        phrases.push(Phrase { ty, text: c[2].to_owned(), line });
    }
    phrases
}

/// The phrase with each placeholder replaced: by its sample value, or by its regex.
fn expand(phrase: &Phrase, sample: bool) -> Result<String, String> {
    let placeholder = Regex::new(r"<([^<>]+)>").expect("regex");
    let mut out = String::new();
    let mut last = 0;
    for c in placeholder.captures_iter(&phrase.text) {
        let whole = c.get(0).expect("a match");
        let name = &c[1];
        let (_, value, pattern) = PLACEHOLDERS
            .iter()
            .find(|(n, ..)| *n == name)
            .ok_or_else(|| format!("{phrase}: no sample for the placeholder <{name}>: add one to PLACEHOLDERS"))?;
        let before = &phrase.text[last..whole.start()];
        out.push_str(&if sample { before.to_owned() } else { regex::escape(before) });
        out.push_str(if sample { value } else { pattern });
        last = whole.end();
    }
    let rest = &phrase.text[last..];
    out.push_str(&if sample { rest.to_owned() } else { regex::escape(rest) });
    Ok(out)
}

/// The samples as steps, parsed by cucumber's own parser.
fn sample_steps(phrases: &[Phrase]) -> Result<Vec<gherkin::Step>, String> {
    let mut text = String::from("Feature: samples\n  Scenario: samples\n");
    for phrase in phrases {
        text.push_str(&format!("    {} {}\n", keyword(phrase.ty), expand(phrase, true)?));
    }
    let feature = gherkin::Feature::parse(&text, GherkinEnv::default()).map_err(|e| format!("{e}\n{text}"))?;
    Ok(feature.scenarios.into_iter().flat_map(|s| s.steps).collect())
}

/// Each step definition of the harness: its keyword, its regex, where it is.
fn definitions() -> Vec<(StepType, Regex, String)> {
    fn of<T: StepConstructor<NavWorld> + 'static>(
        ty: StepType,
        items: impl Iterator<Item = &'static T>,
    ) -> Vec<(StepType, Regex, String)> {
        items
            .map(|item| {
                let (loc, regex, _) = item.inner();
                // Where it is, and its attribute as written (`#[then(expr = "…")]`).
                let source = std::fs::read_to_string(root().join(loc.path)).unwrap_or_default();
                let line = source.lines().nth(loc.line as usize - 1).unwrap_or_default().trim().to_owned();
                (ty, regex(), format!("{}:{}: {line}", loc.path, loc.line))
            })
            .collect()
    }
    use cucumber::codegen::inventory::iter;
    let mut all = of(StepType::Given, iter::<<NavWorld as WorldInventory>::Given>.into_iter());
    all.extend(of(StepType::When, iter::<<NavWorld as WorldInventory>::When>.into_iter()));
    all.extend(of(StepType::Then, iter::<<NavWorld as WorldInventory>::Then>.into_iter()));
    all
}

/// Every step of every scenario (backgrounds, rules and outlines' examples included).
fn feature_steps(dir: &Path) -> Vec<(PathBuf, gherkin::Step)> {
    let mut problems = Vec::new();
    let mut steps = Vec::new();
    for path in validate::feature_files(dir) {
        let feature = match validate::parse(&path) {
            Ok(Some(feature)) => feature,
            Ok(None) => continue,
            Err(e) => {
                problems.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let backgrounds = feature.background.iter().chain(feature.rules.iter().filter_map(|r| r.background.as_ref()));
        let scenarios = feature.scenarios.iter().chain(feature.rules.iter().flat_map(|r| &r.scenarios));
        let all = backgrounds.flat_map(|b| &b.steps).chain(scenarios.flat_map(|s| &s.steps));
        steps.extend(all.map(|s| (path.clone(), s.clone())));
    }
    assert!(problems.is_empty(), "the features do not parse:\n{}", problems.join("\n"));
    steps
}

fn doc() -> Vec<Phrase> {
    let path = root().join("docs/gherkin-language.md");
    let phrases = documented(&std::fs::read_to_string(&path).expect("the doc reads"));
    assert!(
        phrases.len() > 50,
        "{} documents only {} phrases: is the extraction broken?",
        path.display(),
        phrases.len()
    );
    phrases
}

#[test]
fn each_documented_phrase_names_exactly_one_step_definition() {
    let phrases = doc();
    let steps = sample_steps(&phrases).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(steps.len(), phrases.len(), "each sample is one step");
    let collection = NavWorld::collection();
    let mut problems = Vec::new();
    for (phrase, step) in phrases.iter().zip(&steps) {
        match collection.find(step) {
            Ok(Some(_)) => {}
            Ok(None) => problems.push(format!("{phrase}: its sample {:?} matches no step definition", step.value)),
            Err(e) => problems.push(format!("{phrase}: its sample {:?} matches several: {e}", step.value)),
        }
    }
    assert!(problems.is_empty(), "documented phrases that name no single step:\n{}", problems.join("\n"));
}

#[test]
fn each_step_definition_is_documented() {
    let phrases = doc();
    let steps = sample_steps(&phrases).unwrap_or_else(|e| panic!("{e}"));
    let undocumented: Vec<String> = definitions()
        .into_iter()
        .filter(|(ty, regex, _)| !steps.iter().any(|s| s.ty == *ty && regex.is_match(&s.value)))
        .map(|(ty, regex, at)| format!("{at} ({} {regex})", keyword(ty)))
        .collect();
    assert!(
        undocumented.is_empty(),
        "step definitions no phrase of docs/gherkin-language.md documents:\n{}",
        undocumented.join("\n")
    );
}

#[test]
fn each_documented_phrase_is_used_by_a_feature() {
    let steps = feature_steps(&root().join("features"));
    let mut unused = Vec::new();
    for phrase in doc() {
        let pattern = expand(&phrase, false).unwrap_or_else(|e| panic!("{e}"));
        let pattern = Regex::new(&format!("^{pattern}$")).unwrap_or_else(|e| panic!("{phrase}: {e}"));
        if !steps.iter().any(|(_, s)| s.ty == phrase.ty && pattern.is_match(&s.value)) {
            unused.push(phrase.to_string());
        }
    }
    assert!(unused.is_empty(), "documented phrases no scenario under features/ uses:\n{}", unused.join("\n"));
}

/// The record of every phrase ever documented, as `Keyword words`.
fn recorded() -> Vec<String> {
    let path = root().join("harness/tests/step_language/documented.txt");
    let text = std::fs::read_to_string(&path).expect("the record reads");
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_owned).collect()
}

/// No phrase, once documented, is removed or narrowed: each the record holds is still
/// documented under its keyword (and so still names its step, by the test above); a newly
/// documented one is added to the record.
#[test]
fn no_documented_phrase_is_ever_removed() {
    let documented: Vec<String> = doc().iter().map(|p| format!("{} {}", keyword(p.ty), p.text)).collect();
    let record = recorded();
    let removed: Vec<&String> = record.iter().filter(|r| !documented.contains(r)).collect();
    assert!(
        removed.is_empty(),
        "phrases users may have written are no longer documented (bring them back):\n{}",
        removed.iter().map(|r| r.as_str()).collect::<Vec<_>>().join("\n")
    );
    let new: Vec<&String> = documented.iter().filter(|d| !record.contains(d)).collect();
    assert!(
        new.is_empty(),
        "newly documented phrases: add them to harness/tests/step_language/documented.txt:\n{}",
        new.iter().map(|r| r.as_str()).collect::<Vec<_>>().join("\n")
    );
}
