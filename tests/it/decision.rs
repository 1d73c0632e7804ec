//! The anytime-valid verdict: its error rates over simulated monitored studies drawn from a
//! population (under a null, how many studies ever decide or rule out a best model; under an
//! alternative, how many sequences ever miss the true difference), the verdict of real studies
//! through the real app (JSON, page, dashboard, the command line), its margin, the offer to
//! choose more targets, and `simulate`.

use std::path::Path;

use paperjudge::decision::{decide, Margin, Monitor, Order, TargetsAhead};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::{json, Value};

use crate::common::TestStudy;
use crate::process_support::{paperjudge, stderr, succeeded};
use crate::web_support::{location, Answer, Browser, Page, TestApp, HOSTILE_ID, MODELS};

const STUDIES: u64 = 1_000;
const TARGETS: usize = 300;

/// One target's NDCG for `means.len()` models: a shared difficulty u, each model's own noise
/// symmetric around its mean, so that the per-target differences are independent draws with
/// mean exactly the difference of the means (nothing is clamped: every value stays in
/// [0, 1] for means from 0.35 to 0.65).
fn draw_target(rng: &mut ChaCha8Rng, means: &[f64]) -> Vec<Option<f64>> {
    let difficulty = rng.random_range(-0.15..=0.15);
    means
        .iter()
        .map(|mean| {
            let noise: f64 = if rng.random_bool(0.3) {
                0.0
            } else {
                rng.random_range(-0.2..=0.2)
            };
            Some(mean + difficulty + noise)
        })
        .collect()
}

/// How one monitored study went, looked at after every target.
struct Watched {
    /// A decision was declared at some time.
    decided: bool,
    /// A model with the best mean was ruled out at some time.
    best_ruled_out: bool,
    /// The sequence of model 1 − model 0 missed the true difference at some time.
    missed: bool,
}

/// A study of `TARGETS` targets drawn independently from a population whose models have
/// `means`, in a random order, the verdict looked at after every target.
fn watch(means: &[f64], seed: u64) -> Watched {
    let names: Vec<String> = (0..means.len()).map(|m| format!("m{m}")).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut monitor = Monitor::new(names, Order::Random, Margin::NONE);
    let top = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let truth = means[1] - means[0];
    let mut watched = Watched {
        decided: false,
        best_ruled_out: false,
        missed: false,
    };
    for _ in 0..TARGETS {
        monitor
            .observe(&draw_target(&mut rng, means), None)
            .unwrap();
        let standing = monitor.standing().unwrap();
        watched.decided |= standing.decided();
        watched.best_ruled_out |= standing.out().any(|model| means[model] == top);
        watched.missed |= !monitor.interval(1, 0).contains(truth);
    }
    watched
}

fn watch_all(means: &[f64]) -> Vec<Watched> {
    (0..STUDIES)
        .into_par_iter()
        .map(|study| watch(means, study + 10_000))
        .collect()
}

/// Two models with the same mean, 1,000 studies of 300 targets drawn from the population,
/// each watched after every target: at most 5% may ever declare a decision (which rules one
/// of the two out). Measured: 7 of 1,000.
#[test]
fn under_a_null_at_most_alpha_of_monitored_studies_ever_decide() {
    let studies = watch_all(&[0.5, 0.5]);
    let decided = studies.iter().filter(|s| s.decided).count() as u64;
    let ruled_out = studies.iter().filter(|s| s.best_ruled_out).count() as u64;
    eprintln!("null, 2 models: {decided} of {STUDIES} ever decided, {ruled_out} ruled a best out");
    assert_eq!(
        decided, ruled_out,
        "with two equal models a decision rules one out"
    );
    assert!(decided <= STUDIES / 20, "{decided} of {STUDIES} decided");
}

