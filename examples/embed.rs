//! Embedding navguard's core: launch a browser, run a task with a planner of your own, print
//! how it stopped and its trace. The planner here is a few lines of Rust standing where your
//! model goes: it opens a page, clicks the link named "next" by the ref the observation gave
//! it, and calls `done` expecting the next page's title, which the core verifies before it
//! accepts the task as done.
//!
//! ```sh
//! cargo run --example embed          # needs Chromium and chromedriver (bash ci/setup.sh chromium)
//! ```
//!
//! The page it visits is served by the example itself, on loopback.

use async_trait::async_trait;
use navguard::prelude::*;
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// Your model goes here: it is given the round's observation (after the guards) and the tools
/// it may call, and answers with calls.
struct MyPlanner {
    start: String,
}

#[async_trait]
impl Planner for MyPlanner {
    async fn next_turn(&self, request: PlanRequest<'_>) -> Result<ModelTurn, PlannerError> {
        let call = |name: &str, args: serde_json::Value| ToolCall { name: name.to_owned(), args };
        let calls = match request.observation {
            // No tab yet: open the start page.
            None => vec![call("open_url", json!({ "url": self.start }))],
            Some(page) if page.title == "Start" => {
                let next = page.elements.iter().find(|e| e.name == "next").map(|e| e.reference.to_string());
                match next {
                    Some(reference) => vec![call("click", json!({ "ref": reference }))],
                    None => vec![call("ask_user", json!({ "question": "where is the link named next?" }))],
                }
            }
            // `done` is accepted only once the page shows what it expects.
            Some(_) => vec![call("done", json!({ "summary": "followed next", "expect": { "title": "Next" } }))],
        };
        Ok(ModelTurn { calls })
    }
}

/// Serves two pages on loopback until the program ends: `/` (titled Start, with a link named
/// next) and `/next`.
async fn serve_pages() -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = [0_u8; 2048];
                let read = socket.read(&mut request).await.unwrap_or(0);
                let next = String::from_utf8_lossy(&request[..read]).starts_with("GET /next ");
                let body = if next {
                    "<title>Next</title><h1>Next</h1>"
                } else {
                    "<title>Start</title><a href=\"/next\">next</a>"
                };
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            });
        }
    });
    Ok(format!("http://{address}/"))
}

/// Runs the task; how it stopped.
async fn run() -> Result<StopReason, Box<dyn std::error::Error>> {
    let start = serve_pages().await?;
    let browser = BidiBrowser::launch(BrowserConfig::default()).await?;
    let port = browser.open_port().await?; // a set of tabs of its own
    let planner = MyPlanner { start };
    let mut task = Task::default();
    let stop = Agent::new(&port, &planner, AgentConfig::default())
        .run(&mut task, &CancellationToken::new()) // cancel() is the user's Stop
        .await;
    println!("stopped: {}", stop.message());
    for entry in &task.trace.entries {
        println!("  round {}: {:?}", entry.round, entry.event);
    }
    browser.shutdown().await;
    Ok(stop)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let stop = run().await?;
    if stop.is_success() { Ok(()) } else { Err(stop.message().into()) }
}

/// `cargo test` runs the example (its `[[example]]` entry says `test = true`).
#[tokio::test]
async fn the_example_follows_the_link_and_its_done_is_verified() {
    let stop = run().await.expect("the example runs");
    assert!(stop.is_success(), "{}", stop.message());
}
