//! `/lists` and `/lists.json` through the app (a real SQLite file, the app on a real port):
//! the numbers of a small study computed by hand, the options in the address, a rater's view
//! (the same numbers), an empty study, wrong options, and a view that ratings leave as it was.

use std::sync::Arc;

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::TestStudy;
use crate::web_support::{error_message, location, Answer, Browser, Page, TestApp};
use paperjudge::domain::RaterName;
use paperjudge::lists::ListsOptions;
use paperjudge::web::{Access, Password};

/// Three targets and six other papers (P6 in no list): a library of 9.
pub const PAPERS: &str = "id,title
T1,Target one
T2,Target two
T3,Target three
P1,Paper one
P2,Paper two
P3,Paper three
P4,Paper four
P5,Paper five
P6,Paper six
";

/// T1: alpha P1 P2 P3, bravo P2 P1 P4, charlie P4 P5; T2: alpha and bravo P1 P2, charlie none;
/// T3: alpha P3 alone.
pub const LISTS: &str = "model,target,rank,paper
alpha,T1,1,P1
alpha,T1,2,P2
alpha,T1,3,P3
bravo,T1,1,P2
bravo,T1,2,P1
bravo,T1,3,P4
charlie,T1,1,P4
charlie,T1,2,P5
alpha,T2,1,P1
alpha,T2,2,P2
bravo,T2,1,P1
bravo,T2,2,P2
alpha,T3,1,P3
";

/// The papers and lists above, every pooled pair rated: the view speaks over the 3 targets,
/// all fully rated.
pub async fn small_study() -> TestStudy {
    let study = TestStudy::new().await;
    study.papers(PAPERS).await;
    study.recommendations(LISTS).await;
    rate_every_pooled_pair(&study).await;
    study
}

async fn json_of(app: &TestApp, path: &str) -> Value {
    let answer = app.get(path).await;
    assert_eq!(answer.status(), StatusCode::OK, "{path}");
    serde_json::from_str(&answer.text().await.unwrap()).unwrap()
}

fn number(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("{value} is a number"))
}

fn assert_close(value: &Value, expected: f64, what: &str) {
    assert!(
        (number(value) - expected).abs() < 1e-12,
        "{what}: {value}, expected {expected}"
    );
}

