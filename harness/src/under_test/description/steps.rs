//! A description's steps: how one neutral call becomes the agent's own calls (an MCP tool and
//! its arguments, or a command line's words), and which forms of a call each step takes.

use super::placeholders::{CONVERSIONS, Placeholder, fill_value, placeholder};
use serde::Deserialize;
use serde_json::Value;

/// One call of the agent's, for a neutral tool.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolStep {
    /// The agent's tool.
    pub call: String,
    /// Its arguments. `{arg}` takes the neutral call's argument (a string that is only a
    /// placeholder takes the argument's JSON value, so booleans stay booleans; an argument the
    /// call did not give drops the key); `{arg|A|B}` is A when the argument is true, else B;
    /// `{index0}` is `index` counted from 0; `{arg:number}` is the argument as a JSON number
    /// (a ref `"12"` becomes `12`; one that is not a number stays as it is).
    #[serde(default)]
    pub args: serde_json::Map<String, Value>,
    /// The step runs only when its conditions all hold, one or a list: `arg`, the neutral
    /// argument is given (true, or any value but false, null or empty: `submit`, Enter after
    /// typing); `!arg`, it is not (`!accept`: the call that dismisses); `arg=value`, its text is
    /// that value (`by=end`). A call none of whose steps runs is of a form the agent lacks.
    #[serde(default)]
    pub when: Conditions,
    /// The step's answer is kept in the call's answer, as `<keep_as>: <its text>`, ahead of the
    /// later steps' (otherwise only the last step's text is the answer): a page's URL and title
    /// from tools of their own, read by `[answer]` patterns such as `(?m)^URL: (\S+)`.
    #[serde(default)]
    pub keep_as: Option<String>,
    /// For an argument that is a list, each item's shape in the agent's words: the template is
    /// filled from the item's own keys (a `fill_form` field's `ref` and `value`, and `role`, the
    /// role the agent's own snapshot gave that ref), as `args` is from the call's.
    #[serde(default)]
    pub each: serde_json::Map<String, Value>,
}

/// A step's `when`: one condition or a list of them, all of which must hold.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(from = "OneOrMany")]
pub struct Conditions(Vec<String>);

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl Conditions {
    /// Whether they all hold for a neutral call's `args` (a condition that does not parse was
    /// refused where it was read, by [`Self::check`]).
    pub fn hold(&self, args: &Value) -> bool {
        self.0.iter().all(|c| Condition::parse(c).is_ok_and(|c| c.holds(args)))
    }

    /// Why one of them is not a condition (`arg`, `!arg` or `arg=value`), if one is not.
    pub fn check(&self) -> Result<(), String> {
        self.0.iter().try_for_each(|c| Condition::parse(c).map(drop))
    }
}

impl From<OneOrMany> for Conditions {
    fn from(when: OneOrMany) -> Self {
        match when {
            OneOrMany::One(condition) => Self(vec![condition]),
            OneOrMany::Many(conditions) => Self(conditions),
        }
    }
}

/// One condition of a step's `when`, read from its text.
#[derive(Debug, PartialEq)]
enum Condition<'a> {
    Given(&'a str),
    NotGiven(&'a str),
    Is(&'a str, &'a str),
}

impl<'a> Condition<'a> {
    fn parse(text: &'a str) -> Result<Self, String> {
        let named = |arg: &str| !arg.is_empty() && arg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let condition = match (text.strip_prefix('!'), text.split_once('=')) {
            (Some(arg), None) => Self::NotGiven(arg),
            (None, Some((arg, value))) => Self::Is(arg, value),
            (None, None) => Self::Given(text),
            (Some(_), Some(_)) => return Err(format!("when {text:?}: `!arg` and `arg=value` do not combine")),
        };
        let (Self::Given(arg) | Self::NotGiven(arg) | Self::Is(arg, _)) = condition;
        if !named(arg) {
            return Err(format!("when {text:?}: {arg:?} is not an argument's name (`arg`, `!arg` or `arg=value`)"));
        }
        Ok(condition)
    }

    fn holds(&self, args: &Value) -> bool {
        match *self {
            Self::Given(arg) => given(args.get(arg)),
            Self::NotGiven(arg) => !given(args.get(arg)),
            Self::Is(arg, value) => {
                args.get(arg).is_some_and(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned) == value)
            }
        }
    }
}

/// A neutral call's `args` with `index0`, its `index` counted from 0, when it has an index.
fn with_index0(args: &Value) -> Value {
    let mut args = args.clone();
    if let Some(index) = args.get("index").and_then(Value::as_u64)
        && let Some(map) = args.as_object_mut()
    {
        map.insert("index0".into(), Value::from(index.saturating_sub(1)));
    }
    args
}

/// Whether a neutral argument is given: present, and neither false, null nor empty.
fn given(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null | Value::Bool(false)) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(items)) => !items.is_empty(),
        Some(_) => true,
    }
}

