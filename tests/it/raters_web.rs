//! Several raters on one study, driven over HTTP with real sign-ins (tests/it/main.rs: the app
//! on port 0, a real SQLite file): each rater rates blind (only their own stars, on every page
//! and download they reach), `/next` hands out targets so that every target gets the raters it
//! needs and the overlap share one more, a rater cannot change another's rating, the consensus
//! leaderboard equals one computed by hand from the raters' stars, and a rater whose stars are
//! random is the one whose removal raises alpha.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::StatusCode;
use serde_json::Value;

use crate::common::TestStudy;
use crate::web_support::{hidden_token, location, selector, text, Answer, Browser, Page, TestApp};
use paperjudge::domain::RaterName;
use paperjudge::leaderboard::{LeaderboardOptions, Partial};
use paperjudge::web::{Access, Password};

const TARGETS: u32 = 8;
const PAPERS_PER_TARGET: u32 = 8;
const OWNER_PASSWORD: &str = "the owner's password";
const RATERS: [&str; 3] = ["Annika", "Boris", "Cyrille"];

fn password_of(rater: &str) -> String {
    format!("{rater}'s own password")
}

/// T1..T8, each with eight papers of its own: `T3-5` is paper 5 of T3.
fn papers_csv() -> String {
    let mut csv = "id,title\n".to_owned();
    for t in 1..=TARGETS {
        csv.push_str(&format!("T{t},Target number {t}\n"));
        for i in 1..=PAPERS_PER_TARGET {
            csv.push_str(&format!("T{t}-{i},Candidate {i} for target {t}\n"));
        }
    }
    csv
}

/// Three models whose lists together pool all eight papers of every target.
fn recommendations_csv() -> String {
    let lists: [(&str, [u32; 5]); 3] = [
        ("alpha", [1, 2, 3, 4, 5]),
        ("beta", [8, 7, 6, 5, 4]),
        ("gamma", [2, 8, 1, 3, 6]),
    ];
    let mut csv = "model,target,rank,paper\n".to_owned();
    for t in 1..=TARGETS {
        for (model, papers) in &lists {
            for (rank, i) in papers.iter().enumerate() {
                csv.push_str(&format!("{model},T{t},{},T{t}-{i}\n", rank + 1));
            }
        }
    }
    csv
}

/// The stars each rater gives paper `i` of target `t`: Annika the truth, Boris the truth
/// one star off on a quarter of the pairs, Cyrille at random (a fixed hash of the pair).
fn stars(rater: &str, t: u32, i: u32) -> u8 {
    let truth = ((i * 3 + t * 2) % 5 + 1) as u8;
    match rater {
        "Annika" => truth,
        "Boris" if (i + t).is_multiple_of(4) => {
            if truth < 5 {
                truth + 1
            } else {
                truth - 1
            }
        }
        "Boris" => truth,
        _ => {
            let hash = (t.wrapping_mul(2_654_435_761) ^ i.wrapping_mul(40_503))
                .wrapping_mul(2_246_822_519);
            (hash >> 13) as u8 % 5 + 1
        }
    }
}

/// `T3-5` → (3, 5).
fn pair_of(paper: &str) -> (u32, u32) {
    let (target, index) = paper.trim_start_matches('T').split_once('-').expect("T-i");
    (target.parse().unwrap(), index.parse().unwrap())
}

async fn study_with_three_raters() -> TestStudy {
    let study = TestStudy::new().await;
    study.papers(&papers_csv()).await;
    study.recommendations(&recommendations_csv()).await;
    for rater in RATERS.iter().chain(&["Dora"]) {
        let name = RaterName::new(rater).unwrap();
        study
            .study
            .raters()
            .add(&name, &password_of(rater))
            .await
            .expect("added");
    }
    // Two raters a target, and half the targets (drawn once) one more.
    study
        .study
        .raters()
        .set_plan(Some(2), Some(Some(0.5)))
        .await
        .expect("set");
    study
}

async fn served(study: TestStudy) -> TestApp {
    let access = Access {
        password: Password::new(OWNER_PASSWORD).ok(),
        ..Access::default()
    };
    TestApp::spawn_with(study, access).await
}

async fn signed_in(app: &TestApp, rater: &str) -> Browser {
    let mut browser = Browser::new(app);
    let signed = browser.log_in_as(rater, &password_of(rater)).await;
    assert_eq!(signed.status(), StatusCode::SEE_OTHER, "{rater} signs in");
    assert_eq!(location(&signed), "/");
    browser
}

