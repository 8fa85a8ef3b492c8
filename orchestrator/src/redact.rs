//! Redaction: e-mail addresses, phone numbers and passwords never reach the audit, the model or
//! a log. `{secret:NAME}` placeholders stay as they are: their values live only in the
//! executor, which substitutes them at the last moment.

use regex::Regex;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::LazyLock;

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

/// Every string inside `value`, redacted (identifiers aside).
pub fn redact_value(value: &mut Value) {
    match value {
        Value::String(s) => *s = redact_text(s),
        Value::Array(items) => items.iter_mut().for_each(redact_value),
        Value::Object(map) => {
            map.iter_mut().filter(|(key, _)| !IDENTIFIERS.contains(&key.as_str())).for_each(|(_, v)| redact_value(v));
        }
        _ => {}
    }
}

/// `value` with every string in it redacted (identifiers aside), as its own type again.
pub fn redacted<T: Serialize + DeserializeOwned>(value: &T) -> Result<T, serde_json::Error> {
    let mut json = serde_json::to_value(value)?;
    redact_value(&mut json);
    serde_json::from_value(json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        redact_value(&mut v);
        assert_eq!(v, json!({"a": ["[redacted]", 5], "b": {"c": "tel [redacted]"}, "actionId": "t-0301234567"}));
    }
}
