//! The timeline in the terminal: one line per item, relative times, the lane and the design's
//! legend tag, and for each wait the event that ended it.

use super::model::Timeline;

/// Renders `timeline` as indented lines.
pub fn render(timeline: &Timeline) -> String {
    timeline
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let note = match timeline.wait_ended_by(i) {
                Some(wait) => format!("   <- ends the wait ({})", wait.outcome),
                None => String::new(),
            };
            let tag = item.mark.tag();
            format!("  T0+{:>6.0}ms  {:<7}  {tag:<4}  {}{note}", item.t_ms, item.lane.name(), item.text)
        })
        .collect::<Vec<_>>()
        .join("\n")
}