/// A browser for each of [`RATERS`], signed in.
async fn every_rater_signed_in(app: &TestApp) -> Vec<Browser> {
    let mut browsers = Vec::new();
    for rater in RATERS {
        browsers.push(signed_in(app, rater).await);
    }
    browsers
}

/// Who rated which pair, with which stars, as stored: (target, paper) → rater → stars.
async fn stored(app: &TestApp) -> BTreeMap<(String, String), BTreeMap<String, u8>> {
    let rows: Vec<(String, String, String, i64)> = sqlx::query_as(
        "SELECT t.external_id, p.external_id, w.name, r.stars FROM ratings r
         JOIN papers t ON t.id = r.target_id JOIN papers p ON p.id = r.paper_id
         JOIN raters w ON w.id = r.rater_id",
    )
    .fetch_all(&app.study.connections)
    .await
    .unwrap();
    let mut by_pair: BTreeMap<(String, String), BTreeMap<String, u8>> = BTreeMap::new();
    for (target, paper, rater, stars) in rows {
        by_pair
            .entry((target, paper))
            .or_default()
            .insert(rater, stars as u8);
    }
    by_pair
}

/// A rater's rating page of the target at `path`: its papers with the stars it shows, and the
/// form token.
async fn rating_page(browser: &mut Browser, path: &str) -> (Vec<(String, String)>, String, String) {
    let response = browser.get(path).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    let html = response.text().await.unwrap();
    let page = Page::parse(&html);
    let papers = page.attrs("article.paper", "data-paper");
    let shown = page.attrs("article.paper", "data-stars");
    let token = hidden_token(&html).expect("a token");
    (papers.into_iter().zip(shown).collect(), token, html)
}

/// Each of the three raters in turn asks `/next` for a target and rates it whole, until no
/// target needs any of them. Every page a rater opens shows no stars before they rate, however
/// many others rated the target: answers how many pages were opened after another rater rated,
/// and the targets in the order they became fully rated.
async fn rate_in_turn(app: &TestApp, browsers: &mut [Browser]) -> (usize, Vec<String>) {
    let mut done = [false; 3];
    let mut after_others = 0;
    let mut completed = Vec::new();
    while done.contains(&false) {
        for (index, rater) in RATERS.iter().enumerate() {
            if done[index] {
                continue;
            }
            let browser = &mut browsers[index];
            let next = browser.get("/next").await;
            assert_eq!(next.status(), StatusCode::SEE_OTHER);
            let path = location(&next);
            if path == "/" {
                done[index] = true;
                continue;
            }
            let (papers, token, html) = rating_page(browser, &path).await;
            assert_eq!(papers.len(), PAPERS_PER_TARGET as usize);
            assert!(
                papers.iter().all(|(_, shown)| shown.is_empty()),
                "{rater} sees no stars on {path} before rating it: {papers:?}"
            );
            for other in RATERS.iter().filter(|other| *other != rater) {
                assert!(!html.contains(other), "{rater}'s page names {other}");
            }
            let (target, _) = pair_of(&papers[0].0);
            let rated_by_others = stored(app)
                .await
                .iter()
                .any(|((t, _), raters)| *t == format!("T{target}") && !raters.is_empty());
            after_others += usize::from(rated_by_others);
            let rating_path = format!("{path}/ratings");
            for (paper, _) in &papers {
                let (t, i) = pair_of(paper);
                let given = stars(rater, t, i).to_string();
                let fields = [
                    ("paper", paper.as_str()),
                    ("stars", given.as_str()),
                    ("csrf_token", token.as_str()),
                    ("rater", rater),
                ];
                let saved = browser.post(&rating_path, &fields, Answer::Json).await;
                assert_eq!(saved.status(), StatusCode::OK, "{rater} rates {paper}");
            }
            let fully_rated: bool = sqlx::query_scalar(
                "SELECT t.fully_rated FROM targets t JOIN papers p ON p.id = t.target_id
                 WHERE p.external_id = ?",
            )
            .bind(format!("T{target}"))
            .fetch_one(&app.study.connections)
            .await
            .unwrap();
            if fully_rated {
                completed.push(format!("T{target}"));
            }
        }
    }
    (after_others, completed)
}