/// By hand, p = 0.9 (as the `rbo` package gives them too):
/// - alpha and bravo: T1 shares P1 and P2 of 4 papers (Jaccard 1/2), X = 0, 2, 2, so RBO =
///   (0.1/0.9)(2/2 · 0.81 + 2/3 · 0.729) + 2/3 · 0.729 = 0.63; T2 the same list (1, 1); T3 alpha
///   alone (0, 0). Means over 3 targets: Jaccard 1/2, RBO 1.63/3, shared 4/3.
/// - alpha and charlie share nothing on any of the 3 targets: 0, with intervals [0, 0].
/// - bravo and charlie: T1 P4 of 4 papers (1/4); the shorter list C holds 2, X = 0, 0 and X_3 =
///   1: RBO = (0.1/0.9)(1/3 · 0.729) + 1/3 · 0.729 = 0.27; T2 charlie empty (0, 0); T3 neither
///   has a list: left out. Means over 2 targets: 1/8, 0.135, shared 1/2.
/// - The pool (k = pool depth = 8): T1 P1..P5, T2 P1 P2, T3 P3: 8 pairs; alpha alone has P3
///   on T1 and T3, charlie P5 on T1.
/// - Coverage in a library of 9: alpha P1, P2, P3 twice each: Gini Σ (2j − 10) f_(j) over
///   j = 7, 8, 9 = 2·(4 + 6 + 8) = 36 over 8·6: 0.75; bravo P4 once, P1 and P2 twice:
///   (4 + 12 + 16)/(8·5) = 0.8; charlie P4 and P5 once: (6 + 8)/(8·2) = 0.875.
#[tokio::test]
async fn the_lists_of_a_small_study_are_those_computed_by_hand() {
    let app = TestApp::spawn(small_study().await).await;
    let lists = json_of(&app, "/lists.json").await;
    assert_eq!(
        lists["settings"],
        json!({"k": 8, "rbo_p": 0.9, "pool_depth": 8})
    );
    assert_eq!(
        lists["targets"],
        json!({"count": 3, "partial": "exclude", "fully_rated": 3, "still_being_rated": 0,
               "choice": "all", "candidates": 3, "without_lists": 0})
    );
    assert_eq!(lists["library"], 9);
    assert_eq!(lists["models"], json!(["alpha", "bravo", "charlie"]));

    let pairs = lists["pairs"].as_array().unwrap();
    let expected = [
        ("alpha", "bravo", 3, 4.0 / 3.0, 0.5, 1.63 / 3.0),
        ("alpha", "charlie", 3, 0.0, 0.0, 0.0),
        ("bravo", "charlie", 2, 0.5, 0.125, 0.135),
    ];
    assert_eq!(pairs.len(), expected.len());
    for (pair, (a, b, targets, shared, jaccard, rbo)) in pairs.iter().zip(expected) {
        assert_eq!((&pair["a"], &pair["b"]), (&json!(a), &json!(b)));
        assert_eq!(pair["targets"], targets, "{a} {b}");
        assert_close(&pair["shared"], shared, "shared");
        assert_close(&pair["jaccard"], jaccard, "Jaccard");
        assert_close(&pair["rbo"], rbo, "RBO");
        for (mean, interval) in [("jaccard", "jaccard_ci95"), ("rbo", "rbo_ci95")] {
            let [low, high] = [0, 1].map(|end| number(&pair[interval][end]));
            let mean = number(&pair[mean]);
            assert!(
                low <= mean && mean <= high,
                "{a} {b} {interval}: {low} {mean} {high}"
            );
        }
    }
    assert_eq!(pairs[1]["jaccard_ci95"], json!([0.0, 0.0]));
    assert_eq!(pairs[1]["rbo_ci95"], json!([0.0, 0.0]));

    assert_eq!(lists["pool"], json!({"pairs": 8, "pairs_at_pool_depth": 8}));
    assert_eq!(
        lists["contribution"],
        json!([
            {"model": "alpha", "unique_pairs": 2, "unique_share": 0.25, "pairs_saved_without": 2},
            {"model": "bravo", "unique_pairs": 0, "unique_share": 0.0, "pairs_saved_without": 0},
            {"model": "charlie", "unique_pairs": 1, "unique_share": 0.125, "pairs_saved_without": 1}
        ])
    );
    let third = 1.0 / 3.0;
    assert_eq!(
        lists["coverage"],
        json!([
            {"model": "alpha", "targets": 3, "recommendations": 6, "distinct_papers": 3,
             "library_share": third, "gini": 0.75},
            {"model": "bravo", "targets": 2, "recommendations": 5, "distinct_papers": 3,
             "library_share": third, "gini": 0.8},
            {"model": "charlie", "targets": 1, "recommendations": 2, "distinct_papers": 2,
             "library_share": 2.0 / 9.0, "gini": 0.875}
        ])
    );
    assert_eq!(
        lists["most_recommended"],
        json!([
            {"paper": "P1", "title": "Paper one", "lists": 4, "targets": 2},
            {"paper": "P2", "title": "Paper two", "lists": 4, "targets": 2},
            {"paper": "P3", "title": "Paper three", "lists": 2, "targets": 2},
            {"paper": "P4", "title": "Paper four", "lists": 2, "targets": 1},
            {"paper": "P5", "title": "Paper five", "lists": 1, "targets": 1}
        ])
    );
    assert_eq!(
        lists["sentences"]["most_alike"][0],
        "alpha and bravo share 1.3 of their top 8 papers on average (Jaccard 0.50, RBO 0.54)."
    );

    // The page: the same numbers, in matrices and tables readable without colour.
    let page = Page::parse(&app.get_text("/lists").await);
    assert_eq!(
        page.texts("#jaccard-matrix tbody tr:nth-child(2) td"),
        ["0.500", "–", "0.125"]
    );
    assert_eq!(
        page.texts("#rbo-matrix tbody tr:nth-child(1) td"),
        ["–", "0.543", "0.000"]
    );
    assert_eq!(
        page.attrs("#rbo-matrix tbody tr:nth-child(1) td", "class"),
        [
            "num shade shade-none",
            "num shade shade-5",
            "num shade shade-0"
        ]
    );
    assert_eq!(
        page.texts(".most-alike li")[0],
        "alpha and bravo share 1.3 of their top 8 papers on average (Jaccard 0.50, RBO 0.54)."
    );
    let bravo_charlie = page.texts("#pairs tbody tr:nth-child(3) td");
    assert_eq!(
        [0, 1, 2, 4].map(|cell| bravo_charlie[cell].as_str()),
        ["2", "0.500", "0.125", "0.135"]
    );
    assert_eq!(
        page.texts("#most-recommended tbody th"),
        [
            "Paper one P1",
            "Paper two P2",
            "Paper three P3",
            "Paper four P4",
            "Paper five P5"
        ]
    );
    assert!(page.all_text().contains("never a rating"));
}

