//! The placeholders of a description's arguments (`{arg}`, `{arg|yes|no}`, `{arg:conversion}`)
//! and how a neutral call's arguments fill them.

use serde_json::Value;

/// The conversions a placeholder may name: `{arg:number}` (a string holding a number as that
/// number), `{arg:text}` (any value as a string: `true` as `"true"`) and `{arg:first}` (a
/// list's first item, for an agent whose tool takes one where the neutral tool takes several).
pub(super) const CONVERSIONS: &[&str] = &["number", "text", "first"];

/// A string that is one placeholder alone: `{name}`, `{name|yes|no}` or `{name:conversion}`.
pub(super) struct Placeholder<'a> {
    pub(super) name: &'a str,
    pub(super) choice: Option<(&'a str, &'a str)>,
    pub(super) conversion: Option<&'a str>,
}

pub(super) fn placeholder(s: &str) -> Option<Placeholder<'_>> {
    let inner = s.strip_prefix('{')?.strip_suffix('}')?;
    if inner.contains(['{', '}']) {
        return None;
    }
    let mut parts = inner.split('|');
    let head = parts.next().unwrap_or_default();
    let (name, conversion) = match head.split_once(':') {
        Some((name, conversion)) => (name, Some(conversion)),
        None => (head, None),
    };
    let choice = match (parts.next(), parts.next()) {
        (Some(yes), Some(no)) => Some((yes, no)),
        _ => None,
    };
    Some(Placeholder { name, choice, conversion })
}

pub(super) fn fill_value(template: &Value, args: &Value) -> Value {
    match template {
        Value::String(s) => {
            if let Some(Placeholder { name, choice, conversion }) = placeholder(s) {
                let value = args.get(name).cloned().unwrap_or(Value::Null);
                return match (choice, conversion) {
                    (Some((yes, no)), _) => {
                        Value::String(if value.as_bool() == Some(true) { yes } else { no }.to_owned())
                    }
                    (None, Some("number")) => as_number(value),
                    (None, Some("text")) => as_text(value),
                    (None, Some("first")) => match value {
                        Value::Array(items) => items.into_iter().next().unwrap_or(Value::Null),
                        other => other,
                    },
                    (None, _) => value,
                };
            }
            let mut out = s.clone();
            if let Some(map) = args.as_object() {
                for (k, v) in map {
                    let text = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                    out = out.replace(&format!("{{{k}}}"), &text);
                }
            }
            Value::String(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| fill_value(i, args)).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), fill_value(v, args))).collect()),
        other => other.clone(),
    }
}

/// Any value but null as a string: a string as it is, anything else as its JSON.
fn as_text(value: Value) -> Value {
    match value {
        Value::Null | Value::String(_) => value,
        other => Value::String(other.to_string()),
    }
}

/// A string holding a number as that JSON number; anything else as it is.
fn as_number(value: Value) -> Value {
    let Some(text) = value.as_str().map(str::trim) else {
        return value;
    };
    if let Ok(n) = text.parse::<i64>() {
        return Value::from(n);
    }
    match text.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
        Some(n) => Value::Number(n),
        None => value,
    }
}
