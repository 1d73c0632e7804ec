//! A study made before raters existed opens unchanged: the file tests/fixtures/migration was
//! made by paperjudge at main d7bb961 (its make.sh says how), with what that build printed of
//! it. Opened by this build, migrated (every rating the owner's), it prints the same leaderboard
//! JSON byte for byte, `decision` included, and the same CSV and qrels. Columns changed on
//! purpose since: `p_value_holm`, adjusted over every pair of models instead of the leader's
//! comparisons alone, then the intervals and p-values of the additive resampling (docs/metrics.md,
//! "How sure the ranking is"); the expected leaderboards were printed again each time (make.sh),
//! and differed from the ones before in those columns only.

use std::path::{Path, PathBuf};

use crate::process_support::{paperjudge, succeeded};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/migration")
        .join(name)
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).expect("the fixture is there")
}

/// The fixture's study copied where it may be migrated.
fn migrated_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("study.db");
    std::fs::copy(fixture("main-d7bb961.db"), &db).expect("the fixture copies");
    (dir, db)
}

#[test]
fn a_study_from_before_raters_gives_the_same_leaderboard_byte_for_byte() {
    let (_dir, db) = migrated_copy();
    let json = succeeded(&paperjudge(&db, &["leaderboard", "--format", "json"], &[]));
    assert_eq!(json, expected("leaderboard.json"));
    assert!(
        json.contains("\"decision\": {"),
        "the verdict is compared too"
    );
    let per_target = succeeded(&paperjudge(
        &db,
        &[
            "leaderboard",
            "--format",
            "json",
            "--per-target",
            "--gain",
            "exponential",
        ],
        &[],
    ));
    assert_eq!(
        per_target,
        expected("leaderboard-exponential-per-target.json")
    );
    let csv = succeeded(&paperjudge(&db, &["leaderboard", "--format", "csv"], &[]));
    assert_eq!(csv, expected("leaderboard.csv"));
    let qrels = succeeded(&paperjudge(&db, &["export", "qrels"], &[]));
    assert_eq!(qrels, expected("qrels.txt"));
}

#[test]
fn every_rating_of_a_study_from_before_raters_is_the_owners() {
    let (_dir, db) = migrated_copy();
    let exported = succeeded(&paperjudge(&db, &["export", "ratings"], &[]));
    let mut lines = exported.lines();
    assert_eq!(
        lines.next(),
        Some("target,target_title,paper,paper_title,stars,rated_at,rater,note")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 149);
    assert!(rows.iter().all(|row| row.ends_with(",owner,")), "{rows:?}");
    let status = succeeded(&paperjudge(&db, &["status", "--format", "json"], &[]));
    let status: serde_json::Value = serde_json::from_str(&status).expect("JSON");
    assert_eq!(status["rated_pairs"], 149);
    assert_eq!(status["targets_finished"], 7);
    assert_eq!(status["targets_partly_rated"], 1);
    assert_eq!(status["raters"], serde_json::json!([]));
    let raters = succeeded(&paperjudge(&db, &["raters", "list"], &[]));
    assert_eq!(
        raters,
        "each target rated by 1 rater\nno raters: the owner rates alone (`paperjudge raters add NAME`)\n"
    );
}
