//! Which browser a run drives: its driver, its binary, how to install them, and the session
//! capabilities that work on a machine with no display and no outside network.

use super::error::LaunchError;
use super::launch::find_binary;
use fantoccini::wd::Capabilities;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Chromium's flags that work as root with no display and no outside network (bidi-facts.md),
/// but the features it runs without ([`chromium_disabled_features`]).
pub(super) const CHROMIUM_ARGS: [&str; 9] = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    // Even with the flags above, Chromium still looks up Google's hosts (time, autofill,
    // optimisation hints, translation): every name but loopback resolves to nothing, and those
    // services are off (below), so the browser talks to 127.0.0.1 only.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
];

/// The Google services Chromium would reach for on its own.
const CHROMIUM_SERVICES_OFF: [&str; 7] = [
    "NetworkTimeServiceQuerying",
    "AutofillServerCommunication",
    "OptimizationGuideModelDownloading",
    "OptimizationHintsFetching",
    "OptimizationHints",
    "MediaRouter",
    "Translate",
];

/// The address bar's two suggestion popups, which headless Chromium builds as web pages in a
/// renderer of their own for every window though no one can see or type in them: more than a
/// second of CPU per browser or window (docs/running.md, "Where the time goes").
const CHROMIUM_POPUP_PAGES: [&str; 2] = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];

/// `--disable-features=`: the services always, the popup pages unless `popup_pages`.
fn chromium_disabled_features(popup_pages: bool) -> String {
    let popups: &[&str] = if popup_pages { &[] } else { &CHROMIUM_POPUP_PAGES };
    format!("--disable-features={}", [&CHROMIUM_SERVICES_OFF[..], popups].concat().join(","))
}

/// A browser navguard can drive over WebDriver BiDi.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BrowserKind {
    /// Chromium with ChromeDriver (Debian's `chromium`, `chromium-driver`).
    #[default]
    Chromium,
    /// Firefox ESR with geckodriver (Debian's `firefox-esr`; geckodriver from crates.io).
    Firefox,
}

/// A browser name that is not one of [`BrowserKind::ALL`].
#[derive(Debug, thiserror::Error)]
#[error("unknown browser {0:?}: use {known}", known = BrowserKind::ALL.map(BrowserKind::name).join(" or "))]
pub struct UnknownBrowser(pub String);

impl std::str::FromStr for BrowserKind {
    type Err = UnknownBrowser;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|k| k.name() == name).ok_or_else(|| UnknownBrowser(name.to_owned()))
    }
}

impl std::fmt::Display for BrowserKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl BrowserKind {
    /// Every browser, in the order reports list them.
    pub const ALL: [BrowserKind; 2] = [Self::Chromium, Self::Firefox];

    /// The browser's name in options, reports and expectation files: the one list of them.
    pub fn name(self) -> &'static str {
        match self {
            Self::Chromium => "chromium",
            Self::Firefox => "firefox",
        }
    }

    /// The browser's `browserName` capability (what a Selenium Grid's node stereotypes name).
    pub fn capability_name(self) -> &'static str {
        match self {
            Self::Chromium => "chrome",
            Self::Firefox => "firefox",
        }
    }

    /// What to do when the browser or its driver is not found: an installed `navguard` (from
    /// PyPI, npm or crates.io) has no repository beside it, so the hint names the packages and
    /// the variables, not the repository's set-up script.
    fn install_hint(self) -> String {
        match self {
            Self::Chromium => {
                "install Debian's packages (`sudo apt-get install chromium chromium-driver`), or set \
                 NAVGUARD_CHROMEDRIVER and NAVGUARD_CHROMIUM to the driver and the browser you have"
            }
            Self::Firefox => {
                "install Debian's `firefox-esr` and geckodriver (`cargo install geckodriver --locked`, or a \
                 release from github.com/mozilla/geckodriver on PATH), or set NAVGUARD_GECKODRIVER and \
                 NAVGUARD_FIREFOX to the driver and the browser you have"
            }
        }
        .to_owned()
    }

    /// The WebDriver server (`NAVGUARD_CHROMEDRIVER` / `NAVGUARD_GECKODRIVER` override).
    pub fn driver(self) -> Result<PathBuf, LaunchError> {
        match self {
            Self::Chromium => find_binary("NAVGUARD_CHROMEDRIVER", &["chromedriver"], self.install_hint()),
            Self::Firefox => find_binary("NAVGUARD_GECKODRIVER", &["geckodriver"], self.install_hint()),
        }
    }

    /// The browser (`NAVGUARD_CHROMIUM` / `NAVGUARD_FIREFOX` override).
    pub fn binary(self) -> Result<PathBuf, LaunchError> {
        match self {
            Self::Chromium => find_binary(
                "NAVGUARD_CHROMIUM",
                &["chromium", "chromium-browser", "google-chrome"],
                self.install_hint(),
            ),
            Self::Firefox => find_binary("NAVGUARD_FIREFOX", &["firefox-esr", "firefox"], self.install_hint()),
        }
    }

    /// The driver's arguments beyond `--port`. geckodriver gives every Firefox it starts the
    /// same BiDi port (9222) unless told otherwise, so two runs at once would collide; port 0
    /// lets the system choose.
    pub(crate) fn driver_args(self) -> &'static [&'static str] {
        match self {
            Self::Chromium => &[],
            Self::Firefox => &["--websocket-port=0"],
        }
    }

    /// What the driver prints once it listens.
    pub(crate) fn ready_line(self) -> &'static str {
        match self {
            Self::Chromium => "started successfully",
            Self::Firefox => "Listening on",
        }
    }

    /// The session's capabilities: BiDi on, dialogs left open, the browser's binary if known,
    /// headless unless asked otherwise. Chromium gets a fresh profile in `profile` when given (a
    /// remote end makes its own, on its machine), and its address bar's popup pages only when
    /// `popup_pages`; geckodriver always makes its own profile. A local browser saves what the
    /// page downloads in `profile`'s `downloads` folder: left to itself, either browser saves
    /// it in the user's own `~/Downloads`, where nothing removes it.
    pub(crate) fn capabilities(
        self,
        binary: Option<&Path>,
        profile: Option<&Path>,
        headless: bool,
        popup_pages: bool,
    ) -> Capabilities {
        let caps = match self {
            Self::Chromium => json!({
                "browserName": self.capability_name(),
                "webSocketUrl": true,
                "unhandledPromptBehavior": leave_dialogs_open(),
                "goog:chromeOptions": chromium_options(binary, profile, headless, popup_pages),
            }),
            Self::Firefox => json!({
                "browserName": self.capability_name(),
                "webSocketUrl": true,
                "unhandledPromptBehavior": leave_dialogs_open(),
                "moz:firefoxOptions": firefox_options(binary, profile, headless),
            }),
        };
        match caps {
            Value::Object(map) => map,
            _ => unreachable!("a JSON object literal"),
        }
    }
}

