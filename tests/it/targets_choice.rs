//! Choosing the targets to rate from the command line: choose (by id, from a file, by a
//! seeded sample, all), drop, list and next, on the real binary and a real study file.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::process_support::{paperjudge, succeeded};
use serde_json::{json, Value};

/// Papers P1..P12; models m1 and m2 recommend for P1..P5, each target's pool being P6..P10.
fn library(dir: &Path) -> (PathBuf, PathBuf) {
    let papers = dir.join("papers.csv");
    std::fs::write(&papers, crate::common::papers_csv(12)).unwrap();
    let mut csv = String::from("model,target,rank,paper\n");
    for target in 1..=5 {
        for (rank, paper) in [6, 7, 8].iter().enumerate() {
            csv.push_str(&format!("m1,P{target},{},P{paper}\n", rank + 1));
        }
        for (rank, paper) in [8, 9, 10].iter().enumerate() {
            csv.push_str(&format!("m2,P{target},{},P{paper}\n", rank + 1));
        }
    }
    let recommendations = dir.join("recommendations.csv");
    std::fs::write(&recommendations, csv).unwrap();
    (papers, recommendations)
}

fn run(db: &Path, args: &[&str]) -> Output {
    paperjudge(db, args, &[])
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// Runs a command that must succeed; answers its standard error (where commands report).
fn reported(db: &Path, args: &[&str]) -> String {
    let output = run(db, args);
    succeeded(&output);
    stderr(&output)
}

fn refused(db: &Path, args: &[&str]) -> String {
    let output = run(db, args);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{args:?}: {}",
        stderr(&output)
    );
    stderr(&output)
}

fn status(db: &Path) -> Value {
    serde_json::from_str(&succeeded(&run(db, &["status", "--format", "json"]))).unwrap()
}

fn list_csv(db: &Path) -> String {
    succeeded(&run(db, &["targets", "list", "--format", "csv"]))
}

/// A study with the library imported and nothing chosen.
fn imported(dir: &Path, name: &str) -> PathBuf {
    let (papers, recommendations) = library(dir);
    let db = dir.join(name);
    succeeded(&run(&db, &["import", "papers", papers.to_str().unwrap()]));
    succeeded(&run(
        &db,
        &[
            "import",
            "recommendations",
            recommendations.to_str().unwrap(),
        ],
    ));
    db
}

async fn count(db: &Path, sql: &str) -> i64 {
    let pool = crate::common::connections_to(db).await;
    let count = sqlx::query_scalar(sql).fetch_one(&pool).await.unwrap();
    pool.close().await;
    count
}

#[tokio::test]
async fn targets_chosen_before_the_lists_arrive_are_the_only_ones_pooled() {
    let dir = tempfile::tempdir().unwrap();
    let (papers, recommendations) = library(dir.path());
    let db = dir.path().join("study.db");
    succeeded(&run(&db, &["init"]));
    succeeded(&run(&db, &["import", "papers", papers.to_str().unwrap()]));

    assert_eq!(
        reported(&db, &["targets", "choose", "P1", "P3"]),
        "chose 2 targets; 2 have no recommendations yet: their pool is built when they are \
         imported; pool: 0 pairs added\n\
         the study no longer rates every target with recommendations, only the chosen ones \
         (`paperjudge targets choose --all` goes back)\n\
         the study is rating 2 chosen targets of 0 with recommendations\n"
    );
    assert_eq!(
        reported(
            &db,
            &[
                "import",
                "recommendations",
                recommendations.to_str().unwrap()
            ]
        ),
        "read 30 rows; lists: 10 added, 0 updated, 0 unchanged; 0 rows dropped; pool: 10 pairs \
         added, 0 removed\nthe study is rating 2 chosen targets of 5 with recommendations\n"
    );

    assert_eq!(
        status(&db),
        json!({"papers": 12, "models": 2, "targets": 2, "recommendations": 30,
               "pooled_pairs": 10, "rated_pairs": 0, "targets_finished": 0, "pool_depth": 8,
               "candidate_targets": 5, "target_choice": "chosen", "targets_partly_rated": 0,
               "targets_without_recommendations": 0, "judgments_with_provenance_known": 0,
               "pruning": false, "pruned_models": [], "raters": []})
    );
    assert_eq!(count(&db, "SELECT COUNT(*) FROM pool").await, 10);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM recommendations").await, 30);
    let pool = succeeded(&run(&db, &["export", "pool"]));
    let pooled_targets: Vec<&str> = (pool.lines().skip(1))
        .map(|line| line.split(',').next().unwrap())
        .collect();
    assert_eq!(
        pooled_targets,
        ["P1"; 5]
            .iter()
            .chain(&["P3"; 5])
            .copied()
            .collect::<Vec<_>>()
    );

    // Choosing a paper with stored lists builds its pool from them.
    assert_eq!(
        reported(&db, &["targets", "choose", "P2", "P1"]),
        "chose 1 target (1 more chosen already); pool: 5 pairs added\n\
         the study is rating 3 chosen targets of 5 with recommendations\n"
    );
    assert_eq!(count(&db, "SELECT COUNT(*) FROM pool").await, 15);
    assert_eq!(
        list_csv(&db),
        "target,title,rated,pooled,finished\r\n\
         P1,Paper number 1,0,5,false\r\nP2,Paper number 2,0,5,false\r\n\
         P3,Paper number 3,0,5,false\r\n"
    );
}

