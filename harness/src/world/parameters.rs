//! The closed sets the step language captures, as cucumber parameters (`{event}`, `{guard}`,
//! `{switch}`, `{trigger}`, `{key}`; the user's actions are in `user_action`). A step's regex
//! then holds the set's names, so a misspelt name leaves the step undefined, and
//! `navguard validate` names it before anything runs. The derive wants a literal regex: each
//! one's test checks it against the set's name table.

use crate::error::{StepError, StepResult};
use cucumber::Parameter;
use navguard::agent::InFlightTrigger;
use navguard::browser::{Key, NavEventKind};
use std::str::FromStr;

/// A navigation event kind, quoted: `"load"`, `"committed"`, …
#[derive(Clone, Copy, Debug, PartialEq, Eq, Parameter)]
#[param(
    name = "event",
    regex = r#""(tab-created|started|committed|dom-loaded|load|restored|failed|aborted|same-document|tab-closed|dialog-opened|dialog-closed)""#
)]
pub(crate) struct Event(pub(crate) NavEventKind);

/// The one parse of an event's name: the `{event}` captures and the `| event | url |` cells.
pub(crate) fn event_kind(name: &str) -> StepResult<NavEventKind> {
    name.parse()
        .map_err(|_| StepError::Setup(format!("unknown event {name:?}: expected one of {}", NavEventKind::list())))
}

impl FromStr for Event {
    type Err = StepError;

    fn from_str(name: &str) -> StepResult<Self> {
        event_kind(name).map(Self)
    }
}

navguard::closed_set! {
    /// A guard the steps switch on or off.
    #[derive(Parameter)]
    #[param(name = "guard", regex = "open_url|loop-top")]
    pub(crate) enum Guard("guard") { OpenUrl = "open_url", LoopTop = "loop-top" }
}

navguard::closed_set! {
    /// On or off: a step's guard switch, and `navguard repro --guards`.
    #[derive(Parameter)]
    #[param(name = "switch", regex = "on|off")]
    pub enum Switch("switch") { On = "on", Off = "off" }
}

navguard::closed_set! {
    /// The loop-top guard's in-flight trigger, as `the loop-top guard uses the <trigger>
    /// in-flight trigger` words it.
    #[derive(Parameter)]
    #[param(name = "trigger", regex = "seed's|extended")]
    pub(crate) enum Trigger("in-flight trigger") { Seed = "seed's", Extended = "extended" }
}

impl Trigger {
    pub(crate) fn in_flight(self) -> InFlightTrigger {
        match self {
            Self::Seed => InFlightTrigger::Seed,
            Self::Extended => InFlightTrigger::Extended,
        }
    }
}

/// A key, quoted, as `Key::parse` reads it: any case, around spaces allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Parameter)]
#[param(
    name = "key",
    regex = r#""\s*((?i:enter|return|escape|esc|tab|backspace|arrowup|up|arrowdown|down|arrowleft|left|arrowright|right|space))\s*""#
)]
pub(crate) struct KeyName(pub(crate) Key);

impl FromStr for KeyName {
    type Err = navguard::browser::BrowserError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Key::parse(name).map(Self)
    }
}

/// The alternatives of a regex `a|b|c` (inside `prefix` … `suffix`), sorted.
#[cfg(test)]
pub(crate) fn alternatives(regex: &str, prefix: &str, suffix: &str) -> Vec<String> {
    let inner = regex.strip_prefix(prefix).and_then(|r| r.strip_suffix(suffix)).expect("the regex's frame");
    let mut names: Vec<String> = inner.split('|').map(str::to_owned).collect();
    names.sort();
    names
}

/// Names, sorted; each must be plain text in a regex.
#[cfg(test)]
pub(crate) fn sorted<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut names: Vec<String> = names.into_iter().map(str::to_owned).collect();
    for name in &names {
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || " '\"-_<>".contains(c)), "{name:?}");
    }
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_regex_holds_its_set_s_names() {
        let events = sorted(NavEventKind::ALL.iter().map(|k| k.name()));
        assert_eq!(alternatives(Event::REGEX, "\"(", ")\""), events);
        assert_eq!(alternatives(Guard::REGEX, "", ""), sorted(Guard::ALL.iter().map(|g| g.name())));
        assert_eq!(alternatives(Switch::REGEX, "", ""), sorted(Switch::ALL.iter().map(|s| s.name())));
        assert_eq!(alternatives(Trigger::REGEX, "", ""), sorted(Trigger::ALL.iter().map(|t| t.name())));
    }

    #[test]
    fn every_key_name_of_the_regex_is_a_key() {
        for name in alternatives(KeyName::REGEX, "\"\\s*((?i:", "))\\s*\"") {
            assert!(name.parse::<KeyName>().is_ok(), "{name}");
        }
    }

    #[test]
    fn the_parses_keep_their_messages() {
        let err = "loaded".parse::<Event>().unwrap_err().to_string();
        assert!(err.contains("unknown event \"loaded\": expected one of "), "{err}");
        assert_eq!("on".parse::<Switch>().unwrap(), Switch::On);
        assert_eq!("seed's".parse::<Trigger>().unwrap().in_flight(), InFlightTrigger::Seed);
        assert_eq!("of".parse::<Switch>().unwrap_err().to_string(), "unknown switch \"of\": expected one of on, off");
        assert_eq!("enter".parse::<KeyName>().unwrap(), KeyName(Key::Enter));
    }
}
