//! Choosing targets in the browser: the library search (ranking, paging, escaping, hostile
//! text), choosing and dropping with `POST /targets`, what the dashboard says, and a dropped
//! target that comes back with its ratings and its blind order.

use crate::common::TestStudy;
use crate::process_support::{paperjudge, succeeded};
use crate::web_support::{
    csrf_cookie, error_message, hidden_token, location, papers_in_page_order, Answer, Page,
    Session, TestApp, HOSTILE_ID, HOSTILE_TITLE,
};
use reqwest::StatusCode;

/// A browser on a search page: its CSRF cookie and the token of the page's forms.
async fn searching(app: &TestApp, path: &str) -> (Session, String) {
    let response = app.get(path).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    let cookie = csrf_cookie(response.headers()).expect("a new browser gets the CSRF cookie");
    let html = response.text().await.unwrap();
    let token = hidden_token(&html).unwrap_or_else(|| panic!("no form on {path}: {html}"));
    (Session { cookie, token }, html)
}

/// The external ids of the hits of a search page, in page order.
fn hits(html: &str) -> Vec<String> {
    Page::parse(html).attrs("ol.hits li.hit", "data-paper")
}

fn heading(html: &str) -> String {
    Page::parse(html).text("h2#results-heading")
}

/// What a search page says of the hit `paper` (`.hit-status`).
fn hit_status(html: &str, paper: &str) -> String {
    Page::parse(html).text(&format!("li.hit[data-paper='{paper}'] .hit-status"))
}

async fn choose(app: &TestApp, session: &Session, fields: &[(&str, &str)]) -> reqwest::Response {
    let mut form = vec![("csrf_token", session.token.as_str())];
    form.extend_from_slice(fields);
    app.post("/targets", Some(session), &form, Answer::Redirect)
        .await
}

/// The external ids `/targets` lists.
async fn listed_targets(app: &TestApp) -> Vec<String> {
    let page = Page::parse(&app.get_text("/targets").await);
    page.texts("table.targets tbody td .paper-id")
}

#[tokio::test]
async fn search_ranks_id_title_authors_then_abstract() {
    let study = TestStudy::new().await;
    study
        .papers(
            "id,title,authors,abstract\n\
             G2,Learning to rank,Bo Chen,A graph of citations helps.\n\
             G3,Unrelated,Graham Bell,Nothing here.\n\
             A1,Citation intent,Ann Graph,We classify citations.\n\
             G1,Graph neural networks,Cy Dee,We study learning.\n\
             graph-2019,Something else,Di Eve,Other words.\n",
        )
        .await;
    let app = TestApp::spawn(study).await;

    let (_, page) = searching(&app, "/papers?q=graph").await;

    assert_eq!(hits(&page), ["graph-2019", "G1", "A1", "G2"]);
    assert_eq!(heading(&page), "4 papers found");
    let g2 = |css: &str| Page::parse(&page).texts(&format!("li.hit[data-paper=G2] {css}"));
    assert_eq!(g2(".hit-passage"), ["A graph of citations helps."]);
    assert_eq!(g2(".hit-passage mark"), ["graph"]);
    // Every word must appear; a word of 3 letters or more finds the words it begins.
    let (_, page) = searching(&app, "/papers?q=GRAPH+citat").await;
    assert_eq!(hits(&page), ["A1", "G2"]);
    let (_, page) = searching(&app, "/papers?q=gra").await;
    assert_eq!(hits(&page).len(), 5, "gra begins Graham too");
    let page = app.get_text("/papers?q=gr").await;
    assert_eq!(
        heading(&page),
        "No paper found",
        "two letters find whole words only"
    );
    assert!(Page::parse(&page)
        .text("p.study-choice")
        .starts_with("This study is rating no target yet: no paper has recommendations."));

    // The index follows every import: a changed title, a new paper.
    app.study
        .papers("id,title\nG1,Hypergraph sparsifiers\nN1,Graph drawing\n")
        .await;
    let page = app.get_text("/papers?q=neural").await;
    assert_eq!(heading(&page), "No paper found");
    let (_, page) = searching(&app, "/papers?q=graph").await;
    assert_eq!(hits(&page), ["graph-2019", "N1", "A1", "G2"]);
    let (_, page) = searching(&app, "/papers?q=hypergraph").await;
    assert_eq!(hits(&page), ["G1"]);
}

