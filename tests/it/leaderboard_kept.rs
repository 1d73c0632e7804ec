//! `paperjudge leaderboard` keeps its output in the study file, per study revision (issue 43):
//! after every change a study sees, the output printed equals a fresh computation
//! (`--recompute`) byte for byte, and the call after it prints the kept output without
//! computing; keeping never waits for a lock, never fails the command, and never prints
//! another build's output; the table stays small.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use rand::SeedableRng;

use crate::common::{study_s_papers, TestStudy};
use crate::process_support::{paperjudge, stderr, succeeded};
use paperjudge::domain::{Answer, PaperId, PaperKey, PoolDepth, RaterName, Stars};
use paperjudge::study::raters::Rater;
use paperjudge::study::rating::Edit;
use paperjudge::study::targets::DropRule;

/// What the log says when the command printed the output kept, and when it computed one.
const PRINTED_KEPT: &str = "printed the kept output";
const COMPUTED: &str = "resampled";

/// The outputs each change is checked on: the default JSON with every target's values, and
/// the CSV with the partly rated targets (whose numbers move with every rating).
const OUTPUTS: [&[&str]; 2] = [
    &["--format", "json", "--per-target"],
    &["--format", "csv", "--per-target", "--include-partial"],
];

/// `paperjudge leaderboard ARGS` with the evaluation's debug log.
fn leaderboard(db: &Path, args: &[&str]) -> Output {
    let args: Vec<&str> = ["leaderboard"].iter().chain(args).copied().collect();
    paperjudge(db, &args, &[("PAPERJUDGE_LOG", "paperjudge=debug")])
}

/// The output of `leaderboard ARGS`, and whether it was computed (else printed as kept).
fn printed(db: &Path, args: &[&str]) -> (String, bool) {
    let output = leaderboard(db, args);
    let text = succeeded(&output);
    let log = stderr(&output);
    let computed = log.contains(COMPUTED);
    assert_ne!(computed, log.contains(PRINTED_KEPT), "{args:?}: {log}");
    (text, computed)
}

/// Every output of [`OUTPUTS`] with `extra` after a change: computed (the key moved), equal
/// to `--recompute`, then printed as kept, the same bytes. Answers the outputs.
fn after_change(db: &Path, change: &str, extra: &[&str]) -> Vec<String> {
    (OUTPUTS.iter())
        .map(|output| {
            let args: Vec<&str> = output.iter().chain(extra).copied().collect();
            let (first, computed) = printed(db, &args);
            let mut fresh_args = args.clone();
            fresh_args.push("--recompute");
            let (fresh, recomputed) = printed(db, &fresh_args);
            assert!(recomputed, "{change}: --recompute computes");
            assert_eq!(first, fresh, "{change}: {args:?} kept is not fresh");
            assert!(
                computed,
                "{change}: {args:?} printed from before the change"
            );
            let (again, computed_again) = printed(db, &args);
            assert!(!computed_again, "{change}: {args:?} computed again");
            assert_eq!(again, first, "{change}: {args:?}");
            first
        })
        .collect()
}

/// Study S's papers and lists (65 targets, 8 models), with its first targets rated whole by
/// the owner.
async fn rated_study() -> TestStudy {
    let test = TestStudy::study_s().await;
    for (target, _) in &test.active_targets().await[..3] {
        for (number, paper) in test.pool_of(*target).await.iter().enumerate() {
            rate(&test, *target, paper, stars(number), &Rater::owner()).await;
        }
    }
    test
}

fn stars(number: usize) -> Answer {
    Answer::Stars(Stars::new(1 + (number * 7 % 5) as i64).expect("stars"))
}

async fn rate(test: &TestStudy, target: PaperKey, paper: &PaperId, answer: Answer, as_: &Rater) {
    let edit = Edit::Answer { answer, note: None };
    (test
        .study
        .rating()
        .rate(target, paper, edit, "browser", as_)
        .await)
        .expect("rated");
}

/// The rows kept: (key, made_at).
async fn kept_rows(test: &TestStudy) -> Vec<(String, String)> {
    sqlx::query_as("SELECT key, made_at FROM kept_outputs ORDER BY key")
        .fetch_all(&test.connections)
        .await
        .unwrap()
}

