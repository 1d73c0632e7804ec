//! Never lose a rating: ratings acknowledged before a SIGKILL are there after a restart,
//! concurrent raters lose no update and never see "database is locked", a backup taken
//! during a burst of ratings is consistent and holds every rating acknowledged before it, the
//! study file alone is the whole study after a command or a graceful stop, and saves that
//! fail for a full disk or an import answer so and resume on their own.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::process_support::{paperjudge, succeeded, ServerProcess};
use crate::web_support::{Answer, TestApp};
use reqwest::header::{ACCEPT, COOKIE};
use reqwest::StatusCode;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::SqlitePool;
use tokio::task::JoinHandle;

const TARGETS: usize = 10;
const PAPERS_PER_TARGET: usize = 20;
/// Every pair of the study: each target's pool holds all its papers.
const PAIRS: usize = TARGETS * PAPERS_PER_TARGET;
const CONCURRENT_RATERS: usize = 8;

/// One pair of the pool, as the rating form names it.
#[derive(Debug, Clone)]
struct Pair {
    target_id: i64,
    target: String,
    paper: String,
}

/// A study of [`PAIRS`] pairs, made through the command line: targets T1..T10, each with
/// papers P1..P20 in its pool.
fn study_with_many_pairs(dir: &Path) -> PathBuf {
    let db = dir.join("study.db");
    let mut papers = String::from("id,title\n");
    let mut recommendations = String::from("model,target,rank,paper\n");
    for target in 1..=TARGETS {
        papers.push_str(&format!("T{target},Target {target}\n"));
        for rank in 1..=PAPERS_PER_TARGET {
            recommendations.push_str(&format!("m,T{target},{rank},P{rank}\n"));
        }
    }
    for paper in 1..=PAPERS_PER_TARGET {
        papers.push_str(&format!("P{paper},Paper {paper}\n"));
    }
    let papers_file = dir.join("papers.csv");
    let recommendations_file = dir.join("recommendations.csv");
    std::fs::write(&papers_file, papers).expect("papers written");
    std::fs::write(&recommendations_file, recommendations).expect("recommendations written");
    let depth = PAPERS_PER_TARGET.to_string();
    succeeded(&paperjudge(&db, &["init", "--pool-depth", &depth], &[]));
    for (kind, file) in [
        ("papers", &papers_file),
        ("recommendations", &recommendations_file),
    ] {
        let file = file.to_str().expect("a UTF-8 path");
        succeeded(&paperjudge(&db, &["import", kind, file], &[]));
    }
    db
}

/// Opens a study file for reading only, without migrating or otherwise touching it.
async fn read_only(db: &Path) -> SqlitePool {
    let options = SqliteConnectOptions::from_str("sqlite:")
        .expect("options")
        .filename(db)
        .read_only(true);
    SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options)
        .await
        .expect("the study file opens")
}

async fn every_pair(db: &Path) -> Vec<Pair> {
    let pool = read_only(db).await;
    let rows: Vec<(i64, String, String)> = sqlx::query_as(
        "SELECT t.id, t.external_id, p.external_id FROM pool
         JOIN papers t ON t.id = pool.target_id JOIN papers p ON p.id = pool.paper_id
         ORDER BY t.id, p.id",
    )
    .fetch_all(&pool)
    .await
    .expect("the pool reads");
    assert_eq!(rows.len(), PAIRS);
    rows.into_iter()
        .map(|(target_id, target, paper)| Pair {
            target_id,
            target,
            paper,
        })
        .collect()
}

/// The stars the `pass`-th rating of pair `index` sets: each pass changes every pair.
fn stars_of(index: usize, pass: usize) -> u8 {
    (1 + (index + pass) % 5) as u8
}

/// Raters posting as the rating script does, each rating its own share of the pairs one
/// after another, pass after pass, until `passes` are done, they are stopped, or the server
/// stops answering. What each acknowledged is kept in order, per pair.
struct Burst {
    acknowledged: Arc<Mutex<Vec<Vec<u8>>>>,
    acknowledged_count: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    /// Answers other than "saved" from a server that was still answering.
    refusals: Arc<Mutex<Vec<String>>>,
    raters: Vec<JoinHandle<()>>,
}

