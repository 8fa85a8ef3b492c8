//! The tools that change a form's controls: `select_option` (a native select's options, or an
//! ARIA combobox's or listbox's option chosen with the pointer), `fill_form` (each field's
//! whole text typed, a checkbox or radio clicked to its state, a select's option chosen) and
//! `upload_file` (files of the folder the run allows, put in a file input). Each waits as after
//! a click, then reads back what the page holds: a control that does not hold what was asked
//! (the page put the old value back, a framework kept its own) fails the call as `not-applied`,
//! naming what it holds.

use super::error::{ToolError, ToolFailure};
use super::execute::{ToolContext, ToolRun, browser, quiet_seen};
use super::reading::{ELEMENT, ELEMENT_TEXT_CHARS, call_at, found};
use super::tabs::TaskTabs;
use super::tool::{Field, FieldValue, ToolName};
use crate::agent::settle::ActionStreams;
use crate::browser::{BrowserError, ElementRef, Key, PageScript, Staleness, TabId, Target, page_script_finding};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A select's first step (see the script's own comment).
const SELECT: PageScript = page_script_finding!("select", "select.js", "target, names, values, wait");

/// The options of an opened ARIA combobox or listbox to click (see the script's own comment).
const PICK_OPTION: PageScript = page_script_finding!("pick option", "pick_option.js", "target, names, values, wait");

/// A field focused and what it holds selected, for the key that deletes it.
const CLEAR_FIELD: PageScript = page_script_finding!("clear field", "clear_field.js", "target, names");

/// What a file input is and holds.
const FILE_INPUT: PageScript = page_script_finding!("file input", "file_input.js", "target, names");

/// The most a select waits for options that come late (a list its page fetches once opened).
const LATE_OPTIONS: Duration = Duration::from_secs(5);

/// How a select was chosen in.
enum Chose {
    /// A native select: the options by script, with the events a person's choice sends.
    Native,
    /// An ARIA combobox or listbox: its options (with their labels) clicked with the pointer.
    Aria { listbox: bool, labels: Vec<String> },
}