/// The output of `paperjudge ARGS` computed afresh, with no output kept afterwards: what the
/// calls that follow must print, keeping it or not.
async fn computed_with_nothing_kept(test: &TestStudy, args: &[&str]) -> String {
    let mut fresh: Vec<&str> = args.to_vec();
    fresh.push("--recompute");
    let output = succeeded(&paperjudge(&test.db_path(), &fresh, &[]));
    sqlx::query("DELETE FROM kept_outputs")
        .execute(&test.connections)
        .await
        .unwrap();
    output
}

/// Grades of every pooled pair of the study, as a file for `import judgments` (a judge's) or
/// `import ratings`; another `shift`, other grades.
async fn grades(test: &TestStudy, shift: usize) -> std::path::PathBuf {
    let pairs: Vec<(String, String)> = sqlx::query_as(
        "SELECT t.external_id, p.external_id FROM pool
         JOIN papers t ON t.id = pool.target_id JOIN papers p ON p.id = pool.paper_id
         ORDER BY t.external_id, p.external_id",
    )
    .fetch_all(&test.connections)
    .await
    .unwrap();
    let mut csv = String::from("target,paper,stars\n");
    for (number, (target, paper)) in pairs.iter().enumerate() {
        let grade = 1 + (number * 3 + shift) % 5;
        csv.push_str(&format!("{target},{paper},{grade}\n"));
    }
    let file = test.dir.path().join(format!("grades-{shift}.csv"));
    std::fs::write(&file, csv).unwrap();
    file
}

/// Every change a study sees moves the key of the outputs it moves: the output after it is a
/// fresh computation's, byte for byte, and differs from the one before where the change moves
/// a number.
#[tokio::test]
async fn after_every_change_the_output_printed_is_a_fresh_computations() {
    let test = rated_study().await;
    let db = &test.db_path();
    let owner = Rater::owner();
    let targets = test.active_targets().await;
    let mut before = after_change(db, "rated", &[]);
    let mut check = |change: &str, moves: bool| {
        let now = after_change(db, change, &[]);
        if moves {
            assert!(now != before, "{change} moves a number");
        }
        before = now;
    };

    // Ratings, through the rating page's command: a rating of a target rated in part, a
    // correction, a clear, its undo, "can't judge".
    let (target, _) = targets[3];
    let pooled = test.pool_of(target).await;
    let given = |stars: i64| Answer::Stars(Stars::new(stars).expect("stars"));
    rate(&test, target, &pooled[0], given(4), &owner).await;
    check("a rating", true);
    rate(&test, target, &pooled[0], given(1), &owner).await;
    check("a correction", true);
    let edit = Edit::Clear;
    (test
        .study
        .rating()
        .rate(target, &pooled[0], edit, "browser", &owner)
        .await)
        .expect("cleared");
    check("a clear", true);
    (test.study.rating().undo(target, "browser", &owner).await).expect("undone");
    check("an undo", true);
    rate(&test, target, &pooled[0], Answer::CannotJudge, &owner).await;
    check("can't judge", true);

    // Imports: ratings, a model's list changed, a paper's title.
    let (other, other_id) = &targets[4];
    let paper = &test.pool_of(*other).await[0];
    test.ratings(&format!("target,paper,stars\n{other_id},{paper},5\n"))
        .await;
    check("an import of ratings", true);
    let (first, first_id) = &targets[0];
    let first_pool = test.pool_of(*first).await;
    test.recommendations(&format!(
        "model,target,rank,paper\nmodel-1,{first_id},1,{}\nmodel-1,{first_id},2,{}\n",
        first_pool[1], first_pool[0]
    ))
    .await;
    check("an import of recommendations", true);
    test.papers(&format!("id,title\n{first_id},Another title\n"))
        .await;
    check("an import of papers", false);

    // The targets chosen, and one dropped.
    let chosen: Vec<PaperId> = targets[..10].iter().map(|(_, id)| id.clone()).collect();
    let rng = rand::rngs::StdRng::seed_from_u64(1);
    (test.study.targets().choose(&chosen, rng).await).expect("chosen");
    check("targets chosen", true);
    let dropped = [targets[1].1.clone()];
    (test.study.targets().drop(&dropped, DropRule::Any).await).expect("dropped");
    check("a target dropped", true);

    // Pruning on and off.
    (test.study.pruning().set(true).await).expect("pruning on");
    check("pruning on", false);
    (test.study.pruning().set(false).await).expect("pruning off");
    check("pruning off", false);

    // A rater added (the board names whose judgments it used), who rates a target whole.
    let ann = RaterName::new("Ann").expect("a name");
    (test
        .study
        .raters()
        .add(&ann, "a long enough password of Ann")
        .await)
        .expect("added");
    check("a rater added", true);
    let ann = (test.study.raters().named(&ann).await).expect("Ann");
    let (target, _) = targets[5];
    for (number, paper) in test.pool_of(target).await.iter().enumerate() {
        rate(&test, target, paper, stars(number + 1), &ann).await;
    }
    check("a rater's ratings", true);

    // The judgments of one rater: another key, another output.
    let by_ann = after_change(db, "Ann's judgments", &["--judgments", "rater:Ann"]);
    assert!(
        by_ann != before,
        "Ann's judgments are not the raters' median"
    );
}

