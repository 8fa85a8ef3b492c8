//! An agent's description file (`agents/<name>.toml`): how to start it, how each neutral tool
//! maps onto its own tools and arguments, how to read a page, a title, elements and tabs out
//! of its answers, and which of its messages mean which failure class. Built-in descriptions
//! are compiled into the binary; a user's is any path.

mod placeholders;
mod steps;

use super::{AgentError, BrowserAt, FailureClass, NeutralTool, navguard_command};
use crate::builtin::AgentsDir;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use super::kind::Kind;
pub use steps::{Conditions, ToolMap, ToolStep};

/// The agents that ship with navguard: (name, description).
const BUILT_IN: &[(&str, &str)] = crate::builtin::AGENTS;

/// The placeholders that hand an agent the harness's browser: naming one means it attaches.
const ATTACHING: [&str; 3] = ["{cdp_endpoint}", "{bidi_session}", "{webdriver_session}"];

/// A parsed description.
#[derive(Clone, Debug)]
pub struct Description {
    pub name: String,
    pub kind: Kind,
    /// One line on what it is, for the reports.
    pub about: String,
    /// The browsers it can drive (its description's `browsers`, all when absent).
    pub browsers: Vec<String>,
    /// The npm package whose installed version the reports show.
    pub package: Option<String>,
    pub start: Start,
    tools: BTreeMap<NeutralTool, ToolMap>,
    pub answer: AnswerRules,
    pub errors: Vec<(FailureClass, regex::Regex)>,
    /// Answers that are failures even though the agent did not flag them.
    pub fails_when: Vec<regex::Regex>,
    /// The neutral calls whose answers carry no page (`looks_after`: agent-browser's click
    /// answers "Done"): after one that succeeded, the harness takes the agent's next look (its
    /// snapshot) at once, as its model would, and judges the page that look shows.
    pub looks_after: Vec<NeutralTool>,
    /// Calls made once after its start, before the scenario's first (`[[after_start]]`:
    /// Vibium's `browser_launch`); one that fails is a start that failed.
    pub after_start: Vec<ToolStep>,
    /// Calls made before it is ended (`[[before_end]]`: agent-browser's close of its daemon's
    /// sessions, which outlive its server); what they answer is not judged.
    pub before_end: Vec<ToolStep>,
    /// The file it came from (a built-in's name for those).
    pub source: String,
    /// The folder its relative paths and `{here}` mean: a built-in agent's is the folder of
    /// its npm package ([`crate::builtin::AgentsDir`]).
    pub here: PathBuf,
    /// Where a built-in agent's folder came from; `None` for a description file.
    built_in: Option<AgentsDir>,
}

/// How to start it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Start {
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// Its environment, added to navguard's; the values' placeholders are filled in as the
    /// command line's.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Files written into `{scratch}` before it starts: name (inside `{scratch}`) to text, the
    /// text's placeholders filled in as the command line's (browser-use's `config.json`).
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// The folder it runs in: `{scratch}` or `{files}` (or a folder inside one of them), so a
    /// tool that reads or writes beside its working folder (Playwright MCP takes files to upload
    /// only from there) stays in the run's own folders; by default navguard's own.
    #[serde(default)]
    pub cwd: Option<String>,
    /// How long its start (and handshake) may take.
    #[serde(default = "start_timeout")]
    pub timeout_ms: u64,
    /// The harness's Chromium keeps its address bar's popup pages, which it is otherwise started
    /// without: an agent whose own ChromeDriver attaches to it (Vibium) needs them, or that
    /// ChromeDriver takes the harness's BiDi mapper page for the window to act in.
    #[serde(default)]
    pub chromium_popup_pages: bool,
}

/// Whether a relative path stays inside the folder it is taken from: no leading `/`, no `..`.
fn stays_inside(path: &str) -> bool {
    Path::new(path).components().all(|c| matches!(c, std::path::Component::Normal(_)))
}

fn start_timeout() -> u64 {
    30_000
}

/// One pattern, or several tried in order.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum Patterns {
    One(String),
    Many(Vec<String>),
}

impl Patterns {
    fn all(&self) -> Vec<&str> {
        match self {
            Self::One(p) => vec![p.as_str()],
            Self::Many(ps) => ps.iter().map(String::as_str).collect(),
        }
    }
}

/// Regular expressions that read an answer's text; each is a list tried in order.
#[derive(Clone, Debug, Default)]
pub struct AnswerRules {
    /// The first that matches gives the page's URL (its group `url`, else its first group).
    pub url: Vec<regex::Regex>,
    /// Likewise the page's title (group `title`, else the first).
    pub title: Vec<regex::Regex>,
    /// One match per element, with the groups `ref`, `role` and `name`.
    pub element: Vec<regex::Regex>,
    /// One match per tab, with the group `title` (and `url`, `current` where it has them).
    pub tab: Vec<regex::Regex>,
    /// The first that matches says a dialog is open: its words (group `dialog`, else the
    /// first group, else the whole match).
    pub dialog: Vec<regex::Regex>,
    /// For an agent that writes its screenshot to a file and names it (a `cli` agent): the
    /// first that matches gives the file's path (group `path`, else the first group), relative
    /// to its working folder.
    pub picture: Vec<regex::Regex>,
}

