//! A judge run against a stand-in endpoint: what the model is sent (both papers' texts, nothing
//! of the models), what is stored, and how a run copes with what endpoints do (malformed
//! replies, 429, 500, a stalled reply, a refused key, an unknown model, no server at all).

use std::time::Duration;

use paperjudge::domain::{JudgeModel, JudgeName};
use paperjudge::study::judges::endpoint::EndpointUrl;
use paperjudge::study::judges::{EndpointRequest, Grading, Purpose, RunReport, RunRequest};
use paperjudge::study::{Refusal, StudyError};

use crate::common::TestStudy;
use crate::judge_support::{stars_of_title, Reply, StandIn};
use crate::web_support::{fixture_study, HOSTILE_TITLE, MODELS, SCORES};

/// The fixture's hostile title as a prompt holds it: no tag of it opens or closes.
const NEUTRALISED_HOSTILE_TITLE: &str = "‹script>alert(\"title\")‹/script> & co";

/// The fixture's pooled pairs: T1's 7 and T2's 4.
const POOLED_PAIRS: u64 = 11;

pub fn request(stand_in: &StandIn) -> RunRequest {
    request_to(&stand_in.url)
}

/// What `request` asks of its endpoint.
pub fn endpoint_of(request: &mut RunRequest) -> &mut EndpointRequest {
    match &mut request.grading {
        Grading::Endpoint(endpoint) => endpoint,
        Grading::Command(_) => panic!("a judge behind an endpoint"),
    }
}

pub fn endpoint(url: &str) -> EndpointUrl {
    EndpointUrl::parse(url).expect("an endpoint")
}

pub fn model(name: &str) -> JudgeModel {
    JudgeModel::new(name).expect("a model")
}

async fn run(study: &TestStudy, request: RunRequest) -> RunReport {
    study
        .study
        .evaluation()
        .run_judge(request, ())
        .await
        .expect("the run")
}

/// Why the study refuses the run `request`, asking nothing.
pub async fn refused(study: &TestStudy, request: RunRequest) -> StudyError {
    (study.study.evaluation().run_judge(request, ()).await).expect_err("a refused run")
}

