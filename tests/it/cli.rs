//! The real binary on a real study file: exit statuses, messages, and the leaderboard of a
//! small study whose numbers are computed by hand.

use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};

use crate::process_support::{paperjudge, paperjudge_with_stderr_closed, stderr, succeeded};

/// The binary on `db`, with no environment of its own.
fn run(db: &Path, args: &[&str]) -> Output {
    paperjudge(db, args, &[])
}

/// T1: A 5★, B 3★, C 1★, D 4★ (X unrated). T2: C2 and D2 1★ (nothing to find). T3: unrated.
/// m1: T1 [A, B, C], T2 [C2, D2], T3 [A]. m2: T1 [C, D, X], T2 [D2], T3 [B].
fn small_study(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("study.db");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let papers = write(
        "papers.jsonl",
        &["T1", "T2", "T3", "A", "B", "C", "D", "X", "C2", "D2"]
            .iter()
            .map(|id| format!("{{\"id\":\"{id}\",\"title\":\"Paper {id}\"}}\n"))
            .collect::<String>(),
    );
    let recommendations = write(
        "recommendations.csv",
        "model,target,rank,paper\n\
         m1,T1,1,A\nm1,T1,2,B\nm1,T1,3,C\nm1,T2,1,C2\nm1,T2,2,D2\nm1,T3,1,A\n\
         m2,T1,1,C\nm2,T1,2,D\nm2,T1,3,X\nm2,T2,1,D2\nm2,T3,1,B\n",
    );
    let ratings = write(
        "ratings.csv",
        "target,paper,stars\nT1,A,5\nT1,B,3\nT1,C,1\nT1,D,4\nT2,C2,1\nT2,D2,1\n",
    );
    succeeded(&run(&db, &["import", "papers", &papers]));
    succeeded(&run(&db, &["import", "recommendations", &recommendations]));
    let imported = run(&db, &["import", "ratings", &ratings]);
    assert_eq!(
        stderr(&imported).trim(),
        "read 6 rows; ratings: 6 added, 0 updated, 0 unchanged; 0 rows dropped"
    );
    db
}

fn close(value: &Value, expected: f64) {
    let actual = value
        .as_f64()
        .unwrap_or_else(|| panic!("{value} is not a number"));
    assert!((actual - expected).abs() < 1e-12, "{actual} vs {expected}");
}

#[test]
fn by_default_the_leaderboard_scores_only_fully_rated_targets() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_study(dir.path());
    let board: Value =
        serde_json::from_str(&succeeded(&run(&db, &["leaderboard", "--format", "json"]))).unwrap();
    assert_eq!(board["settings"]["partial"], "exclude");
    // T1 is partly rated (X is not), T2 fully rated with nothing relevant, T3 unrated.
    assert_eq!(
        board["targets"],
        json!({"evaluated": 1, "skipped_empty": 1, "unrated": 1, "skipped_no_relevant": 1,
               "partly_rated": 1})
    );
    for model in board["models"].as_array().unwrap() {
        assert_eq!(model["ndcg"], Value::Null, "{model}");
        assert_eq!(model["targets"], 0);
    }
    let table = succeeded(&run(&db, &["leaderboard"]));
    assert_eq!(
        table.lines().nth(1),
        Some(
            "1 targets evaluated (1 skipped from NDCG and 1 from P/R/F1/AP/RR/unique for having \
             nothing relevant), 1 partly rated and left out, 1 unrated; pool depth 8"
        )
    );
}

