//! Which URLs a browser agent cannot or must not operate: every scheme but http(s), and
//! anything that does not parse. Robust to case, surrounding white space, control characters
//! and percent-encoding tricks, because the check reads the URL the way the browser will.

/// Whether the agent must refuse or stop on `url`.
pub(crate) fn is_restricted_url(url: &str) -> bool {
    // The URL standard strips leading/trailing C0 controls and spaces, and removes tabs and
    // newlines anywhere: "java\tscript:" is "javascript:". Parse it the same way.
    let cleaned: String =
        url.trim_matches(|c: char| c <= ' ').chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect();
    match url::Url::parse(&cleaned) {
        Ok(parsed) => !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none_or(str::is_empty),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESTRICTED: &[&str] = &[
        "",
        " ",
        "about:blank",
        "ABOUT:BLANK",
        "about:srcdoc",
        " about:blank ",
        "about:newtab",
        "chrome://settings",
        "CHROME://version",
        "chrome-extension://abcdefghijklmnop/popup.html",
        "chrome-untrusted://terminal/",
        "devtools://devtools/bundled/inspector.html",
        "edge://settings",
        "data:text/html,<h1>x</h1>",
        "DATA:text/html;base64,PGgxPg==",
        "file:///etc/passwd",
        "FILE:///C:/Windows",
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        " javascript:alert(1)",
        "java\tscript:alert(1)",
        "java\nscript:alert(1)",
        "\u{0}javascript:alert(1)",
        "javascript%3Aalert(1)",
        "view-source:http://example.com/",
        "VIEW-SOURCE:https://example.com",
        "blob:https://example.com/550e8400-e29b-41d4-a716-446655440000",
        "filesystem:https://example.com/temporary/x",
        "ftp://example.com/",
        "ws://example.com/",
        "wss://example.com/",
        "mailto:a@example.com",
        "tel:123",
        "intent://scan/#Intent;end",
        "chrome-search://local-ntp/",
        "moz-extension://x/y",
        "resource://gre/",
        "about:config",
        "http://",
        "https://",
        "//example.com/relative",
        "/just/a/path",
        "example.com",
        "not a url",
        "http//example.com",
        "%68ttp://example.com",
    ];

    const ALLOWED: &[&str] = &[
        "http://example.com",
        "https://example.com/",
        "HTTPS://EXAMPLE.COM/a?b=c#d",
        " https://example.com ",
        "http://127.0.0.1:8080/page?title=x",
        "https://[::1]:443/",
        "http://user:pass@example.com/",
        "https://example.com/javascript:alert(1)",
        "https://example.com/?u=about:blank",
        "https://xn--nxasmq6b.example/",
        "http://localhost/",
    ];

    #[test]
    fn every_non_http_form_is_restricted() {
        for url in RESTRICTED {
            assert!(is_restricted_url(url), "{url:?} should be restricted");
        }
    }

    #[test]
    fn http_and_https_pages_are_allowed() {
        for url in ALLOWED {
            assert!(!is_restricted_url(url), "{url:?} should be allowed");
        }
    }
}