impl ToolContext<'_> {
    /// `select_option`: chooses, waits as after a click, reads back what the control holds.
    pub(super) async fn select_option(&self, tabs: &TaskTabs, target: &Target, values: &[String]) -> ToolRun {
        const TOOL: ToolName = ToolName::SelectOption;
        let tab = match self.ready_for_input(tabs, TOOL, [target]).await {
            Ok(tab) => tab,
            Err(e) => return ToolRun::err(e),
        };
        let streams = ActionStreams::subscribe(self.port);
        let chose = match self.choose(TOOL, &tab, target, values).await {
            Ok(chose) => chose,
            Err(e) => return ToolRun::err(e),
        };
        let settled = match self.settle_after(TOOL, &tab, streams).await {
            Ok(settled) => settled,
            Err(e) => return ToolRun::err(e),
        };
        let holds = match self.select_holds(TOOL, &tab, target, values, &chose).await {
            Ok(holds) => holds,
            Err(e) => return ToolRun::err(e),
        };
        let text =
            format!("chose {} in {target}: {holds}; the page {}", listed(values), self.settle_words(&tab, &settled));
        ToolRun { quiet_seen: quiet_seen(&tab, &settled), looked: settled.looked, ..ToolRun::ok(text) }
    }

    /// Chooses `values` in the select `target` names: a native one by script, an ARIA one by
    /// opening it (unless open) and clicking its options with the pointer.
    async fn choose(
        &self,
        tool: ToolName,
        tab: &TabId,
        target: &Target,
        values: &[String],
    ) -> Result<Chose, ToolError> {
        self.phase.set(format!("the options of {target} to be chosen"));
        let now = [target.finder_arg(), Staleness::finder_names(), json!(values), json!(0)];
        let mut answer = call_at(self.port, tab, Some(target), &SELECT, &now).await.map_err(browser(tool))?;
        let args =
            [target.finder_arg(), Staleness::finder_names(), json!(values), json!(LATE_OPTIONS.as_millis() as u64)];
        if answer.get("missing").is_some() {
            // A page that loads its options once the control is opened gets its trusted press,
            // as a person's opening sends it; Escape closes the browser's list again.
            self.phase.set(format!("the late options of {target} to come"));
            self.port.click(tab, target).await.map_err(browser(tool))?;
            self.port.press_key(tab, Key::Escape).await.map_err(browser(tool))?;
            answer = call_at(self.port, tab, Some(target), &SELECT, &args).await.map_err(browser(tool))?;
        }
        if !found(&answer) {
            return Err(browser(tool)(BrowserError::element_not_found(tab, target, &answer)));
        }
        let named = |key: &str| answer.get(key).and_then(Value::as_str).map(str::to_owned);
        if let Some(what) = named("notSelect") {
            return Err(ToolFailure::NotASelect { target: target.to_string(), what }.of(tool));
        }
        if let Some(why) = named("notInteractable") {
            return Err(browser(tool)(BrowserError::NotInteractable { target: target.to_string(), why }));
        }
        if answer.get("tooMany").is_some() {
            return Err(ToolFailure::OneOptionOnly { target: target.to_string(), given: values.len() }.of(tool));
        }
        if answer.get("missing").is_some() {
            return Err(no_such_option(tool, target, &answer));
        }
        let Some(role) = named("aria") else { return Ok(Chose::Native) };
        let listbox = role == "listbox";
        if values.len() > 1 {
            return Err(ToolFailure::OneOptionOnly { target: target.to_string(), given: values.len() }.of(tool));
        }
        let expanded = answer.get("expanded").and_then(Value::as_bool) == Some(true);
        if !listbox && !expanded {
            self.port.click(tab, target).await.map_err(browser(tool))?;
        }
        let picked = call_at(self.port, tab, Some(target), &PICK_OPTION, &args).await.map_err(browser(tool))?;
        if !found(&picked) {
            return Err(browser(tool)(BrowserError::element_not_found(tab, target, &picked)));
        }
        if picked.get("missing").is_some() {
            return Err(no_such_option(tool, target, &picked));
        }
        let frame = match target {
            Target::Ref(reference) => reference.frame.clone(),
            Target::Css(_) => None,
        };
        let texts = |key: &str| -> Vec<String> {
            let list = picked.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
            list.iter().filter_map(Value::as_str).map(str::to_owned).collect()
        };
        for written in texts("refs") {
            let option = written
                .parse::<ElementRef>()
                .map_err(|e| browser(tool)(BrowserError::Script(format!("the option's ref {written:?}: {e}"))))?;
            let option = Target::Ref(ElementRef { frame: frame.clone(), ..option });
            self.port.click(tab, &option).await.map_err(browser(tool))?;
        }
        Ok(Chose::Aria { listbox, labels: texts("labels") })
    }

    /// What the select holds now, in words, or `not-applied` naming what it holds when that is
    /// not what was chosen.
    async fn select_holds(
        &self,
        tool: ToolName,
        tab: &TabId,
        target: &Target,
        values: &[String],
        chose: &Chose,
    ) -> Result<String, ToolError> {
        let read = self.read_element(tab, target).await.map_err(browser(tool))?;
        let (held, applied) = match chose {
            Chose::Native => {
                let options = read.get("options").and_then(Value::as_array).cloned().unwrap_or_default();
                let chosen: Vec<&Value> = options.iter().filter(|o| o.get("selected") == Some(&json!(true))).collect();
                let text = |o: &Value, key: &str| o.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
                let names: Vec<String> =
                    chosen.iter().map(|o| format!("{:?} ({})", text(o, "label"), text(o, "value"))).collect();
                let is = |o: &Value, v: &str| text(o, "value") == v || fold(&text(o, "label")) == fold(v);
                let applied = chosen.len() == values.len() && values.iter().all(|v| chosen.iter().any(|o| is(o, v)));
                (if names.is_empty() { "no option".to_owned() } else { names.join(", ") }, applied)
            }
            Chose::Aria { listbox: false, labels } => {
                let shown = read.get("value").or_else(|| read.get("text")).and_then(Value::as_str).unwrap_or_default();
                let applied = labels.iter().all(|l| {
                    if read.get("value").is_some() { fold(shown) == fold(l) } else { fold(shown).contains(&fold(l)) }
                });
                (format!("{:?}", fold(shown)), applied)
            }
            Chose::Aria { listbox: true, labels } => {
                // A listbox shows every option: which are chosen is its options' aria-selected.
                let args = [target.finder_arg(), Staleness::finder_names()];
                let chosen = call_at(self.port, tab, Some(target), &SELECTED_OPTIONS, &args).await;
                let chosen = chosen.map_err(browser(tool))?;
                let chosen: Vec<String> =
                    chosen.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect();
                let applied = labels.iter().all(|l| chosen.iter().any(|c| fold(c) == fold(l)));
                (listed(&chosen), applied)
            }
        };
        if applied {
            Ok(format!("the control holds {held}"))
        } else {
            let holds = format!(
                "{target} holds {held}, not {} (the page put its old value back, or did not take the choice)",
                listed(values)
            );
            Err(ToolFailure::NotApplied { holds }.of(tool))
        }
    }

    /// `fill_form`: each field in order, then the wait as after a click, then each field read
    /// back; a field that holds other than its value fails the call as `not-applied`, naming
    /// what each field holds.
    pub(super) async fn fill_form(&self, tabs: &TaskTabs, fields: &[Field]) -> ToolRun {
        const TOOL: ToolName = ToolName::FillForm;
        let tab = match self.ready_for_input(tabs, TOOL, fields.iter().map(|f| &f.target)).await {
            Ok(tab) => tab,
            Err(e) => return ToolRun::err(e),
        };
        let streams = ActionStreams::subscribe(self.port);
        let mut kinds = Vec::with_capacity(fields.len());
        for field in fields {
            match self.fill_one(TOOL, &tab, field).await {
                Ok(kind) => kinds.push(kind),
                Err(e) => return ToolRun::err(e),
            }
        }
        let settled = match self.settle_after(TOOL, &tab, streams).await {
            Ok(settled) => settled,
            Err(e) => return ToolRun::err(e),
        };
        let mut said = Vec::with_capacity(fields.len());
        let mut wrong = 0;
        for (field, kind) in fields.iter().zip(&kinds) {
            let (words, holds) = match self.field_holds(&tab, field, kind).await {
                Ok(read) => read,
                Err(e) => return ToolRun::err(browser(TOOL)(e)),
            };
            if !holds {
                wrong += 1;
            }
            said.push(format!("{} {words}", field.target));
        }
        if wrong > 0 {
            let holds = format!(
                "{wrong} of {} fields do not hold their value after the page's handlers ran: {}",
                fields.len(),
                said.join("; ")
            );
            return ToolRun::err(ToolFailure::NotApplied { holds }.of(TOOL));
        }
        let text = format!(
            "filled {} fields: {}; the page {}",
            fields.len(),
            said.join("; "),
            self.settle_words(&tab, &settled)
        );
        ToolRun { quiet_seen: quiet_seen(&tab, &settled), looked: settled.looked, ..ToolRun::ok(text) }
    }

    /// Gives one field its value, by what the field is.
    async fn fill_one(&self, tool: ToolName, tab: &TabId, field: &Field) -> Result<FieldKind, ToolError> {
        let target = &field.target;
        let read = self.read_element(tab, target).await.map_err(browser(tool))?;
        let kind = FieldKind::of(&read);
        let refuse =
            |why: &str| Err(ToolFailure::FieldValue { target: target.to_string(), why: why.to_owned() }.of(tool));
        match (kind, &field.value) {
            (FieldKind::Select, FieldValue::Text(option)) => {
                self.choose(tool, tab, target, std::slice::from_ref(option)).await?;
            }
            (FieldKind::Select, FieldValue::Checked(_)) => return refuse("a select takes an option's label or value"),
            (FieldKind::Check { radio, checked }, FieldValue::Checked(want)) => {
                if radio && !want {
                    return refuse("a radio is unchosen by choosing another of its group");
                }
                if checked != *want {
                    self.phase.set(format!("{target} to be clicked"));
                    self.port.click(tab, target).await.map_err(browser(tool))?;
                }
            }
            (FieldKind::Check { .. }, FieldValue::Text(_)) => return refuse("a checkbox or radio takes true or false"),
            (FieldKind::Text, FieldValue::Text(text)) => self.retype(tool, tab, target, text).await?,
            (FieldKind::Text, FieldValue::Checked(_)) => return refuse("a text field takes a string"),
        }
        Ok(kind)
    }

    /// Replaces what a text field or editor holds with `text`, through real keys: what it held
    /// is selected and deleted with Backspace, then `text` typed.
    async fn retype(&self, tool: ToolName, tab: &TabId, target: &Target, text: &str) -> Result<(), ToolError> {
        self.phase.set(format!("{target} to be cleared"));
        let args = [target.finder_arg(), Staleness::finder_names()];
        let cleared = call_at(self.port, tab, Some(target), &CLEAR_FIELD, &args).await.map_err(browser(tool))?;
        if !found(&cleared) {
            return Err(browser(tool)(BrowserError::element_not_found(tab, target, &cleared)));
        }
        if cleared.get("held").and_then(Value::as_bool) == Some(true) {
            self.port.press_key(tab, Key::Backspace).await.map_err(browser(tool))?;
        }
        if !text.is_empty() {
            self.phase.set(format!("the text to be typed into {target}"));
            self.port.type_text(tab, target, text).await.map_err(browser(tool))?;
        }
        Ok(())
    }

    /// What a filled field holds, in words, and whether that is its value.
    async fn field_holds(&self, tab: &TabId, field: &Field, kind: &FieldKind) -> Result<(String, bool), BrowserError> {
        let want = match &field.value {
            FieldValue::Text(text) => json!({ "text": text, "whole": true }),
            FieldValue::Checked(_) => Value::Null,
        };
        let args = [field.target.finder_arg(), Staleness::finder_names(), json!({ "text": ELEMENT_TEXT_CHARS }), want];
        let read = call_at(self.port, tab, Some(&field.target), &ELEMENT, &args).await?;
        if !found(&read) {
            return Err(BrowserError::element_not_found(tab, &field.target, &read));
        }
        let text = |key: &str| read.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        Ok(match (kind, &field.value) {
            (FieldKind::Check { .. }, FieldValue::Checked(want)) => {
                let checked = read.get("checked").and_then(Value::as_bool) == Some(true);
                (if checked { "is checked".to_owned() } else { "is not checked".to_owned() }, checked == *want)
            }
            (FieldKind::Select, FieldValue::Text(option)) => {
                let options = read.get("options").and_then(Value::as_array).cloned().unwrap_or_default();
                let chosen = options.iter().find(|o| o.get("selected") == Some(&json!(true)));
                let of = |o: &Value, key: &str| o.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
                match chosen {
                    Some(o) => {
                        let is = of(o, "value") == *option || fold(&of(o, "label")) == fold(option);
                        (format!("holds {:?}", of(o, "label")), is)
                    }
                    // An ARIA combobox: what it shows.
                    None => {
                        let shown = if read.get("value").is_some() { text("value") } else { text("text") };
                        (format!("holds {:?}", fold(&shown)), fold(&shown).contains(&fold(option)))
                    }
                }
            }
            _ => {
                let holds = read.get("holds").and_then(Value::as_bool) == Some(true);
                (format!("holds {:?}", text("value")), holds)
            }
        })
    }

    /// What a field typed into holds now: `None` when it cannot be read (gone with a render,
    /// or no field), else what it holds, as an error when the typed text is not in it.
    pub(super) async fn typed_holds(
        &self,
        tab: &TabId,
        target: &Target,
        typed: &str,
    ) -> Option<Result<String, String>> {
        let want = json!({ "text": typed, "whole": false });
        let args = [target.finder_arg(), Staleness::finder_names(), json!({ "text": ELEMENT_TEXT_CHARS }), want];
        let read = call_at(self.port, tab, Some(target), &ELEMENT, &args).await.ok().filter(found)?;
        let value = read.get("value")?.as_str()?.to_owned();
        if read.get("holds").and_then(Value::as_bool) == Some(true) {
            Some(Ok(value))
        } else {
            Some(Err(format!(
                "{target} holds {value:?}, without the text typed into it (the page changed or refused it)"
            )))
        }
    }

    /// `upload_file`: the paths checked against the folder the run allows, the input checked
    /// to take them, the files put in it, the wait as after a click, then the files it holds.
    pub(super) async fn upload_file(&self, tabs: &TaskTabs, target: &Target, paths: &[String]) -> ToolRun {
        const TOOL: ToolName = ToolName::UploadFile;
        let files = match allowed_files(self.config.files, paths) {
            Ok(files) => files,
            Err(e) => return ToolRun::err(e.of(TOOL)),
        };
        // A file input is often hidden behind its label: a selector's is not waited for to show.
        let refs = Some(target).filter(|t| matches!(t, Target::Ref(_)));
        let tab = match self.ready_for_input(tabs, TOOL, refs).await {
            Ok(tab) => tab,
            Err(e) => return ToolRun::err(e),
        };
        let before = match self.file_input(&tab, target).await {
            Ok(before) => before,
            Err(e) => return ToolRun::err(browser(TOOL)(e)),
        };
        if before.get("file").and_then(Value::as_bool) != Some(true) {
            let what = before.get("tag").and_then(Value::as_str).unwrap_or("an element").to_owned();
            return ToolRun::err(ToolFailure::NotAFileInput { target: target.to_string(), what }.of(TOOL));
        }
        if before.get("disabled").and_then(Value::as_bool) == Some(true) {
            let e = BrowserError::NotInteractable { target: target.to_string(), why: "it is disabled".into() };
            return ToolRun::err(browser(TOOL)(e));
        }
        if files.len() > 1 && before.get("multiple").and_then(Value::as_bool) != Some(true) {
            return ToolRun::err(ToolFailure::OneFileOnly { target: target.to_string(), given: files.len() }.of(TOOL));
        }
        self.phase.set(format!("the files to be put in {target}"));
        let streams = ActionStreams::subscribe(self.port);
        if let Err(e) = self.port.set_files(&tab, target, &files).await {
            return ToolRun::err(browser(TOOL)(e));
        }
        let settled = match self.settle_after(TOOL, &tab, streams).await {
            Ok(settled) => settled,
            Err(e) => return ToolRun::err(e),
        };
        let after = match self.file_input(&tab, target).await {
            Ok(after) => after,
            Err(e) => return ToolRun::err(browser(TOOL)(e)),
        };
        let held: Vec<(String, u64)> = after
            .get("files")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|f| {
                let name = f.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                (name, f.get("size").and_then(Value::as_u64).unwrap_or(0))
            })
            .collect();
        let names: Vec<String> = held.iter().map(|(name, size)| format!("{name} ({size} bytes)")).collect();
        let holds = if names.is_empty() { "no file".to_owned() } else { names.join(", ") };
        let given: Vec<String> =
            files.iter().map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()).collect();
        if held.iter().map(|(name, _)| name).ne(given.iter()) {
            let holds = format!("{target} holds {holds}, not {} (the page took them out)", listed(&given));
            return ToolRun::err(ToolFailure::NotApplied { holds }.of(TOOL));
        }
        let text = format!("{target} holds {holds}; the page {}", self.settle_words(&tab, &settled));
        ToolRun { quiet_seen: quiet_seen(&tab, &settled), looked: settled.looked, ..ToolRun::ok(text) }
    }

    /// What a file input is and holds, or why it cannot be read.
    async fn file_input(&self, tab: &TabId, target: &Target) -> Result<Value, BrowserError> {
        let args = [target.finder_arg(), Staleness::finder_names()];
        let answer = call_at(self.port, tab, Some(target), &FILE_INPUT, &args).await?;
        if found(&answer) { Ok(answer) } else { Err(BrowserError::element_not_found(tab, target, &answer)) }
    }
}

