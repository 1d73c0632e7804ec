//! The server's request log (issue 33): one line per request at `info` with the method, the
//! route's pattern, the status, the time and who asked (the health check at `debug`), and
//! nothing a visitor sent besides: no password, no cookie, no CSRF token, not even on the line
//! of a sign-in, at any level the server logs (`debug` here).

use std::time::{Duration, Instant};

use reqwest::StatusCode;

use crate::common::TestStudy;
use crate::process_support::ServerProcess;
use crate::web_support::Browser;
use paperjudge::domain::RaterName;

const OWNER_PASSWORD: &str = "owner's secret 7";
const ANN_PASSWORD: &str = "ann's secret 8";

/// The lines of the server's log that `wanted` picks, once there are `count` of them: the log
/// is read on a thread of its own, a moment after the server wrote it.
fn lines_of(server: &ServerProcess, count: usize, wanted: impl Fn(&str) -> bool) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let lines: Vec<String> = (server.log().into_iter())
            .filter(|line| wanted(line))
            .collect();
        if lines.len() >= count || Instant::now() > deadline {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What a line says after its time: the level, the span and the event.
fn without_time_and_latency(line: &str) -> String {
    let (_, rest) = line.split_once("Z ").expect("a time first");
    let (said, _) = rest.split_once(" latency_ms=").expect("a latency");
    said.trim_start().to_owned()
}

#[tokio::test]
async fn every_request_is_logged_without_what_the_visitor_sent() {
    let study = TestStudy::new().await;
    study.papers("id,title\nT1,Target\nP1,Paper\n").await;
    study
        .recommendations("model,target,rank,paper\nm,T1,1,P1\n")
        .await;
    let ann = RaterName::new("Ann").unwrap();
    study.study.raters().add(&ann, ANN_PASSWORD).await.unwrap();
    let server = ServerProcess::start(
        &study.db_path(),
        &["--addr", "127.0.0.1:0"],
        &[
            ("PAPERJUDGE_PASSWORD", OWNER_PASSWORD),
            ("PAPERJUDGE_LOG", "debug"),
        ],
    );

    let mut owner = Browser::at(&server.address);
    let wrong = owner.log_in("not the password").await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        owner.log_in(OWNER_PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let mut rater = Browser::at(&server.address);
    let signed_in = rater.log_in_as("Ann", ANN_PASSWORD).await;
    assert_eq!(signed_in.status(), StatusCode::SEE_OTHER);
    assert_eq!(rater.get("/next").await.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        owner.get("/no/such/page").await.status(),
        StatusCode::NOT_FOUND
    );
    // A health check, asked for again and again, at debug only.
    assert_eq!(owner.get("/healthz").await.status(), StatusCode::OK);

    let answered = lines_of(&server, 9, |line| line.contains(" answered "));
    let said: Vec<String> = answered
        .iter()
        .map(|line| without_time_and_latency(line))
        .collect();
    let line = |span: &str, status: u16| {
        format!("INFO request{{{span}}}: paperjudge::web::request_log: answered status={status}")
    };
    let debug = |span: &str, status: u16| {
        format!("DEBUG request{{{span}}}: paperjudge::web::request_log: answered status={status}")
    };
    assert_eq!(
        said,
        [
            line(r#"method=GET route="/login""#, 200),
            line(r#"method=POST route="/login""#, 401),
            line(r#"method=GET route="/login""#, 200),
            line(r#"method=POST route="/login""#, 303),
            line(r#"method=GET route="/login""#, 200),
            line(r#"method=POST route="/login""#, 303),
            line(r#"method=GET route="/next" rater=2"#, 303),
            line(r#"method=GET route="/{address:.*}" rater=1"#, 404),
            debug(r#"method=GET route="/healthz""#, 200),
        ]
    );
    for line in &answered {
        let latency = line.split_once(" latency_ms=").expect("a latency").1;
        assert!(latency.parse::<f64>().is_ok(), "{line}");
    }

    // Nothing the browsers sent is in the log: not the passwords (right or wrong), not a
    // session's or a browser's cookie, not the token of a form.
    let log = server.log().join("\n");
    let mut secrets = vec![
        OWNER_PASSWORD.to_owned(),
        ANN_PASSWORD.to_owned(),
        "not the password".to_owned(),
        owner.form_token("/logout").await,
    ];
    for browser in [&owner, &rater] {
        let cookies = browser.cookie_header();
        assert!(cookies.contains("paperjudge_session="), "{cookies}");
        let values = cookies
            .split("; ")
            .map(|pair| pair.split_once('=').unwrap().1);
        secrets.extend(values.map(str::to_owned));
    }
    for secret in secrets {
        assert!(!log.contains(&secret), "{secret:?} is in the log:\n{log}");
    }
}
