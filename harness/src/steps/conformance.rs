//! The agent-conformance steps (`docs/agent-conformance.md`): the same scenarios against any
//! agent under test, through the neutral tools. The agent is navguard's core unless the run
//! names another (`--agent`). The fixture site's request log and, where the agent shares the
//! harness's browser, the browser's own events are the truth of what a call really did.

use crate::error::{StepError, StepResult};
use crate::under_test::{AgentUnderTest, Answer, BrowserAt, FailureClass, NeutralTool, StartAt};
use crate::world::user_action::{self, UserAction};
use crate::world::{BeforeCall, CallMade, EVENT_DEADLINE, NavWorld};
use cucumber::gherkin::Step;
use cucumber::{given, then, when};
use navguard::browser::{BrowserError, NavEventKind, PageScript, TabId};
use serde_json::Value;
use std::time::Duration;
use tracing::Instrument as _;

mod refs;
use refs::resolve_refs;

/// Starts the scenario's agent, once.
async fn agent(world: &mut NavWorld) -> StepResult<&mut Box<dyn AgentUnderTest>> {
    if world.conformance.agent.is_none() {
        // Only an agent handed the Chromium binary needs it: navguard's core in process, or
        // through `navguard mcp`, runs on a machine with Firefox alone.
        let needs = world.conformance.agent_description.as_ref().is_some_and(|d| d.needs_chromium());
        let chromium = match needs {
            true => navguard::adapter::BrowserKind::Chromium.binary().map_err(|e| StepError::Setup(e.to_string()))?,
            false => std::path::PathBuf::new(),
        };
        let chromium = chromium.display().to_string();
        let env = world.env()?;
        let files =
            env.files.path().to_str().ok_or_else(|| StepError::Setup("the files folder's path is not UTF-8".into()))?;
        let browser = BrowserAt {
            cdp: env.browser.cdp_endpoint(),
            bidi: Some(env.browser.bidi_url()),
            webdriver: env.browser.webdriver_session_url(),
            files: Some(files),
        };
        let at = StartAt { port: world.port()?.clone(), chromium: &chromium, browser };
        let description = world.conformance.agent_description.clone();
        let started = crate::under_test::start(description, at).await.map_err(|e| StepError::Setup(e.to_string()))?;
        world.conformance.agent = Some(started);
    }
    world.conformance.agent.as_mut().ok_or_else(|| StepError::Setup("no agent".into()))
}

/// Why the harness cannot read or act in the agent's tab, if it cannot: the agent acts in a
/// browser of its own. A step that needs that tab then makes the scenario not applicable.
fn in_a_browser_of_its_own(world: &NavWorld) -> Option<String> {
    let agent = world.conformance.agent_description.as_ref()?;
    agent
        .has_a_browser_of_its_own()
        .then(|| format!("{} acts in a browser of its own, whose pages the harness cannot read or act in", agent.name))
}

/// Fails the step as not applicable when the agent acts in a browser of its own
/// ([`in_a_browser_of_its_own`]): the step would read or act in a tab the agent never sees.
fn needs_the_agents_tab(world: &mut NavWorld) -> StepResult {
    match in_a_browser_of_its_own(world) {
        Some(why) => {
            world.conformance.not_applicable = Some(why.clone());
            Err(StepError::NotApplicable(format!("not applicable: {why}")))
        }
        None => Ok(()),
    }
}

/// The tab the agent acts on now: the core says; another agent's is the tab showing the page
/// its latest answer showed (the newest such), else the newest tab.
async fn agents_tab(world: &NavWorld) -> StepResult<TabId> {
    if let Some(tab) = world.conformance.agent.as_ref().and_then(|a| a.focused_tab()) {
        return Ok(tab);
    }
    let shown = world.conformance.calls.values().rev().find_map(|c| c.answer.page.as_ref()).map(|p| p.url.clone());
    let tabs = world.port()?.tabs().await?;
    let matching = tabs.iter().rev().find(|t| shown.as_ref().is_some_and(|u| *u == t.url));
    matching.or(tabs.last()).map(|t| t.id.clone()).ok_or_else(|| StepError::Setup("the agent has no tab".into()))
}

fn no_answer(agent: &str, deadline: Duration) -> String {
    format!("agent {agent} gave no answer within {} s", deadline.as_secs())
}

