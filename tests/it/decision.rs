//! The anytime-valid verdict: its error rates over simulated monitored studies (under a null,
//! how many studies ever declare a decision; under an alternative, how many sequences ever
//! miss the true difference), and the verdict of a hand-built study through the real app
//! (JSON, page, dashboard) and the command line, `simulate` included.

use std::num::NonZeroUsize;

use paperjudge::decision::{adaptive_probabilities, Monitor, Order};
use paperjudge::metrics::{pairwise_alpha, Bounds, ConfidenceSequence};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::{json, Value};

use crate::process_support::{paperjudge, stderr, succeeded};
use crate::web_support::{Page, TestApp, HOSTILE_ID, MODELS};

const STUDIES: u64 = 1_000;
const TARGETS: usize = 200;

/// A population of `TARGETS` targets for two models whose NDCG differences have mean exactly
/// `shift` (values on a grid of 1/64, so every sum is exact): model 0 scores u, model 1
/// u − d, the d's symmetric around `shift`.
fn population(seed: u64, shift: f64) -> Vec<[f64; 2]> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..TARGETS / 2)
        .flat_map(|_| {
            let spread = f64::from(rng.random_range(0..16u8)) / 64.0;
            let base = 0.125 + f64::from(rng.random_range(0..16u8)) / 64.0;
            [
                [base + shift + spread, base],
                [base + shift - spread + 0.25, base + 0.25],
            ]
        })
        .collect()
}

/// One monitored study: the targets in a random order (or the adaptive order, leaning by a
/// made-up informativeness), the verdict looked at after every target. Answers whether a
/// decision was ever declared, and whether the sequence of model 0 − model 1 ever missed
/// `truth`.
fn monitor(values: &[[f64; 2]], order: Order, seed: u64, truth: f64) -> (bool, bool) {
    let names = vec!["a".to_owned(), "b".to_owned()];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut monitor = Monitor::new(names, order, NonZeroUsize::new(values.len()));
    let mut remaining: Vec<usize> = (0..values.len()).collect();
    remaining.shuffle(&mut rng);
    let (mut decided, mut missed) = (false, false);
    while !remaining.is_empty() {
        let (index, probability) = match order {
            Order::Random => (remaining.len() - 1, None),
            Order::Adaptive => {
                // Leans to targets where the models differ most: the strongest pull an
                // informativeness could have.
                let informativeness: Vec<f64> = (remaining.iter())
                    .map(|&t| (values[t][0] - values[t][1]).abs())
                    .collect();
                let probabilities = adaptive_probabilities(&informativeness);
                let u: f64 = rng.random();
                let mut cumulative = 0.0;
                let index = (probabilities.iter())
                    .position(|p| {
                        cumulative += p;
                        u < cumulative
                    })
                    .unwrap_or(probabilities.len() - 1);
                (index, Some(probabilities[index]))
            }
        };
        let target = values[remaining.swap_remove(index)];
        monitor
            .observe(&[Some(target[0]), Some(target[1])], probability)
            .unwrap();
        let decision = monitor.decision();
        decided |= decision.decided;
        // The sequence is of the other model minus the leader.
        let sequence = &decision.sequences[0];
        let (low, high) = if decision.leader.as_deref() == Some("a") {
            (-sequence.high, -sequence.low)
        } else {
            (sequence.low, sequence.high)
        };
        // Once every target is seen the sequence is the exact mean, up to rounding.
        missed |= !(low - 1e-12 <= truth && truth <= high + 1e-12);
    }
    (decided, missed)
}

fn share(order: Order, shift: f64) -> (u64, u64) {
    let outcomes: Vec<(bool, bool)> = (0..STUDIES)
        .into_par_iter()
        .map(|study| monitor(&population(study, shift), order, study + 10_000, shift))
        .collect();
    (
        outcomes.iter().filter(|(decided, _)| *decided).count() as u64,
        outcomes.iter().filter(|(_, missed)| *missed).count() as u64,
    )
}

