//! A scenario's timeline (model, agent and browser lanes, each guard's wait as a span), drawn
//! for the terminal and as a picture for the HTML report, and the race verdict of
//! `navguard repro`.

mod model;
mod race;
mod svg;
mod text;

pub use model::{Timeline, Wait, build};
pub use race::race_reproduced;
pub use svg::picture;
pub use text::render;

#[cfg(test)]
mod tests;
