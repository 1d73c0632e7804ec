//! The pages around rating: dashboard, target list, `/next`, the next-target link, health.

use crate::common::TestStudy;
use crate::web_support::{attr, location, selector, text, Page, TestApp};
use paperjudge::study::import::ImportFile;
use rand::SeedableRng;
use reqwest::StatusCode;

#[tokio::test]
async fn the_dashboard_of_an_empty_study_says_how_to_start() {
    let app = TestApp::spawn(TestStudy::new().await).await;

    let page = Page::parse(&app.get_text("/").await);

    assert!(page
        .text(".empty-study")
        .starts_with("There is nothing to rate yet."));
    assert!(page
        .text(".leaderboard-summary .note")
        .starts_with("The leaderboard appears once a target is fully rated"));
    assert_eq!(page.count("progress"), 0);
}

#[tokio::test]
async fn the_dashboard_shows_pairs_and_targets_done_and_the_way_on() {
    let app = TestApp::with_fixture().await;
    for paper in ["P1", "P7", "P8", "P9"] {
        app.store_rating("T2", paper, 3).await;
    }
    app.store_rating("T1", "P2", 5).await;

    let page = Page::parse(&app.get_text("/").await);

    assert_eq!(
        page.texts(".progress-summary .stat-line"),
        [
            "5 of 11 pooled pairs rated (45%)",
            "1 of 2 targets finished"
        ]
    );
    assert_eq!(
        page.texts(".progress-summary .stat-line strong"),
        ["5", "1"]
    );
    let bar = page.one(".progress-summary progress.progress-bar");
    assert_eq!(
        (bar.attr("max"), bar.attr("value")),
        (Some("11"), Some("5"))
    );
    assert_eq!(
        page.text("a.button-primary[href='/next']"),
        "Continue rating"
    );
    assert_eq!(
        page.text("p.study-choice"),
        "This study is rating all 2 targets that have recommendations."
    );
    // With a fully rated target, the top of the leaderboard replaces the note
    // (web_leaderboard.rs).
    assert_eq!(page.count(".leaderboard-summary .note"), 0);
    assert_eq!(
        page.text(".leaderboard-summary a[href='/leaderboard']"),
        "The full leaderboard"
    );
}