impl AnswerRules {
    /// The path of the picture an answer names, in its words, if it names one.
    pub fn picture_in(&self, text: &str) -> Option<String> {
        let found = self.picture.iter().find_map(|re| re.captures(text))?;
        Some(found.name("path").or_else(|| found.get(1))?.as_str().trim().to_owned())
    }

    /// The dialog an answer says is open, in its words, if it says one is.
    pub fn dialog_in(&self, text: &str) -> Option<String> {
        let found = self.dialog.iter().find_map(|re| re.captures(text))?;
        let words = found.name("dialog").or_else(|| found.get(1)).or_else(|| found.get(0))?;
        Some(words.as_str().trim().to_owned())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: String,
    kind: Kind,
    #[serde(default)]
    about: String,
    #[serde(default)]
    browsers: Vec<String>,
    #[serde(default)]
    package: Option<String>,
    #[serde(default)]
    start: Start,
    #[serde(default)]
    tools: BTreeMap<String, ToolMap>,
    #[serde(default)]
    answer: BTreeMap<String, Patterns>,
    #[serde(default)]
    errors: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    fails_when: Vec<String>,
    #[serde(default)]
    looks_after: Vec<String>,
    #[serde(default)]
    after_start: Vec<ToolStep>,
    #[serde(default)]
    before_end: Vec<ToolStep>,
}

impl Description {
    /// A built-in agent by name, or a description file by path.
    pub fn find(name_or_path: &str) -> Result<Self, AgentError> {
        if let Some((name, text)) = BUILT_IN.iter().find(|(name, _)| *name == name_or_path) {
            let dir = AgentsDir::find();
            let (here, file) = match crate::builtin::AGENT_FOLDERS.iter().find(|(n, _)| n == name) {
                Some((_, folder)) => (dir.path.join(folder), format!("agents/{folder}/agent.toml")),
                None => (dir.path.clone(), format!("agents/{name}.toml")),
            };
            let description = Self::parse(text, &format!("{file} (built in)"), &here)?;
            return Ok(Self { built_in: Some(dir), ..description });
        }
        let path = Path::new(name_or_path);
        let text = std::fs::read_to_string(path).map_err(|e| AgentError::Description {
            agent: name_or_path.to_owned(),
            path: name_or_path.to_owned(),
            why: format!(
                "{e}: give a built-in agent ({}) or the path of a description file",
                BUILT_IN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            ),
        })?;
        let here = path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        Self::parse(&text, name_or_path, &here)
    }

    /// The built-in agents' names.
    pub fn built_in() -> Vec<&'static str> {
        BUILT_IN.iter().map(|(name, _)| *name).collect()
    }