/// A neutral tool in the agent's words: one call, or several in order (the answer is the
/// last one's; the first that fails ends it).
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum ToolMap {
    One(ToolStep),
    Steps(Vec<ToolStep>),
}

impl ToolMap {
    /// Its steps, in order.
    pub fn steps(&self) -> &[ToolStep] {
        match self {
            Self::One(step) => std::slice::from_ref(step),
            Self::Steps(steps) => steps,
        }
    }

    /// The agent's tools it names (each must be one the agent offers).
    pub fn calls(&self) -> impl Iterator<Item = &str> {
        self.steps().iter().map(|s| s.call.as_str())
    }

    /// Whether a neutral call of these `args` has a step that runs: one that has none is of a
    /// form the agent lacks (browser-use's scroll moves by a page, never to an element).
    pub fn takes(&self, args: &Value) -> bool {
        self.steps().iter().any(|step| step.runs(args))
    }
}

impl ToolStep {
    /// Whether its arguments' placeholders are ones [`Self::fill`] knows: the reason if not.
    pub(super) fn check(&self) -> Result<(), String> {
        fn walk(key: &str, value: &Value) -> Result<(), String> {
            match value {
                Value::String(s) => match placeholder(s) {
                    Some(Placeholder { conversion: Some(c), .. }) if !CONVERSIONS.contains(&c) => Err(format!(
                        "args.{key}: {s:?}: no conversion {c:?} (those there are: {{arg:number}}, {{arg:text}}, {{arg:first}})"
                    )),
                    _ => Ok(()),
                },
                Value::Array(items) => items.iter().try_for_each(|i| walk(key, i)),
                Value::Object(map) => map.iter().try_for_each(|(k, v)| walk(&format!("{key}.{k}"), v)),
                _ => Ok(()),
            }
        }
        self.args.iter().try_for_each(|(k, v)| walk(k, v))?;
        self.when.check()?;
        self.each.iter().try_for_each(|(k, v)| {
            if self.args.contains_key(k) {
                walk(&format!("each.{k}"), v)
            } else {
                Err(format!("each.{k}: no argument {k} in args to take its items from"))
            }
        })
    }

    /// For a `cli` agent: its `call` is the command's words and holds the arguments; `args` and
    /// `each` are an MCP tool's, so a cli step that has them is told where its words go.
    pub(super) fn check_words(&self) -> Result<(), String> {
        if self.call.split_whitespace().next().is_none() {
            return Err("call: empty: a cli agent's call is the words of its command line after [start]'s".into());
        }
        if !self.args.is_empty() || !self.each.is_empty() {
            return Err(format!(
                "{}: a cli agent takes its arguments in call's words (call = \"click {{ref}}\"), not in args or each",
                if self.args.is_empty() { "each" } else { "args" }
            ));
        }
        self.call.split_whitespace().try_for_each(|word| match placeholder(word) {
            Some(Placeholder { conversion: Some(c), .. }) if !CONVERSIONS.contains(&c) => Err(format!(
                "call: {word:?}: no conversion {c:?} (those there are: {{arg:number}}, {{arg:text}}, {{arg:first}})"
            )),
            _ => Ok(()),
        })
    }

    /// A `cli` agent's command words for a neutral call's `args`: `call` split at white space,
    /// each word's own placeholders (`{scratch}`, `{cdp_endpoint}`…) filled by `start`, then the
    /// call's. A word that is one placeholder takes its argument as text (a list, each item as
    /// a word of its own) and is left out when the argument is not given; a placeholder inside
    /// a word takes the argument's text. The words go to the program as they are, never
    /// through a shell.
    pub fn words(&self, args: &Value, start: impl Fn(&str) -> String) -> Vec<String> {
        let args = with_index0(args);
        let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
        let mut words = Vec::new();
        for word in self.call.split_whitespace() {
            let word = start(word);
            match fill_value(&Value::String(word), &args) {
                Value::Null => {}
                Value::Array(items) => words.extend(items.iter().map(text)),
                value => words.push(text(&value)),
            }
        }
        words
    }

    /// Whether the step runs for a neutral call's `args`.
    pub fn runs(&self, args: &Value) -> bool {
        self.when.hold(args)
    }

    /// The agent's arguments for a neutral call's `args` (a key whose placeholder the call did
    /// not give is left out).
    pub fn fill(&self, args: &Value) -> serde_json::Map<String, Value> {
        let args = with_index0(args);
        let each_item = |key: &str, value: Value| match (self.each.get(key), value) {
            (Some(template), Value::Array(items)) => {
                Value::Array(items.iter().map(|item| fill_value(template, item)).collect())
            }
            (_, value) => value,
        };
        self.args
            .iter()
            .map(|(k, v)| (k.clone(), each_item(k, fill_value(v, &args))))
            .filter(|(_, v)| !v.is_null())
            .collect()
    }
}