#[tokio::test]
async fn unknown_ids_are_named_and_nothing_changes() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path(), "study.db");
    let before = status(&db);

    assert_eq!(
        refused(&db, &["targets", "choose", "P1", "nope", "P2", "nada"]),
        "paperjudge: unknown paper ids: \"nope\", \"nada\"; nothing changed\n"
    );
    let file = dir.path().join("chosen.txt");
    std::fs::write(&file, "# read in 2026\nP1\n\nnope\n  P2  \nnada\n").unwrap();
    let shown = file.display();
    assert_eq!(
        refused(
            &db,
            &["targets", "choose", "--file", file.to_str().unwrap()]
        ),
        format!(
            "paperjudge: {shown}:4: unknown paper id \"nope\"\n\
             paperjudge: {shown}:6: unknown paper id \"nada\"\n\
             paperjudge: nothing was chosen\n"
        )
    );
    std::fs::write(&file, "P1\nP2 P3\n").unwrap();
    assert_eq!(
        refused(
            &db,
            &["targets", "choose", "--file", file.to_str().unwrap()]
        ),
        format!("paperjudge: {shown}:2: \"P2 P3\" holds whitespace: give one paper id a line\n")
    );
    assert_eq!(
        refused(&db, &["targets", "drop", "P4", "gone"]),
        "paperjudge: unknown paper id: \"gone\"; nothing changed\n"
    );
    assert!(refused(&db, &["targets", "choose"]).contains("the following required arguments"));
    assert_eq!(
        refused(&db, &["targets", "choose", "--sample", "0"]),
        "paperjudge: --sample must be at least 1; nothing changed\n"
    );
    assert_eq!(
        refused(&db, &["targets", "choose", "--seed", "3", "P1"]),
        "paperjudge: --seed goes with --sample N; nothing changed\n"
    );
    assert!(refused(&db, &["targets", "choose", "P1", "--all"]).contains("cannot be used with"));
    assert_eq!(status(&db), before, "a refused choice changed the study");

    succeeded(&run(&db, &["targets", "choose", "P1"]));
    assert_eq!(
        refused(&db, &["targets", "drop", "P1", "P4", "P6"]),
        "paperjudge: not among the targets being rated: \"P4\", \"P6\"; nothing changed\n"
    );
    assert_eq!(status(&db)["targets"], 1);
    assert_eq!(
        refused(&db, &["targets", "choose", "--sample", "5"]),
        "paperjudge: cannot sample 5 targets: only 4 papers with recommendations are not \
         chosen; nothing changed\n"
    );
}

