//! An agent that speaks the JSON-lines protocol over stdio: one JSON object a line each way.
//! The harness sends `{"id": 0, "start": {"chromium": PATH, "cdp_endpoint": URL?}}` first, then
//! `{"id": N, "tool": T, "args": {…}}` (the neutral tools, by their names). The agent answers
//! each id once: `{"id": N, "ok": true, "page": {"url", "title"}?, "snapshot": {"elements":
//! [{"ref", "role", "name"}]}?, "tabs": [{"index", "url", "title", "current"}]?, "text": S?,
//! "picture": PNG in base64?}` or `{"id": N, "ok": false, "error": {"class", "message"}}`. The
//! start's answer may say what the agent is (`"agent": {"name", "version"}`), which neutral
//! tools it has (`"tools": [...]`; all when absent) and the forms of a call it takes of those
//! it takes in some forms only (`"forms": {"screenshot": ["!ref"]}`). Once it answered the start line, a line that is no line of the protocol's (not
//! JSON, or JSON that is not an object with an `id`: a log line written to the wrong stream, a
//! structured logger's object) is named and skipped; any other line that is not the answer
//! asked for is a protocol error that names the line. No description mapping is needed: the
//! answers are already structured.

mod wire;

use super::description::{Conditions, Description};
use super::lines::{LineReader, StrayLines};
use super::process::AgentProcess;
use super::{AgentError, AgentUnderTest, Answer, BrowserAt, NeutralTool};
use async_trait::async_trait;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt as _;
use tokio::process::ChildStdin;
use wire::{Started, parse_reply, quote, start_line};

/// What a jsonl agent is, for error messages.
const EXPECTED: &str = "a JSON-lines agent over stdio";
/// How long an agent that closed its stdout has to exit before its status is asked.
const EXIT_GRACE: Duration = Duration::from_secs(1);

/// A running JSON-lines agent as the agent under test.
pub struct JsonlAgent {
    description: Arc<Description>,
    process: AgentProcess,
    stdin: ChildStdin,
    stdout: LineReader,
    /// The latest id sent (the start is 0).
    last_id: u64,
    /// The call whose answer has not been read yet: the caller may give up on a call (its
    /// deadline), and its answer, when it comes later, is skipped once.
    pending: Option<u64>,
    abandoned: BTreeSet<u64>,
    /// The neutral tools it has, when its start answer listed them (all otherwise).
    offered: Option<BTreeSet<NeutralTool>>,
    /// The forms of a call it takes, for the tools it takes in some forms only.
    forms: BTreeMap<NeutralTool, Vec<Conditions>>,
    /// Its name and version, as its start answer gave them (the description's name otherwise).
    pub server: String,
    /// Whether its start answer said what it is (`agent`).
    introduced: bool,
    /// The lines it wrote on stdout, after its start answer, that were not JSON.
    stray: StrayLines,
}

impl std::fmt::Debug for JsonlAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonlAgent").field("agent", &self.description.name).field("server", &self.server).finish()
    }
}

