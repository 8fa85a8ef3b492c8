//! The benchmark's clock: `Instant`s read as `CLOCK_MONOTONIC` nanoseconds, the clock the
//! Playwright peer's `process.hrtime` reads, so that both sides' times compare.

use std::time::{Duration, Instant};

/// `Instant`s as `CLOCK_MONOTONIC` nanoseconds, the clock of Node's `process.hrtime`.
pub(crate) struct Monotonic {
    anchor: Instant,
    anchor_ns: i128,
}

impl Monotonic {
    /// The anchor, and how wide the tightest bracket around the raw read was.
    pub(crate) fn new() -> (Self, Duration) {
        let mut best: Option<(Self, Duration)> = None;
        for _ in 0..20 {
            let before = Instant::now();
            let raw = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
            let width = before.elapsed();
            let clock = Self {
                anchor: before + width / 2,
                anchor_ns: i128::from(raw.tv_sec) * 1_000_000_000 + i128::from(raw.tv_nsec),
            };
            if best.as_ref().is_none_or(|(_, w)| width < *w) {
                best = Some((clock, width));
            }
        }
        best.expect("twenty reads")
    }

    pub(crate) fn ns(&self, t: Instant) -> i128 {
        match t.checked_duration_since(self.anchor) {
            Some(after) => self.anchor_ns + after.as_nanos() as i128,
            None => self.anchor_ns - self.anchor.duration_since(t).as_nanos() as i128,
        }
    }
}
