//! The input tools (click, type, press_key): a real input action on the focused tab, the wait
//! for what it started, then what the page holds; a click whose press the page moved its target
//! away from presses again.

use super::error::ToolFailure;
use super::execute::{ToolContext, ToolRun, browser, quiet_seen};
use super::tabs::TaskTabs;
use super::tool::ToolName;
use crate::agent::closed_loop::snapshot_args;
use crate::agent::settle::{ActionSettleEnd, ActionSettled, ActionStreams, settle_action};
use crate::browser::{BrowserError, BrowserPort, Key, PressLanded, TabId, Target};
use std::time::Duration;

/// How many times a click presses when the page keeps moving its target away as it is pressed.
const PRESS_TRIES: usize = 3;
/// How long the page may take to say where a click's press went (a read of one object, a few
/// milliseconds on a quiet page; a page that holds it longer is busy elsewhere).
const PRESS_READ: Duration = Duration::from_secs(3);

impl ToolContext<'_> {
    /// `click`.
    pub(super) async fn click(&self, tabs: &TaskTabs, target: &Target) -> ToolRun {
        self.act(tabs, Act::Click(target)).await
    }

    /// `type`, with Enter after it when `submit`.
    pub(super) async fn type_into(&self, tabs: &TaskTabs, target: &Target, text: &str, submit: bool) -> ToolRun {
        self.act(tabs, Act::Type(target, text, submit)).await
    }

    /// `press_key`.
    pub(super) async fn press(&self, tabs: &TaskTabs, key: Key) -> ToolRun {
        self.act(tabs, Act::Key(key)).await
    }

    /// A real input action on the focused tab, then the action settle.
    async fn act(&self, tabs: &TaskTabs, act: Act<'_>) -> ToolRun {
        let tool = act.tool();
        // What each press that missed its target landed on instead (a click presses again).
        let mut missed: Vec<String> = Vec::new();
        loop {
            let tab = match self.ready_for_input(tabs, tool, act.target()).await {
                Ok(tab) => tab,
                Err(e) => return ToolRun::err(e),
            };
            self.phase.set(format!("the {tool} to be delivered"));
            let streams = ActionStreams::subscribe(self.port);
            if let Err(e) = act.perform(self.port, &tab).await {
                return ToolRun::err(browser(tool)(e));
            }
            self.phase.set(format!("what the {tool} started to end and the page to go quiet"));
            let settled =
                settle_action(self.port, streams, &tab, self.action_limits(), self.cancel, Some(snapshot_args())).await;
            // Only a click's press is watched: a miss names the click's target.
            let why = match self.press_missed(&tab, &act, &settled).await {
                Some(PressLanded::Elsewhere { on }) => {
                    missed.push(on);
                    if missed.len() < PRESS_TRIES {
                        continue;
                    }
                    format!(
                        "each of its {PRESS_TRIES} presses landed elsewhere, the page moving it as it was pressed (on {}), and was stopped there: no click came of them",
                        missed.join(", then ")
                    )
                }
                Some(PressLanded::Unseen) => "its press never reached its page: it landed in a frame over it or outside the page, which may have taken it".to_owned(),
                Some(PressLanded::Reached) | None => return self.acted(&act, &tab, settled, &missed).await,
            };
            let target = act.target().map(ToString::to_string).unwrap_or_default();
            return ToolRun::err(browser(tool)(BrowserError::NotInteractable { target, why }));
        }
    }

    /// Where a click's press went when it did not reach its target: on another element the
    /// page moved under the pointer as it was pressed, which the press watch stopped there
    /// ([`PressLanded::Elsewhere`]), or nowhere in the target's page ([`PressLanded::Unseen`]).
    /// Asked only of a page that went quiet or is still busy with requests, with no navigation
    /// in flight: a page that is leaving (Chromium holds a script until the navigation is over)
    /// or shows a dialog would hold the question up. Asked within [`PRESS_READ`]: a page that
    /// holds the question longer is taken to have taken the press, as before there was a
    /// watch, and the trace says so.
    async fn press_missed(
        &self,
        tab: &TabId,
        act: &Act<'_>,
        settled: &Result<ActionSettled, BrowserError>,
    ) -> Option<PressLanded> {
        let (Ok(settled), Act::Click(target)) = (settled, act) else { return None };
        let leaving = self.port.tab_known(tab).is_some_and(|known| known.pending_url.is_some());
        let asked = matches!(settled.end, ActionSettleEnd::Quiet | ActionSettleEnd::Deadline);
        if !asked || leaving {
            return None;
        }
        match tokio::time::timeout(PRESS_READ, self.port.press_landed(tab, target)).await {
            Ok(Ok(Some(PressLanded::Reached) | None)) => None,
            Ok(Ok(landed)) => landed,
            Ok(Err(e)) => {
                tracing::debug!(target: "navguard::action", "where the click's press on {target} went is unknown: {e}");
                None
            }
            Err(_) => {
                tracing::debug!(target: "navguard::action", "where the click's press on {target} went is unknown: no answer within {} ms", PRESS_READ.as_millis());
                None
            }
        }
    }

    /// An input action's answer once what it started is over: what the page did, and for
    /// typing what the field holds.
    async fn acted(
        &self,
        act: &Act<'_>,
        tab: &TabId,
        settled: Result<ActionSettled, BrowserError>,
        missed: &[String],
    ) -> ToolRun {
        let tool = act.tool();
        match settled {
            Ok(settled) => {
                let mut text = format!("{}; the page {}", act.describe(), self.settle_words(tab, &settled));
                if let Some(on) = missed.last() {
                    text.push_str(&format!(
                        "; pressed {} times: the page moved it as it was pressed, and the press before landed on {on}, which was stopped there",
                        missed.len() + 1
                    ));
                }
                // Typing is read back from the field, once its handlers ran: a framework that
                // kept its own value, or a page that refused the text, is not applied.
                if let Act::Type(target, typed, false) = *act
                    && settled.end != ActionSettleEnd::Leaving
                {
                    match self.typed_holds(tab, target, typed).await {
                        Some(Ok(holds)) => text.push_str(&format!("; {target} holds {holds:?}")),
                        Some(Err(holds)) => return ToolRun::err(ToolFailure::NotApplied { holds }.of(tool)),
                        None => {}
                    }
                }
                ToolRun { quiet_seen: quiet_seen(tab, &settled), looked: settled.looked, ..ToolRun::ok(text) }
            }
            Err(e) => ToolRun::err(browser(tool)(e)),
        }
    }
}

