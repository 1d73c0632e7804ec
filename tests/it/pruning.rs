//! Pruning through the product: a study rated target by target in `/next`'s order, over real
//! HTTP, with pruning on and off; `paperjudge prune`, `POST /prune`, and what the leaderboard
//! and the checks say of a pruned model.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::common::TestStudy;
use crate::process_support::{paperjudge, stderr, succeeded};
use crate::web_support::{
    hidden_token, location, papers_in_page_order, Answer, Browser, Page, TestApp,
};

const TARGETS: usize = 24;

/// A study of `TARGETS` targets T01.. and three models: `good` and `close` find the relevant
/// papers 1 (5 stars), 2 (4) and 3 (3) in nearly the same order, `bad` lists only papers of
/// its own (7, 8, 9: 1 star each). Papers 4, 5, 6 (1 star) are in nobody's list. Returns the
/// files and each pair's stars.
fn write_study(dir: &Path) -> ([String; 2], HashMap<(String, String), u8>) {
    let mut papers = String::from("id,title\n");
    let mut recommendations = String::from("model,target,rank,paper\n");
    let mut stars = HashMap::new();
    for t in 1..=TARGETS {
        let target = format!("T{t:02}");
        papers.push_str(&format!("{target},Target {t}\n"));
        for p in 1..=9 {
            papers.push_str(&format!("{target}-P{p},Paper {p} of {target}\n"));
            let given = match p {
                1 => 5,
                2 => 4,
                3 => 3,
                _ => 1,
            };
            stars.insert((target.clone(), format!("{target}-P{p}")), given);
        }
        let close = if t % 2 == 0 { [2, 1, 3] } else { [1, 2, 3] };
        for (model, list) in [("good", [1, 2, 3]), ("close", close), ("bad", [7, 8, 9])] {
            for (rank, paper) in list.iter().enumerate() {
                recommendations.push_str(&format!(
                    "{model},{target},{},{target}-P{paper}\n",
                    rank + 1
                ));
            }
        }
    }
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    (
        [
            write("papers.csv", &papers),
            write("recommendations.csv", &recommendations),
        ],
        stars,
    )
}

/// What a rater following `/next` to the end went through.
struct Rated {
    /// The papers each target's page showed, in the order the targets came.
    pools: Vec<(String, Vec<String>)>,
    ratings: usize,
    /// The verdict's `out` after each target.
    out_after: Vec<Vec<String>>,
}

/// Rates the study served by `app` as a rater does: `/next`, every paper on the page, again,
/// until `/next` sends them to the dashboard.
async fn rate_in_next_order(app: &TestApp, stars: &HashMap<(String, String), u8>) -> Rated {
    let mut rated = Rated {
        pools: Vec::new(),
        ratings: 0,
        out_after: Vec::new(),
    };
    loop {
        let next = app.get("/next").await;
        assert_eq!(next.status(), 303);
        let path = location(&next);
        if path == "/" {
            return rated;
        }
        let session = app.session_from(&path).await;
        let page = app.get_text(&path).await;
        let target = Page::parse(&page).text("article.target .paper-id");
        let papers = papers_in_page_order(&page);
        let key: i64 = path.trim_start_matches("/targets/").parse().unwrap();
        for paper in &papers {
            let given = stars[&(target.clone(), paper.clone())].to_string();
            let answer = app.rate(&session, key, paper, &given, Answer::Json).await;
            assert_eq!(answer.status(), 200, "{target} {paper}");
        }
        rated.ratings += papers.len();
        rated.pools.push((target, papers));
        let board: Value = serde_json::from_str(&app.get_text("/leaderboard.json").await).unwrap();
        rated
            .out_after
            .push(serde_json::from_value(board["decision"]["out"].clone()).unwrap());
    }
}

async fn served_study(prune: bool) -> (TestApp, HashMap<(String, String), u8>) {
    let study = TestStudy::new().await;
    let db = study.db_path();
    let ([papers, recommendations], stars) = write_study(study.dir.path());
    succeeded(&paperjudge(&db, &["import", "papers", &papers], &[]));
    succeeded(&paperjudge(
        &db,
        &["import", "recommendations", &recommendations],
        &[],
    ));
    if prune {
        let said = succeeded(&paperjudge(&db, &["prune", "on"], &[]));
        assert_eq!(
            said,
            "pruning is on; no model is ruled out yet, so every target pools every model\n"
        );
    }
    (TestApp::spawn(study).await, stars)
}

