//! Site permissions (docs/design/orchestrator.md, "Site permissions"): with `--permissions ask`,
//! an action that changes a page runs only on an origin the user granted. Navigations, waits and
//! reads need no grant: going to a site is not acting on it. A grant or a refusal is the user's
//! word on an origin, kept across restarts; the executor checks the page's origin once more at
//! the last moment, as it re-checks risk.

use crate::model::ToolName;
use url::Url;

navguard::closed_set! {
    /// Whether actions need the user's grant of their site (`navguard serve --permissions`).
    pub enum PermissionMode("permissions mode") {
        /// Every site may be acted on (the default: clients written before grants keep working).
        Open = "open",
        /// An action that changes a page waits until the user grants its origin.
        Ask = "ask",
    }
}

// Written out: the closed set's macro derives its own list of traits, which has no Default.
#[allow(clippy::derivable_impls)]
impl Default for PermissionMode {
    fn default() -> Self {
        Self::Open
    }
}

/// The tools that change a page: the ones a grant is needed for.
pub fn needs_grant(kind: ToolName) -> bool {
    matches!(kind, ToolName::Click | ToolName::Type | ToolName::PressKey | ToolName::HandleDialog)
}

/// The origin of the page at `url`, as browsers write it (`http://127.0.0.1:8080`; a default
/// port left out). A page with no origin of its own (`about:blank`, `data:`) is `null`, the way
/// browsers serialize such an origin, so no grant of a real site covers it.
pub fn origin_of(url: &str) -> String {
    Url::parse(url).map_or_else(|_| "null".to_owned(), |u| u.origin().ascii_serialization())
}

/// Why an origin given to the permissions API is not one.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum OriginError {
    #[error("origin: {given:?} is not a URL ({reason})")]
    NotAUrl { given: String, reason: String },
    #[error("origin: {given:?} has no origin of its own (give http(s)://host[:port])")]
    Opaque { given: String },
    #[error("origin: {given:?} is more than an origin (give http(s)://host[:port], without a path, query or fragment)")]
    MoreThanAnOrigin { given: String },
}

/// An origin as the user gave it (`http://Example.com:80`, with or without a final `/`),
/// written as browsers write it (`http://example.com`); a URL with a path, a query or a
/// fragment is refused rather than cut, so that nobody grants more (or less) than they read.
pub fn parse_origin(given: &str) -> Result<String, OriginError> {
    let url = Url::parse(given.trim())
        .map_err(|e| OriginError::NotAUrl { given: given.to_owned(), reason: e.to_string() })?;
    let origin = url.origin();
    if !origin.is_tuple() {
        return Err(OriginError::Opaque { given: given.to_owned() });
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(OriginError::MoreThanAnOrigin { given: given.to_owned() });
    }
    Ok(origin.ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_is_written_as_browsers_write_it_and_anything_more_is_refused() {
        assert_eq!(parse_origin("http://127.0.0.1:8080").unwrap(), "http://127.0.0.1:8080");
        assert_eq!(parse_origin(" HTTP://Example.COM:80/ ").unwrap(), "http://example.com");
        assert_eq!(parse_origin("https://example.com:443").unwrap(), "https://example.com");
        assert!(matches!(parse_origin("example.com"), Err(OriginError::NotAUrl { .. })));
        assert!(matches!(parse_origin("data:text/html,x"), Err(OriginError::Opaque { .. })));
        assert!(matches!(parse_origin("about:blank"), Err(OriginError::Opaque { .. })));
        for more in ["http://example.com/shop", "http://example.com/?a=1", "http://example.com/#top"] {
            assert!(matches!(parse_origin(more), Err(OriginError::MoreThanAnOrigin { .. })), "{more}");
        }
    }

    #[test]
    fn a_page_s_origin_and_the_pages_that_have_none() {
        assert_eq!(origin_of("http://127.0.0.1:8080/shop?x=1#y"), "http://127.0.0.1:8080");
        assert_eq!(origin_of("about:blank"), "null");
        assert_eq!(origin_of("not a url"), "null");
    }

    #[test]
    fn only_the_tools_that_change_a_page_need_a_grant() {
        let needing: Vec<ToolName> = ToolName::ALL.iter().copied().filter(|t| needs_grant(*t)).collect();
        assert_eq!(needing, [ToolName::Click, ToolName::Type, ToolName::PressKey, ToolName::HandleDialog]);
    }
}
