//! What a researcher's first study from the browser tripped on (issue 40): a TREC run without
//! a run tag, a problem repeated on every line.

use std::path::Path;

use reqwest::header::{ACCEPT, COOKIE};
use reqwest::multipart::{Form, Part};
use serde_json::{json, Value};

use crate::common::TestStudy;
use crate::import_recommendations::lists;
use crate::process_support::{paperjudge, stderr, succeeded};
use crate::web_support::{Page, TestApp};

/// A TREC run of `lines` lines without the run tag (5 fields): targets P1 and P2, 3 papers
/// each, then as many more lines of P3 as asked.
fn tagless_run(lines: usize) -> String {
    (0..lines)
        .map(|line| {
            let target = 1 + line / 3;
            let rank = 1 + line % 3;
            format!("P{target} Q0 P{} {rank} {}\n", 10 + line, 1000 - line)
        })
        .collect()
}

/// A study of the papers P1..P`papers`, and a TREC run of its papers written beside it (the
/// lines given) for the command line to import.
async fn study_and_run(papers: usize, run: &str) -> (TestStudy, String) {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(papers)).await;
    let path = study.dir.path().join("bm25.run");
    std::fs::write(&path, run).unwrap();
    (study, path.display().to_string())
}

#[tokio::test]
async fn a_run_without_a_run_tag_imports_under_the_model_named() {
    let (study, run) = study_and_run(30, &tagless_run(6)).await;
    let (db, run) = (study.db_path(), run.as_str());

    let refused = paperjudge(&db, &["import", "recommendations", run], &[]);
    assert_eq!(refused.status.code(), Some(2));
    // One problem, once, with the lines it is on.
    assert_eq!(
        stderr(&refused).trim_end(),
        format!(
            "paperjudge: {run}:1: `model`: no run tag (a 6th field) names the model: give its name \
             with --model NAME or the import page's Model name (on 6 lines: 1, 2, 3, 4, 5, 6)"
        )
    );
    assert_eq!(lists(&study).await, Vec::<String>::new());

    let imported = paperjudge(
        &db,
        &["import", "recommendations", run, "--model", "BM25 tuned"],
        &[],
    );
    assert_eq!(
        succeeded(&imported),
        "",
        "the summary goes to stderr: {}",
        stderr(&imported)
    );
    assert_eq!(
        lists(&study).await,
        ["BM25 tuned P1: P10 P11 P12", "BM25 tuned P2: P13 P14 P15"]
    );
}

#[tokio::test]
async fn identical_problems_are_one_line_with_their_count_and_first_lines() {
    // 120 tagless lines, and two problems of their own on lines 3 and 7.
    let mut lines: Vec<String> = tagless_run(120).lines().map(str::to_owned).collect();
    lines[2] = "P1 Q0 P12 3 high".to_owned();
    lines[6] = "P3 Q0 P16 1 994 extra field".to_owned();
    let (study, run) = study_and_run(200, &(lines.join("\n") + "\n")).await;
    let (db, run) = (study.db_path(), run.as_str());

    let refused = paperjudge(&db, &["import", "recommendations", run], &[]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr(&refused).trim_end(),
        format!(
            "paperjudge: {run}:1: `model`: no run tag (a 6th field) names the model: give its name \
             with --model NAME or the import page's Model name (on 118 lines: 1, 2, 4, 5, 6, 8, 9, 10, 11, 12, …)\n\
             paperjudge: {run}:3: `score`: expected a finite number, got \"high\"\n\
             paperjudge: {run}:7: expected 6 fields `target Q0 paper rank score model` (5 without the run \
             tag), found 7"
        )
    );
}

