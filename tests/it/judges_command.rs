//! A judge that is a local command (issue 42, item 3): `paperjudge judge --command` as the real
//! binary against a Python script (tests/fixtures/judges/command_judge.py) that reads one JSON
//! line a pair and answers in any order. What it is sent, what is stored, a reply that is no
//! grade, a command that crashes, hangs, writes what is no reply or is killed (`kill -9`), and
//! a run killed and resumed, with no pair asked twice.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::TestStudy;
use crate::judges_cli::run;
use crate::process_support::{stderr, succeeded};
use crate::web_support::{fixture_study, HOSTILE_TITLE};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/judges/command_judge.py"
);

/// The fixture's 11 pooled pairs, as the script logs them ("TARGET|CANDIDATE").
fn all_pairs() -> Vec<String> {
    let mut pairs: Vec<String> = ["one", "two", "three", "four", "five", "six"]
        .iter()
        .map(|n| format!("Target one|Paper {n}"))
        .chain(["Target one|".to_owned() + HOSTILE_TITLE])
        .chain(
            ["one", "seven", "eight", "nine"]
                .iter()
                .map(|n| format!("Target two|Paper {n}")),
        )
        .collect();
    pairs.sort();
    pairs
}

/// The script's command line: what it does is set in its environment (see the script), which
/// makes no other judge.
fn command() -> String {
    format!("python3 '{SCRIPT}'")
}

/// The pairs the script logged as `what` ("asked" or "answered"), in the order it logged them.
fn logged(log: &Path, what: &str) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    (text.lines())
        .filter_map(|line| line.strip_prefix(&format!("{what} ")))
        .map(|rest| match what {
            "asked" => rest.rsplit_once(' ').expect("the keys").0.to_owned(),
            _ => rest.to_owned(),
        })
        .collect()
}

fn sorted(mut pairs: Vec<String>) -> Vec<String> {
    pairs.sort();
    pairs
}

/// The grades stored, as "TARGET|CANDIDATE" with their stars and explanation, sorted.
async fn stored(study: &TestStudy) -> Vec<(String, i64, Option<String>)> {
    let mut rows: Vec<(String, i64, Option<String>)> = sqlx::query_as(
        "SELECT t.title || '|' || p.title, g.stars, g.explanation FROM judge_grades g
         JOIN papers t ON t.id = g.target_id JOIN papers p ON p.id = g.paper_id",
    )
    .fetch_all(&study.connections)
    .await
    .unwrap();
    rows.sort();
    rows
}

/// Waits until `log` holds `count` lines of `what`.
async fn until_logged(log: &Path, what: &str, count: usize) {
    for _ in 0..300 {
        if logged(log, what).len() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "the script never {what} {count} pairs: {:?}",
        logged(log, what)
    );
}

/// Runs the judge `j` again with a new log, which must grade `missing` pairs: the pairs it
/// asked, sorted.
async fn resumed(paths: &Paths, missing: usize) -> Vec<String> {
    std::fs::remove_file(&paths.log).unwrap();
    let log = paths.log();
    let env = [("JUDGE_LOG", log.as_str())];
    let args = ["judge", "--command", &command(), "--name", "j"];
    let resumed = run(&paths.db, &args, &env).await;
    assert!(
        stderr(&resumed).starts_with(&format!(
            "judge j: {missing} of {missing} pairs graded and stored in "
        )),
        "{}",
        stderr(&resumed)
    );
    sorted(logged(&paths.log, "asked"))
}

fn alive(pid: &str) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z ")
}

struct Paths {
    db: PathBuf,
    log: PathBuf,
    pid: PathBuf,
}

impl Paths {
    fn log(&self) -> String {
        self.log.display().to_string()
    }

    fn pid(&self) -> String {
        self.pid.display().to_string()
    }
}

