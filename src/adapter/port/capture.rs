//! Pictures of a tab: its viewport, its whole page (bounded), or one element's box. An
//! element's box is read by a script once the element is in view, and taken as a box of the
//! viewport: Chromium 156's element clip does not follow the page's scroll.

use super::{BidiPort, PageAnswer};
use crate::adapter::target::{Place, ctx};
use crate::bidi::Command;
use crate::bidi::modules::browsing_context::{CaptureScreenshot, ScreenshotOrigin};
use crate::browser::{BrowserError, BrowserPort, PageScript, Shot, Staleness, TabId, Target, page_script_finding};
use base64::Engine;
use serde_json::{Value, json};

/// The box of the element to take (see the script's own comment).
const ELEMENT_BOX: PageScript = page_script_finding!("element box", "element_box.js", "target, names");

/// The page's whole size.
const PAGE_SIZE: PageScript = PageScript {
    name: "page size",
    function: "() => { const page = document.scrollingElement || document.documentElement; \
               return { width: page.scrollWidth, height: page.scrollHeight }; }",
};

impl BidiPort {
    /// A picture of what `shot` names, as a PNG.
    pub(super) async fn capture_shot(&self, tab: &TabId, shot: &Shot) -> Result<Vec<u8>, BrowserError> {
        let (origin, clip) = match shot {
            Shot::Viewport => (None, None),
            Shot::FullPage => {
                let size = self.call(tab, &PAGE_SIZE, &[]).await?;
                let side =
                    |key: &str| size.get(key).and_then(Value::as_u64).unwrap_or(1).clamp(1, u64::from(Shot::MAX_SIDE));
                let clip = json!({"type": "box", "x": 0, "y": 0, "width": side("width"), "height": side("height")});
                (Some(ScreenshotOrigin::Document), Some(clip))
            }
            Shot::Element(target) => (Some(ScreenshotOrigin::Viewport), Some(self.element_box(tab, target).await?)),
        };
        let command = CaptureScreenshot { context: ctx(tab), origin, clip };
        let shot = match self.send_to_page(&Place::top(tab), command, self.call_timeout).await? {
            PageAnswer::Answered(shot) => shot,
            PageAnswer::Held(dialog) => return Err(BrowserError::DialogOpen { tab: tab.clone(), dialog }),
        };
        base64::engine::general_purpose::STANDARD
            .decode(shot.data)
            .map_err(|e| BrowserError::Browser { op: CaptureScreenshot::METHOD.into(), source: Box::new(e) })
    }

    /// The element's box in the viewport, as a clip; an element of a frame is refused (a
    /// picture is taken of the tab, whose viewport the frame's boxes are not measured in).
    async fn element_box(&self, tab: &TabId, target: &Target) -> Result<Value, BrowserError> {
        if let Target::Ref(reference) = target
            && reference.frame.is_some()
        {
            return Err(BrowserError::InvalidArgument(format!(
                "{target} is inside a frame: take a picture of the viewport, or of the frame's element that holds it"
            )));
        }
        let answer = self.call(tab, &ELEMENT_BOX, &[target.finder_arg(), Staleness::finder_names()]).await?;
        match answer {
            Value::Object(found) if found.contains_key("empty") => Err(BrowserError::NotInteractable {
                target: target.to_string(),
                why: "it has no box to take a picture of (hidden, or of no size)".into(),
            }),
            Value::Object(found) => {
                let n = |key: &str| found.get(key).and_then(Value::as_f64).unwrap_or(0.0);
                Ok(json!({"type": "box", "x": n("x"), "y": n("y"), "width": n("width"), "height": n("height")}))
            }
            other => Err(BrowserError::element_not_found(tab, target, &other)),
        }
    }
}
