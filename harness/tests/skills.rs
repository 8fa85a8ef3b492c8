//! `navguard serve --skills DIR` end to end: the real binary, a real HTTP client (ureq). A broken
//! skill is named with its file and line and left out; the search answers in English and
//! Chinese, and answers any query; the /skills page; a folder that cannot be read stops the
//! start (exit 2).

mod common;

use common::*;
use serde_json::Value;
use std::process::{Command, Stdio};

fn write(dir: &std::path::Path, rel: &str, text: &str) {
    let file = dir.join(rel);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
}

fn search(server: &Server, query: &str) -> (u16, Value) {
    let (code, body) = get(server, &format!("/api/skills/search?{query}"));
    (code, serde_json::from_str(&body).unwrap_or(Value::String(body)))
}

fn names(answer: &Value) -> Vec<&str> {
    answer["hits"].as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap()).collect()
}

#[test]
fn skills_are_indexed_at_start_a_broken_one_is_named_and_any_query_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("skills");
    write(
        &library,
        "shop/SKILL.md",
        "---\nname: shop-checkout\ndescription: Buy a book on the shop\n---\nPress Place order, then confirm with the user.\n",
    );
    write(
        &library,
        "zh/SKILL.md",
        "---\nname: 退款申请\ndescription: 在商城提交退款申请\n---\n打开订单页面，点击申请退款。\n",
    );
    write(&library, "broken/SKILL.md", "---\nname: broken\ndescription: x\nsites: [a, b\n  - c\n---\n");
    let log = dir.path().join("serve.log");
    let args = ["--skills", library.to_str().unwrap()];
    let stderr = Stdio::from(std::fs::File::create(&log).unwrap());
    let server = Server::start_logging(&dir.path().join("serve"), "127.0.0.1:0", &args, &[], stderr);
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(said.contains("navguard serve: skills: broken/SKILL.md:5: "), "{said}");
    assert!(said.contains("navguard serve: 2 skills indexed from "), "{said}");

    let (code, found) = search(&server, "q=how+do+I+buy+a+book&limit=3");
    assert_eq!((code, names(&found)), (200, vec!["shop-checkout"]), "{found}");
    let hit = &found["hits"][0];
    assert_eq!(
        (hit["path"].as_str(), hit["description"].as_str()),
        (Some("shop/SKILL.md"), Some("Buy a book on the shop"))
    );
    // The procedure holds none of the words: the snippet is the description.
    assert!(hit["score"].as_f64().unwrap() > 0.0 && hit["snippet"] == "Buy a book on the shop", "{hit}");
    let (_, found) = search(&server, "q=place+order");
    assert!(found["hits"][0]["snippet"].as_str().unwrap().contains("Place order"), "{found}");
    let (code, found) = search(&server, "q=%E6%88%91%E6%83%B3%E9%80%80%E6%AC%BE"); // 我想退款
    assert_eq!((code, names(&found)), (200, vec!["退款申请"]), "{found}");
    // Bytes that are not UTF-8, a query of 20 000 characters, no query: answered all the same.
    assert_eq!(search(&server, "q=%FF%FE%00buy").0, 200);
    assert_eq!(search(&server, &format!("q={}", "book+".repeat(4000))).1["hits"][0]["name"], "shop-checkout");
    assert_eq!(search(&server, "").1, serde_json::json!({"hits": []}));
    let (code, refused) = search(&server, "q=book&limit=0");
    assert_eq!((code, refused["error"]["code"].as_str()), (400, Some("BAD_REQUEST")), "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().starts_with("limit: "), "{refused}");
    let unauthorized = agent().get(format!("{}/api/skills/search?q=book", server.base)).call().unwrap();
    assert_eq!(unauthorized.status().as_u16(), 401);

    let (code, page) = get(&server, "/skills?q=book");
    assert!(code == 200 && page.contains("shop-checkout") && page.contains("name=\"q\""), "{page}");
}

#[test]
fn a_skills_folder_that_cannot_be_read_stops_the_start_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_navguard"))
        .args(["serve", "--data-dir", &dir.path().display().to_string(), "--skills", "/nonexistent/skills"])
        .env("NAVGUARD_SECRET", SECRET)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--skills /nonexistent/skills: "), "{stderr}");
}