#[test]
fn the_leaderboard_of_a_small_study_matches_the_hand_computation() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_study(dir.path());
    let json = succeeded(&run(
        &db,
        &["leaderboard", "--format", "json", "--include-partial"],
    ));
    assert_eq!(
        json,
        succeeded(&run(
            &db,
            &["leaderboard", "--format", "json", "--include-partial"]
        )),
        "the same study must print the same bytes"
    );
    let board: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        board["settings"],
        json!({"k": 8, "gain": "linear", "relevance": "stars-minus-one", "ideal": "judged",
               "unjudged": "zero", "empty": "skip", "threshold": 4,
               "ap_denominator": "relevant", "pool_depth": 8, "partial": "include"})
    );
    assert_eq!(
        board["targets"],
        json!({"evaluated": 2, "skipped_empty": 1, "unrated": 1, "skipped_no_relevant": 1,
               "partly_rated": 1})
    );
    // T1's ideal: gains 4, 3, 2, 0.
    let log3 = 3f64.log2();
    let ideal = 4.0 + 3.0 / log3 + 2.0 / 2.0;
    let m1 = (4.0 + 2.0 / log3) / ideal;
    let m2 = (3.0 / log3) / ideal;
    let models = board["models"].as_array().unwrap();
    assert_eq!(models.len(), 2);
    let (first, second) = (&models[0], &models[1]);
    assert_eq!(
        (first["model"].as_str(), first["rank"].as_u64()),
        (Some("m1"), Some(1))
    );
    close(&first["ndcg"], m1);
    // One target: every resample's mean is its value, rounded to 2^−32 as the resampling's
    // sums round it.
    let rounded = (m1 * 2f64.powi(32)).round() / 2f64.powi(32);
    assert_eq!(first["ci95"], json!([rounded, rounded]));
    assert_eq!(first["targets"], 1);
    close(&first["judged_at_k"], 1.0);
    close(&first["mean_diff_vs_leader"], 0.0);
    assert_eq!(
        (
            first["p_value_vs_leader"].clone(),
            first["p_value_holm"].clone()
        ),
        (Value::Null, Value::Null)
    );
    close(&first["precision"], 1.0 / 8.0);
    close(&first["recall"], 0.5);
    close(&first["f1"], 0.2);
    close(&first["ap"], 0.5);
    close(&first["rr"], 1.0);

    assert_eq!(second["model"], "m2");
    close(&second["ndcg"], m2);
    // T1: C and D judged, X not; T2: D2 judged.
    close(&second["judged_at_k"], (2.0 / 3.0 + 1.0) / 2.0);
    close(&second["mean_diff_vs_leader"], m2 - m1);
    // One paired target: every sign flip is as extreme as the observed difference.
    close(&second["p_value_vs_leader"], 1.0);
    close(&second["p_value_holm"], 1.0);
    close(&second["precision"], 1.0 / 8.0);
    close(&second["ap"], 0.25);
    close(&second["rr"], 0.5);

    let per_target = succeeded(&run(
        &db,
        &[
            "leaderboard",
            "--format",
            "json",
            "--per-target",
            "--k",
            "2",
            "--gain",
            "exponential",
            "--include-partial",
        ],
    ));
    let per_target: Value = serde_json::from_str(&per_target).unwrap();
    assert_eq!(per_target["settings"]["k"], 2);
    let rows = per_target["per_target"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    // Exponential gains of T1: 15, 7, 3, 0; ideal at 2: 15 + 7/log2(3).
    let t1_m1 = rows
        .iter()
        .find(|row| row["target"] == "T1" && row["model"] == "m1")
        .unwrap();
    close(&t1_m1["ndcg"], (15.0 + 3.0 / log3) / (15.0 + 7.0 / log3));
    let t2_m2 = rows
        .iter()
        .find(|row| row["target"] == "T2" && row["model"] == "m2")
        .unwrap();
    assert_eq!(t2_m2["ndcg"], Value::Null);

    let table = succeeded(&run(&db, &["leaderboard"]));
    assert!(
        table.starts_with("NDCG@8 · linear gain = stars − 1"),
        "{table}"
    );
}