/// Four models, three of them equally best and one 0.25 below: at most 5% of the studies ever
/// rule out a best model, however often they are looked at, while the bad one is ruled out
/// in nearly every study. Measured: 0 of 1,000 ruled a best model out; the worst one was out
/// in 1,000.
#[test]
fn under_a_null_among_several_the_best_are_rarely_ever_ruled_out() {
    let means = [0.6, 0.6, 0.6, 0.35];
    let studies: Vec<(bool, bool)> = (0..STUDIES)
        .into_par_iter()
        .map(|seed| {
            let names: Vec<String> = (0..4).map(|m| format!("m{m}")).collect();
            let mut rng = ChaCha8Rng::seed_from_u64(seed + 20_000);
            let mut monitor = Monitor::new(names, Order::Random, Margin::NONE);
            let (mut best_out, mut worst_out) = (false, false);
            for _ in 0..TARGETS {
                monitor
                    .observe(&draw_target(&mut rng, &means), None)
                    .unwrap();
                let standing = monitor.standing().unwrap();
                best_out |= standing.out().any(|model| model < 3);
                worst_out |= standing.out().any(|model| model == 3);
            }
            (best_out, worst_out)
        })
        .collect();
    let best_out = studies.iter().filter(|(best, _)| *best).count() as u64;
    let worst_out = studies.iter().filter(|(_, worst)| *worst).count() as u64;
    eprintln!(
        "null among 4: {best_out} of {STUDIES} ruled a best model out; {worst_out} the worst"
    );
    assert!(best_out <= STUDIES / 20, "{best_out} of {STUDIES}");
    assert!(worst_out >= STUDIES * 99 / 100, "{worst_out} of {STUDIES}");
}

/// A true difference of 0.05: the sequence covers it at every look in at least 95% of the
/// studies, and the better model is ruled out in at most 5%. Measured: 8 of 1,000 missed, 0
/// ruled the better model out, and all 1,000 decided for it within 300 targets.
#[test]
fn under_an_alternative_the_sequence_covers_the_difference_at_every_time() {
    let studies = watch_all(&[0.55, 0.5]);
    let missed = studies.iter().filter(|s| s.missed).count() as u64;
    let ruled_out = studies.iter().filter(|s| s.best_ruled_out).count() as u64;
    let decided = studies.iter().filter(|s| s.decided).count() as u64;
    eprintln!("alternative: {missed} missed, {ruled_out} ruled the better out, {decided} decided");
    assert!(missed <= STUDIES / 20, "{missed} of {STUDIES} missed");
    assert!(
        ruled_out <= STUDIES / 20,
        "{ruled_out} of {STUDIES} ruled the better out"
    );
    assert!(decided > 0, "a difference of 0.05 is found in 300 targets");
}

/// The fixture's targets: T2 rated to the end (P1 1★, P7 5★, P8 3★, P9 2★), and with `both`
/// T1 too, T2 first (so that completion order and id order differ).
async fn rated(both: bool) -> TestApp {
    let app = TestApp::with_fixture().await;
    for (paper, stars) in [("P1", 1), ("P7", 5), ("P8", 3), ("P9", 2)] {
        app.store_rating("T2", paper, stars).await;
    }
    if both {
        app.rate_all_of_t1().await;
    }
    app
}

fn leaderboard_json(app_text: &str) -> Value {
    serde_json::from_str(app_text).expect("leaderboard JSON")
}

/// One or two targets rated tell nothing apart at 95% for the 3 pairs at once: every model
/// stays open with the whole range of differences, however the table's means look. (The
/// verdict for the mean over the chosen targets called a model best once both were rated.)
#[tokio::test]
async fn two_targets_rated_to_the_end_decide_nothing() {
    for both in [false, true] {
        let app = rated(both).await;
        let board = leaderboard_json(&app.get_text("/leaderboard.json").await);
        let decision = &board["decision"];
        let rated = if both { 2 } else { 1 };
        assert_eq!(decision["level"], json!(0.95));
        assert_eq!(decision["decided"], json!(false));
        assert_eq!(decision["leader"], json!(MODELS[0]));
        assert_eq!(decision["margin"], json!(0.0));
        assert_eq!(decision["open"], json!([MODELS[1], MODELS[2]]));
        assert_eq!(decision["equivalent"], json!([]));
        assert_eq!(decision["out"], json!([]));
        assert_eq!(decision["targets_rated"], json!(rated));
        assert_eq!(decision["targets_left"], json!(2 - rated));
        for sequence in decision["sequences"].as_array().unwrap() {
            assert_eq!(
                (&sequence["low"], &sequence["high"]),
                (&json!(-1.0), &json!(1.0))
            );
        }
        let words = page_words(&app).await;
        assert!(
            words.starts_with(&format!(
                "{} leads after {rated} target{}, but at 95% confidence for all 3 pairs at once \
                 every interval still spans every possible difference: nothing is told apart \
                 yet. About ",
                MODELS[0],
                if both { "s" } else { "" }
            )),
            "{words}"
        );
    }
}

/// The verdict's words on the leaderboard page, after checking that the dashboard says the
/// same.
async fn page_words(app: &TestApp) -> String {
    let page = Page::parse(&app.get_text("/leaderboard").await);
    let words = page.text("#decision .decision-words");
    assert_eq!(
        Page::parse(&app.get_text("/").await).text("#decision"),
        words
    );
    words
}