async fn send(world: &mut NavWorld, n: u32, tool: NeutralTool, args: Value) -> StepResult {
    for before in world.conformance.before.remove(&n).unwrap_or_default() {
        if !matches!(before, BeforeCall::Pause(_)) {
            needs_the_agents_tab(world)?;
        }
        match before {
            // The scenario's own think time between two calls: the pause is what is tested.
            BeforeCall::Pause(pause) => tokio::time::sleep(pause).await,
            BeforeCall::Dialog => until_a_dialog_is_open(world).await?,
            BeforeCall::OpenedTab => {
                let earlier = world.conformance.opened_tabs_awaited;
                until_a_page_opened_a_tab(world, earlier).await?;
                world.conformance.opened_tabs_awaited += 1;
            }
            BeforeCall::User(action) => {
                let tab = agents_tab(world).await?;
                let placeholders = world.site()?.placeholders();
                let port = world.port()?.clone();
                action.perform(port.as_ref(), &tab, |u| placeholders.expand(u)).await?;
            }
        }
    }
    let name = world.conformance.name();
    let deadline = world.conformance.call_timeout;
    let progress = world.progress.span();
    let agent = agent(world).await?;
    if let Some(why) = lacks(agent.as_ref(), &name, tool, &args) {
        world.conformance.not_applicable = Some(why.clone());
        return Err(StepError::NotApplicable(format!("not applicable: {why}")));
    }
    // Where each call begins and ends, for reading beside a wire trace (`RUST_LOG=navguard::call=debug`).
    tracing::debug!(target: "navguard::call", "call {n} {tool} sent");
    let (answer, unanswered) = match tokio::time::timeout(deadline, agent.call(tool, &args).instrument(progress)).await
    {
        Ok(answer) => (answer, false),
        Err(_) => {
            (Answer { took: deadline, ..Answer::failed(FailureClass::Timeout, no_answer(&name, deadline)) }, true)
        }
    };
    let answer = if !unanswered
        && answer.succeeded()
        && answer.page.is_none()
        && agent.looks_after(tool)
        && agent.supports(NeutralTool::Snapshot)
    {
        with_next_look(agent.as_mut(), answer, deadline).await
    } else {
        answer
    };
    let answer = with_stray_lines(answer, agent.stray_lines());
    tracing::debug!(target: "navguard::call", "call {n} {tool} answered in {} ms", answer.took.as_millis());
    world.conformance.calls.insert(n, CallMade { tool, args, answer, unanswered });
    Ok(())
}

/// Why a call of `tool` with `args` is not applicable to the agent: a tool it has no
/// counterpart for, or a form of the call its counterpart does not take.
fn lacks(agent: &dyn AgentUnderTest, name: &str, tool: NeutralTool, args: &Value) -> Option<String> {
    if !agent.supports(tool) {
        return Some(format!("{name} has no {tool}"));
    }
    (!agent.takes(tool, args)).then(|| format!("{name}'s {tool} takes no {args}"))
}

/// `answer` with the lines the agent wrote during its call that are not its protocol (already
/// skipped): kept with it, and named in its failure's message, where it failed.
fn with_stray_lines(mut answer: Answer, stray: Vec<String>) -> Answer {
    if stray.is_empty() {
        return answer;
    }
    if let Some(failure) = answer.failure.as_mut() {
        let lines: Vec<String> = stray.iter().map(|line| format!("{line:?}")).collect();
        failure.message.push_str(&format!(
            " (it also wrote on its stdout what is not its protocol, skipped: {})",
            lines.join(", ")
        ));
    }
    Answer { stray, ..answer }
}

/// An answer that carried no page, completed by the agent's next look, taken at once as its
/// model would take it: the look's page, its elements where the answer had none, and the
/// dialog it tells of. A look that fails or does not answer leaves the answer without a page.
async fn with_next_look(agent: &mut dyn AgentUnderTest, answer: Answer, deadline: Duration) -> Answer {
    let look = match tokio::time::timeout(deadline, agent.call(NeutralTool::Snapshot, &serde_json::json!({}))).await {
        Ok(look) => look,
        Err(_) => Answer { took: deadline, ..Answer::failed(FailureClass::Timeout, "its look gave no answer") },
    };
    let said = if look.succeeded() { look.text.clone() } else { said(&look) };
    Answer {
        page: look.page,
        elements: answer.elements.or(look.elements),
        dialog: answer.dialog.or(look.dialog),
        text: format!("{}\n[its next look, taken at once]\n{said}", answer.text),
        took: answer.took + look.took,
        looked: true,
        ..answer
    }
}