#[tokio::test]
async fn search_pages_through_every_hit_once() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(45)).await;
    let app = TestApp::spawn(study).await;

    let (_, first) = searching(&app, "/papers?q=abstract").await;
    let (_, second) = searching(&app, "/papers?q=abstract&page=2").await;
    let (_, third) = searching(&app, "/papers?q=abstract&page=3").await;
    let past = app.get_text("/papers?q=abstract&page=4").await;

    assert_eq!(heading(&first), "45 papers found, 1 to 20 shown");
    assert_eq!(heading(&third), "45 papers found, 41 to 45 shown");
    assert_eq!(
        heading(&past),
        "45 papers found; this page is past the last of them"
    );
    let links =
        |html: &str, rel: &str| Page::parse(html).attrs(&format!("nav.pages a[rel={rel}]"), "href");
    assert_eq!(links(&first, "next"), ["/papers?q=abstract&page=2"]);
    assert_eq!(links(&first, "prev"), [""; 0]);
    assert_eq!(links(&third, "prev"), ["/papers?q=abstract&page=2"]);
    assert_eq!(links(&third, "next"), [""; 0]);
    assert_eq!(Page::parse(&first).attr("ol.hits", "start"), "1");
    assert_eq!(Page::parse(&third).attr("ol.hits", "start"), "41");
    let mut all: Vec<String> = [first, second, third]
        .iter()
        .flat_map(|page| hits(page))
        .collect();
    assert_eq!(all.len(), 45);
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 45, "a paper on two pages");

    // The words travel in the links encoded.
    let (_, page) = searching(&app, "/papers?q=paper+%26+abstract").await;
    assert_eq!(
        Page::parse(&page).attr("nav.pages a[rel=next]", "href"),
        "/papers?q=paper%20%26%20abstract&page=2"
    );
}

#[tokio::test]
async fn hostile_text_is_never_query_syntax_and_always_escaped() {
    let app = TestApp::with_fixture().await;

    for query in [
        "%22%3Cscript%3Ealert(1)%3C%2Fscript%3E+AND+title%3A*+NEAR(+OR+%22",
        "*",
        "%22%22",
        "NOT",
        "a%00b",
        "(((",
        "title%3A%22x",
        "%E2%80%AE%F0%9F%98%80",
    ] {
        let response = app.get(&format!("/papers?q={query}")).await;
        assert_eq!(response.status(), StatusCode::OK, "{query}");
        let page = response.text().await.unwrap();
        assert!(!page.contains("<script>alert"), "{query}");
    }
    let page = app
        .get_text("/papers?q=%22%3Cscript%3Ealert(1)%3C%2Fscript%3E")
        .await;
    let input = Page::parse(&page);
    let input = input.one("input#search-q");
    assert_eq!(
        (input.attr("value"), input.attr("maxlength")),
        (Some("\"<script>alert(1)</script>"), Some("200"))
    );
    assert!(!page.contains("<script>alert"));

    // The hostile paper itself: found by its words, shown escaped everywhere.
    let (_, page) = searching(&app, "/papers?q=script+alert").await;
    assert_eq!(hits(&page), [HOSTILE_ID]);
    assert!(!page.contains(HOSTILE_TITLE));
    let parsed = Page::parse(&page);
    assert_eq!(parsed.attr("li.hit", "id"), "paper-h_3cb_3e_26_22_27");
    assert_eq!(parsed.text("li.hit .hit-title"), HOSTILE_TITLE);
    assert_eq!(
        parsed.text("li.hit .hit-passage"),
        "</p><img src=x onerror=alert(1)>"
    );
    assert_eq!(parsed.texts("li.hit .hit-passage mark"), ["alert"]);
    assert_eq!(parsed.count("img, script:not([src])"), 0);

    let too_long = app.get(&format!("/papers?q={}", "a".repeat(201))).await;
    assert_eq!(too_long.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        error_message(&too_long.text().await.unwrap()),
        "q (the search) is too long: at most 200 characters"
    );
    for page in ["0", "501", "two"] {
        let refused = app.get(&format!("/papers?q=paper&page={page}")).await;
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "page={page}");
        assert_eq!(
            error_message(&refused.text().await.unwrap()),
            format!("page must be a whole number from 1 to 500, got \"{page}\"")
        );
    }
}

