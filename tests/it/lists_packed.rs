//! The lists as the lists view reads them, packed one row per list (`packed_lists`): after
//! every change of a study, each packed row holds its list's papers as `recommendations` holds
//! them, the migration's packing of those rows gives the same bytes, and the view (of either
//! target set, at several k) equals the view of a fresh study whose packed rows were made
//! again from `recommendations`: after the first import, a re-import of one model with changed
//! lists, targets chosen and dropped, and a target finishing, at a pool depth below the lists' length.

use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::common::{papers_csv, TestStudy};
use paperjudge::domain::{PaperId, PoolDepth};
use paperjudge::leaderboard::Partial;
use paperjudge::lists::ListsOptions;
use paperjudge::study::targets::DropRule;

const MIGRATION: &str = include_str!("../../migrations/20261203004304_packed_lists.sql");

/// The migration's packing of every list of `recommendations`, as its last statement makes it.
fn packing_of_the_rows() -> &'static str {
    let insert = MIGRATION
        .find("SELECT model_id, target_id,")
        .expect("the migration packs the lists");
    MIGRATION[insert..].trim_end().trim_end_matches(';')
}

type PackedRow = (i64, i64, Vec<u8>);

/// Each list's papers as `recommendations` holds them, packed by hand: a byte 4, then each
/// key as 4 bytes, big-endian.
async fn lists_packed_by_hand(study: &TestStudy) -> Vec<PackedRow> {
    let rows: Vec<(i64, i64, i64)> = sqlx::query_as(
        "SELECT model_id, target_id, paper_id FROM recommendations
         ORDER BY model_id, target_id, position",
    )
    .fetch_all(&study.connections)
    .await
    .unwrap();
    let mut packed: Vec<PackedRow> = Vec::new();
    for (model, target, paper) in rows {
        if packed
            .last()
            .is_none_or(|last| (last.0, last.1) != (model, target))
        {
            packed.push((model, target, vec![4]));
        }
        let key = u32::try_from(paper).expect("a small key");
        packed.last_mut().unwrap().2.extend(key.to_be_bytes());
    }
    packed
}

async fn packed_rows(study: &TestStudy, sql: &str) -> Vec<PackedRow> {
    sqlx::query_as(&format!("SELECT * FROM ({sql}) ORDER BY 1, 2"))
        .fetch_all(&study.connections)
        .await
        .unwrap()
}

/// The options every check reads the view with: both target sets, at the pool depth, at k = 1
/// and beyond the pool depth (k = 7 is more than the lists' 6 papers).
fn every_option() -> Vec<ListsOptions> {
    let mut options = Vec::new();
    for partial in [Partial::Exclude, Partial::Include] {
        for k in [None, Some(1), Some(2), Some(7)] {
            options.push(ListsOptions {
                k: k.map(|k: usize| k.try_into().unwrap()),
                rbo_p: None,
                partial,
            });
        }
    }
    options
}

/// Checks what is packed and the views of `study` against a fresh computation; answers how
/// many targets the default view speaks over.
async fn check(study: &TestStudy, when: &str) -> usize {
    let packed = packed_rows(
        study,
        "SELECT model_id, target_id, papers FROM packed_lists",
    )
    .await;
    assert_eq!(
        packed,
        lists_packed_by_hand(study).await,
        "{when}: packed rows"
    );
    assert_eq!(
        packed_rows(study, packing_of_the_rows()).await,
        packed,
        "{when}: the migration's packing"
    );

    let fresh = study.copy().await;
    sqlx::query("DELETE FROM packed_lists")
        .execute(&fresh.connections)
        .await
        .unwrap();
    sqlx::query(&format!(
        "INSERT INTO packed_lists {}",
        packing_of_the_rows()
    ))
    .execute(&fresh.connections)
    .await
    .unwrap();
    for options in every_option() {
        let kept = study.study.lists().view(&options).await.unwrap();
        let again = fresh.study.lists().view(&options).await.unwrap();
        assert_eq!(kept.to_json(), again.to_json(), "{when}: {options:?}");
    }
    let view = (study.study.lists().view(&ListsOptions::default()).await).unwrap();
    view.targets.count
}