/// The bad model is out within a few targets; from then on the pools built leave its papers
/// out, the study takes fewer ratings, and the two good models are never ruled out. Without
/// pruning every target pools all nine listed papers.
#[tokio::test]
async fn a_model_ruled_out_stops_costing_ratings() {
    let (app, stars) = served_study(false).await;
    let unpruned = rate_in_next_order(&app, &stars).await;
    assert_eq!(unpruned.pools.len(), TARGETS);
    assert_eq!(unpruned.ratings, TARGETS * 6);

    let (app, stars) = served_study(true).await;
    let pruned = rate_in_next_order(&app, &stars).await;
    assert_eq!(pruned.pools.len(), TARGETS);
    let first_out = (pruned.out_after.iter())
        .position(|out| out.contains(&"bad".to_owned()))
        .expect("the bad model is ruled out");
    eprintln!(
        "the bad model was out after {} of {TARGETS} targets",
        first_out + 1
    );
    assert!(first_out < 12, "out after {} targets", first_out + 1);
    for (index, (target, papers)) in pruned.pools.iter().enumerate() {
        let bad_papers = (papers.iter())
            .filter(|paper| ["-P7", "-P8", "-P9"].iter().any(|end| paper.ends_with(end)))
            .count();
        // A target whose page was opened after the bad model was out has no paper of it.
        let expected = if index > first_out { 0 } else { 3 };
        assert_eq!(bad_papers, expected, "{target}, the {}th rated", index + 1);
    }
    for out in &pruned.out_after {
        assert!(!out.contains(&"good".to_owned()) && !out.contains(&"close".to_owned()));
    }
    assert_eq!(
        pruned.ratings,
        TARGETS * 6 - 3 * (TARGETS - first_out - 1),
        "every target after the first {} saved the bad model's 3 papers",
        first_out + 1
    );

    // The leaderboard scores the bad model over the targets that pooled it, and says so.
    let db = app.study.db_path();
    let board: Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["leaderboard", "--format", "json"],
        &[],
    )))
    .unwrap();
    let bad = (board["models"].as_array().unwrap().iter())
        .find(|row| row["model"] == json!("bad"))
        .unwrap();
    assert_eq!(bad["targets"], json!(first_out + 1));
    let good = (board["models"].as_array().unwrap().iter())
        .find(|row| row["model"] == json!("good"))
        .unwrap();
    assert_eq!(good["targets"], json!(TARGETS));
    let table = succeeded(&paperjudge(&db, &["leaderboard"], &[]));
    let left_out = TARGETS - first_out - 1;
    assert!(
        table.contains(&format!(
            "\nbad: pruned: left out of the pools of {left_out} targets, scored over the {} whose \
             pool held its list\n",
            first_out + 1
        )),
        "{table}"
    );
    let page = Page::parse(&app.get_text("/leaderboard").await);
    assert_eq!(page.count(".badge-pruned"), 1);
    let checks: Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["checks", "--format", "json"],
        &[],
    )))
    .unwrap();
    assert_eq!(
        checks["pruned"],
        json!([{"model": "bad", "targets": first_out + 1, "left_out_of": left_out}])
    );
    let status: Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["status", "--format", "json"],
        &[],
    )))
    .unwrap();
    assert_eq!(status["pruning"], json!(true));
    assert_eq!(status["pruned_models"], json!(["bad"]));
}

