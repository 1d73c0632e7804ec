//! Trials (issue 41): a judge tried on the tuning set before it grades the study, the trials
//! side by side, a judge made from a trial, the estimate that stays honest when trials chose
//! the judge, and a run that stops after the tuning set when the judge agrees too little.

use reqwest::StatusCode;
use serde_json::Value;

use paperjudge::study::judges::{Purpose, RunRequest, TrialReport};
use paperjudge::study::StudyError;

use crate::judge_support::{StandIn, BY_THE_NUMBER};
use crate::judges_run::{endpoint_of, request};
use crate::process_support::{paperjudge, stderr, succeeded};
use crate::web_support::TestApp;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/judges");

/// The default prompt with [`BY_THE_NUMBER`] in it: a prompt the prompt-sensitive stand-in
/// grades well with.
fn good_prompt() -> String {
    let default = paperjudge::study::judges::prompt::Prompt::default_prompt();
    format!("{BY_THE_NUMBER}\n{}", default.template())
}

/// The fixture served, T1 rated as `rate_all_of_t1` and T2 as the trial reference says.
pub async fn rated_app() -> TestApp {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    app.store_ratings(&[
        ("T2", "P1", 3),
        ("T2", "P7", 2),
        ("T2", "P8", 4),
        ("T2", "P9", 5),
    ])
    .await;
    app
}

fn trial(stand_in: &StandIn, prompt: Option<String>) -> RunRequest {
    let mut trial = request(stand_in);
    endpoint_of(&mut trial).prompt = prompt;
    trial.purpose = Purpose::Trial;
    trial
}

/// A trial of the stand-in with [`good_prompt`] over a tuning set of one target (the first
/// fully rated one in the study's order).
async fn trial_of_one_target(app: &TestApp, stand_in: &StandIn) -> TrialReport {
    let mut one = trial(stand_in, Some(good_prompt()));
    one.tuning_targets = Some(1);
    (app.study.study.evaluation().run_trial(one, ()).await).expect("the trial")
}

/// The targets whose pairs the stand-in was asked for, from its prompts, in order.
fn targets_asked(stand_in: &StandIn) -> Vec<String> {
    (stand_in.received().iter())
        .map(|request| request.target_title().to_owned())
        .collect()
}

fn close(actual: &Value, expected: &Value, what: &str) {
    let (actual, expected) = (actual.as_f64().unwrap(), expected.as_f64().unwrap());
    assert!(
        (actual - expected).abs() < 1e-9,
        "{what}: {actual} vs {expected}"
    );
}

