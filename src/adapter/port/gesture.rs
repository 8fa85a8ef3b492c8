//! The pointer's gestures besides a click (a hover, a drag) and a file input's files: each
//! target found as a click finds it, a ref refused as stale when its document went or is going.

use super::BidiPort;
use super::click::{Lookup, gone_as_stale};
use crate::adapter::target::Place;
use crate::bidi::modules::input::{PerformActions, SetFiles};
use crate::browser::{BrowserError, Gesture, TabId, Target};
use std::path::PathBuf;

impl BidiPort {
    /// Performs `gesture`. A drag's two targets must be in one document (a frame's elements
    /// are measured in that frame's own viewport).
    pub(super) async fn perform_gesture(&self, tab: &TabId, gesture: &Gesture) -> Result<(), BrowserError> {
        match gesture {
            Gesture::Hover(target) => {
                let place = Place::of_target(tab, target);
                let node = self.node_for(&place, target, Lookup::Clickable).await?;
                gone_as_stale(self.input(&place, PerformActions::hover(place.context(), &node)).await, target)
            }
            Gesture::Drag { from, to } => {
                let place = Place::of_target(tab, from);
                if Place::of_target(tab, to).context() != place.context() {
                    return Err(BrowserError::InvalidArgument(format!(
                        "{from} and {to} are in different frames: a drag goes from one element to another of the same document"
                    )));
                }
                let source = self.node_for(&place, from, Lookup::Clickable).await?;
                let onto = self.node_for(&place, to, Lookup::Clickable).await?;
                let dragged = self.input(&place, PerformActions::drag(place.context(), &source, &onto)).await;
                gone_as_stale(gone_as_stale(dragged, from), to)
            }
        }
    }

    /// Puts `paths` in the file input `target` names.
    pub(super) async fn put_files(&self, tab: &TabId, target: &Target, paths: &[PathBuf]) -> Result<(), BrowserError> {
        let place = Place::of_target(tab, target);
        let node = self.node_for(&place, target, Lookup::Found).await?;
        let files = paths.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let command = SetFiles::new(place.context(), &node, files);
        gone_as_stale(self.send_to_page(&place, command, self.call_timeout).await.map(|_| ()), target)
    }
}
