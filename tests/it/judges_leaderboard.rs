//! The leaderboard with a machine judge (`--judge NAME`, `?judge=NAME`): its NDCG, intervals
//! and tests prediction-powered from the judge's grades of every target and the raters' of the
//! first ones in the study's order, checked against the same estimate computed from two
//! leaderboards without a judge (one on the raters' stars, one on a study whose ratings are
//! the judge's grades); the raters' figures beside; the owner's alone.

use std::collections::HashMap;

use reqwest::StatusCode;
use serde_json::Value;

use paperjudge::domain::{JudgeName, RaterName};
use paperjudge::metrics::{compare_pairs, estimate_mean, Judged, MIN_RATED};
use paperjudge::web::{Access, Password};

use crate::common::TestStudy;
use crate::process_support::{paperjudge, stderr, succeeded};
use crate::web_support::{unescape, Browser, TestApp};

/// Why the verdict with a judge is the raters' own, as the page and the JSON say it.
const VERDICT: &str = "The verdict is the raters' own: a verdict valid however often you look \
    is held back by how far a target's difference can fall, not by its spread, so a judge's \
    grades cannot settle it sooner at the differences a study tells apart (docs/metrics.md, \
    \"The verdict with a judge\")";

const TARGETS: usize = 30;
const CANDIDATES: usize = 60;
const MODELS: [&str; 3] = ["bm25", "lda-200", "specter"];
const LIST: usize = 6;

/// A small deterministic generator (64-bit LCG), so that the study is the same on every run.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = (self.0)
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// 30 targets, 60 candidates, three models of 6 papers each per target; the raters' stars of
/// every pooled pair (each target with a 4★ paper, so that every NDCG is defined), and a
/// judge's grades: the stars moved by −1, 0 or +1, and one more for every paper `specter`
/// lists (a judge that favours one model, as the issue's measured judge did).
struct Library {
    papers: String,
    recommendations: String,
    stars: Vec<Vec<(String, u8)>>,
    grades: Vec<Vec<(String, u8)>>,
}

fn library() -> Library {
    let mut rng = Lcg(2026);
    let mut papers = String::from("id,title\n");
    for t in 1..=TARGETS {
        papers.push_str(&format!("T{t},Target {t}\n"));
    }
    for c in 1..=CANDIDATES {
        papers.push_str(&format!("C{c},Candidate {c}\n"));
    }
    let mut recommendations = String::from("model,target,rank,paper\n");
    let (mut stars, mut grades) = (Vec::new(), Vec::new());
    for t in 1..=TARGETS {
        let mut pooled: Vec<String> = Vec::new();
        let mut by_specter: Vec<String> = Vec::new();
        for model in MODELS {
            let mut listed: Vec<usize> = Vec::new();
            while listed.len() < LIST {
                let candidate = 1 + rng.below(CANDIDATES);
                if !listed.contains(&candidate) {
                    listed.push(candidate);
                }
            }
            for (rank, candidate) in listed.iter().enumerate() {
                let id = format!("C{candidate}");
                recommendations.push_str(&format!("{model},T{t},{},{id}\n", rank + 1));
                if model == "specter" {
                    by_specter.push(id.clone());
                }
                if !pooled.contains(&id) {
                    pooled.push(id);
                }
            }
        }
        let target_stars: Vec<(String, u8)> = (pooled.iter().enumerate())
            .map(|(at, id)| {
                let given = if at == 0 { 4 } else { 1 + rng.below(5) as u8 };
                (id.clone(), given)
            })
            .collect();
        let target_grades = (target_stars.iter())
            .map(|(id, given)| {
                let moved = i64::from(*given) + rng.below(3) as i64 - 1
                    + i64::from(by_specter.contains(id));
                (id.clone(), moved.clamp(1, 5) as u8)
            })
            .collect();
        stars.push(target_stars);
        grades.push(target_grades);
    }
    Library {
        papers,
        recommendations,
        stars,
        grades,
    }
}

fn csv_of(rows: &[(String, Vec<(String, u8)>)]) -> String {
    let mut csv = String::from("target,paper,stars\n");
    for (target, pairs) in rows {
        for (paper, stars) in pairs {
            csv.push_str(&format!("{target},{paper},{stars}\n"));
        }
    }
    csv
}

async fn study_of(library: &Library) -> TestStudy {
    let study = TestStudy::new().await;
    study.papers(&library.papers).await;
    study.recommendations(&library.recommendations).await;
    study
}