/// A trial grades the tuning set's pairs and no other; its α, κ and ρ equal the `krippendorff`
/// package's, scikit-learn's and scipy's (tests/fixtures/judges/trial_reference.py); and it
/// changes no estimate, no leaderboard and no rater's page, byte for byte.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trial_grades_the_tuning_set_alone_agrees_as_the_references_say_and_changes_nothing() {
    let app = rated_app().await;
    // A judge that grades as the trials below will: a trial made after it changes nothing of it.
    let stand_in = StandIn::prompt_sensitive();
    let mut earlier = request(&stand_in);
    endpoint_of(&mut earlier).prompt = Some(good_prompt());
    earlier.name = Some(paperjudge::domain::JudgeName::new("earlier").unwrap());
    app.study
        .study
        .evaluation()
        .run_judge(earlier, ())
        .await
        .unwrap();
    let asked_before = stand_in.requests();
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    let paths = [
        "/".to_owned(),
        "/targets".to_owned(),
        format!("/targets/{t1}"),
        "/leaderboard".to_owned(),
        "/leaderboard.json?per_target=1".to_owned(),
        "/leaderboard.csv".to_owned(),
        "/leaderboard.json?judge=earlier".to_owned(),
        "/checks.json".to_owned(),
        "/export/qrels.txt".to_owned(),
    ];
    let capture = async |app: &TestApp| -> Vec<String> {
        let mut pages = Vec::new();
        for path in &paths {
            let answer = app.get_as(&session, path).await;
            assert_eq!(answer.status(), StatusCode::OK, "{path}");
            pages.push(answer.text().await.unwrap());
        }
        let db = app.study.db_path();
        for args in [
            &["status", "--format", "json"][..],
            &["leaderboard", "--format", "json", "--per-target"],
            &["checks", "--format", "json"],
            &["judges", "--format", "json"],
        ] {
            pages.push(succeeded(&paperjudge(&db, args, &[])));
        }
        pages
    };
    let before = capture(&app).await;

    // One target in the tuning set: the first fully rated one in the study's order.
    let order = app.rating_order().await;
    let report = trial_of_one_target(&app, &stand_in).await;
    let first_title = match order[0].as_str() {
        "T1" => "Target one",
        _ => "Target two",
    };
    let asked = targets_asked(&stand_in)[asked_before..].to_vec();
    assert_eq!(asked.len(), if first_title == "Target one" { 7 } else { 4 });
    assert!(asked.iter().all(|title| title == first_title), "{asked:?}");
    assert_eq!(
        (
            report.found.as_ref().unwrap().tuning_targets,
            report.found.as_ref().unwrap().trial.pairs
        ),
        (1, asked.len() as i64)
    );

    // The whole tuning set of two: every pair of both, asked again for this trial.
    let report = (app
        .study
        .study
        .evaluation()
        .run_trial(trial(&stand_in, Some(good_prompt())), ()))
    .await
    .unwrap();
    assert_eq!(stand_in.requests(), asked_before + asked.len() + 11);
    assert_eq!(
        (
            report.found.as_ref().unwrap().tuning_targets,
            report.found.as_ref().unwrap().trial.pairs
        ),
        (2, 11)
    );
    assert_eq!(report.found.as_ref().unwrap().study_pairs, 11);
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{FIXTURES}/trial_reference.json")).unwrap(),
    )
    .unwrap();
    let listed: Value = serde_json::from_str(&succeeded(&paperjudge(
        &app.study.db_path(),
        &["judges", "trials", "--format", "json"],
        &[],
    )))
    .unwrap();
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 2);
    let whole = listed.iter().find(|trial| trial["pairs"] == 11).unwrap();
    for key in ["alpha_ordinal", "kappa_quadratic", "spearman"] {
        close(&whole[key], &reference[key], key);
    }
    let mut keys: Vec<&str> = whole
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "alpha_ordinal",
            "command",
            "created_at",
            "endpoint",
            "id",
            "kappa_quadratic",
            "model",
            "pairs",
            "prompt_sha256",
            "seconds_per_pair",
            "spearman",
        ]
    );
    assert_eq!(whole["model"], "stand-in-judge");
    assert_eq!(whole["endpoint"], format!("{}", stand_in.url));

    assert_eq!(app.study.count("judge_grades").await, 11);
    assert_eq!(app.study.count("judges").await, 1);
    let after = capture(&app).await;
    for (index, (before, after)) in before.iter().zip(&after).enumerate() {
        assert_eq!(before, after, "output {index} changed with a trial");
    }
}

/// Two prompts, two agreements: the trials list the better one first; `--trial` on the
/// command line prints the audit and the time the study would take.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_prompts_tried_give_two_agreements_the_better_first() {
    let app = rated_app().await;
    let stand_in = StandIn::prompt_sensitive();
    let db = app.study.db_path();
    let prompt = app.study.dir.path().join("good.txt");
    std::fs::write(&prompt, good_prompt()).unwrap();
    let tried = crate::judges_cli::run(
        &db,
        &[
            "judge",
            "--endpoint",
            &stand_in.url,
            "--model",
            "stand-in-judge",
            "--prompt",
            prompt.to_str().unwrap(),
            "--trial",
        ],
        &[],
    )
    .await;
    assert_eq!(tried.status.code(), Some(0), "{}", stderr(&tried));
    let said = stderr(&tried);
    for line in [
        "trial 1: 11 pairs of the tuning set (2 targets) graded\n",
        "  alpha (ordinal) 0.4848 [",
        ", quadratic kappa 0.4399, Spearman's rho 0.4552, over 11 pairs\n",
        "  raters \\ trial   1★    2★    3★    4★    5★\n  1★                 2     0     0     1     0\n",
        " s a pair: the study's 11 pooled pairs would take ",
        "  a judge from it: paperjudge judge ... --from-trial 1 --name NAME\n",
    ] {
        assert!(said.contains(line), "{line:?} in\n{said}");
    }
    let worse = app
        .study
        .study
        .evaluation()
        .run_trial(trial(&stand_in, None), ())
        .await
        .unwrap();
    assert!(
        worse.found.as_ref().unwrap().audit.alpha_ordinal.unwrap() < 0.0,
        "{:?}",
        worse.found.as_ref().unwrap().audit.alpha_ordinal
    );
    let trials = app.study.study.evaluation().trials().await.unwrap();
    let ids: Vec<i64> = trials.iter().map(|trial| trial.id).collect();
    assert_eq!(ids, [1, 2]);
    assert!(trials[0].alpha_ordinal > trials[1].alpha_ordinal);
    assert_ne!(trials[0].prompt_sha256, trials[1].prompt_sha256);
    let table = succeeded(&paperjudge(&db, &["judges", "trials"], &[]));
    assert!(
        table.starts_with("trial  model           pairs  alpha    kappa    rho "),
        "{table}"
    );
}