#[test]
fn status_and_exports_report_the_study() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_study(dir.path());
    let status: Value =
        serde_json::from_str(&succeeded(&run(&db, &["status", "--format", "json"]))).unwrap();
    assert_eq!(
        status,
        json!({"papers": 10, "models": 2, "targets": 3, "recommendations": 11,
               "pooled_pairs": 9, "rated_pairs": 6, "targets_finished": 1, "pool_depth": 8,
               "candidate_targets": 3, "target_choice": "all", "targets_partly_rated": 1,
               "targets_without_recommendations": 0, "judgments_with_provenance_known": 0,
               "pruning": false, "pruned_models": [], "raters": []})
    );
    let qrels = succeeded(&run(&db, &["export", "qrels", "--relevance", "stars"]));
    assert_eq!(
        qrels,
        "T1 0 A 5\nT1 0 B 3\nT1 0 C 1\nT1 0 D 4\nT2 0 C2 1\nT2 0 D2 1\n"
    );
    let out = dir.path().join("pool.csv");
    succeeded(&run(&db, &["export", "pool", "-o", out.to_str().unwrap()]));
    let pool = std::fs::read_to_string(&out).unwrap();
    assert_eq!(pool.lines().count(), 10);
    assert!(pool.starts_with("target,paper,position,stars\r\n"));
    assert!(
        !pool.contains("m1") && !pool.contains("m2"),
        "the pool names no model"
    );
}

#[test]
fn bad_input_and_usage_exit_with_status_two_and_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_study(dir.path());
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "target,paper,stars\nT1,A,7\n").unwrap();
    let output = run(&db, &["import", "ratings", bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!(
            "paperjudge: {}:2: `stars`: stars must be an integer from 1 to 5, or cannot-judge, got \"7\"\n",
            bad.display()
        )
    );

    let output = run(&db, &["import", "papers", "/nonexistent/papers.csv"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).starts_with("paperjudge: cannot open /nonexistent/papers.csv"));

    let output = run(
        &db,
        &[
            "import",
            "recommendations",
            bad.with_extension("xls").to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("pass --format"));

    let output = run(&db, &["init", "--pool-depth", "5"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the pool depth is 8 and cannot change to 5"),
        "{}",
        stderr(&output)
    );

    let output = run(&db, &["leaderboard", "--ideal", "best"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("ideal must be one of: judged, list (got \"best\")"));
}

#[test]
fn a_directory_given_for_a_file_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_study(dir.path());
    let folder = dir.path().join("folder.csv");
    std::fs::create_dir(&folder).unwrap();
    let folder = folder.to_str().unwrap();
    let refusal = format!("paperjudge: cannot read {folder}: it is a directory, not a file\n");

    for args in [
        &["import", "ratings", folder][..],
        &["import", "papers", folder],
        &["import", "recommendations", folder],
        &["simulate", "--qrels", folder, "--run", folder],
    ] {
        let output = run(&db, args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&output), refusal, "{args:?}");
    }
}

#[tokio::test]
async fn a_file_with_a_header_and_no_rows_imports_nothing_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_study(dir.path());
    let revision = || async {
        let pool = crate::common::connections_to(&db).await;
        let revision = crate::common::revision(&pool).await;
        pool.close().await;
        revision
    };
    let before = revision().await;
    let header_only = dir.path().join("header-only.csv");
    std::fs::write(&header_only, "id,title,year\r\n").unwrap();

    let output = run(&db, &["import", "papers", header_only.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stderr(&output),
        "read 0 rows; papers: 0 added, 0 updated, 0 unchanged; 0 rows dropped; nothing \
         changed\n"
    );
    assert_eq!(revision().await, before);

    // The export of a study without ratings re-imports, as every export does.
    let empty = dir.path().join("empty.db");
    let exported = dir.path().join("no-ratings.csv");
    let exported = exported.to_str().unwrap();
    succeeded(&run(&empty, &["export", "ratings", "-o", exported]));
    let output = run(&db, &["import", "ratings", exported]);
    assert_eq!(
        stderr(&output),
        "read 0 rows; ratings: 0 added, 0 updated, 0 unchanged; 0 rows dropped; nothing \
         changed\n"
    );
    assert_eq!(revision().await, before);
}

#[test]
fn init_sets_the_pool_depth_of_a_new_study() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.db");
    succeeded(&run(&db, &["init", "--pool-depth", "5"]));
    let status: Value =
        serde_json::from_str(&succeeded(&run(&db, &["status", "--format", "json"]))).unwrap();
    assert_eq!(status["pool_depth"], 5);
    let output = run(&db, &["init", "--pool-depth", "0"]);
    assert_eq!(output.status.code(), Some(2));
}