/// The labels of a listbox's chosen options (aria-selected).
const SELECTED_OPTIONS: PageScript = page_script_finding!("selected options", "selected_options.js", "target, names");

/// What kind of field `fill_form` fills, from what the element holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FieldKind {
    /// A native select, or an ARIA combobox or listbox.
    Select,
    /// A checkbox or a radio, and whether it is checked now.
    Check { radio: bool, checked: bool },
    /// A text field, a text area, an editor.
    Text,
}

impl FieldKind {
    fn of(read: &Value) -> Self {
        let text = |key: &str| read.get(key).and_then(Value::as_str).unwrap_or_default();
        if text("tag") == "select" || read.get("expanded").is_some() {
            return Self::Select;
        }
        match read.get("checked").and_then(Value::as_bool) {
            Some(checked) => Self::Check { radio: text("type") == "radio", checked },
            None => Self::Text,
        }
    }
}

/// The failure of a select that has no such option, from the script's answer.
fn no_such_option(tool: ToolName, target: &Target, answer: &Value) -> ToolError {
    let texts = |key: &str| -> Vec<String> {
        let list = answer.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
        list.iter().filter_map(Value::as_str).map(str::to_owned).collect()
    };
    ToolFailure::NoSuchOption { target: target.to_string(), missing: texts("missing"), options: texts("options") }
        .of(tool)
}

