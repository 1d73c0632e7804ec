//! `paperjudge judge`, `judges`, `import judgments` and `export judgments` as the real binary:
//! exit statuses, messages, files all or nothing, and a run killed and resumed.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::TestStudy;
use crate::judge_support::{stars_of_title, Reply, StandIn};
use crate::process_support::{paperjudge, stderr, succeeded};
use crate::web_support::fixture_study;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Runs the binary on a thread of its own, so that the stand-in keeps answering meanwhile.
pub async fn run(db: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let db = db.to_owned();
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let env: Vec<(String, String)> = (env.iter())
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
        .collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        paperjudge(&db, &args, &env)
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn judgments_import_all_or_nothing_and_export_back_as_they_came() {
    let study = fixture_study().await;
    let db = study.db_path();
    let dir = study.dir.path();
    let broken = write(
        dir,
        "broken.csv",
        "target,paper,stars,explanation\nT1,P1,4,close\nT1,P2,7,\nT1,NOPE,3,\nT1,P3, 3,\nT1,P1,2,again\nT1,T1,5,\n",
    );
    let refused = paperjudge(
        &db,
        &["import", "judgments", &broken, "--judge", "gpt"],
        &[],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr(&refused),
        format!(
            "paperjudge: {broken}:3: `stars`: stars must be an integer from 1 to 5, got \"7\"\n\
             paperjudge: {broken}:4: `paper`: unknown paper id \"NOPE\"\n\
             paperjudge: {broken}:5: `stars`: stars must be an integer from 1 to 5, got \" 3\"\n\
             paperjudge: {broken}:6: this pair is graded twice in the file (also line 2)\n\
             paperjudge: {broken}:7: `paper`: a paper cannot be graded as a recommendation for \
             itself\n"
        )
    );
    assert_eq!(study.count("judges").await, 0);
    assert_eq!(study.count("judge_grades").await, 0);

    let good = write(
        dir,
        "good.csv",
        "target,paper,stars,explanation\nT1,P1,4,\"close, same task\"\nT1,P2,1,\nT2,P7,3,\n",
    );
    let imported = paperjudge(&db, &["import", "judgments", &good, "--judge", "gpt"], &[]);
    assert_eq!(
        stderr(&imported),
        "read 3 rows; judgments: 3 added, 0 updated, 0 unchanged; 0 rows dropped\n"
    );
    let export = paperjudge(&db, &["export", "judgments"], &[]);
    assert_eq!(
        stderr(&export),
        "note: 3 of these 3 grades are of targets not fully rated: read before rating them, a \
         machine's grade anchors the rating\n"
    );
    let exported = succeeded(&export);
    let lines: Vec<&str> = exported.split("\r\n").collect();
    assert_eq!(lines[0], "target,paper,judge,stars,explanation,judged_at");
    let without_time: Vec<String> = (lines[1..4].iter())
        .map(|line| line.rsplit_once(',').unwrap().0.to_owned())
        .collect();
    assert_eq!(
        without_time,
        [
            "T1,P1,gpt,4,\"close, same task\"",
            "T1,P2,gpt,1,",
            "T2,P7,gpt,3,"
        ]
    );
    let judged_at = lines[1].rsplit_once(',').unwrap().1;
    assert!(
        time::OffsetDateTime::parse(judged_at, &time::format_description::well_known::Rfc3339)
            .is_ok(),
        "{judged_at}"
    );
    assert_eq!(lines[4], "");
    // An exported file re-imports as is, and changes nothing.
    let again = write(dir, "exported.csv", &exported);
    let reimported = paperjudge(&db, &["import", "judgments", &again, "--judge", "gpt"], &[]);
    assert_eq!(
        stderr(&reimported),
        "read 3 rows; judgments: 0 added, 0 updated, 3 unchanged; 0 rows dropped; nothing \
         changed\n"
    );
    let changed = write(dir, "changed.csv", "target,paper,stars\nT1,P2,2\nT2,P8,5\n");
    let updated = paperjudge(
        &db,
        &["import", "judgments", &changed, "--judge", "gpt"],
        &[],
    );
    assert_eq!(
        stderr(&updated),
        "read 2 rows; judgments: 1 added, 1 updated, 0 unchanged; 0 rows dropped\n"
    );
    // No rating, pool or target count moved.
    assert_eq!(study.count("ratings").await, 0);
    assert_eq!(study.count("rating_history").await, 0);
    assert_eq!(study.count("pool").await, 11);
    let unknown = paperjudge(&db, &["export", "judgments", "--judge", "nobody"], &[]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        stderr(&unknown),
        "paperjudge: there is no judge \"nobody\" in this study (`paperjudge judges list` lists \
         them)\n"
    );
}

#[tokio::test]
async fn judges_are_listed_as_text_and_json_and_removed_with_their_grades() {
    let study = fixture_study().await;
    let db = study.db_path();
    let dir = study.dir.path();
    let t2 = write(
        dir,
        "t2.csv",
        "target,paper,stars\nT2,P1,2\nT2,P7,3\nT2,P8,4\nT2,P9,5\nT1,P1,1\n",
    );
    succeeded(&paperjudge(
        &db,
        &["import", "judgments", &t2, "--judge", "embeddings"],
        &[],
    ));
    let json: Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["judges", "list", "--format", "json"],
        &[],
    )))
    .unwrap();
    assert_eq!(
        json,
        json!([{"name": "embeddings", "model": null, "endpoint": null, "prompt_sha256": null,
                "command": null, "pairs_judged": 5, "targets_judged": 1}])
    );
    assert_eq!(
        succeeded(&paperjudge(&db, &["judges"], &[])),
        "judge       model       pairs judged  targets judged  prompt sha256\n\
         embeddings  (imported)  5             1\n"
    );
    let gone = paperjudge(&db, &["judges", "remove", "embeddings"], &[]);
    assert_eq!(
        stderr(&gone),
        "removed the judge embeddings and its grades (no rating changed)\n"
    );
    assert_eq!(study.count("judge_grades").await, 0);
    let again = paperjudge(&db, &["judges", "remove", "embeddings"], &[]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        succeeded(&paperjudge(&db, &["judges", "--format", "json"], &[])),
        "[]\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judge_run_from_the_command_line_and_the_one_line_errors() {
    let study = fixture_study().await;
    let db = study.db_path();
    let stand_in = StandIn::grading();
    let ran = run(
        &db,
        &[
            "judge",
            "--endpoint",
            &stand_in.url,
            "--model",
            "stand-in-judge",
            "--name",
            "local",
        ],
        &[("PAPERJUDGE_JUDGE_KEY", "sk-test")],
    )
    .await;
    let said = stderr(&ran);
    assert!(ran.status.success(), "{said}");
    assert!(
        said.starts_with("judge local: 11 of 11 pairs graded and stored in "),
        "{said}"
    );
    assert!(stand_in
        .received()
        .iter()
        .all(|r| r.authorization.as_deref() == Some("Bearer sk-test")));
    let json: Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["judges", "--format", "json"],
        &[],
    )))
    .unwrap();
    assert_eq!(json[0]["name"], "local");
    assert_eq!(json[0]["model"], "stand-in-judge");
    assert_eq!(json[0]["endpoint"], stand_in.url.as_str());
    assert_eq!(json[0]["pairs_judged"], 11);
    assert_eq!(json[0]["targets_judged"], 2);
    assert_eq!(json[0]["prompt_sha256"].as_str().unwrap().len(), 64);
    let nothing = run(
        &db,
        &[
            "judge",
            "--endpoint",
            &stand_in.url,
            "--model",
            "stand-in-judge",
            "--name",
            "local",
        ],
        &[],
    )
    .await;
    assert_eq!(
        stderr(&nothing),
        "judge local: every pooled pair of the study's targets is graded already; nothing was \
         asked\n"
    );
    assert_eq!(stand_in.requests(), 11);

    // Imported grades and a model's never mix under one name.
    let file = write(
        study.dir.path(),
        "grades.csv",
        "target,paper,stars\nT1,P1,3\n",
    );
    let mixed = paperjudge(
        &db,
        &["import", "judgments", &file, "--judge", "local"],
        &[],
    );
    assert_eq!(mixed.status.code(), Some(2));
    assert_eq!(
        stderr(&mixed),
        "paperjudge: the judge \"local\" grades with the model \"stand-in-judge\": its grades \
         come from its runs (`paperjudge judge`); import these under another judge's name\n"
    );

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = format!("http://127.0.0.1:{port}/v1");
    let failed = run(&db, &["judge", "--endpoint", &down, "--model", "m"], &[]).await;
    assert_eq!(failed.status.code(), Some(1));
    let said = stderr(&failed);
    assert!(
        said.starts_with("judge m: 0 of 11 pairs graded and stored in "),
        "{said}"
    );
    assert!(
        said.lines()
            .last()
            .unwrap()
            .starts_with(&format!("paperjudge: cannot reach the endpoint {down} (")),
        "{said}"
    );
    let not_a_url = run(
        &db,
        &["judge", "--endpoint", "localhost:8081", "--model", "m"],
        &[],
    )
    .await;
    assert_eq!(not_a_url.status.code(), Some(2));
    assert!(stderr(&not_a_url).contains("give the API base, such as http://127.0.0.1:8081/v1"));
    let zero = run(
        &db,
        &[
            "judge",
            "--endpoint",
            &down,
            "--model",
            "m",
            "--concurrency",
            "0",
        ],
        &[],
    )
    .await;
    assert_eq!(zero.status.code(), Some(2));
}

