//! Attacks on the blindness between raters and on the raters' names, each found by trying: a
//! rater's pages must not move when another rater rates (no count that tells "someone else
//! rated"), and a rater's name must not be one that a person takes for another's.

use reqwest::StatusCode;
use serde_json::Value;

use crate::common::TestStudy;
use crate::web_support::{hidden_token, location, Answer, Browser, Page, TestApp};
use paperjudge::domain::RaterName;
use paperjudge::study::{Refusal, StudyError};
use paperjudge::web::{Access, Password};

const OWNER_PASSWORD: &str = "the owner's password";

fn password_of(rater: &str) -> String {
    format!("{rater}'s own password")
}

/// T1..T3, each with four papers of its own, one model listing them all.
async fn study_of_two_raters() -> TestStudy {
    let study = TestStudy::new().await;
    let mut papers = "id,title\n".to_owned();
    let mut lists = "model,target,rank,paper\n".to_owned();
    for t in 1..=3 {
        papers.push_str(&format!("T{t},Target number {t}\n"));
        for i in 1..=4 {
            papers.push_str(&format!("T{t}-{i},Candidate {i} for target {t}\n"));
            lists.push_str(&format!("m,T{t},{i},T{t}-{i}\n"));
        }
    }
    study.papers(&papers).await;
    study.recommendations(&lists).await;
    for rater in ["Ann", "Bo"] {
        let name = RaterName::new(rater).unwrap();
        study
            .study
            .raters()
            .add(&name, &password_of(rater))
            .await
            .unwrap();
    }
    // Both raters rate every target.
    study
        .study
        .raters()
        .set_plan(Some(2), Some(Some(0.0)))
        .await
        .unwrap();
    study
}

async fn signed_in(app: &TestApp, rater: &str) -> Browser {
    let mut browser = Browser::new(app);
    let signed = browser.log_in_as(rater, &password_of(rater)).await;
    assert_eq!(signed.status(), StatusCode::SEE_OTHER, "{rater} signs in");
    browser
}

/// Rates `paper` of the target at `path` with 3 stars, as the rating script does.
async fn rate(browser: &mut Browser, path: &str, paper: &str) {
    let page = browser.get(path).await.text().await.unwrap();
    let token = hidden_token(&page).expect("a token");
    let fields = [("paper", paper), ("stars", "3"), ("csrf_token", &token)];
    let saved = browser
        .post(&format!("{path}/ratings"), &fields, Answer::Json)
        .await;
    assert_eq!(saved.status(), StatusCode::OK, "{path} {paper}");
}

/// What a rater reads of the study's progress on the pages they reach: each search hit's
/// status, the leaderboard JSON, the leaderboard page's count of targets and the dashboard.
async fn what_a_rater_reads(browser: &mut Browser) -> Vec<String> {
    let search = browser.get("/papers?q=target").await;
    assert_eq!(search.status(), StatusCode::OK);
    let search = Page::parse(&search.text().await.unwrap());
    let board: Value = browser.get("/leaderboard.json").await.json().await.unwrap();
    let page = Page::parse(&browser.get("/leaderboard").await.text().await.unwrap());
    let dashboard = Page::parse(&browser.get("/").await.text().await.unwrap());
    let mut read = search.texts(".hit-status");
    read.push(board.to_string());
    read.push(page.text(".board-targets"));
    read.push(dashboard.text("main"));
    read
}

/// Ann has rated a paper of her target; Bo then rates another paper of it, and the first paper
/// of a target nobody had rated. Nothing Ann reads may change: a count that moves exactly
/// when someone else rates says that they rated (the search's "N of M pooled papers rated",
/// the leaderboard's partly rated and unrated targets).
#[tokio::test]
async fn nothing_a_rater_reads_moves_when_another_rater_rates() {
    let access = Access {
        password: Password::new(OWNER_PASSWORD).ok(),
        ..Access::default()
    };
    let app = TestApp::spawn_with(study_of_two_raters().await, access).await;
    let mut ann = signed_in(&app, "Ann").await;
    let mut bo = signed_in(&app, "Bo").await;
    let next = ann.get("/next").await;
    let ann_target = location(&next);
    let first = Page::parse(&ann.get(&ann_target).await.text().await.unwrap())
        .attrs("article.paper", "data-paper");
    rate(&mut ann, &ann_target, &first[0]).await;
    let before = what_a_rater_reads(&mut ann).await;

    rate(&mut bo, &ann_target, &first[1]).await;
    let other = ["T1", "T2", "T3"]
        .into_iter()
        .find(|t| !first[0].starts_with(&format!("{t}-")))
        .unwrap();
    let other_path = format!("/targets/{}", app.paper_id(other).await);
    rate(&mut bo, &other_path, &format!("{other}-1")).await;

    let after = what_a_rater_reads(&mut ann).await;
    assert_eq!(before, after, "Ann reads that Bo rated");
    // Her own ratings still show as hers.
    assert!(
        (after.iter()).any(|read| read.contains("1 of 4")),
        "her own progress in the search: {after:?}"
    );
}