    /// Parses a description; every mistake is named with its place.
    pub fn parse(text: &str, source: &str, here: &Path) -> Result<Self, AgentError> {
        let bad = |why: String| AgentError::Description { agent: source.to_owned(), path: source.to_owned(), why };
        let file: File = toml::from_str(text).map_err(|e| bad(toml_error(text, &e)))?;
        // The name heads every message and names the report's folder: one line, printable.
        if file.name.trim().is_empty() || file.name.chars().any(char::is_control) {
            return Err(bad(format!("name {:?}: must be printable characters on one line", file.name)));
        }
        // One line, whatever the parts quote (a regular expression's error draws a caret under
        // the pattern over several).
        let bad = |why: String| AgentError::Description {
            agent: file.name.clone(),
            path: source.to_owned(),
            why: why.split_whitespace().collect::<Vec<_>>().join(" "),
        };
        if file.kind == Kind::Cli {
            let tools = file
                .tools
                .iter()
                .flat_map(|(name, map)| map.steps().iter().map(move |s| (format!("[tools.{name}]"), s)));
            let calls = file.after_start.iter().map(|s| ("[[after_start]]".to_owned(), s));
            let ends = file.before_end.iter().map(|s| ("[[before_end]]".to_owned(), s));
            for (table, step) in tools.chain(calls).chain(ends) {
                step.check_words().map_err(|why| bad(format!("{table} {why}")))?;
            }
        }
        let mut tools = BTreeMap::new();
        for (name, map) in file.tools {
            let tool: NeutralTool = name.parse().map_err(|e| bad(format!("[tools.{name}]: {e}")))?;
            for step in map.steps() {
                step.check().map_err(|why| bad(format!("[tools.{name}] {why}")))?;
            }
            tools.insert(tool, map);
        }
        for (table, steps) in [("after_start", &file.after_start), ("before_end", &file.before_end)] {
            if !steps.is_empty() && !file.kind.has_tool_calls() {
                return Err(bad(format!(
                    "[[{table}]]: a {} agent has no calls of its own to make there; only an mcp agent's description has them",
                    file.kind
                )));
            }
            for step in steps {
                step.check().map_err(|why| bad(format!("[[{table}]] {}: {why}", step.call)))?;
            }
        }
        if let Some(cwd) = &file.start.cwd {
            let rest = cwd.strip_prefix("{scratch}").or_else(|| cwd.strip_prefix("{files}"));
            let inside = rest.is_some_and(|rest| rest.is_empty() || rest.strip_prefix('/').is_some_and(stays_inside));
            if !inside {
                return Err(bad(format!(
                    "[start] cwd = {cwd:?}: not one of the run's own folders ({{scratch}} or {{files}}, or a folder inside one, no ..)"
                )));
            }
        }
        for name in file.start.files.keys() {
            if name.is_empty() || !stays_inside(name) {
                return Err(bad(format!(
                    "[start] files.{name:?}: not a file name inside {{scratch}} (no leading /, no ..)"
                )));
            }
        }
        let regex = |key: &str, pattern: &str| {
            regex::Regex::new(pattern).map_err(|e| bad(format!("{key}: not a regular expression: {e}")))
        };
        let mut answer = AnswerRules::default();
        for (key, patterns) in &file.answer {
            let compiled = patterns
                .all()
                .into_iter()
                .map(|p| regex(&format!("answer.{key}"), p))
                .collect::<Result<Vec<_>, _>>()?;
            match key.as_str() {
                "url" => answer.url = compiled,
                "title" => answer.title = compiled,
                "element" => answer.element = compiled,
                "tab" => answer.tab = compiled,
                "dialog" => answer.dialog = compiled,
                "picture" => answer.picture = compiled,
                other => {
                    return Err(bad(format!("answer.{other}: not one of url, title, element, tab, dialog, picture")));
                }
            }
        }
        let mut errors = Vec::new();
        for (class, patterns) in &file.errors {
            let parsed: FailureClass = class.parse().map_err(|e| bad(format!("errors.{class}: {e}")))?;
            for pattern in patterns {
                errors.push((parsed, regex(&format!("errors.{class}"), pattern)?));
            }
        }
        let fails_when = file.fails_when.iter().map(|p| regex("fails_when", p)).collect::<Result<_, _>>()?;
        let mut looks_after = Vec::new();
        for name in &file.looks_after {
            let tool: NeutralTool = name.parse().map_err(|e| bad(format!("looks_after {name:?}: {e}")))?;
            if tool == NeutralTool::Snapshot {
                return Err(bad("looks_after \"snapshot\": a snapshot is the look itself".into()));
            }
            if file.kind.has_tool_calls() && !tools.contains_key(&tool) {
                return Err(bad(format!("looks_after {name:?}: the description maps no {name} ([tools.{name}])")));
            }
            looks_after.push(tool);
        }
        if !looks_after.is_empty() && file.kind.has_tool_calls() && !tools.contains_key(&NeutralTool::Snapshot) {
            return Err(bad("looks_after: the agent has no snapshot to look with ([tools.snapshot])".into()));
        }
        if file.kind.needs_start_command() && file.start.command.trim().is_empty() {
            return Err(bad("[start] command is missing: how is the agent started?".into()));
        }
        Ok(Self {
            name: file.name,
            kind: file.kind,
            about: file.about,
            browsers: file.browsers,
            package: file.package,
            start: file.start,
            tools,
            answer,
            errors,
            fails_when,
            looks_after,
            after_start: file.after_start,
            before_end: file.before_end,
            source: source.to_owned(),
            here: here.to_path_buf(),
            built_in: None,
        })
    }

    /// Fails when a built-in agent's npm package is not installed in its folder, saying what
    /// to run: without this check, `node` would start and die on a missing file, and the run
    /// would fail on a handshake that never came. A description file's start command is its
    /// author's: it is not checked.
    pub fn check_installed(&self) -> Result<(), AgentError> {
        let Some(dir) = &self.built_in else {
            return Ok(());
        };
        self.check_command(dir)?;
        let Some(package) = &self.package else {
            return Ok(());
        };
        if self.here.join("node_modules").join(package).join("package.json").is_file() {
            return Ok(());
        }
        let install = match crate::builtin::pinned(package) {
            Some(version) => format!("npm install --ignore-scripts {package}@{version}"),
            None => format!("npm install --ignore-scripts {package}"),
        };
        let what_to_do = if dir.from_var {
            format!(
                "run `{install}` there, or point {} at the folder where it is installed",
                crate::builtin::AGENTS_DIR_VAR
            )
        } else {
            format!(
                "run `{install}` in a folder and set {}=<that folder>, or run navguard where ./agents has it \
                 (in navguard's repository: `bash ci/setup.sh agents`)",
                crate::builtin::AGENTS_DIR_VAR
            )
        };
        Err(AgentError::NotInstalled {
            agent: self.name.clone(),
            package: package.clone(),
            dir: self.here.clone(),
            what_to_do,
        })
    }

