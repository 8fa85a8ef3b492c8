//! Page scripts: navguard's own JavaScript that runs in a page, each a function compiled into
//! navguard, called with its data as arguments (`script.callFunction`). What a user, a page or
//! a model writes (an expectation, a selector, a ref) reaches the page only as an argument,
//! never as part of a script's text, so no text can change what a script does.

use super::error::BrowserError;
use super::types::{Staleness, TabId, Target};
use serde_json::{Value, json};

/// One of navguard's page scripts: a JavaScript function (`(a, b) => …` or `async (…) => …`),
/// whose answer is read as JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageScript {
    /// What it does, in a word or two (for logs and for the simulated browser).
    pub name: &'static str,
    /// The function's source.
    pub function: &'static str,
}

/// A page script from a JavaScript file beside the Rust code that uses it.
#[macro_export]
macro_rules! page_script {
    ($name:literal, $file:literal) => {
        $crate::browser::PageScript { name: $name, function: include_str!($file) }
    };
}

/// A page script that finds its element first: the function in `$file` (beside the Rust code
/// that uses it) is called with the arguments `$args` (as written in JavaScript), with
/// `findElement` (`src/browser/find_element.js`: an element by a CSS selector or a ref, or why
/// there is none) and `refOf` (`src/browser/ref_of.js`: the ref an element has, as the
/// snapshot gives refs) in its scope. Its arguments hold [`Target::finder_arg`]s and
/// [`Staleness::finder_names`].
macro_rules! page_script_finding {
    ($name:literal, $file:literal, $args:literal) => {
        $crate::browser::PageScript {
            name: $name,
            function: concat!(
                "(",
                $args,
                ") => {\n  const findElement = ",
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/browser/find_element.js")),
                ";\n  const refOf = ",
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/browser/ref_of.js")),
                ";\n  const run = ",
                include_str!($file),
                ";\n  return run(",
                $args,
                ");\n}\n"
            ),
        }
    };
}
pub(crate) use page_script_finding;

/// `findElement`'s first argument for `target`: `{css}` or `{document, index}`.
impl Target {
    pub(crate) fn finder_arg(&self) -> Value {
        match self {
            Self::Css(selector) => json!({ "css": selector }),
            Self::Ref(reference) => json!({ "document": reference.document, "index": reference.index }),
        }
    }
}

impl Staleness {
    /// The words `findElement` answers a stale ref with (its second argument).
    pub(crate) fn finder_names() -> Value {
        json!({ "replaced": Self::DocumentReplaced.name(), "removed": Self::ElementRemoved.name() })
    }
}

impl BrowserError {
    /// What a script's answer that found no element for `target` means: a selector that matched
    /// nothing, or a ref gone stale (the staleness's name the script gave).
    pub(crate) fn element_not_found(tab: &TabId, target: &Target, answer: &Value) -> Self {
        match target {
            Target::Css(selector) => Self::NoSuchElement { tab: tab.clone(), selector: selector.clone() },
            Target::Ref(reference) => {
                let why = answer.as_str().and_then(|s| s.parse().ok()).unwrap_or(Staleness::DocumentReplaced);
                Self::StaleRef { reference: reference.clone(), why }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// What in one line of Rust would build a page script from text: a placeholder (a word in
    /// capitals) replaced in a script, or a script constant's text replaced, or a script of the agent's own
    /// evaluated as an expression rather than called with arguments.
    fn builds_a_script(line: &str, in_agent: bool) -> Option<&'static str> {
        let code = line.split("//").next().unwrap_or_default();
        for (at, _) in code.match_indices(".replace(") {
            let receiver = code[..at].rsplit(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or_default();
            let first = code[at + ".replace(".len()..].trim_start();
            let placeholder = first
                .strip_prefix('"')
                .and_then(|rest| rest.split('"').next())
                .is_some_and(|p| p.len() > 1 && p.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
            let constant = receiver.len() > 1 && receiver.chars().all(|c| c.is_ascii_uppercase() || c == '_');
            if placeholder || constant {
                return Some("a placeholder replaced in a script");
            }
        }
        (in_agent && code.contains(".evaluate(")).then_some("an expression evaluated where a page script is called")
    }

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn the_scan_finds_a_script_built_from_text() {
        // The samples are put together here, so that this file shows no such line itself.
        let replace = ".replace";
        assert!(builds_a_script(&format!(r#"let s = CHECK{replace}("WANT", &want);"#), false).is_some());
        assert!(builds_a_script(&format!(r#"let s = script{replace}("MS", &ms);"#), false).is_some());
        assert!(builds_a_script("port.evaluate(tab, &probe).await", true).is_some());
        assert!(builds_a_script(r#"let name = name.replace('-', "_");"#, false).is_none());
        assert!(builds_a_script("port.evaluate(tab, expression).await", false).is_none());
    }

    /// navguard's own page scripts take their data as arguments: none in the core is built by
    /// replacing text, and the agent calls page scripts rather than evaluating expressions.
    #[test]
    fn no_page_script_of_the_core_is_built_from_text() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        assert!(files.len() > 20, "the scan found the sources: {files:?}");
        let mut found = Vec::new();
        for file in files {
            let in_agent = file.starts_with(root.join("agent"));
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                if let Some(what) = builds_a_script(line, in_agent) {
                    found.push(format!("{}:{}: {what}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
        assert!(found.is_empty(), "{}", found.join("\n"));
    }
}
