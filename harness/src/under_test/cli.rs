//! An agent that is a command line (`kind = "cli"`): each neutral call runs the program once with
//! the words its description maps the call to, and what it prints is the answer, read by the
//! description's patterns as an MCP server's text is; a status other than 0 flags it as failed.
//! Such programs keep their browser session in a daemon of their own between calls: every
//! process of the agent, the daemon included, carries the mark of an anchor process, and ending
//! the anchor (or navguard's death) ends them all.

use super::description::Description;
use super::mcp::{Reply, answer_steps};
use super::process::AgentProcess;
use super::{AgentError, AgentUnderTest, Answer, BrowserAt, NeutralTool};
use async_trait::async_trait;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt as _;

/// The most of a command's output that is read (a snapshot of a large page is long; an output
/// without end is cut here, not held).
const MAX_OUTPUT: u64 = 64 << 20;
/// How long a command's output is still read once the command has exited: a daemon it started
/// that kept its pipes open must not hold the answer.
const OUTPUT_GRACE: Duration = Duration::from_secs(1);
/// How long each of the description's calls before the end may take.
const BEFORE_END: Duration = Duration::from_secs(10);

/// A command-line agent under test.
pub struct CliAgent {
    description: Arc<Description>,
    /// Holds the scratch folder, the mark and the guard of every process of the agent's.
    anchor: AgentProcess,
    /// The program and the words before each call's own, placeholders filled.
    command: String,
    before: Vec<String>,
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    /// Fills the start's placeholders (`{scratch}`, `{cdp_endpoint}`…) into a call's words.
    fill: Box<dyn Fn(&str) -> String + Send + Sync>,
}

impl std::fmt::Debug for CliAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CliAgent").field("agent", &self.description.name).field("command", &self.command).finish()
    }
}

/// What one command printed and how it ended.
struct Output {
    text: String,
    failed: bool,
}

impl CliAgent {
    /// Starts its anchor and, with `prepare` (a scenario's, not the check before a run, which
    /// has no browser for them), runs its calls after start, each within the start's timeout:
    /// the first that fails is the error.
    pub async fn start(
        description: Arc<Description>,
        chromium: &str,
        at: BrowserAt<'_>,
        prepare: bool,
    ) -> Result<Self, AgentError> {
        let anchor = AgentProcess::anchor(&description, chromium, at)?;
        let scratch = anchor.scratch().map(PathBuf::from).unwrap_or_default();
        let (command, before) = description.command_line(chromium, at, &scratch);
        let mut env = description.env(chromium, at, &scratch);
        let (mark, value) = anchor.mark();
        env.insert(mark.to_owned(), value.to_owned());
        let cwd = description.cwd(chromium, at, &scratch);
        let fill = Box::new(description.filler(chromium, at, &scratch));
        let agent = Self { description, anchor, command, before, env, cwd, fill };
        if prepare && let Err(e) = agent.after_start().await {
            agent.end().await;
            return Err(e);
        }
        Ok(agent)
    }

    async fn after_start(&self) -> Result<(), AgentError> {
        let deadline = Duration::from_millis(self.description.start.timeout_ms);
        for step in &self.description.after_start {
            let failed = |why: String| AgentError::AfterStart {
                agent: self.description.name.clone(),
                call: step.call.clone(),
                why,
            };
            match tokio::time::timeout(deadline, self.run(step.words(&Value::Null, &self.fill))).await {
                Err(_) => return Err(failed(format!("no answer within {} s", deadline.as_secs()))),
                Ok(Err(e)) => return Err(failed(e)),
                Ok(Ok(Output { failed: true, text })) => return Err(failed(text)),
                Ok(Ok(Output { failed: false, .. })) => {}
            }
        }
        Ok(())
    }

    /// Runs its calls before the end (each within 10 s, whatever they print), then ends the
    /// anchor, and with it every process that carries its mark.
    async fn end(self) {
        for step in &self.description.before_end {
            let _ = tokio::time::timeout(BEFORE_END, self.run(step.words(&Value::Null, &self.fill))).await;
        }
        self.anchor.end().await;
    }

    /// Runs the command with a step's `words` (see [`super::description::ToolStep::words`]): its output (stdout,
    /// then stderr when it failed) and whether it failed; `Err`: it could not be run at all.
    async fn run(&self, words: Vec<String>) -> Result<Output, String> {
        let mut command = tokio::process::Command::new(&self.command);
        if let Some(cwd) = &self.cwd {
            command.current_dir(cwd);
        }
        let mut child = command
            .args(&self.before)
            .args(&words)
            .envs(&self.env)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            // A call given up (its deadline passed) takes its process with it; what that
            // process started carries the mark, and goes with the anchor.
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("{} could not be run: {e}", self.command))?;
        let stdout = child.stdout.take().map(|pipe| tokio::spawn(read_bounded(pipe)));
        let stderr = child.stderr.take().map(|pipe| tokio::spawn(read_bounded(pipe)));
        let status = child.wait().await.map_err(|e| format!("{} did not end: {e}", self.command))?;
        let (out, err) = (printed(stdout).await, printed(stderr).await);
        let failed = !status.success();
        let text = match (failed, err.trim().is_empty()) {
            (true, false) => format!("{out}{err}"),
            _ => out,
        };
        Ok(Output { text, failed })
    }
}