    /// A built-in agent started by a program in its folder (browser-use's virtual environment,
    /// agent-browser's native binary, Vibium's start script) fails when that program is not
    /// there or cannot be run, saying what to run.
    fn check_command(&self, dir: &AgentsDir) -> Result<(), AgentError> {
        let Some(rest) = self.start.command.strip_prefix("{here}") else {
            return Ok(());
        };
        let program = PathBuf::from(format!("{}{rest}", self.here.display()));
        let runnable = std::fs::metadata(&program).is_ok_and(|m| {
            use std::os::unix::fs::PermissionsExt as _;
            m.is_file() && m.permissions().mode() & 0o111 != 0
        });
        if runnable {
            return Ok(());
        }
        let what_to_do = if dir.from_var {
            format!("install it there, or point {} at the folder where it is installed", crate::builtin::AGENTS_DIR_VAR)
        } else {
            format!(
                "in navguard's repository, run `bash ci/setup.sh agents`; elsewhere set {}=<the folder where it is installed>",
                crate::builtin::AGENTS_DIR_VAR
            )
        };
        Err(AgentError::NotRunnable { agent: self.name.clone(), program, what_to_do })
    }

    /// `<package> <version>` of its npm package as installed beside its description
    /// (`node_modules/<package>/package.json`), for the reports; `None` when it names none or
    /// it is not installed.
    pub fn package_version(&self) -> Option<String> {
        let package = self.package.as_deref()?;
        let manifest = self.here.join("node_modules").join(package).join("package.json");
        let text = std::fs::read_to_string(manifest).ok()?;
        let version = serde_json::from_str::<Value>(&text).ok()?.get("version")?.as_str()?.to_owned();
        Some(format!("{package} {version}"))
    }

    /// How the agent calls `tool`, if it has a counterpart.
    pub fn tool(&self, tool: NeutralTool) -> Option<&ToolMap> {
        self.tools.get(&tool)
    }

    /// Whether it acts in a browser it starts itself: an agent with calls of its own (MCP or
    /// command line) that is handed none of the harness's browser ([`Self::attaches`]). The
    /// harness can read none of its pages, only its answers and the fixture site's requests.
    pub fn has_a_browser_of_its_own(&self) -> bool {
        self.kind.has_tool_calls() && !self.attaches()
    }

    /// Whether it can drive `browser`.
    pub fn drives(&self, browser: &str) -> bool {
        self.browsers.is_empty() || self.browsers.iter().any(|b| b == browser)
    }

    /// The class of a failed answer's text: the first pattern that matches, else `other`.
    pub fn classify(&self, text: &str) -> FailureClass {
        self.errors.iter().find(|(_, re)| re.is_match(text)).map_or(FailureClass::Other, |(class, _)| *class)
    }

    /// The start command's words with `{here}` (the description's folder), `{chromium}`,
    /// `{cdp_endpoint}`, `{bidi_session}`, `{navguard}` and `{scratch}` (a folder of the
    /// agent's own for this scenario) filled in.
    pub fn command_line(&self, chromium: &str, at: BrowserAt<'_>, scratch: &Path) -> (String, Vec<String>) {
        let fill = self.filler(chromium, at, scratch);
        (fill(&self.start.command), self.start.args.iter().map(|a| fill(a)).collect())
    }

    /// Its `[start] env` with the placeholders filled in as [`Self::command_line`]'s, and
    /// `TMPDIR` its scratch folder unless the description names another.
    pub fn env(&self, chromium: &str, at: BrowserAt<'_>, scratch: &Path) -> BTreeMap<String, String> {
        let fill = self.filler(chromium, at, scratch);
        let mut env: BTreeMap<String, String> = self.start.env.iter().map(|(k, v)| (k.clone(), fill(v))).collect();
        // What the agent (Node, Python, a browser it starts) puts in the temporary folder goes
        // into its scratch folder, removed with it.
        env.entry("TMPDIR".to_owned()).or_insert_with(|| scratch.display().to_string());
        env
    }

    /// Its `[start] cwd`, placeholders filled in; `None`: navguard's own.
    pub fn cwd(&self, chromium: &str, at: BrowserAt<'_>, scratch: &Path) -> Option<PathBuf> {
        let fill = self.filler(chromium, at, scratch);
        self.start.cwd.as_deref().map(|cwd| PathBuf::from(fill(cwd)))
    }

    /// Its `[start] files`: each one's path in `scratch` and its text, placeholders filled in.
    pub fn files(&self, chromium: &str, at: BrowserAt<'_>, scratch: &Path) -> Vec<(PathBuf, String)> {
        let fill = self.filler(chromium, at, scratch);
        self.start.files.iter().map(|(name, text)| (scratch.join(name), fill(text))).collect()
    }

