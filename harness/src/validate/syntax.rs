//! A feature's lines checked against the official Gherkin grammar, before cucumber's parser
//! reads them: the line at fault named with a sentence, where the parser would name a column.

/// A feature's text made into what cucumber's `gherkin` crate reads as the official Gherkin
/// parser reads the original: no byte-order mark, and a table row's text after its last `|`
/// dropped (the official parser ignores it). `None`: only blank lines and comments, which the
/// official parser reads as a document without a feature.
pub fn normalise(text: &str) -> Option<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.lines().all(|l| l.trim().is_empty() || l.trim_start().starts_with('#')) {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 1);
    let mut doc_string: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        let fence = ["\"\"\"", "```"].into_iter().find(|f| trimmed.starts_with(f));
        match (doc_string, fence) {
            (None, Some(f)) => doc_string = Some(f),
            (Some(open), Some(f)) if open == f => doc_string = None,
            _ => {}
        }
        match doc_string.is_none() && trimmed.starts_with('|') && !ends_with_bar(trimmed) {
            true => out.push_str(&line[..last_bar(line) + 1]),
            false => out.push_str(line),
        }
        out.push('\n');
    }
    Some(out)
}

/// Whether a row ends with an unescaped `|`.
fn ends_with_bar(row: &str) -> bool {
    last_bar(row) + 1 == row.len()
}

/// The byte index of the last `|` not escaped by a `\`.
fn last_bar(row: &str) -> usize {
    let mut last = 0;
    let mut escaped = false;
    for (i, c) in row.char_indices() {
        match (escaped, c) {
            (false, '\\') => escaped = true,
            (false, '|') => last = i,
            _ => escaped = false,
        }
    }
    last
}

/// A syntax error: the line at fault and what is wrong with it, in a sentence.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct SyntaxError {
    pub line: usize,
    pub message: String,
}

/// What a line is, as the official Gherkin parser's token matcher sees it (English keywords).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Empty,
    Comment,
    Tags,
    Feature,
    Rule,
    Background,
    Scenario,
    Examples,
    Step,
    Row,
    DocString,
    Other,
}

fn token(line: &str) -> Token {
    let t = line.trim();
    let starts = |words: &[&str]| words.iter().any(|w| t.starts_with(w));
    match () {
        _ if t.is_empty() => Token::Empty,
        _ if t.starts_with('#') => Token::Comment,
        _ if t.starts_with('@') => Token::Tags,
        _ if starts(&["Feature:", "Business Need:", "Ability:"]) => Token::Feature,
        _ if t.starts_with("Rule:") => Token::Rule,
        _ if t.starts_with("Background:") => Token::Background,
        _ if starts(&["Scenario:", "Example:", "Scenario Outline:", "Scenario Template:"]) => Token::Scenario,
        _ if starts(&["Examples:", "Scenarios:"]) => Token::Examples,
        _ if starts(&["Given ", "When ", "Then ", "And ", "But ", "* "]) => Token::Step,
        _ if t.starts_with('|') => Token::Row,
        _ if starts(&["\"\"\"", "```"]) => Token::DocString,
        _ => Token::Other,
    }
}

/// Where the line-level grammar is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    /// Before the Feature line.
    Start,
    /// After a Feature, Rule, Background, Scenario or Examples line: free text is description.
    Description(Token),
    /// After a step (a table or a doc string may follow).
    Step,
    /// In a step's table.
    StepTable,
    /// After a step's doc string.
    AfterDocString,
    /// In an Examples table.
    ExamplesTable,
    /// After tags: a Feature, Rule, Scenario or Examples line must follow.
    Tags,
}

