//! The suite floor: the deliberate waits written into the feature files, and the time of the
//! last gate repeat's JUnit report.

use std::path::Path;

/// The deliberate waits of one scenario's lines, in ms: `delay=N` of each distinct URL,
/// `after=N` of a script redirect (ms) or a meta refresh (s), "within N ms", "after N ms" and the
/// model's `wait` tool (`"ms": N`); URLs in Then steps are expectations and do not count. Waits that overlap are counted in full: an upper bound on
/// what the scenario must wait, and the one the brief asks for (the sum).
fn scenario_waits(lines: &[&str]) -> u64 {
    let number_after = |text: &str, key: &str| -> Vec<u64> {
        text.match_indices(key)
            .filter_map(|(at, _)| {
                let digits: String = text[at + key.len()..].chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            })
            .collect()
    };
    let mut urls: Vec<String> = Vec::new();
    let mut total = 0;
    // A URL in a Then step (or its table) is an expectation, not a page that is loaded.
    let mut asserting = false;
    for line in lines {
        if let Some(keyword) = line.split(' ').next() {
            match keyword {
                "Then" => asserting = true,
                "Given" | "When" => asserting = false,
                _ => {}
            }
        }
        for word in line.split(['"', ' ', '|']).filter(|_| !asserting) {
            if !(word.contains("delay=") || word.contains("after=")) || urls.iter().any(|u| u == word) {
                continue;
            }
            urls.push(word.to_owned());
            total += number_after(word, "delay=").iter().sum::<u64>();
            let after: u64 = number_after(word, "after=").iter().sum();
            total += if word.contains("/meta-refresh") { after * 1000 } else { after };
        }
        for key in ["within ", "after "] {
            total += number_after(line, key).into_iter().filter(|_| line.contains(" ms")).sum::<u64>();
        }
        total += number_after(line, "\"ms\": ").iter().sum::<u64>();
    }
    total
}

/// (scenario runs, their deliberate waits in ms, the longest one's) over the .feature files.
pub(crate) fn suite_waits(dir: &Path) -> (usize, u64, u64) {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "feature") {
                files.push(path);
            }
        }
    }
    let (mut runs, mut total, mut longest) = (0, 0, 0);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        // Split into Background and scenarios; an outline runs once per example row.
        let mut background: Vec<&str> = Vec::new();
        let mut blocks: Vec<Vec<&str>> = Vec::new();
        let mut in_background = false;
        for line in text.lines() {
            let t = line.trim_start();
            if t.starts_with("Background:") {
                in_background = true;
            } else if t.starts_with("Scenario") || t.starts_with("Example:") {
                in_background = false;
                blocks.push(vec![t]);
            } else if t.starts_with("Rule:") || t.starts_with("Feature:") {
                in_background = false;
            } else if in_background {
                background.push(t);
            } else if let Some(block) = blocks.last_mut() {
                block.push(t);
            }
        }
        for block in blocks {
            let rows = block
                .iter()
                .position(|l| l.starts_with("Examples:"))
                .map(|at| block[at + 1..].iter().filter(|l| l.starts_with('|')).count().saturating_sub(1));
            let steps: Vec<&str> =
                background.iter().chain(block.iter().take_while(|l| !l.starts_with("Examples:"))).copied().collect();
            let waits = scenario_waits(&steps);
            let n = rows.unwrap_or(1);
            runs += n;
            total += waits * n as u64;
            longest = longest.max(waits);
        }
    }
    (runs, total, longest)
}

/// The `time` of a JUnit report's `<testsuites>`: the sum of its scenario times, in s.
pub(crate) fn suite_time(junit: &str) -> Option<f64> {
    let head = &junit[junit.find("<testsuites")?..];
    let head = &head[..head.find('>')?];
    let time = &head[head.find(" time=\"")? + 7..];
    time[..time.find('"')?].parse().ok()
}