/// A judge's grades, and a change of them, move the key of the outputs with the judge: its
/// estimates need 20 rated targets, which an import of ratings gives.
#[tokio::test]
async fn a_judges_grades_move_the_key() {
    let test = rated_study().await;
    let db = &test.db_path();
    let mut ratings = String::from("target,paper,stars\n");
    for (target, id) in &test.active_targets().await[3..23] {
        for (number, paper) in test.pool_of(*target).await.iter().enumerate() {
            ratings.push_str(&format!("{id},{paper},{}\n", 1 + number * 7 % 5));
        }
    }
    test.ratings(&ratings).await;
    let judge = ["--judge", "J"];
    let import = |file: std::path::PathBuf| {
        succeeded(&paperjudge(
            db,
            &[
                "import",
                "judgments",
                "--judge",
                "J",
                file.to_str().unwrap(),
            ],
            &[],
        ))
    };
    import(grades(&test, 0).await);
    let judged = after_change(db, "a judge's grades", &judge);
    assert!(judged[0].contains("\"human_only\""), "{}", judged[0]);
    import(grades(&test, 1).await);
    let regraded = after_change(db, "the grades changed", &judge);
    assert!(regraded != judged, "the grades changed move the estimates");
}

/// The pool depth, which a study without lists may still change, is the cutoff by default.
#[tokio::test]
async fn the_pool_depth_moves_the_key() {
    let test = TestStudy::new().await;
    let papers = std::fs::read_to_string(study_s_papers(test.dir.path())).unwrap();
    test.papers(&papers).await;
    let db = &test.db_path();
    let before = after_change(db, "papers", &[]);
    let depth = PoolDepth::new(5).expect("a depth");
    (test.study.pool().set_depth(depth).await).expect("set");
    let after = after_change(db, "the pool depth", &[]);
    assert!(after != before);
    assert!(after[0].contains("\"pool_depth\": 5"), "{}", after[0]);
}

/// The second call prints the same bytes from the row kept, which it leaves as it was.
#[tokio::test]
async fn the_second_call_prints_the_kept_output_without_computing() {
    let test = rated_study().await;
    let db = &test.db_path();
    let args = ["--format", "table"];
    let (first, computed) = printed(db, &args);
    assert!(computed);
    let rows = kept_rows(&test).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    std::thread::sleep(Duration::from_millis(1100));
    let (second, computed) = printed(db, &args);
    assert!(!computed);
    assert_eq!(second, first);
    assert_eq!(kept_rows(&test).await, rows, "made_at unchanged");
    // The table, as a terminal shows it.
    assert!(first.contains("NDCG@8"), "{first}");
}