#[tokio::test]
async fn three_raters_rate_blind_and_each_target_gets_the_raters_it_needs() {
    let app = served(study_with_three_raters().await).await;
    let mut browsers = every_rater_signed_in(&app).await;
    // Before signing in, a visitor on loopback is asked to.
    let stranger = Browser::new(&app).get("/targets").await;
    assert_eq!(stranger.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&stranger), "/login");

    let (after_others, completed) = rate_in_turn(&app, &mut browsers).await;
    assert!(
        after_others > 0,
        "some page was opened after another rater rated its target"
    );
    // The verdict reads the targets in the order their last needed rating completed them.
    let set = app.study.study.evaluation().current_set(0).await.unwrap();
    let order: Vec<String> = (set.collection.completion.as_ref().unwrap().order.iter())
        .map(|&position| set.collection.targets[position].target.clone())
        .collect();
    assert_eq!(order, completed);
    assert_eq!(completed.len(), TARGETS as usize);
    assert_eq!(
        app.study
            .study
            .status()
            .await
            .unwrap()
            .judgments_with_provenance_known,
        0,
        "no rating was made after its target's numbers were out"
    );

    // Every target got the raters it needs: two, and one more for the overlap share, whose
    // targets are those whose random order key has its low 32 bits below half of 2^32.
    let targets: Vec<(String, i64, i64)> = sqlx::query_as(
        "SELECT p.external_id, t.order_key, t.needed FROM targets t
         JOIN papers p ON p.id = t.target_id ORDER BY p.external_id",
    )
    .fetch_all(&app.study.connections)
    .await
    .unwrap();
    assert_eq!(targets.len(), TARGETS as usize);
    let ratings = stored(&app).await;
    for (target, order_key, needed) in &targets {
        let in_overlap = (order_key & 0xffff_ffff) < (1 << 31);
        assert_eq!(*needed, 2 + i64::from(in_overlap), "{target}");
        let raters: BTreeSet<&String> = (ratings.iter())
            .filter(|((t, _), _)| t == target)
            .flat_map(|(_, raters)| raters.keys())
            .collect();
        assert_eq!(raters.len() as i64, *needed, "{target}: {raters:?}");
        let pairs: Vec<_> = ratings.iter().filter(|((t, _), _)| t == target).collect();
        assert_eq!(pairs.len(), PAPERS_PER_TARGET as usize);
        assert!(
            pairs.iter().all(|(_, by)| by.len() as i64 == *needed),
            "every pair of {target} rated by each of its raters"
        );
    }
    let status = app.study.study.status().await.unwrap();
    assert_eq!(status.targets_finished, i64::from(TARGETS));

    // Each rater sees their own stars only, on every target they rated.
    for (index, rater) in RATERS.iter().enumerate() {
        let browser = &mut browsers[index];
        let taken: BTreeSet<String> = (ratings.iter())
            .filter(|(_, by)| by.contains_key(*rater))
            .map(|((target, _), _)| target.clone())
            .collect();
        for target in &taken {
            let key = app.paper_id(target).await;
            let (papers, _, _) = rating_page(browser, &format!("/targets/{key}")).await;
            for (paper, shown) in papers {
                let (t, i) = pair_of(&paper);
                assert_eq!(shown, stars(rater, t, i).to_string(), "{rater} on {paper}");
            }
        }
        // Their download holds their own ratings only.
        let csv = browser
            .get("/export/ratings.csv")
            .await
            .text()
            .await
            .unwrap();
        let rows: Vec<&str> = csv.lines().skip(1).collect();
        assert_eq!(rows.len(), taken.len() * PAPERS_PER_TARGET as usize);
        assert!(
            rows.iter().all(|row| row.ends_with(&format!(",{rater},"))),
            "{csv}"
        );
    }

    owner_sees_the_consensus_computed_by_hand(&app, &ratings).await;
    the_random_rater_lowers_alpha(&app).await;
    no_rater_reaches_another_ones_stars(&app, &mut browsers).await;
    no_rater_changes_another_ones_rating(&app, &mut browsers, &ratings).await;
}