/// A run killed in the middle (SIGKILL, as a crash) loses only the request in flight: every
/// grade it had received is stored, and the next run asks for the missing pairs alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_killed_in_the_middle_is_resumed_by_asking_only_for_the_missing_pairs() {
    let study: TestStudy = fixture_study().await;
    let db = study.db_path();
    // The fifth request never gets an answer: the run hangs there until it is killed.
    let stand_in = StandIn::start(|request, number| {
        let grade = Reply::stars(stars_of_title(request.candidate_title()));
        match number {
            4 => Reply::Stall(Duration::from_secs(600), Box::new(grade)),
            _ => grade,
        }
    });
    let mut child = Command::new(env!("CARGO_BIN_EXE_paperjudge"))
        .args([
            "--db",
            &db.display().to_string(),
            "judge",
            "--endpoint",
            &stand_in.url,
        ])
        .args(["--model", "stand-in-judge", "--concurrency", "1"])
        .env("PAPERJUDGE_LOG", "warn")
        .stderr(Stdio::null())
        .spawn()
        .expect("the run starts");
    for _ in 0..600 {
        if stand_in.requests() == 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(stand_in.requests(), 5, "the run reached its fifth request");
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(study.count("judge_grades").await, 4);
    stand_in.answer(|request, _| Reply::stars(stars_of_title(request.candidate_title())));
    let resumed = run(
        &db,
        &[
            "judge",
            "--endpoint",
            &stand_in.url,
            "--model",
            "stand-in-judge",
        ],
        &[],
    )
    .await;
    assert!(
        stderr(&resumed).starts_with("judge stand-in-judge: 7 of 7 pairs graded and stored in "),
        "{}",
        stderr(&resumed)
    );
    assert_eq!(stand_in.requests(), 5 + 7);
    assert_eq!(study.count("judge_grades").await, 11);
    // The resumed run asked for the pairs the first had not stored, each once.
    let asked_first: Vec<String> = (stand_in.received()[..4].iter())
        .map(|r| {
            format!(
                "{}|{}",
                r.prompt().contains("Target one"),
                r.candidate_title()
            )
        })
        .collect();
    for request in &stand_in.received()[5..] {
        let pair = format!(
            "{}|{}",
            request.prompt().contains("Target one"),
            request.candidate_title()
        );
        assert!(!asked_first.contains(&pair), "{pair} was asked again");
    }
}
