//! `junit.xml`, what CI systems read: one `<testsuite>` per feature file with its totals, one
//! `<testcase>` per scenario (classname: the feature), a `<failure>` naming the failing step and
//! its error, `<skipped>` for a known deviation (a failure the gate's expectations list), and a
//! failed testcase per feature file that did not parse. Every text is escaped (no CDATA), so no
//! scenario name, step text or error can break the document.

use crate::gate;
use crate::report::{ParseFailure, StepStatus};
use crate::summary::ScenarioResult;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::time::Duration;

/// How a scenario is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed,
    /// It failed, and the gate's expectations list it (`gate::key`): reported skipped.
    KnownDeviation,
}

/// A scenario's verdict given the gate's expectations (keys as [`gate::key`] writes them).
pub fn verdict(result: &ScenarioResult, expected: &BTreeSet<String>) -> Verdict {
    match &result.failure {
        None => Verdict::Passed,
        Some(_) if expected.contains(&gate::key(result)) => Verdict::KnownDeviation,
        Some(_) => Verdict::Failed,
    }
}

enum Outcome {
    Passed,
    Failed { kind: &'static str, message: String, body: String },
    Skipped { message: String, body: String },
}

struct Case {
    name: String,
    classname: String,
    time: Duration,
    outcome: Outcome,
}

struct Suite {
    name: String,
    file: String,
    cases: Vec<Case>,
}

impl Suite {
    fn count(&self, what: fn(&Outcome) -> bool) -> usize {
        self.cases.iter().filter(|c| what(&c.outcome)).count()
    }

    fn failures(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Failed { .. }))
    }

    fn skipped(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Skipped { .. }))
    }

    fn time(&self) -> Duration {
        self.cases.iter().map(|c| c.time).sum()
    }
}

