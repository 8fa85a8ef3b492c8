//! An agent that speaks the JSON-lines protocol over stdio: one JSON object a line each way.
//! The harness sends `{"id": 0, "start": {"chromium": PATH, "cdp_endpoint": URL?}}` first, then
//! `{"id": N, "tool": T, "args": {…}}` (the neutral tools, by their names). The agent answers
//! each id once: `{"id": N, "ok": true, "page": {"url", "title"}?, "snapshot": {"elements":
//! [{"ref", "role", "name"}]}?, "tabs": [{"index", "url", "title", "current"}]?, "text": S?}` or
//! `{"id": N, "ok": false, "error": {"class", "message"}}`. Anything else on its stdout is a
//! protocol error that names the line. The start's answer may say what the agent is
//! (`"agent": {"name", "version"}`) and which neutral tools it has (`"tools": [...]`; all when
//! absent). No description mapping is needed: the answers are already structured.

use super::description::Description;
use super::process::AgentProcess;
use super::{AgentError, AgentUnderTest, Answer, ElementSeen, Failure, FailureClass, NeutralTool, PageSeen, TabSeen};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{ChildStdin, ChildStdout};

/// The longest line an answer may be (a snapshot of a large page is one long line).
const MAX_LINE: usize = 64 << 20;
/// How much of a line an error message quotes.
const QUOTED: usize = 300;
/// How much of an answer its text for the reports keeps.
const SHOWN: usize = 8 << 10;
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
    /// Its name and version, as its start answer gave them (the description's name otherwise).
    pub server: String,
    /// Whether its start answer said what it is (`agent`).
    introduced: bool,
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
    pub async fn start(
        description: Arc<Description>,
        chromium: &str,
        cdp_endpoint: Option<&str>,
    ) -> Result<Self, AgentError> {
        let mut process = AgentProcess::start(&description, chromium, cdp_endpoint)?;
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
            let sent = send(&mut stdin, &start_line(chromium, cdp_endpoint)).await;
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
                process.end().await;
                return Err(AgentError::NoHandshake {
                    agent: description.name.clone(),
                    what: "start line",
                    command,
                    expected: EXPECTED,
                    after: deadline,
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
            server,
            introduced,
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
            return Answer::failed(
                FailureClass::Other,
                format!("the call could not be sent to the agent ({e}){}", self.process.stderr_tail()),
            );
        }
        loop {
            let line = match self.stdout.next().await {
                Ok(Some(line)) => line,
                Ok(None) => return Answer::failed(FailureClass::Other, self.closed().await),
                Err(e) => {
                    return Answer::failed(
                        FailureClass::Other,
                        format!("protocol error: its stdout could not be read ({e})"),
                    );
                }
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
                    return Answer::failed(
                        FailureClass::Other,
                        format!("protocol error: call {id} was answered with id {}: {}", reply.id, quote(&line)),
                    );
                }
                Err(why) => {
                    return Answer::failed(FailureClass::Other, format!("protocol error: {why}: {}", quote(&line)));
                }
            }
        }
    }

    /// What to say when its stdout closed: how it exited, if it did, and its last words.
    async fn closed(&mut self) -> String {
        let exit = exit_status(&mut self.process).await;
        format!("the agent closed its stdout{exit}{}", self.process.stderr_tail())
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

    fn supports(&self, tool: NeutralTool) -> bool {
        self.offered.as_ref().is_none_or(|offered| offered.contains(&tool))
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

/// The first line the harness sends.
fn start_line(chromium: &str, cdp_endpoint: Option<&str>) -> String {
    let mut start = json!({ "chromium": chromium });
    if let Some(endpoint) = cdp_endpoint {
        start["cdp_endpoint"] = Value::from(endpoint);
    }
    json!({ "id": 0, "start": start }).to_string()
}

async fn send(stdin: &mut ChildStdin, line: &str) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    stdin.write_all(&bytes).await?;
    stdin.flush().await
}

/// A line for a message: cut to [`QUOTED`] characters, in backticks.
fn quote(line: &str) -> String {
    format!("`{}`", cut(line, QUOTED))
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The agent's stdout, a line at a time. Cancel-safe: a line read in part when the caller's
/// deadline ends a call stays in the buffer and is finished by the next read.
struct LineReader<R = ChildStdout> {
    reader: BufReader<R>,
    buf: Vec<u8>,
    /// Set once a line was too long: the stream can no longer be read in step.
    broken: bool,
}

impl<R: tokio::io::AsyncRead + Unpin> LineReader<R> {
    fn new(stdout: R) -> Self {
        Self { reader: BufReader::new(stdout), buf: Vec::new(), broken: false }
    }

    /// The next line that is not blank, without its line end; `None` at the end of the stream.
    async fn next(&mut self) -> std::io::Result<Option<String>> {
        loop {
            if self.broken {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, too_long()));
            }
            let room = (MAX_LINE + 1).saturating_sub(self.buf.len()) as u64;
            let read = (&mut self.reader).take(room).read_until(b'\n', &mut self.buf).await?;
            let complete = self.buf.last() == Some(&b'\n');
            if !complete && self.buf.len() > MAX_LINE {
                self.broken = true;
                self.buf = Vec::new();
                continue;
            }
            if read == 0 && self.buf.is_empty() {
                return Ok(None);
            }
            // A line, or what came before the stream ended.
            let line = String::from_utf8_lossy(&self.buf).trim_end_matches(['\n', '\r']).to_owned();
            self.buf.clear();
            if !line.trim().is_empty() {
                return Ok(Some(line));
            }
        }
    }
}