/// `paperjudge prune` without an argument says how it stands; off gives the targets without a
/// rating their full pools back, keeping the blind order of the papers they had; a target
/// with a rating keeps its pool; no rating is removed.
#[tokio::test]
async fn turning_pruning_off_restores_the_pools_of_unrated_targets() {
    let (app, stars) = served_study(true).await;
    let db = app.study.db_path();
    // Rate targets in /next's order until the bad model is pruned and one more target has a
    // rating (its pool built without the bad model), then stop.
    let mut partly: Option<String> = None;
    let mut visited = Vec::new();
    while partly.is_none() {
        let path = location(&app.get("/next").await);
        let session = app.session_from(&path).await;
        let page = app.get_text(&path).await;
        let target = Page::parse(&page).text("article.target .paper-id");
        let papers = papers_in_page_order(&page);
        let key: i64 = path.trim_start_matches("/targets/").parse().unwrap();
        let pruned = papers.len() == 3;
        let to_rate = if pruned { &papers[..1] } else { &papers[..] };
        for paper in to_rate {
            let given = stars[&(target.clone(), paper.clone())].to_string();
            app.rate(&session, key, paper, &given, Answer::Json).await;
        }
        visited.push(target.clone());
        if pruned {
            partly = Some(target);
        }
    }
    let partly = partly.unwrap();
    assert_eq!(
        succeeded(&paperjudge(&db, &["prune"], &[])),
        "pruning is on; pools built from now on leave out bad\n"
    );
    let ratings_before = app.study.count("ratings").await;
    let unrated = (app.rating_order().await.into_iter())
        .find(|target| !visited.contains(target))
        .expect("a target not rated yet");
    let pruned_order = app.blind_order(&unrated).await;
    assert_eq!(pruned_order.len(), 3, "{unrated} leaves out the bad model");

    let mut browser = Browser::new(&app);
    let dashboard = Page::parse(&browser.get("/").await.text().await.unwrap());
    assert_eq!(dashboard.text("#pruning button"), "Turn pruning off");
    let token = dashboard.attr("#pruning input[name=csrf_token]", "value");
    let refused = browser
        .post("/prune", &[("prune", "off")], Answer::Redirect)
        .await;
    assert_eq!(refused.status(), 403);
    let bad = browser
        .post(
            "/prune",
            &[("prune", "maybe"), ("csrf_token", &token)],
            Answer::Redirect,
        )
        .await;
    assert_eq!(bad.status(), 400);
    let off = browser
        .post(
            "/prune",
            &[("prune", "off"), ("csrf_token", &token)],
            Answer::Redirect,
        )
        .await;
    assert_eq!(off.status(), 303);
    assert_eq!(location(&off), "/");
    assert_eq!(
        succeeded(&paperjudge(&db, &["prune"], &[])),
        "pruning is off: every target pools every model\n"
    );
    assert_eq!(app.study.count("ratings").await, ratings_before);
    // The target with a rating keeps its pool of three; a target without one pools all six
    // listed papers again, the three it had in the order they had.
    assert_eq!(app.blind_order(&partly).await.len(), 3);
    let restored = app.blind_order(&unrated).await;
    assert_eq!(restored.len(), 6);
    let kept: Vec<&String> = restored
        .iter()
        .filter(|p| pruned_order.contains(p))
        .collect();
    assert_eq!(kept, pruned_order.iter().collect::<Vec<_>>());
    let status: Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["status", "--format", "json"],
        &[],
    )))
    .unwrap();
    assert_eq!(status["pruning"], json!(false));
    assert_eq!(status["pruned_models"], json!([]));
    let output = paperjudge(&db, &["prune", "sideways"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("invalid value 'sideways'"),
        "{}",
        stderr(&output)
    );
}

/// Rates `targets` by file, every listed paper as `stars` says: with ten of them the bad model
/// is then out, but nothing is pruned until the next target is asked for.
fn rate_by_file(app: &TestApp, targets: &[String], stars: &HashMap<(String, String), u8>) {
    let mut ratings = String::from("target,paper,stars\n");
    for target in targets {
        for p in [1, 2, 3, 7, 8, 9] {
            let paper = format!("{target}-P{p}");
            let given = stars[&(target.clone(), paper.clone())];
            ratings.push_str(&format!("{target},{paper},{given}\n"));
        }
    }
    let file = app.study.dir.path().join("rated.csv");
    std::fs::write(&file, ratings).unwrap();
    succeeded(&paperjudge(
        &app.study.db_path(),
        &["import", "ratings", file.to_str().unwrap()],
        &[],
    ));
}