/// `unhandledPromptBehavior`: every dialog is left open (`ignore`) for the agent to see and
/// answer. Without it both drivers dismiss alerts, confirms and prompts at once ("dismiss and
/// notify") and accept a page's question whether to leave, so the agent would never know a
/// page asked anything, and an agent attached to the same browser over CDP would find its
/// dialogs already gone.
fn leave_dialogs_open() -> Value {
    json!({ "default": "ignore" })
}

fn chromium_options(binary: Option<&Path>, profile: Option<&Path>, headless: bool, popup_pages: bool) -> Value {
    let mut args: Vec<String> =
        CHROMIUM_ARGS.iter().filter(|a| headless || !a.starts_with("--headless")).map(|a| (*a).to_owned()).collect();
    args.push(chromium_disabled_features(popup_pages));
    if let Some(profile) = profile {
        args.push(format!("--user-data-dir={}", profile.display()));
    }
    let mut options = json!({ "args": args });
    if let Some(binary) = binary {
        options["binary"] = json!(binary.display().to_string());
    }
    if let Some(profile) = profile {
        options["prefs"] = json!({
            "download.default_directory": downloads(profile),
            "download.prompt_for_download": false,
        });
    }
    options
}

/// The folder a local browser saves downloads in: inside its own temporary folder, removed
/// with it.
fn downloads(profile: &Path) -> String {
    profile.join("downloads").display().to_string()
}

fn firefox_options(binary: Option<&Path>, profile: Option<&Path>, headless: bool) -> Value {
    let args: Vec<&str> = if headless { vec!["-headless"] } else { vec![] };
    let mut options = json!({ "args": args });
    if let Some(profile) = profile {
        // folderList 2: the folder `browser.download.dir` names, not the user's Downloads.
        options["prefs"] = json!({
            "browser.download.dir": downloads(profile),
            "browser.download.folderList": 2,
            "browser.download.useDownloadDir": true,
        });
    }
    if let Some(binary) = binary {
        options["binary"] = json!(binary.display().to_string());
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_an_unknown_one_is_named() {
        for kind in BrowserKind::ALL {
            assert_eq!(kind.name().parse::<BrowserKind>().unwrap(), kind);
        }
        let err = "safari".parse::<BrowserKind>().unwrap_err();
        assert_eq!(err.to_string(), "unknown browser \"safari\": use chromium or firefox");
    }

    #[test]
    fn both_browsers_ask_for_bidi_and_open_dialogs_and_headless_is_optional() {
        let profile = Some(Path::new("/tmp/p"));
        for kind in BrowserKind::ALL {
            let caps = Value::Object(kind.capabilities(None, profile, true, false));
            assert_eq!(caps["webSocketUrl"], json!(true), "{kind}");
            assert_eq!(caps["browserName"], json!(kind.capability_name()), "{kind}");
            assert_eq!(caps["unhandledPromptBehavior"], json!({"default": "ignore"}), "{kind}");
            let headful = Value::Object(kind.capabilities(None, profile, false, false)).to_string();
            assert!(!headful.contains("headless"), "{kind}: {headful}");
            // A remote end's machine makes its own profile: no path of this one is sent.
            let remote = Value::Object(kind.capabilities(None, None, true, false)).to_string();
            assert!(!remote.contains("/tmp/p") && !remote.contains("user-data-dir"), "{kind}: {remote}");
            // A local one saves downloads in its own folder, never the user's.
            assert!(caps.to_string().contains(r#""/tmp/p/downloads""#), "{kind}: {caps}");
        }
    }

    #[test]
    fn chromium_runs_without_its_popup_pages_unless_asked_and_always_without_the_services() {
        let args = |popup_pages| {
            let caps = Value::Object(BrowserKind::Chromium.capabilities(None, None, true, popup_pages));
            let args = caps["goog:chromeOptions"]["args"].as_array().unwrap().clone();
            let off: Vec<Value> =
                args.into_iter().filter(|a| a.as_str().is_some_and(|a| a.starts_with("--disable-features="))).collect();
            assert_eq!(off.len(), 1, "one --disable-features, or Chromium keeps only the last");
            off[0].as_str().unwrap().to_owned()
        };
        assert!(args(false).contains("WebUIOmniboxPopup,WebUIOmniboxAimPopup"));
        assert!(!args(true).contains("Omnibox"));
        for popup_pages in [false, true] {
            assert!(args(popup_pages).contains("Translate"));
        }
    }
}