/// An input action.
enum Act<'a> {
    Click(&'a Target),
    Type(&'a Target, &'a str, bool),
    Key(Key),
}

impl Act<'_> {
    fn target(&self) -> Option<&Target> {
        match self {
            Self::Click(target) | Self::Type(target, ..) => Some(target),
            Self::Key(_) => None,
        }
    }

    fn tool(&self) -> ToolName {
        match self {
            Self::Click(_) => ToolName::Click,
            Self::Type(..) => ToolName::Type,
            Self::Key(_) => ToolName::PressKey,
        }
    }

    async fn perform(&self, port: &dyn BrowserPort, tab: &TabId) -> Result<(), BrowserError> {
        match self {
            Self::Click(selector) => port.click(tab, selector).await,
            Self::Type(selector, text, submit) => {
                port.type_text(tab, selector, text).await?;
                if *submit {
                    port.press_key(tab, Key::Enter).await?;
                }
                Ok(())
            }
            Self::Key(key) => port.press_key(tab, *key).await,
        }
    }

    fn describe(&self) -> String {
        match self {
            Self::Click(selector) => format!("clicked {selector}"),
            Self::Type(selector, text, submit) => {
                format!("typed {text:?} into {selector}{}", if *submit { " and pressed Enter" } else { "" })
            }
            Self::Key(key) => format!("pressed {key:?}"),
        }
    }
}
