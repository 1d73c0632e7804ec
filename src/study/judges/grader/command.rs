//! A judge that is a local command (`paperjudge judge --command "CMD ARGS"`): a script with
//! sentence-transformers, a batch of GPU inference, any program that reads and writes lines.
//!
//! The command is started once, without a shell (its line split into words as a shell splits
//! them: quotes and backslashes, no variables, no globs). Each pair goes to its standard input
//! as one JSON object a line, `{"id", "target_title", "target_abstract", "candidate_title",
//! "candidate_abstract"}` (the two papers' texts alone, as the blind pool shows them), and each
//! grade comes back on its standard output as one a line, `{"id", "stars"[, "explanation"]}`, in
//! any order, matched by `id`, with `concurrency` lines outstanding at most. Once every pair is
//! sent its standard input is closed: the command ends when it has answered them.
//!
//! A reply with an `id` sent but no grade (stars outside 1..5, not whole) is counted and not
//! stored; a line that answers no line sent, or one longer than [`MAX_LINE_BYTES`], stops the
//! run, as does a command that ends before it has answered every line or answers nothing for
//! the run's timeout while lines are outstanding: the message says which, with the last words
//! of its standard error. The command is killed when the run ends, however it ends; the lines
//! outstanding then are all it costs (their pairs are asked again by the next run).

use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdout};
use tokio::sync::{mpsc, watch, Semaphore};

use super::super::endpoint::shortened;
use super::{Answered, Heard, Outcome, Pair, PairTexts, Stop};

/// The longest line of the command's output read: a grade with an explanation takes a few
/// hundred bytes, and a line that never ends would otherwise be read until memory runs out.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// The longest explanation stored with a grade; a longer one is cut, with `…`.
pub const MAX_EXPLANATION_CHARACTERS: usize = 2000;

/// How long a command that has answered every line (or closed its output) is given to end
/// before it is killed.
const EXIT_WAIT: Duration = Duration::from_secs(5);

/// The bytes of the command's standard error kept (the last ones), and the characters of them
/// a message shows.
const STDERR_KEPT_BYTES: usize = 8 * 1024;
const STDERR_SHOWN_CHARACTERS: usize = 600;

/// A command line, split into words as a shell splits them (quotes and backslashes) but run
/// without a shell. What identifies a command judge: the words joined again, each quoted as a
/// shell needs, so that spacing and quoting that change nothing make no other judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    words: Vec<String>,
    line: String,
}

impl CommandLine {
    /// A command line as given (`--command`); the message says what is wrong with it.
    pub fn parse(text: &str) -> Result<CommandLine, String> {
        let shown = shortened(text, 60);
        let words = shlex::split(text).ok_or_else(|| {
            format!("--command {shown:?} has a quote that is not closed (or ends with a `\\`)")
        })?;
        if words.is_empty() {
            return Err("--command is empty: give the program to run and its arguments".to_owned());
        }
        let line = shlex::try_join(words.iter().map(String::as_str))
            .map_err(|_| format!("--command {shown:?} holds a NUL character"))?;
        Ok(CommandLine { words, line })
    }

    /// The line as stored with the judge and shown.
    pub fn as_str(&self) -> &str {
        &self.line
    }
}

/// A command, started or to be started, and how long it may leave lines unanswered.
pub struct CommandGrader {
    line: CommandLine,
    timeout: Duration,
    child: Option<Child>,
}

impl CommandGrader {
    pub fn new(line: CommandLine, timeout: Duration) -> CommandGrader {
        CommandGrader {
            line,
            timeout,
            child: None,
        }
    }

    pub fn line(&self) -> &CommandLine {
        &self.line
    }