/// The median of each pair's stars by hand, as the owner's ratings of a study of one rater:
/// its leaderboard is the raters' study's, model by model and target by target.
async fn owner_sees_the_consensus_computed_by_hand(
    app: &TestApp,
    ratings: &BTreeMap<(String, String), BTreeMap<String, u8>>,
) {
    let mut owner = Browser::new(app);
    assert_eq!(
        owner.log_in(OWNER_PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let by_name = Browser::from(app, std::net::Ipv4Addr::new(127, 0, 0, 4))
        .log_in_as("owner", OWNER_PASSWORD)
        .await;
    assert_eq!(
        by_name.status(),
        StatusCode::SEE_OTHER,
        "the owner may give their name"
    );
    for (judgments, lower) in [("lower-median", true), ("upper-median", false)] {
        let hand = TestStudy::new().await;
        hand.papers(&papers_csv()).await;
        hand.recommendations(&recommendations_csv()).await;
        let mut csv = "target,paper,stars\n".to_owned();
        for ((target, paper), by) in ratings {
            let mut given: Vec<u8> = by.values().copied().collect();
            given.sort_unstable();
            let middle = if lower {
                (given.len() - 1) / 2
            } else {
                given.len() / 2
            };
            csv.push_str(&format!("{target},{paper},{}\n", given[middle]));
        }
        hand.ratings(&csv).await;
        let expected = hand
            .study
            .evaluation()
            .leaderboard(&LeaderboardOptions::default(), Partial::Exclude)
            .await
            .unwrap()
            .board
            .to_json(true);
        let expected: Value = serde_json::from_str(&expected).unwrap();
        let path = format!("/leaderboard.json?per_target=1&judgments={judgments}");
        let got: Value = owner.get(&path).await.json().await.unwrap();
        assert_eq!(got["settings"]["judgments"], judgments);
        for key in ["targets", "models", "per_target"] {
            assert_eq!(got[key], expected[key], "{judgments}: {key}");
        }
        assert_eq!(got["leader_by_rater"].as_array().unwrap().len(), 3);
    }
    // The mean's fractional grades: no qrels of them, said why.
    let refused = owner.get("/export/qrels.txt?judgments=mean").await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert!(refused
        .text()
        .await
        .unwrap()
        .contains("qrels hold whole grades"));
    let qrels = owner
        .get("/export/qrels.txt?judgments=rater:Annika")
        .await
        .text()
        .await
        .unwrap();
    for line in qrels.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let (t, i) = pair_of(fields[2]);
        assert_eq!(fields[3], (stars("Annika", t, i) - 1).to_string(), "{line}");
    }
}

/// Cyrille rates at random: without his stars alpha rises most, and above alpha with them.
async fn the_random_rater_lowers_alpha(app: &TestApp) {
    let mut owner = Browser::new(app);
    owner.log_in(OWNER_PASSWORD).await;
    let checks: Value = owner.get("/checks.json").await.json().await.unwrap();
    let raters = &checks["raters"];
    assert_eq!(
        raters["pairs_rated_twice"],
        u64::from(TARGETS * PAPERS_PER_TARGET)
    );
    let alpha = raters["alpha_ordinal"].as_f64().unwrap();
    let without: BTreeMap<String, f64> = (raters["raters"].as_array().unwrap().iter())
        .map(|rater| {
            let name = rater["name"].as_str().unwrap().to_owned();
            (name, rater["alpha_without"].as_f64().unwrap())
        })
        .collect();
    let (most, rise) = (without.iter())
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(name, value)| (name.clone(), value - alpha))
        .unwrap();
    assert_eq!(most, "Cyrille", "{without:?} against {alpha}");
    assert!(rise > 0.1, "{without:?} against {alpha}");
    assert!(raters["sentence"]
        .as_str()
        .unwrap()
        .contains("Without Cyrille's stars α would be"));
    assert_eq!(raters["kappa"].as_array().unwrap().len(), 3);
    assert_eq!(checks["settings"]["judgments"], "lower-median");
    // The leaderboard says whether its leader is each rater's too, as the checks do.
    let board: Value = owner.get("/leaderboard.json").await.json().await.unwrap();
    let leader = board["models"][0]["model"].as_str().unwrap().to_owned();
    let differ: Vec<&Value> = (board["leader_by_rater"].as_array().unwrap().iter())
        .filter(|rater| rater["leader"] != leader.as_str())
        .collect();
    let page = Page::parse(&owner.get("/leaderboard").await.text().await.unwrap());
    let who_rated = page.text("#who-rated");
    if differ.is_empty() {
        assert_eq!(
            who_rated,
            format!("Who rated: with any one's stars alone {leader} still leads.")
        );
    } else {
        assert!(who_rated.starts_with("Who rated: the leader depends on who rated: with "));
    }
    // Every page of the study says which judgments it used.
    let key = app.paper_id("T1").await;
    for path in [
        "/leaderboard".to_owned(),
        "/leaderboard/targets".to_owned(),
        format!("/leaderboard/targets/{key}?judgments=upper-median"),
        "/checks".to_owned(),
        "/".to_owned(),
    ] {
        let page = Page::parse(&owner.get(&path).await.text().await.unwrap());
        let expected = if path.contains("upper") {
            "judgments: the median of the raters' stars, the higher of two middle ones"
        } else {
            "judgments: the median of the raters' stars, the lower of two middle ones"
        };
        assert_eq!(page.text(".board-judgments"), expected, "{path}");
    }
    let page = owner.get("/checks").await;
    assert_eq!(page.status(), StatusCode::OK);
    let page = Page::parse(&page.text().await.unwrap());
    assert!(page
        .text("#raters .check-sentence")
        .starts_with("Annika, Boris and Cyrille agree"));
}

