//! A `SKILL.md`'s front matter: the lines between a first `---` and the next, in the small part
//! of YAML skills use: `key: value`, `key: [a, b]`, and a key alone followed by `- item` lines.
//! Values may be quoted. Keys navguard does not use (`license`, `metadata`, …) are passed over;
//! the ones it uses are read strictly, and a mistake is named by its line in the file.

use crate::model::ToolName;

/// What a skill's front matter says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrontMatter {
    pub name: String,
    pub description: String,
    pub sites: Vec<String>,
    /// `None`: the skill does not narrow the tools.
    pub allowed_tools: Option<Vec<ToolName>>,
    pub risk_words: Vec<String>,
}

/// A mistake in a front matter: its line in the file (1-based) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Mistake {
    pub(super) line: usize,
    pub(super) why: String,
}

fn mistake(line: usize, why: impl Into<String>) -> Mistake {
    Mistake { line, why: why.into() }
}

/// A scalar, its quotes taken off.
fn scalar(text: &str) -> String {
    let text = text.trim();
    for quote in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(quote).and_then(|t| t.strip_suffix(quote)) {
            return inner.to_owned();
        }
    }
    text.to_owned()
}

/// `[a, b]` as its items; `None` if it is no flow list.
fn flow_list(text: &str) -> Option<Vec<String>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    Some(inner.split(',').map(scalar).filter(|s| !s.is_empty()).collect())
}

/// A value being read: a scalar, or a list (flow, or `- item` lines after the key).
enum Value {
    Scalar(String),
    List(Vec<String>),
}

/// Splits `text` into its front matter (parsed) and its body; the line numbers are the file's.
pub(super) fn parse(text: &str) -> Result<(FrontMatter, String), Mistake> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    match lines.next() {
        Some((_, first)) if first.trim_end() == "---" => {}
        _ => return Err(mistake(1, "no front matter: the file must begin with a line `---`")),
    }
    let mut entries: Vec<(usize, String, Value)> = Vec::new();
    let mut closed = None;
    for (n, line) in lines.by_ref() {
        if line.trim_end() == "---" {
            closed = Some(n);
            break;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(item) = trimmed.strip_prefix("- ").or_else(|| (trimmed == "-").then_some("")) {
            match entries.last_mut() {
                Some((_, _, Value::List(items))) if line.starts_with([' ', '-']) => items.push(scalar(item)),
                _ => return Err(mistake(n, "a list item `- …` that belongs to no key")),
            }
            continue;
        }
        if line.starts_with([' ', '\t']) {
            // A nested mapping (under a key navguard passes over, such as `metadata`).
            match entries.last() {
                Some((_, key, _)) if !KNOWN.contains(&key.as_str()) => continue,
                _ => return Err(mistake(n, "an indented line where a `key: value` is expected")),
            }
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return Err(mistake(n, format!("expected `key: value`, got {trimmed:?}")));
        };
        let key = key.trim().to_owned();
        let value = match value.trim() {
            "" => Value::List(Vec::new()),
            v => flow_list(v).map_or_else(|| Value::Scalar(scalar(v)), Value::List),
        };
        entries.push((n, key, value));
    }
    let closed = closed.ok_or_else(|| mistake(1, "the front matter is never closed by a line `---`"))?;
    let body: Vec<&str> = text.lines().skip(closed).collect();
    Ok((front_matter(&entries, closed)?, body.join("\n")))
}

/// The keys navguard reads.
const KNOWN: &[&str] = &["name", "description", "sites", "allowed-tools", "risk-words"];

fn front_matter(entries: &[(usize, String, Value)], closed: usize) -> Result<FrontMatter, Mistake> {
    let mut fm = FrontMatter::default();
    let list = |n: usize, key: &str, value: &Value| match value {
        Value::List(items) => Ok(items.clone()),
        Value::Scalar(one) if one.is_empty() => Err(mistake(n, format!("`{key}` is empty"))),
        // One item may be written alone.
        Value::Scalar(one) => Ok(vec![one.clone()]),
    };
    for (n, key, value) in entries {
        match (key.as_str(), value) {
            ("name", Value::Scalar(v)) => fm.name = v.clone(),
            ("description", Value::Scalar(v)) => fm.description = v.clone(),
            ("name" | "description", Value::List(_)) => {
                return Err(mistake(*n, format!("`{key}` must be one line of text")));
            }
            ("sites", v) => fm.sites = list(*n, key, v)?,
            ("risk-words", v) => fm.risk_words = list(*n, key, v)?.iter().map(|w| w.to_lowercase()).collect(),
            ("allowed-tools", v) => {
                let tools = list(*n, key, v)?
                    .iter()
                    .map(|t| t.parse::<ToolName>().map_err(|e| mistake(*n, format!("`allowed-tools`: {e}"))))
                    .collect::<Result<Vec<_>, _>>()?;
                fm.allowed_tools = Some(tools);
            }
            _ => {}
        }
    }
    for (key, value) in [("name", &fm.name), ("description", &fm.description)] {
        if value.trim().is_empty() {
            return Err(mistake(closed, format!("the front matter has no `{key}`")));
        }
    }
    Ok(fm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_navguard_reads_in_each_form_skills_write_them() {
        let text = "---\nname: shop-checkout\ndescription: \"Buy on the shop: cart, then pay\"\nsites: [http://127.0.0.1:8080, '*.shop.test']\nallowed-tools:\n  - navigate\n  - click\n  - done\nrisk-words: [Pay, 支付]\nlicense: MIT\nmetadata:\n  author: someone\n---\n# Checkout\n1. Open the cart.\n";
        let (fm, body) = parse(text).unwrap();
        assert_eq!(fm.name, "shop-checkout");
        assert_eq!(fm.description, "Buy on the shop: cart, then pay");
        assert_eq!(fm.sites, ["http://127.0.0.1:8080", "*.shop.test"]);
        assert_eq!(fm.allowed_tools, Some(vec![ToolName::Navigate, ToolName::Click, ToolName::Done]));
        assert_eq!(fm.risk_words, ["pay", "支付"]);
        assert_eq!(body, "# Checkout\n1. Open the cart.");
    }

    #[test]
    fn a_broken_front_matter_is_named_by_its_line() {
        let cases = [
            ("# no front matter\n", 1, "no front matter"),
            ("---\nname: a\ndescription: b\n", 1, "never closed"),
            ("---\nname: a\nthis is no key\n---\n", 3, "expected `key: value`"),
            ("---\nname: a\ndescription: b\nallowed-tools: [click, fly]\n---\n", 4, "unknown tool \"fly\""),
            ("---\nname: a\n---\nbody\n", 3, "no `description`"),
            ("---\n- stray\n---\n", 2, "belongs to no key"),
            ("---\nname: a\n  indented: x\n---\n", 3, "indented line"),
        ];
        for (text, line, why) in cases {
            let found = parse(text).unwrap_err();
            assert_eq!(found.line, line, "{text:?}: {found:?}");
            assert!(found.why.contains(why), "{text:?}: {found:?}");
        }
    }
}
