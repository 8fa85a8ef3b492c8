//! Generated text at the page boundary, on a real browser (Chromium and Firefox ESR): any text a
//! page may hold (quotes, backslashes, `</script>`, U+2028, right-to-left text, emoji, the page
//! scripts' own words) comes back from the page as it is there, and an expectation naming it
//! (its title, its text, its URL) verifies; typed into a field, the snapshot shows the field
//! holding it; as a button's label, an alert's words or a framed page's title (and URL), the
//! snapshot gives them as the page holds them. navguard's page scripts take their data as
//! arguments, so no text can change what they do; this holds them to it. A bounded number of
//! cases per `cargo test` (`PROPTEST_CASES` raises it), and the corpus
//! (`tests/corpus/page_text/`, one text a line: texts that once broke something, and the
//! classes named above) replayed every run. A failing text is printed: add it to the corpus.

use async_trait::async_trait;
use navguard::prelude::*;
use navguard_harness::fixtures::FixtureSite;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde_json::json;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// Cases per browser and run, unless `PROPTEST_CASES` says otherwise. Each run draws its own
/// texts (a new seed), so the runs of CI cover more together than one run's cases; each case is
/// five tasks on a real browser (about 0.5 s of a core each).
const CASES: u32 = 12;
/// How long one task may take: far more than one takes (a second or two).
const TASK_DEADLINE: Duration = Duration::from_secs(60);

/// Words that once were placeholders of page scripts, and pieces of text that break code built
/// by pasting text into it.
const TOKENS: &[&str] = &[
    "MS",
    "WANT",
    "PARSE_WAIT",
    "TEXT",
    "MAX",
    "SINCE",
    "ASKED",
    "READ_CAP",
    "THEN",
    "\"",
    "'",
    "`",
    "\\",
    "\\\"",
    "</script>",
    "<b>",
    "&amp;",
    "${x}",
    "*/",
    "//",
    "\u{2028}",
    "\u{2029}",
    "مرحبا",
    "שלום",
    "🙂",
    "👩‍💻",
    "你好",
    "null",
    "undefined",
    ");",
    "%20",
    "#",
    "?",
    "e12",
];

/// What a page's title holds once the browser has read it: ASCII whitespace collapsed and
/// trimmed (`document.title`).
fn as_title(text: &str) -> String {
    text.split([' ', '\t', '\n', '\r', '\u{c}']).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// The longest piece of the text with no whitespace or line separator in it: what any layout
/// shows as it is in the page's visible text.
fn a_word(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c == '\u{2028}' || c == '\u{2029}')
        .max_by_key(|w| w.chars().count())
        .unwrap_or_default()
        .to_owned()
}

/// The model of the test: opens the page, notes what it saw, and calls `done` expecting the
/// page's title, a word of its text and its URL; asked again (a refused done) it answers
/// nothing, so the task ends without `done`.
struct Expecting {
    url: String,
    title: String,
    word: String,
    seen: Mutex<Option<(String, String)>>,
}

#[async_trait]
impl Planner for Expecting {
    async fn next_turn(&self, request: PlanRequest<'_>) -> Result<ModelTurn, PlannerError> {
        let call = |name: &str, args: serde_json::Value| ToolCall { name: name.to_owned(), args };
        let calls = match request.observation {
            None => vec![call("open_url", json!({ "url": self.url }))],
            Some(page) if request.round == 2 => {
                *self.seen.lock().unwrap() = Some((page.title.clone(), page.url.clone()));
                let mut expect = json!({ "title": self.title, "url": page.url });
                if !self.word.is_empty() {
                    expect["text"] = json!(self.word);
                }
                vec![call("done", json!({ "summary": "seen", "expect": expect }))]
            }
            Some(_) => Vec::new(),
        };
        Ok(ModelTurn { calls })
    }
}

/// Runs a task of `planner`'s to its end, within the task's deadline.
async fn run_task(port: &BidiPort, planner: &dyn Planner, config: AgentConfig) -> Result<StopReason, String> {
    let (agent, cancel, mut task) = (Agent::new(port, planner, config), CancellationToken::new(), Task::default());
    let run = tokio::time::timeout(TASK_DEADLINE, agent.run(&mut task, &cancel)).await;
    run.map_err(|_| format!("no end within {TASK_DEADLINE:?}"))
}