    /// Fills `{here}`, `{chromium}`, `{cdp_endpoint}`, `{bidi_session}`, `{webdriver_session}`,
    /// `{navguard}`, `{scratch}` and `{files}` into a word of its start.
    pub fn filler(&self, chromium: &str, at: BrowserAt<'_>, scratch: &Path) -> impl Fn(&str) -> String + use<> {
        let here = self.here.display().to_string();
        let scratch = scratch.display().to_string();
        let chromium = chromium.to_owned();
        let endpoint = at.cdp.unwrap_or_default().to_owned();
        let bidi = at.bidi.unwrap_or_default().to_owned();
        let webdriver = at.webdriver.unwrap_or_default().to_owned();
        // Started without a scenario (the check before a run), it may upload from its own folder.
        let files = at.files.map_or_else(|| scratch.clone(), str::to_owned);
        let navguard = navguard_command().display().to_string();
        move |word: &str| {
            word.replace("{here}", &here)
                .replace("{chromium}", &chromium)
                .replace("{cdp_endpoint}", &endpoint)
                .replace("{bidi_session}", &bidi)
                .replace("{webdriver_session}", &webdriver)
                .replace("{navguard}", &navguard)
                .replace("{scratch}", &scratch)
                .replace("{files}", &files)
        }
    }

    /// Whether the agent is handed the Chromium binary: its start, its environment or a file
    /// written for it names `{chromium}`, or it is a jsonl agent, whose start line carries it.
    /// Only such an agent needs Chromium installed; the others run where only Firefox is.
    pub fn needs_chromium(&self) -> bool {
        self.kind == Kind::Jsonl || self.start_words().any(|w| w.contains("{chromium}"))
    }

    /// Every word of its start that placeholders are filled into: the command, its arguments,
    /// its environment's values and the files written for it.
    fn start_words(&self) -> impl Iterator<Item = &String> {
        let start = &self.start;
        // A cli agent's calls after its start are command lines of their own (an attach).
        let calls = self.after_start.iter().filter(|_| self.kind == Kind::Cli).map(|step| &step.call);
        std::iter::once(&start.command)
            .chain(&start.args)
            .chain(start.env.values())
            .chain(start.files.values())
            .chain(calls)
    }

    /// Whether the agent attaches to the harness's browser (its start, its environment or a
    /// file written for it names one of the [`ATTACHING`] placeholders, or it is a jsonl agent,
    /// whose start line always carries the endpoint): then the user's steps act in the agent's
    /// own browser.
    pub fn attaches(&self) -> bool {
        self.kind.always_attaches()
            || self.start_words().any(|w| ATTACHING.iter().any(|placeholder| w.contains(placeholder)))
    }
}