/// A rater reaches neither another's stars nor the views that show them.
async fn no_rater_reaches_another_ones_stars(app: &TestApp, browsers: &mut [Browser]) {
    let annika = &mut browsers[0];
    for path in [
        "/checks",
        "/checks.json",
        "/leaderboard/targets",
        "/export/qrels.txt",
        "/leaderboard.json?per_target=1",
        "/leaderboard.csv?per_target=1",
        "/leaderboard?partial=include",
        "/leaderboard.json?judgments=rater:Boris",
    ] {
        let refused = annika.get(path).await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{path}");
    }
    let target = app.paper_id("T1").await;
    let refused = annika.get(&format!("/leaderboard/targets/{target}")).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    // Nor does she change the study for everyone: choosing targets, pruning, importing.
    let token = annika.form_token("/logout").await;
    for (path, fields) in [
        ("/prune", [("prune", "on"), ("csrf_token", token.as_str())]),
        (
            "/targets",
            [("paper", "T1-1"), ("csrf_token", token.as_str())],
        ),
        (
            "/import",
            [("kind", "ratings"), ("csrf_token", token.as_str())],
        ),
        (
            "/import/settings",
            [("pool_depth", "5"), ("csrf_token", token.as_str())],
        ),
    ] {
        let refused = annika.post(path, &fields, Answer::Redirect).await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{path}");
    }
    assert_eq!(annika.get("/import").await.status(), StatusCode::FORBIDDEN);
    assert!(!app.study.study.pruning().state().await.unwrap().on);
    // The comparison itself she may see, by the study's judgments or her own stars, without
    // the others' leaders.
    let own: Value = annika
        .get("/leaderboard.json?judgments=rater:Annika")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(own["settings"]["judgments"], "rater:Annika");
    let board: Value = annika.get("/leaderboard.json").await.json().await.unwrap();
    assert!(board.get("leader_by_rater").is_none());
    let page = annika.get("/leaderboard").await.text().await.unwrap();
    assert!(!page.contains("Boris") && !page.contains("Cyrille"));
    // Dora, who rated nothing, finds every target taken.
    let mut dora = signed_in(app, "Dora").await;
    let next = dora.get("/next").await;
    assert_eq!(location(&next), "/");
    let taken = dora.get(&format!("/targets/{target}")).await;
    assert_eq!(taken.status(), StatusCode::FORBIDDEN);
    let list = Page::parse(&dora.get("/targets").await.text().await.unwrap());
    assert_eq!(list.count("tbody tr"), 0, "no target needs her");
}

