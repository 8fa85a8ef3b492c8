//! Risk classification (docs/design/orchestrator.md): from the action and its target as last observed (the
//! control's role and accessible name, the form it belongs to and that form's method).

use crate::model::{Observation, Risk, Target, TargetBy, ToolName};
use navguard::agent::RiskHint;
use serde_json::{Map, Value};

/// The words that make a click high-risk when a control's accessible name says them.
pub const DEFAULT_WORDS: &[&str] =
    &["buy", "order", "pay", "purchase", "delete", "remove", "send", "publish", "post", "checkout", "transfer"];

/// What risk is judged by.
#[derive(Clone, Debug)]
pub struct RiskPolicy {
    /// Lower-case words; a control whose name contains one is high-risk to click.
    pub words: Vec<String>,
}

impl Default for RiskPolicy {
    fn default() -> Self {
        Self::with_words(DEFAULT_WORDS.iter().copied())
    }
}

impl RiskPolicy {
    /// A policy whose risky words are `words` (`--risk-words`), compared lower-case.
    pub fn with_words<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> Self {
        let words = words.into_iter().map(|w| w.as_ref().trim().to_lowercase()).filter(|w| !w.is_empty()).collect();
        Self { words }
    }
}

/// The element an action's target names, as the last observation listed it.
pub fn element<'a>(target: Option<&Target>, observed: Option<&'a Observation>) -> Option<&'a Map<String, Value>> {
    let target = target?;
    let elements = observed?.extracted.get("elements")?.as_array()?;
    elements.iter().filter_map(Value::as_object).find(|e| {
        let field = match target.by {
            TargetBy::Selector => "selector",
            TargetBy::Ref => "ref",
            TargetBy::Text | TargetBy::Role => "name",
        };
        e.get(field).and_then(Value::as_str) == Some(target.value.as_str())
    })
}

/// The element belongs to a form that posts.
fn in_post_form(element: &Map<String, Value>) -> bool {
    element
        .get("form")
        .and_then(|f| f.get("method"))
        .and_then(Value::as_str)
        .is_some_and(|m| m.eq_ignore_ascii_case("post"))
}

/// A field whose value the observation hid: a password.
pub fn is_password_field(element: &Map<String, Value>) -> bool {
    element.get("value").and_then(Value::as_str) == Some(crate::redact::REDACTED)
        || element.get("type").and_then(Value::as_str) == Some("password")
}

impl RiskPolicy {
    /// The risk of an action of `kind` on `target` with `params`, given what was last observed.
    pub fn classify(
        &self,
        kind: ToolName,
        target: Option<&Target>,
        params: &Map<String, Value>,
        observed: Option<&Observation>,
    ) -> Risk {
        self.judge(kind, target, params, observed).0
    }

    /// Why the action is high risk, in words for the person asked to confirm it; `None` if it
    /// is not high.
    pub fn why_high(
        &self,
        kind: ToolName,
        target: Option<&Target>,
        params: &Map<String, Value>,
        observed: Option<&Observation>,
    ) -> Option<String> {
        self.judge(kind, target, params, observed).1
    }

    /// The risk and, for a high one, why.
    fn judge(
        &self,
        kind: ToolName,
        target: Option<&Target>,
        params: &Map<String, Value>,
        observed: Option<&Observation>,
    ) -> (Risk, Option<String>) {
        match kind.spec().risk {
            // What the tool acts on decides: the control, its words, its form.
            RiskHint::Control if kind == ToolName::FillForm || kind == ToolName::Drag => {
                self.elements_risk(kind, params, observed)
            }
            RiskHint::Control => self.control_risk(kind, element(target, observed), target, params),
            // Files of the user's leave for the page: always asked.
            RiskHint::Files => (Risk::High, Some("it gives the page files from the user's folder".to_owned())),
            RiskHint::None | RiskHint::Navigation | RiskHint::Dialog | RiskHint::Done => (Risk::Low, None),
        }
    }