impl Burst {
    async fn fire(address: &str, pairs: &[Pair], passes: usize) -> Burst {
        let http = crate::web_support::http_client()
            .build()
            .expect("an HTTP client");
        let page = http
            .get(format!("{address}/targets/{}", pairs[0].target_id))
            .send()
            .await
            .expect("a rating page");
        let cookie = crate::web_support::csrf_cookie(page.headers()).expect("a CSRF cookie");
        let token = crate::web_support::hidden_token(&page.text().await.expect("a page"))
            .expect("the form's token");
        let burst = Burst {
            acknowledged: Arc::new(Mutex::new(vec![Vec::new(); pairs.len()])),
            acknowledged_count: Arc::new(AtomicUsize::new(0)),
            stop: Arc::new(AtomicBool::new(false)),
            refusals: Arc::new(Mutex::new(Vec::new())),
            raters: Vec::new(),
        };
        let raters = (0..CONCURRENT_RATERS)
            .map(|rater| {
                let share: Vec<(usize, Pair)> = pairs
                    .iter()
                    .cloned()
                    .enumerate()
                    .skip(rater)
                    .step_by(CONCURRENT_RATERS)
                    .collect();
                let (http, address, cookie, token) = (
                    http.clone(),
                    address.to_owned(),
                    cookie.clone(),
                    token.clone(),
                );
                let acknowledged = Arc::clone(&burst.acknowledged);
                let count = Arc::clone(&burst.acknowledged_count);
                let stop = Arc::clone(&burst.stop);
                let refusals = Arc::clone(&burst.refusals);
                tokio::spawn(async move {
                    for pass in 0..passes {
                        for (index, pair) in &share {
                            if stop.load(Ordering::SeqCst) {
                                return;
                            }
                            let stars = stars_of(*index, pass);
                            let answer = http
                                .post(format!("{address}/targets/{}/ratings", pair.target_id))
                                .header(COOKIE, &cookie)
                                .header(ACCEPT, "application/json")
                                .form(&[
                                    ("paper", pair.paper.as_str()),
                                    ("stars", &stars.to_string()),
                                    ("csrf_token", &token),
                                ])
                                .send()
                                .await;
                            // No answer: the server is gone.
                            let Ok(answer) = answer else { return };
                            let status = answer.status();
                            let Ok(body) = answer.json::<serde_json::Value>().await else {
                                return;
                            };
                            if status == StatusCode::OK && body["saved"] == true {
                                acknowledged.lock().expect("not poisoned")[*index].push(stars);
                                count.fetch_add(1, Ordering::SeqCst);
                            } else {
                                refusals
                                    .lock()
                                    .expect("not poisoned")
                                    .push(format!("{status}: {body}"));
                            }
                        }
                    }
                })
            })
            .collect();
        Burst { raters, ..burst }
    }

    fn acknowledged_count(&self) -> usize {
        self.acknowledged_count.load(Ordering::SeqCst)
    }