/// The upload form's model field names the model of a tagless run; without it the job's one
/// problem is listed once, with its count and its first lines.
#[tokio::test]
async fn a_tagless_run_uploaded_with_a_model_name_is_imported_under_it() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    app.study.papers(&crate::common::papers_csv(30)).await;
    let session = app.session_from("/import").await;
    let run = tagless_run(6);
    let upload = |model: &'static str| {
        let form = Form::new()
            .text("csrf_token", session.token.clone())
            .text("kind", "recommendations")
            .text("format", "")
            .text("model", model)
            .part(
                "file",
                Part::bytes(run.clone().into_bytes()).file_name("bm25.txt"),
            );
        (app.http.post(app.url("/import")))
            .header(COOKIE, &session.cookie)
            .header(ACCEPT, "application/json")
            .multipart(form)
            .send()
    };
    let job = ended(&app, upload("").await.unwrap()).await;
    assert_eq!(job["state"], "failed", "{job}");
    assert_eq!(
        job["problems"],
        json!([{"file": "bm25.txt", "line": 1, "column": "model",
                "message": "no run tag (a 6th field) names the model: give its name \
                            with --model NAME or the import page's Model name",
                "count": 6, "lines": [1, 2, 3, 4, 5, 6]}])
    );
    let page = Page::parse(
        &app.get_text(&format!("/import/{}", job["job"].as_str().unwrap()))
            .await,
    );
    assert_eq!(
        page.texts("#import-problems li"),
        [
            "bm25.txt, 6 lines (1, 2, 3, 4, 5, 6), column model: no run tag (a 6th field) names \
          the model: give its name with --model NAME or the import page's Model name"
        ]
    );

    let job = ended(&app, upload("BM25 tuned").await.unwrap()).await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(
        lists(&app.study).await,
        ["BM25 tuned P1: P10 P11 P12", "BM25 tuned P2: P13 P14 P15"]
    );
}