/// A TOML error in one line, with its place: `line L, column C: <what>` (the parser's own text
/// quotes the line over several).
fn toml_error(text: &str, error: &toml::de::Error) -> String {
    let what = error.message().split_whitespace().collect::<Vec<_>>().join(" ");
    match error.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: {what}")
        }
        None => what,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cdp(url: &'static str) -> BrowserAt<'static> {
        BrowserAt { cdp: Some(url), ..BrowserAt::default() }
    }
    use serde_json::json;

    const SAMPLE: &str = r#"
name = "sample"
kind = "mcp"
browsers = ["chromium"]
[start]
command = "{here}/bin/agent"
args = ["--cdp", "{cdp_endpoint}"]
[tools.type]
call = "type_into"
args = { target = "{ref}", text = "{text}", submit = "{submit}", note = "typing {text}", slowly = "{slowly}" }
[[tools.handle_dialog]]
call = "answer"
args = { action = "{accept|accept|dismiss}" }
[[tools.handle_dialog]]
call = "list"
when = "accept"
[tools.select_tab]
call = "tabs"
args = { index = "{index0}" }
[answer]
url = '- Page URL: (\S+)'
[errors]
stale-ref = ['not found in the current page']
"#;

    #[test]
    fn a_description_maps_a_neutral_call_keeping_json_types() {
        let d = Description::parse(SAMPLE, "sample.toml", Path::new("/x")).unwrap();
        let step = &d.tool(NeutralTool::Type).unwrap().steps()[0];
        let filled = Value::Object(step.fill(&json!({"ref": "e3", "text": "hi", "submit": true})));
        assert_eq!(filled, json!({"target": "e3", "text": "hi", "submit": true, "note": "typing hi"}));
        let dialog = d.tool(NeutralTool::HandleDialog).unwrap().steps();
        assert_eq!(Value::Object(dialog[0].fill(&json!({"accept": false}))), json!({"action": "dismiss"}));
        assert!(dialog[1].runs(&json!({"accept": true})) && !dialog[1].runs(&json!({"accept": false})));
        let select = &d.tool(NeutralTool::SelectTab).unwrap().steps()[0];
        assert_eq!(Value::Object(select.fill(&json!({"index": 2}))), json!({"index": 1}));
        assert!(d.tool(NeutralTool::GoBack).is_none());
        assert!(d.attaches());
        let (_, args) = d.command_line("/usr/bin/chromium", cdp("http://127.0.0.1:9"), Path::new("/tmp/s"));
        assert_eq!(args, ["--cdp", "http://127.0.0.1:9"]);
        assert_eq!(d.classify("Ref e3 not found in the current page snapshot"), FailureClass::StaleRef);
        assert_eq!(d.classify("boom"), FailureClass::Other);
        assert!(d.drives("chromium") && !d.drives("firefox"));
    }

    #[test]
    fn a_step_runs_for_the_forms_of_a_call_its_conditions_name() {
        let d = Description::find("agent-browser").unwrap();
        let scroll = d.tool(NeutralTool::Scroll).unwrap();
        let ran =
            |args: Value| scroll.steps().iter().filter(|s| s.runs(&args)).map(|s| s.call.as_str()).collect::<Vec<_>>();
        assert_eq!(ran(json!({"ref": "e4"})), ["agent_browser_scroll_into_view"]);
        assert_eq!(ran(json!({"by": "end"})), ["agent_browser_scroll"]);
        let container = &scroll.steps()[2];
        assert!(container.runs(&json!({"by": "end", "ref": "e4"})));
        assert_eq!(Value::Object(container.fill(&json!({"by": "end", "ref": "e4"})))["selector"], "@e4");
        // A page's worth it has no counterpart for: that form is not taken.
        assert!(!scroll.takes(&json!({"by": "page", "direction": "down"})));
        let use_ = Description::find("browser-use").unwrap();
        assert!(use_.tool(NeutralTool::Scroll).unwrap().takes(&json!({"by": "page"})));
        assert!(use_.tool(NeutralTool::Scroll).unwrap().takes(&json!({"direction": "up"})));
        // A page's worth inside a container is no scroll into view.
        assert!(!scroll.takes(&json!({"ref": "e4", "direction": "down"})));
        assert!(!use_.tool(NeutralTool::Scroll).unwrap().takes(&json!({"ref": "12"})));
        assert!(!use_.tool(NeutralTool::Screenshot).unwrap().takes(&json!({"ref": "12"})));
        assert!(use_.tool(NeutralTool::Screenshot).unwrap().takes(&json!({"full_page": true})));
        // Given: true or any value but false, null or empty.
        let type_ = d.tool(NeutralTool::Type).unwrap();
        assert!(type_.steps()[1].runs(&json!({"submit": true})));
        assert!(!type_.steps()[1].runs(&json!({"submit": false})) && !type_.steps()[1].runs(&json!({"text": "x"})));
    }

    #[test]
    fn a_condition_that_is_not_an_argument_s_is_refused_with_its_place() {
        let text = SAMPLE.replace("when = \"accept\"", "when = [\"accept\", \"!by=end\"]");
        let e = Description::parse(&text, "sample.toml", Path::new("/x")).unwrap_err().to_string();
        assert!(e.contains("[tools.handle_dialog] when \"!by=end\": `!arg` and `arg=value` do not combine"), "{e}");
        let text = SAMPLE.replace("when = \"accept\"", "when = \"by end\"");
        let e = Description::parse(&text, "sample.toml", Path::new("/x")).unwrap_err().to_string();
        assert!(e.contains("\"by end\" is not an argument's name"), "{e}");
    }

    const STARTED: &str = r#"
name = "started"
kind = "mcp"
[start]
command = "{here}/bin/agent"
env = { AGENT_CDP = "{cdp_endpoint}", HOME = "{scratch}" }
files = { "config.json" = '{"cdp_url": "{cdp_endpoint}", "browser": "{chromium}"}', "sub/notes.txt" = "plain" }
[[after_start]]
call = "launch"
args = { headless = true }
[[before_end]]
call = "close"
args = { all = true }
[tools.click]
call = "click"
args = { index = "{ref:number}" }
[[tools.handle_dialog]]
call = "accept"
when = "accept"
[[tools.handle_dialog]]
call = "dismiss"
when = "!accept"
[[tools.snapshot]]
call = "snapshot"
keep_as = "Snapshot"
[[tools.snapshot]]
call = "url"
keep_as = "URL"
"#;

    #[test]
    fn the_agents_whose_actions_answer_no_page_are_looked_at_after_them() {
        let looks = |name: &str| Description::find(name).unwrap().looks_after;
        assert_eq!(
            looks("agent-browser"),
            [
                NeutralTool::Click,
                NeutralTool::Type,
                NeutralTool::PressKey,
                NeutralTool::HandleDialog,
                NeutralTool::SelectOption,
                NeutralTool::Scroll,
                NeutralTool::Hover,
                NeutralTool::Drag,
                NeutralTool::UploadFile
            ]
        );
        // browser-use's navigate and new tab name the URL alone, its go_back nothing.
        assert_eq!(
            looks("browser-use"),
            [
                NeutralTool::Navigate,
                NeutralTool::NewTab,
                NeutralTool::Click,
                NeutralTool::Type,
                NeutralTool::Scroll,
                NeutralTool::GoBack
            ]
        );
        // Playwright MCP's actions answer with the page's URL and title.
        assert!(looks("playwright-mcp").is_empty());
    }

    #[test]
    fn a_description_runs_in_the_run_s_own_folder_it_names() {
        let at = BrowserAt { files: Some("/tmp/files-of-the-scenario"), ..BrowserAt::default() };
        let scratch = Path::new("/tmp/scratch-of-the-agent");
        let parse = |cwd: &str| {
            let text = format!("name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\ncwd = \"{cwd}\"");
            Description::parse(&text, "a.toml", Path::new(".")).unwrap()
        };
        assert_eq!(parse("{files}").cwd("c", at, scratch), Some(PathBuf::from("/tmp/files-of-the-scenario")));
        assert_eq!(
            parse("{scratch}/home").cwd("c", at, scratch),
            Some(PathBuf::from("/tmp/scratch-of-the-agent/home"))
        );
        let plain =
            Description::parse("name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"", "a.toml", Path::new("."));
        assert_eq!(plain.unwrap().cwd("c", at, scratch), None);
    }

    #[test]
    fn a_description_can_write_files_fill_its_env_and_make_calls_around_the_scenario() {
        let d = Description::parse(STARTED, "started.toml", Path::new("/x")).unwrap();
        // Naming {cdp_endpoint} in an env value or a file is attaching too.
        assert!(d.attaches());
        let scratch = Path::new("/tmp/s");
        let env = d.env("/usr/bin/chromium", cdp("http://127.0.0.1:9"), scratch);
        assert_eq!(env["AGENT_CDP"], "http://127.0.0.1:9");
        assert_eq!(env["HOME"], "/tmp/s");
        let files = d.files("/usr/bin/chromium", cdp("http://127.0.0.1:9"), scratch);
        assert_eq!(
            files,
            [
                (
                    PathBuf::from("/tmp/s/config.json"),
                    r#"{"cdp_url": "http://127.0.0.1:9", "browser": "/usr/bin/chromium"}"#.to_owned()
                ),
                (PathBuf::from("/tmp/s/sub/notes.txt"), "plain".to_owned()),
            ]
        );
        assert_eq!(d.after_start.len(), 1);
        assert_eq!(Value::Object(d.after_start[0].fill(&Value::Null)), json!({"headless": true}));
        assert_eq!(Value::Object(d.before_end[0].fill(&Value::Null)), json!({"all": true}));
        let click = &d.tool(NeutralTool::Click).unwrap().steps()[0];
        assert_eq!(Value::Object(click.fill(&json!({"ref": "12"}))), json!({"index": 12}));
        assert_eq!(Value::Object(click.fill(&json!({"ref": 7}))), json!({"index": 7}));
        // A ref that is not a number is sent as it is: the agent refuses it in its words.
        assert_eq!(Value::Object(click.fill(&json!({"ref": "e3"}))), json!({"index": "e3"}));
        let dialog = d.tool(NeutralTool::HandleDialog).unwrap().steps();
        assert!(dialog[0].runs(&json!({"accept": true})) && !dialog[0].runs(&json!({"accept": false})));
        assert!(!dialog[1].runs(&json!({"accept": true})) && dialog[1].runs(&json!({"accept": false})));
        let snapshot = d.tool(NeutralTool::Snapshot).unwrap().steps();
        assert_eq!(snapshot[0].keep_as.as_deref(), Some("Snapshot"));
        // Without any of it, nothing changes.
        let plain = Description::parse(SAMPLE, "sample.toml", Path::new("/x")).unwrap();
        assert!(plain.after_start.is_empty() && plain.before_end.is_empty());
        assert!(plain.files("c", BrowserAt::default(), scratch).is_empty());
    }

    #[test]
    fn a_list_argument_is_mapped_item_by_item() {
        // As Playwright MCP's form takes it: each field names its control's kind, its value as text.
        let text = r#"
name = "a"
kind = "mcp"
[start]
command = "x"
[tools.fill_form]
call = "browser_fill_form"
args = { fields = "{fields}" }
each = { fields = { target = "{ref}", name = "the field {ref}", type = "{role}", value = "{value:text}" } }
"#;
        let d = Description::parse(text, "a.toml", Path::new(".")).unwrap();
        let step = &d.tool(NeutralTool::FillForm).unwrap().steps()[0];
        let args = json!({"fields": [
            {"ref": "e3", "value": "Ada", "role": "textbox"},
            {"ref": "e4", "value": true, "role": "checkbox"},
            {"ref": "e5", "value": "Blue"},
        ]});
        assert_eq!(
            Value::Object(step.fill(&args)),
            json!({"fields": [
                {"target": "e3", "name": "the field e3", "type": "textbox", "value": "Ada"},
                {"target": "e4", "name": "the field e4", "type": "checkbox", "value": "true"},
                {"target": "e5", "name": "the field e5", "type": null, "value": "Blue"},
            ]})
        );
    }

    #[test]
    fn mistakes_are_named_with_their_place() {
        let cases = [
            ("name = \"a\"\nkind = \"grpc\"", "agent kind"),
            (
                "name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\n[tools.teleport]\ncall = \"t\"",
                "[tools.teleport]",
            ),
            ("name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\n[errors]\nfatal = ['x']", "errors.fatal"),
            ("name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\n[answer]\nurl = '('", "answer.url"),
            ("name = \"a\"\nkind = \"mcp\"", "command is missing"),
            (
                "name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\n[tools.click]\ncall = \"c\"\nargs = { index = \"{ref:int}\" }",
                "[tools.click] args.index",
            ),
            (
                "name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\n[[after_start]]\ncall = \"l\"\nargs = { n = \"{x:float}\" }",
                "[[after_start]] l: args.n",
            ),
            (
                "name = \"a\"\nkind = \"jsonl\"\n[start]\ncommand = \"x\"\n[[before_end]]\ncall = \"close\"",
                "[[before_end]]",
            ),
            (
                "name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\nfiles = { \"../up.json\" = \"{}\" }",
                "[start] files.\"../up.json\"",
            ),
            (
                "name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\nfiles = { \"/etc/x\" = \"{}\" }",
                "[start] files.\"/etc/x\"",
            ),
            ("name = \"a\"\nkind = \"mcp\"\nlooks_after = [\"fly\"]\n[start]\ncommand = \"x\"", "looks_after \"fly\""),
            (
                "name = \"a\"\nkind = \"mcp\"\nlooks_after = [\"snapshot\"]\n[start]\ncommand = \"x\"",
                "looks_after \"snapshot\": a snapshot is the look itself",
            ),
            (
                "name = \"a\"\nkind = \"mcp\"\nlooks_after = [\"click\"]\n[start]\ncommand = \"x\"\n[tools.snapshot]\ncall = \"s\"",
                "looks_after \"click\": the description maps no click",
            ),
            (
                "name = \"a\"\nkind = \"mcp\"\nlooks_after = [\"click\"]\n[start]\ncommand = \"x\"\n[tools.click]\ncall = \"c\"",
                "looks_after: the agent has no snapshot to look with",
            ),
            (
                "name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\ncwd = \"/tmp\"",
                "[start] cwd = \"/tmp\": not one of the run's own folders",
            ),
            (
                "name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\ncwd = \"{files}/../up\"",
                "[start] cwd = \"{files}/../up\"",
            ),
            (
                "name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\ncwd = \"{files}x\"",
                "[start] cwd = \"{files}x\"",
            ),
            (
                "name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\n[[after_start]]\nkall = \"l\"",
                "unknown field `kall`",
            ),
            (
                "name = \"a\"\nkind = \"mcp\"\n[start]\ncommand = \"x\"\n[tools.fill_form]\ncall = \"f\"\neach = { fields = { v = \"{value}\" } }",
                "[tools.fill_form] each.fields: no argument fields",
            ),
        ];
        for (text, named) in cases {
            let e = Description::parse(text, "a.toml", Path::new(".")).unwrap_err().to_string();
            assert!(e.contains(named), "{e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
        let e = Description::parse("name = \"a\\nb\"\nkind = \"mcp\"", "a.toml", Path::new("."));
        assert!(e.unwrap_err().to_string().contains(r#"name "a\nb": must be printable"#));
        // The TOML parser's own text spans several lines; it is told in one, with its place.
        let e = Description::parse("name = \"a\"\nkind = \"mcp\"\nkind = \"mcp\"", "a.toml", Path::new("."));
        assert_eq!(e.unwrap_err().to_string(), "agent a.toml: a.toml: line 3, column 1: duplicate key");
    }

    #[test]
    fn the_built_in_mcp_agents_tell_of_an_open_dialog_in_their_own_words() {
        // As Playwright MCP 0.0.83 and Chrome DevTools MCP 1.11.0 answered with an alert open.
        let playwright = "### Page\n- Page URL: http://127.0.0.1:1/dialog\n### Modal state\n\
                          - [\"alert\" dialog with message \"Dialog: alert\"]: can be handled by browser_handle_dialog";
        let devtools = "The element was clicked and it opened a dialog.\n# Open dialog\nbeforeunload: .\n\
                        Call handle_dialog to handle it before continuing.";
        for (agent, text, words) in [
            ("playwright-mcp", playwright, "\"alert\" dialog with message \"Dialog: alert\""),
            ("chrome-devtools-mcp", devtools, "beforeunload: ."),
        ] {
            let rules = Description::find(agent).unwrap().answer;
            assert_eq!(rules.dialog_in(text).as_deref(), Some(words), "{agent}");
            assert_eq!(rules.dialog_in("### Page\n- Page Title: Next"), None, "{agent}");
        }
    }

    #[test]
    fn every_built_in_description_parses() {
        for name in Description::built_in() {
            Description::find(name).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
