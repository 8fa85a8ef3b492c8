//! `cucumber.json`, what the Cucumber tooling reads, in the shape cucumber-jvm writes: per
//! feature its uri, id, line, keyword, name, description and located tags; per scenario its
//! backgrounds first (each its own element), then the scenario (a rule's scenario named
//! `<rule> / <scenario>`) with its before and after hooks; every step listed, those after a
//! failure `skipped`, with its `match.location`, its result (duration in nanoseconds), its data
//! table (`rows`) or doc string.

use crate::report::{Gherkin, HookRecord, StepRecord, StepStatus};
use crate::summary::ScenarioResult;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

/// Where the harness's hooks are, for their `match.location`: from the workspace's root, as
/// cucumber names the step definitions' files.
const BEFORE_HOOK: &str = "harness/src/runner/hooks.rs:before_hook";
const AFTER_HOOK: &str = "harness/src/runner/hooks.rs:after_hook";

/// The Cucumber JSON of a run: one feature per feature file, its scenarios by line.
pub fn render_cucumber_json(results: &[ScenarioResult]) -> String {
    let mut by_feature: BTreeMap<&str, Vec<&ScenarioResult>> = BTreeMap::new();
    for r in results {
        by_feature.entry(&r.feature_path).or_default().push(r);
    }
    let features: Vec<Value> = by_feature.into_iter().map(|(path, rs)| feature(path, rs)).collect();
    serde_json::to_string_pretty(&features).unwrap_or_else(|_| "[]".into())
}

/// A cucumber id: lower case, anything but letters and digits a `-`.
fn slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars().flat_map(char::to_lowercase) {
        match c.is_alphanumeric() {
            true => out.push(c),
            false if out.ends_with('-') || out.is_empty() => {}
            false => out.push('-'),
        }
    }
    out.trim_end_matches('-').to_owned()
}

fn feature(path: &str, mut results: Vec<&ScenarioResult>) -> Value {
    results.sort_by_key(|r| r.line);
    let meta = results.iter().find_map(|r| r.gherkin.as_ref()).map(|g| &g.feature);
    let name = meta.map_or_else(|| results.first().map(|r| r.feature.clone()).unwrap_or_default(), |m| m.name.clone());
    let id = slug(&name);
    let tags: Vec<Value> = meta
        .map(|m| &m.tags[..])
        .unwrap_or_default()
        .iter()
        .map(|t| json!({ "name": t.name, "type": "Tag", "location": { "line": t.line, "column": t.column } }))
        .collect();
    json!({
        "uri": path,
        "id": id,
        "line": meta.map_or(1, |m| m.line),
        "keyword": meta.map_or("Feature", |m| &m.keyword),
        "name": name,
        "description": meta.map_or("", |m| &m.description),
        "tags": tags,
        "elements": results.iter().flat_map(|r| elements(&id, r)).collect::<Vec<_>>(),
    })
}

/// A scenario's backgrounds, then the scenario.
fn elements(feature_id: &str, r: &ScenarioResult) -> Vec<Value> {
    let Some(g) = &r.gherkin else {
        // It never started: its name and line are all there is.
        let id = format!("{feature_id};{}", slug(&r.scenario));
        return vec![json!({
            "id": id, "type": "scenario", "keyword": "Scenario", "name": r.scenario, "description": "",
            "line": r.line, "steps": [],
        })];
    };
    let mut out: Vec<Value> = g
        .backgrounds
        .iter()
        .enumerate()
        .map(|(i, b)| {
            json!({
                "type": "background",
                "keyword": b.keyword,
                "name": b.name,
                "description": b.description,
                "line": b.line,
                "steps": r.steps.iter().filter(|s| s.background == Some(i)).map(step).collect::<Vec<_>>(),
            })
        })
        .collect();
    out.push(scenario(feature_id, g, &r.steps));
    out
}

