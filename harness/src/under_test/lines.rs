//! An agent's stdout, read a line at a time, whatever its lines' length and whenever a call
//! is given up (a JSON-lines agent's answers, an MCP server's messages).

use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, BufReader};
use tokio::process::ChildStdout;

/// The longest line an answer may be (a snapshot of a large page is one long line).
const MAX_LINE: usize = 64 << 20;

/// The agent's stdout, a line at a time. Cancel-safe: a line read in part when the caller's
/// deadline ends a call stays in the buffer and is finished by the next read.
pub(crate) struct LineReader<R = ChildStdout> {
    reader: BufReader<R>,
    buf: Vec<u8>,
    /// Set once a line was too long: the stream can no longer be read in step.
    broken: bool,
}

impl<R: tokio::io::AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(stdout: R) -> Self {
        Self { reader: BufReader::new(stdout), buf: Vec::new(), broken: false }
    }

    /// The next line that is not blank, without its line end; `None` at the end of the stream.
    pub(crate) async fn next(&mut self) -> std::io::Result<Option<String>> {
        loop {
            if self.broken {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, too_long()));
            }
            let room = (MAX_LINE + 1).saturating_sub(self.buf.len()) as u64;
            let read = (&mut self.reader).take(room).read_until(b'\n', &mut self.buf).await?;
            let complete = self.buf.last() == Some(&b'\n');
            if !complete && self.buf.len() > MAX_LINE {
                self.broken = true;
                self.buf = Vec::new();
                continue;
            }
            if read == 0 && self.buf.is_empty() {
                return Ok(None);
            }
            // A line, or what came before the stream ended.
            let line = String::from_utf8_lossy(&self.buf).trim_end_matches(['\n', '\r']).to_owned();
            self.buf.clear();
            if !line.trim().is_empty() {
                return Ok(Some(line));
            }
        }
    }
}

/// The lines an agent wrote on its stdout, once it spoke its protocol, that are not its
/// protocol (a log line, a progress line): skipped, each named in a warning, and kept to be
/// named with the answer of the call they came during. Shared between the task that reads the
/// agent's stdout and the agent; at most [`STRAY_KEPT`] are kept between two takes, the rest
/// counted.
#[derive(Clone, Debug, Default)]
pub(crate) struct StrayLines(std::sync::Arc<std::sync::Mutex<Strays>>);

#[derive(Debug, Default)]
struct Strays {
    kept: Vec<String>,
    more: usize,
}

/// The most stray lines kept (and warned of) between two takes; a flood is counted, not kept.
const STRAY_KEPT: usize = 5;
/// The most of a stray line kept, in characters.
const STRAY_SHOWN: usize = 200;

impl StrayLines {
    /// Keeps `line`, written by agent `agent`, and warns of it (while fewer than [`STRAY_KEPT`]
    /// are kept).
    pub(crate) fn push(&self, agent: &str, line: &str) {
        let mut strays = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if strays.kept.len() < STRAY_KEPT {
            let shown: String = line.trim().chars().take(STRAY_SHOWN).collect();
            tracing::warn!(target: "navguard::agent", "agent {agent} wrote a line on its stdout that is not its protocol (skipped): {shown:?}");
            strays.kept.push(shown);
        } else {
            strays.more += 1;
        }
    }

    /// The lines kept since the last take (a flood's count as a last line), and forgets them.
    pub(crate) fn take(&self) -> Vec<String> {
        let mut strays = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Strays { mut kept, more } = std::mem::take(&mut *strays);
        if more > 0 {
            kept.push(format!("[{more} more lines left out]"));
        }
        kept
    }
}

fn too_long() -> String {
    format!("a line longer than {} MiB", MAX_LINE >> 20)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio::io::AsyncWriteExt as _;

    #[tokio::test]
    async fn lines_are_read_whole_blank_ones_skipped_and_the_end_is_none() {
        let mut reader = LineReader::new(&b"{\"id\":1}\r\n\n   \n{\"id\":2}\nlast without end"[..]);
        assert_eq!(reader.next().await.unwrap().as_deref(), Some("{\"id\":1}"));
        assert_eq!(reader.next().await.unwrap().as_deref(), Some("{\"id\":2}"));
        assert_eq!(reader.next().await.unwrap().as_deref(), Some("last without end"));
        assert_eq!(reader.next().await.unwrap(), None);
    }

    /// What the reader should give for `input`: its lines, each without its line end, blank
    /// ones left out.
    fn expected(input: &[u8]) -> Vec<String> {
        input
            .split_inclusive(|b| *b == b'\n')
            .map(|line| String::from_utf8_lossy(line).trim_end_matches(['\n', '\r']).to_owned())
            .filter(|line| !line.trim().is_empty())
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 128, failure_persistence: None, ..Default::default() })]
        /// Whatever the agent writes, cut into whatever pieces the pipe gives: the lines come out
        /// whole and in order, and the end of the stream is the end.
        #[test]
        fn generated_output_in_generated_pieces_is_read_line_by_line(
            input in proptest::collection::vec(proptest::sample::select(&b"ab{}\"\n\r \t\xff\xc3\xa9"[..]), 0..400),
            cuts in proptest::collection::vec(1..64usize, 1..20),
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let lines = runtime.block_on(async {
                let (mut agent, harness) = tokio::io::duplex(16);
                let pieces = input.clone();
                let writer = tokio::spawn(async move {
                    let mut rest = &pieces[..];
                    for cut in cuts.iter().cycle() {
                        if rest.is_empty() {
                            break;
                        }
                        let (piece, after) = rest.split_at((*cut).min(rest.len()));
                        agent.write_all(piece).await.unwrap();
                        rest = after;
                    }
                });
                let mut reader = LineReader::new(harness);
                let mut lines = Vec::new();
                let read = tokio::time::timeout(Duration::from_secs(10), async {
                    while let Some(line) = reader.next().await.unwrap() {
                        lines.push(line);
                    }
                });
                read.await.expect("the reader ends with the stream");
                writer.await.unwrap();
                lines
            });
            proptest::prop_assert_eq!(lines, expected(&input));
        }
    }

    #[test]
    fn stray_lines_are_kept_until_taken_and_a_flood_is_counted() {
        let strays = StrayLines::default();
        assert!(strays.take().is_empty());
        let long = "x".repeat(STRAY_SHOWN + 50);
        strays.push("fake", &format!("  {long}  "));
        assert_eq!(strays.take(), vec!["x".repeat(STRAY_SHOWN)], "trimmed and cut; taken once");
        assert!(strays.take().is_empty());
        for n in 0..STRAY_KEPT + 3 {
            strays.clone().push("fake", &format!("line {n}"));
        }
        let taken = strays.take();
        assert_eq!(taken.len(), STRAY_KEPT + 1);
        assert_eq!(taken[0], "line 0");
        assert_eq!(taken[STRAY_KEPT], "[3 more lines left out]");
    }

    #[tokio::test]
    async fn a_line_read_in_part_when_a_call_is_given_up_is_finished_by_the_next_read() {
        let (mut agent, harness) = tokio::io::duplex(64);
        let mut reader = LineReader::new(harness);
        agent.write_all(b"{\"id\":1,").await.unwrap();
        let given_up = tokio::time::timeout(Duration::from_millis(50), reader.next()).await;
        assert!(given_up.is_err(), "no whole line yet");
        agent.write_all(b"\"ok\":true}\n").await.unwrap();
        assert_eq!(reader.next().await.unwrap().as_deref(), Some(r#"{"id":1,"ok":true}"#));
    }
}