/// A rater changes and undoes only their own ratings: a change from another rater's page, or of
/// a target that has its raters, is refused with 403 and changes nothing (an undo there too); an
/// undo reverts the rater's own change, never another's.
async fn no_rater_changes_another_ones_rating(
    app: &TestApp,
    browsers: &mut [Browser],
    ratings: &BTreeMap<(String, String), BTreeMap<String, u8>>,
) {
    let shared = (ratings.iter())
        .find(|(_, by)| by.contains_key("Annika") && by.contains_key("Boris"))
        .map(|((target, paper), _)| (target.clone(), paper.clone()))
        .expect("a pair both rated");
    let (target, paper) = shared;
    let key = app.paper_id(&target).await;
    let path = format!("/targets/{key}/ratings");
    let (_, token, _) = rating_page(&mut browsers[1], &format!("/targets/{key}")).await;
    // Boris posts from a page of Annika's (as a shared browser would after a change of
    // sign-in): refused.
    let fields = [
        ("paper", paper.as_str()),
        ("stars", "1"),
        ("csrf_token", token.as_str()),
        ("rater", "Annika"),
    ];
    let refused = browsers[1].post(&path, &fields, Answer::Json).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert_eq!(stored(app).await, *ratings, "nothing changed");
    // Dora posts to a target that has its raters: refused.
    let mut dora = signed_in(app, "Dora").await;
    let dora_token = dora.form_token("/logout").await;
    let fields = [
        ("paper", paper.as_str()),
        ("stars", "1"),
        ("csrf_token", dora_token.as_str()),
    ];
    let refused = dora.post(&path, &fields, Answer::Json).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let taken: Value = refused.json().await.unwrap();
    assert_eq!(stored(app).await, *ratings, "nothing changed");
    // Her undo there is refused alike (it answered the pool's size before).
    let undo_fields = [("csrf_token", dora_token.as_str())];
    let refused = (dora.post(&format!("/targets/{key}/undo"), &undo_fields, Answer::Json)).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert_eq!(refused.json::<Value>().await.unwrap(), taken);
    // Annika changes her rating of the pair; Boris's undo reverts his own last change there.
    let (_, annika_token, _) = rating_page(&mut browsers[0], &format!("/targets/{key}")).await;
    let (t, i) = pair_of(&paper);
    let changed = if stars("Annika", t, i) == 1 { "2" } else { "1" };
    let fields = [
        ("paper", paper.as_str()),
        ("stars", changed),
        ("csrf_token", annika_token.as_str()),
        ("rater", "Annika"),
    ];
    let saved = browsers[0].post(&path, &fields, Answer::Json).await;
    assert_eq!(saved.status(), StatusCode::OK);
    let undo_fields = [("csrf_token", token.as_str()), ("rater", "Boris")];
    let undone: Value = browsers[1]
        .post(&format!("/targets/{key}/undo"), &undo_fields, Answer::Json)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(undone["undone"], true);
    let after = stored(app).await;
    assert_eq!(
        after[&(target.clone(), paper.clone())]["Annika"].to_string(),
        changed,
        "Annika's change stays"
    );
    // Both changes of a fully rated target were made with its provenance known.
    let status = app.study.study.status().await.unwrap();
    assert_eq!(status.judgments_with_provenance_known, 2);
    let boris_last = undone["paper"].as_str().unwrap().to_owned();
    assert!(
        !after[&(target.clone(), boris_last.clone())].contains_key("Boris"),
        "Boris's own last rating of {target} ({boris_last}) is undone"
    );
}

/// The `Set-Cookie` of the session, if the response sets one.
fn session_cookie(response: &reqwest::Response) -> Option<String> {
    (response
        .headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter())
    .map(|value| value.to_str().unwrap().to_owned())
    .find(|value| value.starts_with("paperjudge_session="))
}