fn too_long() -> String {
    format!("a line longer than {} MiB", MAX_LINE >> 20)
}

/// One answer line, as the protocol has it.
#[derive(Debug, Deserialize)]
struct Reply {
    id: u64,
    ok: bool,
    page: Option<WirePage>,
    snapshot: Option<WireSnapshot>,
    tabs: Option<Vec<WireTab>>,
    text: Option<String>,
    /// The dialog the page has open, in the agent's words (an answer that tells of one
    /// instead of failing as `dialog`).
    dialog: Option<String>,
    error: Option<WireError>,
    /// The start's answer: what the agent is.
    agent: Option<WireAgent>,
    /// The start's answer: the neutral tools it has.
    tools: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct WirePage {
    url: Option<String>,
    title: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WireSnapshot {
    #[serde(default)]
    elements: Vec<WireElement>,
}

#[derive(Debug, Deserialize)]
struct WireElement {
    #[serde(rename = "ref")]
    reference: Value,
    role: Option<String>,
    name: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WireTab {
    title: Option<String>,
    url: Option<String>,
    #[serde(default)]
    current: bool,
}

#[derive(Debug, Deserialize)]
struct WireError {
    class: Option<String>,
    message: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WireAgent {
    name: Option<String>,
    version: Option<String>,
}

/// Reads one line of the agent's: an answer, or why it is not one (the caller quotes the line).
fn parse_reply(line: &str) -> Result<Reply, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("a line that is not JSON ({e})"))?;
    let Value::Object(map) = &value else {
        return Err("a line that is not a JSON object".to_owned());
    };
    match map.get("id") {
        None => return Err("a line without an id".to_owned()),
        Some(id) if !id.is_u64() => return Err(format!("a line whose id is {id}, not a call's number")),
        Some(_) => {}
    }
    let reply: Reply = serde_json::from_value(value).map_err(|e| format!("a line that is not an answer ({e})"))?;
    // A ref is a string; a number is taken as one. Anything else is named here, not later.
    for (i, element) in reply.snapshot.iter().flat_map(|s| s.elements.iter()).enumerate() {
        if reference(&element.reference).is_none() {
            return Err(format!("snapshot.elements[{i}]'s ref is {}, not a string", element.reference));
        }
    }
    Ok(reply)
}

fn reference(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl Reply {
    /// The answer the line gives (`line` is kept as its text, for the reports).
    fn into_answer(self, line: &str) -> Answer {
        let failure = (!self.ok).then(|| failure_of(self.error));
        Answer {
            failure,
            dialog: self.dialog,
            page: self.page.map(|p| PageSeen { url: p.url.unwrap_or_default(), title: p.title.unwrap_or_default() }),
            elements: self.snapshot.map(|s| {
                s.elements
                    .into_iter()
                    .map(|e| ElementSeen {
                        reference: reference(&e.reference).unwrap_or_default(),
                        role: e.role.unwrap_or_default(),
                        name: e.name.unwrap_or_default(),
                    })
                    .collect()
            }),
            tabs: self.tabs.map(|tabs| {
                tabs.into_iter()
                    .map(|t| TabSeen {
                        title: t.title.unwrap_or_default(),
                        url: t.url.unwrap_or_default(),
                        current: t.current,
                    })
                    .collect()
            }),
            text: match self.text {
                // The agent's own words first; the whole line after them, for the reports.
                Some(text) if !text.is_empty() => format!("{}\n{}", cut(&text, SHOWN), cut(line, SHOWN)),
                _ => cut(line, SHOWN),
            },
            took: Duration::ZERO,
        }
    }
}

/// A failed answer's class and message; a class outside the protocol's is `other`, and said so.
fn failure_of(error: Option<WireError>) -> Failure {
    let Some(error) = error else {
        return Failure { class: FailureClass::Other, message: "the agent answered ok: false without an error".into() };
    };
    let message = error.message.unwrap_or_default();
    match error.class.as_deref().map(str::parse::<FailureClass>) {
        Some(Ok(class)) => Failure { class, message },
        Some(Err(_)) => Failure {
            class: FailureClass::Other,
            message: format!(
                "{message} (its class {:?} is not one of {}: taken as other)",
                error.class.unwrap_or_default(),
                FailureClass::list()
            ),
        },
        None => Failure { class: FailureClass::Other, message: format!("{message} (no class given: taken as other)") },
    }
}

/// What the start's answer says.
#[derive(Debug)]
struct Started {
    name: Option<String>,
    version: Option<String>,
    tools: Option<BTreeSet<NeutralTool>>,
}

impl Started {
    fn of(reply: Reply) -> Result<Self, String> {
        if !reply.ok {
            let failure = failure_of(reply.error);
            return Err(format!("its start failed ({}: {})", failure.class, failure.message));
        }
        let tools = reply.tools.map(|names| {
            names
                .iter()
                .filter_map(|name| match name.parse::<NeutralTool>() {
                    Ok(tool) => Some(tool),
                    Err(_) => {
                        tracing::debug!(target: "navguard::agent", "the agent offers {name:?}, not a neutral tool");
                        None
                    }
                })
                .collect()
        });
        let (name, version) = reply.agent.map_or((None, None), |a| (a.name, a.version));
        Ok(Self { name, version, tools })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Answer {
        parse_reply(line).unwrap_or_else(|e| panic!("{e}")).into_answer(line)
    }

    #[test]
    fn a_success_gives_its_page_elements_tabs_and_text() {
        let line = r#"{"id":3,"ok":true,"page":{"url":"http://x/a","title":"A"},"snapshot":{"elements":[{"ref":"ab:1","role":"link","name":"Next"},{"ref":7,"role":"button"}]},"tabs":[{"index":1,"url":"http://x/a","title":"A","current":true}],"text":"Next","extra":1}"#;
        let reply = parse_reply(line).unwrap();
        assert_eq!(reply.id, 3);
        let a = reply.into_answer(line);
        assert!(a.succeeded());
        assert_eq!(a.page, Some(PageSeen { url: "http://x/a".into(), title: "A".into() }));
        let elements = a.elements.unwrap();
        assert_eq!(elements[0], ElementSeen { reference: "ab:1".into(), role: "link".into(), name: "Next".into() });
        assert_eq!(elements[1].reference, "7");
        assert_eq!(elements[1].name, "");
        assert_eq!(a.tabs.unwrap(), [TabSeen { title: "A".into(), url: "http://x/a".into(), current: true }]);
        assert!(a.text.starts_with("Next\n{\"id\":3"), "{}", a.text);
    }

    #[test]
    fn an_answer_without_a_snapshot_has_no_elements_and_an_empty_one_has_none_listed() {
        let a = answer(r#"{"id":1,"ok":true}"#);
        assert!(a.succeeded() && a.page.is_none() && a.elements.is_none() && a.tabs.is_none());
        assert_eq!(answer(r#"{"id":1,"ok":true,"snapshot":{"elements":[]}}"#).elements, Some(vec![]));
        assert_eq!(answer(r#"{"id":1,"ok":true,"snapshot":{}}"#).elements, Some(vec![]));
    }

    #[test]
    fn a_failure_keeps_its_class_and_an_unknown_class_is_other_and_said_so() {
        let a = answer(r#"{"id":2,"ok":false,"error":{"class":"stale-ref","message":"gone"}}"#);
        assert_eq!(a.failure, Some(Failure { class: FailureClass::StaleRef, message: "gone".into() }));
        let a = answer(r#"{"id":2,"ok":false,"error":{"class":"exploded","message":"boom"}}"#);
        let failure = a.failure.unwrap();
        assert_eq!(failure.class, FailureClass::Other);
        assert!(failure.message.starts_with("boom (its class \"exploded\" is not one of"), "{}", failure.message);
        let failure = answer(r#"{"id":2,"ok":false}"#).failure.unwrap();
        assert_eq!(failure.class, FailureClass::Other);
        assert!(failure.message.contains("without an error"));
        let failure = answer(r#"{"id":2,"ok":false,"error":{"message":"m"}}"#).failure.unwrap();
        assert_eq!(
            (failure.class, failure.message.as_str()),
            (FailureClass::Other, "m (no class given: taken as other)")
        );
    }

    #[test]
    fn a_line_that_is_not_an_answer_says_why() {
        let cases = [
            ("garbage", "not JSON"),
            ("[1,2]", "not a JSON object"),
            (r#"{"ok":true}"#, "without an id"),
            (r#"{"id":null,"ok":false,"error":{"class":"other","message":"malformed"}}"#, "id is null"),
            (r#"{"id":"3","ok":true}"#, "id is \"3\""),
            (r#"{"id":3}"#, "missing field `ok`"),
            (r#"{"id":3,"ok":"yes"}"#, "not an answer"),
            (r#"{"id":3,"ok":true,"page":"http://x"}"#, "not an answer"),
            (r#"{"id":3,"ok":true,"snapshot":{"elements":[{"ref":null}]}}"#, "elements[0]'s ref is null"),
            (r#"{"id":0,"start":{"chromium":"/usr/bin/chromium"}}"#, "missing field `ok`"),
        ];
        for (line, why) in cases {
            let e = parse_reply(line).map(|r| r.id).unwrap_err();
            assert!(e.contains(why), "{line}: {e}");
        }
    }

    #[test]
    fn the_start_answer_gives_the_agent_its_version_and_its_tools() {
        let line =
            r#"{"id":0,"ok":true,"agent":{"name":"x","version":"1.2.3"},"tools":["navigate","snapshot","tabs"]}"#;
        let started = Started::of(parse_reply(line).unwrap()).unwrap();
        assert_eq!((started.name.as_deref(), started.version.as_deref()), (Some("x"), Some("1.2.3")));
        assert_eq!(started.tools, Some(BTreeSet::from([NeutralTool::Navigate, NeutralTool::Snapshot])));
        let bare = Started::of(parse_reply(r#"{"id":0,"ok":true}"#).unwrap()).unwrap();
        assert!(bare.tools.is_none() && bare.version.is_none());
        let e = Started::of(
            parse_reply(r#"{"id":0,"ok":false,"error":{"class":"other","message":"no browser"}}"#).unwrap(),
        )
        .unwrap_err();
        assert_eq!(e, "its start failed (other: no browser)");
    }

    #[test]
    fn the_start_line_names_the_endpoint_only_when_there_is_one() {
        let line: Value = serde_json::from_str(&start_line("/usr/bin/chromium", Some("http://127.0.0.1:9"))).unwrap();
        assert_eq!(
            line,
            json!({"id": 0, "start": {"chromium": "/usr/bin/chromium", "cdp_endpoint": "http://127.0.0.1:9"}})
        );
        let line: Value = serde_json::from_str(&start_line("/c", None)).unwrap();
        assert_eq!(line, json!({"id": 0, "start": {"chromium": "/c"}}));
    }

    #[tokio::test]
    async fn lines_are_read_whole_blank_ones_skipped_and_the_end_is_none() {
        let mut reader = LineReader::new(&b"{\"id\":1}\r\n\n   \n{\"id\":2}\nlast without end"[..]);
        assert_eq!(reader.next().await.unwrap().as_deref(), Some("{\"id\":1}"));
        assert_eq!(reader.next().await.unwrap().as_deref(), Some("{\"id\":2}"));
        assert_eq!(reader.next().await.unwrap().as_deref(), Some("last without end"));
        assert_eq!(reader.next().await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_line_read_in_part_when_a_call_is_given_up_is_finished_by_the_next_read() {
        let (mut agent, harness) = tokio::io::duplex(64);
        let mut reader = LineReader::new(harness);
        agent.write_all(b"{\"id\":1,").await.unwrap();
        let given_up = tokio::time::timeout(Duration::from_millis(50), reader.next()).await;
        assert!(given_up.is_err(), "no whole line yet");
        agent.write_all(b"\"ok\":true}\n").await.unwrap();
        assert_eq!(reader.next().await.unwrap().as_deref(), Some(r#"{"id":1,"ok":true}"#));
    }

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
read c; echo 'not json'
read c; echo '{"id":1,"ok":true,"text":"late"}'; echo '{"id":2,"ok":false,"error":{"class":"stale-ref","message":"gone"}}'
read c
read c; echo '{"id":3,"ok":true}'; echo '{"id":4,"ok":true,"page":{"url":"u","title":"t"}}'
read c; echo '{"id":9,"ok":true}'
read c; echo bye >&2
"#;
        let mut agent = JsonlAgent::start(fake(script, 10_000), "/usr/bin/chromium", None).await.unwrap();
        assert_eq!(agent.version().as_deref(), Some("fake 9"));
        assert!(agent.supports(NeutralTool::Navigate) && !agent.supports(NeutralTool::Click));
        let args = json!({ "url": "http://x/" });
        let failure = |a: Answer| a.failure.map(|f| (f.class, f.message)).unwrap();
        let (class, message) = failure(agent.call(NeutralTool::Navigate, &args).await);
        assert_eq!(class, FailureClass::Other);
        assert!(message.starts_with("protocol error: a line that is not JSON") && message.ends_with("`not json`"));
        // Call 1's answer comes late, during call 2: skipped, as it was answered once.
        let answered = agent.call(NeutralTool::Snapshot, &json!({})).await;
        assert_eq!(failure(answered), (FailureClass::StaleRef, "gone".to_owned()));
        // The caller gives up on call 3 (its deadline); its answer comes during call 4.
        let given_up = tokio::time::timeout(Duration::from_millis(200), agent.call(NeutralTool::Navigate, &args)).await;
        assert!(given_up.is_err());
        let answered = agent.call(NeutralTool::Navigate, &args).await;
        assert!(answered.succeeded(), "{:?}", answered.failure);
        assert_eq!(answered.page.map(|p| p.title).as_deref(), Some("t"));
        let (_, message) = failure(agent.call(NeutralTool::Navigate, &args).await);
        assert_eq!(message, r#"protocol error: call 5 was answered with id 9: `{"id":9,"ok":true}`"#);
        let (_, message) = failure(agent.call(NeutralTool::Navigate, &args).await);
        assert!(message.starts_with("the agent closed its stdout (exit status: 0)"), "{message}");
        Box::new(agent).close().await;
    }

    #[tokio::test]
    async fn an_agent_that_does_not_answer_the_start_line_in_time_is_named() {
        let e = JsonlAgent::start(fake("cat >/dev/null", 1000), "/usr/bin/chromium", None).await.unwrap_err();
        assert_eq!(
            e.to_string(),
            "agent fake did not answer the start line within 1 s: is `sh` a JSON-lines agent over stdio?"
        );
        let e = JsonlAgent::start(
            fake(
                "read s; echo '{\"id\":0,\"ok\":false,\"error\":{\"class\":\"other\",\"message\":\"no browser\"}}'",
                5_000,
            ),
            "/c",
            None,
        )
        .await
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("agent fake is not a JSON-lines agent over stdio: its start failed (other: no browser)"),
            "{e}"
        );
    }

    #[test]
    fn a_quoted_line_is_cut_on_a_character() {
        assert_eq!(quote("abc"), "`abc`");
        let long = "é".repeat(QUOTED + 5);
        assert_eq!(quote(&long), format!("`{}…`", "é".repeat(QUOTED)));
    }
}
