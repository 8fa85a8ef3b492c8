//! Generated request bodies against the real service over HTTP on loopback: JSON of the wire's
//! shape, right and wrong (its field names, real task and action ids, values of every type,
//! nested), posted to every call that takes a body. Each is answered with a status of the
//! contract and a JSON body (an error names its code), never a 500 and never a dropped
//! connection, and the service still starts a task afterwards.

use super::tests::{SECRET, serve};
use proptest::prelude::*;
use proptest::strategy::ValueTree as _;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};
use std::time::Duration;

/// Bodies per call and run (`PROPTEST_CASES` raises it).
const CASES: u32 = 64;
const CALLS: [&str; 6] = [
    "/api/agent/start",
    "/api/agent/next",
    "/api/agent/report",
    "/api/agent/confirm",
    "/api/agent/cancel",
    "/api/agent/permissions",
];

fn wire_json(ids: Vec<String>) -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "goal",
        "url",
        "plan",
        "round",
        "tool",
        "args",
        "target",
        "by",
        "value",
        "taskId",
        "actionId",
        "observation",
        "approved",
        "reason",
        "exceptTasks",
        "origin",
        "granted",
        "artifacts",
        "screenshots",
        "title",
        "text",
        "selector",
        "ok",
        "error",
        "code",
        "message",
        "done",
        "x",
    ]);
    let words = prop::sample::select(
        ids.into_iter()
            .chain(
                ["click", "type", "navigate", "done", "wait", "ref", "selector", "http://127.0.0.1:1/", "", "e1"]
                    .map(str::to_owned),
            )
            .collect::<Vec<_>>(),
    );
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("JSON has no NaN", |f| f.is_finite()).prop_map(Value::from),
        "\\PC{0,24}".prop_map(Value::from),
        words.prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
            prop::collection::btree_map(key.clone(), inner, 0..7)
                .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

/// A POST of `body` (any bytes); its status and text.
async fn post(client: &ureq::Agent, base: &str, path: &str, body: String) -> (u16, String) {
    let url = format!("{base}{path}");
    crate::post::post_json(client, url, Some(SECRET), &[], body.clone())
        .await
        .unwrap_or_else(|e| panic!("{path}: no answer ({e}) for {body}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_bodies_are_answered_by_the_contract_never_a_500() {
    let dir = tempfile::tempdir().unwrap();
    let base = serve(dir.path()).await;
    let client = crate::post::client(Duration::from_secs(10));
    // Real ids, so that generated bodies reach past "no such task".
    let plan = json!([{"round": 1, "tool": "click", "args": {"target": {"by": "text", "value": "Buy"}}}]);
    let start = json!({"goal": "g", "plan": plan}).to_string();
    let (_, started) = post(&client, &base, CALLS[0], start.clone()).await;
    let started: Value = serde_json::from_str(&started).unwrap();
    let task = started["taskId"].as_str().unwrap().to_owned();
    let (_, next) = post(&client, &base, CALLS[1], json!({"taskId": task}).to_string()).await;
    let next: Value = serde_json::from_str(&next).unwrap();
    let action = next["action"]["actionId"].as_str().unwrap_or("a-none").to_owned();

    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(CASES);
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let strategy = wire_json(vec![task, action]);
    for path in CALLS {
        for _ in 0..cases {
            let body = strategy.new_tree(&mut runner).unwrap().current().to_string();
            let (status, text) = post(&client, &base, path, body.clone()).await;
            assert!(matches!(status, 200 | 201 | 400 | 404 | 409), "{path}: {status} for {body}: {text}");
            let answer: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {text} for {body}"));
            if status >= 400 {
                assert!(answer["error"]["code"].is_string(), "{path}: {text} for {body}");
            }
        }
    }
    // Bytes that are not JSON at all, and a body cut short.
    for body in ["", "{", "\u{0}", "[1,2", "{\"goal\": \"g\", \"plan\": [{\"round\": 1,", "null"] {
        for path in CALLS {
            let (status, text) = post(&client, &base, path, body.to_owned()).await;
            assert_eq!(status, 400, "{path}: {body:?}: {text}");
        }
    }
    let (status, text) = post(&client, &base, CALLS[0], start).await;
    assert_eq!(status, 201, "{text}");
}
