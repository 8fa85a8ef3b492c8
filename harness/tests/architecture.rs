//! `docs/architecture.md` names every module of the workspace: each folder of a crate's sources
//! as `name/`, each module file by its name (`name.rs`, or the bare name in a list). A module
//! added without its line there fails here, so the map a newcomer reads does not drift from the
//! code. `mod.rs`, `lib.rs` and `main.rs` are named by their folder or crate.

use std::path::{Path, PathBuf};

/// The crates' source folders, from the workspace's root.
const SOURCES: &[&str] = &["src", "fixtures-site/src", "mcp/src", "orchestrator/src", "harness/src"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the harness sits in the workspace").to_path_buf()
}

/// Every `.rs` file under `dir`, relative to `root`.
fn rust_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(root).expect("under its root").to_path_buf());
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// Whether `doc` holds `name` as a whole name, followed by `after` when given.
fn names(doc: &str, name: &str, after: Option<char>) -> bool {
    doc.match_indices(name).any(|(at, _)| {
        let before_ok = doc[..at].chars().next_back().is_none_or(|c| !is_name_char(c));
        let rest = &doc[at + name.len()..];
        let next = rest.chars().next();
        let after_ok = match after {
            Some(wanted) => next == Some(wanted),
            None => next.is_none_or(|c| !is_name_char(c)),
        };
        before_ok && after_ok
    })
}

/// What `docs/architecture.md` does not name, for one crate's source folder.
fn unnamed(doc: &str, source: &str) -> Vec<String> {
    let root = workspace().join(source);
    let mut files = Vec::new();
    rust_files(&root, &root, &mut files);
    let mut missing = Vec::new();
    for file in files {
        let parts: Vec<&str> = file.iter().map(|p| p.to_str().expect("UTF-8 names")).collect();
        let (name, folders) = parts.split_last().expect("a file name");
        for folder in folders {
            if !names(doc, folder, Some('/')) {
                missing.push(format!("{source}/{} (its folder {folder}/)", file.display()));
            }
        }
        let stem = name.trim_end_matches(".rs");
        if !matches!(stem, "mod" | "lib" | "main") && !names(doc, stem, None) {
            missing.push(format!("{source}/{}", file.display()));
        }
    }
    missing
}

#[test]
fn every_module_is_named_in_the_architecture() {
    let doc = std::fs::read_to_string(workspace().join("docs/architecture.md")).expect("docs/architecture.md");
    let missing: Vec<String> = SOURCES.iter().flat_map(|s| unnamed(&doc, s)).collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md does not name these modules (say in its layout what each is):\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn a_module_left_out_is_found() {
    // The check itself can fail: a map without the tools' folder misses its files.
    let doc = "src/ agent/ round/ run.rs";
    assert!(names(doc, "run", None));
    assert!(!names(doc, "tools", Some('/')));
    assert!(!names("runner.rs", "run", None), "a longer name is not this one");
    assert!(!unnamed(doc, "src").is_empty());
}

/// The line of `docs/architecture.md` that gives the agent core's layers, lowest first.
const LAYERS_LINE: &str = "The agent core's layers, lowest first:";

/// The layers as `docs/architecture.md` writes them: the folders of `src/agent/` in backticks
/// (`` `guards/` ``) on the line that begins with [`LAYERS_LINE`].
fn written_layers(doc: &str) -> Vec<String> {
    let line =
        doc.lines().find(|l| l.trim_start().starts_with(LAYERS_LINE)).expect("docs/architecture.md gives the layers");
    line.split('`').skip(1).step_by(2).map(|name| name.trim_end_matches('/').to_owned()).collect()
}

/// Each place `source` (a file of the layer `own`) reaches another part of the agent core that it
/// may not: a layer above its own, the agent's root (whose re-exports hide which layer a name is
/// from; the top layer may, as everything is below it) or, by `super::super`, out of its folder.
/// Comments are not read.
fn reaching_up(source: &str, own: &str, layers: &[String]) -> Vec<String> {
    let rank = |name: &str| layers.iter().position(|l| l == name);
    let own_rank = rank(own).expect("a layer of its own");
    let mut found = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        if code.contains("super::super") {
            found.push(format!(
                "line {}: super::super reaches out of {own}/; name the layer (crate::agent::<layer>)",
                number + 1
            ));
        }
        for (at, _) in code.match_indices("crate::agent::") {
            let rest = &code[at + "crate::agent::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            match rank(&name) {
                Some(r) if r <= own_rank => {}
                Some(_) => found.push(format!("line {}: {own}/ imports from {name}/, a layer above it", number + 1)),
                None if own_rank + 1 == layers.len() => {}
                None => found.push(format!(
                    "line {}: crate::agent::{} is the agent's root; name the layer the item is in",
                    number + 1,
                    if name.is_empty() { rest.chars().take(1).collect() } else { name }
                )),
            }
        }
    }
    found
}

#[test]
fn the_agent_core_s_layers_import_only_downwards() {
    let doc = std::fs::read_to_string(workspace().join("docs/architecture.md")).expect("docs/architecture.md");
    let layers = written_layers(&doc);
    let agent = workspace().join("src/agent");
    let mut folders: Vec<String> = std::fs::read_dir(&agent)
        .expect("src/agent")
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().and_then(|n| n.to_str()).expect("UTF-8 names").to_owned())
        .collect();
    folders.sort();
    let mut sorted = layers.clone();
    sorted.sort();
    assert_eq!(folders, sorted, "docs/architecture.md's layers are src/agent/'s folders, each once");
    let mut found = Vec::new();
    for layer in &layers {
        let mut files = Vec::new();
        rust_files(&agent, &agent.join(layer), &mut files);
        for file in files {
            let source = std::fs::read_to_string(agent.join(&file)).expect("a source file");
            found.extend(
                reaching_up(&source, layer, &layers).into_iter().map(|f| format!("src/agent/{}: {f}", file.display())),
            );
        }
    }
    assert!(
        found.is_empty(),
        "imports that run against the layers ({}):\n  {}",
        layers.join(" → "),
        found.join("\n  ")
    );
}

#[test]
fn an_import_against_the_layers_is_found() {
    let layers: Vec<String> = ["settle", "tools", "round"].map(String::from).to_vec();
    let line = |text: &str, own: &str| reaching_up(text, own, &layers);
    assert!(line("use crate::agent::settle::Quiet;", "tools").is_empty(), "downwards is allowed");
    assert!(line("use crate::agent::tools::Tool;", "tools").is_empty(), "its own layer too");
    assert_eq!(line("use crate::agent::round::TaskTabs;", "tools").len(), 1, "upwards is not");
    assert_eq!(line("let x = crate::agent::ToolName::Click;", "settle").len(), 1, "nor the root's re-exports");
    assert!(line("use crate::agent::*;", "round").is_empty(), "but the top layer may");
    assert_eq!(line("use super::super::round::Trace;", "settle").len(), 1, "nor super::super");
    assert!(line("// crate::agent::round is above", "settle").is_empty(), "a comment is not an import");
    assert_eq!(written_layers(&format!("{LAYERS_LINE} `settle/` → `round/`")), ["settle", "round"]);
}