impl JsonlAgent {
    /// Starts the agent and exchanges the start line, within the description's start timeout;
    /// an agent that does not start, or does not speak the protocol, is one error naming it
    /// and what to do.
    pub async fn start(description: Arc<Description>, chromium: &str, at: BrowserAt<'_>) -> Result<Self, AgentError> {
        let mut process = AgentProcess::start(&description, chromium, at)?;
        let command = process.command.clone();
        let (Some(stdout), Some(mut stdin)) = (process.stdout.take(), process.stdin.take()) else {
            let e = protocol(&description, "its stdio could not be taken".into(), &process);
            process.end().await;
            return Err(e);
        };
        let mut stdout = LineReader::new(stdout);
        let deadline = Duration::from_millis(description.start.timeout_ms);
        let exchange = async {
            // A line it wrote is what it said, even when it did not read the start line (it
            // exited first: a broken pipe).
            let sent = send(&mut stdin, &start_line(chromium, at.cdp)).await;
            match stdout.next().await {
                Ok(Some(line)) => {
                    let reply = parse_reply(&line)
                        .map_err(|why| format!("the start line was answered with {why}: {}", quote(&line)))?;
                    if reply.id != 0 {
                        return Err(format!(
                            "the start line (id 0) was answered with id {}: {}",
                            reply.id,
                            quote(&line)
                        ));
                    }
                    Ok(reply)
                }
                Ok(None) => {
                    let exit = exit_status(&mut process).await;
                    process.stderr_read(EXIT_GRACE).await;
                    Err(match sent {
                        Err(e) => format!("it did not take the start line ({e}) and closed its stdout{exit}"),
                        Ok(()) => format!("it closed its stdout without answering the start line{exit}"),
                    })
                }
                Err(e) => Err(format!("its stdout could not be read ({e})")),
            }
        };
        let reply = match tokio::time::timeout(deadline, exchange).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(why)) => {
                let e = protocol(&description, why, &process);
                process.end().await;
                return Err(e);
            }
            Err(_) => {
                // What it wrote while it did not answer (read as it comes) says where it was.
                let stderr = process.stderr_tail();
                process.end().await;
                return Err(AgentError::NoHandshake {
                    agent: description.name.clone(),
                    what: "start line",
                    command,
                    expected: EXPECTED,
                    after: deadline,
                    stderr,
                });
            }
        };
        let started = match Started::of(reply) {
            Ok(started) => started,
            Err(why) => {
                let e = protocol(&description, why, &process);
                process.end().await;
                return Err(e);
            }
        };
        let introduced = started.name.is_some() || started.version.is_some();
        let server = match (started.name, started.version) {
            (Some(name), Some(version)) => format!("{name} {version}"),
            (Some(name), None) => name,
            (None, Some(version)) => format!("{} {version}", description.name),
            (None, None) => description.name.clone(),
        };
        Ok(Self {
            description,
            process,
            stdin,
            stdout,
            last_id: 0,
            pending: None,
            abandoned: BTreeSet::new(),
            offered: started.tools,
            forms: started.forms,
            server,
            introduced,
            stray: StrayLines::default(),
        })
    }

    async fn exchange(&mut self, tool: NeutralTool, args: &Value) -> Answer {
        if let Some(given_up) = self.pending.take() {
            self.abandoned.insert(given_up);
        }
        self.last_id += 1;
        let id = self.last_id;
        self.pending = Some(id);
        let line = json!({ "id": id, "tool": tool.name(), "args": args }).to_string();
        if let Err(e) = send(&mut self.stdin, &line).await {
            let why = format!("could not be sent the call ({e}){}", self.process.stderr_tail());
            return self.broken(why);
        }
        loop {
            let line = match self.stdout.next().await {
                Ok(Some(line)) => line,
                Ok(None) => {
                    let why = self.closed().await;
                    return self.broken(why);
                }
                Err(e) => return self.broken(format!("broke the protocol: its stdout could not be read ({e})")),
            };
            match parse_reply(&line) {
                Ok(reply) if reply.id == id => {
                    self.pending = None;
                    return reply.into_answer(&line);
                }
                // The late answer of a call the caller gave up on: answered once, as it should be.
                Ok(reply) if self.abandoned.remove(&reply.id) => {
                    let agent = &self.description.name;
                    tracing::debug!(target: "navguard::agent", "{agent}: the late answer to call {} skipped", reply.id);
                }
                Ok(reply) => {
                    let why = format!("call {id} was answered with id {}: {}", reply.id, quote(&line));
                    return self.broken(format!("broke the protocol: {why}"));
                }
                // A log line on the wrong stream (a structured logger's object too): it is
                // judged on what it answers besides.
                Err(why) if why.is_not_protocol() => {
                    self.stray.push(&self.description.name, &line);
                }
                Err(why) => return self.broken(format!("broke the protocol: {why}: {}", quote(&line))),
            }
        }
    }

    /// The answer to a call the agent's process broke off: what it did, naming it.
    fn broken(&self, what: String) -> Answer {
        Answer::broken(&self.description.name, what)
    }

    /// What to say when its stdout closed: how it exited, if it did, and its last words.
    async fn closed(&mut self) -> String {
        let exit = exit_status(&mut self.process).await;
        self.process.stderr_read(EXIT_GRACE).await;
        format!("closed its stdout{exit}{}", self.process.stderr_tail())
    }
}

/// ` (exit status: N)` once the process that closed its stdout has exited (it has
/// [`EXIT_GRACE`] to), else nothing.
async fn exit_status(process: &mut AgentProcess) -> String {
    match tokio::time::timeout(EXIT_GRACE, process.child.wait()).await {
        Ok(Ok(status)) => format!(" ({status})"),
        _ => String::new(),
    }
}

#[async_trait]
impl AgentUnderTest for JsonlAgent {
    /// Its start answer's `agent` name and version, when it gave them.
    fn version(&self) -> Option<String> {
        self.introduced.then(|| self.server.clone())
    }

    fn stderr(&self) -> Option<super::process::StderrKept> {
        Some(self.process.stderr_kept())
    }

    fn looks_after(&self, tool: NeutralTool) -> bool {
        self.description.looks_after.contains(&tool)
    }

    fn stray_lines(&self) -> Vec<String> {
        self.stray.take()
    }

    fn supports(&self, tool: NeutralTool) -> bool {
        self.offered.as_ref().is_none_or(|offered| offered.contains(&tool))
    }

    fn takes(&self, tool: NeutralTool, args: &Value) -> bool {
        self.forms.get(&tool).is_none_or(|alternatives| alternatives.iter().any(|form| form.hold(args)))
    }

    async fn call(&mut self, tool: NeutralTool, args: &Value) -> Answer {
        let started = Instant::now();
        let mut answer = self.exchange(tool, args).await;
        answer.took = started.elapsed();
        answer
    }