/// The study's targets in `/next`'s order, as numbers 1..=30.
async fn study_order(study: &TestStudy) -> Vec<usize> {
    let ids: Vec<String> = sqlx::query_scalar(
        "SELECT p.external_id FROM targets t JOIN papers p ON p.id = t.target_id
         WHERE t.active = 1 ORDER BY t.order_key, t.target_id",
    )
    .fetch_all(&study.connections)
    .await
    .unwrap();
    ids.iter().map(|id| id[1..].parse().unwrap()).collect()
}

async fn import_grades(study: &TestStudy, library: &Library) {
    let rows: Vec<(String, Vec<(String, u8)>)> = (library.grades.iter().enumerate())
        .map(|(t, grades)| (format!("T{}", t + 1), grades.clone()))
        .collect();
    let kind =
        paperjudge::study::import::Kind::Judgments(paperjudge::study::import::judgments::Options {
            judge: JudgeName::new("mini").unwrap(),
        });
    study
        .import(&kind, csv_of(&rows).as_bytes(), 7)
        .await
        .expect("the judgments import");
}

/// Rates the targets `which` (numbers 1..=30) whole with the library's stars.
async fn rate(study: &TestStudy, library: &Library, which: &[usize]) {
    let rows: Vec<(String, Vec<(String, u8)>)> = (which.iter())
        .map(|&t| (format!("T{t}"), library.stars[t - 1].clone()))
        .collect();
    study.ratings(&csv_of(&rows)).await;
}

/// Each model's NDCG per target of a leaderboard's per-target rows (undefined: 0).
fn per_target(board: &Value) -> HashMap<(String, String), f64> {
    (board["per_target"].as_array().unwrap().iter())
        .map(|row| {
            let key = (
                row["model"].as_str().unwrap().to_owned(),
                row["target"].as_str().unwrap().to_owned(),
            );
            (key, row["ndcg"].as_f64().unwrap_or(0.0))
        })
        .collect()
}

async fn json(app: &TestApp, path: &str) -> Value {
    let answer = app.get(path).await;
    assert_eq!(answer.status(), StatusCode::OK, "{path}");
    answer.json().await.unwrap()
}

fn same(actual: &Value, expected: f64, what: &str) {
    let actual = actual
        .as_f64()
        .unwrap_or_else(|| panic!("{what} is {actual}"));
    assert!(
        (actual - expected).abs() <= 1e-12 * expected.abs().max(1.0),
        "{what}: {actual} vs {expected}"
    );
}

fn row<'a>(board: &'a Value, model: &str) -> &'a Value {
    (board["models"].as_array().unwrap().iter())
        .find(|row| row["model"] == model)
        .unwrap_or_else(|| panic!("no row of {model}"))
}

