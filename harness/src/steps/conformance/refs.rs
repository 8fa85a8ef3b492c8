//! The `{ref:<name>}` of a call's args: the ref an agent's own snapshot gave the element of that
//! accessible name.

use crate::error::{StepError, StepResult};
use crate::under_test::ElementSeen;
use crate::world::Conformance;

/// Roles of a page's structure, never what a call acts on: where one of these shares its name
/// with a control (a heading "Editor" above the editor "Editor", the document titled "Menu"
/// above the button "Menu", a label "Pick" that a snapshot lists without a role beside the
/// select it names), `{ref:<name>}` is the control. A snapshot that names an element without
/// a role by its tag (Firefox DevTools MCP's `uid=e0 h1 "Editor"`) gives these as tags.
const STRUCTURE_ROLES: [&str; 22] = [
    "",
    "heading",
    "paragraph",
    "generic",
    "text",
    "StaticText",
    "LabelText",
    "none",
    "presentation",
    "document",
    "RootWebArea",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "body",
    "div",
    "span",
    "label",
];

/// Of the elements a snapshot listed, the one `{ref:<name>}` means: the first with that
/// accessible name that is not part of the page's structure, else the first with that name.
fn named<'a>(elements: &'a [ElementSeen], name: &str) -> Option<&'a ElementSeen> {
    let mut with_name = elements.iter().filter(|e| e.name == name);
    let first = with_name.clone().next();
    with_name.find(|e| !STRUCTURE_ROLES.contains(&e.role.as_str())).or(first)
}

/// `{ref:<name>}` and `{ref:<name>@<n>}` in a call's args: the ref an answer's snapshot gave the
/// element with that accessible name (`named`).
pub(super) fn resolve_refs(conformance: &Conformance, args: &str) -> StepResult<String> {
    static REF: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\{ref:([^}@]+)(?:@(\d+))?\}").expect("a valid pattern"));
    let mut out = String::with_capacity(args.len());
    let mut last = 0;
    for captures in REF.captures_iter(args) {
        let whole = captures.get(0).expect("the match");
        let name = &captures[1];
        let call = match captures.get(2) {
            Some(n) => n.as_str().parse::<u32>().ok(),
            None => conformance.latest_snapshot(),
        };
        let Some(call) = call else {
            return Err(StepError::Setup(format!("{{ref:{name}}}: no answer so far held a snapshot")));
        };
        let found =
            conformance.answer(call).and_then(|a| a.elements.as_ref()).and_then(|elements| named(elements, name));
        let Some(element) = found else {
            return Err(StepError::Setup(format!(
                "{{ref:{name}}}: call {call}'s answer lists no element named {name:?}"
            )));
        };
        out.push_str(&args[last..whole.start()]);
        out.push_str(&element.reference);
        last = whole.end();
    }
    out.push_str(&args[last..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(reference: &str, role: &str, name: &str) -> ElementSeen {
        ElementSeen { reference: reference.into(), role: role.into(), name: name.into() }
    }

    #[test]
    fn a_control_is_taken_over_a_heading_of_its_name() {
        let elements =
            [element("e2", "heading", "Editor"), element("e3", "textbox", "Editor"), element("e4", "button", "Send")];
        assert_eq!(named(&elements, "Editor").map(|e| e.reference.as_str()), Some("e3"));
        assert_eq!(named(&elements, "Send").map(|e| e.reference.as_str()), Some("e4"));
        assert_eq!(named(&elements, "Nothing"), None);
        // As Chrome DevTools MCP lists them: the page itself, then a label without a role.
        let elements =
            [element("1_0", "RootWebArea", "Pick"), element("1_2", "", "Pick"), element("1_3", "combobox", "Pick")];
        assert_eq!(named(&elements, "Pick").map(|e| e.reference.as_str()), Some("1_3"));
    }

    #[test]
    fn a_name_only_a_heading_has_is_the_heading() {
        let elements = [element("e1", "heading", "Menu"), element("e2", "heading", "Menu")];
        assert_eq!(named(&elements, "Menu").map(|e| e.reference.as_str()), Some("e1"));
    }
}