impl CliAgent {
    /// The size of the PNG an answer names (`[answer] picture`), when the file is one and lies
    /// in the agent's own folders (its working folder or its scratch folder): no other file is
    /// read.
    fn picture(&self, text: &str) -> Option<usize> {
        let named = self.description.answer.picture_in(text)?;
        let base = self.cwd.clone().or_else(|| self.anchor.scratch().map(PathBuf::from))?;
        let path = std::fs::canonicalize(base.join(named)).ok()?;
        let own = [self.cwd.as_deref(), self.anchor.scratch()];
        let inside = own
            .into_iter()
            .flatten()
            .filter_map(|dir| std::fs::canonicalize(dir).ok())
            .any(|dir| path.starts_with(dir));
        let bytes = inside.then(|| std::fs::read(&path).ok()).flatten()?;
        super::png_size(&bytes)
    }
}

/// What a command printed on one pipe, at most [`MAX_OUTPUT`], read for at most
/// [`OUTPUT_GRACE`] after the command ended.
async fn printed(reader: Option<tokio::task::JoinHandle<String>>) -> String {
    let Some(reader) = reader else { return String::new() };
    match tokio::time::timeout(OUTPUT_GRACE, reader).await {
        Ok(Ok(text)) => text,
        _ => String::new(),
    }
}

async fn read_bounded<R: tokio::io::AsyncRead + Unpin>(pipe: R) -> String {
    let mut bytes = Vec::new();
    let _ = pipe.take(MAX_OUTPUT).read_to_end(&mut bytes).await;
    String::from_utf8_lossy(&bytes).into_owned()
}

#[async_trait]
impl AgentUnderTest for CliAgent {
    fn looks_after(&self, tool: NeutralTool) -> bool {
        self.description.looks_after.contains(&tool)
    }

    /// A command line offers no list of its commands: what its description maps, it has.
    fn supports(&self, tool: NeutralTool) -> bool {
        self.description.tool(tool).is_some()
    }

    fn takes(&self, tool: NeutralTool, args: &Value) -> bool {
        self.description.tool(tool).is_some_and(|m| m.takes(args))
    }

    async fn call(&mut self, tool: NeutralTool, args: &Value) -> Answer {
        let started = Instant::now();
        let this = &*self;
        let mut answer = answer_steps(&this.description, tool, args, |step| {
            let words = step.words(args, &this.fill);
            async move {
                match this.run(words).await {
                    Ok(Output { text, failed }) => Ok(Reply { picture: this.picture(&text), text, flagged: failed }),
                    Err(why) => Err(Answer::broken(&this.description.name, why)),
                }
            }
        })
        .await;
        answer.took = started.elapsed();
        answer
    }

    async fn close(self: Box<Self>) {
        self.end().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::under_test::FailureClass;
    use serde_json::json;
    use std::path::Path;

    /// A command-line agent of a few lines of shell: a session daemon started by its attach
    /// (a `sleep` that leaves the call's process group, as a real one does), a snapshot, a click
    /// that refuses an unknown ref, and a close that says so.
    const SCRIPT: &str = r#"
case "$1" in
  attach) setsid sleep 600 </dev/null >/dev/null 2>&1 & echo "attached to $2" ;;
  snapshot) echo "- Page URL: http://127.0.0.1:9/x"; echo "- Page Title: X"; echo '- button "Go" [ref=e1]' ;;
  click) if [ "$2" = e1 ]; then echo "Clicked"; else echo "Ref $2 not found" >&2; exit 1; fi ;;
  fill) printf 'filled %s with [%s]\n' "$2" "$3" ;;
  screenshot) printf '\211PNG\r\n\032\n' > shot.png; echo "- [Screenshot of viewport](shot.png)" ;;
  close) echo "closed" ;;