/// 4 models' lists of 6 papers each for targets P1..P`targets`, drawn from 40 papers with
/// `seed`.
fn lists(targets: usize, seed: u64) -> String {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut csv = "model,target,rank,paper\n".to_owned();
    for model in ["alpha", "bravo", "charlie", "delta"] {
        for target in 1..=targets {
            let mut papers: Vec<usize> = (1..=40).filter(|&paper| paper != target).collect();
            papers.shuffle(&mut rng);
            for (rank, paper) in (1..).zip(&papers[..6]) {
                csv.push_str(&format!("{model},P{target},{rank},P{paper}\n"));
            }
        }
    }
    csv
}

/// Rates every pooled pair of `target`, 3 stars each.
async fn finish(study: &TestStudy, target: &str) {
    let mut ratings = "target,paper,stars\n".to_owned();
    for entry in study.study.pool().entries().await.unwrap() {
        if entry.target.to_string() == target {
            ratings.push_str(&format!("{},{},3\n", entry.target, entry.paper));
        }
    }
    study.ratings(&ratings).await;
}

#[tokio::test]
async fn the_packed_lists_and_the_view_equal_a_fresh_computation_after_every_change() {
    let study = TestStudy::new().await;
    study.papers(&papers_csv(40)).await;
    // A pool depth below the lists' length (fixed from the first list on): the view's k
    // defaults to it, and the pool's pairs are counted at it.
    let depth = PoolDepth::new(3).unwrap();
    study.study.pool().set_depth(depth).await.unwrap();
    study.recommendations(&lists(12, 1)).await;
    assert_eq!(check(&study, "first import").await, 0);
    finish(&study, "P3").await;
    assert_eq!(check(&study, "P3 finished").await, 1);

    // bravo retrained: its lists of P1..P6 drawn again, those of P7..P12 as they were, and
    // lists of three targets more.
    let target_of = |line: &str| -> usize { line.split(',').nth(1).unwrap()[1..].parse().unwrap() };
    let as_before = |line: &&str| (7..=12).contains(&target_of(line));
    let (retrained, before) = (lists(15, 2), lists(12, 1));
    let of_bravo = |line: &&str| line.starts_with("bravo,");
    let mut bravo = "model,target,rank,paper\n".to_owned();
    for line in (retrained
        .lines()
        .filter(of_bravo)
        .filter(|line| !as_before(line)))
    .chain(before.lines().filter(of_bravo).filter(as_before))
    {
        bravo.push_str(&format!("{line}\n"));
    }
    let summary = study.recommendations(&bravo).await;
    assert!(summary.updated > 0 && summary.unchanged > 0 && summary.added > 0);
    // P3's list changed: its pool has pairs to rate again.
    assert_eq!(check(&study, "bravo re-imported").await, 0);
    finish(&study, "P3").await;
    assert_eq!(check(&study, "P3 finished again").await, 1);

    let chosen: Vec<PaperId> = ["P2", "P3", "P5", "P13"].map(PaperId::given).to_vec();
    let rng = rand::rngs::StdRng::seed_from_u64(3);
    study.study.targets().choose(&chosen, rng).await.unwrap();
    assert_eq!(check(&study, "four chosen").await, 1);
    finish(&study, "P5").await;
    assert_eq!(check(&study, "P5 finished").await, 2);
    (study.study.targets())
        .drop(&[PaperId::given("P3")], DropRule::Any)
        .await
        .unwrap();
    assert_eq!(check(&study, "P3 dropped").await, 1);

    finish(&study, "P2").await;
    assert_eq!(check(&study, "P2 finished").await, 2);
}