#[given(expr = "the agent under test is on {string}")]
async fn is_on(world: &mut NavWorld, url: String) -> StepResult {
    let url = world.expand(&url);
    if in_a_browser_of_its_own(world).is_some() {
        return is_on_in_its_own_browser(world, url).await;
    }
    world.mark()?;
    send(world, 0, NeutralTool::Navigate, serde_json::json!({ "url": url })).await?;
    let answer = world.conformance.answer(0);
    let refused = answer.and_then(|a| a.failure.as_ref()).map(|f| f.message.clone());
    // An agent that broke off did nothing that could be waited for.
    if let Some(message) = refused.as_ref().filter(|_| answer.is_some_and(|a| a.broken)) {
        return Err(StepError::Expectation(format!("the agent could not go to {url}: {message}")));
    }
    // The harness's own check, not the agent's word: the page's load event in the browser.
    // Compared as parsed URLs: the browser reports the URL as it normalised it (a space
    // percent-encoded). A failed answer is not enough to fail the set-up (the page may have
    // loaded and then opened a dialog); a page that never loaded is told in the agent's words.
    let wanted = url::Url::parse(&url).ok();
    let loaded = |e: &navguard::browser::NavEvent| {
        e.kind == NavEventKind::Load && e.url.as_deref().and_then(|u| url::Url::parse(u).ok()) == wanted
    };
    if let Err(e) = world.wait_for_event(&format!("{url} to load"), loaded).await {
        return Err(match refused {
            Some(message) => StepError::Expectation(format!("the agent could not go to {url}: {message}")),
            None => e,
        });
    }
    if world.conformance.calls.get(&0).is_some_and(|c| c.unanswered) {
        return Err(StepError::Expectation(format!(
            "the set-up's navigate: {}",
            no_answer(&world.conformance.name(), world.conformance.call_timeout)
        )));
    }
    world.conformance.calls.remove(&0);
    Ok(())
}

/// The set-up's navigate for an agent in a browser of its own: the harness cannot see the page
/// load, so its own check is the fixture site's: the page was asked for; and the agent answered
/// its navigate without failing.
async fn is_on_in_its_own_browser(world: &mut NavWorld, url: String) -> StepResult {
    send(world, 0, NeutralTool::Navigate, serde_json::json!({ "url": url })).await?;
    let call = world.conformance.calls.remove(&0);
    let failure = call.as_ref().and_then(|c| c.answer.failure.as_ref()).map(|f| f.message.clone());
    if call.as_ref().is_some_and(|c| c.unanswered) {
        let why = no_answer(&world.conformance.name(), world.conformance.call_timeout);
        return Err(StepError::Expectation(format!("the set-up's navigate: {why}")));
    }
    if let Some(message) = failure {
        return Err(StepError::Expectation(format!("the agent could not go to {url}: {message}")));
    }
    let path = url::Url::parse(&url).map(|u| u.path().to_owned()).unwrap_or_default();
    match world.site()?.requests().count(&path) {
        0 => Err(StepError::Expectation(format!(
            "the agent answered its navigate to {url}, and the site was never asked for {path}"
        ))),
        _ => Ok(()),
    }
}