/// Two models with the same mean, looked at after each of 200 targets in 1,000 studies: at
/// most 5% may ever declare a decision. Measured: 0 of 1,000 in the random order, 0 in the
/// adaptive one (the betting sequence is conservative; the guarantee is 50).
#[test]
fn under_a_null_at_most_alpha_of_monitored_studies_ever_decide() {
    for order in [Order::Random, Order::Adaptive] {
        let (decided, _) = share(order, 0.0);
        assert!(
            decided <= STUDIES / 20,
            "{order:?}: {decided} of {STUDIES} decided"
        );
        eprintln!("null, {order:?}: {decided} of {STUDIES} studies ever decided");
    }
}

/// A true difference of 3/32: the sequence covers it at every look in at least 95% of the
/// studies. Measured: every study covered it throughout, in both orders.
#[test]
fn under_an_alternative_the_sequence_covers_the_difference_at_every_time() {
    for order in [Order::Random, Order::Adaptive] {
        let (decided, missed) = share(order, 3.0 / 32.0);
        assert!(
            missed <= STUDIES / 20,
            "{order:?}: {missed} of {STUDIES} missed"
        );
        assert!(decided > 0, "{order:?}: a difference of 3/32 is found");
        eprintln!("alternative, {order:?}: {missed} missed, {decided} decided");
    }
}

fn dcg(gains: &[f64]) -> f64 {
    (gains.iter().enumerate())
        .map(|(index, gain)| gain / ((index + 2) as f64).log2())
        .sum()
}

/// NDCG@8 of alpha, bravo and charlie on T1 and T2 once both are rated (see `rated`).
fn ndcg() -> [[f64; 3]; 2] {
    let (t1, t2) = (dcg(&[4.0, 3.0, 2.0, 1.0]), dcg(&[4.0, 2.0, 1.0]));
    [
        [
            dcg(&[4.0, 3.0, 0.0]) / t1,
            dcg(&[3.0, 2.0, 0.0]) / t1,
            dcg(&[1.0, 4.0, 0.0]) / t1,
        ],
        [dcg(&[4.0, 2.0]) / t2, dcg(&[2.0, 1.0]) / t2, 0.0],
    ]
}

/// The fixture's two targets rated to the end, T2 first (so that completion order and id
/// order differ); with `both` false only T2.
async fn rated(both: bool) -> TestApp {
    let app = TestApp::with_fixture().await;
    // T2's pool: P1 (charlie) 1★, P7 5★, P8 3★, P9 2★: gains 0, 4, 2, 1.
    for (paper, stars) in [("P1", 1), ("P7", 5), ("P8", 3), ("P9", 2)] {
        app.store_rating("T2", paper, stars).await;
    }
    if both {
        app.rate_all_of_t1().await;
    }
    app
}

/// The sequence after `observations` of one pair, as the verdict computes it over 2 targets
/// and 3 models.
fn expected_interval(observations: &[f64]) -> (f64, f64) {
    let mut sequence = ConfidenceSequence::new(
        Bounds::DIFFERENCE,
        pairwise_alpha(0.05, 3),
        NonZeroUsize::new(2),
    );
    let mut interval = sequence.interval();
    for &x in observations {
        interval = sequence.observe(x);
    }
    (interval.low, interval.high)
}

#[track_caller]
fn assert_close(actual: &Value, expected: f64) {
    let actual = actual.as_f64().expect("a number");
    assert!((actual - expected).abs() < 1e-12, "{actual} vs {expected}");
}

#[tokio::test]
async fn one_target_rated_leaves_every_model_open() {
    let app = rated(false).await;
    let board: Value = serde_json::from_str(&app.get_text("/leaderboard.json").await).unwrap();
    let decision = &board["decision"];
    let [[..], t2] = ndcg();
    assert_eq!(decision["level"], json!(0.95));
    assert_eq!(decision["decided"], json!(false));
    assert_eq!(decision["leader"], json!(MODELS[0]));
    assert_eq!(decision["open"], json!([MODELS[1], MODELS[2]]));
    assert_eq!(decision["targets_rated"], json!(1));
    assert_eq!(decision["targets_estimate"], Value::Null);
    let sequences = decision["sequences"].as_array().unwrap();
    assert_eq!(sequences.len(), 2);
    for (sequence, model) in sequences.iter().zip([1, 2]) {
        let difference = t2[model] - t2[0];
        let (low, high) = expected_interval(&[difference]);
        assert_eq!(sequence["model"], json!(MODELS[model]));
        assert_close(&sequence["difference"], difference);
        assert_close(&sequence["low"], low);
        assert_close(&sequence["high"], high);
        assert!(low < 0.0 && high > 0.0);
    }
    let words = format!(
        "{}, {} and {} are not separated yet at 95% confidence after 1 target.",
        MODELS[0], MODELS[1], MODELS[2]
    );
    let page = Page::parse(&app.get_text("/leaderboard").await);
    assert_eq!(page.text("#decision .decision-words"), words);
    let dashboard = Page::parse(&app.get_text("/").await);
    assert_eq!(dashboard.text("#decision"), words);
}