    /// The risky word `text` says, if it says one.
    fn risky_word_in(&self, text: &str) -> Option<&str> {
        let text = text.to_lowercase();
        let said: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).collect();
        self.words.iter().map(String::as_str).find(|w| said.contains(w))
    }

    /// The risk of an input on a control: a click on a control whose name says a risky word or
    /// that submits a POST form is high; typing with Enter into, or pressing Enter in, a POST
    /// form is high; other typing and keys are medium, and so is any input tool added later
    /// until it is rated here.
    fn control_risk(
        &self,
        kind: ToolName,
        element: Option<&Map<String, Value>>,
        target: Option<&Target>,
        params: &Map<String, Value>,
    ) -> (Risk, Option<String>) {
        let submits = params.get("submit").and_then(Value::as_bool) == Some(true);
        let enter = params.get("key").and_then(Value::as_str).is_some_and(|k| k.eq_ignore_ascii_case("enter"));
        let post_form = element.filter(|e| in_post_form(e));
        let posts_to = |e: &Map<String, Value>| format!("it submits a form that posts to {}", action_of(e));
        match kind {
            ToolName::Click => {
                if let Some(e) = post_form.filter(|e| is_submit_control(e)) {
                    return (Risk::High, Some(posts_to(e)));
                }
                let name = element.and_then(|e| e.get("name")).and_then(Value::as_str);
                let text = target.filter(|t| t.by == TargetBy::Text).map(|t| t.value.as_str());
                for said in [name, text].into_iter().flatten() {
                    if let Some(word) = self.risky_word_in(said) {
                        return (
                            Risk::High,
                            Some(format!("its control is named {said:?}, and \"{word}\" is a risky word")),
                        );
                    }
                }
                (Risk::Low, None)
            }
            ToolName::Type if submits && post_form.is_some() => (Risk::High, post_form.map(posts_to)),
            // A choice in a form that posts is part of what it sends.
            ToolName::SelectOption if post_form.is_some() => {
                (Risk::High, post_form.map(|e| format!("it changes a field of a form that posts to {}", action_of(e))))
            }
            ToolName::PressKey if enter && post_form.is_some() => (Risk::High, post_form.map(posts_to)),
            _ => (Risk::Medium, None),
        }
    }
}

impl RiskPolicy {
    /// The risk of an action on the elements its params name (`fill_form`'s fields, `drag`'s
    /// two ends): a field of a form that posts makes filling high; a drop target or dragged
    /// element whose name says a risky word (a "Delete" bin) makes a drag high; else medium.
    fn elements_risk(
        &self,
        kind: ToolName,
        params: &Map<String, Value>,
        observed: Option<&Observation>,
    ) -> (Risk, Option<String>) {
        let named = |value: &Value| {
            let (by, value) = match value {
                Value::String(text) => (TargetBy::Ref, text),
                Value::Object(item) => match (item.get("ref"), item.get("selector")) {
                    (Some(Value::String(r)), _) => (TargetBy::Ref, r),
                    (_, Some(Value::String(s))) => (TargetBy::Selector, s),
                    _ => return None,
                },
                _ => return None,
            };
            let by_ref = Target { by, value: value.clone() };
            let by_selector = Target { by: TargetBy::Selector, value: value.clone() };
            element(Some(&by_ref), observed).or_else(|| element(Some(&by_selector), observed))
        };
        let elements: Vec<&Map<String, Value>> = match kind {
            ToolName::FillForm => {
                params.get("fields").and_then(Value::as_array).into_iter().flatten().filter_map(named).collect()
            }
            _ => ["from", "to"].iter().filter_map(|k| params.get(*k)).filter_map(named).collect(),
        };
        if kind == ToolName::FillForm
            && let Some(e) = elements.iter().find(|e| in_post_form(e))
        {
            return (Risk::High, Some(format!("it fills a form that posts to {}", action_of(e))));
        }
        if kind == ToolName::Drag {
            for e in &elements {
                let said = e.get("name").and_then(Value::as_str).unwrap_or_default();
                if let Some(word) = self.risky_word_in(said) {
                    return (
                        Risk::High,
                        Some(format!("it drags onto or from {said:?}, and \"{word}\" is a risky word")),
                    );
                }
            }
        }
        (Risk::Medium, None)
    }
}

/// Where the form an element belongs to posts.
fn action_of(element: &Map<String, Value>) -> &str {
    element.get("form").and_then(|f| f.get("action")).and_then(Value::as_str).unwrap_or("its page")
}