    /// Starts the command, its standard input, output and error piped to the run, killed when
    /// it is dropped; the message says why it cannot be started.
    pub fn start(&mut self) -> Result<(), String> {
        let (program, arguments) = self.line.words.split_first().expect("a word at least");
        let child = tokio::process::Command::new(program)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| {
                format!(
                    "cannot start the command {:?}: {error}",
                    shortened(&self.line.line, 200)
                )
            })?;
        self.child = Some(child);
        Ok(())
    }

    /// Sends every pair of `pairs` to the command, `concurrency` lines outstanding at most, and
    /// tells `heard` what it answered.
    pub(in crate::study::judges) async fn ask_all(
        self,
        mut pairs: mpsc::Receiver<PairTexts>,
        concurrency: usize,
        heard: mpsc::UnboundedSender<Heard>,
    ) {
        let timeout = self.timeout;
        let Some(mut child) = self.child else {
            return;
        };
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return;
        };
        let tail = Arc::new(Mutex::new(Tail::default()));
        let reading_stderr = tokio::spawn(keep_tail(stderr, tail.clone()));
        let (lines_read, mut lines) = mpsc::channel(concurrency);
        tokio::spawn(read_lines(stdout, lines_read));
        let slots = Semaphore::new(concurrency);
        let outstanding: Mutex<HashMap<u64, Pair>> = Mutex::new(HashMap::new());
        let outstanding_now = || {
            outstanding
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .len()
        };
        let (all_sent, mut sent) = watch::channel(false);

        let write = async {
            let mut id = 0u64;
            while let Some(pair) = pairs.recv().await {
                let Ok(slot) = slots.acquire().await else {
                    break;
                };
                slot.forget();
                let line = request_line(id, &pair);
                (outstanding.lock().unwrap_or_else(PoisonError::into_inner)).insert(id, pair.pair);
                // A command that is gone cannot be written to: the end of its output says how
                // it ended.
                if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
                id += 1;
            }
            drop(stdin);
            let _ = all_sent.send(true);
        };

        let read = async {
            loop {
                let waiting = outstanding_now();
                if *sent.borrow() && waiting == 0 {
                    return Ok(());
                }
                let all_sent = *sent.borrow();
                tokio::select! {
                    line = lines.recv() => {
                        let line = match line {
                            None => return Err(Failure::Ended { unanswered: outstanding_now() }),
                            Some(Err(TooLong)) => return Err(Failure::Said(format!(
                                "the command wrote a line longer than {} KiB (a grade takes a \
                                 few dozen bytes); stopped",
                                MAX_LINE_BYTES / 1024
                            ))),
                            Some(Ok(line)) => line,
                        };
                        let (id, outcome) = reply(&line).map_err(Failure::Said)?;
                        let pair = outstanding.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
                        let Some(pair) = pair else {
                            return Err(Failure::Said(format!(
                                "the command answered the id {id}, which names no line waiting \
                                 for an answer (each line is answered once): {}",
                                shown(&line)
                            )));
                        };
                        slots.add_permits(1);
                        if heard.send(Heard::Answered(Answered { pair, outcome })).is_err() {
                            return Ok(());
                        }
                    }
                    changed = sent.changed(), if !all_sent => {
                        let _ = changed;
                    }
                    () = tokio::time::sleep(timeout), if waiting > 0 => {
                        return Err(Failure::Hung { unanswered: outstanding_now() });
                    }
                }
            }
        };

        let (mut write, mut read) = (std::pin::pin!(write), std::pin::pin!(read));
        let mut writing = true;
        let ended = loop {
            tokio::select! {
                () = &mut write, if writing => writing = false,
                ended = &mut read => break ended,
            }
        };
        let failure = match ended {
            Ok(()) => {
                // Every line answered: the command, its input closed, ends by itself, or is
                // killed.
                if tokio::time::timeout(EXIT_WAIT, child.wait()).await.is_err() {
                    let _ = child.kill().await;
                }
                return;
            }
            Err(failure) => failure,
        };
        let why = match failure {
            Failure::Ended { unanswered } => {
                let status = match tokio::time::timeout(EXIT_WAIT, child.wait()).await {
                    Ok(Ok(status)) => format!("ended ({status})"),
                    _ => {
                        let _ = child.kill().await;
                        "closed its output".to_owned()
                    }
                };
                match unanswered {
                    0 => format!("the command {status} before it was sent every pair; stopped"),
                    _ => format!(
                        "the command {status} with {unanswered} {} unanswered (not stored); \
                         stopped",
                        crate::words::plural(unanswered as u64, "line", "lines")
                    ),
                }
            }
            Failure::Hung { unanswered } => {
                let _ = child.kill().await;
                format!(
                    "the command answered nothing for {} s with {unanswered} {} outstanding: \
                     it was stopped (--timeout sets the wait)",
                    timeout.as_secs(),
                    crate::words::plural(unanswered as u64, "line", "lines")
                )
            }
            Failure::Said(why) => {
                let _ = child.kill().await;
                why
            }
        };
        // Its last words, once its standard error has ended (it has, with the command).
        let _ = tokio::time::timeout(Duration::from_secs(1), reading_stderr).await;
        let last_words = tail.lock().unwrap_or_else(PoisonError::into_inner).shown();
        let why = match last_words {
            Some(words) => format!("{why}. Its standard error ended with: {words}"),
            None => why,
        };
        let _ = heard.send(Heard::Stopped(Stop(why)));
    }
}

