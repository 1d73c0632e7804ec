//! The pages around rating: dashboard, target list, `/next`, the next-target link, health.

use crate::common::TestStudy;
use crate::web_support::{location, TestApp};
use rand::SeedableRng;
use reqwest::StatusCode;

#[tokio::test]
async fn the_dashboard_of_an_empty_study_says_how_to_start() {
    let app = TestApp::spawn(TestStudy::new().await).await;

    let page = app.get_text("/").await;

    assert!(page.contains("There is nothing to rate yet."));
    assert!(page.contains("The leaderboard appears once a target is fully rated"));
    assert!(!page.contains("<progress"));
}

#[tokio::test]
async fn the_dashboard_shows_pairs_and_targets_done_and_the_way_on() {
    let app = TestApp::with_fixture().await;
    for paper in ["P1", "P7", "P8", "P9"] {
        app.store_rating("T2", paper, 3).await;
    }
    app.store_rating("T1", "P2", 5).await;

    let page = app.get_text("/").await;

    assert!(page.contains(
        "<strong>5</strong> of 11 pooled pairs rated <span class=\"muted\">(45%)</span>"
    ));
    assert!(page.contains("<progress class=\"progress-bar\" max=\"11\" value=\"5\""));
    assert!(page.contains("<strong>1</strong> of 2 targets finished"));
    assert!(page.contains("<a class=\"button button-primary\" href=\"/next\">Continue rating</a>"));
    assert!(page.contains(
        "<p class=\"study-choice\">This study is rating all 2 targets that have \
         recommendations.</p>"
    ));
    // With a fully rated target, the top of the leaderboard replaces the note
    // (tests/web_leaderboard.rs).
    assert!(!page.contains("The leaderboard appears once a target is fully rated"));
    assert!(page.contains("<a href=\"/leaderboard\">The full leaderboard</a>"));
}