/// The JUnit XML of a run: `results` by feature file, then the files that did not parse.
/// A failure whose key is in `expected` is a known deviation, reported skipped.
pub fn render_junit(
    title: &str,
    results: &[ScenarioResult],
    parse_failures: &[ParseFailure],
    expected: &BTreeSet<String>,
) -> String {
    let mut by_feature: BTreeMap<&str, Vec<&ScenarioResult>> = BTreeMap::new();
    for r in results {
        by_feature.entry(&r.feature_path).or_default().push(r);
    }
    let mut suites: Vec<Suite> = by_feature.into_iter().map(|(path, rs)| suite(path, rs, expected)).collect();
    suites.extend(parse_failures.iter().map(|p| {
        let file = p.path.clone().unwrap_or_else(|| "a feature file".into());
        let message = p.message.lines().next().unwrap_or_default().to_owned();
        let outcome = Outcome::Failed { kind: "parse error", message, body: p.message.clone() };
        let case =
            Case { name: "the feature file parses".into(), classname: file.clone(), time: Duration::ZERO, outcome };
        Suite { name: file.clone(), file, cases: vec![case] }
    }));
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let tests: usize = suites.iter().map(|s| s.cases.len()).sum();
    let failures: usize = suites.iter().map(Suite::failures).sum();
    let time: Duration = suites.iter().map(Suite::time).sum();
    let _ = writeln!(
        xml,
        "<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" time=\"{}\">",
        attr(title),
        seconds(time)
    );
    for s in &suites {
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" file=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{}\">",
            attr(&s.name),
            attr(&s.file),
            s.cases.len(),
            s.failures(),
            s.skipped(),
            seconds(s.time())
        );
        for c in &s.cases {
            let open = format!(
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
                attr(&c.name),
                attr(&c.classname),
                seconds(c.time)
            );
            let _ = match &c.outcome {
                Outcome::Passed => writeln!(xml, "{open}/>"),
                Outcome::Failed { kind, message, body } => writeln!(
                    xml,
                    "{open}>\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                    attr(message),
                    attr(kind),
                    text(body)
                ),
                Outcome::Skipped { message, body } => writeln!(
                    xml,
                    "{open}>\n      <skipped message=\"{}\">{}</skipped>\n    </testcase>",
                    attr(message),
                    text(body)
                ),
            };
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn suite(path: &str, mut results: Vec<&ScenarioResult>, expected: &BTreeSet<String>) -> Suite {
    results.sort_by_key(|r| r.line);
    let feature = results.first().map(|r| r.feature.as_str()).filter(|n| !n.is_empty()).unwrap_or(path).to_owned();
    let name_of =
        |r: &ScenarioResult| r.gherkin.as_ref().map_or_else(|| r.scenario.clone(), super::step_log::Gherkin::full_name);
    let names: Vec<String> = results.iter().map(|r| name_of(r)).collect();
    let cases = results
        .iter()
        .zip(&names)
        .map(|(r, name)| {
            // Scenarios of one name (an outline's examples) are told apart by their line.
            let name = match names.iter().filter(|n| *n == name).count() {
                1 => name.clone(),
                _ => format!("{name} (line {})", r.line),
            };
            let time = r.gherkin.as_ref().and_then(super::step_log::Gherkin::took).unwrap_or(r.duration);
            Case { name, classname: feature.clone(), time, outcome: outcome(r, expected) }
        })
        .collect();
    Suite { name: feature.clone(), file: path.to_owned(), cases }
}

fn outcome(r: &ScenarioResult, expected: &BTreeSet<String>) -> Outcome {
    if let (None, Some(why)) = (&r.failure, &r.not_applicable) {
        return Outcome::Skipped { message: format!("not applicable: {why}"), body: why.clone() };
    }
    let Some(failure) = &r.failure else { return Outcome::Passed };
    let step = r.first_failing_step();
    let mut body = match step {
        Some(s) => format!("line {}: {} {} ({})\n", s.line, s.keyword, s.text, s.status.name()),
        None => String::new(),
    };
    body += failure;
    if let Some(dir) = &r.artifacts {
        body += &format!("\nartifacts: {}", dir.display());
    }
    let first = failure.lines().next().unwrap_or_default();
    let message = match step {
        Some(s) => format!("line {}: {} {}: {first}", s.line, s.keyword, s.text),
        None => first.to_owned(),
    };
    match verdict(r, expected) {
        Verdict::KnownDeviation => Outcome::Skipped { message: format!("known deviation: {message}"), body },
        Verdict::Passed | Verdict::Failed => {
            let kind = match step.map(|s| s.status) {
                Some(StepStatus::Failed) => "failed step",
                Some(_) => "undefined step",
                None => "set-up failed",
            };
            Outcome::Failed { kind, message, body }
        }
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// A character XML 1.0 cannot hold, even escaped.
fn forbidden(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}')
}

/// Escapes element text: `&`, `<` and `>` (so `]]>` cannot end anything), and replaces the
/// characters XML cannot hold.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c if forbidden(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Escapes an attribute value (double-quoted): as [`text`], and quotes and line breaks, which
/// an attribute would otherwise lose.
fn attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push_str(&text(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::StepRecord;

    const NASTY: &str = "a ]]> b <script>alert('x')</script> & \"q\" \u{1b}[31m";

    fn result(scenario: &str, failure: Option<&str>) -> ScenarioResult {
        ScenarioResult {
            feature: format!("X {NASTY}"),
            line: 3,
            failure: failure.map(str::to_owned),
            not_applicable: None,
            calls: vec![],
            duration: Duration::from_millis(1500),
            ..ScenarioResult::sample(scenario)
        }
    }

    fn failing_step() -> StepRecord {
        StepRecord {
            keyword: "Then".into(),
            text: format!("it is {NASTY}"),
            line: 5,
            argument: None,
            table: None,
            doc_string: None,
            background: None,
            definition: None,
            status: StepStatus::Failed,
            took: None,
            error: Some(NASTY.into()),
        }
    }

    #[test]
    fn the_verdict_of_a_failure_listed_in_the_expectations_is_a_known_deviation() {
        let failed = result("s", Some("boom"));
        let expected: BTreeSet<String> = [gate::key(&failed)].into();
        assert_eq!(gate::key(&failed), "x.feature: s");
        assert_eq!(verdict(&failed, &expected), Verdict::KnownDeviation);
        assert_eq!(verdict(&failed, &BTreeSet::new()), Verdict::Failed);
        assert_eq!(verdict(&result("s", None), &expected), Verdict::Passed);
        assert_eq!(verdict(&result("other", Some("boom")), &expected), Verdict::Failed);
    }

    #[test]
    fn a_known_deviation_is_skipped_with_its_reason_and_not_counted_as_a_failure() {
        let failed = result("s", Some("the browser differs"));
        let expected: BTreeSet<String> = [gate::key(&failed)].into();
        let xml = render_junit("t", &[failed, result("p", None)], &[], &expected);
        assert!(xml.contains("<skipped message=\"known deviation: the browser differs\">"), "{xml}");
        assert!(!xml.contains("<failure"), "{xml}");
        assert!(xml.contains("tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"1\""), "{xml}");
    }

    #[test]
    fn every_text_is_escaped_and_no_cdata_is_written() {
        let mut failed = result(&format!("s {NASTY}"), Some(NASTY));
        failed.steps = vec![failing_step()];
        let xml = render_junit(NASTY, &[failed, result("p", None)], &[], &BTreeSet::new());
        assert!(!xml.contains("CDATA") && !xml.contains("]]>") && !xml.contains("<script>"), "{xml}");
        assert!(!xml.contains('\u{1b}'), "a control character XML cannot hold: {xml}");
        assert!(
            xml.contains("name=\"s a ]]&gt; b &lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt; &amp; &quot;q&quot;")
        );
        assert!(xml.contains("<failure message=\"line 5: Then it is a ]]&gt; b"), "{xml}");
        assert!(xml.contains("type=\"failed step\""), "{xml}");
        assert!(xml.contains("classname=\"X a ]]&gt; b"), "{xml}");
    }

    #[test]
    fn suites_and_the_root_carry_their_totals() {
        let xml = render_junit("run", &[result("a", Some("x")), result("b", None)], &[], &BTreeSet::new());
        assert!(
            xml.contains("<testsuites name=\"run\" tests=\"2\" failures=\"1\" errors=\"0\" time=\"3.000\">"),
            "{xml}"
        );
        assert!(xml.contains(
            "file=\"features/x.feature\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"3.000\""
        ));
        assert!(xml.contains("<testcase name=\"b (line 3)\"") || xml.contains("<testcase name=\"b\""), "{xml}");
    }

    #[test]
    fn a_feature_that_did_not_parse_is_a_failed_testcase() {
        let broken =
            ParseFailure { path: Some("features/bad.feature".into()), message: "Failed to parse: line 2".into() };
        let xml = render_junit("run", &[], &[broken], &BTreeSet::new());
        assert!(xml.contains("tests=\"1\" failures=\"1\""), "{xml}");
        assert!(xml.contains("classname=\"features/bad.feature\""), "{xml}");
        assert!(xml.contains("<failure message=\"Failed to parse: line 2\" type=\"parse error\">"), "{xml}");
    }

    #[test]
    fn scenarios_of_one_name_are_told_apart_by_their_line() {
        let mut second = result("same", None);
        second.line = 9;
        let xml = render_junit("run", &[result("same", None), second], &[], &BTreeSet::new());
        assert!(xml.contains("name=\"same (line 3)\"") && xml.contains("name=\"same (line 9)\""), "{xml}");
    }
}