async fn study() -> (TestStudy, Paths) {
    let study = fixture_study().await;
    let paths = Paths {
        db: study.db_path(),
        log: study.dir.path().join("judge.log"),
        pid: study.dir.path().join("judge.pid"),
    };
    (study, paths)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_judge_grades_every_pair_from_their_texts_alone_and_is_one_judge() {
    let (study, paths) = study().await;
    let line = command();
    let log = paths.log();
    let env = [("JUDGE_LOG", log.as_str())];
    let done = run(
        &paths.db,
        &[
            "judge",
            "--command",
            &line,
            "--name",
            "script",
            "--concurrency",
            "3",
        ],
        &env,
    )
    .await;
    assert!(
        stderr(&done).starts_with("judge script: 11 of 11 pairs graded and stored in "),
        "{}",
        stderr(&done)
    );
    assert_eq!(done.status.code(), Some(0));
    // Each pair sent once, with the two papers' texts alone.
    assert_eq!(sorted(logged(&paths.log, "asked")), all_pairs());
    let text = std::fs::read_to_string(&paths.log).unwrap();
    for line in text.lines().filter(|line| line.starts_with("asked ")) {
        assert!(
            line.ends_with(" candidate_abstract,candidate_title,id,target_abstract,target_title"),
            "{line}"
        );
    }
    let grades = stored(&study).await;
    assert_eq!(grades.len(), 11);
    for (pair, stars, explanation) in &grades {
        let title = pair.split_once('|').unwrap().1;
        let expected = crate::judge_support::stars_of_title(title);
        assert_eq!(*stars, i64::from(expected), "{pair}");
        assert_eq!(
            explanation.as_deref(),
            Some(format!("by its title: {pair}").as_str())
        );
    }
    let judges: Value = serde_json::from_str(&succeeded(&crate::process_support::paperjudge(
        &paths.db,
        &["judges", "--format", "json"],
        &[],
    )))
    .unwrap();
    assert_eq!(
        judges,
        json!([{"name": "script", "model": null, "endpoint": null, "prompt_sha256": null,
                "command": format!("python3 {SCRIPT}"),
                "pairs_judged": 11, "targets_judged": 2}])
    );

    // Everything is graded: the command is not even started.
    let again = run(
        &paths.db,
        &["judge", "--command", &line, "--name", "script"],
        &env,
    )
    .await;
    assert_eq!(
        stderr(&again),
        "judge script: every pooled pair of the study's targets is graded already; nothing was \
         asked\n"
    );
    assert_eq!(logged(&paths.log, "asked").len(), 11);
    // Another command under its name is another judge.
    let other = run(
        &paths.db,
        &[
            "judge",
            "--command",
            &format!("{line} --fast"),
            "--name",
            "script",
        ],
        &env,
    )
    .await;
    assert_eq!(other.status.code(), Some(2));
    assert_eq!(
        stderr(&other),
        format!(
            "paperjudge: the judge \"script\" grades with the command \"python3 {SCRIPT}\", and \
             this run asks \"python3 {SCRIPT} --fast\": a judge's grades all come from one \
             model and one prompt, so name this run's judge with --name\n"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_that_is_no_grade_is_counted_and_not_stored() {
    let (study, paths) = study().await;
    let log = paths.log();
    let env = [
        ("JUDGE_LOG", log.as_str()),
        ("JUDGE_NO_GRADE", "Paper three"),
    ];
    let done = run(
        &paths.db,
        &["judge", "--command", &command(), "--name", "j"],
        &env,
    )
    .await;
    assert_eq!(done.status.code(), Some(0));
    let said = stderr(&done);
    assert!(
        said.contains("10 of 11 pairs graded and stored")
            && said.contains("; 1 reply was no grade (not stored)\n"),
        "{said}"
    );
    assert!(
        said.ends_with(
            "  no grade: T1 → P3: \"stars\" is 9, not a whole number from 1 to 5: \"{\\\"stars\\\": \
             9, \\\"id\\\": 6, \\\"explanation\\\": \\\"by its title: Target one|Paper three\\\"}\"\n"
        ),
        "{said}"
    );
    let grades: Vec<String> = stored(&study).await.into_iter().map(|g| g.0).collect();
    assert_eq!(grades.len(), 10);
    assert!(!grades.contains(&"Target one|Paper three".to_owned()));
}

/// `kill -9` of the command in the middle of a run: every grade it wrote is stored, the lines
/// outstanding are all that is lost, and the next run asks for those alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_killed_mid_run_loses_only_the_lines_outstanding() {
    let (study, paths) = study().await;
    let (db, log, pid) = (paths.db.clone(), paths.log(), paths.pid());
    let running = tokio::spawn(async move {
        let env = [
            ("JUDGE_LOG", log.as_str()),
            ("JUDGE_PID", pid.as_str()),
            ("JUDGE_ANSWER", "5"),
        ];
        let args = [
            "judge",
            "--command",
            &command(),
            "--name",
            "j",
            "--concurrency",
            "3",
        ];
        run(&db, &args, &env).await
    });
    // It answers 5 lines and holds the next 3 it was sent, unanswered.
    until_logged(&paths.log, "asked", 8).await;
    until_logged(&paths.log, "answered", 5).await;
    let pid = std::fs::read_to_string(&paths.pid).unwrap();
    let killed = Command::new("kill").args(["-9", &pid]).status().unwrap();
    assert!(killed.success());
    let done = running.await.unwrap();
    assert_eq!(done.status.code(), Some(1));
    let said = stderr(&done);
    assert!(
        said.starts_with("judge j: 5 of 11 pairs graded and stored in ")
            && said.ends_with(
                "paperjudge: the command ended (signal: 9 (SIGKILL)) with 3 lines unanswered (not \
                 stored); stopped\n"
            ),
        "{said}"
    );
    let answered = sorted(logged(&paths.log, "answered"));
    let grades: Vec<String> = stored(&study).await.into_iter().map(|g| g.0).collect();
    assert_eq!(grades, answered);

    // The next run asks for the 6 pairs not stored, each once, and none of the others.
    let asked_again = resumed(&paths, 6).await;
    let mut expected: Vec<String> = all_pairs();
    expected.retain(|pair| !answered.contains(pair));
    assert_eq!(asked_again, expected);
    assert_eq!(stored(&study).await.len(), 11);
}

/// The run killed in the middle (SIGKILL, as a crash): the grades received are stored, the
/// command ends with its input, and the next run asks for the missing pairs alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_killed_mid_way_is_resumed_without_asking_a_pair_twice() {
    let (study, paths) = study().await;
    let mut child = Command::new(env!("CARGO_BIN_EXE_paperjudge"))
        .arg("--db")
        .arg(&paths.db)
        .args([
            "judge",
            "--command",
            &command(),
            "--name",
            "j",
            "--concurrency",
            "2",
        ])
        .env("PAPERJUDGE_LOG", "warn")
        .envs([
            ("JUDGE_LOG", paths.log()),
            ("JUDGE_PID", paths.pid()),
            ("JUDGE_ANSWER", "4".to_owned()),
        ])
        .stderr(Stdio::null())
        .spawn()
        .expect("the run starts");
    until_logged(&paths.log, "answered", 4).await;
    until_logged(&paths.log, "asked", 6).await;
    // The grades of the 4 answers are stored as they arrive.
    for _ in 0..100 {
        if stored(&study).await.len() == 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let answered = sorted(logged(&paths.log, "answered"));
    let grades: Vec<String> = stored(&study).await.into_iter().map(|g| g.0).collect();
    assert_eq!(grades, answered);
    // Its input closed with the run, the command ended.
    let pid = std::fs::read_to_string(&paths.pid).unwrap();
    for _ in 0..50 {
        if !alive(&pid) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!alive(&pid), "the command outlived the run");

    let asked_again = resumed(&paths, 7).await;
    let mut expected = all_pairs();
    expected.retain(|pair| !answered.contains(pair));
    assert_eq!(asked_again, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_crashes_hangs_or_writes_no_reply_stops_the_run_saying_so() {
    let (_study, paths) = study().await;
    let (log, pid) = (paths.log(), paths.pid());
    let line = command();
    let crashed = run(
        &paths.db,
        &[
            "judge",
            "--command",
            &line,
            "--name",
            "crashes",
            "--concurrency",
            "2",
        ],
        &[("JUDGE_LOG", log.as_str()), ("JUDGE_CRASH_AFTER", "2")],
    )
    .await;
    assert_eq!(crashed.status.code(), Some(1));
    assert!(
        stderr(&crashed).ends_with(
            "paperjudge: the command ended (exit status: 1) with 2 lines unanswered (not stored); \
             stopped. Its standard error ended with: Traceback (most recent call last): | \
             RuntimeError: the GPU fell over\n"
        ),
        "{}",
        stderr(&crashed)
    );

    let hung = run(
        &paths.db,
        &[
            "judge",
            "--command",
            &line,
            "--name",
            "hangs",
            "--concurrency",
            "2",
            "--timeout",
            "1",
        ],
        &[
            ("JUDGE_LOG", log.as_str()),
            ("JUDGE_PID", pid.as_str()),
            ("JUDGE_ANSWER", "1"),
        ],
    )
    .await;
    assert_eq!(hung.status.code(), Some(1));
    assert!(
        stderr(&hung).ends_with(
            "paperjudge: the command answered nothing for 1 s with 2 lines outstanding: it was \
             stopped (--timeout sets the wait)\n"
        ),
        "{}",
        stderr(&hung)
    );
    let pid = std::fs::read_to_string(&paths.pid).unwrap();
    assert!(!alive(&pid), "the command was killed with the run");

    for (variable, said) in [
        (
            "JUDGE_GARBAGE_AFTER",
            "paperjudge: the command wrote a line that answers no line it was sent (not JSON): \
             \"Loading the model... done\"; each reply is one JSON object a line, with the `id` \
             of the line it answers\n",
        ),
        (
            "JUDGE_LONG_AFTER",
            "paperjudge: the command wrote a line longer than 64 KiB (a grade takes a few dozen \
             bytes); stopped\n",
        ),
    ] {
        let name = variable.to_lowercase();
        let stopped = run(
            &paths.db,
            &["judge", "--command", &line, "--name", &name],
            &[("JUDGE_LOG", log.as_str()), (variable, "1")],
        )
        .await;
        assert_eq!(stopped.status.code(), Some(1), "{variable}");
        assert!(stderr(&stopped).ends_with(said), "{}", stderr(&stopped));
        assert!(
            stderr(&stopped).starts_with(&format!("judge {name}: 1 of 11 pairs graded")),
            "{}",
            stderr(&stopped)
        );
    }

    let missing = run(
        &paths.db,
        &[
            "judge",
            "--command",
            "no-such-judge-program --fast",
            "--name",
            "missing",
        ],
        &[],
    )
    .await;
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        stderr(&missing),
        "paperjudge: cannot start the command \"no-such-judge-program --fast\": No such file or \
         directory (os error 2)\n"
    );
    let unclosed = run(&paths.db, &["judge", "--command", "python3 'judge.py"], &[]).await;
    assert_eq!(unclosed.status.code(), Some(2));
    assert_eq!(
        stderr(&unclosed),
        "paperjudge: --command \"python3 'judge.py\" has a quote that is not closed (or ends \
         with a `\\`)\n"
    );
}
