//! `paperjudge lists` as a user runs it: its JSON is the page's, byte for byte, options
//! included; its table and CSV say the same numbers; an empty study gets a message, not an
//! error; wrong options are refused with exit status 2.

use crate::common::TestStudy;
use crate::lists_web::{demo_with_demo_21_chosen, small_study};
use crate::process_support::{paperjudge, stderr, succeeded};
use crate::web_support::TestApp;

#[tokio::test]
async fn the_json_is_the_pages_and_the_table_and_csv_say_the_same() {
    let app = TestApp::spawn(small_study().await).await;
    let db = app.study.db_path();
    for (args, path) in [
        (vec!["lists", "--format", "json"], "/lists.json"),
        (
            vec!["lists", "--format", "json", "--k", "1", "--rbo-p", "0.5"],
            "/lists.json?k=1&rbo-p=0.5",
        ),
    ] {
        let json = succeeded(&paperjudge(&db, &args, &[]));
        assert_eq!(json, app.get_text(path).await, "{args:?}");
    }

    let table = succeeded(&paperjudge(&db, &["lists"], &[]));
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(
        lines[0],
        "Lists of 3 models over the 3 fully rated targets of the 3 being rated (every paper with \
         recommendations, none chosen); top 8, RBO p = 0.9, pool depth 8; library of 9 papers"
    );
    for line in [
        "alpha and bravo share 1.3 of their top 8 papers on average (Jaccard 0.50, RBO 0.54).",
        "bravo  charlie          2  0.5000   0.1250  [0.0000, 0.2500]  0.1350  [0.0000, 0.2700]",
        "alpha brings the most papers that no other model lists: 2 of the pool's 8 pairs (25%); \
         without it, the pool would hold 6 pairs to rate instead of 8. bravo brings the fewest: 0 \
         (0%).",
        "alpha               2  0.2500                    2",
        "charlie        1                2                2         0.2222  0.8750",
        "P1         4        2  Paper one",
    ] {
        assert!(lines.contains(&line), "{line:?} missing from:\n{table}");
    }

    let csv = succeeded(&paperjudge(&db, &["lists", "--format", "csv"], &[]));
    let rows: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(
        rows[0],
        "table,model,other_model,paper,statistic,value,low,high,k,rbo_p,pool_depth,targets"
    );
    for row in [
        "pairs,bravo,charlie,,jaccard,0.125,",
        "pairs,alpha,charlie,,rbo,0,0,0,8,0.9,8,3",
        "pool,,,,pairs,8,,,8,0.9,8,3",
        "contribution,alpha,,,unique_share,0.25,,,8,0.9,8,3",
        "coverage,charlie,,,gini,0.875,,,8,0.9,8,3",
        "most_recommended,,,P4,targets,1,,,8,0.9,8,3",
    ] {
        assert!(
            rows.iter().any(|written| written.starts_with(row)),
            "{row:?} missing from:\n{csv}"
        );
    }
}

#[tokio::test]
async fn an_empty_study_gets_a_message_and_wrong_options_exit_2() {
    let study = TestStudy::new().await;
    let db = study.db_path();
    let text = succeeded(&paperjudge(&db, &["lists"], &[]));
    assert!(
        text.contains("No lists yet: import your models' recommendations."),
        "{text}"
    );
    for (args, says) in [
        (
            vec!["lists", "--rbo-p", "1"],
            "rbo-p must be a number strictly between 0 and 1",
        ),
        (
            vec!["lists", "--rbo-p", "zero"],
            "rbo-p must be a number strictly between 0 and 1",
        ),
        (
            vec!["lists", "--k", "0"],
            "k must be a whole number from 1 up",
        ),
        (vec!["lists", "--format", "yaml"], "invalid value 'yaml'"),
    ] {
        let output = paperjudge(&db, &args, &[]);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains(says),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

/// `paperjudge lists` is the owner's, and by default shows nothing of a target being rated (the
/// attack's demo with one target chosen, at k = 1), as a rater's page does;
/// `--include-partial` shows it, with a warning of what it gives away.
#[tokio::test]
async fn by_default_the_command_shows_nothing_of_a_target_being_rated() {
    let study = demo_with_demo_21_chosen().await;
    let db = study.db_path();
    let json = succeeded(&paperjudge(
        &db,
        &["lists", "--k", "1", "--format", "json"],
        &[],
    ));
    let lists: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        lists["targets"],
        serde_json::json!({"count": 0, "partial": "exclude", "fully_rated": 0,
                           "still_being_rated": 1, "choice": "chosen", "candidates": 8,
                           "without_lists": 0})
    );
    assert_eq!(lists["most_recommended"], serde_json::json!([]));
    let table = succeeded(&paperjudge(&db, &["lists", "--k", "1"], &[]));
    assert_eq!(
        table.lines().collect::<Vec<_>>(),
        [
            "Lists of 5 models over no fully rated target of the 1 chosen (of 8 with \
             recommendations); the 1 still being rated is left out until fully rated; top 1, RBO \
             p = 0.9, pool depth 8; library of 48 papers",
            paperjudge::lists::READS_LISTS_ONLY,
            "No target is fully rated yet: the lists of a target are shown once every pooled \
             paper of it is rated, since before they would tell which models list the papers \
             still to rate.",
        ]
    );

    let included = succeeded(&paperjudge(
        &db,
        &["lists", "--k", "1", "--include-partial"],
        &[],
    ));
    let lines: Vec<&str> = included.lines().collect();
    assert_eq!(
        lines[0],
        "Lists of 5 models over the 1 target chosen (of 8 with recommendations), the 1 still \
         being rated included; top 1, RBO p = 0.9, pool depth 8; library of 48 papers"
    );
    assert_eq!(
        lines[2],
        "Warning: The targets still being rated are included (1 now), for planning: these \
         numbers show which models list the papers still to rate, so rating that target after \
         reading them is no longer blind, and nothing records that they were read. Raters never \
         see them."
    );
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("demo-19      3        1  ")),
        "{included}"
    );
}
