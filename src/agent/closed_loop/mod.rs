//! The closed loop (docs/design/closed-loop.md): the agent acts on what it has seen and checks
//! what came of it, instead of trusting that an action did what it meant. The observation a
//! model decides on (a snapshot with refs), the verification of what the model expects of the
//! page after an action or at `done`, and the detector of an agent that keeps going nowhere.
//!
//! The round decides when each runs and what follows from it; none of them knows the round,
//! so each is tested on its own.

mod observe;
mod verify;

pub use observe::{Element, FormContext, FrameSeen, LeftOut, Observation, observe};
pub(in crate::agent) use observe::{observation_of, observe_told, snapshot_args};
pub use verify::{Miss, Verdict};

pub(super) use observe::blocked;
pub(super) use verify::{ExpectError, ExpectKey, Expectation, check_now_and_on, verify};
