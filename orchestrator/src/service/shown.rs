//! What the audit and the model are shown of plans and actions. What a `type` step types may be
//! a password: it is shown only once its target is observed and is no password field.

use crate::model::{Action, Observation, PlanStep, ToolName};
use crate::redact::REDACTED;
use crate::risk::{element, is_password_field};
use serde_json::Value;

/// The plan as the audit shows it: what a `type` step will type is not known to be harmless
/// before its target is observed (it may be a password field), so it shows when dispatched.
pub(crate) fn plan_as_audited(plan: &[PlanStep]) -> Vec<PlanStep> {
    let mut plan = plan.to_vec();
    for step in plan.iter_mut().filter(|s| s.tool == ToolName::Type) {
        if let Some(text) = step.args.get_mut("text") {
            *text = Value::String(REDACTED.into());
        }
    }
    plan
}

/// The action as the audit (and the model) shows it: a password typed into a password field is
/// redacted.
pub(crate) fn audited_action(action: &Action, observed: Option<&Observation>) -> Action {
    let mut shown = action.clone();
    let into_password =
        action.kind == ToolName::Type && element(action.target.as_ref(), observed).is_some_and(is_password_field);
    if into_password && let Some(text) = shown.params.get_mut("text") {
        *text = Value::String(REDACTED.into());
    }
    shown
}

/// An action's args as the model is told of them: its params, and its target in the contract's
/// form (`"target": {"by", "value"}`).
pub(crate) fn args_as_told(shown: &Action) -> Value {
    let mut args = shown.params.clone();
    if let Some(target) = &shown.target {
        args.insert("target".into(), serde_json::to_value(target).unwrap_or(Value::Null));
    }
    Value::Object(args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Risk, Target, TargetBy};
    use serde_json::json;

    #[test]
    fn what_is_typed_is_hidden_in_a_plan_and_shown_once_its_field_is_no_password_field() {
        let plan = [PlanStep {
            round: 1,
            tool: ToolName::Type,
            args: json!({"selector": "#pw", "text": "hunter2"}).as_object().cloned().unwrap(),
        }];
        assert_eq!(plan_as_audited(&plan)[0].args["text"], REDACTED);
        let action = Action {
            task_id: "t".into(),
            action_id: "t-a0".into(),
            kind: ToolName::Type,
            target: Some(Target { by: TargetBy::Selector, value: "#pw".into() }),
            params: json!({"text": "hunter2"}).as_object().cloned().unwrap(),
            risk: Risk::Medium,
            requires_confirmation: false,
            confirmed: false,
            task_url: None,
            granted_origin: None,
        };
        let page = |value: &str| Observation {
            extracted: json!({"elements": [{"selector": "#pw", "value": value}]}).as_object().cloned().unwrap(),
            ..Observation::default()
        };
        assert_eq!(audited_action(&action, Some(&page(REDACTED))).params["text"], REDACTED);
        assert_eq!(audited_action(&action, Some(&page(""))).params["text"], "hunter2");
        assert_eq!(
            args_as_told(&audited_action(&action, Some(&page(REDACTED)))),
            json!({"text": REDACTED, "target": {"by": "selector", "value": "#pw"}})
        );
    }
}