    async fn close(self: Box<Self>) {
        let Self { stdin, process, .. } = *self;
        // Its stdin closes (a polite agent lets go of the browser and exits); `end` waits for
        // that with a deadline, then kills the process group.
        drop(stdin);
        process.end().await;
    }
}

fn protocol(description: &Description, why: String, process: &AgentProcess) -> AgentError {
    AgentError::Protocol { agent: description.name.clone(), expected: EXPECTED, why, stderr: process.stderr_tail() }
}

async fn send(stdin: &mut ChildStdin, line: &str) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    stdin.write_all(&bytes).await?;
    stdin.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::under_test::FailureClass;

    /// A stand-in agent: a shell script that answers as the protocol says, and then not.
    fn fake(script: &str, timeout_ms: u64) -> Arc<Description> {
        let text = format!(
            "name = \"fake\"\nkind = \"jsonl\"\n[start]\ncommand = \"sh\"\nargs = [\"-c\", {}]\ntimeout_ms = {timeout_ms}\n",
            Value::from(script)
        );
        Arc::new(Description::parse(&text, "fake.toml", std::path::Path::new(".")).unwrap())
    }

    #[tokio::test]
    async fn a_call_reads_its_own_answer_skips_a_late_one_and_names_any_other_line() {
        let script = r#"
read s; echo '{"id":0,"ok":true,"agent":{"name":"fake","version":"9"},"tools":["navigate","snapshot","teleport"]}'
read c; echo 'a log line, not json'; echo '{"id":1,"ok":true,"text":"after a log line"}'
read c; echo '{"id":2,"ok":false,"error":{"class":"stale-ref","message":"gone"}}'
read c
read c; echo '{"id":3,"ok":true}'; echo '{"id":4,"ok":true,"page":{"url":"u","title":"t"}}'
read c; echo '{"id":9,"ok":true}'
read c; echo bye >&2
"#;
        let mut agent =
            JsonlAgent::start(fake(script, 10_000), "/usr/bin/chromium", BrowserAt::default()).await.unwrap();
        assert_eq!(agent.version().as_deref(), Some("fake 9"));
        assert!(agent.supports(NeutralTool::Navigate) && !agent.supports(NeutralTool::Click));
        let args = json!({ "url": "http://x/" });
        let failure = |a: Answer| a.failure.map(|f| (f.class, f.message)).unwrap();
        // A line that is not JSON is skipped and named; the call is judged on its answer.
        let answered = agent.call(NeutralTool::Navigate, &args).await;
        assert!(answered.succeeded() && answered.text.starts_with("after a log line"), "{answered:?}");
        assert_eq!(agent.stray_lines(), vec!["a log line, not json".to_owned()]);
        assert!(agent.stray_lines().is_empty(), "taken once");
        let answered = agent.call(NeutralTool::Snapshot, &json!({})).await;
        assert_eq!(failure(answered), (FailureClass::StaleRef, "gone".to_owned()));
        // The caller gives up on call 3 (its deadline); its answer comes during call 4.
        let given_up = tokio::time::timeout(Duration::from_millis(200), agent.call(NeutralTool::Navigate, &args)).await;
        assert!(given_up.is_err());
        let answered = agent.call(NeutralTool::Navigate, &args).await;
        assert!(answered.succeeded(), "{:?}", answered.failure);
        assert_eq!(answered.page.map(|p| p.title).as_deref(), Some("t"));
        let (_, message) = failure(agent.call(NeutralTool::Navigate, &args).await);
        assert_eq!(message, r#"agent fake broke the protocol: call 5 was answered with id 9: `{"id":9,"ok":true}`"#);
        let closed = agent.call(NeutralTool::Navigate, &args).await;
        assert!(closed.broken);
        let (_, message) = failure(closed);
        assert!(message.starts_with("agent fake closed its stdout (exit status: 0)"), "{message}");
        assert!(message.ends_with("its stderr ends: bye"), "{message}");
        Box::new(agent).close().await;
    }

    #[tokio::test]
    async fn an_agent_that_does_not_answer_the_start_line_in_time_is_named_with_what_it_said() {
        let e = JsonlAgent::start(
            fake("echo still loading >&2; cat >/dev/null", 1000),
            "/usr/bin/chromium",
            BrowserAt::default(),
        )
        .await
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "agent fake did not answer the start line within 1 s: is `sh` a JSON-lines agent over stdio?; its stderr ends: still loading"
        );
        let e = JsonlAgent::start(
            fake(
                "read s; echo '{\"id\":0,\"ok\":false,\"error\":{\"class\":\"other\",\"message\":\"no browser\"}}'",
                5_000,
            ),
            "/c",
            BrowserAt::default(),
        )
        .await
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("agent fake is not a JSON-lines agent over stdio: its start failed (other: no browser)"),
            "{e}"
        );
    }
}
