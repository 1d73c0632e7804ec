//! What an import of lists leaves in the study depends on the lists of its file, never on the
//! order of its rows; and a run imported again replaces the lists it holds, and those only.

use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::common::{papers_csv, recommendations, TestStudy};
use paperjudge::formats::Format;
use paperjudge::study::import::Summary;

/// One row of a run file: `target Q0 paper rank score model`.
type RunRow = (String, String, f64, String);

/// The lists of `models` for targets P1..P12 over papers P1..P40, each a pseudo-random top 10
/// (scores descending, with ties), drawn from `seed`.
fn run_rows(models: &[&str], seed: u64) -> Vec<RunRow> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut rows = Vec::new();
    for model in models {
        for target in 1..=12 {
            let mut papers: Vec<usize> = (1..=40).filter(|paper| *paper != target).collect();
            papers.shuffle(&mut rng);
            for (index, paper) in papers.iter().take(10).enumerate() {
                // Two rows of each list share a score: trec_eval's tie-break orders them.
                let score = 1.0 - (index / 2 * 2) as f64 / 10.0;
                rows.push((
                    format!("P{target}"),
                    format!("P{paper}"),
                    score,
                    (*model).to_owned(),
                ));
            }
        }
    }
    rows
}

fn run_file(rows: &[RunRow]) -> String {
    rows.iter()
        .enumerate()
        .map(|(index, (target, paper, score, model))| {
            // The rank column is whatever the model wrote: trec_eval ignores it.
            format!("{target} Q0 {paper} {} {score} {model}\n", index % 7 + 1)
        })
        .collect()
}

/// The rows in three orders: target by target, model by model, and shuffled.
fn orders(rows: &[RunRow]) -> [Vec<RunRow>; 3] {
    let mut by_target = rows.to_vec();
    by_target.sort_by(|a, b| (&a.0, &a.3).cmp(&(&b.0, &b.3)));
    let mut by_model = rows.to_vec();
    by_model.sort_by(|a, b| (&a.3, &a.0).cmp(&(&b.3, &b.0)));
    let mut shuffled = rows.to_vec();
    shuffled.shuffle(&mut rand::rngs::StdRng::seed_from_u64(99));
    [by_target, by_model, shuffled]
}

/// Everything an import of lists writes: every list, every pooled pair with its display key,
/// and every target's row (listed, active, random order, pool size).
#[derive(Debug, PartialEq)]
struct Written {
    lists: Vec<(String, String, i64, String, Option<f64>)>,
    pool: Vec<(String, String, i64)>,
    targets: Vec<(String, bool, bool, i64, i64)>,
}

async fn written(study: &TestStudy) -> Written {
    Written {
        lists: sqlx::query_as(
            "SELECT m.name, t.external_id, r.position, p.external_id, r.score
             FROM recommendations r JOIN models m ON m.id = r.model_id
             JOIN papers t ON t.id = r.target_id JOIN papers p ON p.id = r.paper_id
             ORDER BY m.name, t.external_id, r.position",
        )
        .fetch_all(&study.connections)
        .await
        .unwrap(),
        pool: sqlx::query_as(
            "SELECT t.external_id, p.external_id, pool.sort_key FROM pool
             JOIN papers t ON t.id = pool.target_id JOIN papers p ON p.id = pool.paper_id
             ORDER BY t.external_id, p.external_id",
        )
        .fetch_all(&study.connections)
        .await
        .unwrap(),
        targets: sqlx::query_as(
            "SELECT p.external_id, t.listed, t.active, t.order_key, t.pooled FROM targets t
             JOIN papers p ON p.id = t.target_id ORDER BY p.external_id",
        )
        .fetch_all(&study.connections)
        .await
        .unwrap(),
    }
}

async fn import_run(study: &TestStudy, rows: &[RunRow], seed: u64) -> Summary {
    study
        .import(
            &recommendations(Format::Trec),
            run_file(rows).as_bytes(),
            seed,
        )
        .await
        .expect("the run imports")
}