/// A rater's name that differs from another's, or from the owner's, only in case is taken
/// for theirs (in the lists, the agreement, `judgments=rater:NAME`, a ratings file's `rater`
/// column): refused, naming the name it would be confused with; nothing is added.
#[tokio::test]
async fn a_name_differing_only_in_case_is_refused() {
    let study = study_of_two_raters().await;
    for (name, taken) in [
        ("ann", "Ann"),
        ("BO", "Bo"),
        ("Owner", "owner"),
        ("OWNER", "owner"),
    ] {
        let name = RaterName::new(name).unwrap();
        let refused = study.study.raters().add(&name, &password_of("x")).await;
        match refused {
            Err(StudyError::Refused(refusal @ Refusal::RaterNameTaken { .. })) => {
                let message = refusal.to_string();
                assert!(
                    message.contains(&format!("{:?}", name.as_str()))
                        && message.contains(&format!("{taken:?}")),
                    "{message}"
                );
            }
            other => panic!("{name:?}: {other:?}"),
        }
    }
    let raters = study.study.raters().list().await.unwrap().raters;
    let names: Vec<&str> = raters.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["Ann", "Bo"]);
    // A rater removed comes back under their own name only.
    study
        .study
        .raters()
        .remove(&RaterName::new("Bo").unwrap())
        .await
        .unwrap();
    let bo = study
        .study
        .raters()
        .add(&RaterName::new("bo").unwrap(), &password_of("x"))
        .await;
    assert!(
        matches!(bo, Err(StudyError::Refused(Refusal::RaterNameTaken { .. }))),
        "{bo:?}"
    );
    let back = study
        .study
        .raters()
        .add(&RaterName::new("Bo").unwrap(), &password_of("Bo"))
        .await;
    assert!(back.is_ok(), "{back:?}");
}

