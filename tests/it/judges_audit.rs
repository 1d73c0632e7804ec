//! The audit of a machine judge against the raters (the `judges` key of the checks, `/judges`,
//! the disagreements), its statistics against independent implementations, and the promise
//! that a judge's grades change nothing a rater sees.

use reqwest::StatusCode;
use serde_json::Value;

use paperjudge::checks::judges::{audit, JudgeInput};
use paperjudge::domain::{JudgeName, PaperId, RaterName, Stars};
use paperjudge::metrics::Settings;
use paperjudge::study::targets::DropRule;
use paperjudge::web::{Access, Password};
use rand::SeedableRng;

use crate::common::TestStudy;
use crate::web_support::{fixture_study, location, Browser, Page, TestApp, HOSTILE_ID};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/judges");

fn close(actual: Option<f64>, expected: f64, what: &str) {
    let actual = actual.unwrap_or_else(|| panic!("{what} undefined"));
    assert!(
        (actual - expected).abs() < 1e-9,
        "{what}: {actual} vs {expected}"
    );
}

/// Alpha equals the `krippendorff` package, kappa scikit-learn's quadratic
/// `cohen_kappa_score`, Spearman scipy's, to 1e-9 (tests/fixtures/judges/reference.py).
#[test]
fn the_agreement_equals_krippendorff_scikit_learn_and_scipy() {
    let text = std::fs::read_to_string(format!("{FIXTURES}/reference.json")).unwrap();
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(cases.len(), 5);
    for case in cases {
        let stars = |key: &str| -> Vec<Stars> {
            (case[key].as_array().unwrap().iter())
                .map(|s| Stars::new(s.as_i64().unwrap()).unwrap())
                .collect()
        };
        let input = JudgeInput {
            name: JudgeName::new("fixture").unwrap(),
            pairs: stars("raters").into_iter().zip(stars("judge")).collect(),
            models: Vec::new(),
            judge_ndcg: Vec::new(),
            targets_judged: 0,
            raters_ndcg: Vec::new(),
        };
        let audited = audit(&input, &Settings::default());
        let name = case["name"].as_str().unwrap();
        close(
            audited.alpha_ordinal,
            case["alpha_ordinal"].as_f64().unwrap(),
            name,
        );
        close(
            audited.kappa_quadratic,
            case["kappa_quadratic"].as_f64().unwrap(),
            name,
        );
        close(audited.spearman, case["spearman"].as_f64().unwrap(), name);
        assert_eq!(audited.pairs_compared, input.pairs.len());
    }
}

/// T1 rated as `rate_all_of_t1` (P1 5★, P2 4★, P3 1★, P4 3★, P5 1★, P6 2★, the hostile paper
/// 1★), T2 not; a judge that graded every pooled pair of both, each by its candidate's title
/// as the stand-in does (P1 2, P2 3, P3 4, P4 5, P5 1, P6 2, hostile 1; T2: P1 2, P7 3, P8 4,
/// P9 5).
const JUDGMENTS: &str =
    "target,paper,stars\nT1,P1,2\nT1,P2,3\nT1,P3,4\nT1,P4,5\nT1,P5,1\nT1,P6,2\n\
     T1,\"h<b>&\"\"'\",1\nT2,P1,2\nT2,P7,3\nT2,P8,4\nT2,P9,5\n";

async fn judged_app() -> TestApp {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    import_judgments(&app.study, "local").await;
    app
}

pub async fn import_judgments(study: &TestStudy, judge: &str) {
    let kind =
        paperjudge::study::import::Kind::Judgments(paperjudge::study::import::judgments::Options {
            judge: JudgeName::new(judge).unwrap(),
        });
    study
        .import(&kind, JUDGMENTS.as_bytes(), 9)
        .await
        .expect("the judgments import");
}

/// NDCG@8 of gains in list order against the ideal `ideal` (gains sorted).
fn ndcg(gains: &[f64], ideal: &[f64]) -> f64 {
    let dcg = |gains: &[f64]| -> f64 {
        (gains.iter().enumerate())
            .map(|(i, g)| g / ((i + 2) as f64).log2())
            .sum()
    };
    dcg(gains) / dcg(ideal)
}

/// `/checks.json` with the query `query` (empty, or `?judge=NAME`).
async fn checks_json(app: &TestApp, query: &str) -> Value {
    let answer = app.get(&format!("/checks.json{query}")).await;
    assert_eq!(answer.status(), StatusCode::OK, "{query}");
    answer.json().await.unwrap()
}