/// Why a command's run cannot go on.
enum Failure {
    /// Its output ended (it exited, crashed or was killed).
    Ended { unanswered: usize },
    /// No line for the timeout, `unanswered` outstanding.
    Hung { unanswered: usize },
    /// It wrote what cannot be read: the message.
    Said(String),
}

/// A line of the command's output longer than [`MAX_LINE_BYTES`].
struct TooLong;

/// The line of a pair for the command's standard input.
fn request_line(id: u64, pair: &PairTexts) -> String {
    let mut line = json!({
        "id": id,
        "target_title": pair.target.title,
        "target_abstract": pair.target.abstract_text,
        "candidate_title": pair.candidate.title,
        "candidate_abstract": pair.candidate.abstract_text,
    })
    .to_string();
    line.push('\n');
    line
}

/// A line of the command's output: the id it answers and the pair's outcome, or why it
/// answers none.
fn reply(line: &str) -> Result<(u64, Outcome), String> {
    let unmatched = |why: &str| {
        format!(
            "the command wrote a line that answers no line it was sent ({why}): {}; each \
             reply is one JSON object a line, with the `id` of the line it answers",
            shown(line)
        )
    };
    let object: Value = serde_json::from_str(line).map_err(|_| unmatched("not JSON"))?;
    let id = match object.get("id") {
        None => return Err(unmatched("no `id`")),
        Some(id) => {
            (id.as_u64()).ok_or_else(|| unmatched("its `id` is not one of the numbers sent"))?
        }
    };
    let explanation = match object.get("explanation") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) if text.trim().is_empty() => None,
        Some(Value::String(text)) => Some(shortened(text.trim(), MAX_EXPLANATION_CHARACTERS)),
        Some(other) => {
            let why = format!(
                "\"explanation\" is {}, not text: {line:?}",
                shortened(&other.to_string(), 40)
            );
            return Ok((id, Outcome::NotAGrade(why)));
        }
    };
    Ok((id, Outcome::of_reply(line, explanation)))
}

/// A line as a message quotes it.
fn shown(line: &str) -> String {
    format!("{:?}", shortened(line, 200))
}

/// Reads the lines of the command's output into `lines`, each at most [`MAX_LINE_BYTES`] (a
/// longer one is the last), blank ones skipped; the channel closes at the output's end.
async fn read_lines(stdout: ChildStdout, lines: mpsc::Sender<Result<String, TooLong>>) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        let buffer = match reader.fill_buf().await {
            Ok(buffer) => buffer,
            Err(_) => return,
        };
        if buffer.is_empty() {
            if !line.iter().all(u8::is_ascii_whitespace) {
                let _ = lines
                    .send(Ok(String::from_utf8_lossy(&line).into_owned()))
                    .await;
            }
            return;
        }
        let (taken, ended) = match buffer.iter().position(|&byte| byte == b'\n') {
            Some(at) => (at + 1, true),
            None => (buffer.len(), false),
        };
        line.extend_from_slice(&buffer[..taken]);
        reader.consume(taken);
        if line.len() > MAX_LINE_BYTES + 1 {
            let _ = lines.send(Err(TooLong)).await;
            // The pipe stays open until the run has killed the command: closed now, it would
            // fail the command's next write, and the command's own complaint about that (a
            // broken pipe) would pass for its last words.
            let _ = tokio::io::copy(&mut reader, &mut tokio::io::sink()).await;
            return;
        }
        if ended {
            let text = String::from_utf8_lossy(&line).trim().to_owned();
            line.clear();
            if !text.is_empty() && lines.send(Ok(text)).await.is_err() {
                return;
            }
        }
    }
}

