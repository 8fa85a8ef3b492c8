//! Generated inputs for the readers of what users and agents write: feature files (the parser
//! and `validate`), agent descriptions, and MCP answers as each built-in description reads
//! them. Each input is a real file of the repository, mutated (cut, spliced, its tokens thrown
//! in anywhere), so the readers meet what a user's slip or a broken agent would give them; none
//! may panic, hang or give up silently. A bounded number of cases per `cargo test`
//! (`PROPTEST_CASES` raises it), and the corpus (`tests/corpus/`: inputs kept because they once
//! broke something or stand for a class of breakage) replayed every run. The JSON-lines reader's
//! own generated tests are beside it (`under_test/lines.rs`, `under_test/jsonl/wire.rs`); the
//! orchestrator's request bodies are in its crate (`http/tests.rs`).

use navguard_harness::under_test::description::Description;
use navguard_harness::under_test::mcp;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one input may take to read: far more than any takes (milliseconds); a reader that
/// loops is found by it.
const CASE_DEADLINE: Duration = Duration::from_secs(20);
/// Cases per reader and run, unless `PROPTEST_CASES` says otherwise.
const CASES: u32 = 96;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("harness/ sits in the workspace").to_path_buf()
}

fn corpus(kind: &str) -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} holds no inputs", dir.display());
    files.into_iter().map(|p| (p.clone(), String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned())).collect()
}

/// Runs `read` on `input` on a thread of its own, and fails if it panics or outlasts
/// [`CASE_DEADLINE`] (the thread is left behind then: the test has failed anyway).
fn within<T: Send + 'static>(what: &str, input: String, read: fn(String) -> T) -> T {
    let (tell, told) = std::sync::mpsc::channel();
    let shown: String = input.chars().take(2_000).collect();
    std::thread::spawn(move || {
        let _ = tell.send(read(input));
    });
    match told.recv_timeout(CASE_DEADLINE) {
        Ok(out) => out,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: no answer within {CASE_DEADLINE:?} for:\n{shown}")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{what} panicked on:\n{shown}"),
    }
}

/// One edit of a text: where (a fraction of its length) and what.
#[derive(Clone, Debug)]
enum Edit {
    Delete(f64, usize),
    Insert(f64, String),
    /// A line repeated right after itself.
    Repeat(f64),
}

fn edits(tokens: &'static [&'static str]) -> impl Strategy<Value = Vec<Edit>> {
    let token = prop::sample::select(tokens).prop_map(str::to_owned);
    let text = prop_oneof![token, "\\PC{0,12}", any::<String>().prop_map(|s| s.chars().take(40).collect())];
    let edit = prop_oneof![
        (0.0..1.0f64, 1..80usize).prop_map(|(at, n)| Edit::Delete(at, n)),
        (0.0..1.0f64, text).prop_map(|(at, t)| Edit::Insert(at, t)),
        (0.0..1.0f64).prop_map(Edit::Repeat),
    ];
    prop::collection::vec(edit, 1..10)
}

/// `text` with `edits` made, each at a character boundary.
fn edited(text: &str, edits: &[Edit]) -> String {
    let mut out = text.to_owned();
    let at = |out: &str, f: f64| {
        let n = out.chars().count();
        let i = ((n as f64) * f) as usize;
        out.char_indices().nth(i).map_or(out.len(), |(b, _)| b)
    };
    for edit in edits {
        match edit {
            Edit::Delete(f, n) => {
                let start = at(&out, *f);
                let end = out[start..].char_indices().nth(*n).map_or(out.len(), |(b, _)| start + b);
                out.replace_range(start..end, "");
            }
            Edit::Insert(f, t) => {
                let i = at(&out, *f);
                out.insert_str(i, t);
            }
            Edit::Repeat(f) => {
                let i = at(&out, *f);
                let start = out[..i].rfind('\n').map_or(0, |n| n + 1);
                let end = out[i..].find('\n').map_or(out.len(), |n| i + n + 1);
                let line = out[start..end].to_owned();
                out.insert_str(end, &line);
            }
        }
    }
    out
}

fn runner() -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(CASES);
    TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() })
}

/// Runs `check` on every real `inputs` file, edited by generated edits.
fn mutate_all(inputs: &[(PathBuf, String)], tokens: &'static [&'static str], check: fn(String)) {
    let mut runner = runner();
    let strategy = (prop::sample::select((0..inputs.len()).collect::<Vec<_>>()), edits(tokens));
    let result = runner.run(&strategy, |(i, edits)| {
        check(edited(&inputs[i].1, &edits));
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

// --- Feature files: the parser and `validate` ---------------------------------------------

const FEATURE_TOKENS: &[&str] = &[
    "Feature:",
    "Scenario:",
    "Scenario Outline:",
    "Examples:",
    "Background:",
    "Rule:",
    "Given ",
    "When ",
    "Then ",
    "And ",
    "But ",
    "* ",
    "|",
    "| call | tool | args |",
    "\"\"\"",
    "```",
    "@",
    "@contract-",
    "#",
    "\n",
    "\r\n",
    "\t",
    "{site}",
    "{ref:",
    "{ref:go@",
    "}",
    "<x>",
    "\"",
    "\u{0}",
    "\u{feff}",
    "é",
    "🦀",
    "# language: fr\n",
    "# language: xx\n",
    "call 1",
    " ms",
    "99999999999999999999",
    "-1",
    "{\"url\": ",
    "{\"ref\": \"{ref:go}\"}",
];

fn features() -> Vec<(PathBuf, String)> {
    let mut files = navguard_harness::validate::feature_files(&workspace().join("features"));
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap())).collect()
}

/// Validates `text` as a feature file, with and without the repository's contracts: findings or
/// an error, never a panic.
fn validate_text(text: String) {
    within("validate", text, |text| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("generated.feature");
        std::fs::write(&path, &text).unwrap();
        let contracts = workspace().join("features/contracts.txt");
        let _ = navguard_harness::validate::validate(&path, None);
        let _ = navguard_harness::validate::validate(&path, Some(&contracts));
    });
}