/// Opens a page titled `text` (its title and heading) and checks the round trip; the reason if
/// it does not hold.
async fn round_trip(port: &BidiPort, site: &str, text: &str) -> Result<(), String> {
    let query: String = url::form_urlencoded::Serializer::new(String::new()).append_pair("title", text).finish();
    let planner = Expecting {
        url: format!("{site}/page?{query}"),
        title: as_title(text),
        word: a_word(text),
        seen: Mutex::new(None),
    };
    let config = AgentConfig { verify_timeout: Duration::from_secs(3), round_limit: 4, ..AgentConfig::default() };
    let stop = run_task(port, &planner, config).await?;
    let seen = planner.seen.lock().unwrap().clone();
    let Some((title, _)) = seen else { return Err(format!("the page was never observed: {}", stop.message())) };
    if title != planner.title {
        return Err(format!("the page's title {:?} came back as {title:?}", planner.title));
    }
    match stop {
        StopReason::Done { .. } => Ok(()),
        other => Err(format!("an expectation that holds on the page did not verify: {}", other.message())),
    }
}

/// The model of the typing test: opens a page with a text field, types `text` into it, notes
/// the field's value as the next snapshot gives it, and ends.
struct Typing {
    url: String,
    text: String,
    seen: Mutex<Option<String>>,
}

#[async_trait]
impl Planner for Typing {
    async fn next_turn(&self, request: PlanRequest<'_>) -> Result<ModelTurn, PlannerError> {
        let call = |name: &str, args: serde_json::Value| ToolCall { name: name.to_owned(), args };
        let calls = match (request.round, request.observation) {
            (_, None) => vec![call("open_url", json!({ "url": self.url }))],
            (2, Some(_)) => vec![call("type", json!({ "selector": "#q", "text": self.text }))],
            (_, Some(page)) => {
                let field = page.elements.iter().find(|e| e.selector == "#q");
                *self.seen.lock().unwrap() = field.and_then(|e| e.value.clone());
                vec![call("done", json!({ "summary": "typed" }))]
            }
        };
        Ok(ModelTurn { calls })
    }
}

/// What a snapshot shows of a field's value: whitespace runs as one space, trimmed, its first
/// 80 UTF-16 code units (as the page counts them).
fn as_shown(text: &str) -> String {
    let squashed = text.split(char::is_whitespace).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
    let units: Vec<u16> = squashed.encode_utf16().take(80).collect();
    String::from_utf16_lossy(&units)
}

/// Types `text` into a page's field and checks that the snapshot shows what the field holds.
async fn typed(port: &BidiPort, site: &str, text: &str) -> Result<(), String> {
    let planner = Typing { url: format!("{site}/page?title=Form"), text: text.to_owned(), seen: Mutex::new(None) };
    let stop = run_task(port, &planner, AgentConfig { round_limit: 5, ..AgentConfig::default() }).await?;
    let seen = planner.seen.lock().unwrap().clone();
    match (stop, seen) {
        (StopReason::Done { .. }, Some(value)) if value == as_shown(text) => Ok(()),
        (StopReason::Done { .. }, seen) => Err(format!("typed, the field shows {seen:?}, not {:?}", as_shown(text))),
        (other, _) => Err(format!("the typing did not end done: {}", other.message())),
    }
}

/// The model of the tests that read one thing off a page: opens it, looks again until the page
/// shows what `shows` waits for (a dialog opens a moment after its page loads), keeps that
/// look, answers a dialog if one is open, and ends.
struct Looking {
    url: String,
    shows: fn(&Observation) -> bool,
    seen: Mutex<Option<Observation>>,
}

#[async_trait]
impl Planner for Looking {
    async fn next_turn(&self, request: PlanRequest<'_>) -> Result<ModelTurn, PlannerError> {
        let call = |name: &str, args: serde_json::Value| ToolCall { name: name.to_owned(), args };
        let mut seen = self.seen.lock().unwrap();
        let calls = match request.observation {
            None => vec![call("open_url", json!({ "url": self.url }))],
            Some(page) if seen.is_none() && (self.shows)(page) => {
                *seen = Some(page.clone());
                match page.dialog {
                    Some(_) => vec![call("handle_dialog", json!({ "accept": true }))],
                    None => vec![call("done", json!({ "summary": "seen" }))],
                }
            }
            Some(_) if seen.is_some() => vec![call("done", json!({ "summary": "seen" }))],
            Some(_) => vec![call("snapshot", json!({}))],
        };
        Ok(ModelTurn { calls })
    }
}

/// Opens `url` and keeps the first look at it that `shows` accepts; the reason if none did.
async fn look_at(port: &BidiPort, url: String, shows: fn(&Observation) -> bool) -> Result<Observation, String> {
    let planner = Looking { url, shows, seen: Mutex::new(None) };
    let stop = run_task(port, &planner, AgentConfig { round_limit: 12, ..AgentConfig::default() }).await?;
    let seen = planner.seen.lock().unwrap().take();
    seen.ok_or_else(|| format!("the page never showed it: {}", stop.message()))
}