/// The job an upload answered, once it has ended, as its JSON says.
async fn ended(app: &TestApp, answer: reqwest::Response) -> Value {
    let answer: Value = answer.json().await.expect("JSON");
    let url = app.url(&format!("{}.json", answer["url"].as_str().expect("a job")));
    for _ in 0..3000 {
        let job: Value = app
            .http
            .get(&url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if job["state"] == "done" || job["state"] == "failed" {
            return job;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("the job never ended");
}

/// P1..P30, with recommendations for P1..P6 only: model `m` lists P(t+10) and P(t+11) for
/// each.
async fn library_with_six_candidates() -> TestStudy {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(30)).await;
    let mut lists = String::from("model,target,rank,paper\n");
    for target in 1..=6 {
        lists.push_str(&format!("m,P{target},1,P{}\n", target + 10));
        lists.push_str(&format!("m,P{target},2,P{}\n", target + 11));
    }
    study.recommendations(&lists).await;
    study
}

/// The ids of the papers a page of `/papers` lists, in its order.
fn listed(page: &Page) -> Vec<String> {
    page.attrs(".hit", "data-paper")
}

#[tokio::test]
async fn the_library_is_filtered_to_the_papers_with_recommendations() {
    let app = TestApp::spawn(library_with_six_candidates().await).await;
    // Every paper's abstract says "paper": 30 found, most without recommendations.
    let all = Page::parse(&app.get_text("/papers?q=paper").await);
    assert_eq!(
        all.text("#results-heading"),
        "30 papers found, 1 to 20 shown"
    );
    assert_eq!(
        all.attr("#papers-filter", "href"),
        "/papers?q=paper&with=recommendations"
    );
    assert_eq!(all.count("input[name=with][checked]"), 0);

    let filtered = Page::parse(&app.get_text("/papers?q=paper&with=recommendations").await);
    assert_eq!(
        filtered.text("#results-heading"),
        "6 papers with recommendations found"
    );
    let mut found = listed(&filtered);
    found.sort();
    assert_eq!(found, ["P1", "P2", "P3", "P4", "P5", "P6"]);
    assert_eq!(filtered.count("input[name=with][checked]"), 1);
    assert_eq!(
        filtered.count(".hit .hit-status.is-target"),
        6,
        "each is a target while the study rates every paper with recommendations"
    );

    // Without a word to search for, the filter lists every paper with recommendations.
    let every = Page::parse(&app.get_text("/papers?with=recommendations").await);
    assert_eq!(every.text("title"), "Papers · paperjudge");
    assert_eq!(
        every.text("#results-heading"),
        "6 papers with recommendations"
    );
    assert_eq!(listed(&every), ["P1", "P2", "P3", "P4", "P5", "P6"]);
    let none = Page::parse(&app.get_text("/papers?q=P2&with=recommendations").await);
    assert_eq!(listed(&none), ["P2"]);

    let bad = app.get("/papers?with=everything").await;
    assert_eq!(bad.status(), 400);
    assert_eq!(
        crate::web_support::error_message(&bad.text().await.unwrap()),
        "with must be recommendations (papers with recommendations only), got \"everything\""
    );
}

/// Posts the random choice of three targets with `seed`, as the library page's form does.
async fn choose_three_at_random(
    browser: &mut crate::web_support::Browser,
    seed: &str,
    token: &str,
) -> reqwest::Response {
    let fields = [
        ("action", "sample"),
        ("count", "3"),
        ("seed", seed),
        ("csrf_token", token),
    ];
    (browser.post("/targets", &fields, crate::web_support::Answer::Redirect)).await
}

/// `targets choose --sample 3 --seed 42` and the page's random choice with seed 42 choose the
/// same targets of two copies of one study.
#[tokio::test]
async fn a_random_choice_from_the_browser_is_the_command_lines_with_the_same_seed() {
    let study = library_with_six_candidates().await;
    let command_line = study.copy().await;
    let app = TestApp::spawn(study).await;

    let mut owner = crate::web_support::Browser::new(&app);
    let page = Page::parse(&owner.get("/papers").await.text().await.unwrap());
    assert_eq!(page.text("#random-heading"), "Choose targets at random");
    assert_eq!(
        page.attr("#choose-at-random input[name=action]", "value"),
        "sample"
    );
    assert_eq!(
        page.attr("#random-count", "max"),
        "6",
        "the study rates all 6 papers with recommendations: the sample is drawn among them"
    );
    assert_eq!(
        page.count("#random-seed[value]"),
        0,
        "no seed unless one is given"
    );
    let token = page.attr("#choose-at-random input[name=csrf_token]", "value");

    let without_token = [("action", "sample"), ("count", "3"), ("seed", "42")];
    let refused = owner
        .post(
            "/targets",
            &without_token,
            crate::web_support::Answer::Redirect,
        )
        .await;
    assert_eq!(refused.status(), 403, "no token");
    let bad_seed = choose_three_at_random(&mut owner, "-1", &token).await;
    assert_eq!(bad_seed.status(), 400);
    assert_eq!(
        crate::web_support::error_message(&bad_seed.text().await.unwrap()),
        "seed must be a whole number from 0 to 18446744073709551615, got \"-1\""
    );
    let chosen = choose_three_at_random(&mut owner, "42", &token).await;
    assert_eq!(chosen.status(), 303);
    assert_eq!(
        crate::web_support::location(&chosen),
        "/targets?sampled=3&seed=42"
    );
    let targets = Page::parse(
        &owner
            .get("/targets?sampled=3&seed=42")
            .await
            .text()
            .await
            .unwrap(),
    );
    assert_eq!(
        targets.text("#sampled"),
        "3 targets chosen at random with seed 42: paperjudge targets choose --sample 3 --seed \
         42 chooses the same from the same study."
    );

    succeeded(&paperjudge(
        &command_line.db_path(),
        &["targets", "choose", "--sample", "3", "--seed", "42"],
        &[],
    ));
    let list = |db: &Path| {
        let listed: Value = serde_json::from_str(&succeeded(&paperjudge(
            db,
            &["targets", "list", "--format", "json"],
            &[],
        )))
        .unwrap();
        let mut ids: Vec<String> = (listed.as_array().unwrap().iter())
            .map(|target| target["target"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    let from_the_browser = list(&app.study.db_path());
    assert_eq!(from_the_browser.len(), 3);
    assert_eq!(from_the_browser, list(&command_line.db_path()));

    // Without a seed, one is drawn, and the targets page says it.
    let drawn = choose_three_at_random(&mut owner, "", &token).await;
    assert_eq!(drawn.status(), 303);
    let drawn = crate::web_support::location(&drawn);
    let seed: u64 = (drawn.strip_prefix("/targets?sampled=3&seed="))
        .unwrap_or_else(|| panic!("{drawn}"))
        .parse()
        .unwrap();
    assert!(seed < 1_000_000, "{seed}");
}

/// Choosing at random changes the study for everyone: a rater is offered no such form, and
/// their post is refused.
#[tokio::test]
async fn a_rater_cannot_choose_targets_at_random() {
    let study = library_with_six_candidates().await;
    let name = paperjudge::domain::RaterName::new("Annika").unwrap();
    study
        .study
        .raters()
        .add(&name, "Annika's own password")
        .await
        .unwrap();
    let access = paperjudge::web::Access {
        password: paperjudge::web::Password::new("the owner's password").ok(),
        ..paperjudge::web::Access::default()
    };
    let app = TestApp::spawn_with(study, access).await;
    let mut rater = crate::web_support::Browser::new(&app);
    rater.log_in_as("Annika", "Annika's own password").await;
    let page = rater.get("/papers").await.text().await.unwrap();
    assert_eq!(Page::parse(&page).count("#choose-at-random"), 0);
    // A token of the rater's own, from the rating page `/next` leads to.
    let next = crate::web_support::location(&rater.get("/next").await);
    let token = rater.form_token(&next).await;
    let refused = choose_three_at_random(&mut rater, "42", &token).await;
    assert_eq!(refused.status(), 403);
    assert_eq!(
        app.study.count("targets WHERE active = 1").await,
        6,
        "nothing chosen"
    );
}

pub(crate) const NEWCOMER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/newcomer");

pub(crate) fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{NEWCOMER}/{name}")).unwrap()
}

/// The newcomer's study (tests/fixtures/newcomer): papers, three TREC runs, five targets,
/// three of them fully rated and two in part.
async fn newcomers_study() -> TestStudy {
    let study = TestStudy::new().await;
    study.papers(&fixture("papers.csv")).await;
    for model in ["alpha", "bravo", "charlie"] {
        study
            .import(
                &crate::common::recommendations(paperjudge::formats::Format::Trec),
                fixture(&format!("runs/{model}.run")).as_bytes(),
                1,
            )
            .await
            .unwrap();
    }
    study.ratings(&fixture("ratings.csv")).await;
    study
}

/// The leaderboard's qrels download, as its page links it, is the qrels of its fully rated
/// targets, and trec_eval on them (`-c -m ndcg_cut.8`, as the page says) gives the page's
/// NDCG@8 of every model (reference.json: pytrec_eval, trec_eval's code). On every rated pair,
/// partly rated targets too, trec_eval names another leader, and the page says so.
#[tokio::test]
async fn the_qrels_of_the_fully_rated_targets_give_the_leaderboard_through_trec_eval() {
    let app = TestApp::spawn(newcomers_study().await).await;
    let page = Page::parse(&app.get_text("/leaderboard").await);
    let finished = page.attr("#qrels-table", "href");
    assert_eq!(
        finished,
        "/export/qrels.txt?relevance=stars-minus-one&targets=finished"
    );
    assert_eq!(
        page.text("#qrels-of-the-table"),
        "TREC qrels of this table’s targets: the 3 fully rated targets (relevance = the \
         setting above)"
    );
    assert_eq!(
        page.text("#trec-eval"),
        "trec_eval -c -m ndcg_cut.8 qrels.txt RUN, on this table’s qrels and a model’s run as \
         you imported it, gives this table’s NDCG@8 of that model (docs/metrics.md, “Agreement \
         with trec_eval”)."
    );
    assert_eq!(app.get_text(&finished).await, fixture("qrels-finished.txt"));
    let every_pair = page.attr("#qrels-every-pair", "href");
    assert_eq!(app.get_text(&every_pair).await, fixture("qrels-all.txt"));

    let reference: Value = serde_json::from_str(&fixture("reference.json")).unwrap();
    let board: Value = serde_json::from_str(&app.get_text("/leaderboard.json").await).unwrap();
    let models = board["models"].as_array().unwrap();
    assert_eq!(models.len(), 3);
    for model in models {
        let name = model["model"].as_str().unwrap();
        let ours = model["ndcg"].as_f64().unwrap();
        let trec_eval = reference["qrels-finished.txt"]["ndcg_cut_8"][name]
            .as_f64()
            .unwrap();
        assert!(
            (ours - trec_eval).abs() < 1e-9,
            "{name}: {ours} vs {trec_eval}"
        );
    }
    assert_eq!(
        models[0]["model"],
        reference["qrels-finished.txt"]["leader"]
    );
    assert_eq!(models[0]["model"], "alpha");
    assert_eq!(reference["qrels-all.txt"]["leader"], "bravo");

    // The command line writes the same files.
    let db = app.study.db_path();
    let exported = |targets: &str| {
        succeeded(&paperjudge(
            &db,
            &["export", "qrels", "--targets", targets],
            &[],
        ))
    };
    assert_eq!(exported("finished"), fixture("qrels-finished.txt"));
    assert_eq!(exported("all"), fixture("qrels-all.txt"));
}

/// Under settings trec_eval has no counterpart for, the page names the settings under which
/// the command gives its numbers.
#[tokio::test]
async fn the_page_names_the_settings_under_which_trec_eval_agrees() {
    let app = TestApp::spawn(newcomers_study().await).await;
    let page = Page::parse(
        &app.get_text("/leaderboard?k=5&gain=exponential&unjudged=skip")
            .await,
    );
    assert_eq!(
        page.text("#trec-eval"),
        "trec_eval -c -J -m ndcg_cut.5 qrels.txt RUN, on this table’s qrels and a model’s run \
         as you imported it, gives this table’s NDCG@5 of that model under gain = linear \
         (trec_eval's gains are linear) (docs/metrics.md, “Agreement with trec_eval”)."
    );
    let partial = Page::parse(&app.get_text("/leaderboard?partial=include").await);
    assert_eq!(
        partial.attr("#qrels-table", "href"),
        "/export/qrels.txt?relevance=stars-minus-one"
    );
    assert_eq!(partial.count("#qrels-every-pair"), 0);
    let refused = app.get("/export/qrels.txt?targets=some").await;
    assert_eq!(refused.status(), 400);
}

/// The numbered steps of the import page, as the README (or the guide under docs/ that holds
/// them) numbers them: each `N. **Title**` of the list that follows the words "leads to
/// `/import`" is the page's heading `N. Title`.
#[tokio::test]
async fn the_docs_number_the_import_steps_as_the_page_does() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    let page = Page::parse(&app.get_text("/import").await);
    let numbered: Vec<String> = (page.texts(".import-section h2").into_iter())
        .filter(|heading| heading.starts_with(|c: char| c.is_ascii_digit()))
        .map(|heading| heading.replace(" (optional)", ""))
        .collect();
    assert_eq!(numbered, ["1. Papers", "2. Recommendations", "3. Ratings"]);

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut documents = vec![root.join("README.md")];
    if let Ok(entries) = std::fs::read_dir(root.join("docs")) {
        documents.extend(entries.map(|entry| entry.unwrap().path()));
    }
    let mut found = Vec::new();
    for document in documents
        .iter()
        .filter(|path| path.extension() == Some("md".as_ref()))
    {
        let text = std::fs::read_to_string(document).unwrap();
        let Some(start) = text.find("leads to `/import`") else {
            continue;
        };
        let steps: Vec<String> = (text[start..].lines())
            .skip_while(|line| !line.starts_with("1. "))
            .take_while(|line| !line.is_empty())
            .filter_map(|line| {
                let (number, rest) = line.split_once(". **")?;
                let (title, _) = rest.split_once("**")?;
                Some(format!("{number}. {}", title.trim_end_matches(':')))
            })
            .collect();
        found.push((document.display().to_string(), steps));
    }
    assert!(!found.is_empty(), "no document describes the import page");
    for (document, steps) in found {
        assert_eq!(steps, numbered, "{document}");
    }
}