#[when("the agent under test is called:")]
async fn called(world: &mut NavWorld, step: &Step) -> StepResult {
    let table =
        step.table.as_ref().ok_or_else(|| StepError::Setup("the step needs a | call | tool | args | table".into()))?;
    // A tool the agent has no counterpart for makes the scenario not applicable before any
    // call is made (a ref the agent's answers cannot give, for a tool it lacks, is no failure).
    // Its refs are not known yet: a form is told by the arguments' names and plain values.
    for row in table.rows.iter().skip(1) {
        let Some(Ok(tool)) = row.get(1).map(|t| t.trim().parse::<NeutralTool>()) else {
            continue;
        };
        let args = row.get(2).map(|a| world.expand(a.trim())).filter(|a| !a.is_empty());
        let args = args.map_or(Some(Value::Object(Default::default())), |a| serde_json::from_str(&a).ok());
        let name = world.conformance.name();
        let agent = agent(world).await?;
        let lacked = match &args {
            Some(args) => lacks(agent.as_ref(), &name, tool, args),
            None => (!agent.supports(tool)).then(|| format!("{name} has no {tool}")),
        };
        if let Some(why) = lacked {
            world.conformance.not_applicable = Some(why.clone());
            return Err(StepError::NotApplicable(format!("not applicable: {why}")));
        }
    }
    let mut last = 0;
    for row in table.rows.iter().skip(1) {
        let [call, tool, args] = row.as_slice() else {
            return Err(StepError::Setup(format!("a row needs | call | tool | args |, got {row:?}")));
        };
        let n: u32 = call.trim().parse().map_err(|_| StepError::Setup(format!("call {call:?} is not a number")))?;
        if n <= last {
            return Err(StepError::Setup(format!("call {n} comes after call {last}: call numbers increase")));
        }
        last = n;
        let tool: NeutralTool = tool.trim().parse().map_err(|e| StepError::Setup(format!("{e}")))?;
        let args = world.expand(args.trim());
        let args = if args.is_empty() { "{}".to_owned() } else { resolve_refs(&world.conformance, &args)? };
        let args: Value =
            serde_json::from_str(&args).map_err(|e| StepError::Setup(format!("call {n}: args are not JSON: {e}")))?;
        send(world, n, tool, args).await?;
    }
    // A call that never answered, or that the agent's process broke off, fails the scenario,
    // whatever its Then steps would accept: the rest of the table was still sent, as a model
    // would go on.
    match world.conformance.first_unanswered() {
        Some((n, what)) => Err(StepError::Expectation(format!("call {n}: {what}"))),
        None => Ok(()),
    }
}

#[given(expr = "before call {int} the user {action}")]
async fn before_call_the_user(world: &mut NavWorld, n: u32, action: UserAction) {
    world.conformance.before.entry(n).or_default().push(BeforeCall::User(action));
}

#[given(expr = "before call {int} the page has opened a dialog")]
async fn before_call_dialog(world: &mut NavWorld, n: u32) {
    world.conformance.before.entry(n).or_default().push(BeforeCall::Dialog);
}

/// Waits until a page of the agent's browser (its user context, for the core) has a dialog
/// open, by the browser's own event, at most [`EVENT_DEADLINE`].
async fn until_a_dialog_is_open(world: &NavWorld) -> StepResult {
    let port = world.port()?.clone();
    match user_action::until_a_dialog_is_open(port.as_ref(), None).await {
        Err(BrowserError::Timeout { after, .. }) => {
            Err(StepError::Timeout { what: "a page to open a dialog".into(), after })
        }
        done => Ok(done?),
    }
}

#[given(expr = "before call {int} the page has opened a tab")]
async fn before_call_opened_tab(world: &mut NavWorld, n: u32) {
    world.conformance.before.entry(n).or_default().push(BeforeCall::OpenedTab);
}

/// Waits until a page of the agent's browser has opened a tab by itself (the browser names
/// an opener) beyond the `earlier` ones the scenario already waited for, and that tab's first
/// page has loaded: by the browser's own events since the scenario began, at most
/// [`EVENT_DEADLINE`].
async fn until_a_page_opened_a_tab(world: &NavWorld, earlier: usize) -> StepResult {
    let mut events = world.port()?.subscribe_from_start();
    let loaded = async {
        let mut opened: Vec<TabId> = Vec::new();
        loop {
            match events.next().await {
                Ok(event) if event.kind == NavEventKind::TabCreated && event.opener.is_some() => {
                    opened.push(event.tab);
                }
                Ok(event) if event.kind == NavEventKind::Load => {
                    if opened.iter().position(|t| *t == event.tab) == Some(earlier) {
                        return Ok(());
                    }
                }
                Ok(_) => {}
                Err(closed) => return Err(StepError::Setup(closed.to_string())),
            }
        }
    };
    let deadline = EVENT_DEADLINE;
    tokio::time::timeout(deadline, loaded)
        .await
        .map_err(|_| StepError::Timeout { what: "a page to open a tab and that tab to load".into(), after: deadline })?
}

#[given(expr = "before call {int} {int} ms pass")]
async fn before_call_pause(world: &mut NavWorld, n: u32, ms: u64) {
    world.conformance.before.entry(n).or_default().push(BeforeCall::Pause(Duration::from_millis(ms)));
}

