//! Redaction: e-mail addresses, phone numbers and passwords never reach the audit, the model or
//! a log, nor what an operator's own patterns (`navguard serve --redact FILE`) match. `{secret:NAME}`
//! placeholders stay as they are: their values live only in the executor, which substitutes them
//! at the last moment.

use regex::Regex;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

pub const REDACTED: &str = "[redacted]";

static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}").expect("a regex")
});
/// Seven or more digits, with the separators people write (`+49 30 1234-567`, `(555) 123 4567`).
static PHONE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\+?\(?\d[\d\s().-]{5,}\d").expect("a regex"));

/// The keys whose values are identifiers the service made (task and action ids, screenshot
/// file names, refs): never personal data, and a digit run inside one is no phone number.
const IDENTIFIERS: &[&str] = &["taskId", "actionId", "screenshots", "ref", "document", "snapshot"];

/// `text` with e-mail addresses and phone numbers replaced. A digit run inside a word (an id
/// like `t18eaa32d9699384f0`) is not a phone number.
pub fn redact_text(text: &str) -> String {
    let text = EMAIL.replace_all(text, REDACTED);
    PHONE
        .replace_all(&text, |c: &regex::Captures<'_>| {
            let found = c.get(0).expect("the whole match");
            let glued = |ch: Option<char>| ch.is_some_and(char::is_alphanumeric);
            let inside_a_word =
                glued(text[..found.start()].chars().next_back()) || glued(text[found.end()..].chars().next());
            let digits = found.as_str().chars().filter(char::is_ascii_digit).count();
            if digits >= 7 && !inside_a_word { REDACTED.to_owned() } else { found.as_str().to_owned() }
        })
        .into_owned()
}

/// Why a file of patterns could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RedactError {
    #[error("--redact {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("--redact {path}, line {line}: not a regular expression: {source}")]
    Pattern {
        path: PathBuf,
        line: usize,
        #[source]
        source: Box<regex::Error>,
    },
    #[error(
        "--redact {path}, line {line}: the pattern matches the empty text, which would redact between every letter"
    )]
    MatchesEmpty { path: PathBuf, line: usize },
}

/// The redaction in force: the built-in patterns, and an operator's own on top of them. Cheap to
/// clone (the patterns are shared).
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    extra: Arc<Vec<Regex>>,
}

impl Redactor {
    /// The built-in patterns and those of `path`: one regular expression a line; blank lines and
    /// lines that begin with `#` are skipped. A line that is no pattern is named with its number.
    pub fn from_file(path: &Path) -> Result<Self, RedactError> {
        let text = std::fs::read_to_string(path).map_err(|source| RedactError::Io { path: path.to_owned(), source })?;
        Self::parse(&text, path)
    }

    /// [`Redactor::from_file`], of `text` read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Self, RedactError> {
        let mut extra = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let pattern = line.trim();
            if pattern.is_empty() || pattern.starts_with('#') {
                continue;
            }
            let (path, line) = (path.to_owned(), n + 1);
            let regex = Regex::new(pattern).map_err(|source| RedactError::Pattern {
                path: path.clone(),
                line,
                source: Box::new(source),
            })?;
            if regex.is_match("") {
                return Err(RedactError::MatchesEmpty { path, line });
            }
            extra.push(regex);
        }
        Ok(Self { extra: Arc::new(extra) })
    }

    /// How many patterns of the operator's are in force.
    pub fn own_patterns(&self) -> usize {
        self.extra.len()
    }

    /// `text` redacted: the built-in patterns, then the operator's.
    pub fn text(&self, text: &str) -> String {
        let builtin = redact_text(text);
        self.extra.iter().fold(builtin, |text, re| re.replace_all(&text, REDACTED).into_owned())
    }

    /// Every string inside `value`, redacted (identifiers aside).
    pub fn value(&self, value: &mut Value) {
        match value {
            Value::String(s) => *s = self.text(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.value(v)),
            Value::Object(map) => {
                map.iter_mut().filter(|(key, _)| !IDENTIFIERS.contains(&key.as_str())).for_each(|(_, v)| self.value(v));
            }
            _ => {}
        }
    }

    /// `value` with every string in it redacted (identifiers aside), as its own type again.
    pub fn redacted<T: Serialize + DeserializeOwned>(&self, value: &T) -> Result<T, serde_json::Error> {
        let mut json = serde_json::to_value(value)?;
        self.value(&mut json);
        serde_json::from_value(json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_operator_s_patterns_redact_on_top_of_the_built_in_ones() {
        let file = "# customer numbers\nCUST-\\d{6}\n\n(?i)project\\s+falcon\n";
        let r = Redactor::parse(file, Path::new("redact.txt")).unwrap();
        assert_eq!(r.own_patterns(), 2);
        assert_eq!(r.text("CUST-123456 of Project  Falcon, ada@example.org"), "[redacted] of [redacted], [redacted]");
        let mut v = json!({"title": "CUST-000001", "taskId": "CUST-000002"});
        r.value(&mut v);
        assert_eq!(v, json!({"title": "[redacted]", "taskId": "CUST-000002"}), "identifiers stay");
        assert_eq!(Redactor::default().text("CUST-123456"), "CUST-123456");
    }

    #[test]
    fn a_bad_pattern_is_named_by_its_file_and_line() {
        let err = Redactor::parse("ok\n# fine\n(unclosed\n", Path::new("r.txt")).unwrap_err();
        assert!(matches!(err, RedactError::Pattern { line: 3, .. }), "{err}");
        assert!(err.to_string().starts_with("--redact r.txt, line 3: not a regular expression"), "{err}");
        let err = Redactor::parse("a*\n", Path::new("r.txt")).unwrap_err();
        assert!(matches!(err, RedactError::MatchesEmpty { line: 1, .. }), "{err}");
        let err = Redactor::from_file(Path::new("/nonexistent/redact.txt")).unwrap_err();
        assert!(matches!(err, RedactError::Io { .. }), "{err}");
    }

    #[test]
    fn e_mail_addresses_and_phone_numbers_are_redacted_and_short_numbers_kept() {
        assert_eq!(redact_text("write to ada@example.org now"), "write to [redacted] now");
        assert_eq!(redact_text("call +49 30 1234-567 or (555) 123 4567"), "call [redacted] or [redacted]");
        assert_eq!(redact_text("Count: 12, order 2024"), "Count: 12, order 2024");
        assert_eq!(redact_text("{secret:PASSWORD}"), "{secret:PASSWORD}");
        assert_eq!(redact_text("task t18eaa32d9699384f0-a0"), "task t18eaa32d9699384f0-a0");
    }

    #[test]
    fn every_string_of_a_value_is_redacted() {
        let mut v = json!({"a": ["ada@example.org", 5], "b": {"c": "tel 0301234567"}, "actionId": "t-0301234567"});
        Redactor::default().value(&mut v);
        assert_eq!(v, json!({"a": ["[redacted]", 5], "b": {"c": "tel [redacted]"}, "actionId": "t-0301234567"}));
    }
}