esac
"#;

    fn description(here: &Path) -> Description {
        let text = r#"
name = "fake-cli"
kind = "cli"
[start]
command = "sh"
args = ["{here}/fake.sh"]
cwd = "{scratch}"
[[after_start]]
call = "attach --cdp={cdp_endpoint}"
[[before_end]]
call = "close"
[tools.snapshot]
call = "snapshot"
[tools.click]
call = "click {ref}"
[tools.screenshot]
call = "screenshot"
[[tools.type]]
call = "fill {ref} {text}"
[[tools.type]]
call = "press Enter"
when = "submit"
[answer]
url = '(?m)^- Page URL: (\S+)'
title = '(?m)^- Page Title: (.*)$'
element = '(?m)^- (?P<role>\w+) "(?P<name>[^"]*)" \[ref=(?P<ref>e\d+)\]'
picture = '(?m)^- \[Screenshot of [^\]]*\]\((?P<path>[^)]+)\)'
[errors]
stale-ref = ['Ref \S+ not found']
"#;
        std::fs::write(here.join("fake.sh"), SCRIPT).unwrap();
        Description::parse(text, "fake.toml", here).unwrap()
    }

    fn at() -> BrowserAt<'static> {
        BrowserAt { cdp: Some("ws://127.0.0.1:9/devtools"), ..BrowserAt::default() }
    }

    /// Whether any process still carries `mark` in its environment.
    fn marked(mark: &str) -> bool {
        let wanted = mark.as_bytes();
        std::fs::read_dir("/proc").into_iter().flatten().flatten().any(|entry| {
            std::fs::read(entry.path().join("environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|entry| entry == wanted))
        })
    }

    #[tokio::test]
    async fn each_call_is_a_command_line_whose_output_is_the_answer() {
        let here = tempfile::tempdir().unwrap();
        let d = Arc::new(description(here.path()));
        assert!(d.attaches(), "its attach names the endpoint");
        let mut agent = CliAgent::start(Arc::clone(&d), "/usr/bin/chromium", at(), true).await.unwrap();
        let look = agent.call(NeutralTool::Snapshot, &json!({})).await;
        assert!(look.succeeded(), "{look:?}");
        assert_eq!(look.page.unwrap().url, "http://127.0.0.1:9/x");
        assert_eq!(look.elements.unwrap()[0].name, "Go");
        assert!(agent.call(NeutralTool::Click, &json!({"ref": "e1"})).await.succeeded());
        // A status other than 0 fails the call; its stderr is the message, classified.
        let refused = agent.call(NeutralTool::Click, &json!({"ref": "e9"})).await;
        assert_eq!(refused.failure.unwrap().class, FailureClass::StaleRef);
        // A text with spaces and quotes is one word, never read by a shell.
        let typed = agent.call(NeutralTool::Type, &json!({"ref": "e1", "text": "a \"b\" $(c)", "submit": false})).await;
        assert_eq!(typed.text.trim(), "filled e1 with [a \"b\" $(c)]");
        // Its screenshot is the file it names, read from its own folder.
        let shot = agent.call(NeutralTool::Screenshot, &json!({})).await;
        assert_eq!(shot.picture, Some(8), "{shot:?}");
        // A picture named outside its own folders is not read.
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("x.png"), b"\x89PNG\r\n\x1a\n").unwrap();
        let named = format!("- [Screenshot of viewport]({}/x.png)", elsewhere.path().display());
        assert_eq!(agent.picture(&named), None);
        let (name, value) = agent.anchor.mark();
        let mark = format!("{name}={value}");
        assert!(marked(&mark), "its daemon carries the mark");
        Box::new(agent).close().await;
        // Killed at once; gone from the process table once it has been reaped.
        let gone = async {
            while marked(&mark) {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        assert!(
            tokio::time::timeout(Duration::from_secs(20), gone).await.is_ok(),
            "nothing of the agent outlives its end"
        );
    }

    #[tokio::test]
    async fn an_attach_that_fails_fails_the_start_with_what_it_printed() {
        let here = tempfile::tempdir().unwrap();
        let d = description(here.path());
        std::fs::write(here.path().join("fake.sh"), "echo \"no browser at $2\" >&2; exit 3\n").unwrap();
        let e = CliAgent::start(Arc::new(d), "/usr/bin/chromium", at(), true).await.unwrap_err().to_string();
        assert!(
            e.contains("attach --cdp={cdp_endpoint}") && e.contains("no browser at --cdp=ws://127.0.0.1:9/devtools"),
            "{e}"
        );
    }

    #[test]
    fn a_cli_step_with_mcp_arguments_is_told_where_its_words_go() {
        let text = "name = \"x\"\nkind = \"cli\"\n[start]\ncommand = \"x\"\n[tools.click]\ncall = \"click\"\nargs = { ref = \"{ref}\" }\n";
        let e = Description::parse(text, "x.toml", Path::new("/x")).unwrap_err().to_string();
        assert!(e.contains("[tools.click] args: a cli agent takes its arguments in call's words"), "{e}");
        let step =
            &description(tempfile::tempdir().unwrap().path()).tool(NeutralTool::Type).unwrap().steps()[0].clone();
        // A word that is one placeholder is left out when its argument is not given.
        assert_eq!(step.words(&json!({"ref": "e2"}), str::to_owned), ["fill", "e2"]);
    }
}
