//! navguard's own core as the agent under test, in process: each neutral tool is the core's
//! tool of that name (or the nearest: `new_tab` is `open_url`, `select_tab` `focus_tab`), run
//! through [`Session`], so the answer is what the core's loop would show its model next: the
//! page after the loop-top guard and the quiet window, never a page that is leaving.

use super::{AgentUnderTest, Answer, ElementSeen, Failure, FailureClass, NeutralTool, PageSeen, TabSeen};
use async_trait::async_trait;
use navguard::agent::{Agent, AgentConfig, FailureKind, Observation, Session, ToolCall, ToolReply};
use navguard::browser::{BrowserPort, TabId};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Instant;

/// The core, on the scenario's own tabs.
///
/// Its calls run on the runtime's worker threads, as the core runs in an agent's own program:
/// a step's future is polled where the scenario runner polls every concurrent scenario's steps,
/// so the core's waits, run there, answered late whenever other scenarios' steps were busy (a
/// navigating click took twice as long in process as through `navguard mcp` in `compare`).
pub struct CoreAgent {
    state: Arc<tokio::sync::Mutex<CoreState>>,
    /// The tab it acts on, as the last call left it (read without waiting for a call).
    focused: Arc<std::sync::Mutex<Option<TabId>>>,
}

impl std::fmt::Debug for CoreAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoreAgent").field("focused", &self.focused).finish_non_exhaustive()
    }
}

/// What the core keeps between calls: its tabs and its session (the task's tabs, refs, looks).
struct CoreState {
    port: Arc<dyn BrowserPort>,
    config: AgentConfig,
    session: Session,
}

impl CoreAgent {
    /// The core on `port`, with its default settings (both guards on), allowed to upload from
    /// `files`.
    pub fn new(port: Arc<dyn BrowserPort>, files: Option<std::path::PathBuf>) -> Self {
        // A scenario repeats a call on purpose (a stale ref, then the same click again): the
        // no-progress detector would judge the scenario, not the agent.
        let config = AgentConfig { no_progress: false, files, ..AgentConfig::default() };
        let state = CoreState { port, config, session: Session::new() };
        Self { state: Arc::new(tokio::sync::Mutex::new(state)), focused: Arc::default() }
    }
}

impl CoreState {
    /// The tab the core acts on now.
    fn focused_tab(&self) -> Option<TabId> {
        self.session.task().tabs.focused().cloned()
    }

    async fn run(&mut self, name: &str, args: Value) -> Answer {
        let agent = Agent::for_caller(self.port.as_ref(), self.config.clone());
        let answer = self.session.call(&agent, ToolCall { name: name.to_owned(), args }).await;
        let failure = match &answer.call.result {
            ToolReply::Ok(_) => None,
            ToolReply::Failed(message) => {
                Some(Failure { class: class_of(answer.call.failure), message: message.clone() })
            }
        };
        let mut out = page_answer(answer.page);
        out.text = format!("{}\n{}", answer.call.result.text(), out.text);
        out.picture = answer.call.picture.as_deref().and_then(super::png_size);
        out.tabs = answer
            .tabs
            .map(|tabs| tabs.into_iter().map(|t| TabSeen { title: t.title, url: t.url, current: t.focused }).collect());
        match (failure, &mut out.failure) {
            (Some(failure), _) => out.failure = Some(failure),
            // The call was made, and then the page could not be shown: say both.
            (None, Some(look)) => look.message = format!("{}; then {}", answer.call.result.text(), look.message),
            (None, None) => {}
        }
        out
    }

    async fn list_tabs(&mut self) -> Answer {
        let answer = self.run("list_tabs", json!({})).await;
        let seen: Vec<TabSeen> = answer.tabs.unwrap_or_default();
        let lines: Vec<String> =
            seen.iter().enumerate().map(|(i, t)| format!("{}. {} ({})", i + 1, t.title, t.url)).collect();
        Answer { tabs: Some(seen), text: lines.join("\n"), ..Answer::default() }
    }

    /// The neutral index (1-based) as the task's tab, or why there is none.
    fn tab_at(&mut self, args: &Value) -> Result<TabId, String> {
        self.session.adopt_opened_tabs(&Agent::for_caller(self.port.as_ref(), self.config.clone()));
        let index = args.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        let tabs = self.session.task().tabs.listed();
        index
            .checked_sub(1)
            .and_then(|i| tabs.get(i).cloned())
            .ok_or_else(|| format!("there is no tab {index}: the task has {}", tabs.len()))
    }

