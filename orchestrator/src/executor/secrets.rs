//! `--secrets`: a dotenv file of values the executor types for the model without the model (or
//! the orchestrator, the audit, a log) ever seeing them. `{secret:NAME}` in an action's text is
//! replaced at the last moment; whatever the executor reports has the values redacted again.

use crate::redact::REDACTED;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why the secrets file is unusable. Never shows a value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SecretsError {
    #[error("cannot read the secrets file {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: expected NAME=value (a name of letters, digits and _)")]
    Syntax { path: PathBuf, line: usize },
    #[error("{path}:{line}: {name} has an empty value")]
    Empty { path: PathBuf, line: usize, name: String },
}

/// An action named a secret the file does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no secret named {name} in --secrets")]
pub struct UnknownSecret {
    pub name: String,
}

/// The secrets, by name.
#[derive(Default)]
pub struct Secrets {
    values: BTreeMap<String, String>,
}

/// Names only: a value never reaches a log.
impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.values.keys()).finish()
    }
}

const OPEN: &str = "{secret:";

impl Secrets {
    /// Reads a dotenv file: `NAME=value` lines, `#` comments, blank lines, an optional
    /// `export `, a value optionally in single or double quotes.
    pub fn load(path: &Path) -> Result<Self, SecretsError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| SecretsError::Read { path: path.to_owned(), source })?;
        Self::parse(&text).map_err(|(line, empty)| match empty {
            Some(name) => SecretsError::Empty { path: path.to_owned(), line, name },
            None => SecretsError::Syntax { path: path.to_owned(), line },
        })
    }

    /// The file's text; an error is (line, the name whose value is empty).
    fn parse(text: &str) -> Result<Self, (usize, Option<String>)> {
        let mut values = BTreeMap::new();
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let line = line.strip_prefix("export ").unwrap_or(line);
            let Some((name, value)) = line.split_once('=') else { return Err((number, None)) };
            let name = name.trim();
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err((number, None));
            }
            let value = unquote(value.trim());
            if value.is_empty() {
                return Err((number, Some(name.to_owned())));
            }
            values.insert(name.to_owned(), value.to_owned());
        }
        Ok(Self { values })
    }

    /// `text` with every `{secret:NAME}` replaced by its value.
    pub fn substitute(&self, text: &str) -> Result<String, UnknownSecret> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find(OPEN) {
            let after = &rest[start + OPEN.len()..];
            let Some(end) = after.find('}') else { break };
            let name = &after[..end];
            let value = self.values.get(name).ok_or_else(|| UnknownSecret { name: name.to_owned() })?;
            out.push_str(&rest[..start]);
            out.push_str(value);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// Every string in `value` with the secrets' values replaced by `[redacted]`.
    pub fn redact(&self, value: &mut Value) {
        match value {
            Value::String(text) => *text = self.redact_text(text),
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.redact(v)),
            _ => {}
        }
    }

    /// `text` with the secrets' values replaced by `[redacted]`.
    pub fn redact_text(&self, text: &str) -> String {
        self.values.values().fold(text.to_owned(), |text, secret| text.replace(secret.as_str(), REDACTED))
    }
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(quote).and_then(|v| v.strip_suffix(quote)) {
            return inner;
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_dotenv_file_s_names_are_substituted_and_their_values_redacted() {
        let secrets = Secrets::parse("# shop\nexport PASSWORD=\"hunter2 x\"\nTOKEN='t0k'\n\nPIN=1234\n").unwrap();
        assert_eq!(secrets.substitute("pw {secret:PASSWORD}!").unwrap(), "pw hunter2 x!");
        assert_eq!(secrets.substitute("{secret:TOKEN}{secret:PIN}").unwrap(), "t0k1234");
        assert_eq!(secrets.substitute("no secret {here}").unwrap(), "no secret {here}");
        assert_eq!(secrets.substitute("{secret:NOPE}"), Err(UnknownSecret { name: "NOPE".into() }));
        let mut seen = json!({"url": "/s?pw=hunter2 x", "list": ["t0k", 3]});
        secrets.redact(&mut seen);
        assert_eq!(seen, json!({"url": "/s?pw=[redacted]", "list": ["[redacted]", 3]}));
        assert_eq!(format!("{secrets:?}"), r#"{"PASSWORD", "PIN", "TOKEN"}"#);
    }

    #[test]
    fn a_bad_line_is_named_by_its_number_never_by_its_value() {
        assert_eq!(Secrets::parse("A=1\nnot a pair\n").err(), Some((2, None)));
        assert_eq!(Secrets::parse("A=1\nB=\n").err(), Some((2, Some("B".into()))));
        assert_eq!(Secrets::parse("BAD NAME=1").err(), Some((1, None)));
    }
}
