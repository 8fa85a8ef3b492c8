//! Origins, parsed safely: an opaque origin (about:blank, data:, a URL that does not parse)
//! never equals another.

use url::{Origin, Url};

/// The origin of `url`, if it has a tuple origin (scheme, host, port).
pub fn safe_parse_origin(url: &str) -> Option<Origin> {
    let origin = Url::parse(url.trim()).ok()?.origin();
    origin.is_tuple().then_some(origin)
}

/// The origin as text, e.g. `http://127.0.0.1:8080`.
pub(in crate::agent) fn origin_text(origin: &Origin) -> String {
    origin.ascii_serialization()
}

/// Whether `url` is on `origin`.
pub(in crate::agent) fn same_origin(url: &str, origin: &Origin) -> bool {
    safe_parse_origin(url).is_some_and(|o| o == *origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_port_is_the_same_origin() {
        let origin = safe_parse_origin("https://example.com/a").unwrap();
        assert!(same_origin("https://example.com:443/b", &origin));
        assert!(!same_origin("http://example.com/b", &origin));
    }

    #[test]
    fn an_opaque_origin_matches_nothing() {
        assert!(safe_parse_origin("about:blank").is_none());
        assert!(safe_parse_origin("data:text/html,x").is_none());
        assert!(safe_parse_origin("not a url").is_none());
    }
}
