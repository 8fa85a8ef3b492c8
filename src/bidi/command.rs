//! The typed-command trait: a params struct knows its wire method and its result type.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A BiDi command: its params serialize to the wire `params`, its reply to `Output`.
pub trait Command: Serialize {
    /// The wire method, e.g. `browsingContext.navigate`.
    const METHOD: &'static str;
    /// The reply's `result`.
    type Output: DeserializeOwned;
}

/// The empty result `{}` many commands answer with.
#[derive(Debug, serde::Deserialize)]
pub struct Empty {}