#[tokio::test]
async fn a_file_of_ids_chooses_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path(), "study.db");
    let file = dir.path().join("read.txt");
    std::fs::write(
        &file,
        "\u{feff}# the papers I have read\r\nP4\r\n\r\nP2\r\nP4\r\n",
    )
    .unwrap();

    assert_eq!(
        reported(
            &db,
            &["targets", "choose", "--file", file.to_str().unwrap()]
        ),
        "chose 2 targets; pool: 0 pairs added\n\
         the study no longer rates every target with recommendations, only the chosen ones \
         (`paperjudge targets choose --all` goes back)\n\
         the study is rating 2 chosen targets of 5 with recommendations\n"
    );
    assert_eq!(
        list_csv(&db),
        "target,title,rated,pooled,finished\r\n\
         P2,Paper number 2,0,5,false\r\nP4,Paper number 4,0,5,false\r\n"
    );
}

#[tokio::test]
async fn a_sample_is_the_same_for_the_same_seed() {
    let dir = tempfile::tempdir().unwrap();
    let [first, second, third] =
        ["first.db", "second.db", "third.db"].map(|name| imported(dir.path(), name));

    let said = reported(
        &first,
        &["targets", "choose", "--sample", "3", "--seed", "7"],
    );
    assert!(
        said.starts_with("chose 3 targets; pool: 0 pairs added\n"),
        "{said}"
    );
    assert!(said.contains("sampled with --seed 7\n"), "{said}");
    succeeded(&run(
        &second,
        &["targets", "choose", "--sample", "3", "--seed", "7"],
    ));
    succeeded(&run(
        &third,
        &["targets", "choose", "--sample", "3", "--seed", "9"],
    ));
    let sampled = list_csv(&first);
    assert_eq!(sampled.lines().count(), 4);
    assert_eq!(list_csv(&second), sampled);
    assert_ne!(list_csv(&third), sampled, "another seed, another sample");

    // Without a seed, the one drawn is printed, and repeats the sample.
    let said = reported(&first, &["targets", "choose", "--sample", "1"]);
    let seed = said
        .split("sampled with --seed ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the seed is printed");
    succeeded(&run(
        &second,
        &["targets", "choose", "--sample", "1", "--seed", seed],
    ));
    assert_eq!(list_csv(&second), list_csv(&first));
    // A sample draws among the targets not chosen yet.
    succeeded(&run(
        &first,
        &["targets", "choose", "--sample", "1", "--seed", "1"],
    ));
    assert_eq!(status(&first)["targets"], 5);
}

#[tokio::test]
async fn list_next_drop_and_all() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path(), "study.db");
    // Until a first choice, every paper with recommendations is a target.
    let everything = status(&db);
    assert_eq!(
        (&everything["targets"], &everything["target_choice"]),
        (&json!(5), &json!("all"))
    );

    succeeded(&run(&db, &["targets", "choose", "P2", "P5"]));
    let text = succeeded(&run(&db, &["targets", "list"]));
    assert_eq!(
        text,
        "target  rated/pooled  title\n\
         P2               0/5  Paper number 2\n\
         P5               0/5  Paper number 5\n"
    );
    let listed: Value = serde_json::from_str(&succeeded(&run(
        &db,
        &["targets", "list", "--format", "json"],
    )))
    .unwrap();
    assert_eq!(
        listed,
        json!([
            {"target": "P2", "title": "Paper number 2", "rated": 0, "pooled": 5, "finished": false},
            {"target": "P5", "title": "Paper number 5", "rated": 0, "pooled": 5, "finished": false}
        ])
    );

    let next = succeeded(&run(&db, &["next"]));
    assert!(next == "P2\n" || next == "P5\n", "{next}");
    let next_json: Value =
        serde_json::from_str(&succeeded(&run(&db, &["next", "--format", "json"]))).unwrap();
    assert_eq!(next_json["target"], next.trim());
    assert_eq!(
        (&next_json["rated"], &next_json["pooled"]),
        (&json!(0), &json!(5))
    );

    // Rate all of the next target; `next` moves on to the other one, then says nothing.
    let ratings = dir.path().join("ratings.csv");
    let rate_all = |target: &str| {
        let mut csv = String::from("target,paper,stars\n");
        for paper in 6..=10 {
            csv.push_str(&format!("{target},P{paper},3\n"));
        }
        std::fs::write(&ratings, csv).unwrap();
        succeeded(&run(&db, &["import", "ratings", ratings.to_str().unwrap()]));
    };
    rate_all(next.trim());
    let other = if next == "P2\n" { "P5" } else { "P2" };
    assert_eq!(succeeded(&run(&db, &["next"])), format!("{other}\n"));
    rate_all(other);
    assert_eq!(succeeded(&run(&db, &["next"])), "");
    assert_eq!(
        succeeded(&run(&db, &["next", "--format", "json"])),
        "{\"target\":null}\n"
    );

    assert_eq!(
        reported(&db, &["targets", "drop", "P2"]),
        "dropped 1 target; the ratings of 1 target are kept, and come back if it is chosen \
         again\nthe study is rating 1 chosen target of 5 with recommendations\n"
    );
    assert_eq!(
        list_csv(&db),
        "target,title,rated,pooled,finished\r\nP5,Paper number 5,5,5,true\r\n"
    );
    assert_eq!(status(&db)["rated_pairs"], 5);
    let ratings_export = succeeded(&run(&db, &["export", "ratings"]));
    assert_eq!(
        ratings_export.lines().count(),
        11,
        "dropping keeps every rating"
    );

    assert_eq!(
        reported(&db, &["targets", "choose", "--all"]),
        "every paper with recommendations is a target again; pool: 0 pairs added\n\
         the study is rating all 5 targets that have recommendations\n"
    );
    assert_eq!(
        list_csv(&db)
            .lines()
            .skip(1)
            .map(|line| line.split(',').next().unwrap())
            .collect::<Vec<_>>(),
        ["P1", "P2", "P3", "P4", "P5"]
    );
    let all = status(&db);
    assert_eq!(
        (
            &all["targets_finished"],
            &all["pooled_pairs"],
            &all["rated_pairs"]
        ),
        (&json!(2), &json!(25), &json!(10))
    );

    // Dropping while the study rates every candidate keeps the others, now as chosen targets.
    assert_eq!(
        reported(&db, &["targets", "drop", "P4"]),
        "dropped 1 target\nthe study no longer rates every target with recommendations: every \
         other one is now a chosen target\nthe study is rating 4 chosen targets of 5 with \
         recommendations\n"
    );
}