/// Signing in as a rater is throttled as the password is: five wrong tries a minute per
/// client, a wrong name answered as a wrong password, then 429 with `Retry-After` even for the
/// right password; the session cookie is HttpOnly, SameSite=Strict, and Secure behind TLS. A
/// rater removed is signed out at their next request, and cannot sign in again.
#[tokio::test]
async fn signing_in_as_a_rater_is_throttled_and_its_cookie_kept_from_scripts() {
    for behind_tls in [false, true] {
        let access = Access {
            behind_tls,
            ..Access::default()
        };
        let app = TestApp::spawn_with(study_with_three_raters().await, access).await;
        let mut annika = Browser::new(&app);
        let signed = annika.log_in_as("Annika", &password_of("Annika")).await;
        assert_eq!(signed.status(), StatusCode::SEE_OTHER);
        let cookie = session_cookie(&signed).expect("a session cookie");
        assert!(cookie.contains("; HttpOnly"), "{cookie}");
        assert!(cookie.contains("; SameSite=Strict"), "{cookie}");
        assert_eq!(cookie.contains("; Secure"), behind_tls, "{cookie}");
        assert_eq!(annika.get("/targets").await.status(), StatusCode::OK);

        let name = RaterName::new("Annika").unwrap();
        app.study.study.raters().remove(&name).await.unwrap();
        let gone = annika.get("/targets").await;
        assert_eq!(gone.status(), StatusCode::SEE_OTHER);
        assert_eq!(location(&gone), "/login");
        let refused = annika.log_in_as("Annika", &password_of("Annika")).await;
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);

        // That was one failure of this machine's five a minute.
        let mut guesser = Browser::new(&app);
        let login = Page::parse(&guesser.get("/login").await.text().await.unwrap());
        assert_eq!(login.count("form[action='/login'] input[name=rater]"), 1);
        for (name, password) in [
            ("Nobody", "Boris's own password"),
            ("Boris", ""),
            ("", "Boris's own password"),
            ("Cleo", "Boris's own password"),
        ] {
            let wrong = guesser.log_in_as(name, password).await;
            assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED, "{name}");
            assert_eq!(session_cookie(&wrong), None);
        }
        let throttled = guesser.log_in_as("Boris", &password_of("Boris")).await;
        assert_eq!(throttled.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!(throttled
            .headers()
            .contains_key(reqwest::header::RETRY_AFTER));
        assert_eq!(session_cookie(&throttled), None);
    }
}

/// Without raters and without a password nothing is asked, as before; with raters, a visitor
/// on loopback signs in too, and the owner, who has no password here, cannot.
#[tokio::test]
async fn raters_added_while_serving_are_asked_for_from_the_next_request() {
    let study = TestStudy::new().await;
    study.papers(&papers_csv()).await;
    study.recommendations(&recommendations_csv()).await;
    let app = TestApp::spawn(study).await;
    let mut visitor = Browser::new(&app);
    assert_eq!(visitor.get("/targets").await.status(), StatusCode::OK);
    assert_eq!(visitor.get("/login").await.status(), StatusCode::NOT_FOUND);
    let name = RaterName::new("Annika").unwrap();
    app.study
        .study
        .raters()
        .add(&name, &password_of("Annika"))
        .await
        .unwrap();
    let asked = visitor.get("/targets").await;
    assert_eq!(location(&asked), "/login");
    let owner = visitor.log_in_as("", "any password at all").await;
    assert_eq!(owner.status(), StatusCode::UNAUTHORIZED);
    let page = Page::parse(&owner.text().await.unwrap());
    assert!(page
        .all_text()
        .contains("Give your name as a rater, and your password."));
    let signed = visitor.log_in_as("Annika", &password_of("Annika")).await;
    assert_eq!(location(&signed), "/");
    let dashboard = Page::parse(&visitor.get("/").await.text().await.unwrap());
    assert!(dashboard
        .text(".signed-in")
        .starts_with("Signed in as Annika"));
}

/// The pages `browser` reaches from `/` by following links (GET, at most `limit`), with the
/// status of each; log-out links are left alone.
async fn crawl(browser: &mut Browser, limit: usize) -> BTreeMap<String, (StatusCode, String)> {
    let mut reached = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from(["/".to_owned()]);
    while let Some(path) = queue.pop_front() {
        if reached.contains_key(&path) || reached.len() == limit {
            continue;
        }
        let answer = browser.get(&path).await;
        let status = answer.status();
        let html = answer.text().await.unwrap();
        for link in Page::parse(&html).attrs("a[href^='/']", "href") {
            let link = link.split('#').next().unwrap_or_default().to_owned();
            if !link.is_empty() && link != "/logout" && !reached.contains_key(&link) {
                queue.push_back(link);
            }
        }
        reached.insert(path, (status, html));
    }
    reached
}