/// A judge made from a trial keeps its grades (no pair asked twice) and grades the rest; the
/// estimate leaves the tuning set out of the rated targets that correct it, and says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judge_from_a_trial_keeps_its_grades_and_leaves_the_tuning_set_out_of_the_correction() {
    let app = rated_app().await;
    let stand_in = StandIn::prompt_sensitive();
    let tried = trial_of_one_target(&app, &stand_in).await;
    let asked_in_trial = targets_asked(&stand_in);
    let mut judge = request(&stand_in);
    judge.purpose = Purpose::FromTrial(tried.found.as_ref().unwrap().trial.id);
    judge.name = Some(paperjudge::domain::JudgeName::new("chosen").unwrap());
    // The trial's prompt is taken without being given again.
    let report = app
        .study
        .study
        .evaluation()
        .run_judge(judge.clone(), ())
        .await
        .unwrap();
    assert_eq!(report.pairs, 11 - asked_in_trial.len() as u64);
    let asked_after: Vec<String> = targets_asked(&stand_in)[asked_in_trial.len()..].to_vec();
    assert!(
        asked_after
            .iter()
            .all(|title| !asked_in_trial.contains(title)),
        "{asked_after:?} after {asked_in_trial:?}"
    );
    assert_eq!(app.study.count("judge_grades").await, 11);
    // The name is taken now; another prompt than the trial's is refused.
    let again = crate::judges_run::refused(&app.study, judge.clone()).await;
    assert!(matches!(again, StudyError::Refused(_)), "{again:?}");
    let mut other = judge.clone();
    other.name = Some(paperjudge::domain::JudgeName::new("other").unwrap());
    endpoint_of(&mut other).prompt = Some("{target_title} {candidate_title}".to_owned());
    let refused = crate::judges_run::refused(&app.study, other).await;
    assert!(
        refused.to_string().starts_with(&format!(
            "trial {} graded with a prompt of SHA-256 ",
            tried.found.as_ref().unwrap().trial.id
        )),
        "{refused}"
    );

    let board: Value = app
        .get("/leaderboard.json?judge=chosen")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(board["judge"]["tuning_targets_left_out"], 1);
    assert_eq!(board["judge"]["targets_judged"], 2);
    let page = app
        .get("/leaderboard?judge=chosen")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(
            "tuning set: its 1 rated target is left out of the rated targets that correct it \
             (they count as judged)"
        ),
        "{page}"
    );
    // A judge no trial chose keeps every rated target.
    crate::judges_audit::import_judgments(&app.study, "imported").await;
    let board: Value = app
        .get("/leaderboard.json?judge=imported")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(board["judge"]["tuning_targets_left_out"], 0);
}