#[tokio::test]
async fn the_target_list_shows_progress_and_can_hide_finished_targets() {
    let app = TestApp::with_fixture().await;
    let (t1, t2) = (app.paper_id("T1").await, app.paper_id("T2").await);
    for paper in ["P1", "P7", "P8", "P9"] {
        app.store_rating("T2", paper, 2).await;
    }
    app.store_rating("T1", "P3", 4).await;

    let all = app.get_text("/targets").await;
    let unfinished = app.get_text("/targets?show=unfinished").await;

    assert!(all.contains("1 of 2 targets finished."));
    assert!(all.contains(&format!("<a href=\"/targets/{t1}\">Target one</a>")));
    assert!(all.contains(&format!("<a href=\"/targets/{t2}\">Target two</a>")));
    assert!(all.contains("<td class=\"count\">1 / 7</td>"));
    assert!(all.contains("<td class=\"count\">4 / 4</td>"));
    assert!(all.find("Target one") < all.find("Target two"));
    assert!(unfinished.contains(&format!("<a href=\"/targets/{t1}\">Target one</a>")));
    assert!(!unfinished.contains("Target two"));
    assert_eq!(
        app.get("/targets?show=everything").await.status(),
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn next_goes_to_the_first_target_with_unrated_pairs_in_the_random_order_then_home() {
    let app = TestApp::with_fixture().await;
    let order = app.rating_order().await;
    assert_eq!(order.len(), 2);
    let (first, second) = (app.paper_id(&order[0]).await, app.paper_id(&order[1]).await);

    let answer = app.get("/next").await;
    assert_eq!(answer.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&answer), format!("/targets/{first}"));

    for paper in app.stored_order(&order[0]).await {
        app.store_rating(&order[0], &paper, 3).await;
    }
    assert_eq!(
        location(&app.get("/next").await),
        format!("/targets/{second}")
    );

    for paper in app.stored_order(&order[1]).await {
        app.store_rating(&order[1], &paper, 3).await;
    }
    assert_eq!(location(&app.get("/next").await), "/");
}

/// The order `/next` follows is drawn at random per study, not the import order: over a few
/// studies of the same 12 targets, the first one offered differs.
#[tokio::test]
async fn the_order_of_targets_is_random_per_study() {
    let mut firsts = std::collections::HashSet::new();
    for _ in 0..6 {
        let study = TestStudy::new().await;
        study.papers(&crate::common::papers_csv(24)).await;
        let mut csv = String::from("model,target,rank,paper\n");
        for target in 1..=12 {
            csv.push_str(&format!("m,P{target},1,P{}\n", target + 12));
        }
        let mut rng = rand::rngs::StdRng::from_os_rng();
        let kind = crate::common::recommendations(paperjudge::import::Format::Csv);
        paperjudge::import::import_file(&study.pool, &kind, csv.as_bytes(), "r.csv", &mut rng)
            .await
            .unwrap();
        let app = TestApp::spawn(study).await;
        firsts.insert(location(&app.get("/next").await));
    }
    assert!(firsts.len() > 1, "six studies all started at {firsts:?}");
}

#[tokio::test]
async fn the_rating_page_links_to_the_next_other_target_with_unrated_pairs() {
    let app = TestApp::with_fixture().await;
    let (t1, t2) = (app.paper_id("T1").await, app.paper_id("T2").await);

    let on_t1 = app.get_text(&format!("/targets/{t1}")).await;
    let on_t2 = app.get_text(&format!("/targets/{t2}")).await;
    assert!(on_t1.contains(&format!("id=\"next-target\" href=\"/targets/{t2}\"")));
    // From the last target, the link wraps around to the first.
    assert!(on_t2.contains(&format!("id=\"next-target\" href=\"/targets/{t1}\"")));

    for paper in app.stored_order("T2").await {
        app.store_rating("T2", &paper, 3).await;
    }
    let on_t1 = app.get_text(&format!("/targets/{t1}")).await;
    assert!(on_t1.contains("id=\"next-target\" href=\"/\">No other target has unrated papers</a>"));
}

#[tokio::test]
async fn the_rating_page_shows_the_target_and_the_scale() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;

    let page = app.get_text(&format!("/targets/{t1}")).await;

    assert!(page.contains("<h1 id=\"target-title\">Target one</h1>"));
    assert!(page.contains("<span class=\"authors\">Ada Target</span>"));
    assert!(page.contains("<span class=\"year\">2019</span>"));
    assert!(page.contains("<p class=\"abstract\">The first target.</p>"));
    assert!(page.contains("href=\"https://example.org/T1\" target=\"_blank\""));
    assert!(page.contains("<details class=\"guidelines\" id=\"guidelines\" open>"));
    for label in [
        "1 irrelevant",
        "2 marginally relevant",
        "3 moderately relevant",
        "4 relevant",
        "5 highly relevant",
    ] {
        assert_eq!(
            page.matches(&format!("<span class=\"star-text\">{label}</span>"))
                .count(),
            7,
            "{label}"
        );
    }
    assert_eq!(page.matches("<fieldset class=\"stars\">").count(), 7);
    assert_eq!(page.matches("<legend>Relevance to the target").count(), 7);
    assert!(page.contains(
        "<p class=\"live-status\" id=\"live-status\" role=\"status\" aria-live=\"polite\"></p>"
    ));
}

#[tokio::test]
async fn a_long_abstract_is_in_the_page_once_and_folds_only_in_the_pool() {
    let study = TestStudy::new().await;
    let long = "Long words here. ".repeat(36); // 612 characters
    let short = "Short words here. ".repeat(33); // 594 characters
    study
        .papers(&format!(
            "id,title,abstract\nT,Target,{long}\nL,Long,{long}\nS,Short,{short}\n"
        ))
        .await;
    study
        .recommendations("model,target,rank,paper\nm,T,1,L\nm,T,2,S\n")
        .await;
    let app = TestApp::spawn(study).await;
    let t = app.paper_id("T").await;

    let page = app.get_text(&format!("/targets/{t}")).await;

    let (long, short) = (long.trim_end(), short.trim_end());
    assert_eq!(page.matches(long).count(), 2, "the target's and L's");
    assert_eq!(page.matches(short).count(), 1);
    // The target's abstract is never folded; L's is, and S's is too short to be.
    assert_eq!(page.matches("<div class=\"folded-abstract\">").count(), 1);
    let folded = &page[page.find("<div class=\"folded-abstract\">").unwrap()..];
    assert!(folded.starts_with(&format!(
        "<div class=\"folded-abstract\">\n  <p class=\"abstract\">{long}</p>\n  <details>"
    )));
    assert!(page.contains(&format!("<p class=\"abstract\">{short}</p>")));
    assert!(page.contains(&format!("<p class=\"abstract\">{long}</p>\n")));
}

#[tokio::test]
async fn healthz_answers_ok() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    assert_eq!(app.get_text("/healthz").await, "ok");
}