/// A password `raters add` takes must sign the rater in: the login form is limited in size, so
/// a longer one than it carries is refused when given (naming the limit), and the longest one
/// taken signs in even with the longest name, each character percent-encoded.
#[tokio::test]
async fn a_password_taken_for_a_rater_signs_them_in() {
    let study = study_of_two_raters().await;
    let too_long = "é".repeat(2_000);
    let refused = study
        .study
        .raters()
        .add(&RaterName::new("Cleo").unwrap(), &too_long)
        .await;
    match refused {
        Err(StudyError::Refused(refusal @ Refusal::WeakPassword { .. })) => {
            let message = refusal.to_string();
            assert!(
                message.contains("4000 bytes") && message.contains("at most 1024"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    let longest_name = "𝒜".repeat(RaterName::MAX_CHARACTERS);
    let longest_password = "é".repeat(512);
    let name = RaterName::new(&longest_name).unwrap();
    study
        .study
        .raters()
        .add(&name, &longest_password)
        .await
        .unwrap();
    let access = Access {
        password: Password::new(OWNER_PASSWORD).ok(),
        ..Access::default()
    };
    let app = TestApp::spawn_with(study, access).await;
    let mut browser = Browser::new(&app);
    let signed = browser.log_in_as(&longest_name, &longest_password).await;
    assert_eq!(signed.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&signed), "/");
}

/// A re-check is the rater's own, as a rating is: on a shared browser, the re-check page Ann
/// opened, posted after she logged out and Bo signed in, is refused (403) and stores nothing,
/// rather than storing her answer as Bo's re-check of the same pair.
#[tokio::test]
async fn a_recheck_from_another_raters_page_is_refused() {
    let access = Access {
        password: Password::new(OWNER_PASSWORD).ok(),
        ..Access::default()
    };
    let app = TestApp::spawn_with(study_of_two_raters().await, access).await;
    let t1 = format!("/targets/{}", app.paper_id("T1").await);
    for rater in ["Ann", "Bo"] {
        let mut browser = signed_in(&app, rater).await;
        for i in 1..=4 {
            rate(&mut browser, &t1, &format!("T1-{i}")).await;
        }
    }
    let mut shared = signed_in(&app, "Ann").await;
    let page = shared.get("/checks/recheck").await.text().await.unwrap();
    let form = Page::parse(&page);
    let mut fields: Vec<(String, String)> = form
        .select("form#recheck-form input[type=hidden]")
        .into_iter()
        .map(|input| {
            let value = |name| input.value().attr(name).unwrap_or_default().to_owned();
            (value("name"), value("value"))
        })
        .collect();
    assert!(fields.iter().any(|(name, _)| name == "paper"), "{page}");
    fields.push(("stars".to_owned(), "5".to_owned()));
    let token = shared.form_token("/logout").await;
    let out = shared
        .post("/logout", &[("csrf_token", &token)], Answer::Redirect)
        .await;
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    let signed = shared.log_in_as("Bo", &password_of("Bo")).await;
    assert_eq!(signed.status(), StatusCode::SEE_OTHER);
    let fields: Vec<(&str, &str)> = (fields.iter())
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let posted = shared
        .post("/checks/recheck", &fields, Answer::Redirect)
        .await;
    assert_eq!(posted.status(), StatusCode::FORBIDDEN);
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM rechecks")
        .fetch_one(&app.study.connections)
        .await
        .unwrap();
    assert_eq!(stored, 0, "nothing stored as Bo's");
}

/// The attack of issue 32: with one rater a target, Bo taking a target (`/next`) and rating
/// it moved Ann's dashboard ("22 of 164 pooled pairs ... 1 of 8 targets" became "22 of 143 ...
/// 1 of 7"), telling her that someone took one. What Ann reads counts the targets she took:
/// nothing moves. Only her list of targets shrinks, by the target Bo took, which it shows
/// without a count until then (docs/raters.md says so).
#[tokio::test]
async fn nothing_a_rater_counts_moves_when_another_takes_a_target() {
    let study = study_of_two_raters().await;
    (study.study)
        .raters()
        .set_plan(Some(1), Some(Some(0.0)))
        .await
        .unwrap();
    let access = Access {
        password: Password::new(OWNER_PASSWORD).ok(),
        ..Access::default()
    };
    let app = TestApp::spawn_with(study, access).await;
    let mut ann = signed_in(&app, "Ann").await;
    let mut bo = signed_in(&app, "Bo").await;
    let ann_target = location(&ann.get("/next").await);
    let first = Page::parse(&ann.get(&ann_target).await.text().await.unwrap())
        .attrs("article.paper", "data-paper");
    rate(&mut ann, &ann_target, &first[0]).await;
    // Ann's dashboard, and her list's counts: the sentence above it and each target's cell.
    let counts = async |ann: &mut Browser| {
        let dashboard = Page::parse(&ann.get("/").await.text().await.unwrap());
        let list = Page::parse(&ann.get("/targets").await.text().await.unwrap());
        let mut cells = list.texts("table.targets td.count");
        cells.sort();
        (dashboard.text("main"), list.texts("main > p"), cells)
    };
    let before = counts(&mut ann).await;
    assert!(
        before.0.contains("1 of 4 pooled pairs rated") && before.0.contains("0 of 1 targets"),
        "{before:?}"
    );
    assert!(
        (before.1.iter()).any(|p| p.starts_with("You finished 0 of the 1 target you took.")),
        "{before:?}"
    );
    assert_eq!(before.2, ["1 / 4", "not taken", "not taken"]);

    let bo_target = location(&bo.get("/next").await);
    assert_ne!(bo_target, ann_target);
    let papers = Page::parse(&bo.get(&bo_target).await.text().await.unwrap())
        .attrs("article.paper", "data-paper");
    rate(&mut bo, &bo_target, &papers[0]).await;

    let after = counts(&mut ann).await;
    assert_eq!(
        before.0, after.0,
        "Ann's dashboard tells that Bo took a target"
    );
    assert_eq!(before.1, after.1, "Ann's counts of her targets");
    // Her list shrinks by the target Bo took.
    assert_eq!(after.2, ["1 / 4", "not taken"]);
}

/// The attack of issue 32: a rater's 404 and 403 pages offered the owner's navigation (the
/// study checks and the import, which answer them 403). Every error page a rater gets has a
/// rater's navigation; the owner's keeps the owner's.
#[tokio::test]
async fn a_raters_error_pages_offer_only_a_raters_navigation() {
    let access = Access {
        password: Password::new(OWNER_PASSWORD).ok(),
        ..Access::default()
    };
    let app = TestApp::spawn_with(study_of_two_raters().await, access).await;
    let mut ann = signed_in(&app, "Ann").await;
    let owner_links = |page: &Page| {
        ["/checks", "/import", "/raters", "/papers"]
            .iter()
            .map(|href| page.count(&format!(".site-nav a[href='{href}']")))
            .collect::<Vec<_>>()
    };
    for (path, status) in [
        ("/no-such-page", StatusCode::NOT_FOUND),
        ("/targets/999999", StatusCode::NOT_FOUND),
        ("/checks", StatusCode::FORBIDDEN),
        ("/import", StatusCode::FORBIDDEN),
        ("/raters", StatusCode::FORBIDDEN),
        ("/leaderboard/targets", StatusCode::FORBIDDEN),
    ] {
        let answer = ann.get(path).await;
        assert_eq!(answer.status(), status, "{path}");
        let page = Page::parse(&answer.text().await.unwrap());
        assert_eq!(page.count(".site-nav"), 1, "{path}");
        assert_eq!(owner_links(&page)[..3], [0, 0, 0], "{path}");
    }
    let mut owner = Browser::new(&app);
    assert_eq!(
        owner.log_in(OWNER_PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let answer = owner.get("/no-such-page").await;
    assert_eq!(answer.status(), StatusCode::NOT_FOUND);
    let page = Page::parse(&answer.text().await.unwrap());
    assert_eq!(owner_links(&page), [1, 1, 1, 1]);
}

/// Names that differ in letters and digits that look alike are one name to a person, whatever
/// the case the look-alike is in: a capital I is a small l, a zero a capital O (the attack's
/// pairs, each refused whichever came first, and `0wner` beside the owner). Names that differ
/// in a letter a person reads as another stay apart.
#[tokio::test]
async fn look_alike_letters_and_digits_are_refused_whichever_name_came_first() {
    let refused = async |first: &str, then: &str| {
        let study = TestStudy::new().await;
        let first = RaterName::new(first).unwrap();
        let added = study
            .study
            .raters()
            .add(&first, &password_of("first"))
            .await;
        assert!(added.is_ok(), "{first:?}: {added:?}");
        let then = RaterName::new(then).unwrap();
        match study.study.raters().add(&then, &password_of("then")).await {
            Err(StudyError::Refused(Refusal::RaterNameTaken { name, taken })) => {
                assert_eq!((name, taken), (then, first));
            }
            other => panic!("{then:?} beside {first:?}: {other:?}"),
        }
    };
    for (a, b) in [
        ("Ian", "lan"),
        ("Al", "AI"),
        ("BOB", "B0B"),
        ("Olga", "0lga"),
        ("Ann1", "Annl"),
    ] {
        refused(a, b).await;
        refused(b, a).await;
    }
    let study = TestStudy::new().await;
    for owner in ["0wner", "0WNER", "OWNEr"] {
        let name = RaterName::new(owner).unwrap();
        match study.study.raters().add(&name, &password_of("x")).await {
            Err(StudyError::Refused(Refusal::RaterNameTaken { taken, .. })) => {
                assert_eq!(taken, RaterName::owner(), "{owner}");
            }
            other => panic!("{owner}: {other:?}"),
        }
    }

    let study = TestStudy::new().await;
    let apart = [
        "Ann", "Anna", "Ian", "Ivan", "Jan", "Al", "Ali", "Bob", "Rob", "Olga", "Olya", "Mia",
        "Nia", "Lea", "Leo", "Ann 2", "Ann 3",
    ];
    for name in apart {
        let added = study
            .study
            .raters()
            .add(&RaterName::new(name).unwrap(), &password_of(name))
            .await;
        assert!(added.is_ok(), "{name}: {added:?}");
    }
}
