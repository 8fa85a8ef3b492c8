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

/// A module's path (`crate::agent::tools::args`) for a source file relative to its crate's
/// source folder (`agent/tools/args.rs`); `lib.rs` and `main.rs` are the crate (`crate`).
fn module_of(file: &Path) -> String {
    let mut parts: Vec<String> = file.iter().map(|p| p.to_str().expect("UTF-8 names").to_owned()).collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_owned());
    }
    std::iter::once("crate".to_owned()).chain(parts).collect::<Vec<_>>().join("::")
}

/// The code of `source` without its comments (`//` to the line's end), as one string.
fn code_of(source: &str) -> String {
    source.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// Every path a `use` tree (`crate::a::{b, c::{d, e}}`) names, written out in full.
fn use_paths(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
        match tree.find('{') {
            None => out.push(format!("{prefix}{tree}")),
            Some(open) => {
                let head = &tree[..open];
                let close = tree.rfind('}').filter(|c| *c > open).unwrap_or(tree.len());
                let inner = &tree[open + 1..close];
                let (mut depth, mut start) = (0, 0);
                for (at, c) in inner.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            expand(&format!("{prefix}{head}"), &inner[start..at], out);
                            start = at + 1;
                        }
                        _ => {}
                    }
                }
                if start < inner.len() {
                    expand(&format!("{prefix}{head}"), &inner[start..], out);
                }
            }
        }
    }
    let mut out = Vec::new();
    expand("", &tree, &mut out);
    out.into_iter().map(|p| p.split(" as ").next().unwrap_or_default().trim_end_matches("::self").to_owned()).collect()
}

/// A `use` declaration of `code`: where it begins and ends (its `;`), its tree, and whether it
/// re-exports (`pub use`, `pub(crate) use`, …).
struct UseDecl<'a> {
    span: std::ops::Range<usize>,
    tree: &'a str,
    re_export: bool,
}

/// Each `use` that begins a line's code (after `pub`, `pub(crate)`, …).
fn use_decls(code: &str) -> Vec<UseDecl<'_>> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("use ") {
        let line_start = code[..at].rfind('\n').map_or(0, |n| n + 1);
        let before = code[line_start..at].trim();
        if !(before.is_empty() || (before.starts_with("pub") && !before.contains(['=', '"']))) {
            continue;
        }
        let end = code[at..].find(';').map_or(code.len(), |e| at + e);
        found.push(UseDecl { span: line_start..end, tree: &code[at + 4..end], re_export: !before.is_empty() });
    }
    found
}

/// The trees of `code`'s `use` declarations, re-exports included.
fn use_trees(code: &str) -> Vec<&str> {
    use_decls(code).into_iter().map(|d| d.tree).collect()
}

/// The paths `code` (of the module `module`) names inside its own crate, made absolute: its
/// `use` trees, and `crate::…`/`super::…`/`self::…` paths written in the code. A first segment
/// that is one of `children` (the module's own submodules) is relative to the module.
fn named_paths(code: &str, module: &str, children: &[String]) -> Vec<String> {
    let parent = |m: &str| m.rsplit_once("::").map_or("crate".to_owned(), |(p, _)| p.to_owned());
    let absolute = |path: &str| -> Option<String> {
        let mut segments = path.split("::").filter(|s| !s.is_empty());
        let first = segments.next()?;
        let mut base = match first {
            "crate" => "crate".to_owned(),
            "self" => module.to_owned(),
            "super" => parent(module),
            child if children.iter().any(|c| c == child) => format!("{module}::{child}"),
            _ => return None,
        };
        for segment in segments {
            if segment == "super" {
                base = parent(&base);
            } else {
                base = format!("{base}::{segment}");
            }
        }
        Some(base)
    };
    // A re-export (`pub use child::Item` in a folder's mod.rs) is the module's face, not a need
    // of its code: it is followed to the item's file when another file names the item, and is
    // no import of its own. A `use` is read as a tree, then blanked so its paths count once.
    let mut paths = Vec::new();
    let mut rest = code.to_owned();
    for decl in use_decls(code) {
        if !decl.re_export {
            paths.extend(use_paths(decl.tree).iter().filter_map(|p| absolute(p)));
        }
        rest.replace_range(decl.span.clone(), &" ".repeat(decl.span.len()));
    }
    let code = rest.as_str();
    let boundary =
        |at: usize| code[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'));
    for word in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(word).filter(|(at, _)| boundary(*at)) {
            let path = &code[at..];
            let path =
                &path[..path.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(path.len())];
            if code[..at].ends_with("(in ") {
                continue; // a visibility (`pub(in crate::agent)`), not an import
            }
            let macro_call = code[at + path.len()..].starts_with('!');
            if macro_call {
                // An exported macro is named from the crate's root, but defined in its file.
                paths.push(format!("macro:{}", path.rsplit("::").next().unwrap_or_default()));
            } else if !path.ends_with("::") {
                // A path that goes on in braces or a glob (`crate::a::{b, c}`) is its `use` tree's.
                paths.extend(absolute(path));
            }
        }
    }
    paths
}