/// The attack of issue 32: with the bad model pruned, a rating posted for a paper that only it
/// lists in its top 8 for the target is refused exactly as one for any paper outside the pool
/// (a paper no model lists, another target's paper, no paper at all): the same status and
/// message, and the paper never joins the pool. A 200 for exactly the papers the pruned model
/// lists, and a pool that grew, would tell the rater which model lists them. That holds for
/// a page opened before pruning shrank the pool too: nobody held the target, so its page
/// showed nothing that may still be rated (reloading it shows the pool).
#[tokio::test]
async fn a_paper_only_a_pruned_model_lists_is_refused_like_any_outside_the_pool() {
    let (app, stars) = served_study(true).await;
    let db = app.study.db_path();
    let first_ten: Vec<String> = (1..=10).map(|t| format!("T{t:02}")).collect();
    rate_by_file(&app, &first_ten, &stars);
    let key = app.paper_id("T11").await;
    let session = app.session(key).await;
    let page = app.get_text(&format!("/targets/{key}")).await;
    assert_eq!(papers_in_page_order(&page).len(), 6);

    // Another tab asks for the next target: the bad model is pruned, and T11, which nobody
    // holds (no rating, no rater took it), loses its three papers.
    succeeded(&paperjudge(&db, &["next"], &[]));
    let pool = app.blind_order("T11").await;
    assert_eq!(pool.len(), 3);
    let refusal = |paper: &str| json!({ "error": format!("paper {paper:?} is not in the pool of this target") });
    for paper in [
        "T11-P7",
        "T11-P8",
        "T11-P9",
        "T11-P4",
        "T12-P1",
        "no-such-paper",
    ] {
        let answer = app.rate(&session, key, paper, "1", Answer::Json).await;
        assert_eq!(answer.status(), 400, "{paper}");
        assert_eq!(
            answer.json::<Value>().await.unwrap(),
            refusal(paper),
            "{paper}"
        );
    }
    assert_eq!(app.blind_order("T11").await, pool);
    assert_eq!(app.study.count("ratings").await, 60);
    let page = app.get_text(&format!("/targets/{key}")).await;
    assert_eq!(papers_in_page_order(&page).len(), 3);
    // What the pool holds is rated as ever.
    let kept = app.rate(&session, key, &pool[0], "4", Answer::Json).await;
    assert_eq!(kept.status(), 200);
}

/// The pool a rater was shown when they took a target is the one they rate: pruning leaves a
/// target that a rater took alone, rated or not, so that a paper of a model pruned afterwards
/// is still on their page and its rating is saved. A target taken after pruning pools without
/// the pruned model, and its rater is refused a paper only that model lists.
#[tokio::test]
async fn pruning_leaves_the_pool_of_a_target_a_rater_took_alone() {
    let (app, stars) = served_study(true).await;
    for rater in ["Ann", "Bo"] {
        let name = paperjudge::domain::RaterName::new(rater).unwrap();
        (app.study.study)
            .raters()
            .add(&name, &format!("{rater}'s own password"))
            .await
            .unwrap();
    }
    // One rater a target, none twice: each target is Ann's or Bo's.
    (app.study.study)
        .raters()
        .set_plan(None, Some(Some(0.0)))
        .await
        .unwrap();
    let order = app.rating_order().await;
    let mut ann = Browser::new(&app);
    assert_eq!(
        ann.log_in_as("Ann", "Ann's own password").await.status(),
        303
    );
    let taken = location(&ann.get("/next").await);
    assert_eq!(taken, format!("/targets/{}", app.paper_id(&order[0]).await));
    let ann_target = order[0].clone();
    assert_eq!(app.blind_order(&ann_target).await.len(), 6);

    // The owner rates ten other targets by file: the bad model is out.
    rate_by_file(&app, &order[1..11], &stars);

    // Bo asks for a target: the bad model is pruned, but not from Ann's target.
    let mut bo = Browser::new(&app);
    assert_eq!(bo.log_in_as("Bo", "Bo's own password").await.status(), 303);
    let bo_path = location(&bo.get("/next").await);
    assert_eq!(
        succeeded(&paperjudge(&app.study.db_path(), &["prune"], &[])),
        "pruning is on; pools built from now on leave out bad\n"
    );
    assert_eq!(app.blind_order(&ann_target).await.len(), 6);
    let bo_page = bo.get(&bo_path).await.text().await.unwrap();
    let bo_target = Page::parse(&bo_page).text("article.target .paper-id");
    assert_eq!(app.blind_order(&bo_target).await.len(), 3);

    let ann_page = ann.get(&taken).await.text().await.unwrap();
    assert_eq!(papers_in_page_order(&ann_page).len(), 6);
    let token = hidden_token(&ann_page).unwrap();
    let paper = format!("{ann_target}-P8");
    let saved = ann
        .post(
            &format!("{taken}/ratings"),
            &[("paper", &paper), ("stars", "1"), ("csrf_token", &token)],
            Answer::Json,
        )
        .await;
    assert_eq!(saved.status(), 200);

    let token = hidden_token(&bo_page).unwrap();
    let paper = format!("{bo_target}-P8");
    let refused = bo
        .post(
            &format!("{bo_path}/ratings"),
            &[("paper", &paper), ("stars", "1"), ("csrf_token", &token)],
            Answer::Json,
        )
        .await;
    assert_eq!(refused.status(), 400);
    assert_eq!(
        refused.json::<Value>().await.unwrap(),
        json!({ "error": format!("paper {paper:?} is not in the pool of this target") })
    );
    assert_eq!(app.blind_order(&bo_target).await.len(), 3);
}