    /// One neutral call, as the core's tool of that name.
    async fn call(&mut self, tool: NeutralTool, args: &Value) -> Answer {
        match tool {
            NeutralTool::Navigate => self.run("navigate", json!({"url": args.get("url")})).await,
            NeutralTool::NewTab => {
                let opened = self.run("open_url", json!({"url": args.get("url"), "active": true})).await;
                match opened.failure {
                    Some(_) => opened,
                    None => self.run("focus_tab", json!({"tab": "@opened"})).await,
                }
            }
            NeutralTool::Snapshot => self.run("snapshot", json!({})).await,
            NeutralTool::Click => self.run("click", json!({"ref": args.get("ref")})).await,
            NeutralTool::Type => {
                let submit = args.get("submit").cloned().unwrap_or(Value::Bool(false));
                self.run("type", json!({"ref": args.get("ref"), "text": args.get("text"), "submit": submit})).await
            }
            NeutralTool::PressKey => self.run("press_key", json!({"key": args.get("key")})).await,
            NeutralTool::GoBack => self.run("go_back", json!({})).await,
            NeutralTool::WaitFor => {
                let mut call = json!({"text": args.get("text")});
                if let Some(ms) = args.get("timeout_ms") {
                    call["timeout_ms"] = ms.clone();
                }
                self.run("wait_for", call).await
            }
            NeutralTool::ListTabs => self.list_tabs().await,
            NeutralTool::SelectTab => match self.tab_at(args) {
                Ok(tab) => self.run("focus_tab", json!({"tab": tab.to_string()})).await,
                Err(why) => Answer::failed(FailureClass::NotFound, why),
            },
            NeutralTool::CloseTab => match self.tab_at(args) {
                Ok(tab) => self.run("close_tabs", json!({"tabs": [tab.to_string()]})).await,
                Err(why) => Answer::failed(FailureClass::NotFound, why),
            },
            NeutralTool::HandleDialog => self.run("handle_dialog", json!({"accept": args.get("accept")})).await,
            // The profile's interaction tools are the core's, with its own arguments.
            NeutralTool::Scroll
            | NeutralTool::Extract
            | NeutralTool::Screenshot
            | NeutralTool::SelectOption
            | NeutralTool::Hover
            | NeutralTool::Drag
            | NeutralTool::UploadFile
            | NeutralTool::FillForm => self.run(tool.name(), args.clone()).await,
        }
    }
}

/// The core's failure kinds in the profile's classes (every kind named, so a new one is placed
/// here, not dropped into `other`).
fn class_of(kind: Option<FailureKind>) -> FailureClass {
    let Some(kind) = kind else { return FailureClass::Other };
    match kind {
        FailureKind::StaleRef => FailureClass::StaleRef,
        FailureKind::NotInteractable => FailureClass::NotInteractable,
        FailureKind::NotFound | FailureKind::NoDialog => FailureClass::NotFound,
        FailureKind::Timeout | FailureKind::WaitExpired => FailureClass::Timeout,
        FailureKind::NavigationFailed | FailureKind::NotCommitted | FailureKind::Restricted => FailureClass::Navigation,
        FailureKind::Dialog => FailureClass::Dialog,
        FailureKind::NotApplied => FailureClass::NotApplied,
        FailureKind::NotSupported => FailureClass::NotSupported,
        FailureKind::BadInput | FailureKind::FailedVerification | FailureKind::Refused | FailureKind::Browser => {
            FailureClass::Other
        }
    }
}

/// What the look after a call shows; a stop the loop would make is a navigation failure, and
/// a page a dialog blocks (of which the core can read nothing but its URL) a dialog failure
/// that names the dialog.
fn page_answer(page: Result<Option<Observation>, navguard::agent::StopReason>) -> Answer {
    match page {
        Ok(Some(Observation { dialog: Some(dialog), url, .. })) => Answer {
            text: format!("{url}: the page is blocked: {dialog}"),
            dialog: Some(dialog.to_string()),
            ..Answer::failed(FailureClass::Dialog, format!("{dialog}; answer it with handle_dialog"))
        },
        Ok(Some(seen)) => Answer {
            page: Some(PageSeen { url: seen.url.clone(), title: seen.title.clone() }),
            elements: Some(
                seen.elements
                    .iter()
                    .map(|e| ElementSeen {
                        reference: e.reference.to_string(),
                        role: e.role.clone(),
                        name: e.name.clone(),
                    })
                    .collect(),
            ),
            text: answer_text(&seen),
            ..Answer::default()
        },
        Ok(None) => Answer::default(),
        // The cause underneath goes with the message: a report says what stopped the look.
        Err(stop) => Answer::failed(FailureClass::Navigation, stop.explained()),
    }
}

/// The answer's words: the page's URL, title and number of elements, then its visible text and
/// each frame's, as `navguard mcp` answers them: the same facts in process as through MCP.
fn answer_text(seen: &Observation) -> String {
    let mut lines = vec![format!("{} {} ({} elements)", seen.url, seen.title, seen.elements.len())];
    if !seen.text.is_empty() {
        lines.push(seen.text.clone());
    }
    for frame in seen.frames.iter().filter(|f| !f.text.is_empty()) {
        lines.push(format!("frame {}: {}", frame.url, frame.text));
    }
    lines.join("\n")
}

#[async_trait]
impl AgentUnderTest for CoreAgent {
    fn supports(&self, _: NeutralTool) -> bool {
        true
    }

    async fn call(&mut self, tool: NeutralTool, args: &Value) -> Answer {
        let started = Instant::now();
        let (state, focused, args) = (Arc::clone(&self.state), Arc::clone(&self.focused), args.clone());
        // A call its caller gave up on runs to its end, as in an agent's own program; the next
        // call waits for it.
        let call = tokio::spawn(async move {
            let mut state = state.lock().await;
            let answer = state.call(tool, &args).await;
            *focused.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = state.focused_tab();
            answer
        });
        let mut answer = match call.await {
            Ok(answer) => answer,
            Err(e) => Answer::failed(FailureClass::Other, format!("the core's call ended without an answer: {e}")),
        };
        answer.took = started.elapsed();
        answer
    }

    async fn close(self: Box<Self>) {}

    fn focused_tab(&self) -> Option<TabId> {
        self.focused.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}