#[tokio::test]
async fn the_checks_audit_the_judge_over_fully_rated_targets_and_rank_the_models_on_its_grades() {
    let app = judged_app().await;
    let checks = checks_json(&app, "").await;
    let judges = checks["judges"].as_array().unwrap();
    assert_eq!(judges.len(), 1);
    let judge = &judges[0];
    assert_eq!(judge["name"], "local");
    // T1's 7 pairs: T2 is not fully rated.
    assert_eq!(judge["pairs_compared"], 7);
    // By reference.py's libraries on the same 7 pairs: raters [5,4,1,3,1,2,1], judge
    // [2,3,4,5,1,2,1].
    close(judge["alpha_ordinal"].as_f64(), 0.4163885180240321, "alpha");
    close(
        judge["kappa_quadratic"].as_f64(),
        0.2222222222222221,
        "kappa",
    );
    close(judge["spearman"].as_f64(), 0.35855439414578866, "spearman");
    assert_eq!(
        judge["confusion"],
        serde_json::json!([
            [2, 0, 0, 1, 0],
            [0, 1, 0, 0, 0],
            [0, 0, 0, 0, 1],
            [0, 0, 1, 0, 0],
            [0, 1, 0, 0, 0]
        ])
    );
    close(judge["mean_stars"].as_f64(), 18.0 / 7.0, "mean stars");
    close(
        judge["mean_stars_raters"].as_f64(),
        17.0 / 7.0,
        "raters' mean stars",
    );
    close(
        judge["share_relevant"].as_f64(),
        2.0 / 7.0,
        "share relevant",
    );
    close(
        judge["share_relevant_raters"].as_f64(),
        2.0 / 7.0,
        "raters' share relevant",
    );
    // The judge's ranking over both targets it graded whole; the raters' over T1.
    assert_eq!(judge["targets_judged"], 2);
    let t1_ideal = [4.0, 3.0, 2.0, 1.0, 1.0];
    let t2_ideal = [4.0, 3.0, 2.0, 1.0];
    let judge_alpha = (ndcg(&[1.0, 2.0, 3.0], &t1_ideal) + ndcg(&[2.0, 3.0], &t2_ideal)) / 2.0;
    let judge_bravo = (ndcg(&[2.0, 4.0, 0.0], &t1_ideal) + ndcg(&[3.0, 4.0], &t2_ideal)) / 2.0;
    let judge_charlie = (ndcg(&[1.0, 1.0, 0.0], &t1_ideal) + ndcg(&[1.0], &t2_ideal)) / 2.0;
    let raters_ideal = [4.0, 3.0, 2.0, 1.0];
    let ranking = judge["ranking"].as_array().unwrap();
    let names: Vec<&str> = ranking
        .iter()
        .map(|m| m["model"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha-lda-300", "bravo-lsa-200", "charlie-bm25"]);
    close(
        ranking[0]["ndcg_judge"].as_f64(),
        judge_alpha,
        "alpha on the judge's",
    );
    close(
        ranking[1]["ndcg_judge"].as_f64(),
        judge_bravo,
        "bravo on the judge's",
    );
    close(
        ranking[2]["ndcg_judge"].as_f64(),
        judge_charlie,
        "charlie on the judge's",
    );
    close(
        ranking[0]["ndcg_raters"].as_f64(),
        ndcg(&[4.0, 3.0, 0.0], &raters_ideal),
        "alpha",
    );
    close(
        ranking[1]["ndcg_raters"].as_f64(),
        ndcg(&[3.0, 2.0, 0.0], &raters_ideal),
        "bravo",
    );
    close(
        ranking[2]["ndcg_raters"].as_f64(),
        ndcg(&[1.0, 4.0, 0.0], &raters_ideal),
        "charlie",
    );
    assert_eq!(judge["leader"], "bravo-lsa-200");
    assert_eq!(judge["leader_raters"], "alpha-lda-300");
    close(judge["tau_b"].as_f64(), 1.0 / 3.0, "tau-b");
    assert_eq!(
        judge["sentence"],
        "local agrees with the raters fair (quadratic κ = 0.22 over 7 pairs of fully rated \
         targets). On its own grades bravo-lsa-200 leads where the raters' leader is \
         alpha-lda-300 (τ-b = 0.33): its numbers are no substitute for theirs."
    );
    // The command line says the same.
    let text = crate::process_support::succeeded(&crate::process_support::paperjudge(
        &app.study.db_path(),
        &["checks"],
        &[],
    ));
    assert!(
        text.contains("\nMachine judge local\nlocal agrees with the raters fair"),
        "{text}"
    );
}

#[tokio::test]
async fn the_judges_page_shows_the_audit_and_the_disagreements_only_of_fully_rated_targets() {
    let app = judged_app().await;
    let page = Page::parse(&app.get_text("/judges").await);
    assert_eq!(page.text("#judge-1 h2"), "local");
    assert_eq!(page.text("#judge-1 .pairs-compared"), "7");
    assert_eq!(page.text("#judge-1 .kappa"), "0.22");
    assert_eq!(page.text("#judge-1 .tau-b"), "0.33");
    assert_eq!(page.count("#judge-1 table.confusion tbody tr"), 5);
    let link = page.attr("#judge-1 a[href$='/disagreements']", "href");
    assert_eq!(link, "/judges/local/disagreements");
    let disagreements = Page::parse(&app.get_text(&link).await);
    let grades = disagreements.texts(".disagreement-grades");
    // T1's pairs where the two differ, the largest gap first: P1 (5 vs 2) and P3 (1 vs 4)
    // by 3, then P4 (3 vs 5) by 2, then P2 (4 vs 3) by 1; none of T2, still being rated.
    assert_eq!(grades.len(), 4);
    assert!(
        grades[0].starts_with(
            "Raters 5★ (highly relevant), judge 2★ (marginally relevant): 3 stars apart"
        ),
        "{grades:?}"
    );
    assert!(grades[1].starts_with("Raters 1★ (irrelevant), judge 4★ (relevant): 3 stars apart"));
    assert!(grades[2]
        .starts_with("Raters 3★ (moderately relevant), judge 5★ (highly relevant): 2 stars apart"));
    assert!(
        grades[3].starts_with("Raters 4★ (relevant), judge 3★ (moderately relevant): 1 star apart")
    );
    let kickers = disagreements.texts(".disagreement .kicker");
    assert!(
        kickers.iter().all(|kicker| !kicker.contains("T2")),
        "{kickers:?}"
    );
    assert!(!disagreements.text("main").contains("Paper seven"));
    let unknown = app.get("/judges/nobody/disagreements").await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    // A judge named after a model with a slash is reached by its encoded name.
    import_judgments(&app.study, "org/model-7b").await;
    let page = Page::parse(&app.get_text("/judges").await);
    let link = page.attr("#judge-2 a[href$='/disagreements']", "href");
    assert_eq!(link, "/judges/org%2Fmodel-7b/disagreements");
    assert_eq!(app.get(&link).await.status(), StatusCode::OK);
    let _ = HOSTILE_ID;
}

/// A rater reaches none of the judges' pages, and no grade of a judge on any page they reach.
#[tokio::test]
async fn a_rater_reaches_no_judges_page_and_no_judges_grade() {
    let study = fixture_study().await;
    study
        .study
        .raters()
        .add(&RaterName::new("Ann").unwrap(), "Ann's own password")
        .await
        .unwrap();
    import_judgments(&study, "local").await;
    let app = TestApp::spawn_with(
        study,
        Access {
            password: Password::new("the owner's password").ok(),
            ..Access::default()
        },
    )
    .await;
    let mut ann = Browser::new(&app);
    let signed = ann.log_in_as("Ann", "Ann's own password").await;
    assert_eq!(location(&signed), "/");
    for path in ["/judges", "/judges/local/disagreements", "/checks.json"] {
        assert_eq!(
            ann.get(path).await.status(),
            StatusCode::FORBIDDEN,
            "{path}"
        );
    }
    let dashboard = ann.get("/").await.text().await.unwrap();
    assert!(
        !dashboard.contains("/judges"),
        "a rater is offered no link to /judges"
    );
}

/// The owner's leaderboard page offers a study's judges in its form (`judge=`), and the
/// owner's dashboard says what each judge graded: the differences a judge makes to those pages
/// before it is chosen. Removed, with the blank lines the template leaves around them.
fn without_the_judge_choice(page: String) -> String {
    let page = match page.find(r#"<label for="option-judge">"#) {
        Some(label) => {
            let start = page[..label].rfind("<div").expect("the choice starts");
            let end = label + page[label..].find("</div>").expect("the choice ends") + 6;
            format!("{}{}", &page[..start], &page[end..])
        }
        None => page,
    };
    (page.lines())
        .filter(|line| !line.trim().is_empty() && !line.contains(r#"<p class="dashboard-judge"#))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Golden outputs of a study with and without a judge's grades: every page and download a
/// rater can reach, and the owner's leaderboard (but for the form's choice of judge) and
/// status, byte for byte the same.
#[tokio::test]
async fn a_judges_grades_change_nothing_a_rater_or_the_leaderboard_shows() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    let t2 = app.paper_id("T2").await;
    let paths = [
        "/".to_owned(),
        "/targets".to_owned(),
        format!("/targets/{t1}"),
        format!("/targets/{t2}"),
        "/leaderboard".to_owned(),
        "/leaderboard.json?per_target=1".to_owned(),
        "/leaderboard.csv".to_owned(),
        "/export/ratings.csv".to_owned(),
        "/export/qrels.txt".to_owned(),
        "/papers?q=paper".to_owned(),
    ];
    let capture = async |app: &TestApp| -> Vec<String> {
        let mut pages = Vec::new();
        for path in &paths {
            let answer = app.get_as(&session, path).await;
            assert_eq!(answer.status(), StatusCode::OK, "{path}");
            pages.push(without_the_judge_choice(answer.text().await.unwrap()));
        }
        let db = app.study.db_path();
        for args in [
            &["status", "--format", "json"][..],
            &["leaderboard", "--format", "json", "--per-target"],
            &["export", "ratings"],
            &["export", "pool"],
            &["targets", "list", "--format", "json"],
        ] {
            let output = crate::process_support::paperjudge(&db, args, &[]);
            pages.push(crate::process_support::succeeded(&output));
        }
        pages
    };
    let before = capture(&app).await;
    import_judgments(&app.study, "local").await;
    assert_eq!(app.study.count("judge_grades").await, 11);
    let after = capture(&app).await;
    for (index, (before, after)) in before.iter().zip(&after).enumerate() {
        assert_eq!(
            before, after,
            "output {index} changed with a judge's grades"
        );
    }
}

/// `checks --judge NAME` (and `/checks.json?judge=NAME`) audits that judge alone; a name the
/// study has no judge of is refused, naming it (404 here, as the leaderboard answers it; exit
/// status 2 on the command line).
#[tokio::test]
async fn the_checks_audit_the_judge_they_are_asked_for_alone() {
    let app = judged_app().await;
    import_judgments(&app.study, "second").await;
    let judges_of = async |query: &str| -> Vec<String> {
        let checks = checks_json(&app, query).await;
        (checks["judges"].as_array().unwrap().iter())
            .map(|judge| judge["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(judges_of("").await, ["local", "second"]);
    assert_eq!(judges_of("?judge=second").await, ["second"]);
    assert_eq!(judges_of("?judge=local").await, ["local"]);
    let unknown = app.get("/checks.json?judge=nobody").await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let message = unknown.text().await.unwrap();
    assert!(message.contains("nobody"), "{message}");
}

/// What `judges list` and the owner's dashboard say a judge graded is kept between views, and
/// follows every change that moves it: its grades, a target dropped from the study and chosen
/// again, another judge's grades.
#[tokio::test]
async fn a_judges_progress_follows_its_grades_and_the_targets_being_rated() {
    let app = judged_app().await;
    let study = &app.study.study;
    let progress = async || -> Vec<(String, i64, i64)> {
        (study.judges().list().await.expect("the judges").into_iter())
            .map(|judge| {
                let name = judge.name.as_str().to_owned();
                (name, judge.pairs_judged, judge.targets_judged)
            })
            .collect()
    };
    let graded_whole = vec![("local".to_owned(), 11, 2)];
    assert_eq!(progress().await, graded_whole);
    assert_eq!(progress().await, graded_whole, "read again, the same");

    let t2 = PaperId::given("T2");
    study
        .targets()
        .drop(std::slice::from_ref(&t2), DropRule::Any)
        .await
        .expect("T2 dropped");
    assert_eq!(progress().await, [("local".to_owned(), 7, 1)]);
    study
        .targets()
        .choose(&[t2], rand::rngs::StdRng::seed_from_u64(1))
        .await
        .expect("T2 chosen again");
    assert_eq!(progress().await, graded_whole);

    import_judgments(&app.study, "second").await;
    assert_eq!(
        progress().await,
        [("local".to_owned(), 11, 2), ("second".to_owned(), 11, 2)]
    );
}