#[tokio::test]
async fn the_order_of_the_rows_changes_nothing_an_import_writes() {
    // A study already holding two models' lists and a rating, into which a file brings a
    // retrained m1 (every list changed), the same m2, and a new m3.
    let before = TestStudy::new().await;
    before.papers(&papers_csv(40)).await;
    import_run(&before, &run_rows(&["m1"], 1), 5).await;
    import_run(&before, &run_rows(&["m2"], 4), 5).await;
    let rated: (String, String) = sqlx::query_as(
        "SELECT t.external_id, p.external_id FROM pool
         JOIN papers t ON t.id = pool.target_id JOIN papers p ON p.id = pool.paper_id
         ORDER BY pool.target_id, pool.sort_key LIMIT 1",
    )
    .fetch_one(&before.connections)
    .await
    .unwrap();
    before
        .ratings(&format!("target,paper,stars\n{},{},4\n", rated.0, rated.1))
        .await;
    let earlier = written(&before).await;

    let mut rows = run_rows(&["m1"], 2);
    rows.extend(run_rows(&["m2"], 4));
    rows.extend(run_rows(&["m3"], 3));
    let mut results = Vec::new();
    for ordered in orders(&rows) {
        let study = before.copy().await;
        let summary = import_run(&study, &ordered, 6).await;
        results.push((summary, written(&study).await));
    }
    let (summary, first) = &results[0];
    assert_eq!(
        (
            summary.read,
            summary.added,
            summary.updated,
            summary.unchanged
        ),
        (360, 12, 12, 12)
    );
    for (other_summary, other) in &results[1..] {
        assert_eq!(other_summary, summary);
        assert_eq!(other, first);
    }

    // The import changed what it had to: m1's lists and m3's, and the pools that follow.
    assert_ne!(first.lists, earlier.lists);
    assert_ne!(first.pool, earlier.pool);
    // A pair pooled before keeps its place in the blind order while it stays pooled.
    let mut kept = 0;
    for (target, paper, key) in &earlier.pool {
        if let Some(now) = first
            .pool
            .iter()
            .find(|(t, p, _)| t == target && p == paper)
        {
            assert_eq!(now.2, *key, "the display key of {target} {paper} changed");
            kept += 1;
        }
    }
    assert!(kept > 0, "no pair stayed pooled: the test checks nothing");
    // The rated pair stays, whatever the lists say now; a target keeps its random order.
    assert!(first
        .pool
        .iter()
        .any(|(t, p, _)| (t, p) == (&rated.0, &rated.1)));
    for (target, listed, active, order_key, _) in &earlier.targets {
        let now = first.targets.iter().find(|row| &row.0 == target).unwrap();
        assert_eq!((now.1, now.2, now.3), (*listed, *active, *order_key));
    }
}

#[tokio::test]
async fn a_run_imported_again_replaces_exactly_the_lists_it_holds() {
    let study = TestStudy::new().await;
    study.papers(&papers_csv(40)).await;
    let m1 = run_rows(&["m1"], 1);
    import_run(&study, &m1, 5).await;
    import_run(&study, &run_rows(&["m2"], 2), 5).await;
    let before = written(&study).await;

    // The retrained m1's run: P1 and P2 ranked anew, P3 as before, the lists of P4..P12
    // absent from the file.
    let retrained: Vec<RunRow> = run_rows(&["m1"], 3)
        .into_iter()
        .filter(|row| ["P1", "P2"].contains(&row.0.as_str()))
        .chain(m1.iter().filter(|row| row.0 == "P3").cloned())
        .collect();
    let summary = import_run(&study, &retrained, 6).await;
    assert_eq!(
        (
            summary.read,
            summary.added,
            summary.updated,
            summary.unchanged
        ),
        (30, 0, 2, 1)
    );
    let after = written(&study).await;

    let of = |written: &Written, model: &str, target: &str| -> Vec<String> {
        written
            .lists
            .iter()
            .filter(|row| row.0 == model && row.1 == target)
            .map(|row| row.3.clone())
            .collect()
    };
    for target in (1..=12).map(|target| format!("P{target}")) {
        let expected = if target == "P1" || target == "P2" {
            // trec_eval's order: score descending, ties by paper id descending.
            let mut list: Vec<&RunRow> = retrained.iter().filter(|row| row.0 == target).collect();
            list.sort_by(|a, b| b.2.total_cmp(&a.2).then(b.1.cmp(&a.1)));
            list.into_iter().map(|row| row.1.clone()).collect()
        } else {
            of(&before, "m1", &target)
        };
        assert_eq!(of(&after, "m1", &target), expected, "m1's list of {target}");
        assert_eq!(
            of(&after, "m2", &target),
            of(&before, "m2", &target),
            "m2's list of {target}"
        );
    }
    // Only the pools of P1 and P2 changed.
    let pool_of = |written: &Written, target: &str| -> Vec<(String, i64)> {
        written
            .pool
            .iter()
            .filter(|row| row.0 == target)
            .map(|row| (row.1.clone(), row.2))
            .collect()
    };
    for target in (1..=12).map(|target| format!("P{target}")) {
        let changed = pool_of(&after, &target) != pool_of(&before, &target);
        assert_eq!(
            changed,
            target == "P1" || target == "P2",
            "pool of {target}"
        );
    }
}