/// 22 of 30 judged targets rated, the first 22 of the study's order: every model's NDCG, its
/// interval and its comparison with the leader are the PPI++ estimates over the judge's
/// per-target NDCG (from a study rated with the judge's grades) and the raters' (from the
/// leaderboard without the judge); the raters' figures stand beside, unchanged; the pairs,
/// the counts and what the judge is worth are said.
#[tokio::test]
async fn the_judge_makes_the_ndcg_prediction_powered_and_keeps_the_raters_figures_beside() {
    let library = library();
    let study = study_of(&library).await;
    let order = study_order(&study).await;
    assert_eq!(order.len(), TARGETS);
    let rated = &order[..22];
    rate(&study, &library, rated).await;
    import_grades(&study, &library).await;

    // The judge's NDCG of every model on every target: the same study rated with its grades.
    let graded = study_of(&library).await;
    let rows: Vec<(String, Vec<(String, u8)>)> = (library.grades.iter().enumerate())
        .map(|(t, grades)| (format!("T{}", t + 1), grades.clone()))
        .collect();
    graded.ratings(&csv_of(&rows)).await;
    let graded = TestApp::spawn(graded).await;
    let judge_values = per_target(&json(&graded, "/leaderboard.json?per_target=1").await);

    let app = TestApp::spawn(study).await;
    let raters_board = json(&app, "/leaderboard.json?per_target=1").await;
    let raters_values = per_target(&raters_board);
    let board = json(&app, "/leaderboard.json?judge=mini").await;
    let values: Vec<Vec<Option<Judged>>> = (MODELS.iter())
        .map(|model| {
            (1..=TARGETS)
                .map(|t| {
                    let key = (model.to_string(), format!("T{t}"));
                    Some(Judged {
                        judge: judge_values[&key],
                        raters: raters_values.get(&key).copied(),
                    })
                })
                .collect()
        })
        .collect();
    let estimates: Vec<_> = (values.iter())
        .map(|values| estimate_mean(&values.iter().flatten().copied().collect::<Vec<_>>()).unwrap())
        .collect();
    assert_eq!(estimates[0].rated, 22);
    assert_eq!(estimates[0].judged, 30);

    assert_eq!(board["settings"]["judge"], "mini");
    assert_eq!(board["targets"]["judged"], 30);
    assert_eq!(board["targets"]["evaluated"], 22);
    let judge = &board["judge"];
    assert_eq!(judge["name"], "mini");
    assert_eq!(judge["targets_judged"], 30);
    assert_eq!(judge["targets_rated"], 22);
    assert_eq!(judge["prediction_powered"], true);
    assert_eq!(judge["unavailable"], Value::Null);
    assert_eq!(judge["rated_out_of_order"], 0);

    // The rows in the order of the estimates; each against the leader.
    let mut ranked: Vec<usize> = (0..MODELS.len()).collect();
    ranked.sort_by(|&a, &b| estimates[b].estimate.total_cmp(&estimates[a].estimate));
    let names: Vec<&str> = (board["models"].as_array().unwrap().iter())
        .map(|row| row["model"].as_str().unwrap())
        .collect();
    assert_eq!(names, ranked.iter().map(|&m| MODELS[m]).collect::<Vec<_>>());
    let comparisons = compare_pairs(&values);
    let leader = ranked[0];
    for (rank, &model) in ranked.iter().enumerate() {
        let shown = row(&board, MODELS[model]);
        let estimate = &estimates[model];
        assert_eq!(shown["rank"], rank + 1);
        same(&shown["ndcg"], estimate.estimate, "ndcg");
        same(&shown["ci95"][0], estimate.ci95()[0], "ci95 low");
        same(&shown["ci95"][1], estimate.ci95()[1], "ci95 high");
        assert_eq!(shown["targets"], 30);
        // Beside it, the raters' mean over the same 22 rated targets and its t interval; with
        // every NDCG defined here, the leaderboard's own mean without the judge.
        let raters = &estimate.human_only;
        same(
            &shown["human_only"]["ndcg"],
            raters.estimate,
            "raters' ndcg",
        );
        same(
            &shown["human_only"]["ndcg"],
            row(&raters_board, MODELS[model])["ndcg"].as_f64().unwrap(),
            "the board's",
        );
        same(
            &shown["human_only"]["ci95"][0],
            raters.estimate - raters.half_width,
            "raters' low",
        );
        same(
            &shown["human_only"]["ci95"][1],
            raters.estimate + raters.half_width,
            "raters' high",
        );
        assert_eq!(shown["human_only"]["targets"], 22);
        if model == leader {
            assert_eq!(shown["mean_diff_vs_leader"], 0.0);
            assert_eq!(shown["p_value_vs_leader"], Value::Null);
            continue;
        }
        let pair = (comparisons.iter())
            .find(|c| (c.a, c.b) == (leader.min(model), leader.max(model)))
            .unwrap();
        let test = pair.result.as_ref().unwrap();
        let sign = if model < leader { 1.0 } else { -1.0 };
        same(
            &shown["mean_diff_vs_leader"],
            sign * test.difference.estimate,
            "diff",
        );
        same(&shown["p_value_vs_leader"], test.p_value, "p");
        same(&shown["p_value_holm"], test.p_value_holm, "p holm");
    }
    let pairs = judge["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 3);
    let mut worth = Vec::new();
    for (pair, comparison) in pairs.iter().zip(&comparisons) {
        let test = comparison.result.as_ref().unwrap();
        assert_eq!(pair["a"], MODELS[comparison.a]);
        assert_eq!(pair["b"], MODELS[comparison.b]);
        same(&pair["lambda"], test.difference.lambda, "lambda");
        same(&pair["rho"], test.difference.rho.unwrap(), "rho");
        same(
            &pair["half_width"],
            test.difference.half_width,
            "half width",
        );
        same(
            &pair["half_width_human_only"],
            test.difference.human_only.half_width,
            "half width, raters alone",
        );
        worth.push(test.difference.worth_rated_targets().unwrap());
    }
    worth.sort_by(f64::total_cmp);
    same(&judge["worth_rated_targets"], worth[1], "worth");
    // The verdict is the raters' own, to the bit, and the board says why.
    assert_eq!(board["decision"]["targets_rated"], 22);
    assert_eq!(board["decision"], raters_board["decision"]);
    assert_eq!(judge["verdict"], VERDICT);

    // The CSV: the raters' figures in columns of their own, the judge among the settings.
    let csv = app
        .get("/leaderboard.csv?judge=mini")
        .await
        .text()
        .await
        .unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header.contains(
            ",human_only_ndcg,human_only_ci95_low,human_only_ci95_high,human_only_targets,k,"
        ),
        "{header}"
    );
    assert!(header.ends_with(",partial,judge"), "{header}");
    assert!(csv.lines().nth(1).unwrap().ends_with(",exclude,mini"));

    // The page: both side by side, and what the judge is worth in words.
    let page = unescape(
        &app.get("/leaderboard?judge=mini")
            .await
            .text()
            .await
            .unwrap(),
    );
    assert!(page.contains("With the judge"));
    assert!(page.contains("Targets, raters alone"));
    let more = (worth[1] - 22.0).round();
    let said = if more >= 1.0 {
        format!("The judge's 30 targets count as {more:.0} more rated")
    } else {
        "The judge's 30 targets add nothing the 22 rated ones do not give".to_owned()
    };
    assert!(page.contains(&said), "the page says {said:?}");
    assert!(page.contains(VERDICT), "{page}");
}