/// A button or submit input: what submits its form when clicked.
fn is_submit_control(element: &Map<String, Value>) -> bool {
    let role = element.get("role").and_then(Value::as_str).unwrap_or_default();
    let tag = element.get("tag").and_then(Value::as_str).unwrap_or_default();
    role == "button" || tag == "button"
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn observed(elements: Value) -> Observation {
        Observation {
            extracted: json!({ "elements": elements }).as_object().cloned().unwrap(),
            ..Observation::default()
        }
    }

    fn by_selector(s: &str) -> Option<Target> {
        Some(Target { by: TargetBy::Selector, value: s.into() })
    }

    #[test]
    fn a_click_on_a_post_form_s_button_or_a_control_named_delete_is_high_a_link_low() {
        let page = observed(json!([
            {"selector": "#buy", "role": "button", "tag": "button", "name": "Place order", "form": {"method": "post", "action": "/order"}},
            {"selector": "#search", "role": "button", "tag": "button", "name": "Search", "form": {"method": "get", "action": "/s"}},
            {"selector": "#go", "role": "link", "tag": "a", "name": "Next page"},
            {"selector": "#del", "role": "link", "tag": "a", "name": "Delete account"},
        ]));
        let policy = RiskPolicy::default();
        let risk = |s: &str| policy.classify(ToolName::Click, by_selector(s).as_ref(), &Map::new(), Some(&page));
        assert_eq!(risk("#buy"), Risk::High);
        assert_eq!(risk("#search"), Risk::Low);
        assert_eq!(risk("#go"), Risk::Low);
        assert_eq!(risk("#del"), Risk::High);
        let why = |s: &str| policy.why_high(ToolName::Click, by_selector(s).as_ref(), &Map::new(), Some(&page));
        assert_eq!(why("#buy").as_deref(), Some("it submits a form that posts to /order"));
        assert_eq!(
            why("#del").as_deref(),
            Some("its control is named \"Delete account\", and \"delete\" is a risky word")
        );
        assert_eq!(why("#go"), None);
    }

    #[test]
    fn the_words_are_configurable() {
        let page = observed(json!([{"selector": "#x", "role": "button", "tag": "button", "name": "Archive chat"}]));
        let target = by_selector("#x");
        let click = |policy: &RiskPolicy| policy.classify(ToolName::Click, target.as_ref(), &Map::new(), Some(&page));
        assert_eq!(click(&RiskPolicy::default()), Risk::Low);
        assert_eq!(click(&RiskPolicy::with_words([" ARCHIVE ", ""])), Risk::High);
    }

    #[test]
    fn typing_is_medium_and_enter_in_a_post_form_is_high() {
        let page = observed(
            json!([{"selector": "#user", "role": "textbox", "form": {"method": "POST", "action": "/session"}}]),
        );
        let policy = RiskPolicy::default();
        let target = by_selector("#user");
        let submit = json!({"text": "ada", "submit": true}).as_object().cloned().unwrap();
        assert_eq!(policy.classify(ToolName::Type, target.as_ref(), &Map::new(), Some(&page)), Risk::Medium);
        assert_eq!(policy.classify(ToolName::Type, target.as_ref(), &submit, Some(&page)), Risk::High);
        assert_eq!(policy.classify(ToolName::Navigate, None, &Map::new(), None), Risk::Low);
    }

    #[test]
    fn the_new_tools_are_judged_by_what_they_act_on_and_an_upload_is_always_high() {
        let page = observed(json!([
            {"ref": "d.1", "selector": "#color", "role": "combobox", "tag": "select", "form": {"method": "post", "action": "/submit"}},
            {"ref": "d.2", "selector": "#sort", "role": "combobox", "tag": "select"},
            {"ref": "d.3", "selector": "#bin", "role": "region", "name": "Delete bin"},
            {"ref": "d.4", "selector": "#a", "role": "button", "name": "A"},
            {"ref": "d.5", "selector": "#zone", "role": "region", "name": "Drop here"},
        ]));
        let policy = RiskPolicy::default();
        let params = |v: Value| v.as_object().cloned().unwrap();
        let judge =
            |kind, target: Option<Target>, p: Value| policy.classify(kind, target.as_ref(), &params(p), Some(&page));
        assert_eq!(judge(ToolName::SelectOption, by_selector("#color"), json!({"values": ["Red"]})), Risk::High);
        assert_eq!(judge(ToolName::SelectOption, by_selector("#sort"), json!({"values": ["New"]})), Risk::Medium);
        assert_eq!(judge(ToolName::FillForm, None, json!({"fields": [{"ref": "d.1", "value": "Red"}]})), Risk::High);
        assert_eq!(
            judge(ToolName::FillForm, None, json!({"fields": [{"selector": "#sort", "value": "New"}]})),
            Risk::Medium
        );
        assert_eq!(judge(ToolName::Drag, None, json!({"from": "d.4", "to": "d.3"})), Risk::High);
        assert_eq!(judge(ToolName::Drag, None, json!({"from": "#a", "to": "#zone"})), Risk::Medium);
        assert_eq!(judge(ToolName::UploadFile, by_selector("#file"), json!({"paths": ["a.csv"]})), Risk::High);
        for low in [ToolName::Hover, ToolName::Scroll, ToolName::Extract, ToolName::Screenshot] {
            assert_eq!(judge(low, by_selector("#a"), json!({})), Risk::Low, "{low}");
        }
    }
}