/// How a model of a made-up study ranks the target's papers 1 (5 stars), 2 (4), 3 (3) and
/// the irrelevant 4, 5, 6 (1 star each) on target `t`.
type Ranking = fn(usize) -> [usize; 3];

/// The ideal order.
const BEST: (&str, Ranking) = ("best", |_| [1, 2, 3]);
/// The ideal order but on every third target, where the first two are swapped: 0.018 below
/// BEST on average.
const TWIN: (&str, Ranking) = ("twin", |t| if t % 3 == 0 { [2, 1, 3] } else { [1, 2, 3] });
/// The first two swapped on every target: 0.054 below BEST.
const SWAPPED: (&str, Ranking) = ("swapped", |_| [2, 1, 3]);
/// The relevant papers in reverse: 0.145 below BEST.
const REVERSED: (&str, Ranking) = ("reversed", |_| [3, 2, 1]);
/// Only irrelevant papers.
const WORST: (&str, Ranking) = ("worst", |_| [4, 5, 6]);

/// A study of `targets` targets T01.. with `models`, every pooled pair rated, as CSV files in
/// `dir`: papers, recommendations, ratings.
fn write_study(dir: &Path, targets: usize, models: &[(&str, Ranking)]) -> [String; 3] {
    let mut papers = String::from("id,title\n");
    let mut recommendations = String::from("model,target,rank,paper\n");
    let mut ratings = String::from("target,paper,stars\n");
    for t in 1..=targets {
        let target = format!("T{t:02}");
        papers.push_str(&format!("{target},Target {t}\n"));
        for p in 1..=6 {
            papers.push_str(&format!("{target}-P{p},Paper {p} of {target}\n"));
        }
        for (model, ranking) in models {
            for (rank, paper) in ranking(t).iter().enumerate() {
                recommendations.push_str(&format!(
                    "{model},{target},{},{target}-P{paper}\n",
                    rank + 1
                ));
            }
        }
        for (paper, stars) in [(1, 5), (2, 4), (3, 3), (4, 1), (5, 1), (6, 1)] {
            ratings.push_str(&format!("{target},{target}-P{paper},{stars}\n"));
        }
    }
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    [
        write("papers.csv", &papers),
        write("recommendations.csv", &recommendations),
        write("ratings.csv", &ratings),
    ]
}

fn import_all(db: &Path, [papers, recommendations, ratings]: &[String; 3]) {
    succeeded(&paperjudge(db, &["import", "papers", papers], &[]));
    succeeded(&paperjudge(
        db,
        &["import", "recommendations", recommendations],
        &[],
    ));
    succeeded(&paperjudge(db, &["import", "ratings", ratings], &[]));
}

/// Asserts two JSON values equal, numbers to 1e-12: the product orients each pair by the
/// models' order in the study, the test by the leaderboard's, and a sequence's ends then
/// differ in the last bit.
#[track_caller]
fn assert_json_close(actual: &Value, expected: &Value) {
    match (actual, expected) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{actual} vs {expected}");
            a.iter().zip(b).for_each(|(a, b)| assert_json_close(a, b));
        }
        (Value::Object(a), Value::Object(b)) => {
            assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
            a.iter()
                .zip(b)
                .for_each(|((_, a), (_, b))| assert_json_close(a, b));
        }
        _ => assert_eq!(actual, expected),
    }
}

/// The verdict the leaderboard JSON must hold: the library's function fed the per-target
/// NDCG of the same JSON in completion order (here the order of the ratings file, which is
/// the targets' order).
fn expected_decision(board: &Value, margin: Margin, ahead: TargetsAhead) -> Value {
    let models: Vec<String> = (board["models"].as_array().unwrap().iter())
        .map(|row| row["model"].as_str().unwrap().to_owned())
        .collect();
    let mut targets: Vec<&str> = (board["per_target"].as_array().unwrap().iter())
        .map(|row| row["target"].as_str().unwrap())
        .collect();
    targets.dedup();
    targets.sort_unstable();
    let ndcg: Vec<Vec<Option<f64>>> = (targets.iter())
        .map(|target| {
            (models.iter())
                .map(|model| {
                    let row = (board["per_target"].as_array().unwrap().iter())
                        .find(|row| row["target"] == json!(target) && row["model"] == json!(model))
                        .unwrap();
                    Some(row["ndcg"].as_f64().unwrap_or(0.0))
                })
                .collect()
        })
        .collect();
    let decision = decide(models, &ndcg, margin, ahead).unwrap().unwrap();
    serde_json::to_value(decision).unwrap()
}