/// `--stop-below-alpha`: the tuning set first, and a judge that agrees too little stops there;
/// one that agrees enough goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_useless_judge_stops_after_the_tuning_set() {
    let app = rated_app().await;
    let stand_in = StandIn::prompt_sensitive();
    let order = app.rating_order().await;
    let db = app.study.db_path();
    let useless = crate::judges_cli::run(
        &db,
        &[
            "judge",
            "--endpoint",
            &stand_in.url,
            "--model",
            "stand-in-judge",
            "--name",
            "useless",
            "--tuning-targets",
            "1",
            "--stop-below-alpha",
            "0.5",
        ],
        &[],
    )
    .await;
    assert_eq!(useless.status.code(), Some(1));
    let said = stderr(&useless);
    assert!(
        said.contains("paperjudge: on the tuning set (1 target), α is ")
            && said.ends_with(
                "whose upper end is below --stop-below-alpha 0.5: the judge agrees too little \
                 with the raters to be worth the rest of the study, so the run stopped there \
                 (its grades stay)\n"
            ),
        "{said}"
    );
    let first_title = if order[0] == "T1" {
        "Target one"
    } else {
        "Target two"
    };
    let asked = targets_asked(&stand_in);
    assert!(asked.iter().all(|title| title == first_title), "{asked:?}");
    assert_eq!(app.study.count("judge_grades").await, asked.len() as i64);

    let mut good = request(&stand_in);
    endpoint_of(&mut good).prompt = Some(good_prompt());
    good.name = Some(paperjudge::domain::JudgeName::new("good").unwrap());
    good.purpose = Purpose::JudgeUnlessBelow(-0.9);
    good.concurrency = 1;
    let report = app
        .study
        .study
        .evaluation()
        .run_judge(good, ())
        .await
        .unwrap();
    assert_eq!((report.stored, report.stopped), (11, None));
    let asked = targets_asked(&stand_in)[asked.len()..].to_vec();
    assert!(asked[..if first_title == "Target one" { 7 } else { 4 }]
        .iter()
        .all(|title| title == first_title));
}

/// A trial needs fully rated targets; one whose endpoint cannot be reached stores nothing and
/// leaves no trial behind; a command is tried as an endpoint is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trial_without_a_tuning_set_or_an_answer_leaves_nothing_and_a_command_is_tried() {
    let study = crate::web_support::fixture_study().await;
    let db = study.db_path();
    let nothing = crate::judges_cli::run(
        &db,
        &[
            "judge",
            "--endpoint",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--trial",
        ],
        &[],
    )
    .await;
    assert_eq!(nothing.status.code(), Some(2));
    let alone = crate::judges_cli::run(
        &db,
        &[
            "judge",
            "--endpoint",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--tuning-targets",
            "3",
        ],
        &[],
    )
    .await;
    assert_eq!(alone.status.code(), Some(2));
    assert_eq!(
        stderr(&alone),
        "paperjudge: --tuning-targets sets the tuning set of --trial or --stop-below-alpha: give \
         one of them\n"
    );
    assert_eq!(
        stderr(&nothing),
        "paperjudge: a trial grades the tuning set, the first fully rated targets in the study's \
         order, and no target is fully rated yet: rate a few targets first\n"
    );
    let app = rated_app().await;
    let db = app.study.db_path();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = crate::judges_cli::run(
        &db,
        &[
            "judge",
            "--endpoint",
            &format!("http://127.0.0.1:{port}/v1"),
            "--model",
            "m",
            "--trial",
        ],
        &[],
    )
    .await;
    assert_eq!(down.status.code(), Some(1));
    assert!(
        stderr(&down).contains("cannot reach the endpoint"),
        "{}",
        stderr(&down)
    );
    assert_eq!(app.study.count("judge_trials").await, 0);

    let log = app.study.dir.path().join("judge.log").display().to_string();
    let script = format!("python3 {FIXTURES}/command_judge.py");
    let tried = crate::judges_cli::run(
        &db,
        &["judge", "--command", &script, "--trial"],
        &[("JUDGE_LOG", log.as_str())],
    )
    .await;
    assert_eq!(tried.status.code(), Some(0), "{}", stderr(&tried));
    assert!(
        stderr(&tried).contains(
            "trial 2: 11 pairs of the tuning set (2 targets) graded\n  alpha (ordinal) 0.4848 "
        ),
        "{}",
        stderr(&tried)
    );
    let listed: Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["judges", "trials", "--format", "json"],
        &[],
    )))
    .unwrap();
    assert_eq!(listed[0]["command"], script);
    assert_eq!(listed[0]["model"], Value::Null);
}