/// A rater is offered no link they may not follow: the owner's pages (the study checks, the
/// import, the views of every rater's stars) are in neither their navigation nor their pages'
/// text, while the owner's pages link to them.
#[tokio::test]
async fn a_rater_is_offered_no_link_to_the_owners_pages() {
    let app = served(study_with_three_raters().await).await;
    let mut browsers = every_rater_signed_in(&app).await;
    // Halfway, and at the end: finished targets bring the suggestion to re-check.
    for round in 0..2 {
        if round == 1 {
            rate_in_turn(&app, &mut browsers).await;
        }
        for (rater, browser) in RATERS.iter().zip(browsers.iter_mut()) {
            let reached = crawl(browser, 300).await;
            let refused: Vec<&String> = (reached.iter())
                .filter(|(_, (status, _))| {
                    *status == StatusCode::FORBIDDEN || status.is_server_error()
                })
                .map(|(path, _)| path)
                .collect();
            assert!(refused.is_empty(), "{rater} is offered {refused:?}");
            assert!(reached.len() > 5, "{rater} reached {:?}", reached.keys());
            assert_eq!(
                Page::parse(&reached["/"].1).attrs("nav a", "href"),
                [
                    "/",
                    "/targets",
                    "/papers",
                    "/next",
                    "/guidelines",
                    "/leaderboard",
                    "/lists"
                ]
            );
            // Nor is choosing targets, the owner's, offered in words.
            let papers = Page::parse(&reached["/papers"].1).text(".study-choice");
            assert!(!papers.contains("Choosing"), "{papers}");
        }
    }
    let mut owner = Browser::new(&app);
    let signed = owner.log_in(OWNER_PASSWORD).await;
    assert_eq!(signed.status(), StatusCode::SEE_OTHER);
    let reached = crawl(&mut owner, 300).await;
    for page in [
        "/checks",
        "/judges",
        "/raters",
        "/import",
        "/leaderboard/targets",
    ] {
        assert_eq!(
            reached[page].0,
            StatusCode::OK,
            "the owner is offered {page}"
        );
    }
    let (_, home) = &reached["/"];
    assert_eq!(
        Page::parse(home).attrs("nav a", "href"),
        [
            "/",
            "/targets",
            "/papers",
            "/next",
            "/guidelines",
            "/leaderboard",
            "/lists",
            "/checks",
            "/judges",
            "/raters",
            "/import"
        ]
    );
}

/// The cells of each row of the raters' table, as the page writes them.
fn raters_rows(html: &str) -> Vec<Vec<String>> {
    let page = Page::parse(html);
    let cells = selector("th, td");
    (page.select("table.raters tbody tr").into_iter())
        .map(|row| row.select(&cells).map(text).collect())
        .collect()
}

#[tokio::test]
async fn the_owner_sees_each_raters_progress_and_a_rater_is_refused_the_page() {
    let app = served(study_with_three_raters().await).await;
    // Annika takes a target and rates 3 of its 8 papers; Dora is removed.
    let mut annika = signed_in(&app, "Annika").await;
    let path = location(&annika.get("/next").await);
    let (papers, token, _) = rating_page(&mut annika, &path).await;
    for (paper, _) in &papers[..3] {
        let fields = [
            ("paper", paper.as_str()),
            ("stars", "4"),
            ("csrf_token", token.as_str()),
        ];
        let saved = annika
            .post(&format!("{path}/ratings"), &fields, Answer::Json)
            .await;
        assert_eq!(saved.status(), StatusCode::OK, "Annika rates {paper}");
    }
    let dora = RaterName::new("Dora").unwrap();
    app.study
        .study
        .raters()
        .remove(&dora)
        .await
        .expect("removed");

    assert_eq!(annika.get("/raters").await.status(), StatusCode::FORBIDDEN);
    let mut owner = Browser::new(&app);
    assert_eq!(
        owner.log_in(OWNER_PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let answer = owner.get("/raters").await;
    assert_eq!(answer.status(), StatusCode::OK);
    let html = answer.text().await.unwrap();
    assert_eq!(
        Page::parse(&html).text(".plan"),
        "Each target rated by 2 raters, and 50% of them by one more."
    );
    let row = |cells: [&str; 5]| cells.map(str::to_owned).to_vec();
    assert_eq!(
        raters_rows(&html),
        [
            row(["Annika", "3", "0", "1", "yes"]),
            row(["Boris", "0", "0", "0", "yes"]),
            row(["Cyrille", "0", "0", "0", "yes"]),
            row(["Dora", "0", "0", "0", "no, removed (their ratings stay)"]),
        ]
    );
}

#[tokio::test]
async fn without_raters_the_raters_page_says_the_owner_rates_alone() {
    let app = TestApp::with_fixture().await;
    let html = app.get_text("/raters").await;
    let page = Page::parse(&html);
    assert_eq!(page.text(".plan"), "Each target rated by 1 rater.");
    assert_eq!(page.count("table.raters"), 0);
    assert!(page
        .text(".no-raters")
        .starts_with("No raters: you rate alone."));
}
