//! The real server on loopback (port 0), asked by a real HTTP client (ureq), not by the router
//! alone: what a browser meets.

use navguard_fixtures::FixtureSite;
use std::thread::JoinHandle;
use std::time::Duration;

/// Long enough for a loaded machine, short enough that a hang fails the test.
const DEADLINE: Duration = Duration::from_secs(20);

/// The site, served by worker threads while the test thread blocks on its client.
struct Running {
    runtime: tokio::runtime::Runtime,
    site: FixtureSite,
}

impl Running {
    fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let site = runtime.block_on(FixtureSite::start()).unwrap();
        Self { runtime, site }
    }

    /// Waits until `path` has been asked for `n` times, failing the test after [`DEADLINE`].
    fn wait_for(&self, path: &str, n: usize) {
        let arrived = self.runtime.block_on(self.site.requests().wait_for(path, n, DEADLINE));
        assert!(arrived, "{path} was not asked for {n} times within {DEADLINE:?}");
    }

    fn stop(self) {
        self.runtime.block_on(self.site.shutdown());
    }
}

struct Answer {
    status: u16,
    content_type: String,
    cache_control: String,
    body: String,
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(DEADLINE))
        // The site is on loopback: no proxy from the environment, and each redirect is seen.
        .proxy(None)
        .max_redirects(0)
        .build()
        .into()
}

fn answer(mut response: ureq::http::Response<ureq::Body>) -> Answer {
    let header = |name| response.headers().get(name).map_or("", |v| v.to_str().unwrap()).to_owned();
    let (content_type, cache_control) = (header("content-type"), header("cache-control"));
    Answer {
        status: response.status().as_u16(),
        content_type,
        cache_control,
        body: response.body_mut().read_to_string().unwrap(),
    }
}

fn get(url: &str) -> Answer {
    answer(agent().get(url).call().unwrap())
}

/// A GET on another thread, for a response the site holds.
fn get_in_background(url: String) -> JoinHandle<Answer> {
    std::thread::spawn(move || get(&url))
}

#[test]
fn a_page_answers_200_with_its_html() {
    let running = Running::start();
    let page = get(&format!("{}/page?title=Hello%20%3Cyou%3E&go=/link%3Fto%3D/page", running.site.site));
    assert_eq!(page.status, 200);
    assert_eq!(page.content_type, "text/html; charset=utf-8");
    assert_eq!(page.cache_control, "no-store", "every response says no-store");
    assert!(page.body.starts_with("<!doctype html>\n"), "{}", page.body);
    for needle in [
        "<title>Hello &lt;you&gt;</title>",
        "<a id=\"go\" href=\"/link?to=/page\">go</a>",
        "<a id=\"blank\" href=\"/page?title=Blank\" target=\"_blank\">new tab</a>",
        "window.open(\"/page?title=Opened\")",
    ] {
        assert!(page.body.contains(needle), "no {needle:?} in\n{}", page.body);
    }
    assert!(!page.body.contains("{{"), "a slot was left unfilled:\n{}", page.body);
    running.stop();
}

#[test]
fn a_bad_parameter_answers_a_400_naming_it() {
    let running = Running::start();
    let refused = get(&format!("{}/slow?delay=soon", running.site.site));
    assert_eq!(refused.status, 400);
    assert_eq!(
        refused.body,
        "bad parameter `delay`: expected a whole number of milliseconds up to 600000, got \"soon\""
    );
    let refused = get(&format!("{}/redirect?to=javascript:alert(1)", running.site.other));
    assert_eq!(refused.status, 400);
    assert!(refused.body.starts_with("bad parameter `to`: expected an http(s) URL or a path"), "{}", refused.body);
    running.stop();
}

#[test]
fn the_request_log_records_requests_in_arrival_order() {
    let running = Running::start();
    let (site, other) = (running.site.site.clone(), running.site.other.clone());
    assert_eq!(get(&format!("{site}/page?title=A")).status, 200);
    assert_eq!(get(&format!("{other}/status?code=204")).status, 204);
    let submitted = agent()
        .post(&format!("{site}/submit?title=Sent"))
        .content_type("application/x-www-form-urlencoded")
        .send("q=hello")
        .unwrap();
    assert_eq!(answer(submitted).status, 200);
    assert_eq!(get(&format!("{site}/redirect?to=/page")).status, 302);

    let log = running.site.requests().all();
    let seen: Vec<_> = log.iter().map(|r| (r.origin, r.method.as_str(), r.path.as_str(), r.query.as_str())).collect();
    assert_eq!(
        seen,
        [
            ("site", "GET", "/page", "title=A"),
            ("other", "GET", "/status", "code=204"),
            ("site", "POST", "/submit", "title=Sent"),
            ("site", "GET", "/redirect", "to=/page"),
        ]
    );
    assert!(log.windows(2).all(|w| w[0].t_ms <= w[1].t_ms), "times go backwards: {log:?}");
    assert_eq!(running.site.requests().count("/page"), 1, "the redirect was not followed: /page once");
    running.stop();
}

#[test]
fn a_gate_holds_its_request_until_released() {
    let running = Running::start();
    let held = get_in_background(format!("{}/gate?name=g&title=Through", running.site.site));
    running.wait_for("/gate", 1);
    assert!(!held.is_finished(), "the gate answered before its release");
    running.site.state.release("g");
    let through = held.join().unwrap();
    assert_eq!(through.status, 200);
    assert!(through.body.contains("<title>Through</title>"), "{}", through.body);
    running.stop();
}

#[test]
fn shutdown_releases_held_responses_with_a_503() {
    let running = Running::start();
    let gate = get_in_background(format!("{}/gate?name=never-released", running.site.site));
    let slow = get_in_background(format!("{}/slow?delay=600000", running.site.other));
    running.wait_for("/gate", 1);
    running.wait_for("/slow", 1);
    assert!(!gate.is_finished() && !slow.is_finished(), "a held response answered before shutdown");
    running.stop();
    for held in [gate, slow] {
        let released = held.join().unwrap();
        assert_eq!((released.status, released.body.as_str()), (503, "released: the fixture site shut down"));
    }
}

#[test]
fn the_two_origins_differ_and_serve_the_same_routes() {
    let running = Running::start();
    let (site, other) = (&running.site.site, &running.site.other);
    assert_ne!(site, other);
    for origin in [site, other] {
        let port = origin.strip_prefix("http://127.0.0.1:").unwrap_or_else(|| panic!("{origin} is not on loopback"));
        assert!(port.parse::<u16>().is_ok_and(|p| p != 0), "{origin}");
    }
    let (on_site, on_other) = (get(&format!("{site}/page?title=Same")), get(&format!("{other}/page?title=Same")));
    assert_eq!((on_site.status, on_other.status), (200, 200));
    assert_eq!(on_site.body, on_other.body);
    let origins: Vec<_> = running.site.requests().all().iter().map(|r| r.origin).collect();
    assert_eq!(origins, ["site", "other"]);
    running.stop();
}
