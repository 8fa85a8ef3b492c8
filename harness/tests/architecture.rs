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
