//! What a person does to the browser, as the step language words it (`PHRASES`). One parser,
//! for `When the user …` and for `Given before round <n> the user …`.

use cucumber::Parameter;
use navguard::browser::{BrowserError, BrowserPort, TabId};
use std::str::FromStr;

/// The actions as the step language words them; `"<url>"` is a quoted URL, `".*"` in the
/// parameters' regexes (their tests check that the regexes say the same).
const PHRASES: [&str; 8] = [
    "reloads the tab",
    "goes back",
    "navigates the tab to \"<url>\"",
    "closes the tab",
    "closes the newest tab",
    "opens \"<url>\" in a new tab",
    "accepts the dialog",
    "dismisses the dialog",
];

/// A person's action on the browser: `{action}`, any of `PHRASES`.
#[derive(Clone, Debug, PartialEq, Eq, Parameter)]
#[param(
    name = "action",
    regex = r#"reloads the tab|goes back|navigates the tab to ".*"|closes the tab|closes the newest tab|opens ".*" in a new tab|accepts the dialog|dismisses the dialog"#
)]
pub enum UserAction {
    /// Reloads the tab.
    Reload,
    /// Goes back one history entry.
    Back,
    /// Navigates the tab to a URL (placeholders not yet expanded).
    Navigate(String),
    /// Closes the tab.
    Close,
    /// Opens a URL in a new tab.
    OpenTab(String),
    /// Closes the browser's newest tab (the one created last, by anyone).
    CloseNewest,
    /// Answers the tab's dialog by hand (OK when `accept`, else Cancel), once one is open:
    /// what the person at the browser does, not the agent.
    AnswerDialog { accept: bool },
}

/// `{tab-action}`: what `When the user <action>` takes, every action but `closes the newest tab`.
#[derive(Clone, Debug, PartialEq, Eq, Parameter)]
#[param(
    name = "tab-action",
    regex = r#"reloads the tab|goes back|navigates the tab to ".*"|closes the tab|opens ".*" in a new tab|accepts the dialog|dismisses the dialog"#
)]
pub(crate) struct TabAction(pub(crate) UserAction);

/// The text did not name an action.
#[derive(Debug, thiserror::Error)]
#[error("unknown user action {0:?}: expected one of: {phrases}", phrases = PHRASES.join(", "))]
pub struct UnknownAction(pub String);

fn quoted(text: &str, prefix: &str, suffix: &str) -> Option<String> {
    let inner = text.strip_prefix(prefix)?.strip_suffix(suffix)?;
    inner.strip_prefix('"')?.strip_suffix('"').map(str::to_owned)
}

impl UserAction {
    /// Parses the words after "the user".
    pub fn parse(text: &str) -> Result<Self, UnknownAction> {
        let text = text.trim();
        let action = match text {
            "reloads the tab" => Self::Reload,
            "goes back" => Self::Back,
            "closes the tab" => Self::Close,
            "closes the newest tab" => Self::CloseNewest,
            "accepts the dialog" => Self::AnswerDialog { accept: true },
            "dismisses the dialog" => Self::AnswerDialog { accept: false },
            _ => quoted(text, "navigates the tab to ", "")
                .map(Self::Navigate)
                .or_else(|| quoted(text, "opens ", " in a new tab").map(Self::OpenTab))
                .ok_or_else(|| UnknownAction(text.to_owned()))?,
        };
        Ok(action)
    }

    /// Does it to `tab`; returns the tab it opened, if any. Returns once a navigation it starts
    /// has begun, never waiting for its commit.
    pub async fn perform(
        &self,
        port: &dyn BrowserPort,
        tab: &TabId,
        expand: impl Fn(&str) -> String,
    ) -> Result<Option<TabId>, BrowserError> {
        match self {
            Self::Reload => port.reload(tab).await.map(|()| None),
            Self::Back => port.back(tab).await.map(|()| None),
            Self::Navigate(url) => port.navigate(tab, &expand(url)).await.map(|()| None),
            Self::Close => port.close(tab).await.map(|()| None),
            Self::OpenTab(url) => port.create_tab(&expand(url), true).await.map(Some),
            Self::CloseNewest => match newest_open_tab(port).await? {
                Some(tab) => port.close(&tab).await.map(|()| None),
                None => Ok(None),
            },
            Self::AnswerDialog { accept } => {
                until_a_dialog_is_open(port, Some(tab)).await?;
                port.handle_dialog(tab, *accept, None).await.map(|()| None)
            }
        }
    }
}