/// The grades stored, as (target, paper, judge, stars), by target and paper.
async fn stored(study: &TestStudy) -> Vec<(String, String, String, i64)> {
    sqlx::query_as(
        "SELECT t.external_id, p.external_id, j.name, g.stars FROM judge_grades g
         JOIN judges j ON j.id = g.judge_id JOIN papers t ON t.id = g.target_id
         JOIN papers p ON p.id = g.paper_id ORDER BY t.external_id, p.external_id",
    )
    .fetch_all(&study.connections)
    .await
    .expect("the grades")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_prompt_holds_both_papers_texts_and_nothing_of_the_models() {
    let study = fixture_study().await;
    let stand_in = StandIn::grading();
    let report = run(&study, request(&stand_in)).await;
    assert_eq!(report.pairs, POOLED_PAIRS);
    assert_eq!(report.stored, POOLED_PAIRS);
    assert_eq!(
        (report.not_grades, report.failed, report.stopped),
        (0, 0, None)
    );
    let received = stand_in.received();
    assert_eq!(received.len(), 11);
    for request in &received {
        let prompt = request.prompt();
        let title = request.candidate_title();
        assert!(
            prompt.contains(
                "Target paper:\n<title>Target one</title>\n<abstract>The first target.</abstract>"
            ) || prompt.contains(
                "Target paper:\n<title>Target two</title>\n<abstract>The second target.</abstract>"
            ),
            "{prompt}"
        );
        let number = title.rsplit(' ').next().unwrap();
        if title != NEUTRALISED_HOSTILE_TITLE {
            assert!(
                prompt.contains(&format!(
                    "Candidate paper:\n<title>{title}</title>\n<abstract>Abstract {number}.</abstract>"
                )),
                "{prompt}"
            );
        }
        for secret in MODELS.iter().chain(&SCORES) {
            assert!(!prompt.contains(secret), "{secret} in {prompt}");
        }
        assert!(!prompt.contains("rank"), "{prompt}");
        assert_eq!(request.body["model"], "stand-in-judge");
        assert_eq!(request.body["temperature"], 0.0);
        assert_eq!(request.response_format(), "json_schema");
        assert_eq!(request.authorization, None);
    }
    // Every pair once: T1's and T2's candidates.
    let mut titles: Vec<&str> = received.iter().map(|r| r.candidate_title()).collect();
    titles.sort_unstable();
    assert_eq!(
        titles,
        [
            "Paper eight",
            "Paper five",
            "Paper four",
            "Paper nine",
            "Paper one",
            "Paper one",
            "Paper seven",
            "Paper six",
            "Paper three",
            "Paper two",
            NEUTRALISED_HOSTILE_TITLE,
        ]
    );
    let grades = stored(&study).await;
    assert_eq!(grades.len(), 11);
    for (_, paper, judge, stars) in &grades {
        assert_eq!(judge, "stand-in-judge");
        let title = match paper.as_str() {
            "P1" => "Paper one",
            "P2" => "Paper two",
            "P3" => "Paper three",
            "P4" => "Paper four",
            "P5" => "Paper five",
            "P6" => "Paper six",
            "P7" => "Paper seven",
            "P8" => "Paper eight",
            "P9" => "Paper nine",
            _ => HOSTILE_TITLE,
        };
        assert_eq!(*stars, i64::from(stars_of_title(title)), "{paper}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_run_on_a_fully_graded_study_asks_nothing() {
    let study = fixture_study().await;
    let stand_in = StandIn::grading();
    run(&study, request(&stand_in)).await;
    assert_eq!(stand_in.requests(), 11);
    let again = run(&study, request(&stand_in)).await;
    assert_eq!((again.pairs, again.stored), (0, 0));
    assert_eq!(stand_in.requests(), 11);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_limit_grades_the_first_pairs_of_the_studys_order_and_the_next_run_the_rest() {
    let study = fixture_study().await;
    let stand_in = StandIn::grading();
    let mut limited = request(&stand_in);
    limited.limit = Some(5);
    let first = run(&study, limited).await;
    assert_eq!((first.pairs, first.stored), (5, 5));
    // The first pairs of the study's order: the targets in `/next`'s order, each in its
    // blind order, so that the targets graded whole are the first ones of the order.
    let first_five: Vec<(String, String)> = sqlx::query_as(
        "SELECT t.external_id, p.external_id FROM targets s JOIN pool o ON o.target_id = s.target_id
         JOIN papers t ON t.id = s.target_id JOIN papers p ON p.id = o.paper_id
         WHERE s.active = 1 ORDER BY s.order_key, s.target_id, o.sort_key LIMIT 5",
    )
    .fetch_all(&study.connections)
    .await
    .unwrap();
    let mut graded: Vec<(String, String)> = (stored(&study).await.into_iter())
        .map(|(target, paper, ..)| (target, paper))
        .collect();
    let mut expected = first_five.clone();
    graded.sort();
    expected.sort();
    assert_eq!(graded, expected);
    let rest = run(&study, request(&stand_in)).await;
    assert_eq!((rest.pairs, rest.stored), (6, 6));
    assert_eq!(stand_in.requests(), 11);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_more_requests_than_the_concurrency_are_in_flight() {
    let study = fixture_study().await;
    let stand_in = StandIn::start(|request, _| {
        Reply::Stall(
            Duration::from_millis(300),
            Box::new(Reply::stars(stars_of_title(request.candidate_title()))),
        )
    });
    let mut three = request(&stand_in);
    three.concurrency = 3;
    let report = run(&study, three).await;
    assert_eq!(report.stored, 11);
    assert_eq!(stand_in.most_in_flight(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_that_are_no_grade_are_counted_shown_and_asked_again_next_time() {
    let study = fixture_study().await;
    let stand_in = StandIn::start(|request, _| match request.candidate_title() {
        "Paper three" => Reply::Content("I would say it is relevant.".to_owned()),
        "Paper four" => Reply::Content("{\"stars\": 7}".to_owned()),
        title => Reply::stars(stars_of_title(title)),
    });
    let report = run(&study, request(&stand_in)).await;
    assert_eq!((report.stored, report.not_grades, report.failed), (9, 2, 0));
    let mut examples: Vec<(String, String)> = (report.not_grade_examples.iter())
        .map(|example| (example.paper.to_string(), example.what.clone()))
        .collect();
    examples.sort();
    assert_eq!(
        examples,
        [
            (
                "P3".to_owned(),
                "not JSON: \"I would say it is relevant.\"".to_owned()
            ),
            (
                "P4".to_owned(),
                "\"stars\" is 7, not a whole number from 1 to 5: \"{\\\"stars\\\": 7}\"".to_owned()
            )
        ]
    );
    assert!(
        report
            .summary()
            .contains("2 replies were no grade (not stored)"),
        "{}",
        report.summary()
    );
    let papers: Vec<String> = stored(&study).await.into_iter().map(|row| row.1).collect();
    assert!(!papers.contains(&"P3".to_owned()) && !papers.contains(&"P4".to_owned()));
    stand_in.answer(|request, _| Reply::stars(stars_of_title(request.candidate_title())));
    let again = run(&study, request(&stand_in)).await;
    assert_eq!((again.pairs, again.stored), (2, 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_and_a_500_are_tried_again_and_every_grade_is_stored() {
    let study = fixture_study().await;
    // Every first try of a pair gets 429 (with Retry-After: 0); request 6 gets a 500.
    let tries = std::sync::Arc::new(std::sync::Mutex::new(std::collections::HashSet::new()));
    let stand_in = StandIn::start(move |request, number| {
        let title = request.candidate_title().to_owned();
        let target = request.prompt().contains("Target one");
        let first_try = tries.lock().unwrap().insert((target, title.clone()));
        if number == 0 {
            return Reply::stars(stars_of_title(&title));
        }
        if first_try {
            return Reply::Status(429, Some(0), "slow down".to_owned());
        }
        if number == 6 {
            return Reply::Status(500, None, "the model crashed".to_owned());
        }
        Reply::stars(stars_of_title(&title))
    });
    let mut one = request(&stand_in);
    one.concurrency = 1;
    let report = run(&study, one).await;
    assert_eq!(
        (report.stored, report.failed, report.stopped.clone()),
        (11, 0, None)
    );
    // The first pair once; each of the other 10 twice (429, then the grade); one 500 more.
    assert_eq!(stand_in.requests(), 1 + 10 * 2 + 1);
    assert_eq!(stored(&study).await.len(), 11);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_that_refuses_openais_json_schema_is_asked_with_json_object() {
    let study = fixture_study().await;
    // As llama-cpp-python's server answers the json_schema form.
    let stand_in = StandIn::start(|request, _| match request.response_format() {
        "json_schema" => Reply::Status(500, None, "Internal Server Error".to_owned()),
        _ => Reply::stars(stars_of_title(request.candidate_title())),
    });
    let report = run(&study, request(&stand_in)).await;
    assert_eq!((report.stored, report.stopped.clone()), (11, None));
    let forms: Vec<String> = (stand_in.received().iter())
        .map(|request| request.response_format().to_owned())
        .collect();
    assert_eq!(forms[0], "json_schema");
    assert!(
        forms[1..].iter().all(|form| form == "json_object"),
        "{forms:?}"
    );
    assert_eq!(forms.len(), 12);
    let object = &stand_in.received()[1].body["response_format"];
    assert_eq!(
        object["schema"]["properties"]["stars"]["enum"],
        serde_json::json!([1, 2, 3, 4, 5])
    );
    let settings: String = sqlx::query_scalar("SELECT settings FROM judges")
        .fetch_one(&study.connections)
        .await
        .unwrap();
    assert_eq!(
        settings,
        r#"{"max_tokens":32,"response_format":"json_object","temperature":0.0}"#
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_stalled_past_the_timeout_is_asked_again() {
    let study = fixture_study().await;
    let stand_in = StandIn::start(|request, number| {
        let grade = Reply::stars(stars_of_title(request.candidate_title()));
        match number {
            3 => Reply::Stall(Duration::from_secs(30), Box::new(grade)),
            _ => grade,
        }
    });
    let mut quick = request(&stand_in);
    quick.timeout = Duration::from_secs(1);
    quick.concurrency = 1;
    let report = run(&study, quick).await;
    assert_eq!((report.stored, report.failed), (11, 0));
    assert_eq!(stand_in.requests(), 12);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_is_sent_as_a_bearer_token_and_a_refused_key_stops_the_run_at_once() {
    let study = fixture_study().await;
    let stand_in = StandIn::start(|request, _| match request.authorization.as_deref() {
        Some("Bearer sk-right") => Reply::stars(stars_of_title(request.candidate_title())),
        _ => Reply::Status(401, None, "Incorrect API key provided".to_owned()),
    });
    let mut wrong = request(&stand_in);
    endpoint_of(&mut wrong).key = Some("sk-wrong".to_owned());
    let report = run(&study, wrong).await;
    assert_eq!(report.stored, 0);
    let stopped = report.stopped.expect("the run stopped");
    assert_eq!(
        stopped,
        format!(
            "the endpoint {} refused the key (HTTP 401: Incorrect API key provided): set \
             PAPERJUDGE_JUDGE_KEY to a key it accepts",
            stand_in.url
        )
    );
    assert!(!stopped.contains("sk-wrong"));
    assert_eq!(stand_in.requests(), 1);
    // Nothing stored, not even the judge.
    assert_eq!(study.count("judges").await, 0);
    let mut right = request(&stand_in);
    endpoint_of(&mut right).key = Some("sk-right".to_owned());
    assert_eq!(run(&study, right).await.stored, 11);
    let sent: Vec<Option<String>> = (stand_in.received().iter().skip(1))
        .map(|request| request.authorization.clone())
        .collect();
    assert!(sent
        .iter()
        .all(|key| key.as_deref() == Some("Bearer sk-right")));
    let stored_anywhere: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM judges WHERE settings LIKE '%sk-%' OR endpoint LIKE '%sk-%'",
    )
    .fetch_one(&study.connections)
    .await
    .unwrap();
    assert_eq!(stored_anywhere, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_model_stops_the_run_naming_the_models_served() {
    let study = fixture_study().await;
    let stand_in = StandIn::start(|_, _| {
        Reply::Status(404, None, "The model `gpt-5` does not exist".to_owned())
    });
    let mut unknown = request(&stand_in);
    endpoint_of(&mut unknown).model = model("gpt-5");
    let report = run(&study, unknown).await;
    assert_eq!(
        report.stopped.as_deref(),
        Some(
            format!(
                "the endpoint {} does not know the model \"gpt-5\" or the address (HTTP 404: The \
                 model `gpt-5` does not exist); it serves stand-in-judge",
                stand_in.url
            )
            .as_str()
        )
    );
    assert_eq!(report.stored, 0);
}

#[tokio::test]
async fn an_endpoint_where_nothing_listens_stops_the_run_at_once() {
    let study = fixture_study().await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut down = request_to(&format!("http://127.0.0.1:{port}/v1"));
    down.concurrency = 1;
    let report = run(&study, down).await;
    let stopped = report.stopped.expect("the run stopped");
    assert!(
        stopped.starts_with(&format!(
            "cannot reach the endpoint http://127.0.0.1:{port}/v1 ("
        )),
        "{stopped}"
    );
    assert!(
        stopped.ends_with("is the server running, and is this its address?"),
        "{stopped}"
    );
    assert_eq!(report.stored, 0);
}

fn request_to(url: &str) -> RunRequest {
    RunRequest {
        grading: Grading::Endpoint(EndpointRequest {
            endpoint: endpoint(url),
            model: model("stand-in-judge"),
            prompt: None,
            key: None,
        }),
        name: None,
        concurrency: 4,
        limit: None,
        timeout: Duration::from_secs(10),
        purpose: Purpose::Judge,
        tuning_targets: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judges_grades_all_come_from_one_model_and_one_prompt() {
    let study = fixture_study().await;
    let stand_in = StandIn::grading();
    let mut limited = request(&stand_in);
    limited.limit = Some(2);
    run(&study, limited).await;
    let mut other_model = request(&stand_in);
    endpoint_of(&mut other_model).model = model("another");
    other_model.name = Some(JudgeName::new("stand-in-judge").unwrap());
    let refusal = refused(&study, other_model).await;
    assert!(
        matches!(&refusal, StudyError::Refused(Refusal::JudgeChanged { .. })),
        "{refusal:?}"
    );
    assert_eq!(
        refusal.to_string(),
        "the judge \"stand-in-judge\" grades with the model \"stand-in-judge\", and this run asks \
         \"another\": a judge's grades all come from one model and one prompt, so name this \
         run's judge with --name"
    );
    let mut other_prompt = request(&stand_in);
    endpoint_of(&mut other_prompt).prompt =
        Some("Is {candidate_title} relevant to {target_title}?".to_owned());
    let refusal = refused(&study, other_prompt).await;
    assert!(
        refusal.to_string().contains("a prompt of SHA-256"),
        "{refusal}"
    );
    let mut bad_prompt = request(&stand_in);
    endpoint_of(&mut bad_prompt).prompt =
        Some("Grade {candidate_title} for {model_name}".to_owned());
    let refusal = refused(&study, bad_prompt).await;
    assert_eq!(
        refusal.to_string(),
        "the prompt holds {model_name}, which is no placeholder: it may hold {target_title}, \
         {target_abstract}, {candidate_title}, {candidate_abstract}, {guidelines}"
    );
    // Nothing was asked by the refused runs.
    assert_eq!(stand_in.requests(), 2);
}