#[test]
fn mutated_feature_files_are_validated_without_a_panic_or_a_hang() {
    mutate_all(&features(), FEATURE_TOKENS, validate_text);
}

#[test]
fn the_feature_corpus_is_validated_without_a_panic_or_a_hang() {
    for (_, text) in corpus("features") {
        validate_text(text);
    }
}

// --- Agent descriptions ---------------------------------------------------------------------

const DESCRIPTION_TOKENS: &[&str] = &[
    "[",
    "]",
    "[[",
    "]]",
    " = ",
    "\"",
    "'",
    "'''",
    "{",
    "}",
    "\n",
    "name",
    "kind = \"mcp\"",
    "kind = \"jsonl\"",
    "kind = \"in-process\"",
    "[start]",
    "command = ",
    "args = []",
    "[tools.navigate]",
    "[[tools.type]]",
    "call = ",
    "when = \"!arg\"",
    "{url}",
    "{ref}",
    "{arg:number}",
    "{arg:",
    "{scratch}",
    "{here}",
    "(?P<url>",
    "(?P<ref>",
    ")",
    "\\",
    "(",
    "*",
    "+",
    "{99999999}",
    "fails_when = [",
    "timeout_ms = 0",
    "timeout_ms = 18446744073709551615",
    "timeout_ms = -1",
    "keep_as = ",
    "[[after_start]]",
    "[[before_end]]",
    "[answer]",
    "[start.files]",
    "[start.env]",
    "browsers = [\"netscape\"]",
    "\u{0}",
    "é",
    "#",
];

fn descriptions() -> Vec<(PathBuf, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(workspace().join("agents"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.push(workspace().join("agents/jsonl-example/agent.toml"));
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap())).collect()
}

/// Reads `text` as an agent description: the description, or an error naming the agent, never
/// a panic.
fn parse_description(text: String) {
    within("Description::parse", text, |text| {
        if let Err(e) = Description::parse(&text, "generated.toml", &workspace().join("agents")) {
            let said = e.to_string();
            assert!(!said.is_empty() && !said.contains('\n'), "one line: {said:?}");
        }
    });
}

#[test]
fn mutated_agent_descriptions_are_read_or_refused_in_one_line() {
    mutate_all(&descriptions(), DESCRIPTION_TOKENS, parse_description);
}

#[test]
fn the_description_corpus_is_read_or_refused_in_one_line() {
    for (_, text) in corpus("descriptions") {
        parse_description(text);
    }
}

// --- MCP answers, as each built-in description reads them -----------------------------------

const ANSWER_TOKENS: &[&str] = &[
    "### Page",
    "### Elements",
    "### Tabs",
    "### Dialog",
    "### Page not shown",
    "- Page URL: ",
    "- Page Title: ",
    "[ref=e1]",
    "[ref=",
    "uid=1_2 ",
    "uid=",
    "button \"go\"",
    "link \"",
    "textbox",
    "\"",
    "\n",
    "\r\n",
    "Error: ",
    "Error (stale-ref): ",
    "isError",
    "\u{1b}[31m",
    "\u{1b}[",
    "\u{1b}",
    "http://127.0.0.1:1/page",
    "- 0: (current) ",
    "[selected]",
    "@e",
    "\u{0}",
    "é",
    "```yaml\n",
    "```",
];

/// A recorded real answer of each built-in agent's, and the rest of the recordings.
fn answers() -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    for agent in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/recorded")).unwrap().flatten() {
        for file in std::fs::read_dir(agent.path()).unwrap().flatten() {
            files.push(file.path());
        }
    }
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap())).collect()
}

/// Reads `text` with every built-in MCP agent's description, flagged and not: never a panic,
/// and a flagged answer is always a failure.
fn read_answer(text: String) {
    within("mcp::read", text, |text| {
        for agent in ["playwright-mcp", "chrome-devtools-mcp", "browser-use", "agent-browser", "vibium", "navguard-mcp"]
        {
            let description = Description::find(agent).unwrap();
            let _ = mcp::read(&description, text.clone(), false);
            let flagged = mcp::read(&description, text.clone(), true);
            assert!(flagged.failure.is_some(), "{agent}: a flagged answer is a failure");
        }
    });
}

#[test]
fn mutated_mcp_answers_are_read_by_every_description_without_a_panic() {
    mutate_all(&answers(), ANSWER_TOKENS, read_answer);
}

#[test]
fn the_answer_corpus_is_read_by_every_description_without_a_panic() {
    for (_, text) in corpus("answers") {
        read_answer(text);
    }
}

#[test]
fn an_edit_lands_on_a_character_boundary_whatever_the_text() {
    // The mutator itself: multi-byte characters everywhere, edits at both ends.
    let text = "é🦀\nab\n";
    for f in [0.0, 0.2, 0.5, 0.99] {
        let _ = edited(text, &[Edit::Delete(f, 3), Edit::Insert(f, "🦀".into()), Edit::Repeat(f)]);
    }
    assert_eq!(edited("a\nb\n", &[Edit::Repeat(0.0)]), "a\na\nb\n");
}