fn scenario(feature_id: &str, g: &Gherkin, steps: &[StepRecord]) -> Value {
    let rule = g.rule.as_ref();
    let id = match rule {
        Some(rule) => format!("{feature_id};{};{}", slug(&rule.name), slug(&g.name)),
        None => format!("{feature_id};{}", slug(&g.name)),
    };
    // Its tags as cucumber gives them to the scenario: the feature's, the rule's, its own.
    let tags: Vec<Value> = g
        .feature
        .tags
        .iter()
        .map(|t| &t.name)
        .chain(rule.iter().flat_map(|r| &r.tags))
        .chain(&g.tags)
        .map(|name| json!({ "name": name }))
        .collect();
    let hooks = |after: bool| g.hooks.iter().filter(|h| h.after == after).map(hook).collect::<Vec<_>>();
    json!({
        "id": id,
        "type": "scenario",
        "keyword": g.keyword,
        "name": g.full_name(),
        "description": g.description,
        "line": g.line,
        "tags": tags,
        "before": hooks(false),
        "steps": steps.iter().filter(|s| s.background.is_none()).map(step).collect::<Vec<_>>(),
        "after": hooks(true),
    })
}

fn result(status: StepStatus, took: Option<Duration>, error: Option<&str>) -> Value {
    let status = match status {
        StepStatus::Passed => "passed",
        StepStatus::Failed => "failed",
        StepStatus::Skipped => "undefined",
        StepStatus::NotRun => "skipped",
    };
    let mut result = json!({ "status": status });
    if let Some(took) = took {
        result["duration"] = json!(u64::try_from(took.as_nanos()).unwrap_or(u64::MAX));
    }
    if let Some(error) = error {
        result["error_message"] = json!(error);
    }
    result
}

fn step(s: &StepRecord) -> Value {
    let mut step = json!({
        "keyword": format!("{} ", s.keyword),
        "name": s.text,
        "line": s.line,
        "result": result(s.status, s.took, s.error.as_deref()),
    });
    if let Some(location) = &s.definition {
        step["match"] = json!({ "location": location });
    }
    if let Some(rows) = &s.table {
        step["rows"] = rows.iter().map(|cells| json!({ "cells": cells })).collect();
    }
    if let Some(doc) = &s.doc_string {
        // The doc string starts on the line after its step.
        step["doc_string"] = json!({ "value": doc, "line": s.line + 1 });
    }
    step
}