/// One crate's files as the modules they are: each module's path, its file, the paths its code
/// names (test modules left out: a `#[cfg(test)]` module reads its file's insides) and the
/// names it brings in by `use` (a re-export is followed to where its item is defined).
struct Crate {
    files: Vec<(String, PathBuf)>,
    /// Each `macro_rules!` macro's name and the file that defines it.
    macros: std::collections::BTreeMap<String, usize>,
    named: Vec<Vec<String>>,
    brought_in: Vec<std::collections::BTreeMap<String, String>>,
}

impl Crate {
    fn read(root: &Path) -> Crate {
        let mut relative = Vec::new();
        rust_files(root, root, &mut relative);
        relative.sort();
        let files: Vec<(String, PathBuf)> = relative.iter().map(|f| (module_of(f), f.clone())).collect();
        let mut named = Vec::new();
        let mut brought_in = Vec::new();
        let mut macros = std::collections::BTreeMap::new();
        for (index, (module, file)) in files.iter().enumerate() {
            let source = std::fs::read_to_string(root.join(file)).expect("a source file");
            for (at, _) in source.match_indices("macro_rules! ") {
                let name: String = source[at + 13..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                macros.insert(name, index);
            }
            let code = code_of(&source);
            let code = code.split("#[cfg(test)]\nmod ").next().unwrap_or_default();
            let children: Vec<String> = files
                .iter()
                .filter_map(|(m, _)| {
                    m.strip_prefix(&format!("{module}::")).filter(|rest| !rest.contains("::")).map(String::from)
                })
                .collect();
            let paths = named_paths(code, module, &children);
            let mut uses = std::collections::BTreeMap::new();
            for tree in use_trees(code) {
                for path in use_paths(tree) {
                    let last = path.rsplit("::").next().unwrap_or_default().to_owned();
                    if let Some(full) = named_paths(&format!("use {path};"), module, &children).into_iter().next() {
                        uses.insert(last, full);
                    }
                }
            }
            named.push(paths);
            brought_in.push(uses);
        }
        Crate { files, macros, named, brought_in }
    }

    /// The file that defines what `path` names: the longest module it begins with, or where
    /// that module's `use` of the next name leads.
    fn file_of(&self, path: &str, depth: usize) -> Option<usize> {
        if let Some(name) = path.strip_prefix("macro:") {
            return self.macros.get(name).copied();
        }
        let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        let (at, taken) = (1..=segments.len())
            .rev()
            .find_map(|n| self.files.iter().position(|(m, _)| *m == segments[..n].join("::")).map(|at| (at, n)))?;
        match segments.get(taken) {
            Some(name) if depth < 8 => match self.brought_in[at].get(*name) {
                Some(full) => self.file_of(full, depth + 1).or(Some(at)),
                None => Some(at),
            },
            _ => Some(at),
        }
    }

    /// Each file's imports, as the files they lead to (itself left out), each with a path that
    /// leads there.
    fn edges(&self) -> Vec<std::collections::BTreeMap<usize, String>> {
        (0..self.files.len())
            .map(|from| {
                let leads = self.named[from].iter().filter_map(|p| self.file_of(p, 0).map(|to| (to, p.clone())));
                leads.filter(|(to, _)| *to != from).rev().collect()
            })
            .collect()
    }
}

/// Each circle of files importing each other, as the files in it.
fn circles(edges: &[std::collections::BTreeMap<usize, String>]) -> Vec<Vec<usize>> {
    // Tarjan's strongly connected components: a component of more than one file is a circle.
    struct Walk<'a> {
        edges: &'a [std::collections::BTreeMap<usize, String>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        found: Vec<Vec<usize>>,
    }
    fn visit(w: &mut Walk<'_>, v: usize) {
        w.index[v] = Some(w.next);
        w.low[v] = w.next;
        w.next += 1;
        w.stack.push(v);
        w.on_stack[v] = true;
        for &to in w.edges[v].keys() {
            match w.index[to] {
                None => {
                    visit(w, to);
                    w.low[v] = w.low[v].min(w.low[to]);
                }
                Some(i) if w.on_stack[to] => w.low[v] = w.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(w.low[v]) == w.index[v] {
            let mut component = Vec::new();
            while let Some(top) = w.stack.pop() {
                w.on_stack[top] = false;
                component.push(top);
                if top == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                w.found.push(component);
            }
        }
    }
    let n = edges.len();
    let mut w = Walk {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        next: 0,
        found: Vec::new(),
    };
    for v in 0..n {
        if w.index[v].is_none() {
            visit(&mut w, v);
        }
    }
    w.found
}

#[test]
fn no_two_files_import_each_other_directly_or_in_a_circle() {
    let mut found = Vec::new();
    for source in SOURCES {
        let krate = Crate::read(&workspace().join(source));
        let edges = krate.edges();
        for circle in circles(&edges) {
            let name = |f: usize| format!("{source}/{}", krate.files[f].1.display());
            let imports: Vec<String> = circle
                .iter()
                .flat_map(|&from| {
                    let edges = &edges;
                    circle.iter().filter_map(move |to| edges[from].get(to).map(|path| (from, path)))
                })
                .map(|(from, path)| format!("    {} uses {path}", name(from)))
                .collect();
            let files = circle.iter().map(|&f| name(f)).collect::<Vec<_>>().join(" ↔ ");
            found.push(format!("{files}:\n{}", imports.join("\n")));
        }
    }
    assert!(
        found.is_empty(),
        "files that import each other (move what both need below both):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn a_circle_of_files_is_found() {
    // Three files: a uses b, b uses c, c uses a; d uses a and is in no circle.
    let edges: Vec<std::collections::BTreeMap<usize, String>> = vec![
        [(1, "b".to_owned())].into(),
        [(2, "c".to_owned())].into(),
        [(0, "a".to_owned())].into(),
        [(0, "a".to_owned())].into(),
    ];
    assert_eq!(circles(&edges), [vec![0, 1, 2]]);
    assert!(circles(&edges[3..].iter().map(|_| Default::default()).collect::<Vec<_>>()).is_empty());
    // Paths are read from use trees, code and visibilities alike.
    let named = named_paths(
        "use super::{a::X, b::{Y, Z}};\npub(in crate::m) fn f() { crate::c::W::new(); }",
        "crate::m::n",
        &[],
    );
    assert_eq!(named, ["crate::m::a::X", "crate::m::b::Y", "crate::m::b::Z", "crate::c::W::new"]);
    assert!(
        named_paths("pub use crate::c::W;\npub(crate) use super::d::V;", "crate::m", &[]).is_empty(),
        "re-exports are no imports"
    );
}