/// A clear study of 60 targets: the leader separated from every other model, which are out:
/// decided, through the command line, the JSON download, the page and the dashboard, exactly
/// as the library's verdict over the same NDCG.
#[tokio::test]
async fn a_clear_study_is_decided_for_its_best_model() {
    let study = TestStudy::new().await;
    let db = study.db_path();
    let files = write_study(study.dir.path(), 60, &[BEST, REVERSED, WORST]);
    import_all(&db, &files);
    let per_target = succeeded(&paperjudge(
        &db,
        &["leaderboard", "--format", "json", "--per-target"],
        &[],
    ));
    let board = leaderboard_json(&per_target);
    let decision = &board["decision"];
    assert_json_close(
        decision,
        &expected_decision(&board, Margin::NONE, TargetsAhead::default()),
    );
    assert_eq!(decision["decided"], json!(true));
    assert_eq!(decision["leader"], json!("best"));
    assert_eq!(decision["open"], json!([]));
    assert_eq!(decision["out"], json!(["reversed", "worst"]));
    assert_eq!(decision["targets_estimate"], Value::Null);
    let words =
        "best is the best of the 3 models at 95% confidence after 60 targets; you can stop.";
    let table = succeeded(&paperjudge(&db, &["leaderboard"], &[]));
    assert!(table.contains(&format!("\n{words}\n")), "{table}");

    let app = TestApp::spawn(study).await;
    let json = succeeded(&paperjudge(&db, &["leaderboard", "--format", "json"], &[]));
    assert_eq!(json, app.get_text("/leaderboard.json").await);
    assert_eq!(page_words(&app).await, words);
    let page = Page::parse(&app.get_text("/leaderboard").await);
    assert_eq!(page.count("#decision .is-decided"), 1);
    assert!(page
        .text("#verdict-beside-table")
        .starts_with("The table's p-values test these 60 targets once"));
}