fn answer(world: &NavWorld, n: u32) -> StepResult<&Answer> {
    world.conformance.answer(n).ok_or_else(|| StepError::Setup(format!("there was no call {n}")))
}

fn said(answer: &Answer) -> String {
    match &answer.failure {
        Some(f) => format!("it failed as {}: {}", f.class, f.message),
        None => format!("it succeeded: {}", answer.text.lines().take(8).collect::<Vec<_>>().join(" / ")),
    }
}

#[then(expr = "call {int} succeeded")]
async fn call_succeeded(world: &mut NavWorld, n: u32) -> StepResult {
    let a = answer(world, n)?;
    if a.succeeded() { Ok(()) } else { Err(StepError::Expectation(format!("call {n}: {}", said(a)))) }
}

#[then(expr = "call {int} failed")]
async fn call_failed(world: &mut NavWorld, n: u32) -> StepResult {
    let a = answer(world, n)?;
    if a.succeeded() { Err(StepError::Expectation(format!("call {n}: {}", said(a)))) } else { Ok(()) }
}

#[then(expr = "call {int} failed as {string}")]
async fn call_failed_as(world: &mut NavWorld, n: u32, class: String) -> StepResult {
    let class: FailureClass = class.parse().map_err(|e| StepError::Setup(format!("{e}")))?;
    let a = answer(world, n)?;
    match &a.failure {
        Some(f) if f.class == class => Ok(()),
        _ => Err(StepError::Expectation(format!("call {n}: {}", said(a)))),
    }
}

fn page_titled(world: &NavWorld, n: u32, title: &str) -> StepResult {
    let a = answer(world, n)?;
    match &a.page {
        Some(page) if page.title == title => Ok(()),
        Some(page) => Err(StepError::Expectation(format!(
            "call {n} answered with the page titled {:?} ({}); {}",
            page.title,
            page.url,
            said(a)
        ))),
        None => Err(StepError::Expectation(format!("call {n}'s answer shows no page; {}", said(a)))),
    }
}

#[then(expr = "call {int} answered with the page titled {string}")]
async fn answered_titled(world: &mut NavWorld, n: u32, title: String) -> StepResult {
    page_titled(world, n, &title)
}

#[then(expr = "call {int} answered with the page at {string}")]
async fn answered_at(world: &mut NavWorld, n: u32, url: String) -> StepResult {
    let url = world.expand(&url);
    let a = answer(world, n)?;
    match &a.page {
        Some(page) if page.url == url => Ok(()),
        Some(page) => {
            Err(StepError::Expectation(format!("call {n} answered with the page at {}; {}", page.url, said(a))))
        }
        None => Err(StepError::Expectation(format!("call {n}'s answer shows no page; {}", said(a)))),
    }
}

#[then(expr = "call {int} either failed or answered with the page titled {string}")]
async fn failed_or_titled(world: &mut NavWorld, n: u32, title: String) -> StepResult {
    if answer(world, n)?.succeeded() { page_titled(world, n, &title) } else { Ok(()) }
}

#[then(expr = "call {int} reported a dialog")]
async fn reported_dialog(world: &mut NavWorld, n: u32) -> StepResult {
    let a = answer(world, n)?;
    if a.reported_dialog() {
        Ok(())
    } else {
        Err(StepError::Expectation(format!("call {n} did not report a dialog: {}", said(a))))
    }
}

#[then(expr = "call {int} either reported a dialog or answered with the page titled {string}")]
async fn dialog_or_titled(world: &mut NavWorld, n: u32, title: String) -> StepResult {
    if answer(world, n)?.reported_dialog() { Ok(()) } else { page_titled(world, n, &title) }
}

fn lists(a: &Answer, name: &str) -> bool {
    a.elements.iter().flatten().any(|e| e.name == name) || a.tabs.iter().flatten().any(|t| t.title == name)
}

#[then(expr = "call {int}'s answer lists {string}")]
async fn answer_lists(world: &mut NavWorld, n: u32, name: String) -> StepResult {
    let a = answer(world, n)?;
    if lists(a, &name) {
        Ok(())
    } else {
        Err(StepError::Expectation(format!("call {n}'s answer does not list {name:?}; {}", said(a))))
    }
}