/// With k = 1 the overlap, the pool and the unique pairs are of each list's first paper; the
/// pairs saved stay those of the pool as it is rated, at the pool depth (8).
#[tokio::test]
async fn with_k_the_unique_pairs_follow_k_and_the_pairs_saved_stay_at_the_pool_depth() {
    let app = TestApp::spawn(small_study().await).await;
    let lists = json_of(&app, "/lists.json?k=1&rbo-p=0.5").await;
    assert_eq!(
        lists["settings"],
        json!({"k": 1, "rbo_p": 0.5, "pool_depth": 8})
    );
    // alpha and bravo: T1 P1 against P2, T2 P1 against P1, T3 P3 against nothing.
    let pair = &lists["pairs"][0];
    assert_close(&pair["jaccard"], 1.0 / 3.0, "Jaccard");
    assert_close(&pair["rbo"], 1.0 / 3.0, "RBO");
    assert_eq!(lists["pool"], json!({"pairs": 5, "pairs_at_pool_depth": 8}));
    let contribution: Vec<(u64, u64)> = (lists["contribution"].as_array().unwrap().iter())
        .map(|model| {
            (
                model["unique_pairs"].as_u64().unwrap(),
                model["pairs_saved_without"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(contribution, [(2, 2), (1, 0), (1, 1)]);
    // The page keeps the options in its JSON link and its form.
    let page = Page::parse(&app.get_text("/lists?k=1&rbo_p=0.5").await);
    assert!(page
        .attrs("a", "href")
        .contains(&"/lists.json?k=1&rbo-p=0.5".to_owned()));
    assert_eq!(page.attr("#option-k", "value"), "1");
    assert_eq!(page.attr("#option-rbo-p", "value"), "0.5");
}

/// Chosen targets: the view speaks for those fully rated and says so; a chosen target no
/// model recommends for (no pool, so never fully rated) is still being rated, and counted
/// among the targets without lists when the owner includes the targets still being rated.
#[tokio::test]
async fn the_view_speaks_for_the_chosen_targets() {
    let study = small_study().await;
    study.papers("id,title\nT4,Target four\n").await;
    let chosen = ["T1", "T2", "T4"].map(paperjudge::domain::PaperId::given);
    let rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(4);
    study
        .study
        .targets()
        .choose(&chosen, rng)
        .await
        .expect("chosen");
    let app = TestApp::spawn(study).await;
    let lists = json_of(&app, "/lists.json").await;
    assert_eq!(
        lists["targets"],
        json!({"count": 2, "partial": "exclude", "fully_rated": 2, "still_being_rated": 1,
               "choice": "chosen", "candidates": 3, "without_lists": 0})
    );
    let included = json_of(&app, "/lists.json?partial=include").await;
    assert_eq!(
        included["targets"],
        json!({"count": 3, "partial": "include", "fully_rated": 2, "still_being_rated": 1,
               "choice": "chosen", "candidates": 3, "without_lists": 1})
    );
    for lists in [&lists, &included] {
        // alpha and bravo over T1 and T2 (T4 has no list): Jaccard (1/2 + 1)/2.
        assert_close(&lists["pairs"][0]["jaccard"], 0.75, "Jaccard");
        assert_eq!(lists["pairs"][0]["targets"], 2);
        assert_eq!(lists["pool"]["pairs"], 7);
    }
    let page = Page::parse(&app.get_text("/lists").await);
    assert!(page.text(".board-targets").starts_with(
        "Over the 2 fully rated targets of the 3 chosen (of 3 with recommendations); the 1 still \
         being rated is left out until fully rated, in a library of 10 papers."
    ));
    let page = Page::parse(&app.get_text("/lists?partial=include").await);
    assert!(page.text(".board-targets").starts_with(
        "Over the 3 targets chosen (of 3 with recommendations), the 1 still being rated \
         included, in a library of 10 papers."
    ));
}

const OWNER_PASSWORD: &str = "the owner's password";
const RATER_PASSWORD: &str = "Annika's own password";

/// A rater opens `/lists` from the navigation and reads the same numbers as the owner: they
/// read no rating.
#[tokio::test]
async fn a_rater_opens_the_lists_and_reads_the_owners_numbers() {
    let study = small_study().await;
    let name = RaterName::new("Annika").unwrap();
    study
        .study
        .raters()
        .add(&name, RATER_PASSWORD)
        .await
        .unwrap();
    let access = Access {
        password: Password::new(OWNER_PASSWORD).ok(),
        ..Access::default()
    };
    let app = TestApp::spawn_with(study, access).await;
    // Without signing in: the sign-in page.
    let stranger = Browser::new(&app).get("/lists.json").await;
    assert_eq!(stranger.status(), StatusCode::SEE_OTHER);

    let mut rater = Browser::new(&app);
    let signed = rater.log_in_as("Annika", RATER_PASSWORD).await;
    assert_eq!(location(&signed), "/");
    let dashboard = Page::parse(&rater.get("/").await.text().await.unwrap());
    assert_eq!(dashboard.attrs("nav a[href='/lists']", "href").len(), 1);
    let page = rater.get("/lists").await;
    assert_eq!(page.status(), StatusCode::OK);
    let page = Page::parse(&page.text().await.unwrap());
    assert_eq!(page.count("nav a[href='/checks']"), 0);
    assert_eq!(
        page.texts("#jaccard-matrix tbody tr:nth-child(2) td")[0],
        "0.500"
    );
    let as_rater = rater.get("/lists.json").await.text().await.unwrap();

    let mut owner = Browser::new(&app);
    owner.log_in_as("owner", OWNER_PASSWORD).await;
    let as_owner = owner.get("/lists.json").await.text().await.unwrap();
    assert_eq!(as_rater, as_owner);
}

#[tokio::test]
async fn an_empty_study_says_there_are_no_lists_yet() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    let page = app.get("/lists").await;
    assert_eq!(page.status(), StatusCode::OK);
    let page = Page::parse(&page.text().await.unwrap());
    assert_eq!(
        page.text("#lists-empty"),
        "No lists yet: import your models' recommendations. Upload them."
    );
    let lists = json_of(&app, "/lists.json").await;
    for key in [
        "models",
        "pairs",
        "contribution",
        "coverage",
        "most_recommended",
    ] {
        assert_eq!(lists[key], json!([]), "{key}");
    }
    assert_eq!(lists["targets"]["count"], 0);
}

#[tokio::test]
async fn wrong_options_are_refused_with_400_naming_them() {
    let app = TestApp::spawn(small_study().await).await;
    for (path, says) in [
        ("/lists?k=0", "k must be a whole number from 1 up"),
        ("/lists.json?k=eight", "k must be a whole number from 1 up"),
        (
            "/lists?rbo-p=1",
            "rbo-p must be a number strictly between 0 and 1",
        ),
        (
            "/lists.json?rbo_p=-0.5",
            "rbo-p must be a number strictly between 0 and 1",
        ),
        (
            "/lists.json?gain=linear",
            "\"gain\" is not a parameter of the lists; the parameters are: k, rbo-p, partial",
        ),
        (
            "/lists?partial=yes",
            "partial must be one of: exclude, include (got \"yes\")",
        ),
    ] {
        let answer = app.get(path).await;
        assert_eq!(answer.status(), StatusCode::BAD_REQUEST, "{path}");
        let message = error_message(&answer.text().await.unwrap());
        assert!(message.contains(says), "{path}: {message}");
    }
}

/// Ratings do not move the lists' revision: the view kept is the one served, to the pointer,
/// after ratings in the browser; an import that changes a list makes a new one.
#[tokio::test]
async fn ratings_leave_the_view_as_it_was_and_an_import_of_lists_changes_it() {
    let app = TestApp::spawn(small_study().await).await;
    let study = &app.study.study;
    let options = ListsOptions::default();
    let before = study.lists().view(&options).await.unwrap();
    let before_json = json_of(&app, "/lists.json").await;
    for (target, paper) in [("T1", "P1"), ("T1", "P4"), ("T2", "P2")] {
        let key = app.paper_id(target).await;
        let session = app.session(key).await;
        let saved = app.rate(&session, key, paper, "4", Answer::Json).await;
        assert_eq!(saved.status(), StatusCode::OK, "{target} {paper}");
    }
    let after_ratings = study.lists().view(&options).await.unwrap();
    assert!(Arc::ptr_eq(&before, &after_ratings));
    assert_eq!(json_of(&app, "/lists.json").await, before_json);

    app.study
        .recommendations("model,target,rank,paper\ncharlie,T2,1,P1\n")
        .await;
    let after_import = study.lists().view(&options).await.unwrap();
    assert!(!Arc::ptr_eq(&before, &after_import));
    // charlie now has T2's P1: alpha and charlie share it there.
    assert_eq!(after_import.pairs[1].jaccard, Some((1.0 / 2.0) / 3.0));
}

/// One model: nothing to compare, every pair of the pool its own.
#[tokio::test]
async fn one_model_has_nothing_to_compare_and_the_whole_pool_is_its_own() {
    let study = TestStudy::new().await;
    study.papers(PAPERS).await;
    let alpha: String = (LISTS.lines())
        .filter(|line| !line.starts_with("bravo") && !line.starts_with("charlie"))
        .map(|line| format!("{line}\n"))
        .collect();
    study.recommendations(&alpha).await;
    rate_every_pooled_pair(&study).await;
    let app = TestApp::spawn(study).await;
    let lists = json_of(&app, "/lists.json").await;
    assert_eq!(lists["pairs"], json!([]));
    assert_eq!(
        lists["contribution"],
        json!([{"model": "alpha", "unique_pairs": 6, "unique_share": 1.0, "pairs_saved_without": 6}])
    );
    let page = Page::parse(&app.get_text("/lists").await);
    assert_eq!(
        page.text("#overlap .check-sentence"),
        "One model: there is no other to compare it with."
    );
    assert_eq!(page.count("#jaccard-matrix"), 0);
}

/// A fresh study holding the demo.
async fn demo_study() -> TestStudy {
    let study = TestStudy::new().await;
    study
        .study
        .import()
        .load_demo_if_empty()
        .await
        .unwrap()
        .expect("the demo loaded into an empty study");
    study
}

/// The demo with the target `demo-21` chosen: its first pick by `ES more-like-this`, `LDA 300`
/// and `LSA 200` is the same paper of its pool, `demo-19`.
pub async fn demo_with_demo_21_chosen() -> TestStudy {
    let study = demo_study().await;
    let rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(21);
    let chosen = [paperjudge::domain::PaperId::given("demo-21")];
    study.study.targets().choose(&chosen, rng).await.unwrap();
    let name = RaterName::new("Annika").unwrap();
    study
        .study
        .raters()
        .add(&name, RATER_PASSWORD)
        .await
        .unwrap();
    study
}

/// Rates every pooled pair of the targets being rated, as the owner, 3 stars each.
async fn rate_every_pooled_pair(study: &TestStudy) {
    let mut ratings = "target,paper,stars\n".to_owned();
    for entry in study.study.pool().entries().await.unwrap() {
        ratings.push_str(&format!("{},{},3\n", entry.target, entry.paper));
    }
    study.ratings(&ratings).await;
}

/// Each pair of models ("a and b") with its Jaccard.
type Jaccards = Vec<(String, Option<f64>)>;
/// Each paper of the most recommended with its lists and targets.
type MostRecommended = Vec<(String, u64, u64)>;

/// The pairs of models with their Jaccard, and the papers in most lists with their counts.
fn overlap_at_k_1(lists: &Value) -> (Jaccards, MostRecommended) {
    let pairs = (lists["pairs"].as_array().unwrap().iter())
        .map(|pair| {
            let names = format!(
                "{} and {}",
                pair["a"].as_str().unwrap(),
                pair["b"].as_str().unwrap()
            );
            (names, pair["jaccard"].as_f64())
        })
        .collect();
    let papers = (lists["most_recommended"].as_array().unwrap().iter())
        .map(|paper| {
            (
                paper["paper"].as_str().unwrap().to_owned(),
                paper["lists"].as_u64().unwrap(),
                paper["targets"].as_u64().unwrap(),
            )
        })
        .collect();
    (pairs, papers)
}

/// The attack of issue 39: the demo with one target chosen and a rater signed in. At k = 1 the
/// lists of that target told which paper of the pool she was rating three models put first
/// (Jaccard 1 for three pairs, `demo-19` in 3 lists). Now nothing of a target being rated
/// reaches her view, nor the owner's by default; `partial=include` is the owner's alone (403
/// for her) and says what it gives away; once the target is fully rated, every view shows it.
#[tokio::test]
async fn a_target_being_rated_is_in_no_view_of_the_lists_until_it_is_fully_rated() {
    let access = Access {
        password: Password::new(OWNER_PASSWORD).ok(),
        ..Access::default()
    };
    let app = TestApp::spawn_with(demo_with_demo_21_chosen().await, access).await;
    let mut rater = Browser::new(&app);
    rater.log_in_as("Annika", RATER_PASSWORD).await;
    let mut owner = Browser::new(&app);
    owner.log_in_as("owner", OWNER_PASSWORD).await;

    let as_rater = rater.get("/lists.json?k=1").await.text().await.unwrap();
    let lists: Value = serde_json::from_str(&as_rater).unwrap();
    assert_eq!(
        lists["targets"],
        json!({"count": 0, "partial": "exclude", "fully_rated": 0, "still_being_rated": 1,
               "choice": "chosen", "candidates": 8, "without_lists": 0})
    );
    let (pairs, papers) = overlap_at_k_1(&lists);
    assert_eq!(pairs.len(), 10);
    assert!(
        pairs.iter().all(|(_, jaccard)| jaccard.is_none()),
        "{pairs:?}"
    );
    assert_eq!(papers, []);
    assert_eq!(lists["pool"], json!({"pairs": 0, "pairs_at_pool_depth": 0}));
    for model in lists["coverage"].as_array().unwrap() {
        assert_eq!(
            (&model["targets"], &model["recommendations"]),
            (&json!(0), &json!(0))
        );
    }
    // The owner's view by default is the rater's, byte for byte.
    assert_eq!(
        owner.get("/lists.json?k=1").await.text().await.unwrap(),
        as_rater
    );
    let page = Page::parse(&rater.get("/lists?k=1").await.text().await.unwrap());
    assert_eq!(
        page.text("#lists-empty"),
        "No target is fully rated yet: the lists of a target are shown once every pooled paper \
         of it is rated, since before they would tell which models list the papers still to rate."
    );
    assert!(page
        .text(".board-targets")
        .starts_with("Over no fully rated target of the 1 chosen (of 8 with recommendations); the 1 still being rated is left out until fully rated,"));
    assert_eq!(page.count("#option-partial"), 0);
    let page = Page::parse(&owner.get("/lists?k=1").await.text().await.unwrap());
    assert_eq!(
        page.attr("#lists-empty a", "href"),
        "/lists?k=1&partial=include"
    );

    for path in ["/lists.json?k=1&partial=include", "/lists?partial=include"] {
        let refused = rater.get(path).await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{path}");
    }
    let included: Value = serde_json::from_str(
        &owner
            .get("/lists.json?k=1&partial=include")
            .await
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        included["targets"],
        json!({"count": 1, "partial": "include", "fully_rated": 0, "still_being_rated": 1,
               "choice": "chosen", "candidates": 8, "without_lists": 0})
    );
    let (pairs, papers) = overlap_at_k_1(&included);
    let alike: Vec<&str> = (pairs.iter())
        .filter(|(_, jaccard)| *jaccard == Some(1.0))
        .map(|(names, _)| names.as_str())
        .collect();
    assert_eq!(
        alike,
        [
            "ES more-like-this and LDA 300",
            "ES more-like-this and LSA 200",
            "LDA 300 and LSA 200"
        ]
    );
    assert_eq!(papers[0], ("demo-19".to_owned(), 3, 1));
    let page = Page::parse(
        &owner
            .get("/lists?k=1&partial=include")
            .await
            .text()
            .await
            .unwrap(),
    );
    assert_eq!(
        page.text(".board-unblinding"),
        "Not blind. The targets still being rated are included (1 now), for planning: these \
         numbers show which models list the papers still to rate, so rating that target after \
         reading them is no longer blind, and nothing records that they were read. Raters never \
         see them. Fully rated targets only"
    );
    assert_eq!(page.attr(".board-unblinding a", "href"), "/lists?k=1");
    assert_eq!(page.attr("#option-partial", "checked"), "");

    // Fully rated: unblinded, in every view, the same numbers as the owner's included ones.
    rate_every_pooled_pair(&app.study).await;
    let lists: Value =
        serde_json::from_str(&rater.get("/lists.json?k=1").await.text().await.unwrap()).unwrap();
    assert_eq!(
        lists["targets"],
        json!({"count": 1, "partial": "exclude", "fully_rated": 1, "still_being_rated": 0,
               "choice": "chosen", "candidates": 8, "without_lists": 0})
    );
    assert_eq!(overlap_at_k_1(&lists), overlap_at_k_1(&included));
    assert_eq!(lists["pool"], included["pool"]);
}

/// While the study rates every paper with recommendations (no target chosen), every one of
/// them is being rated: the view speaks over those fully rated, and a target the rating plan
/// takes back (it now needs a rater more than rated it) leaves the view at once, although no
/// rating moved.
#[tokio::test]
async fn rating_every_target_the_view_follows_which_are_fully_rated() {
    let study = demo_study().await;
    let options = ListsOptions {
        k: std::num::NonZeroUsize::new(1),
        ..ListsOptions::default()
    };
    let lists = study.study.lists().view(&options).await.unwrap();
    assert_eq!(
        (lists.targets.count, lists.targets.still_being_rated),
        (0, 8)
    );
    assert_eq!(lists.targets.choice, "all");
    assert_eq!(
        lists.scope_in_words(),
        "no fully rated target of the 8 being rated (every paper with recommendations, none \
         chosen); the 8 still being rated are left out until fully rated"
    );
    assert!(lists.most_recommended.is_empty());

    // demo-21's pool, all of it: fully rated, the others still being rated.
    let mut ratings = "target,paper,stars\n".to_owned();
    for entry in study.study.pool().entries().await.unwrap() {
        if entry.target.as_str() == "demo-21" {
            ratings.push_str(&format!("demo-21,{},2\n", entry.paper));
        }
    }
    study.ratings(&ratings).await;
    let lists = study.study.lists().view(&options).await.unwrap();
    assert_eq!(
        (lists.targets.count, lists.targets.still_being_rated),
        (1, 7)
    );
    assert_eq!(
        lists.scope_in_words(),
        "the 1 fully rated target of the 8 being rated (every paper with recommendations, none \
         chosen); the 7 still being rated are left out until fully rated"
    );
    let first = &lists.most_recommended[0];
    assert_eq!(
        (first.paper.as_str(), first.lists, first.targets),
        ("demo-19", 3, 1)
    );
    // A rating that finishes no target leaves the view kept as it was.
    let other = (study.study.pool().entries().await.unwrap().into_iter())
        .find(|entry| entry.target.as_str() == "demo-02")
        .unwrap();
    study
        .ratings(&format!("target,paper,stars\ndemo-02,{},4\n", other.paper))
        .await;
    let kept = study.study.lists().view(&options).await.unwrap();
    assert_eq!(kept.targets, lists.targets);

    for name in ["Annika", "Bo"] {
        let name = RaterName::new(name).unwrap();
        study
            .study
            .raters()
            .add(&name, RATER_PASSWORD)
            .await
            .unwrap();
    }
    study.study.raters().set_plan(Some(2), None).await.unwrap();
    let lists = study.study.lists().view(&options).await.unwrap();
    assert_eq!(
        (lists.targets.count, lists.targets.still_being_rated),
        (0, 8)
    );
    assert!(lists.most_recommended.is_empty());
}