/// With a margin, a model whose difference from the leader is shown to be within it counts as
/// equivalent, and the study is decided when every other model is out or equivalent; without
/// one, the same study leaves the close models open. The margin reaches the verdict from the
/// command line and from the address alike.
#[tokio::test]
async fn a_margin_settles_for_equivalent_models() {
    let study = TestStudy::new().await;
    let db = study.db_path();
    let files = write_study(study.dir.path(), 40, &[BEST, TWIN, SWAPPED, WORST]);
    import_all(&db, &files);
    let args = ["leaderboard", "--format", "json", "--per-target"];
    let board = leaderboard_json(&succeeded(&paperjudge(&db, &args, &[])));
    let decision = &board["decision"];
    assert_json_close(
        decision,
        &expected_decision(&board, Margin::NONE, TargetsAhead::default()),
    );
    assert_eq!(decision["decided"], json!(false));
    assert_eq!(decision["open"], json!(["twin", "swapped"]));
    assert_eq!(decision["out"], json!(["worst"]));

    let args = [&args[..], &["--margin", "0.2"]].concat();
    let board = leaderboard_json(&succeeded(&paperjudge(&db, &args, &[])));
    let margin: Margin = "0.2".parse().unwrap();
    let decision = &board["decision"];
    assert_json_close(
        decision,
        &expected_decision(&board, margin, TargetsAhead::default()),
    );
    assert_eq!(decision["margin"], json!(0.2));
    assert_eq!(decision["decided"], json!(true));
    assert_eq!(decision["equivalent"], json!(["twin", "swapped"]));
    assert_eq!(decision["out"], json!(["worst"]));

    let app = TestApp::spawn(study).await;
    let from_address = leaderboard_json(&app.get_text("/leaderboard.json?margin=0.2").await);
    assert_eq!(from_address["decision"], board["decision"]);
    let page = Page::parse(&app.get_text("/leaderboard?margin=0.2").await);
    assert_eq!(
        page.text("#decision .decision-words"),
        "twin and swapped are within 0.2 of best at 95% confidence after 40 targets: any of \
         best, twin and swapped will do; you can stop. worst is out."
    );
    let bad = app.get("/leaderboard?margin=2").await;
    assert_eq!(bad.status(), 400);
    let output = paperjudge(&db, &["leaderboard", "--margin=-0.5"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("margin must be a difference in NDCG"),
        "{}",
        stderr(&output)
    );
}

/// Imports the demo study rated by scripts/rate_demo.py (or study S of paperjudge-synth, cut
/// to the top 8 of every list) into `db`.
fn import_fixture(db: &Path, dir: &Path, which: &str) {
    let fixtures = crate::common::VERDICT_FIXTURES;
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo");
    let (papers, recommendations, ratings) = match which {
        "demo" => (
            format!("{demo}/papers.csv"),
            format!("{demo}/recommendations.csv"),
            format!("{fixtures}/demo-ratings.csv"),
        ),
        _ => (
            crate::common::study_s_papers(dir).display().to_string(),
            format!("{fixtures}/synth-s-recommendations.csv"),
            format!("{fixtures}/synth-s-ratings.csv"),
        ),
    };
    import_all(db, &[papers, recommendations, ratings]);
}

/// The fully rated demo and study S: the verdict says what it can (the worst models out, the
/// close ones open), never calls a model best that the table marks tied (Holm p ≥ 0.05), and
/// never rules one out that the table does not separate. The verdict for the mean over the
/// chosen targets called LDA 300 best on the demo, beside a Holm p of 0.39 for SPECTER.
#[tokio::test]
async fn the_verdict_never_outruns_the_table_on_the_demo_and_study_s() {
    for (which, leader, out) in [
        ("demo", "LDA 300", json!([])),
        (
            "synth-s",
            "model-1",
            json!(["model-4", "model-5", "model-6", "model-7", "model-8"]),
        ),
    ] {
        let study = TestStudy::new().await;
        let db = study.db_path();
        import_fixture(&db, study.dir.path(), which);
        let board = leaderboard_json(&succeeded(&paperjudge(
            &db,
            &["leaderboard", "--format", "json"],
            &[],
        )));
        let decision = &board["decision"];
        assert_eq!(decision["leader"], json!(leader), "{which}");
        assert_eq!(decision["decided"], json!(false), "{which}");
        assert_eq!(decision["out"], out, "{which}");
        for row in board["models"].as_array().unwrap() {
            let holm = row["p_value_holm"].as_f64();
            let is_out = decision["out"].as_array().unwrap().contains(&row["model"]);
            if is_out {
                assert!(holm.unwrap() < 0.05, "{which}: {row}");
            }
        }
        if decision["decided"] == json!(true) {
            let tied = (board["models"].as_array().unwrap().iter())
                .any(|row| row["p_value_holm"].as_f64().is_some_and(|p| p >= 0.05));
            assert!(!tied, "{which}: decided beside a tied model");
        }
    }
}

/// A study of chosen targets whose verdict needs more targets than are left offers to choose
/// them at random: one click, with the form token; the same choice as `targets choose
/// --sample N`.
#[tokio::test]
async fn the_dashboard_offers_to_choose_the_targets_the_verdict_needs() {
    let study = TestStudy::new().await;
    let db = study.db_path();
    let [papers, recommendations, ratings] =
        write_study(study.dir.path(), 60, &[BEST, REVERSED, WORST]);
    succeeded(&paperjudge(&db, &["import", "papers", &papers], &[]));
    succeeded(&paperjudge(
        &db,
        &["import", "recommendations", &recommendations],
        &[],
    ));
    succeeded(&paperjudge(
        &db,
        &["targets", "choose", "T01", "T02", "T03", "T04"],
        &[],
    ));
    succeeded(&paperjudge(&db, &["import", "ratings", &ratings], &[]));
    let app = TestApp::spawn(study).await;
    let board = leaderboard_json(&app.get_text("/leaderboard.json").await);
    let decision = &board["decision"];
    assert_eq!(decision["targets_rated"], json!(4));
    assert_eq!(decision["targets_left"], json!(0));
    let estimate = decision["targets_estimate"].as_u64().unwrap();
    assert!(estimate > 0);
    let offered = estimate.min(56);

    let mut browser = Browser::new(&app);
    let dashboard = Page::parse(&browser.get("/").await.text().await.unwrap());
    assert_eq!(
        dashboard.text("#choose-more button"),
        format!("Choose {offered} more targets at random")
    );
    assert_eq!(
        dashboard.attr("#choose-more input[name=count]", "value"),
        offered.to_string()
    );
    let token = dashboard.attr("#choose-more input[name=csrf_token]", "value");
    let count = offered.to_string();
    let fields = [
        ("action", "sample"),
        ("count", count.as_str()),
        ("csrf_token", token.as_str()),
    ];
    let refused = browser
        .post("/targets", &fields[..2], Answer::Redirect)
        .await;
    assert_eq!(refused.status(), 403);
    let bad = browser
        .post(
            "/targets",
            &[("action", "sample"), ("count", "0"), ("csrf_token", &token)],
            Answer::Redirect,
        )
        .await;
    assert_eq!(bad.status(), 400);
    let chosen = browser.post("/targets", &fields, Answer::Redirect).await;
    assert_eq!(chosen.status(), 303);
    assert_eq!(location(&chosen), "/");
    let status: Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["status", "--format", "json"],
        &[],
    )))
    .unwrap();
    assert_eq!(status["targets"], json!(4 + offered));
    assert_eq!(status["target_choice"], json!("chosen"));
}

