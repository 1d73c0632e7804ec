//! A judge run started from the browser (`/judges`, `POST /judges/run`, its page and JSON), and
//! a judge's grades uploaded on the import page.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

use crate::judge_support::{stars_of_title, Reply, StandIn};
use crate::web_support::{location, Answer, Page, TestApp};

async fn run_json(app: &TestApp, path: &str) -> Value {
    let answer = app.get(&format!("{path}.json")).await;
    assert_eq!(answer.status(), StatusCode::OK);
    answer.json().await.unwrap()
}

/// Polls a run's JSON until it has ended (a minute at most, which only turns a hang into a
/// failure).
pub async fn ended(app: &TestApp, path: &str) -> Value {
    for _ in 0..600 {
        let run = run_json(app, path).await;
        if run["state"] != "running" {
            return run;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the run at {path} did not end within a minute");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_started_from_the_browser_is_followed_on_its_page_and_one_runs_at_a_time() {
    let app = TestApp::with_fixture().await;
    // The first pair takes 2 s, so that the run is seen running.
    let stand_in = StandIn::start(|request, number| {
        let grade = Reply::stars(stars_of_title(request.candidate_title()));
        match number {
            0 => Reply::Stall(Duration::from_secs(2), Box::new(grade)),
            _ => grade,
        }
    });
    let page = app.get_text("/judges").await;
    let form = Page::parse(&page);
    assert!(!form.text("#no-judges").is_empty());
    // The textarea's text as a browser sends it back: line breaks as CR LF.
    let prompt: String = form
        .one("#judge-prompt")
        .text()
        .collect::<String>()
        .replace('\n', "\r\n");
    assert!(
        prompt.contains("{target_title}") && prompt.contains("{\"stars\": N}"),
        "{prompt}"
    );
    let session = app.session_from("/judges").await;
    let fields = [
        ("csrf_token", session.token.as_str()),
        ("endpoint", stand_in.url.as_str()),
        ("model", "stand-in-judge"),
        ("name", "browser judge"),
        ("concurrency", "2"),
        ("prompt", prompt.as_str()),
    ];
    let started = app
        .post("/judges/run", Some(&session), &fields, Answer::Redirect)
        .await;
    assert_eq!(started.status(), StatusCode::SEE_OTHER);
    let run = location(&started);
    assert!(run.starts_with("/judges/runs/"), "{run}");
    let running = run_json(&app, &run).await;
    assert_eq!(running["state"], "running");
    assert_eq!(running["pairs_total"], 11);
    // A second run meanwhile is refused with 409, and the page says where the first is.
    let second = app
        .post("/judges/run", Some(&session), &fields, Answer::Redirect)
        .await;
    assert_eq!(second.status(), StatusCode::CONFLICT);
    let judges = Page::parse(&app.get_text("/judges").await);
    assert_eq!(judges.attr("#judge-running a", "href"), run);
    let page = Page::parse(&app.get_text(&run).await);
    assert!(page.text("#judge-run-progress").ends_with("pairs done."));
    // Ratings go on meanwhile.
    let t1 = app.paper_id("T1").await;
    let rater = app.session(t1).await;
    let rated = app.rate(&rater, t1, "P1", "4", Answer::Json).await;
    assert_eq!(rated.status(), StatusCode::OK);
    let done = ended(&app, &run).await;
    assert_eq!(done["state"], "done");
    assert_eq!(done["pairs_done"], 11);
    assert_eq!(done["failed"], 0);
    let summary = done["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("judge browser judge: 11 of 11 pairs graded and stored in "),
        "{summary}"
    );
    let page = Page::parse(&app.get_text(&run).await);
    assert!(page
        .text("#judge-run-result")
        .starts_with("judge browser judge: 11 of 11"));
    assert_eq!(app.study.count("judge_grades").await, 11);
    // The default prompt, sent back by the form, is the default prompt: a second run from
    // the command line under the same name takes it.
    let sha: String = sqlx::query_scalar("SELECT prompt_sha256 FROM judges")
        .fetch_one(&app.study.connections)
        .await
        .unwrap();
    assert_eq!(
        sha,
        paperjudge::study::judges::prompt::Prompt::default_prompt().sha256()
    );
    let unknown = app
        .get("/judges/runs/0123456789abcdef0123456789abcdef")
        .await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_run_form_without_an_endpoint_or_with_a_bad_prompt_is_refused_naming_it() {
    let app = TestApp::with_fixture().await;
    let session = app.session_from("/judges").await;
    let answer = |fields: &'static [(&'static str, &'static str)]| {
        let (app, session) = (&app, &session);
        async move {
            let mut with_token = vec![("csrf_token", session.token.as_str())];
            with_token.extend_from_slice(fields);
            let answer = app
                .post("/judges/run", Some(session), &with_token, Answer::Json)
                .await;
            let status = answer.status();
            let body: Value = answer.json().await.unwrap();
            (
                status,
                body["error"].as_str().unwrap_or_default().to_owned(),
            )
        }
    };
    assert_eq!(
        answer(&[("model", "m")]).await,
        (
            StatusCode::BAD_REQUEST,
            "the form needs the field `endpoint`".to_owned()
        )
    );
    assert_eq!(
        answer(&[
            ("endpoint", "http://127.0.0.1:1/v1"),
            ("model", "m"),
            ("prompt", "Grade {candidate_title}")
        ])
        .await,
        (
            StatusCode::BAD_REQUEST,
            "the prompt lacks {target_title}: a judge must read which papers it grades \
             (placeholders: {target_title}, {target_abstract}, {candidate_title}, \
             {candidate_abstract}, {guidelines})"
                .to_owned()
        )
    );
    assert_eq!(
        answer(&[
            ("endpoint", "http://127.0.0.1:1/v1"),
            ("model", "m"),
            ("concurrency", "0")
        ])
        .await,
        (
            StatusCode::BAD_REQUEST,
            "concurrency must be a whole number from 1 to 64; got \"0\"".to_owned()
        )
    );
    // Without the token, refused before anything else.
    let forged = app
        .http
        .post(app.url("/judges/run"))
        .form(&[("endpoint", "http://127.0.0.1:1/v1"), ("model", "m")])
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    assert_eq!(app.study.count("judges").await, 0);
}

#[tokio::test]
async fn a_judges_grades_are_uploaded_on_the_import_page_with_the_judges_name() {
    let app = TestApp::with_fixture().await;
    let session = app.session_from("/import").await;
    let upload = |judge: Option<&'static str>| {
        let (app, session) = (&app, &session);
        async move {
            let mut form = reqwest::multipart::Form::new()
                .text("csrf_token", session.token.clone())
                .text("kind", "judgments");
            if let Some(judge) = judge {
                form = form.text("judge", judge);
            }
            let file =
                reqwest::multipart::Part::bytes(b"target,paper,stars\nT1,P1,5\nT1,P2,4\n".to_vec())
                    .file_name("grades.csv");
            app.http
                .post(app.url("/import"))
                .header(reqwest::header::COOKIE, &session.cookie)
                .multipart(form.part("file", file))
                .send()
                .await
                .unwrap()
        }
    };
    let missing = upload(None).await;
    assert_eq!(missing.status(), StatusCode::BAD_REQUEST);
    assert!(missing
        .text()
        .await
        .unwrap()
        .contains("judgments need the judge whose grades they are"));
    let done = upload(Some("embeddings")).await;
    assert_eq!(done.status(), StatusCode::SEE_OTHER);
    let job = Page::parse(&app.get_text(&location(&done)).await);
    assert_eq!(
        job.text("#import-result"),
        "Imported: read 2 rows; judgments: 2 added, 0 updated, 0 unchanged; 0 rows dropped."
    );
    assert_eq!(app.study.count("judge_grades").await, 2);
    assert_eq!(app.study.count("ratings").await, 0);
}

/// "Try" on `/judges` starts a trial; the trials' table lists it with its disagreements, and
/// its form makes a judge of it that keeps its grades; a bad threshold is refused naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trial_is_tried_listed_read_and_made_a_judge_from_the_browser() {
    let app = crate::judges_trials::rated_app().await;
    let stand_in = StandIn::grading();
    let session = app.session_from("/judges").await;
    let judges = Page::parse(&app.get_text("/judges").await);
    assert_eq!(
        judges.text("#no-trials"),
        "No trial yet: “Try” below starts one."
    );
    assert_eq!(judges.attr("#judge-try", "value"), "trial");
    let tried = app
        .post(
            "/judges/run",
            Some(&session),
            &[
                ("csrf_token", session.token.as_str()),
                ("endpoint", stand_in.url.as_str()),
                ("model", "stand-in-judge"),
                ("purpose", "trial"),
                ("tuning_targets", "2"),
            ],
            Answer::Redirect,
        )
        .await;
    assert_eq!(tried.status(), StatusCode::SEE_OTHER);
    let run = ended(&app, &location(&tried)).await;
    assert_eq!(
        (run["state"].as_str(), run["pairs_total"].as_u64()),
        (Some("done"), Some(11))
    );
    assert_eq!(app.study.count("judges").await, 0);

    let judges = Page::parse(&app.get_text("/judges").await);
    assert_eq!(judges.count("tr.trial"), 1);
    assert_eq!(judges.text("#trial-1 .alpha"), "0.48");
    assert_eq!(judges.text("#trial-1 .kappa"), "0.44");
    let link = judges.attr("#trial-1 th a", "href");
    assert_eq!(link, "/judges/trials/1/disagreements");
    let disagreements = Page::parse(&app.get_text(&link).await);
    assert_eq!(
        disagreements.text("h1"),
        "Where trial 1 and the raters differ"
    );
    assert_eq!(disagreements.count("li.disagreement"), 6);
    assert_eq!(
        app.get("/judges/trials/9/disagreements").await.status(),
        StatusCode::NOT_FOUND
    );

    let made = app
        .post(
            "/judges/trials/1/judge",
            Some(&session),
            &[
                ("csrf_token", session.token.as_str()),
                ("name", "from the trial"),
            ],
            Answer::Redirect,
        )
        .await;
    assert_eq!(made.status(), StatusCode::SEE_OTHER);
    let run = ended(&app, &location(&made)).await;
    assert_eq!(run["state"], "done", "{run}");
    // Every pair was the trial's: none asked again.
    assert_eq!(stand_in.requests(), 11);
    assert_eq!(app.study.count("judge_grades").await, 11);

    let refused = app
        .post(
            "/judges/run",
            Some(&session),
            &[
                ("csrf_token", session.token.as_str()),
                ("endpoint", stand_in.url.as_str()),
                ("model", "stand-in-judge"),
                ("stop_below_alpha", "2"),
            ],
            Answer::Redirect,
        )
        .await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    let page = Page::parse(&refused.text().await.unwrap());
    assert_eq!(
        page.text(".error-message"),
        "stop_below_alpha must be a number from -1 to 1; got \"2\""
    );
}