#[tokio::test]
async fn what_the_terminal_shows_has_its_control_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_study(dir.path());
    // A study from before model names were checked: one holds an ESC sequence that would
    // clear the screen.
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&db);
    let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
    sqlx::query("UPDATE models SET name = 'm1\x1b[2J\u{202e}' WHERE name = 'm1'")
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;

    let table = succeeded(&run(&db, &["leaderboard"]));
    assert!(
        !table.contains('\x1b') && !table.contains('\u{202e}'),
        "{table:?}"
    );
    assert!(table.contains("m1\\u{1b}[2J\\u{202e}"), "{table}");

    let header = dir.path().join("header.csv");
    std::fs::write(&header, "id,ti\x1b[2Jtle\nA,x\n").unwrap();
    let output = run(&db, &["import", "papers", header.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(!message.contains('\x1b'), "{message:?}");
    assert!(message.contains("(found: id,ti\\u{1b}[2jtle;"), "{message}");
}

#[test]
fn a_backup_goes_through_a_name_of_its_own_and_removes_nothing_it_did_not_make() {
    let dir = tempfile::tempdir().unwrap();
    let study = small_study(dir.path());
    // The study under a name that the old backup took for its own temporary file.
    let live = dir.path().join("study.partial");
    std::fs::rename(&study, &live).unwrap();
    let theirs = dir.path().join("copy.partial");
    std::fs::write(&theirs, "someone else's file").unwrap();

    for target in ["study.db", "copy.db"] {
        let target = dir.path().join(target);
        let output = run(&live, &["backup", target.to_str().unwrap()]);
        assert_eq!(
            stderr(&output),
            format!("backup written to {}\n", target.display())
        );
        let status: Value =
            serde_json::from_str(&succeeded(&run(&target, &["status", "--format", "json"])))
                .unwrap();
        assert_eq!(status["rated_pairs"], 6, "{}", target.display());
    }

    let live_status: Value =
        serde_json::from_str(&succeeded(&run(&live, &["status", "--format", "json"]))).unwrap();
    assert_eq!(live_status["rated_pairs"], 6, "the live study is intact");
    assert_eq!(
        std::fs::read_to_string(&theirs).unwrap(),
        "someone else's file"
    );
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".csv") && !name.ends_with(".jsonl"))
        // SQLite's own files: a command leaves the log emptied, but closing connections on
        // several threads at once may leave the empty file behind.
        .filter(|name| !name.ends_with("-wal") && !name.ends_with("-shm"))
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["copy.db", "copy.partial", "study.db", "study.partial"],
        "no temporary file is left"
    );

    for (target, message) in [
        (
            live.clone(),
            format!(
                "paperjudge: {} is the study itself (--db); choose a new file for the backup\n",
                live.display()
            ),
        ),
        (
            dir.path().join("copy.db"),
            format!(
                "paperjudge: {} exists already; choose a new file for the backup\n",
                dir.path().join("copy.db").display()
            ),
        ),
    ] {
        let output = run(&live, &["backup", target.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(stderr(&output), message);
    }
}

#[test]
fn with_stderr_closed_a_command_drops_its_messages_and_does_its_work() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_study(dir.path());
    // Every statement logged: many writes to the closed pipe, from every thread. (Each one
    // used to panic in whichever thread logged it; in a database connection's thread, the
    // command then hung.)
    for args in [&["status"][..], &["leaderboard", "--format", "json"]] {
        let status = paperjudge_with_stderr_closed(&db, args, &[("PAPERJUDGE_LOG", "debug")]);
        assert_eq!(status.code(), Some(0), "{args:?}");
    }
    // What a command tells on stderr is dropped too: the import is done, and an error still
    // exits with its own status.
    let papers = dir.path().join("more.csv");
    std::fs::write(&papers, "id,title\nNEW1,A paper added\n").unwrap();
    let import = ["import", "papers", papers.to_str().unwrap()];
    assert_eq!(
        paperjudge_with_stderr_closed(&db, &import, &[]).code(),
        Some(0)
    );
    let status: Value =
        serde_json::from_str(&succeeded(&run(&db, &["status", "--format", "json"]))).unwrap();
    assert_eq!(
        status["papers"], 11,
        "the ten papers of the study and the new one"
    );
    let missing = dir.path().join("missing.csv");
    let usage = ["import", "papers", missing.to_str().unwrap()];
    assert_eq!(
        paperjudge_with_stderr_closed(&db, &usage, &[]).code(),
        Some(2)
    );
}