/// The last bytes the command wrote on its standard error.
#[derive(Default)]
struct Tail(VecDeque<u8>);

impl Tail {
    /// Its last lines, shortened, escaped and on one line; `None` when it wrote nothing.
    fn shown(&self) -> Option<String> {
        let (front, back) = self.0.as_slices();
        let text = String::from_utf8_lossy(&[front, back].concat()).into_owned();
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        let characters = text.chars().count();
        let last = match characters.checked_sub(STDERR_SHOWN_CHARACTERS) {
            Some(skipped) if skipped > 0 => {
                format!("…{}", text.chars().skip(skipped).collect::<String>())
            }
            _ => text.to_owned(),
        };
        let one_line = last.lines().map(str::trim).collect::<Vec<_>>().join(" | ");
        Some(crate::terminal::escape(&one_line).into_owned())
    }
}

/// Keeps the last [`STDERR_KEPT_BYTES`] of `stderr` in `tail`, until it ends.
async fn keep_tail(stderr: impl AsyncRead + Unpin, tail: Arc<Mutex<Tail>>) {
    let mut reader = BufReader::new(stderr);
    loop {
        let buffer = match reader.fill_buf().await {
            Ok([]) | Err(_) => return,
            Ok(buffer) => buffer,
        };
        let read = buffer.len();
        {
            let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
            tail.0.extend(buffer);
            let over = tail.0.len().saturating_sub(STDERR_KEPT_BYTES);
            tail.0.drain(..over);
        }
        reader.consume(read);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_is_split_as_a_shell_splits_it_and_joined_again_the_same() {
        let line = CommandLine::parse("python3  'my judge.py' --model \"a b\" x\\ y").unwrap();
        assert_eq!(
            line.words,
            ["python3", "my judge.py", "--model", "a b", "x y"]
        );
        assert_eq!(line.as_str(), "python3 'my judge.py' --model 'a b' 'x y'");
        assert_eq!(CommandLine::parse(line.as_str()).unwrap(), line);
        assert!(CommandLine::parse("python3 'judge.py")
            .unwrap_err()
            .contains("a quote that is not closed"));
        assert!(CommandLine::parse("  ").unwrap_err().contains("is empty"));
    }

    #[test]
    fn a_reply_is_matched_by_its_id_and_a_line_without_one_answers_nothing() {
        let graded = reply(r#"{"stars": 4, "id": 7, "explanation": " same task "}"#).unwrap();
        assert!(matches!(
            graded,
            (7, Outcome::Graded { stars, explanation: Some(ref why) }) if stars.get() == 4 && why == "same task"
        ));
        assert!(matches!(
            reply(r#"{"id": 2, "stars": 9}"#),
            Ok((2, Outcome::NotAGrade(_)))
        ));
        assert!(matches!(
            reply(r#"{"id": 2, "stars": 3, "explanation": 5}"#),
            Ok((2, Outcome::NotAGrade(_)))
        ));
        assert!(reply(r#"{"stars": 3}"#).unwrap_err().contains("(no `id`)"));
        assert!(reply(r#"{"id": "zzz", "stars": 3}"#)
            .unwrap_err()
            .contains("(its `id` is not one of the numbers sent): "));
        assert!(reply("3 stars").unwrap_err().contains("(not JSON)"));
    }
}