/// Below 20 rated judged targets the NDCG is the raters' alone, and the page and JSON say why;
/// rated targets that skip one of the study's order are warned about.
#[tokio::test]
async fn below_twenty_rated_targets_the_raters_figures_stand_and_skipped_order_is_warned() {
    let library = library();
    let study = study_of(&library).await;
    let order = study_order(&study).await;
    // The first 18 of the order, then the 20th: one target rated out of order.
    let mut rated: Vec<usize> = order[..18].to_vec();
    rated.push(order[19]);
    rate(&study, &library, &rated).await;
    import_grades(&study, &library).await;
    let app = TestApp::spawn(study).await;
    let raters_board = json(&app, "/leaderboard.json").await;
    let board = json(&app, "/leaderboard.json?judge=mini").await;
    let judge = &board["judge"];
    assert_eq!(judge["targets_rated"], 19);
    assert_eq!(judge["prediction_powered"], false);
    assert_eq!(
        judge["unavailable"],
        format!(
            "19 judged targets are rated; a prediction-powered estimate needs {MIN_RATED}: the \
             NDCG is the raters' alone"
        )
    );
    assert_eq!(judge["rated_out_of_order"], 1);
    for model in MODELS {
        let shown = row(&board, model);
        let raters = row(&raters_board, model);
        for key in [
            "ndcg",
            "ci95",
            "targets",
            "mean_diff_vs_leader",
            "p_value_holm",
        ] {
            assert_eq!(shown[key], raters[key], "{model} {key}");
        }
    }
    let text = succeeded(&paperjudge(
        &app.study.db_path(),
        &["leaderboard", "--judge", "mini"],
        &[],
    ));
    assert!(text.contains("Judge mini: 30 targets judged, 19 of them rated; 19 judged targets"));
    assert!(text.contains(
        "Warning: 1 rated target comes after a judged target nobody rated, in the study's order"
    ));
}