/// `export KIND -o FILE` where FILE is the study (by its name, another path to it, a symbolic
/// link to it) or SQLite's files beside it (its write-ahead log and shared memory, there or
/// not): refused with exit status 2 before anything is written, for every kind of export, as a
/// backup onto the study is; the study stays whole.
#[test]
fn an_export_onto_the_study_or_its_log_is_refused_and_the_study_stays_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_study(dir.path());
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let log_link = dir.path().join("log-link.csv");
    std::os::unix::fs::symlink("study.db-wal", &log_link).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let other_path = dir.path().join("sub/../study.db");
    let wal = dir.path().join("study.db-wal");
    let shm = dir.path().join("study.db-shm");
    for kind in ["ratings", "qrels", "pool", "judgments"] {
        for (target, refused_as) in [
            (&db, "the study itself (--db)"),
            (&other_path, "the study itself (--db)"),
            (&link, "the study itself (--db)"),
            (&wal, "the study's write-ahead log"),
            (&log_link, "the study's write-ahead log"),
            (&shm, "the study's shared memory"),
        ] {
            let output = run(&db, &["export", kind, "-o", target.to_str().unwrap()]);
            assert_eq!(output.status.code(), Some(2), "{kind} {}", target.display());
            assert_eq!(
                stderr(&output),
                format!(
                    "paperjudge: {} is {refused_as}; choose a new file for the export\n",
                    target.display()
                ),
                "{kind}"
            );
            for sqlites in [&wal, &shm] {
                let held = std::fs::read(sqlites).unwrap_or_default();
                assert!(!held.starts_with(b"target,"), "{}", sqlites.display());
            }
            let status: Value =
                serde_json::from_str(&succeeded(&run(&db, &["status", "--format", "json"])))
                    .unwrap();
            assert_eq!(status["rated_pairs"], 6, "{kind} {}", target.display());
        }
    }
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    // The backup refuses the log as it refuses the study.
    let output = run(&db, &["backup", wal.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!(
            "paperjudge: {} is the study's write-ahead log; choose a new file for the backup\n",
            wal.display()
        )
    );
}

/// While another process holds the study's write lock, a command that changes the study waits
/// its turn a moment, then says that the study is busy and that nothing changed (exit status
/// 1), instead of "the study database failed"; once the lock is let go, it does its work.
#[test]
fn a_command_that_finds_the_study_busy_says_so_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_study(dir.path());
    let mut holder = rusqlite::Connection::open(&db).unwrap();
    let lock = holder
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    let refused = run(&db, &["prune", "on"]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert_eq!(
        stderr(&refused).trim(),
        "paperjudge: another process is writing to the study (an import, a judge's run or a \
         server saving a rating), so nothing changed; try again once it has finished"
    );
    lock.rollback().unwrap();
    assert_eq!(
        succeeded(&run(&db, &["prune"])),
        "pruning is off: every target pools every model\n"
    );
    assert_eq!(
        succeeded(&run(&db, &["prune", "on"])),
        "pruning is on; no model is ruled out yet, so every target pools every model\n"
    );
}