#[tokio::test]
async fn every_target_rated_decides_for_the_best_model() {
    let app = rated(true).await;
    let board: Value = serde_json::from_str(&app.get_text("/leaderboard.json").await).unwrap();
    let [t1, t2] = ndcg();
    let decision = &board["decision"];
    assert_eq!(decision["decided"], json!(true));
    assert_eq!(decision["leader"], json!(MODELS[0]));
    assert_eq!(decision["open"], json!([]));
    assert_eq!(decision["targets_rated"], json!(2));
    assert_eq!(decision["targets_estimate"], Value::Null);
    // Both of the two targets seen: each sequence is its exact mean.
    for (sequence, model) in decision["sequences"].as_array().unwrap().iter().zip([1, 2]) {
        let difference = ((t2[model] - t2[0]) + (t1[model] - t1[0])) / 2.0;
        assert_eq!(sequence["model"], json!(MODELS[model]));
        for key in ["difference", "low", "high"] {
            assert_close(&sequence[key], difference);
        }
    }
    let text = app.get_text("/leaderboard.json").await;
    let at = |key: &str| text.find(&format!("\n  \"{key}\":")).expect(key);
    assert!(at("settings") < at("targets") && at("targets") < at("decision"));
    assert!(at("decision") < at("models"));
    let words = format!(
        "{} is the best of the 3 models at 95% confidence after 2 targets; you can stop.",
        MODELS[0]
    );
    let page = Page::parse(&app.get_text("/leaderboard").await);
    assert_eq!(page.text("#decision .decision-words"), words);
    assert_eq!(page.count("#decision .is-decided"), 1);
    assert_eq!(
        Page::parse(&app.get_text("/").await).text("#decision"),
        words
    );

    // The command line says the same, and its JSON is the download's.
    let db = app.study.db_path();
    let table = succeeded(&paperjudge(&db, &["leaderboard"], &[]));
    assert!(table.contains(&format!("\n{words}\n")), "{table}");
    let json = succeeded(&paperjudge(&db, &["leaderboard", "--format", "json"], &[]));
    assert_eq!(json, app.get_text("/leaderboard.json").await);

    // Replayed: the random order decides only with both targets (11 ratings: T1 pools 7,
    // T2 4); the adaptive one, its observations weighted to ±2, never does on two targets.
    let output = paperjudge(&db, &["simulate", "--seeds", "5", "--format", "json"], &[]);
    let replay: Value = serde_json::from_str(&succeeded(&output)).unwrap();
    assert_eq!(
        replay,
        json!({
            "targets": 2, "ratings": 11, "leader": MODELS[0], "seeds": 5, "first_seed": 0,
            "orders": [
                {"order": "random", "runs": 5, "decided": 5, "ratings_median": 11,
                 "ratings_p90": 11, "targets_median": 2, "targets_p90": 2, "wrong": 0,
                 "wrong_rate": 0.0},
                {"order": "adaptive", "runs": 5, "decided": 0, "ratings_median": 11,
                 "ratings_p90": 11, "targets_median": 2, "targets_p90": 2, "wrong": 0,
                 "wrong_rate": 0.0}
            ]
        })
    );
    let table = succeeded(&paperjudge(&db, &["simulate", "--order", "random"], &[]));
    assert!(table.starts_with(&format!(
        "2 fully rated targets, 11 ratings; leader on all targets: {}\n",
        MODELS[0]
    )));
    assert!(
        table.contains("\nrandom   200      200       11   11        2    2  0 (0.0%)\n"),
        "{table}"
    );
}