#[tokio::test]
async fn choosing_in_the_browser_switches_the_study_to_the_chosen_targets() {
    let app = TestApp::with_fixture().await;
    let study_choice =
        async |path: &str| Page::parse(&app.get_text(path).await).text("p.study-choice");
    assert_eq!(
        study_choice("/").await,
        "This study is rating all 2 targets that have recommendations."
    );
    let (session, page) = searching(&app, "/papers?q=target").await;
    assert_eq!(hits(&page), ["T1", "T2"]);
    assert_eq!(
        Page::parse(&page).text("p.study-choice"),
        "This study is rating all 2 targets that have recommendations. Choosing a target here \
         switches it to rating only the targets you choose."
    );
    assert_eq!(
        Page::parse(&page).texts("li.hit .hit-status.is-target"),
        [
            "A target while the study rates every paper with recommendations: 0 of 7 pooled \
             papers rated.",
            "A target while the study rates every paper with recommendations: 0 of 4 pooled \
             papers rated."
        ]
    );

    let chosen = choose(
        &app,
        &session,
        &[("paper", "T2"), ("q", "target"), ("page", "1")],
    )
    .await;
    assert_eq!(chosen.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&chosen), "/papers?q=target&page=1#paper-T2");
    assert_eq!(listed_targets(&app).await, ["T2"]);
    assert_eq!(
        study_choice("/").await,
        "This study is rating 1 chosen target of 2 with recommendations."
    );
    let t1 = app.paper_id("T1").await;
    assert_eq!(
        app.get(&format!("/targets/{t1}")).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        crate::web_support::location(&app.get("/next").await),
        format!("/targets/{}", app.paper_id("T2").await)
    );

    // A paper nothing was recommended for yet can be chosen; its page says so.
    let chosen = choose(&app, &session, &[("paper", "P10")]).await;
    assert_eq!(location(&chosen), "/papers#paper-P10");
    assert_eq!(listed_targets(&app).await, ["T2", "P10"]);
    let p10 = app
        .get_text(&format!("/targets/{}", app.paper_id("P10").await))
        .await;
    assert!(Page::parse(&p10)
        .text("main p.note")
        .starts_with("Nothing has been recommended for this target yet"));

    let (_, page) = searching(&app, "/papers?q=paper+ten").await;
    assert_eq!(
        hit_status(&page, "P10"),
        "A chosen target: 0 of 0 pooled papers rated."
    );
    let drop_action = "li.hit[data-paper=P10] form input[type=hidden][name=action][value=drop]";
    assert_eq!(Page::parse(&page).count(drop_action), 1);
    let dropped = choose(&app, &session, &[("paper", "P10"), ("action", "drop")]).await;
    assert_eq!(dropped.status(), StatusCode::SEE_OTHER);
    assert_eq!(listed_targets(&app).await, ["T2"]);
    let (_, page) = searching(&app, "/papers?q=paper+ten").await;
    assert_eq!(
        hit_status(&page, "P10"),
        "Not a target yet, and nothing has been recommended for it so far."
    );
    assert_eq!(
        Page::parse(&page).text("li.hit[data-paper=P10] form button"),
        "Rate this target (P10)"
    );

    // A target with ratings is not dropped by a click.
    let t2 = app.paper_id("T2").await;
    let rated = app.rate(&session, t2, "P7", "4", Answer::Json).await;
    assert_eq!(rated.status(), StatusCode::OK);
    let refused = choose(&app, &session, &[("paper", "T2"), ("action", "drop")]).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        error_message(&refused.text().await.unwrap()),
        "\"T2\" has ratings; a target with ratings is dropped from the command line \
         (`paperjudge targets drop`), which keeps them"
    );
    let (_, page) = searching(&app, "/papers?q=target").await;
    assert_eq!(
        hit_status(&page, "T2"),
        "A chosen target: 1 of 4 pooled papers rated."
    );
    assert_eq!(Page::parse(&page).count(".hit input[name=action]"), 0);
    assert_eq!(listed_targets(&app).await, ["T2"]);
}