/// Finds the first line the official Gherkin grammar rejects (English keywords; a file in
/// another `# language:` is left to the parser), naming it with a sentence.
pub fn check_syntax(text: &str) -> Result<(), SyntaxError> {
    let err = |line: usize, message: String| Err(SyntaxError { line, message });
    let mut at = At::Start;
    let mut seen_feature = false;
    // Whether the current Feature or Rule already has a scenario (a Background must precede them).
    let mut has_scenario = false;
    let mut doc_string: Option<(usize, &str)> = None;
    let mut last_tags = 0;
    for (n, line) in text.lines().enumerate().map(|(n, l)| (n + 1, l)) {
        let trimmed = line.trim();
        if let Some((_, fence)) = doc_string {
            if trimmed.starts_with(fence) {
                (doc_string, at) = (None, At::AfterDocString);
            }
            continue;
        }
        if let Some(language) = trimmed.strip_prefix("# language:")
            && language.trim() != "en"
        {
            return Ok(());
        }
        let tok = token(line);
        let shown: String = trimmed.chars().take(60).collect();
        at = match (at, tok) {
            (_, Token::Empty | Token::Comment) | (At::Description(_), Token::Other) => at,
            (_, Token::Tags) => {
                last_tags = n;
                At::Tags
            }
            (At::Start | At::Tags, Token::Feature) if !seen_feature => {
                seen_feature = true;
                At::Description(Token::Feature)
            }
            (At::Start, _) => {
                return err(n, format!("expected a Feature line (after tags and comments), found {shown:?}"));
            }
            (_, Token::Feature) => return err(n, "a file holds one Feature; this is a second".into()),
            (_, Token::Examples) if !in_scenario(text, n) => {
                return err(n, "an Examples line belongs under a Scenario".into());
            }
            (_, Token::Rule | Token::Scenario | Token::Examples) => {
                has_scenario = tok == Token::Scenario || (tok == Token::Examples && has_scenario);
                At::Description(tok)
            }
            (At::Tags, _) => {
                return err(
                    n,
                    format!(
                        "the tags on line {last_tags} must be followed by a Feature, Rule, Scenario or Examples \
                         line, not {shown:?}"
                    ),
                );
            }
            (_, Token::Background) if has_scenario => {
                return err(n, "a Background must come before the first Scenario of its Feature or Rule".into());
            }
            (_, Token::Background) => At::Description(Token::Background),
            // The official parser reads a step or a doc-string fence there as description text.
            (At::Description(Token::Feature | Token::Rule | Token::Examples), Token::Step | Token::DocString) => at,
            (At::Description(Token::Examples) | At::ExamplesTable, Token::Row) => At::ExamplesTable,
            (At::ExamplesTable, _) => {
                return err(
                    n,
                    format!("after an Examples table comes a row, more Examples or a Scenario, not {shown:?}"),
                );
            }
            (_, Token::Step) => At::Step,
            (At::Step | At::StepTable, Token::Row) => At::StepTable,
            (At::Step, Token::DocString) => {
                doc_string = Some((n, if trimmed.starts_with("```") { "```" } else { "\"\"\"" }));
                at
            }
            (_, Token::Row) => return err(n, "a table row belongs right under a step or an Examples line".into()),
            (_, Token::DocString) => return err(n, "a doc string belongs right under a step".into()),
            (_, Token::Other) => {
                return err(
                    n,
                    format!(
                        "{shown:?} is not a step, a table row or a keyword: steps start with Given, When, Then, \
                         And, But or *; free text is only a description, right after a Feature, Rule, \
                         Background, Scenario or Examples line"
                    ),
                );
            }
        };
    }
    match (doc_string, at) {
        (Some((line, fence)), _) => err(line, format!("the doc string opened here is never closed with {fence}")),
        (None, At::Tags) => err(last_tags, "these tags, at the end of the file, tag nothing".into()),
        (None, At::Start) => err(1, "expected a Feature line".into()),
        _ => Ok(()),
    }
}

/// Whether line `n` (an Examples line) sits under a Scenario: the nearest heading above it,
/// skipping steps, tables, tags, other Examples and free text, is a Scenario.
fn in_scenario(text: &str, n: usize) -> bool {
    let lines: Vec<&str> = text.lines().take(n - 1).collect();
    let heading = lines
        .iter()
        .rev()
        .map(|l| token(l))
        .find(|t| matches!(t, Token::Feature | Token::Rule | Token::Background | Token::Scenario));
    heading == Some(Token::Scenario)
}