/// Whitespace folded, as the page scripts fold it.
fn fold(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Texts quoted, comma-separated.
fn listed(texts: &[String]) -> String {
    let quoted: Vec<String> = texts.iter().map(|t| format!("{t:?}")).collect();
    quoted.join(", ")
}

/// The files `paths` name, each inside `allowed` once every link is followed: a path relative
/// to the folder or absolute inside it, naming a file that is there. Anything else is refused
/// before the browser sees it (a run that allows no folder refuses every path).
fn allowed_files(allowed: Option<&Path>, paths: &[String]) -> Result<Vec<PathBuf>, ToolFailure> {
    let allowed = allowed.ok_or(ToolFailure::NoFilesAllowed)?;
    let refuse = |path: &str, why: String| ToolFailure::FileRefused { path: path.to_owned(), why };
    let folder = allowed
        .canonicalize()
        .map_err(|e| refuse(&allowed.to_string_lossy(), format!("the allowed folder cannot be read ({e})")))?;
    paths
        .iter()
        .map(|path| {
            if path.contains('\0') {
                return Err(refuse(path, "a path holds no NUL character".into()));
            }
            let full = folder.join(path);
            // Outside as written (`..` out of it, another absolute path) is said so whether or
            // not such a file exists; a link is followed below.
            if !lexically(&full).starts_with(&folder) {
                return Err(refuse(path, format!("it is outside the folder this run allows ({})", folder.display())));
            }
            let real = full.canonicalize().map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => refuse(path, "no such file in the allowed folder".into()),
                _ => refuse(path, format!("it cannot be read ({e})")),
            })?;
            if !real.starts_with(&folder) {
                return Err(refuse(path, format!("it is outside the folder this run allows ({})", folder.display())));
            }
            if !real.is_file() {
                return Err(refuse(path, "it is not a file".into()));
            }
            Ok(real)
        })
        .collect()
}