#[tokio::test]
async fn simulate_refuses_a_study_without_fully_rated_targets() {
    let app = TestApp::with_fixture().await;
    app.store_rating("T1", HOSTILE_ID, 1).await;
    let output = paperjudge(&app.study.db_path(), &["simulate"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim_end(),
        "paperjudge: the study has no fully rated target to replay"
    );
}

const SIMULATE_FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/simulate");

/// `simulate --qrels FILE --run FILE...` with the fixture, as JSON.
fn simulate_files(db: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let file = |name: &str| format!("{SIMULATE_FIXTURE}/{name}");
    let (qrels, runs) = (
        file("qrels.txt"),
        ["alpha", "beta", "gamma"].map(|model| file(&format!("{model}.run"))),
    );
    let mut args = vec!["simulate", "--seeds", "20", "--format", "json"];
    args.extend(extra);
    args.extend(["--qrels", qrels.as_str(), "--run"]);
    args.extend(runs.iter().map(String::as_str));
    paperjudge(db, &args, &[])
}

/// The fixture's qrels and runs replayed from the files equal the study they are imported
/// into replayed (the grades 0..4 as the stars 1..5), to the last number, and no study file
/// is made for the files.
#[tokio::test]
async fn simulate_replays_qrels_and_runs_as_the_study_they_make() {
    let study = crate::common::TestStudy::new().await;
    let no_study = study.dir.path().join("none.db");
    let from_files: Value =
        serde_json::from_str(&succeeded(&simulate_files(&no_study, &[]))).unwrap();
    assert!(!no_study.exists());
    assert_eq!(
        from_files,
        json!({
            "targets": 60, "ratings": 240, "leader": "alpha", "seeds": 20, "first_seed": 0,
            "orders": [
                {"order": "random", "runs": 20, "decided": 20, "ratings_median": 232,
                 "ratings_p90": 232, "targets_median": 58, "targets_p90": 58, "wrong": 0,
                 "wrong_rate": 0.0},
                {"order": "adaptive", "runs": 20, "decided": 0, "ratings_median": 240,
                 "ratings_p90": 240, "targets_median": 60, "targets_p90": 60, "wrong": 0,
                 "wrong_rate": 0.0}
            ]
        })
    );

    let qrels = std::fs::read_to_string(format!("{SIMULATE_FIXTURE}/qrels.txt")).unwrap();
    let (mut papers, mut ratings) = (
        String::from("id,title\n"),
        String::from("target,paper,stars\n"),
    );
    for line in qrels.lines() {
        let [target, _, paper, grade] = line.split(' ').collect::<Vec<_>>()[..] else {
            panic!("a qrels line: {line}");
        };
        if paper.ends_with("-P1") {
            papers.push_str(&format!("{target},Target {target}\n"));
        }
        papers.push_str(&format!("{paper},Paper {paper}\n"));
        let stars = grade.parse::<i64>().unwrap() + 1;
        ratings.push_str(&format!("{target},{paper},{stars}\n"));
    }
    let db = study.db_path();
    let write = |name: &str, text: &str| {
        let path = study.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    succeeded(&paperjudge(
        &db,
        &["import", "papers", &write("papers.csv", &papers)],
        &[],
    ));
    for model in ["alpha", "beta", "gamma"] {
        let run = format!("{SIMULATE_FIXTURE}/{model}.run");
        let args = [
            "import",
            "recommendations",
            "--format",
            "trec",
            run.as_str(),
        ];
        succeeded(&paperjudge(&db, &args, &[]));
    }
    succeeded(&paperjudge(
        &db,
        &["import", "ratings", &write("ratings.csv", &ratings)],
        &[],
    ));
    let args = ["simulate", "--seeds", "20", "--format", "json"];
    let from_study: Value = serde_json::from_str(&succeeded(&paperjudge(&db, &args, &[]))).unwrap();
    assert_eq!(from_study, from_files);

    // Other settings reach both the same way.
    let exponential = ["--gain", "exponential", "--k", "3", "--order", "random"];
    let mut args = args.to_vec();
    args.extend(exponential);
    assert_eq!(
        succeeded(&paperjudge(&db, &args, &[])),
        succeeded(&simulate_files(&no_study, &exponential))
    );
}

/// Bad qrels or runs name the file, the line and the column, exit with status 2 and leave no
/// study file behind.
#[test]
fn simulate_refuses_bad_trec_files_naming_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let no_study = dir.path().join("none.db");
    let qrels = dir.path().join("bad.qrels");
    std::fs::write(
        &qrels,
        "T01 0 P1 3\nT01 0 P2 five\nT01 0 P3\nT01 0 P4 5\nT01 0 P1 2\n",
    )
    .unwrap();
    let run = format!("{SIMULATE_FIXTURE}/alpha.run");
    let qrels_arg = qrels.display().to_string();
    let args = [
        "simulate",
        "--qrels",
        qrels_arg.as_str(),
        "--run",
        run.as_str(),
    ];
    let output = paperjudge(&no_study, &args, &[]);
    assert_eq!(output.status.code(), Some(2));
    let q = qrels.display();
    assert_eq!(
        stderr(&output).trim_end(),
        format!(
            "paperjudge: {q}:2: `grade`: expected a grade from 0 to 4 (1 to 5 stars, as `export \
             qrels` writes them) or -1 (not judged), got \"five\"\n\
             paperjudge: {q}:3: expected 4 fields `target 0 paper grade`, found 3\n\
             paperjudge: {q}:4: `grade`: expected a grade from 0 to 4 (1 to 5 stars, as `export qrels` \
             writes them) or -1 (not judged), got 5\n\
             paperjudge: {q}:5: `paper`: paper \"P1\" of target \"T01\" is judged twice (also on line 1)"
        )
    );

    let good_qrels = format!("{SIMULATE_FIXTURE}/qrels.txt");
    let bad_run = dir.path().join("bad.run");
    std::fs::write(
        &bad_run,
        "T01 Q0 P1 1 2.0 m\nT01 Q0 P2 2 high m\nT01 Q0 P1 3 1.0 m\n",
    )
    .unwrap();
    let bad_run_arg = bad_run.display().to_string();
    let args = [
        "simulate",
        "--qrels",
        &good_qrels,
        "--run",
        &run,
        &bad_run_arg,
    ];
    let output = paperjudge(&no_study, &args, &[]);
    assert_eq!(output.status.code(), Some(2));
    let r = bad_run.display();
    assert_eq!(
        stderr(&output).trim_end(),
        format!(
            "paperjudge: {r}:2: `score`: expected a finite number, got \"high\"\n\
             paperjudge: {r}:3: `paper`: the same paper appears twice in the list of model \"m\" for \
             target \"T01\" (also on line 1)"
        )
    );

    // Ids the importers refuse are refused here too: a NUL, a zero-width space.
    let hostile_qrels = dir.path().join("hostile.qrels");
    std::fs::write(&hostile_qrels, "T01 0 P\x001 3\nT\u{200b}01 0 P2 2\n").unwrap();
    let hostile_run = dir.path().join("hostile.run");
    std::fs::write(&hostile_run, "T01 Q0 P1 1 2.0 m\nT01 Q0 P\x002 2 1.0 m\n").unwrap();
    let (hostile_qrels, hostile_run) = (
        hostile_qrels.display().to_string(),
        hostile_run.display().to_string(),
    );
    let args = ["simulate", "--qrels", &hostile_qrels, "--run", &hostile_run];
    let output = paperjudge(&no_study, &args, &[]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output).trim_end(),
        format!(
            "paperjudge: {hostile_qrels}:1: `paper`: the paper id \"P\\01\" contains the control or \
             format character U+0000, which is invisible or acts on the text around it\n\
             paperjudge: {hostile_qrels}:2: `target`: the paper id \"T\\u{{200b}}01\" contains the \
             control or format character U+200B, which is invisible or acts on the text around it"
        )
    );
    let args = ["simulate", "--qrels", &good_qrels, "--run", &hostile_run];
    let output = paperjudge(&no_study, &args, &[]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output).trim_end(),
        format!(
            "paperjudge: {hostile_run}:2: `paper`: the paper id \"P\\02\" contains the control or \
             format character U+0000, which is invisible or acts on the text around it"
        )
    );

    let missing = dir.path().join("missing.run").display().to_string();
    let args = ["simulate", "--qrels", &good_qrels, "--run", &missing];
    let output = paperjudge(&no_study, &args, &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).starts_with(&format!("paperjudge: cannot open {missing}: ")));
    assert!(!no_study.exists());
}