fn hook(h: &HookRecord) -> Value {
    let location = if h.after { AFTER_HOOK } else { BEFORE_HOOK };
    json!({ "match": { "location": location }, "result": result(h.status, h.took, h.error.as_deref()) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{BackgroundMeta, FeatureMeta, RuleMeta, TagAt};
    use std::sync::Arc;

    fn record(line: usize, status: StepStatus, background: Option<usize>) -> StepRecord {
        StepRecord {
            keyword: "Given".into(),
            text: format!("step {line} <b> & \"q\" ]]>"),
            line,
            argument: None,
            table: (line == 9).then(|| vec![vec!["event".into(), "url".into()], vec!["started".into(), "x".into()]]),
            doc_string: (line == 10).then(|| "doc".into()),
            background,
            definition: (status != StepStatus::NotRun).then(|| "steps/x.rs:1".into()),
            status,
            took: (status != StepStatus::NotRun).then(|| Duration::from_micros(1500)),
            error: (status == StepStatus::Failed).then(|| "boom".into()),
        }
    }

    fn ruled_result() -> ScenarioResult {
        let feature = Arc::new(FeatureMeta {
            uri: "/tmp/a b/x.feature".into(),
            keyword: "Feature".into(),
            name: "My Feature".into(),
            description: "about it".into(),
            line: 2,
            tags: vec![TagAt { name: "@f".into(), line: 1, column: 1 }],
        });
        let gherkin = Gherkin {
            feature,
            rule: Some(RuleMeta { keyword: "Rule".into(), name: "The rule".into(), line: 4, tags: vec!["@r".into()] }),
            backgrounds: vec![BackgroundMeta {
                keyword: "Background".into(),
                name: String::new(),
                description: String::new(),
                line: 5,
            }],
            keyword: "Scenario".into(),
            name: "It".into(),
            description: String::new(),
            line: 7,
            tags: vec!["@s".into()],
            hooks: vec![HookRecord { after: false, status: StepStatus::Passed, took: None, error: None }],
            started: None,
            finished: None,
        };
        ScenarioResult {
            feature_path: "/tmp/a b/x.feature".into(),
            feature: "My Feature".into(),
            line: 7,
            failure: Some("boom".into()),
            not_applicable: None,
            calls: vec![],
            duration: Duration::ZERO,
            steps: vec![
                record(6, StepStatus::Passed, Some(0)),
                record(8, StepStatus::Failed, None),
                record(9, StepStatus::NotRun, None),
                record(10, StepStatus::Skipped, None),
            ],
            gherkin: Some(gherkin),
            ..ScenarioResult::sample("It")
        }
    }

    #[test]
    fn the_background_comes_first_as_its_own_element_and_the_rule_is_named_with_a_separator() {
        let json: Value = serde_json::from_str(&render_cucumber_json(&[ruled_result()])).unwrap();
        let feature = &json[0];
        assert_eq!(feature["uri"], "/tmp/a b/x.feature");
        assert_eq!(
            (&feature["id"], &feature["line"], &feature["description"]),
            (&json!("my-feature"), &json!(2), &json!("about it"))
        );
        assert_eq!(feature["tags"][0], json!({ "name": "@f", "type": "Tag", "location": { "line": 1, "column": 1 } }));
        let elements = feature["elements"].as_array().unwrap();
        assert_eq!(elements.len(), 2);
        assert_eq!(
            (&elements[0]["type"], &elements[0]["keyword"], &elements[0]["line"]),
            (&json!("background"), &json!("Background"), &json!(5))
        );
        assert_eq!(elements[0]["steps"].as_array().unwrap().len(), 1);
        let scenario = &elements[1];
        assert_eq!(scenario["name"], "The rule / It");
        assert_eq!(scenario["id"], "my-feature;the-rule;it");
        assert_eq!(scenario["tags"], json!([{ "name": "@f" }, { "name": "@r" }, { "name": "@s" }]));
        assert_eq!(scenario["before"][0]["match"]["location"], BEFORE_HOOK);
    }

    #[test]
    fn every_step_is_listed_with_its_status_duration_match_table_and_doc_string() {
        let json: Value = serde_json::from_str(&render_cucumber_json(&[ruled_result()])).unwrap();
        let steps = json[0]["elements"][1]["steps"].as_array().unwrap().clone();
        let statuses: Vec<&Value> = steps.iter().map(|s| &s["result"]["status"]).collect();
        assert_eq!(statuses, [&json!("failed"), &json!("skipped"), &json!("undefined")]);
        assert_eq!(steps[0]["keyword"], "Given ");
        assert_eq!(steps[0]["name"], "step 8 <b> & \"q\" ]]>");
        assert_eq!(steps[0]["result"]["duration"], 1_500_000);
        assert_eq!(steps[0]["result"]["error_message"], "boom");
        assert_eq!(steps[0]["match"]["location"], "steps/x.rs:1");
        assert_eq!(steps[1]["rows"], json!([{ "cells": ["event", "url"] }, { "cells": ["started", "x"] }]));
        assert_eq!(steps[2]["doc_string"], json!({ "value": "doc", "line": 11 }));
    }

    #[test]
    fn ids_are_slugs() {
        assert_eq!(slug("Tabs & <windows>: \"opened\" ]]>"), "tabs-windows-opened");
    }

    #[test]
    fn the_hooks_are_where_their_location_says() {
        for location in [BEFORE_HOOK, AFTER_HOOK] {
            let (file, function) = location.rsplit_once(':').unwrap();
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(file);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{location}: {e}"));
            assert!(text.contains(&format!("fn {function}(")), "{location}");
        }
    }
}
