//! The fixture pages (files in `fixtures-site/pages/`, built in) and safe substitution into them.

pub(crate) const PAGE: &str = include_str!("../pages/page.html");
pub(crate) const META_REFRESH: &str = include_str!("../pages/meta-refresh.html");
pub(crate) const JS_REDIRECT: &str = include_str!("../pages/js-redirect.html");
pub(crate) const LINK: &str = include_str!("../pages/link.html");
pub(crate) const FORM: &str = include_str!("../pages/form.html");
pub(crate) const SUBMIT: &str = include_str!("../pages/submit.html");
pub(crate) const CLOSE_SELF: &str = include_str!("../pages/close-self.html");
pub(crate) const POPUP: &str = include_str!("../pages/popup.html");
pub(crate) const LATE: &str = include_str!("../pages/late.html");
pub(crate) const COUNTER: &str = include_str!("../pages/counter.html");
pub(crate) const FETCHES: &str = include_str!("../pages/fetches.html");
pub(crate) const STREAM: &str = include_str!("../pages/stream.html");
pub(crate) const SPA: &str = include_str!("../pages/spa.html");
pub(crate) const BUSY: &str = include_str!("../pages/busy.html");
pub(crate) const LOGIN: &str = include_str!("../pages/login.html");
pub(crate) const SHOP: &str = include_str!("../pages/shop.html");
pub(crate) const DONE: &str = include_str!("../pages/done.html");
pub(crate) const INJECTED: &str = include_str!("../pages/injected.html");
pub(crate) const FRAME: &str = include_str!("../pages/frame.html");
pub(crate) const DIALOG: &str = include_str!("../pages/dialog.html");
pub(crate) const OVERLAY: &str = include_str!("../pages/overlay.html");
pub(crate) const FETCH_THEN_GO: &str = include_str!("../pages/fetch-then-go.html");
pub(crate) const POLL: &str = include_str!("../pages/poll.html");
pub(crate) const BUTTON: &str = include_str!("../pages/button.html");
pub(crate) const ANCHORS: &str = include_str!("../pages/anchors.html");
pub(crate) const UPLOAD: &str = include_str!("../pages/upload.html");
pub(crate) const CACHED: &str = include_str!("../pages/cached.html");
pub(crate) const RERENDER: &str = include_str!("../pages/rerender.html");
pub(crate) const OFFSCREEN: &str = include_str!("../pages/offscreen.html");
pub(crate) const SELECT: &str = include_str!("../pages/select.html");
pub(crate) const SHADOW: &str = include_str!("../pages/shadow.html");
pub(crate) const DRAG: &str = include_str!("../pages/drag.html");
pub(crate) const HOVER_MENU: &str = include_str!("../pages/hover-menu.html");
pub(crate) const INFINITE: &str = include_str!("../pages/infinite.html");
pub(crate) const EDITOR: &str = include_str!("../pages/editor.html");
pub(crate) const FORM_FULL: &str = include_str!("../pages/form-full.html");
pub(crate) const SHIFT: &str = include_str!("../pages/shift.html");
pub(crate) const PRINT: &str = include_str!("../pages/print.html");
pub(crate) const NESTED_FRAMES: &str = include_str!("../pages/nested-frames.html");

/// Fills `{{key}}` slots; the values must already be escaped for where they go.
pub(crate) fn render(template: &str, slots: &[(&str, String)]) -> String {
    slots.iter().fold(template.to_owned(), |page, (key, value)| page.replace(&format!("{{{{{key}}}}}"), value))
}

/// Escapes text for HTML content and attribute values.
pub(crate) fn html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// A JavaScript string literal that is safe inside a `<script>` element.
pub(crate) fn js_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string().replace("</", "<\\/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_in_values() {
        let page = render("<title>{{title}}</title>", &[("title", html("<b>&\"x\""))]);
        assert_eq!(page, "<title>&lt;b&gt;&amp;&quot;x&quot;</title>");
    }

    #[test]
    fn a_script_string_cannot_close_its_script_element() {
        assert_eq!(js_string("</script>"), "\"<\\/script>\"");
    }
}