#[tokio::test]
async fn a_bad_choice_is_refused_naming_what_is_wrong() {
    let app = TestApp::with_fixture().await;
    let (session, _) = searching(&app, "/papers?q=target").await;

    let no_token = app
        .post(
            "/targets",
            Some(&session),
            &[("paper", "T1")],
            Answer::Redirect,
        )
        .await;
    assert_eq!(no_token.status(), StatusCode::FORBIDDEN);
    let no_cookie = app
        .post(
            "/targets",
            None,
            &[("paper", "T1"), ("csrf_token", &session.token)],
            Answer::Redirect,
        )
        .await;
    assert_eq!(no_cookie.status(), StatusCode::FORBIDDEN);
    for (fields, message) in [
        (vec![], "missing field: paper (the paper's id)"),
        (vec![("paper", "")], "missing field: paper (the paper's id)"),
        (vec![("paper", "nope")], "unknown paper id: \"nope\""),
        (
            vec![("paper", "T1"), ("action", "delete")],
            "action must be choose, drop or sample, got \"delete\"",
        ),
        (
            vec![("paper", "P10"), ("action", "drop")],
            "not among the targets being rated: \"P10\"",
        ),
    ] {
        let response = choose(&app, &session, &fields).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{fields:?}");
        let body = response.text().await.unwrap();
        assert_eq!(error_message(&body), message, "{fields:?}");
    }
    assert_eq!(listed_targets(&app).await, ["T1", "T2"], "nothing changed");
    let status = succeeded(&paperjudge(
        &app.study.db_path(),
        &["status", "--format", "json"],
        &[],
    ));
    assert!(status.contains("\"target_choice\":\"all\""), "{status}");
}

#[tokio::test]
async fn a_dropped_target_chosen_again_keeps_its_ratings_and_its_order() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    let order = papers_in_page_order(&app.get_text(&format!("/targets/{t1}")).await);
    for (paper, stars) in order.iter().take(3).zip(["5", "2", "4"]) {
        app.rate(&session, t1, paper, stars, Answer::Json).await;
    }
    let stars = |html: &str| Page::parse(html).attrs("article.paper", "data-stars");
    let before = app.get_text(&format!("/targets/{t1}")).await;
    let stars_before = stars(&before);
    assert_eq!(stars_before, ["5", "2", "4", "", "", "", ""]);

    succeeded(&paperjudge(
        &app.study.db_path(),
        &["targets", "drop", "T1"],
        &[],
    ));
    assert_eq!(
        app.get(&format!("/targets/{t1}")).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(listed_targets(&app).await, ["T2"]);
    let refused = app.rate(&session, t1, &order[3], "3", Answer::Json).await;
    assert_eq!(
        refused.status(),
        StatusCode::NOT_FOUND,
        "a dropped target takes no rating"
    );
    assert_eq!(app.study.count("ratings").await, 3);

    let (search, _) = searching(&app, "/papers?q=target+one").await;
    let chosen = choose(&app, &search, &[("paper", "T1")]).await;
    assert_eq!(chosen.status(), StatusCode::SEE_OTHER);
    let after = app.get_text(&format!("/targets/{t1}")).await;
    assert_eq!(papers_in_page_order(&after), order);
    assert_eq!(stars(&after), stars_before);
    assert_eq!(
        Page::parse(&after).text(".target-progress-text"),
        "3 of 7 rated"
    );
}

#[tokio::test]
async fn a_large_library_offers_to_choose_targets() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(302)).await;
    let mut csv = String::from("model,target,rank,paper\n");
    for target in 1..=301 {
        csv.push_str(&format!("m,P{target},1,P302\n"));
    }
    study.recommendations(&csv).await;
    let app = TestApp::spawn(study).await;

    let dashboard = Page::parse(&app.get_text("/").await);
    assert_eq!(
        dashboard.text("p.study-choice"),
        "This study is rating all 301 targets that have recommendations. Choose targets: rating \
         every paper of a large library is rarely the plan."
    );
    assert_eq!(
        dashboard.text("p.study-choice a[href='/papers']"),
        "Choose targets"
    );
    let small = TestApp::with_fixture().await;
    let small = Page::parse(&small.get_text("/").await);
    assert_eq!(small.count("p.study-choice a"), 0);
}