#[then(expr = "call {int}'s answer does not list {string}")]
async fn answer_does_not_list(world: &mut NavWorld, n: u32, name: String) -> StepResult {
    let a = answer(world, n)?;
    if lists(a, &name) { Err(StepError::Expectation(format!("call {n}'s answer lists {name:?}"))) } else { Ok(()) }
}

/// The answer's page text: its snapshot's element names, and the text the agent answered with
/// (a JSON-lines answer's `text`, an MCP server's whole answer).
fn shows(a: &Answer, text: &str) -> bool {
    a.elements.iter().flatten().any(|e| e.name.contains(text)) || a.text.contains(text)
}

#[then(expr = "call {int}'s answer shows {string}")]
async fn answer_shows(world: &mut NavWorld, n: u32, text: String) -> StepResult {
    let a = answer(world, n)?;
    if shows(a, &text) {
        Ok(())
    } else {
        Err(StepError::Expectation(format!("call {n}'s answer does not show {text:?}; {}", said(a))))
    }
}

#[then(expr = "call {int}'s answer does not show {string}")]
async fn answer_does_not_show(world: &mut NavWorld, n: u32, text: String) -> StepResult {
    let a = answer(world, n)?;
    if shows(a, &text) {
        Err(StepError::Expectation(format!("call {n}'s answer shows {text:?}; {}", said(a))))
    } else {
        Ok(())
    }
}

#[then(expr = "call {int} answered with a picture")]
async fn answered_with_a_picture(world: &mut NavWorld, n: u32) -> StepResult {
    let a = answer(world, n)?;
    match a.picture {
        Some(bytes) if bytes > 0 => Ok(()),
        _ => Err(StepError::Expectation(format!("call {n}'s answer holds no PNG; {}", said(a)))),
    }
}

#[then(expr = "call {int} answered within {int} ms")]
async fn answered_within(world: &mut NavWorld, n: u32, ms: u64) -> StepResult {
    let a = answer(world, n)?;
    if a.took <= Duration::from_millis(ms) {
        Ok(())
    } else {
        Err(StepError::Expectation(format!("call {n} took {} ms", a.took.as_millis())))
    }
}

#[then(regex = r#"^if call (\d+) reported a dialog, the fixture site served "([^"]*)" (\d+) times?$"#)]
async fn served_if_dialog(world: &mut NavWorld, n: u32, path: String, times: usize) -> StepResult {
    let a = answer(world, n)?;
    if !a.reported_dialog() {
        return Ok(());
    }
    let served = world.site()?.requests().count(&path);
    if served == times {
        Ok(())
    } else {
        Err(StepError::Expectation(format!(
            "call {n} reported a dialog (the page blocked), yet the fixture site served {path} {served} times, not \
             {times}; {}",
            said(a)
        )))
    }
}

/// The page's visible text.
const PAGE_TEXT: PageScript =
    PageScript { name: "page text", function: "() => document.body ? document.body.innerText : ''" };

/// The text of the page in the agent's tab: the browser's own read, not the agent's word.
async fn agents_page_text(world: &NavWorld) -> StepResult<String> {
    let tab = agents_tab(world).await?;
    let shown = world.port()?.call(&tab, &PAGE_TEXT, &[]).await?;
    Ok(shown.as_str().unwrap_or_default().to_owned())
}

/// The start of a page's text, on one line, for a failure's message.
fn text_start(shown: &str) -> String {
    shown.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(200).collect()
}

#[then(expr = "the agent's page shows {string}")]
async fn agents_page_shows(world: &mut NavWorld, text: String) -> StepResult {
    needs_the_agents_tab(world)?;
    let shown = agents_page_text(world).await?;
    if shown.contains(&text) {
        Ok(())
    } else {
        let start = text_start(&shown);
        Err(StepError::Expectation(format!("the agent's page does not show {text:?}; it shows {start:?}")))
    }
}

#[then(expr = "the agent's page does not show {string}")]
async fn agents_page_does_not_show(world: &mut NavWorld, text: String) -> StepResult {
    needs_the_agents_tab(world)?;
    let shown = agents_page_text(world).await?;
    if shown.contains(&text) {
        let start = text_start(&shown);
        Err(StepError::Expectation(format!("the agent's page shows {text:?}; it shows {start:?}")))
    } else {
        Ok(())
    }
}