/// Returns once a dialog is open (in `tab`, or in any tab of the port when `None`), by the
/// browser's own event, at most [`super::EVENT_DEADLINE`]; subscribed before looking, so a
/// dialog that opens in between is seen. The user's action waits with it, and so does the
/// conformance steps' `before call <n> the page has opened a dialog`.
pub(crate) async fn until_a_dialog_is_open(port: &dyn BrowserPort, tab: Option<&TabId>) -> Result<(), BrowserError> {
    let mut events = port.subscribe();
    let open = port.tabs().await?.iter().any(|t| t.dialog.is_some() && tab.is_none_or(|tab| t.id == *tab));
    if open {
        return Ok(());
    }
    let opened = async {
        loop {
            let event = events.next().await.map_err(|_| BrowserError::Disconnected)?;
            if event.kind == navguard::browser::NavEventKind::DialogOpened && tab.is_none_or(|tab| event.tab == *tab) {
                return Ok(());
            }
        }
    };
    let deadline = super::EVENT_DEADLINE;
    tokio::time::timeout(deadline, opened)
        .await
        .map_err(|_| BrowserError::Timeout { op: "waiting for a dialog".into(), after: deadline })?
}

impl FromStr for UserAction {
    type Err = UnknownAction;

    fn from_str(text: &str) -> Result<Self, UnknownAction> {
        Self::parse(text)
    }
}

impl FromStr for TabAction {
    type Err = UnknownAction;

    fn from_str(text: &str) -> Result<Self, UnknownAction> {
        match UserAction::parse(text)? {
            UserAction::CloseNewest => Err(UnknownAction(text.to_owned())),
            action => Ok(Self(action)),
        }
    }
}

/// The open tab created last, in one pass over the port's events.
async fn newest_open_tab(port: &dyn BrowserPort) -> Result<Option<TabId>, BrowserError> {
    let open: Vec<TabId> = port.tabs().await?.into_iter().map(|t| t.id).collect();
    let mut events = port.subscribe_from_start();
    let mut newest = None;
    while let Some(e) = events.try_next() {
        if e.kind == navguard::browser::NavEventKind::TabCreated && open.contains(&e.tab) {
            newest = Some(e.tab);
        }
    }
    Ok(newest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_action_of_the_language() {
        assert_eq!(UserAction::parse("reloads the tab").unwrap(), UserAction::Reload);
        assert_eq!(UserAction::parse("goes back").unwrap(), UserAction::Back);
        assert_eq!(UserAction::parse("closes the tab").unwrap(), UserAction::Close);
        assert_eq!(
            UserAction::parse("navigates the tab to \"{site}/page\"").unwrap(),
            UserAction::Navigate("{site}/page".into())
        );
        assert_eq!(
            UserAction::parse("opens \"{other}/page\" in a new tab").unwrap(),
            UserAction::OpenTab("{other}/page".into())
        );
    }

    fn regex_of<'a>(phrases: impl IntoIterator<Item = &'a &'a str>) -> String {
        phrases.into_iter().map(|p| p.replace("\"<url>\"", "\".*\"")).collect::<Vec<_>>().join("|")
    }

    #[test]
    fn the_parameters_regexes_are_the_phrases() {
        assert_eq!(<UserAction as Parameter>::REGEX, regex_of(&PHRASES));
        let tab_phrases = PHRASES.iter().filter(|p| **p != "closes the newest tab");
        assert_eq!(<TabAction as Parameter>::REGEX, regex_of(tab_phrases));
        for phrase in PHRASES.map(|p| p.replace("<url>", "{site}/page")) {
            assert!(phrase.parse::<UserAction>().is_ok(), "{phrase}");
            assert_eq!(phrase.parse::<TabAction>().is_ok(), phrase != "closes the newest tab", "{phrase}");
        }
    }

    #[test]
    fn names_what_it_did_not_understand() {
        let err = UserAction::parse("dances").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown user action \"dances\": expected one of: reloads the tab, goes back, navigates the tab to \"<url>\", closes the tab, closes the newest tab, opens \"<url>\" in a new tab, accepts the dialog, dismisses the dialog"
        );
    }
}
