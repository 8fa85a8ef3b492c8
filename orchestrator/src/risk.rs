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
    fn names_a_risky_word(&self, text: &str) -> bool {
        let text = text.to_lowercase();
        self.words.iter().any(|w| text.split(|c: char| !c.is_alphanumeric()).any(|part| part == w))
    }

    /// The risk of an action of `kind` on `target` with `params`, given what was last observed.
    pub fn classify(
        &self,
        kind: ToolName,
        target: Option<&Target>,
        params: &Map<String, Value>,
        observed: Option<&Observation>,
    ) -> Risk {
        match kind.spec().risk {
            // What the tool acts on decides: the control, its words, its form.
            RiskHint::Control => self.control_risk(kind, element(target, observed), target, params),
            RiskHint::None | RiskHint::Navigation | RiskHint::Dialog | RiskHint::Done => Risk::Low,
        }
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
    ) -> Risk {
        let submits = params.get("submit").and_then(Value::as_bool) == Some(true);
        let enter = params.get("key").and_then(Value::as_str).is_some_and(|k| k.eq_ignore_ascii_case("enter"));
        match kind {
            ToolName::Click => {
                let posts = element.is_some_and(in_post_form) && element.is_some_and(is_submit_control);
                let named = element
                    .and_then(|e| e.get("name"))
                    .and_then(Value::as_str)
                    .is_some_and(|n| self.names_a_risky_word(n))
                    || target.is_some_and(|t| t.by == TargetBy::Text && self.names_a_risky_word(&t.value));
                if posts || named { Risk::High } else { Risk::Low }
            }
            ToolName::Type if submits && element.is_some_and(in_post_form) => Risk::High,
            ToolName::PressKey if enter && element.is_some_and(in_post_form) => Risk::High,
            _ => Risk::Medium,
        }
    }
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
}
