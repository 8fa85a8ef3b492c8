//! The `browser` module: user contexts (isolated sets of tabs).
//! <https://w3c.github.io/webdriver-bidi/#module-browser>

use crate::bidi::command::{Command, Empty};
use serde::{Deserialize, Serialize};

/// A user context id (`browser.UserContext`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct UserContext(pub String);

/// `browser.createUserContext`.
#[derive(Debug, Serialize)]
pub struct CreateUserContext {}

#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct UserContextInfo {
    #[serde(rename = "userContext")]
    pub user_context: UserContext,
}

impl Command for CreateUserContext {
    const METHOD: &'static str = "browser.createUserContext";
    type Output = UserContextInfo;
}

/// `browser.removeUserContext`: closes every tab in it.
#[derive(Debug, Serialize)]
pub struct RemoveUserContext {
    #[serde(rename = "userContext")]
    pub user_context: UserContext,
}

impl Command for RemoveUserContext {
    const METHOD: &'static str = "browser.removeUserContext";
    type Output = Empty;
}