/// Another build's output, or a row that is not whole, is never printed: the command computes
/// and its row replaces them.
#[tokio::test]
async fn another_builds_output_or_a_torn_row_is_never_printed() {
    let test = rated_study().await;
    let db = &test.db_path();
    let args = ["--format", "json"];
    let (genuine, _) = printed(db, &args);
    let (key, build): (String, String) = sqlx::query_as("SELECT key, build FROM kept_outputs")
        .fetch_one(&test.connections)
        .await
        .unwrap();
    assert!(key.starts_with(&build), "{key}");

    // A row of another build for the same revision and options, whole.
    let other = "0123456789abcdef";
    assert_ne!(build, other);
    sqlx::query(
        "UPDATE kept_outputs SET key = replace(key, build, ?1), build = ?1, output = ?2,
                                 digest = ?3",
    )
    .bind(other)
    .bind("forged")
    .bind(digest("forged"))
    .execute(&test.connections)
    .await
    .unwrap();
    let (printed_now, computed) = printed(db, &args);
    assert!(computed);
    assert_eq!(printed_now, genuine);
    let builds: Vec<(String,)> = sqlx::query_as("SELECT build FROM kept_outputs")
        .fetch_all(&test.connections)
        .await
        .unwrap();
    assert_eq!(builds, [(build.clone(),)], "the other build's row is gone");

    // This build's row, cut short (its digest no longer its output's).
    sqlx::query("UPDATE kept_outputs SET output = substr(output, 1, 100)")
        .execute(&test.connections)
        .await
        .unwrap();
    let (printed_now, computed) = printed(db, &args);
    assert!(computed);
    assert_eq!(printed_now, genuine);
    let (printed_now, computed) = printed(db, &args);
    assert!(!computed, "the row was replaced whole");
    assert_eq!(printed_now, genuine);
}

/// FNV-1a 64 of `text`, as the study keeps an output's digest.
fn digest(text: &str) -> i64 {
    let hash = (text.bytes()).fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    i64::from_ne_bytes(hash.to_ne_bytes())
}

/// While another connection holds the study's write lock (a server's write, an import), the
/// command answers at once, the same bytes, and keeps nothing; afterwards it keeps its output.
/// Before, opening the study waited for the lock (30 s).
#[tokio::test]
async fn a_held_write_lock_is_never_waited_for() {
    let test = rated_study().await;
    let db = &test.db_path();
    let args = ["leaderboard", "--format", "json"];
    let expected = computed_with_nothing_kept(&test, &args).await;

    let mut holder = rusqlite::Connection::open(db).unwrap();
    let lock = holder
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    let output = ending_within(db, &args, Duration::from_secs(20));
    assert_eq!(succeeded(&output), expected);
    let kept: i64 = lock
        .query_row("SELECT COUNT(*) FROM kept_outputs", [], |row| row.get(0))
        .unwrap();
    assert_eq!(kept, 0, "nothing kept while the lock was held");
    lock.commit().unwrap();

    assert_eq!(succeeded(&paperjudge(db, &args, &[])), expected);
    assert_eq!(kept_rows(&test).await.len(), 1);
}

