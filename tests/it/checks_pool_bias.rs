//! Pool bias, leave one model out: against values computed by hand on the web fixture (through
//! the app's `/checks.json`), and against trec_eval on the trec fixture study (through
//! `paperjudge checks`): each model scored against qrels without its unique pairs.

use serde_json::Value;

use crate::process_support::{paperjudge, succeeded};
use crate::trec_agreement_study::{imported_fixture, FIXTURE};
use crate::web_support::{Page, TestApp};

/// DCG of gains in ranked order, as the contract defines it.
fn dcg(gains: &[f64]) -> f64 {
    (gains.iter().enumerate()).fold(0.0, |sum, (index, gain)| {
        sum + gain / ((index + 2) as f64).log2()
    })
}

fn close(actual: &Value, expected: f64, what: &str) {
    let actual = actual
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: {actual}"));
    assert!(
        (actual - expected).abs() < 1e-12,
        "{what}: {actual}, expected {expected}"
    );
}

/// The web fixture with T1 rated (T2 unrated, so not evaluated). Gains (stars − 1): P1 4,
/// P2 3, P3 0, P4 2, P5 0, P6 1, H 0. Lists: alpha P1 P2 P3, bravo P2 P4 P5, charlie P6 P1 H.
/// Only alpha pools P3, only bravo P4 and P5, only charlie P6 and H.
///
/// Ideal (every judgment): 4 3 2 1. alpha 4 3 0 / ideal; bravo 3 2 0; charlie 1 4 0.
/// Without its unique pairs: alpha keeps its ideal (P3 has gain 0) and its DCG, so it loses
/// nothing; bravo 3 0 0 over ideal 4 3 1; charlie 0 4 0 over ideal 4 3 2. bravo falls from
/// 0.582 to 0.469, below charlie's 0.481: rank 2 to 3. charlie's drop (0.115) is the largest.
#[tokio::test]
async fn pool_bias_of_a_small_study_equals_the_hand_computed_values() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    // threshold 3 makes bravo's P4 (3 stars) a relevant unique pair; NDCG does not change.
    let checks: Value =
        serde_json::from_str(&app.get_text("/checks.json?threshold=3").await).unwrap();
    let bias = &checks["pool_bias"];
    let ideal = dcg(&[4.0, 3.0, 2.0, 1.0]);
    let expected = [
        // model, unique, relevant, ndcg, ndcg without, rank, rank without
        (
            "alpha-lda-300",
            1,
            0,
            dcg(&[4.0, 3.0, 0.0]) / ideal,
            dcg(&[4.0, 3.0, 0.0]) / ideal,
            1,
            1,
        ),
        (
            "bravo-lsa-200",
            2,
            1,
            dcg(&[3.0, 2.0, 0.0]) / ideal,
            dcg(&[3.0, 0.0, 0.0]) / dcg(&[4.0, 3.0, 1.0]),
            2,
            3,
        ),
        (
            "charlie-bm25",
            2,
            0,
            dcg(&[1.0, 4.0, 0.0]) / ideal,
            dcg(&[0.0, 4.0, 0.0]) / dcg(&[4.0, 3.0, 2.0]),
            3,
            3,
        ),
    ];
    let rows = bias["models"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for (row, (model, unique, relevant, ndcg, without, rank, rank_without)) in
        rows.iter().zip(expected)
    {
        assert_eq!(row["model"], model);
        assert_eq!(row["unique_pairs"], unique, "{model}");
        assert_eq!(row["unique_relevant"], relevant, "{model}");
        close(&row["ndcg"], ndcg, model);
        close(&row["ndcg_without"], without, model);
        close(&row["drop"], ndcg - without, model);
        assert_eq!(row["rank"], rank, "{model}");
        assert_eq!(row["rank_without"], rank_without, "{model}");
    }
    assert_eq!(rows[0]["drop"], 0.0, "alpha's unique pair is worth nothing");
    let charlie_drop =
        dcg(&[1.0, 4.0, 0.0]) / ideal - dcg(&[0.0, 4.0, 0.0]) / dcg(&[4.0, 3.0, 2.0]);
    close(&bias["largest_drop"], charlie_drop, "largest drop");
    assert_eq!(bias["largest_drop_model"], "charlie-bm25");
    assert_eq!(bias["any_rank_change"], true);
    // Every model of the study was pooled: the check is a what-if, and says so.
    assert_eq!(
        bias["sentence"],
        "Every model here was pooled, so this is a what-if: a model that was not (one added \
         after these ratings) would be under-rated by up to 0.12 NDCG@8. Rate a new model's \
         papers before trusting its rank. Had bravo-lsa-200 not been pooled, it would rank 3 \
         instead of 2."
    );

    // The page says the same, and marks the rank that would move as a what-if, not as an
    // error.
    let page = Page::parse(&app.get_text("/checks?threshold=3").await);
    assert_eq!(
        page.text("#pool-bias-heading"),
        "Pool bias: what if a model had not been pooled?"
    );
    assert_eq!(page.text("#pool-bias .check-sentence"), bias["sentence"]);
    assert_eq!(page.count("#pool-bias .is-flagged"), 0);
    assert_eq!(
        page.texts("#pool-bias .is-what-if"),
        ["3 (a rank that would move)"]
    );
}

/// The trec fixture as trec_eval scores it: every target of the qrels (include-partial), a
/// target without relevant papers scored 0 (empty = zero), and `trec_eval -c` averaging.
/// pool_bias.json holds trec_eval's NDCG@8 of each run against qrels.txt and against the
/// qrels without its unique pairs (tests/fixtures/trec/pool_bias.py).
#[tokio::test]
async fn pool_bias_of_the_trec_fixture_agrees_with_trec_eval() {
    let study = imported_fixture().await;
    let output = paperjudge(
        &study.db_path(),
        &[
            "checks",
            "--include-partial",
            "--empty",
            "zero",
            "--format",
            "json",
        ],
        &[],
    );
    let checks: Value = serde_json::from_str(&succeeded(&output)).unwrap();
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{FIXTURE}/pool_bias.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(checks["settings"]["pool_depth"], reference["pool_depth"]);
    assert_eq!(checks["settings"]["k"], 8);
    let rows = checks["pool_bias"]["models"].as_array().unwrap();
    let expected = reference["models"].as_object().unwrap();
    assert_eq!(rows.len(), expected.len());
    for row in rows {
        let model = row["model"].as_str().unwrap();
        let trec_eval = &expected[model];
        assert_eq!(row["unique_pairs"], trec_eval["unique_pairs"], "{model}");
        assert_eq!(
            row["unique_relevant"], trec_eval["unique_relevant"],
            "{model}"
        );
        for measure in ["ndcg", "ndcg_without"] {
            let expected = trec_eval[measure].as_f64().unwrap();
            let actual = row[measure].as_f64().unwrap();
            assert!(
                (actual - expected).abs() < 1e-9,
                "{model} {measure}: ours {actual}, trec_eval {expected}"
            );
        }
    }
}
