//! Skills (docs/orchestrator.md, "Skills"): a library of site procedures, one `SKILL.md` each
//! under the folder `navguard serve --skills DIR` names. Each is read at start (its front
//! matter: `name`, `description`, optional `sites`, `allowed-tools`, `risk-words`; its body is
//! the procedure) and indexed for full-text search in English and Chinese. A file whose front
//! matter is broken is named, with its line, and left out; the others are served.
//!
//! What they do: `GET /api/skills/search` and the `/skills` page find them; the model planning
//! a task is given the best for its goal and page; on a page a skill's `sites` match, its
//! `allowed-tools` narrows the tools the model is offered and its `risk-words` make a click
//! high risk as the built-in words do.

mod front_matter;
mod index;

pub use front_matter::FrontMatter;
pub use index::IndexError;

use crate::model::ToolName;
use index::{Indexed, SkillIndex};
use std::path::{Path, PathBuf};
use url::Url;

/// The file a skill is.
pub const SKILL_FILE: &str = "SKILL.md";
/// The most of a query that is searched for (characters); the rest is left out.
pub const QUERY_CHARS: usize = 500;
/// The most hits one search answers.
pub const MAX_HITS: usize = 50;
/// How deep under the folder skills are looked for.
const MAX_DEPTH: usize = 8;

/// One skill of the library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skill {
    pub front: FrontMatter,
    /// Its file, relative to the library's folder.
    pub path: PathBuf,
    /// The procedure: the file after its front matter.
    pub body: String,
}

impl Skill {
    /// The skill's `sites` match the page at `url`: an origin (`https://shop.example`) matches
    /// that origin; a host (`shop.example`) that host on any port or scheme; `*.example` any
    /// host under it. A skill without `sites` matches no page (it is a procedure to read, not a
    /// rule to apply).
    pub fn applies_to(&self, url: &str) -> bool {
        let Ok(page) = Url::parse(url) else { return false };
        let host = page.host_str().unwrap_or_default().to_lowercase();
        self.front.sites.iter().any(|site| {
            let site = site.trim().to_lowercase();
            if site.contains("://") {
                return Url::parse(&site).is_ok_and(|s| s.origin() == page.origin());
            }
            match site.strip_prefix("*.") {
                Some(parent) => host.ends_with(&format!(".{parent}")),
                None => host == site,
            }
        })
    }
}

/// A skill left out of the library: its file, the line, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub file: PathBuf,
    pub line: usize,
    pub why: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}; the skill is left out", self.file.display(), self.line, self.why)
    }
}

/// Why the library could not be read at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillsError {
    #[error("--skills {path}: {source}")]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Index(#[from] IndexError),
}

impl SkillsError {
    /// The operator's mistake (exit 2): a folder that cannot be read.
    pub fn is_usage(&self) -> bool {
        matches!(self, Self::Folder { .. })
    }
}

/// One search hit, as `GET /api/skills/search` answers it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SkillHit {
    pub name: String,
    pub description: String,
    pub path: String,
    pub score: f32,
    pub snippet: String,
}

/// The library: its skills and their index.
#[derive(Debug)]
pub struct Skills {
    skills: Vec<Skill>,
    index: SkillIndex,
}

impl Skills {
    /// Reads every `SKILL.md` under `dir` and indexes them; the files left out, with why.
    pub fn load(dir: &Path) -> Result<(Self, Vec<Skipped>), SkillsError> {
        let mut files = Vec::new();
        find(dir, 0, &mut files).map_err(|source| SkillsError::Folder { path: dir.to_owned(), source })?;
        files.sort();
        let (mut skills, mut skipped) = (Vec::new(), Vec::new());
        for file in files {
            let shown = file.strip_prefix(dir).unwrap_or(&file).to_owned();
            let text = match std::fs::read(&file) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => text,
                    Err(_) => {
                        skipped.push(Skipped { file: shown, line: 1, why: "not UTF-8 text".into() });
                        continue;
                    }
                },
                Err(e) => {
                    skipped.push(Skipped { file: shown, line: 1, why: e.to_string() });
                    continue;
                }
            };
            match front_matter::parse(&text) {
                Ok((front, body)) => skills.push(Skill { front, path: shown, body }),
                Err(m) => skipped.push(Skipped { file: shown, line: m.line, why: m.why }),
            }
        }
        Ok((Self::new(skills)?, skipped))
    }

    /// A library of `skills`, indexed.
    pub fn new(skills: Vec<Skill>) -> Result<Self, SkillsError> {
        let index = SkillIndex::build(skills.iter().map(|s| Indexed {
            name: &s.front.name,
            description: &s.front.description,
            body: &s.body,
        }))?;
        Ok(Self { skills, index })
    }

    pub fn len(&self) -> usize {
        self.skills.len()
    }

    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The best `limit` (at most [`MAX_HITS`]) skills for `query`, best first. Any text is a
    /// query: control characters are taken as spaces and only its first [`QUERY_CHARS`]
    /// characters are searched for.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SkillHit>, SkillsError> {
        let query: String = query.chars().take(QUERY_CHARS).map(|c| if c.is_control() { ' ' } else { c }).collect();
        if query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let found = self.index.search(&query, limit.min(MAX_HITS))?;
        Ok(found
            .into_iter()
            .filter_map(|f| {
                let skill = self.skills.get(f.number)?;
                Some(SkillHit {
                    name: skill.front.name.clone(),
                    description: skill.front.description.clone(),
                    path: skill.path.display().to_string(),
                    score: f.score,
                    snippet: f.snippet,
                })
            })
            .collect())
    }

    /// The skill named `name`.
    pub fn named(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.front.name == name)
    }

    /// The skills whose `sites` match the page at `url`.
    pub fn on_page<'a>(&'a self, url: &'a str) -> impl Iterator<Item = &'a Skill> + 'a {
        self.skills.iter().filter(move |s| s.applies_to(url))
    }

    /// The tools a model may be offered on the page at `url`, of `offered`: all of them, unless
    /// skills whose sites match say `allowed-tools`; then those they allow (any of them), and
    /// `done` always (ending a task is not acting on the site).
    pub fn tools_on(&self, url: &str, offered: &[ToolName]) -> Vec<ToolName> {
        let allowing: Vec<&Vec<ToolName>> = self.on_page(url).filter_map(|s| s.front.allowed_tools.as_ref()).collect();
        if allowing.is_empty() {
            return offered.to_vec();
        }
        offered
            .iter()
            .copied()
            .filter(|t| *t == ToolName::Done || allowing.iter().any(|allowed| allowed.contains(t)))
            .collect()
    }

    /// The risky words the skills whose sites match the page at `url` add.
    pub fn risk_words_on(&self, url: &str) -> Vec<String> {
        self.on_page(url).flat_map(|s| s.front.risk_words.iter().cloned()).collect()
    }
}

/// Collects the `SKILL.md` files under `dir`, down to [`MAX_DEPTH`] folders.
fn find(dir: &Path, depth: usize, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() && depth < MAX_DEPTH {
            // A folder that cannot be read deeper down is passed over, not the whole library.
            if let Err(e) = find(&entry.path(), depth + 1, files) {
                tracing::warn!(target: "navguard::serve", "skills: {}: {e}", entry.path().display());
            }
        } else if kind.is_file() && entry.file_name() == SKILL_FILE {
            files.push(entry.path());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
