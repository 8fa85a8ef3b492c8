//! The timeline as a picture for the HTML report, drawn like the sequence diagrams of
//! docs/design/navigation-transients.md: time runs down (T0, T0+5ms, …), one lifeline per lane, the
//! design's WAIT / STOP / OK tags, each wait a band on the agent's lifeline with an arrow from the
//! browser event that ended it.

use super::model::{Lane, Mark, Timeline};
use maud::{Markup, html};

const ROW_H: f64 = 22.0;
const TOP: f64 = 44.0;
const TIME_RIGHT: f64 = 84.0;
const LANE_X: [f64; 3] = [116.0, 176.0, 236.0];
const TAG_X: f64 = 268.0;
const TEXT_X: f64 = 318.0;
/// Longer texts are cut (the full text is the row's tooltip).
const TEXT_CHARS: usize = 150;
const WIDTH: f64 = TEXT_X + TEXT_CHARS as f64 * 6.6;

fn lane_x(lane: Lane) -> f64 {
    LANE_X[Lane::ALL.iter().position(|l| *l == lane).unwrap_or(0)]
}

fn row_y(index: usize) -> f64 {
    TOP + index as f64 * ROW_H
}

fn lane_colour(lane: Lane) -> &'static str {
    match lane {
        Lane::Model => "#7b4fb0",
        Lane::Agent => "#2f6fb3",
        Lane::Browser => "#666",
    }
}

fn tag_colour(mark: Mark) -> &'static str {
    match mark {
        Mark::Plain => "none",
        Mark::Wait => "#d99a1e",
        Mark::Stop => "#c9302c",
        Mark::Ok => "#3d8b3d",
    }
}

fn time_label(t_ms: f64) -> String {
    if t_ms < 0.5 { "T0".to_owned() } else { format!("T0+{t_ms:.0}ms") }
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The picture, as inline SVG; an empty timeline draws nothing. `id` names its arrowhead
/// marker: one per picture, so that pictures sharing a page do not share ids.
pub fn picture(timeline: &Timeline, id: &str) -> Markup {
    if timeline.items.is_empty() {
        return html! {};
    }
    let bottom = row_y(timeline.items.len());
    html! {
        svg xmlns="http://www.w3.org/2000/svg" class="timeline" width=(WIDTH) height=(bottom)
            font-family="monospace" font-size="12" {
            defs {
                marker id=(id) viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7"
                    orient="auto-start-reverse" {
                    path d="M 0 0 L 10 5 L 0 10 z" fill="#d99a1e" {}
                }
            }
            @for lane in Lane::ALL {
                text x=(lane_x(lane)) y=(TOP - 24.0) text-anchor="middle" font-weight="bold"
                    fill=(lane_colour(lane)) { (lane.name()) }
                line x1=(lane_x(lane)) y1=(TOP - 14.0) x2=(lane_x(lane)) y2=(bottom) stroke="#ccc" {}
            }
            @for wait in &timeline.waits {
                rect x=(lane_x(Lane::Agent) - 6.0) y=(row_y(wait.start)) width="12"
                    height=((row_y(wait.end) - row_y(wait.start)).max(4.0)) fill="#d99a1e" fill-opacity="0.45" {
                    title { "guard wait: " (wait.outcome) }
                }
                @if let Some(by) = wait.ended_by {
                    line x1=(lane_x(Lane::Browser)) y1=(row_y(by)) x2=(lane_x(Lane::Agent) + 7.0)
                        y2=(row_y(wait.end)) stroke="#d99a1e" stroke-width="1.5" marker-end={ "url(#" (id) ")" } {}
                }
            }
            @for (i, item) in timeline.items.iter().enumerate() {
                g {
                    title { (time_label(item.t_ms)) "  " (item.lane.name()) "  " (item.text) }
                    text x=(TIME_RIGHT) y=(row_y(i) + 4.0) text-anchor="end" fill="#555" { (time_label(item.t_ms)) }
                    circle cx=(lane_x(item.lane)) cy=(row_y(i)) r="4" fill=(lane_colour(item.lane)) {}
                    @if item.mark != Mark::Plain {
                        rect x=(TAG_X) y=(row_y(i) - 8.0) width="40" height="16" rx="3" fill=(tag_colour(item.mark)) {}
                        text x=(TAG_X + 20.0) y=(row_y(i) + 4.0) text-anchor="middle" fill="white" font-weight="bold" {
                            (item.mark.tag())
                        }
                    }
                    text x=(TEXT_X) y=(row_y(i) + 4.0) fill=(lane_colour(item.lane)) { (cut(&item.text)) }
                }
            }
        }
    }
}
