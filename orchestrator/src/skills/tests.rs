//! The library: loading (broken files named and left out), search in English and Chinese, any
//! query answered, sites, tools and risk words.

use super::*;

fn write(dir: &Path, rel: &str, text: &str) {
    let file = dir.join(rel);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
}

fn library() -> (tempfile::TempDir, Skills, Vec<Skipped>) {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "shop/checkout/SKILL.md",
        "---\nname: shop-checkout\ndescription: Buy a book on the fixture shop\nsites: [\"http://127.0.0.1:8080\"]\nallowed-tools: [click, navigate]\nrisk-words: [continue]\n---\nOpen the shop, press Place order, confirm with the user.\n",
    );
    write(
        dir.path(),
        "zh/refund/SKILL.md",
        "---\nname: 退款申请\ndescription: 在商城提交退款申请\nsites: [\"*.mall.test\"]\n---\n打开订单页面，点击申请退款按钮，填写退款原因，然后提交。\n",
    );
    write(dir.path(), "broken/SKILL.md", "---\nname: broken\ndescription: x\nallowed-tools: [fly]\n---\n");
    write(dir.path(), "binary/SKILL.md", "");
    std::fs::write(dir.path().join("binary/SKILL.md"), [0xff_u8, 0xfe, 0x00]).unwrap();
    write(dir.path(), "notes/README.md", "not a skill");
    let (skills, skipped) = Skills::load(dir.path()).unwrap();
    (dir, skills, skipped)
}

#[test]
fn broken_files_are_named_by_file_and_line_and_the_rest_are_served() {
    let (_dir, skills, skipped) = library();
    assert_eq!(skills.len(), 2);
    let named: Vec<String> = skipped.iter().map(ToString::to_string).collect();
    assert_eq!(
        named,
        [
            "binary/SKILL.md:1: not UTF-8 text; the skill is left out",
            "broken/SKILL.md:4: `allowed-tools`: unknown tool \"fly\": expected one of open_url, focus_tab, navigate, go_back, click, type, press_key, handle_dialog, close_tabs, wait, wait_for, wait_for_network_idle, ask_user, done, snapshot, list_tabs, scroll, extract, screenshot, select_option, hover, drag, upload_file, fill_form; the skill is left out",
        ]
    );
    let missing = Skills::load(Path::new("/nonexistent/skills")).unwrap_err();
    assert!(missing.is_usage() && missing.to_string().starts_with("--skills /nonexistent/skills: "), "{missing}");
}

#[test]
fn english_and_chinese_queries_find_their_skill_first() {
    let (_dir, skills, _) = library();
    let hits = skills.search("how do I buy a book", 5).unwrap();
    assert_eq!(hits[0].name, "shop-checkout", "{hits:?}");
    assert_eq!(hits[0].path, "shop/checkout/SKILL.md");
    assert!(hits[0].score > 0.0);
    // Chinese, with no spaces between words: the tokenizer finds 退款 in both.
    let hits = skills.search("我想退款", 5).unwrap();
    assert_eq!(hits.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(), ["退款申请"], "{hits:?}");
    assert!(hits[0].snippet.contains("退款"), "{hits:?}");
    assert!(skills.search("PLACE ORDER", 5).unwrap()[0].snippet.contains("Place order"), "case does not matter");
}

#[test]
fn any_query_is_answered_long_binary_or_not_a_query_at_all() {
    let (_dir, skills, _) = library();
    let long = "buy ".repeat(10_000);
    assert_eq!(skills.search(&long, 5).unwrap()[0].name, "shop-checkout");
    for odd in ["\u{0}\u{1}\u{7f}buy", "\"unbalanced", "AND", "name:(", "*", "", "   ", "-"] {
        let hits = skills.search(odd, 5);
        assert!(hits.is_ok(), "{odd:?}: {hits:?}");
    }
    assert!(skills.search("buy", 1000).unwrap().len() <= MAX_HITS);
    assert_eq!(skills.search("buy", 0).unwrap().len(), 1, "at least one hit is asked for");
}

#[test]
fn sites_narrow_the_tools_and_add_risk_words_on_their_pages_only() {
    let (_dir, skills, _) = library();
    let offered = [ToolName::Navigate, ToolName::Click, ToolName::Type, ToolName::Done];
    assert_eq!(
        skills.tools_on("http://127.0.0.1:8080/shop", &offered),
        [ToolName::Navigate, ToolName::Click, ToolName::Done]
    );
    assert_eq!(skills.tools_on("http://127.0.0.1:9090/shop", &offered), offered, "another origin");
    assert_eq!(skills.risk_words_on("http://127.0.0.1:8080/x"), ["continue"]);
    assert!(skills.risk_words_on("http://127.0.0.1:9090/x").is_empty());
    let refund = skills.named("退款申请").unwrap();
    assert!(refund.applies_to("https://www.mall.test/orders") && !refund.applies_to("https://mall.test.evil/"));
    assert!(!refund.applies_to("not a url"));
}