/// `paperjudge --db DB ARGS` to its end; fails the test (killing it) past `limit`.
fn ending_within(db: &Path, args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_paperjudge"))
        .arg("--db")
        .arg(db)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let started = std::time::Instant::now();
    while child.try_wait().expect("the status").is_none() {
        if started.elapsed() > limit {
            child.kill().expect("killed");
            panic!("{args:?} waited for the lock past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("the output")
}

/// A study file the user may only read answers as a writable one does, and is left as it
/// was; in a directory the user may only read, the study cannot be opened (SQLite's log
/// needs its files beside it), as before outputs were kept.
#[tokio::test]
async fn a_read_only_study_answers_the_same_bytes() {
    let test = rated_study().await;
    let db = test.db_path();
    let args = ["leaderboard", "--format", "json"];
    let expected = computed_with_nothing_kept(&test, &args).await;
    test.study.close().await;
    test.connections.close().await;

    let dir = test.dir.path();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read(&db).unwrap();
    let output = as_another_user(&db, &args);
    assert_eq!(succeeded(&output), expected);
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the study file is unchanged"
    );

    // The log's files the first run left, owned by the other user.
    for suffix in ["-wal", "-shm"] {
        let file = dir.join(format!("study.db{suffix}"));
        std::fs::remove_file(&file).expect("left by the read");
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let output = as_another_user(&db, &args);
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(&format!("cannot open the study file {}", db.display())),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the study file is unchanged"
    );
}

/// `paperjudge --db DB ARGS` as a user the permissions hold back: the test's own, or `nobody`
/// when it runs as root (whom no permission holds back).
fn as_another_user(db: &Path, args: &[&str]) -> Output {
    let root = std::fs::metadata(db).unwrap().uid() == 0;
    let mut command = if root {
        let mut command = Command::new("setpriv");
        command.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
        command.arg(env!("CARGO_BIN_EXE_paperjudge"));
        command
    } else {
        Command::new(env!("CARGO_BIN_EXE_paperjudge"))
    };
    (command.arg("--db").arg(db).args(args))
        .env("PAPERJUDGE_LOG", "warn")
        .output()
        .expect("the binary runs")
}

/// However many revisions and options are asked for, a handful of outputs are kept: those of
/// the revision asked for last.
#[tokio::test]
async fn the_kept_outputs_stay_few() {
    let test = rated_study().await;
    let db = &test.db_path();
    let targets = test.active_targets().await;
    let (target, _) = targets[5];
    for (number, paper) in test.pool_of(target).await.iter().take(6).enumerate() {
        rate(&test, target, paper, stars(number), &Rater::owner()).await;
        for format in ["json", "csv"] {
            succeeded(&leaderboard(db, &["--format", format]));
        }
        assert_eq!(
            kept_rows(&test).await.len(),
            2,
            "the revision's two outputs"
        );
    }
    for k in 1..=12 {
        succeeded(&leaderboard(
            db,
            &["--format", "json", "--k", &k.to_string()],
        ));
    }
    assert_eq!(kept_rows(&test).await.len(), 8);
}

/// A disk that fills up as the output would be kept: the command prints the output it
/// computed and exits 0, keeps nothing and leaves the study whole; with room again, the next
/// call keeps it. The disk is a tmpfs in a mount namespace of the test's own (as the import's
/// full-disk test in `durability`), holding a copy of the study, with 48 KiB left: room for
/// SQLite's shared memory (32 KiB), not for the output (about 40 KiB) in the log.
#[tokio::test]
async fn a_full_disk_keeps_nothing_and_changes_nothing_printed() {
    let test = TestStudy::study_s().await;
    let db = test.db_path();
    // Every pooled pair rated: every target's values in the output.
    let ratings = grades(&test, 0).await;
    succeeded(&paperjudge(
        &db,
        &["import", "ratings", ratings.to_str().unwrap()],
        &[],
    ));
    let args = ["leaderboard", "--format", "json", "--per-target"];
    let expected = computed_with_nothing_kept(&test, &args).await;
    assert!(expected.len() > 32 * 1024, "{}", expected.len());
    test.study.close().await;
    test.connections.close().await;

    let out = test.dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let disk = test.dir.path().join("disk");
    std::fs::create_dir(&disk).unwrap();
    let size = std::fs::metadata(&db).unwrap().len() + (1 << 20);
    let script = r#"
        set -u
        mount -t tmpfs -o size="$4" tmpfs "$0" || exit 99
        cp "$1" "$0/study.db" && cd "$0" || exit 98
        free=$(df --output=avail -B1 . | tail -1)
        head -c $((free - 49152)) /dev/zero > filler 2>/dev/null
        export PAPERJUDGE_LOG=paperjudge=debug
        "$2" --db study.db leaderboard --format json --per-target >"$3/full.json" 2>"$3/full.log"
        echo "on a full disk: $?"
        cp study.db "$3/after-full.db"
        rm filler
        "$2" --db study.db leaderboard --format json --per-target >"$3/room.json" 2>"$3/room.log"
        echo "with room: $?"
        cp study.db "$3/after-room.db"
    "#;
    let output = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "bash", "-c", script])
        .arg(&disk)
        .arg(&db)
        .arg(env!("CARGO_BIN_EXE_paperjudge"))
        .arg(&out)
        .arg(size.to_string())
        .output()
        .expect("unshare runs");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "on a full disk: 0\nwith room: 0\n",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    assert_eq!(read("full.json"), expected);
    assert!(
        read("full.log").contains("the output was not kept error=database or disk is full"),
        "{}",
        read("full.log")
    );
    assert_eq!(read("room.json"), expected);
    assert!(
        read("room.log").contains("kept the output"),
        "{}",
        read("room.log")
    );
    // (integrity, rows kept) of the study after each call.
    let state = |name: &str| {
        let conn = rusqlite::Connection::open(out.join(name)).unwrap();
        let integrity: String = conn
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .unwrap();
        let kept: i64 = conn
            .query_row("SELECT COUNT(*) FROM kept_outputs", [], |row| row.get(0))
            .unwrap();
        (integrity, kept)
    };
    assert_eq!(state("after-full.db"), ("ok".to_owned(), 0));
    assert_eq!(state("after-room.db"), ("ok".to_owned(), 1));
}