    async fn wait_for_acknowledged(&self, count: usize) {
        let deadline = Instant::now() + Duration::from_secs(120);
        while self.acknowledged_count() < count {
            assert!(
                Instant::now() < deadline,
                "{count} ratings were never saved"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// A copy of what has been acknowledged so far, per pair.
    fn acknowledged(&self) -> Vec<Vec<u8>> {
        self.acknowledged.lock().expect("not poisoned").clone()
    }

    /// Stops the raters (if they are still going), waits for them, and answers what each
    /// pair had acknowledged.
    async fn finish(self) -> Vec<Vec<u8>> {
        self.stop.store(true, Ordering::SeqCst);
        for rater in self.raters {
            rater.await.expect("a rater finishes");
        }
        let refusals = self.refusals.lock().expect("not poisoned").clone();
        assert!(refusals.is_empty(), "ratings refused: {refusals:?}");
        Arc::try_unwrap(self.acknowledged)
            .expect("the raters are done")
            .into_inner()
            .expect("not poisoned")
    }
}

/// Every pair's history of stars, oldest first, and its current stars.
async fn stored_ratings(pool: &SqlitePool, pairs: &[Pair]) -> Vec<(Vec<u8>, Option<u8>)> {
    let mut stored = Vec::new();
    for pair in pairs {
        let history: Vec<i64> = sqlx::query_scalar(
            "SELECT h.stars FROM rating_history h
             JOIN papers t ON t.id = h.target_id JOIN papers p ON p.id = h.paper_id
             WHERE t.external_id = ? AND p.external_id = ? ORDER BY h.id",
        )
        .bind(&pair.target)
        .bind(&pair.paper)
        .fetch_all(pool)
        .await
        .expect("the history reads");
        let current: Option<i64> = sqlx::query_scalar(
            "SELECT r.stars FROM ratings r
             JOIN papers t ON t.id = r.target_id JOIN papers p ON p.id = r.paper_id
             WHERE t.external_id = ? AND p.external_id = ?",
        )
        .bind(&pair.target)
        .bind(&pair.paper)
        .fetch_optional(pool)
        .await
        .expect("the rating reads");
        stored.push((
            history.into_iter().map(|stars| stars as u8).collect(),
            current.map(|stars| stars as u8),
        ));
    }
    stored
}

async fn integrity(pool: &SqlitePool) -> String {
    sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(pool)
        .await
        .expect("the check runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ratings_acknowledged_before_a_sigkill_are_there_after_a_restart() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = study_with_many_pairs(dir.path());
    let pairs = every_pair(&db).await;
    let mut server = ServerProcess::start(&db, &["--addr", "127.0.0.1:0"], &[]);

    let burst = Burst::fire(&server.address, &pairs, 1).await;
    burst.wait_for_acknowledged(PAIRS / 2).await;
    server.kill();
    let acknowledged = burst.finish().await;

    let acknowledged_count = acknowledged.iter().filter(|acks| !acks.is_empty()).count();
    assert!(
        (PAIRS / 2..PAIRS).contains(&acknowledged_count),
        "the kill came mid-burst: {acknowledged_count} of {PAIRS} acknowledged"
    );
    let restarted = ServerProcess::start(&db, &["--addr", "127.0.0.1:0"], &[]);
    let health = reqwest::get(restarted.url("/healthz"))
        .await
        .expect("the restarted server answers");
    assert_eq!(health.status(), StatusCode::OK);
    let export = succeeded(&paperjudge(&db, &["export", "ratings"], &[]));
    let exported: HashMap<(String, String), u8> = export
        .lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            let stars = fields[4].parse().expect("stars");
            ((fields[0].to_owned(), fields[2].to_owned()), stars)
        })
        .collect();
    for (index, (pair, acks)) in pairs.iter().zip(&acknowledged).enumerate() {
        let key = (pair.target.clone(), pair.paper.clone());
        match acks.as_slice() {
            [stars] => assert_eq!(exported.get(&key), Some(stars), "{pair:?}"),
            // Sent but not answered: stored or not, but never anything else.
            [] => assert!(
                exported
                    .get(&key)
                    .is_none_or(|&stars| stars == stars_of(index, 0)),
                "{pair:?}"
            ),
            more => panic!("{pair:?} was rated {more:?} in one pass"),
        }
    }
    let pool = read_only(&db).await;
    assert_eq!(integrity(&pool).await, "ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_during_a_burst_of_ratings_holds_all_acknowledged_before_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = study_with_many_pairs(dir.path());
    let pairs = every_pair(&db).await;
    let server = ServerProcess::start(&db, &["--addr", "127.0.0.1:0"], &[]);
    let backup = dir.path().join("backup.db");

    // Bounded: twenty passes at most, and stopped once the backup is written.
    let burst = Burst::fire(&server.address, &pairs, 20).await;
    burst.wait_for_acknowledged(PAIRS / 2).await;
    let before_backup = burst.acknowledged();
    let count_before = burst.acknowledged_count();
    let backup_path = backup.clone();
    let db_path = db.clone();
    let output = tokio::task::spawn_blocking(move || {
        let file = backup_path.to_str().expect("a UTF-8 path");
        paperjudge(&db_path, &["backup", file], &[])
    })
    .await
    .expect("the backup ran");
    let count_after = burst.acknowledged_count();
    burst.finish().await;

    succeeded(&output);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("backup written to {}\n", backup.display())
    );
    assert!(
        count_after > count_before,
        "ratings kept being saved while the backup ran ({count_before} before, {count_after} after)"
    );
    let copy = read_only(&backup).await;
    assert_eq!(integrity(&copy).await, "ok");
    let journal_mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&copy)
        .await
        .expect("the mode reads");
    assert_eq!(
        journal_mode, "delete",
        "the backup is one self-contained file"
    );
    for ((pair, acks), (history, current)) in pairs
        .iter()
        .zip(&before_backup)
        .zip(stored_ratings(&copy, &pairs).await)
    {
        // The history is append-only: it starts with what was acknowledged before the backup.
        assert!(
            history.starts_with(acks),
            "{pair:?}: {acks:?} acknowledged, {history:?} in the backup"
        );
        // A consistent snapshot: each rating with its history entry, or neither.
        assert_eq!(current, history.last().copied(), "{pair:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tabs_rating_the_same_paper_at_once_lose_no_update() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let first_tab = app.session(t1).await;
    let second_tab = app.session(t1).await;
    // Each round both tabs rate P1 at once, with stars that differ from each other and from
    // the round before, so that every request is a real change.
    const ROUNDS: [(&str, &str); 5] = [("1", "2"), ("3", "4"), ("5", "1"), ("2", "3"), ("4", "5")];
    let rounds = ROUNDS.iter().cycle().take(20);
    // Meanwhile another tab rates P2 to P6 of the same target over and over.
    let busy_tab = app.session(t1).await;
    let others = async {
        let mut statuses = Vec::new();
        for round in 0..20 {
            for paper in ["P2", "P3", "P4", "P5", "P6"] {
                let stars = if round % 2 == 0 { "2" } else { "4" };
                let response = app.rate(&busy_tab, t1, paper, stars, Answer::Json).await;
                statuses.push(response.status());
            }
        }
        statuses
    };
    let same_paper = async {
        let mut statuses = Vec::new();
        for (first, second) in rounds {
            let (a, b) = tokio::join!(
                app.rate(&first_tab, t1, "P1", first, Answer::Json),
                app.rate(&second_tab, t1, "P1", second, Answer::Json),
            );
            statuses.extend([a.status(), b.status()]);
        }
        statuses
    };

    let (other_statuses, same_statuses) = tokio::join!(others, same_paper);

    assert_eq!(other_statuses, vec![StatusCode::OK; 100]);
    assert_eq!(same_statuses, vec![StatusCode::OK; 40]);
    let history = app.history("T1", "P1").await;
    assert_eq!(history.len(), 40);
    let mut previous = None;
    for (was, now, source) in &history {
        assert_eq!(
            *was, previous,
            "each change starts from the one before: {history:?}"
        );
        assert_eq!(source, "web");
        previous = *now;
    }
    assert_eq!(
        app.stored_stars("T1", "P1").await,
        previous.map(i64::from),
        "the stored rating is the last change"
    );
    for paper in ["P2", "P3", "P4", "P5", "P6"] {
        assert_eq!(app.history("T1", paper).await.len(), 20, "{paper}");
        assert_eq!(app.stored_stars("T1", paper).await, Some(4), "{paper}");
    }
}

/// The options every connection of a study uses, with the study file unable to grow beyond `max_pages`: SQLite's
/// `max_page_count` on every connection stands for a full disk, without root or a tmpfs.
fn study_on_a_full_disk(db: &Path, max_pages: i64) -> SqliteConnectOptions {
    paperjudge::study::Study::connect_options(db).pragma("max_page_count", max_pages.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saves_resume_as_soon_as_a_full_disk_has_room_again() {
    let study = crate::web_support::fixture_study().await;
    let db = study.db_path();
    // Pages that deleting this table later hands back: the room that comes back.
    sqlx::query("CREATE TABLE room (bytes BLOB)")
        .execute(&study.connections)
        .await
        .expect("a table");
    for _ in 0..8 {
        sqlx::query("INSERT INTO room VALUES (zeroblob(3000))")
            .execute(&study.connections)
            .await
            .expect("a row");
    }
    let pages: i64 = sqlx::query_scalar("PRAGMA page_count")
        .fetch_one(&study.connections)
        .await
        .expect("the size");
    study.connections.close().await;
    let full = SqlitePoolOptions::new()
        .connect_with(study_on_a_full_disk(&db, pages))
        .await
        .expect("the study opens");
    // Fill the end of T1/P1's history with the smallest rows there are, until none fits: a
    // web change of that pair needs at least as much room.
    let key = |id: &'static str| {
        sqlx::query_scalar::<_, i64>("SELECT id FROM papers WHERE external_id = ?")
            .bind(id)
            .fetch_one(&full)
    };
    let (t1, p1) = (key("T1").await.expect("T1"), key("P1").await.expect("P1"));
    let full_error = loop {
        let filled = sqlx::query(
            "INSERT INTO rating_history (target_id, paper_id, source, changed_at)
             VALUES (?, ?, 'import', '')",
        )
        .bind(t1)
        .bind(p1)
        .execute(&full)
        .await;
        if let Err(error) = filled {
            break error;
        }
    };
    assert!(
        full_error.to_string().contains("database or disk is full"),
        "{full_error}"
    );
    let app = TestApp::spawn(crate::common::TestStudy {
        study: (paperjudge::study::Study::open_with(study_on_a_full_disk(&db, pages)).await)
            .expect("the study opens"),
        connections: full.clone(),
        dir: study.dir,
    })
    .await;
    let session = app.session(t1).await;

    for attempt in 1..=2 {
        let refused = app.rate(&session, t1, "P1", "4", Answer::Json).await;
        assert_eq!(
            refused.status(),
            StatusCode::INSUFFICIENT_STORAGE,
            "{attempt}"
        );
        assert_eq!(
            refused.json::<serde_json::Value>().await.expect("JSON"),
            serde_json::json!({"error": DISK_FULL}),
            "{attempt}"
        );
    }
    let plain = app.rate(&session, t1, "P1", "4", Answer::Redirect).await;
    assert_eq!(plain.status(), StatusCode::INSUFFICIENT_STORAGE);
    let page = plain.text().await.expect("a page");
    assert_eq!(crate::web_support::error_message(&page), DISK_FULL);
    assert_eq!(app.stored_stars("T1", "P1").await, None);

    sqlx::query("DROP TABLE room")
        .execute(&full)
        .await
        .expect("room again");

    let saved = app.rate(&session, t1, "P1", "4", Answer::Json).await;
    assert_eq!(saved.status(), StatusCode::OK);
    for paper in ["P2", "P3", "P4", "P5", "P6"] {
        let saved = app.rate(&session, t1, paper, "2", Answer::Redirect).await;
        assert_eq!(saved.status(), StatusCode::SEE_OTHER, "{paper}");
    }
    assert_eq!(app.stored_stars("T1", "P1").await, Some(4));
    assert_eq!(app.stored_stars("T1", "P6").await, Some(2));
    assert_eq!(
        app.history("T1", "P1").await.last(),
        Some(&(None, Some(4), "web".to_owned()))
    );
}

const DISK_FULL: &str = "the server's disk is full, so this change was NOT saved: free some \
                         space on the server, then save it again";

/// Opens a copy of a study file on its own, without migrating it.
async fn open_alone(db: &Path) -> SqlitePool {
    let options = SqliteConnectOptions::new().filename(db);
    SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options)
        .await
        .expect("the copy opens")
}

/// Copies the study file, and only it, to a directory of its own, as a person copies the one
/// file docs/serving.md names.
fn copy_alone(db: &Path, dir: &Path) -> PathBuf {
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("a directory");
    let copy = elsewhere.join("study.db");
    std::fs::copy(db, &copy).expect("the study file copies");
    copy
}

const LIBRARY_PAPERS: usize = 1500;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_command_the_study_file_alone_is_the_whole_study() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = study_with_many_pairs(dir.path());
    let mut ratings = String::from("target,paper,stars\n");
    for target in 1..=TARGETS {
        ratings.push_str(&format!("T{target},P1,{}\n", 1 + target % 5));
    }
    let ratings_file = dir.path().join("ratings.csv");
    std::fs::write(&ratings_file, ratings).expect("ratings written");
    let file = ratings_file.to_str().expect("a UTF-8 path");
    succeeded(&paperjudge(&db, &["import", "ratings", file], &[]));
    // Megabytes of papers, as a real library has: more than a process exiting in a hurry
    // would still write from the log into the file.
    let mut library = String::from("id,title,abstract\n");
    for paper in 1..=LIBRARY_PAPERS {
        library.push_str(&format!(
            "L{paper},Library paper {paper},{}\n",
            "words ".repeat(400)
        ));
    }
    let library_file = dir.path().join("library.csv");
    std::fs::write(&library_file, library).expect("papers written");
    let file = library_file.to_str().expect("a UTF-8 path");
    succeeded(&paperjudge(&db, &["import", "papers", file], &[]));

    let copy = open_alone(&copy_alone(&db, dir.path())).await;

    assert_eq!(integrity(&copy).await, "ok");
    let counts: (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM papers), (SELECT COUNT(*) FROM recommendations),
                (SELECT COUNT(*) FROM pool), (SELECT COUNT(*) FROM ratings)",
    )
    .fetch_one(&copy)
    .await
    .expect("the copy reads");
    assert_eq!(
        counts,
        (
            (TARGETS + PAPERS_PER_TARGET + LIBRARY_PAPERS) as i64,
            PAIRS as i64,
            PAIRS as i64,
            TARGETS as i64
        )
    );
    let stars: Vec<i64> = sqlx::query_scalar(
        "SELECT r.stars FROM ratings r JOIN papers t ON t.id = r.target_id
         ORDER BY CAST(substr(t.external_id, 2) AS INTEGER)",
    )
    .fetch_all(&copy)
    .await
    .expect("the ratings read");
    assert_eq!(
        stars,
        (1..=TARGETS as i64).map(|t| 1 + t % 5).collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_graceful_stop_the_study_file_alone_holds_every_rating() {
    for signal in ["TERM", "INT"] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let db = study_with_many_pairs(dir.path());
        let pairs = every_pair(&db).await;
        let mut server = ServerProcess::start(&db, &["--addr", "127.0.0.1:0"], &[]);
        let burst = Burst::fire(&server.address, &pairs, 1).await;
        burst.wait_for_acknowledged(PAIRS).await;
        let acknowledged = burst.finish().await;

        let status = server.stop(signal);

        assert!(status.success(), "SIG{signal}: {status}");
        let copy = open_alone(&copy_alone(&db, dir.path())).await;
        assert_eq!(integrity(&copy).await, "ok", "SIG{signal}");
        for ((pair, acks), (history, current)) in pairs
            .iter()
            .zip(&acknowledged)
            .zip(stored_ratings(&copy, &pairs).await)
        {
            assert_eq!(&history, acks, "SIG{signal}: {pair:?}");
            assert_eq!(current, acks.last().copied(), "SIG{signal}: {pair:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_while_an_import_holds_the_study_answers_503_and_the_next_one_saves() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    // Another process importing: a connection of its own holding the write lock.
    let importer = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(paperjudge::study::Study::connect_options(
            &app.study.db_path(),
        ))
        .await
        .expect("a second connection");
    let mut import = importer.acquire().await.expect("a connection");
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut *import)
        .await
        .expect("the import's write lock");

    let refused = app.rate(&session, t1, "P1", "4", Answer::Json).await;
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.headers()["retry-after"], "2");
    assert_eq!(
        refused.json::<serde_json::Value>().await.expect("JSON"),
        serde_json::json!({"error": IMPORT_RUNNING})
    );
    let plain = app.rate(&session, t1, "P1", "4", Answer::Redirect).await;
    assert_eq!(plain.status(), StatusCode::SERVICE_UNAVAILABLE);
    let page = plain.text().await.expect("a page");
    assert_eq!(crate::web_support::error_message(&page), IMPORT_RUNNING);
    let undo = app.undo(&session, t1, Answer::Json).await;
    assert_eq!(undo.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(app.stored_stars("T1", "P1").await, None);

    sqlx::query("COMMIT")
        .execute(&mut *import)
        .await
        .expect("the import ends");

    let saved = app.rate(&session, t1, "P1", "4", Answer::Json).await;
    assert_eq!(saved.status(), StatusCode::OK);
    assert_eq!(app.stored_stars("T1", "P1").await, Some(4));
}

const IMPORT_RUNNING: &str = "an import is running, so this change was NOT saved: save it \
                              again once the import has finished";

/// A disk that fills up during an import from the command line, and one full before the study
/// is opened: exit status 1 with the cause a person can act on (the disk is full), never "the
/// study database failed", and nothing imported. The disk is a tmpfs of 1 MiB mounted in a
/// mount namespace of the test's own (`unshare`: no root needed where user namespaces are
/// allowed), holding a copy of the study.
#[test]
fn an_import_onto_a_full_disk_says_the_disk_is_full_and_imports_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("study.db");
    let mut papers = String::from("id,title\n");
    let mut lists = String::from("model,target,rank,paper\n");
    for paper in 0..3000 {
        papers.push_str(&format!("P{paper},Paper number {paper}\n"));
    }
    for model in 0..4 {
        for target in 0..600 {
            for rank in 1..=20 {
                let paper = (target * 7 + rank * 131 + model * 17) % 3000;
                lists.push_str(&format!("m{model},P{target},{rank},P{paper}\n"));
            }
        }
    }
    let (papers_file, lists_file) = (dir.path().join("papers.csv"), dir.path().join("lists.csv"));
    std::fs::write(&papers_file, papers).unwrap();
    std::fs::write(&lists_file, lists).unwrap();
    succeeded(&paperjudge(
        &db,
        &["import", "papers", papers_file.to_str().unwrap()],
        &[],
    ));
    let disk = dir.path().join("disk");
    std::fs::create_dir(&disk).unwrap();
    // The study copied onto the small disk; the lists' import fills it. Then, with the study
    // closed, the disk filled to the last byte before the study is opened.
    let script = r#"
        set -u
        mount -t tmpfs -o size=1m tmpfs "$0" || exit 99
        cp "$1" "$0/study.db" && cd "$0" || exit 98
        "$2" --db study.db import recommendations "$3"
        echo "import: $?"
        rm -f study.db-wal study.db-shm
        cat /dev/zero > filler 2>/dev/null
        "$2" --db study.db import recommendations "$3"
        echo "import on a full disk: $?"
        rm filler
        "$2" --db study.db status --format json
    "#;
    let output = std::process::Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "bash", "-c", script])
        .arg(&disk)
        .arg(&db)
        .arg(env!("CARGO_BIN_EXE_paperjudge"))
        .arg(&lists_file)
        .env("PAPERJUDGE_LOG", "off")
        .output()
        .expect("unshare runs");
    let said = String::from_utf8(output.stdout).unwrap();
    let errors = String::from_utf8(output.stderr).unwrap();
    let (statuses, status) = said.split_at(said.find('{').expect(&errors));
    assert_eq!(
        statuses, "import: 1\nimport on a full disk: 1\n",
        "{errors}"
    );
    let full = "paperjudge: nothing was imported: the disk holding the study is full; free some \
                space on it, then try again\n";
    assert_eq!(
        errors,
        format!("{full}paperjudge: cannot open the study file study.db: the disk holding the study is full; free some space on it, then try again\n")
    );
    let status: serde_json::Value = serde_json::from_str(status).unwrap();
    assert_eq!(
        (&status["papers"], &status["models"]),
        (&3000.into(), &0.into())
    );
}

/// A new study gets its forms' secret when it is first opened, and keeps it: opening it again
/// (a restarted server, a command beside it) does not make another, which would refuse every
/// form a page showed before. (That opening writes nothing: `leaderboard_kept`'s read-only
/// study.)
#[tokio::test]
async fn a_studys_form_secret_is_made_once_and_kept_across_openings() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("study.db");
    let first = paperjudge::study::Study::open(&file).await.expect("made");
    let secret = first.form_secret().await.expect("a secret");
    assert_eq!(secret.len(), 32);
    first.close().await;
    let again = paperjudge::study::Study::open(&file).await.expect("opened");
    assert_eq!(again.form_secret().await.expect("the secret"), secret);
    again.close().await;
    // Another study gets a secret of its own.
    let other = (paperjudge::study::Study::open(&dir.path().join("other.db")).await).expect("made");
    assert_ne!(other.form_secret().await.expect("its secret"), secret);
}
