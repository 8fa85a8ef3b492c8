//! The guards: what keeps the agent from operating a page it must not, or one that is not
//! there yet. The loop-top guard runs before every observation (a tab gone, a navigation in
//! flight, a URL the agent may not operate, a page that left its pinned origin); the open_url
//! guard, in the tool, waits for the commit of the page it opened.
//!
//! Both read URLs through the two checks kept here, restricted URLs and origins, so a URL is
//! judged the same way wherever the agent meets it.

mod origin;
mod restricted;

pub use origin::safe_parse_origin;

pub(super) use origin::{origin_text, same_origin};
pub(crate) use restricted::is_restricted_url;