/// `text` as one query parameter's value.
fn query(name: &str, text: &str) -> String {
    url::form_urlencoded::Serializer::new(String::new()).append_pair(name, text).finish()
}

/// A button labelled `text`: the snapshot names it as the page does (whitespace squashed, the
/// first 80 UTF-16 units).
async fn named(port: &BidiPort, site: &str, text: &str) -> Result<(), String> {
    let url = format!("{site}/button?title=Named&{}", query("label", text));
    let page = look_at(port, url, |page| page.elements.iter().any(|e| e.selector == "#b")).await?;
    let name = page.elements.iter().find(|e| e.selector == "#b").map(|e| e.name.clone()).unwrap_or_default();
    if name == as_shown(text) { Ok(()) } else { Err(format!("the button's name came back as {name:?}")) }
}

/// An alert saying `text`: the look shows the dialog with the page's words, as they are.
async fn alerted(port: &BidiPort, site: &str, text: &str) -> Result<(), String> {
    let url = format!("{site}/dialog?kind=alert&after=0&{}", query("message", text));
    let page = look_at(port, url, |page| page.dialog.is_some()).await?;
    let message = page.dialog.map(|d| d.message).unwrap_or_default();
    if message == text { Ok(()) } else { Err(format!("the alert's words came back as {message:?}")) }
}

/// A frame whose page is titled `text`: the snapshot gives the frame's title as its document
/// has it and its URL as the browser loaded it.
async fn framed(port: &BidiPort, site: &str, text: &str) -> Result<(), String> {
    let inner = format!("{site}/page?{}", query("title", text));
    let url = format!("{site}/frame?title=Outer&{}", query("src", &inner));
    let page = look_at(port, url, |page| page.frames.iter().any(|f| !f.document.is_empty())).await?;
    let Some(frame) = page.frames.first() else { return Err("the snapshot shows no frame".to_owned()) };
    if frame.title != as_title(text) {
        return Err(format!("the frame's title came back as {:?}", frame.title));
    }
    if frame.url != inner {
        return Err(format!("the frame's URL {inner:?} came back as {:?}", frame.url));
    }
    Ok(())
}

/// Every round trip of one text; what did not hold.
async fn every_round_trip(port: &BidiPort, site: &str, text: &str) -> Vec<String> {
    let mut failures = Vec::new();
    for (what, outcome) in [
        ("as a title", round_trip(port, site, text).await),
        ("typed", typed(port, site, text).await),
        ("as a button's name", named(port, site, text).await),
        ("as an alert's words", alerted(port, site, text).await),
        ("as a frame's title", framed(port, site, text).await),
    ] {
        if let Err(why) = outcome {
            failures.push(format!("{text:?} {what}: {why}"));
        }
    }
    failures
}

fn texts() -> impl Strategy<Value = String> {
    let piece = prop_oneof![prop::sample::select(TOKENS).prop_map(str::to_owned), "\\PC{1,12}"];
    prop::collection::vec(piece, 1..6)
        .prop_map(|pieces| pieces.join(""))
        .prop_filter("a title", |t| !as_title(t).is_empty())
}

fn corpus() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/page_text");
    let mut texts = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
        let file = std::fs::read_to_string(entry.path()).unwrap();
        texts.extend(file.lines().filter(|l| !l.trim().is_empty()).map(str::to_owned));
    }
    assert!(texts.len() >= 10, "{} holds the corpus", dir.display());
    texts
}

/// The corpus, then generated texts, on one browser.
async fn on(browser: BrowserKind) {
    let site = FixtureSite::start().await.unwrap();
    let launched = BidiBrowser::launch(BrowserConfig { browser, ..BrowserConfig::default() }).await.unwrap();
    let port = launched.open_port().await.unwrap();
    let mut failures = Vec::new();
    for text in corpus() {
        failures.extend(every_round_trip(&port, &site.site, &text).await);
    }
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(CASES);
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let generated: Vec<String> = (0..cases).map(|_| texts().new_tree(&mut runner).expect("a text").current()).collect();
    for text in generated {
        let failed = every_round_trip(&port, &site.site, &text).await;
        failures.extend(failed.into_iter().map(|why| format!("{why} (add it to tests/corpus/page_text/)")));
    }
    launched.shutdown().await;
    site.shutdown().await;
    assert!(failures.is_empty(), "{browser}:\n{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_text_comes_back_from_chromium_as_the_page_holds_it_and_verifies() {
    on(BrowserKind::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_text_comes_back_from_firefox_as_the_page_holds_it_and_verifies() {
    on(BrowserKind::Firefox).await;
}