/// `path` with its `.` and `..` taken as written, no link followed (`a/b/../c` is `a/c`).
fn lexically(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_inside_the_allowed_folder_are_taken() {
        let root = tempfile::tempdir().unwrap();
        let allowed = root.path().join("files");
        std::fs::create_dir(&allowed).unwrap();
        std::fs::write(allowed.join("report.csv"), "a,b\n").unwrap();
        std::fs::write(root.path().join("secret.txt"), "no").unwrap();
        std::os::unix::fs::symlink(root.path().join("secret.txt"), allowed.join("link.txt")).unwrap();
        std::fs::create_dir(allowed.join("sub")).unwrap();
        let take = |paths: &[&str]| {
            let paths: Vec<String> = paths.iter().map(|p| (*p).to_owned()).collect();
            allowed_files(Some(&allowed), &paths).map_err(|e| e.to_string())
        };
        let taken = take(&["report.csv"]).unwrap();
        assert_eq!(taken, vec![allowed.canonicalize().unwrap().join("report.csv")]);
        let absolute = allowed.join("report.csv").to_string_lossy().into_owned();
        assert!(take(&[&absolute]).is_ok());
        for (path, why) in [
            ("../secret.txt", "outside the folder this run allows"),
            ("../../../../../../../../nowhere/at/all", "outside the folder this run allows"),
            ("sub/../../secret.txt", "outside the folder this run allows"),
            ("link.txt", "outside the folder this run allows"),
            ("/etc/hostname", "outside the folder this run allows"),
            ("missing.csv", "no such file in the allowed folder"),
            ("sub", "it is not a file"),
            ("a\0b", "a path holds no NUL character"),
        ] {
            let refused = take(&[path]).unwrap_err();
            assert!(refused.contains(why), "{path:?}: {refused}");
        }
        assert_eq!(
            allowed_files(None, &["report.csv".to_owned()]).unwrap_err().to_string(),
            "no folder is allowed for uploads in this run (start it with --files DIR)"
        );
    }

    #[test]
    fn a_field_s_kind_is_read_from_what_it_holds() {
        assert_eq!(FieldKind::of(&json!({"tag": "select", "options": []})), FieldKind::Select);
        assert_eq!(FieldKind::of(&json!({"tag": "input", "role": "combobox", "expanded": false})), FieldKind::Select);
        assert_eq!(
            FieldKind::of(&json!({"tag": "input", "type": "radio", "checked": false})),
            FieldKind::Check { radio: true, checked: false }
        );
        assert_eq!(FieldKind::of(&json!({"tag": "div", "value": "hi"})), FieldKind::Text);
    }
}
