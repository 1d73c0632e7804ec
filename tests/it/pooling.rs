use std::collections::{BTreeSet, HashMap};

use crate::common::TestStudy;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// `models` lists per target as CSV rows `model,target,rank,paper`.
fn csv(rows: &[(String, String, usize, String)]) -> String {
    let mut csv = String::from("model,target,rank,paper\n");
    for (model, target, rank, paper) in rows {
        csv.push_str(&format!("{model},{target},{rank},{paper}\n"));
    }
    csv
}

#[tokio::test]
async fn the_pool_is_the_deduplicated_union_of_every_models_top_eight() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(40)).await;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let candidates: Vec<String> = (2..=25).map(|i| format!("P{i}")).collect();
    let mut rows = Vec::new();
    let mut expected = BTreeSet::new();
    for model in 1..=8 {
        let mut list = candidates.clone();
        list.shuffle(&mut rng);
        // The target itself at rank 3: dropped, so ranks 1..=9 of the file are the top 8.
        list.insert(2, "P1".to_owned());
        for (index, paper) in list.iter().take(12).enumerate() {
            rows.push((
                format!("m{model}"),
                "P1".to_owned(),
                index + 1,
                paper.clone(),
            ));
            if index < 9 && paper != "P1" {
                expected.insert(paper.clone());
            }
        }
    }
    let summary = study.recommendations(&csv(&rows)).await;
    assert_eq!(summary.dropped, 8);
    let pooled: BTreeSet<String> = study.blind_order("P1").await.into_iter().collect();
    assert_eq!(pooled, expected);
    assert!(
        !pooled.contains("P1"),
        "a self-recommendation entered the pool"
    );
}

#[tokio::test]
async fn a_model_added_later_keeps_the_order_of_every_earlier_pair() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(60)).await;
    let first: Vec<_> = (1..=3)
        .flat_map(|model| {
            (1..=8).map(move |rank| {
                (
                    format!("m{model}"),
                    "P1".to_owned(),
                    rank,
                    format!("P{}", model * 8 + rank),
                )
            })
        })
        .collect();
    study.recommendations(&csv(&first)).await;
    let before = study.blind_order("P1").await;
    assert_eq!(before.len(), 24);
    // Reloading the page shows the same order.
    assert_eq!(study.blind_order("P1").await, before);

    let added: Vec<_> = (1..=8)
        .map(|rank| {
            (
                "m4".to_owned(),
                "P1".to_owned(),
                rank,
                format!("P{}", 40 + rank),
            )
        })
        .collect();
    let summary = study.recommendations(&csv(&added)).await;
    assert_eq!((summary.pool_added, summary.pool_removed), (8, 0));
    let after = study.blind_order("P1").await;
    assert_eq!(after.len(), 32);
    let earlier_in_new_order: Vec<String> = after
        .iter()
        .filter(|paper| before.contains(paper))
        .cloned()
        .collect();
    assert_eq!(earlier_in_new_order, before);
    // The newcomers are spread among the others, not appended at the end.
    let last_old = after
        .iter()
        .rposition(|paper| before.contains(paper))
        .unwrap();
    let first_new = after
        .iter()
        .position(|paper| !before.contains(paper))
        .unwrap();
    assert!(
        first_new < last_old,
        "new pairs were all placed after the old ones: {after:?}"
    );
}

#[tokio::test]
async fn a_rated_pair_survives_a_reimport_that_drops_it() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(10)).await;
    study
        .recommendations("model,target,rank,paper\nm,P1,1,P2\nm,P1,2,P3\nm,P1,3,P4\n")
        .await;
    study.ratings("target,paper,stars\nP1,P3,4\n").await;
    let summary = study
        .recommendations("model,target,rank,paper\nm,P1,1,P5\n")
        .await;
    // P2 and P4 leave the pool; P3 is rated and stays; P5 arrives.
    assert_eq!((summary.pool_added, summary.pool_removed), (1, 2));
    let pooled: BTreeSet<String> = study.blind_order("P1").await.into_iter().collect();
    assert_eq!(pooled, BTreeSet::from(["P3".to_owned(), "P5".to_owned()]));
    assert_eq!(study.count("ratings").await, 1);
}

/// The display position of each model's rank-1 paper must be uniform: over 2,000 targets whose
/// pools hold 64 papers (8 models × disjoint top 8, shuffled), positions fall into 8 bins of 8
/// with 250 expected per bin. Chi-square with 7 degrees of freedom at the 0.001 level: 24.322.
#[tokio::test]
async fn display_positions_are_independent_of_model_rank() {
    const TARGETS: usize = 2000;
    const MODELS: usize = 8;
    let study = TestStudy::new().await;
    let mut papers = String::from("id,title\n");
    for i in 1..=64 {
        papers.push_str(&format!("C{i},Candidate {i}\n"));
    }
    for t in 1..=TARGETS {
        papers.push_str(&format!("T{t},Target {t}\n"));
    }
    study.papers(&papers).await;

    let mut rng = rand::rngs::StdRng::seed_from_u64(2000);
    let mut rows = String::from("model,target,rank,paper\n");
    let mut rank_one: Vec<HashMap<String, String>> = vec![HashMap::new(); MODELS];
    for t in 1..=TARGETS {
        let mut candidates: Vec<usize> = (1..=64).collect();
        candidates.shuffle(&mut rng);
        for (model, top) in candidates.chunks(8).enumerate() {
            rank_one[model].insert(format!("T{t}"), format!("C{}", top[0]));
            for (index, paper) in top.iter().enumerate() {
                rows.push_str(&format!("m{model},T{t},{},C{paper}\n", index + 1));
            }
        }
    }
    study.recommendations(&rows).await;

    let positions: Vec<(String, String, i64)> = sqlx::query_as(
        "SELECT t.external_id, p.external_id,
                ROW_NUMBER() OVER (PARTITION BY pool.target_id ORDER BY pool.sort_key, pool.paper_id)
         FROM pool JOIN papers t ON t.id = pool.target_id JOIN papers p ON p.id = pool.paper_id",
    )
    .fetch_all(&study.connections)
    .await
    .unwrap();
    let position_of: HashMap<(String, String), i64> = positions
        .into_iter()
        .map(|(target, paper, position)| ((target, paper), position))
        .collect();
    assert_eq!(position_of.len(), TARGETS * 64);

    for (model, firsts) in rank_one.iter().enumerate() {
        let mut bins = [0u32; 8];
        for (target, paper) in firsts {
            let position = position_of[&(target.clone(), paper.clone())];
            bins[((position - 1) / 8) as usize] += 1;
        }
        let expected = TARGETS as f64 / 8.0;
        let chi_square: f64 = bins
            .iter()
            .map(|&observed| (f64::from(observed) - expected).powi(2) / expected)
            .sum();
        assert!(
            chi_square < 24.322,
            "model {model}: rank-1 positions are not uniform (chi-square {chi_square:.2}, bins {bins:?})"
        );
    }
}