#[tokio::test]
async fn the_target_list_shows_progress_and_can_hide_finished_targets() {
    let app = TestApp::with_fixture().await;
    let (t1, t2) = (app.paper_id("T1").await, app.paper_id("T2").await);
    for paper in ["P1", "P7", "P8", "P9"] {
        app.store_rating("T2", paper, 2).await;
    }
    app.store_rating("T1", "P3", 4).await;

    let all = Page::parse(&app.get_text("/targets").await);
    let unfinished = Page::parse(&app.get_text("/targets?show=unfinished").await);

    assert!(all.all_text().contains("1 of 2 targets finished."));
    let rows = |page: &Page| {
        (page.select("table.targets tbody tr").into_iter())
            .map(|row| {
                let link = row.select(&selector("td a")).next().expect("a link");
                let count = row.select(&selector("td.count")).next().expect("a count");
                (attr(link, "href"), text(link), text(count))
            })
            .collect::<Vec<_>>()
    };
    let row = |target: i64, title: &str, count: &str| {
        (
            format!("/targets/{target}"),
            title.to_owned(),
            count.to_owned(),
        )
    };
    assert_eq!(
        rows(&all),
        [
            row(t1, "Target one", "1 / 7"),
            row(t2, "Target two", "4 / 4")
        ]
    );
    assert_eq!(rows(&unfinished), [row(t1, "Target one", "1 / 7")]);
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

    for paper in app.blind_order(&order[0]).await {
        app.store_rating(&order[0], &paper, 3).await;
    }
    assert_eq!(
        location(&app.get("/next").await),
        format!("/targets/{second}")
    );

    for paper in app.blind_order(&order[1]).await {
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
        let rng = rand::rngs::StdRng::from_os_rng();
        let kind = crate::common::recommendations(paperjudge::formats::Format::Csv);
        let file = ImportFile::new("r.csv", std::io::Cursor::new(csv.into_bytes()));
        (study.study)
            .import()
            .files(kind, vec![file], rng, ())
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

    let next_target = async |target: i64| {
        let page = Page::parse(&app.get_text(&format!("/targets/{target}")).await);
        (
            page.attr("a#next-target", "href"),
            page.text("a#next-target"),
        )
    };
    assert_eq!(
        next_target(t1).await,
        (format!("/targets/{t2}"), "Next target →".to_owned())
    );
    // From the last target, the link wraps around to the first.
    assert_eq!(next_target(t2).await.0, format!("/targets/{t1}"));

    for paper in app.blind_order("T2").await {
        app.store_rating("T2", &paper, 3).await;
    }
    assert_eq!(
        next_target(t1).await,
        (
            "/".to_owned(),
            "No other target has unrated papers".to_owned()
        )
    );
}

#[tokio::test]
async fn the_rating_page_shows_the_target_and_the_scale() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;

    let page = Page::parse(&app.get_text(&format!("/targets/{t1}")).await);

    assert_eq!(page.text("article.target h1#target-title"), "Target one");
    assert_eq!(page.text("article.target .authors"), "Ada Target");
    assert_eq!(page.text("article.target .year"), "2019");
    assert_eq!(page.text("article.target .abstract"), "The first target.");
    let link = page.one("article.target a.open-paper");
    assert_eq!(
        (link.attr("href"), link.attr("target")),
        (Some("https://example.org/T1"), Some("_blank"))
    );
    assert_eq!(page.count("details.guidelines#guidelines[open]"), 1);
    let labels = [
        "1 irrelevant",
        "2 marginally relevant",
        "3 moderately relevant",
        "4 relevant",
        "5 highly relevant",
        "I can't judge this",
    ];
    let papers = page.select("article.paper");
    assert_eq!(papers.len(), 7);
    for paper in papers {
        let within = |css: &str| paper.select(&selector(css)).map(text).collect::<Vec<_>>();
        assert_eq!(within("fieldset.stars .star-text"), labels);
        let legend = within("fieldset.stars legend");
        assert_eq!(legend.len(), 1);
        assert!(
            legend[0].starts_with("Relevance to the target"),
            "{legend:?}"
        );
    }
    let status = page.one("p.live-status#live-status");
    assert_eq!(
        (status.attr("role"), status.attr("aria-live"), text(status)),
        (Some("status"), Some("polite"), String::new())
    );
}

#[tokio::test]
async fn a_long_abstract_is_in_the_page_once_and_folds_in_the_target_and_the_pool() {
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

    let html = app.get_text(&format!("/targets/{t}")).await;
    let page = Page::parse(&html);

    let (long, short) = (long.trim_end(), short.trim_end());
    assert_eq!(html.matches(long).count(), 2, "the target's and L's");
    assert_eq!(html.matches(short).count(), 1);
    // The target's abstract folds (so that the first paper shows without scrolling), and so
    // does L's; S's is too short to.
    let abstract_of = |css: &str| page.text(&format!("{css} .abstract"));
    assert_eq!(abstract_of("article.target"), long);
    assert_eq!(
        page.count("article.target .folded-abstract > .abstract + details"),
        1
    );
    assert_eq!(
        abstract_of("article.paper[data-paper=L] .folded-abstract"),
        long
    );
    assert_eq!(
        page.count("article.paper[data-paper=L] .folded-abstract > .abstract + details"),
        1
    );
    assert_eq!(abstract_of("article.paper[data-paper=S]"), short);
    assert_eq!(
        page.count("article.paper[data-paper=S] .folded-abstract"),
        0
    );
}

#[tokio::test]
async fn healthz_answers_ok() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    assert_eq!(app.get_text("/healthz").await, "ok");
}

/// With one fully rated target nothing separates the models, so the dashboard marks every
/// model but the leader tied with it.
#[tokio::test]
async fn the_dashboard_marks_the_models_tied_with_the_leader() {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;

    let page = Page::parse(&app.get_text("/").await);

    let [alpha, bravo, charlie] = crate::web_support::MODELS;
    assert_eq!(
        page.texts(".board-summary tbody th[scope=row]"),
        [
            format!("{alpha} leader"),
            format!("{bravo} tied with the leader"),
            format!("{charlie} tied with the leader")
        ]
    );
    let tied = page.select(".board-summary tbody tr.is-tied th .badge.badge-tied");
    assert_eq!(tied.len(), 2);
    for badge in tied {
        assert_eq!(
            attr(badge, "title"),
            "not separated from the leader at p < 0.05"
        );
        assert_eq!(text(badge), "tied with the leader");
    }
}