/// A judge's figures are the owner's: a rater asking for them gets 403 on the page and the
/// downloads, and is offered no judge in the form; an unknown judge is named in the refusal.
#[tokio::test]
async fn a_rater_cannot_ask_for_the_judges_figures_and_an_unknown_judge_is_refused() {
    let library = library();
    let study = study_of(&library).await;
    study
        .study
        .raters()
        .add(&RaterName::new("Ann").unwrap(), "Ann's own password")
        .await
        .unwrap();
    import_grades(&study, &library).await;
    let db = study.db_path();
    let app = TestApp::spawn_with(
        study,
        Access {
            password: Password::new("the owner's password").ok(),
            ..Access::default()
        },
    )
    .await;
    let mut ann = Browser::new(&app);
    ann.log_in_as("Ann", "Ann's own password").await;
    for path in [
        "/leaderboard?judge=mini",
        "/leaderboard.json?judge=mini",
        "/leaderboard.csv?judge=mini",
    ] {
        assert_eq!(
            ann.get(path).await.status(),
            StatusCode::FORBIDDEN,
            "{path}"
        );
    }
    let page = ann.get("/leaderboard").await.text().await.unwrap();
    assert!(
        !page.contains("option-judge"),
        "no judge offered to a rater"
    );
    let dashboard = ann.get("/").await.text().await.unwrap();
    assert!(
        !dashboard.contains("dashboard-judge"),
        "no judge's plan for a rater"
    );
    let mut owner = Browser::new(&app);
    owner.log_in("the owner's password").await;
    let page = owner.get("/leaderboard").await.text().await.unwrap();
    assert!(page.contains(r#"<option value="mini">mini</option>"#));
    let dashboard = unescape(&owner.get("/").await.text().await.unwrap());
    assert!(
        dashboard.contains(
            "The judge mini graded 30 of the 30 targets being rated whole; none left to grade, \
             which costs no rating"
        ),
        "the owner's dashboard says what the judge graded"
    );
    assert!(dashboard.contains(r#"<a href="/leaderboard?judge=mini">"#));
    assert_eq!(
        owner.get("/leaderboard.json?judge=nobody").await.status(),
        StatusCode::NOT_FOUND
    );
    let refused = paperjudge(&db, &["leaderboard", "--judge", "nobody"], &[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("nobody"), "{}", stderr(&refused));
}

/// `simulate --judge` on a study rated and judged whole: the decisions are the plain
/// simulation's (the verdict is the raters' own), and a judge that grades as the raters do
/// narrows the closest pair's interval; what it cannot simulate is refused, naming why.
#[tokio::test]
async fn simulate_with_a_judge_gives_the_intervals_and_the_raters_own_decisions() {
    let mut library = library();
    let study = study_of(&library).await;
    rate(&study, &library, &(1..=TARGETS).collect::<Vec<_>>()).await;
    // A judge that grades every pair as the raters did.
    library.grades = library.stars.clone();
    import_grades(&study, &library).await;
    let db = study.db_path();
    let run = |args: &[&str]| -> Value {
        let mut all = vec!["simulate", "--format", "json", "--seeds", "60"];
        all.extend_from_slice(args);
        serde_json::from_str(&succeeded(&paperjudge(&db, &all, &[]))).unwrap()
    };
    for resample in [false, true] {
        let draws: &[&str] = if resample {
            &["--resample", "--targets", "60"]
        } else {
            &[]
        };
        let simulated = run(&[draws, &["--judge", "mini"]].concat());
        assert_eq!(simulated["orders"], run(draws)["orders"]);
        let judge = &simulated["judge"];
        let mut keys: Vec<&str> = judge
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "half_widths",
                "judge",
                "pair",
                "resample",
                "runs",
                "targets_judged_median"
            ]
        );
        assert_eq!(judge["judge"], "mini");
        assert_eq!(judge["runs"], 60);
        assert_eq!(judge["resample"], resample);
        assert_eq!(judge["pair"], serde_json::json!(["bm25", "lda-200"]));
        assert_eq!(
            judge["targets_judged_median"],
            if resample { 60 } else { 30 }
        );
        // A replay of 30 targets reaches 20 rated ones; a resampled study of 60, 20 and 40.
        let widths = judge["half_widths"].as_array().unwrap();
        let rated: Vec<&Value> = widths.iter().map(|widths| &widths["rated"]).collect();
        assert_eq!(rated, if resample { vec![20, 40] } else { vec![20] });
        for widths in widths {
            assert!(
                widths["with_judge"].as_f64().unwrap() < widths["without_judge"].as_f64().unwrap(),
                "{widths}"
            );
        }
    }
    let text = succeeded(&paperjudge(
        &db,
        &["simulate", "--judge", "mini", "--seeds", "60"],
        &[],
    ));
    assert!(
        text.contains(
            "\nWith the judge mini (30 judged targets per simulated study, median; 60 replayed \
             draws, random order, no pruning): the decisions are the table's above, the raters' \
             own verdict's (docs/metrics.md, \"The verdict with a judge\"); what the judge \
             gives is narrower intervals.\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\nbm25 − lda-200 after 20 rated targets: 95% half-width "),
        "{text}"
    );
    for (args, said) in [
        (
            &["simulate", "--judge", "mini", "--prune"][..],
            "a judge's intervals are simulated in random order without pruning",
        ),
        (&["simulate", "--judge", "nobody"], "nobody"),
    ] {
        let refused = paperjudge(&db, args, &[]);
        assert_eq!(refused.status.code(), Some(2), "{args:?}");
        assert!(stderr(&refused).contains(said), "{}", stderr(&refused));
    }
}