/// `simulate` on the clear study: replays in a random order decide for the best model, the
/// worst out early; with pruning the same draws take fewer ratings; resampled studies of 100
/// targets plan beyond the study's 60; the adaptive order needs --resample.
#[tokio::test]
async fn simulate_plans_a_study_with_and_without_pruning() {
    let study = TestStudy::new().await;
    let db = study.db_path();
    import_all(
        &db,
        &write_study(study.dir.path(), 60, &[BEST, REVERSED, WORST]),
    );
    let args = ["simulate", "--seeds", "20", "--prune", "--format", "json"];
    let report: Value = serde_json::from_str(&succeeded(&paperjudge(&db, &args, &[]))).unwrap();
    assert_eq!(report["targets"], json!(60));
    assert_eq!(report["ratings"], json!(360));
    assert_eq!(report["leader"], json!("best"));
    assert_eq!(report["targets_per_study"], json!(60));
    let orders = report["orders"].as_array().unwrap();
    assert_eq!(orders.len(), 2);
    let (without, with) = (&orders[0], &orders[1]);
    assert_eq!(
        (&without["prune"], &with["prune"], &with["resample"]),
        (&json!(false), &json!(true), &json!(false))
    );
    assert_eq!(without["ratings_saved_median"], Value::Null);
    assert_eq!((&without["wrong"], &with["wrong"]), (&json!(0), &json!(0)));
    assert_eq!(
        (&without["decided"], &with["decided"]),
        (&json!(20), &json!(20))
    );
    let saved = with["ratings_saved_median"].as_i64().unwrap();
    assert!(saved > 0, "{report}");
    assert!(with["ratings_median"].as_i64() < without["ratings_median"].as_i64());

    let resampled = [
        "simulate",
        "--seeds",
        "5",
        "--resample",
        "--targets",
        "100",
        "--format",
        "json",
    ];
    let report: Value =
        serde_json::from_str(&succeeded(&paperjudge(&db, &resampled, &[]))).unwrap();
    assert_eq!(report["targets_per_study"], json!(100));
    assert_eq!(report["orders"][0]["resample"], json!(true));

    for (args, message) in [
        (
            vec!["simulate", "--targets", "61"],
            "paperjudge: a replay rates each of the study's 60 fully rated targets at most \
             once, so it cannot rate 61: add --resample to draw targets with replacement",
        ),
        (
            vec!["simulate", "--order", "adaptive"],
            "paperjudge: the adaptive order draws targets with replacement: add --resample",
        ),
    ] {
        let output = paperjudge(&db, &args, &[]);
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(stderr(&output).trim_end(), message);
    }
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
fn simulate_files(db: &Path, extra: &[&str]) -> std::process::Output {
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
    let study = TestStudy::new().await;
    let no_study = study.dir.path().join("none.db");
    let from_files: Value =
        serde_json::from_str(&succeeded(&simulate_files(&no_study, &["--prune"]))).unwrap();
    assert!(!no_study.exists());
    assert_eq!(from_files["targets"], json!(60));
    assert_eq!(from_files["ratings"], json!(240));
    assert_eq!(from_files["leader"], json!("alpha"));

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
    let args = ["simulate", "--seeds", "20", "--format", "json", "--prune"];
    let from_study: Value = serde_json::from_str(&succeeded(&paperjudge(&db, &args, &[]))).unwrap();
    assert_eq!(from_study, from_files);

    // Other settings reach both the same way.
    let exponential = [
        "--gain",
        "exponential",
        "--k",
        "3",
        "--resample",
        "--targets",
        "90",
    ];
    let mut args = args.to_vec();
    args.extend(exponential);
    assert_eq!(
        succeeded(&paperjudge(&db, &args, &[])),
        succeeded(&simulate_files(
            &no_study,
            &[&["--prune"][..], &exponential[..]].concat()
        ))
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