/// The progress counts kept on each target equal what the pool and the ratings hold, after
/// every kind of change.
#[tokio::test]
async fn progress_counts_follow_every_change() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path(), "study.db");
    let check = |db: PathBuf| async move {
        let mismatched = count(
            &db,
            "SELECT COUNT(*) FROM targets t
             WHERE t.pooled <> (SELECT COUNT(*) FROM pool p WHERE p.target_id = t.target_id)
                OR t.rated <> (SELECT COUNT(*) FROM ratings r WHERE r.target_id = t.target_id)",
        )
        .await;
        assert_eq!(mismatched, 0);
    };
    check(db.clone()).await;
    let ratings = dir.path().join("ratings.csv");
    // P11 is in no list: its rating brings it into P1's pool.
    std::fs::write(
        &ratings,
        "target,paper,stars\nP1,P6,4\nP1,P11,2\nP12,P6,5\n",
    )
    .unwrap();
    succeeded(&run(&db, &["import", "ratings", ratings.to_str().unwrap()]));
    check(db.clone()).await;
    succeeded(&run(&db, &["targets", "choose", "P1", "P12"]));
    check(db.clone()).await;
    // m1 now lists other papers for P1 and P3: unrated pairs no longer listed leave P1's
    // pool; P3, not chosen, keeps its old pool until it is.
    let changed = dir.path().join("changed.csv");
    std::fs::write(
        &changed,
        "model,target,rank,paper\nm1,P1,1,P11\nm1,P1,2,P12\nm1,P3,1,P11\n",
    )
    .unwrap();
    let said = reported(
        &db,
        &["import", "recommendations", changed.to_str().unwrap()],
    );
    assert!(said.contains("pool: 1 pairs added, 1 removed"), "{said}");
    check(db.clone()).await;
    succeeded(&run(&db, &["targets", "choose", "--all"]));
    check(db.clone()).await;
    assert_eq!(
        count(&db, "SELECT pooled FROM targets t JOIN papers p ON p.id = t.target_id WHERE p.external_id = 'P3'").await,
        4,
        "P3's pool follows its new lists once it is rated again: P11, P8, P9, P10"
    );
}
