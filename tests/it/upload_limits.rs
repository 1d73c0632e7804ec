//! The limits of an upload to `/import` (issue 32), each with the attack's own input: a part
//! whose headers are larger than the form's reader holds, an upload that stops sending, 1,500
//! files in one upload, the temporary files a killed server left, and the sizes
//! `serve --max-upload` takes.

use std::time::Duration;

use paperjudge::web::Access;
use reqwest::header::{ACCEPT, COOKIE};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::TestStudy;
use crate::process_support::{paperjudge_ending, stderr, ServerProcess};
use crate::web_import::{answer_on, leftovers, multipart, nothing_left, posting, upload, BOUNDARY};
use crate::web_support::{Answer, Browser, Session, TestApp};

/// Posts `body` (a multipart form of the test boundary) to `/import` as the import page's
/// script does.
async fn post_form(app: &TestApp, session: &Session, body: Vec<u8>) -> reqwest::Response {
    (app.http.post(app.url("/import")))
        .header(COOKIE, &session.cookie)
        .header(ACCEPT, "application/json")
        .header(
            "content-type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .body(body)
        .send()
        .await
        .expect("an answer")
}

/// After a refused upload: nothing beside the study, nothing in it, and the next upload goes
/// on (the import is free).
async fn the_next_upload_goes_on(app: &TestApp, session: &Session) {
    nothing_left(app.study.dir.path()).await;
    assert_eq!(app.study.count("papers").await, 0);
    let papers = crate::common::papers_csv(3);
    let answer = upload(
        app,
        session,
        "papers",
        &[("p.csv", papers.as_bytes())],
        Answer::Redirect,
    )
    .await;
    assert_eq!(answer.status(), StatusCode::SEE_OTHER);
    assert_eq!(app.study.count("papers").await, 3);
}

/// The attack: a part with 5 MB of headers, in a body of 5 MB, was answered "the upload is
/// larger than the 1 GiB this server accepts". It is a 400 that names the part's headers.
#[tokio::test]
async fn a_part_with_oversized_headers_is_refused_naming_them() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    let session = app.session_from("/import").await;
    let mut body = multipart(&[("csrf_token", None, session.token.as_bytes())]);
    // The closing boundary goes; a part whose headers never end within 5 MB comes instead.
    body.truncate(body.len() - format!("--{BOUNDARY}--\r\n").len());
    body.extend(
        format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"kind\"\r\n").bytes(),
    );
    body.extend(b"X-Padding: ");
    body.extend(std::iter::repeat_n(b'a', 5 << 20));
    body.extend(format!("\r\n\r\npapers\r\n--{BOUNDARY}--\r\n").bytes());
    let answer = post_form(&app, &session, body).await;
    assert_eq!(answer.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.json::<Value>().await.unwrap(),
        json!({"error": "a part of the form has headers larger than the 64 KiB the server reads \
                         (or the form does not start with a part), so nothing was imported"})
    );
    the_next_upload_goes_on(&app, &session).await;
}

/// The attack: an upload that sent half its body and stopped held the study's one import for
/// as long as it stalled (every other upload got 409). Silent for the limit (shortened here to
/// a second; a minute when served), it is ended with 408, nothing kept, and the import is free.
#[tokio::test]
async fn an_upload_that_stops_sending_is_ended_and_frees_the_import() {
    let access = Access {
        upload_idle: Some(Duration::from_secs(1)),
        ..Access::default()
    };
    let app = TestApp::spawn_with(TestStudy::new().await, access).await;
    let session = app.session_from("/import").await;
    let papers = crate::common::papers_csv(2_000);
    let body = multipart(&[
        ("csrf_token", None, session.token.as_bytes()),
        ("kind", None, b"papers"),
        ("file", Some("papers.csv"), papers.as_bytes()),
    ]);
    let half = &body[..body.len() / 2];
    let stalled = posting(
        &app,
        &session,
        &format!("Content-Length: {}\r\n", body.len()),
        half,
    )
    .await;
    let (status, answer) = answer_on(stalled).await;
    assert_eq!(status, "HTTP/1.1 408 Request Timeout");
    assert_eq!(
        serde_json::from_str::<Value>(&answer).unwrap(),
        json!({"error": "the upload sent nothing for 1 seconds, so it was ended and nothing was \
                         imported; upload the files again"})
    );
    the_next_upload_goes_on(&app, &session).await;
}

/// The attack: 1,500 files in one upload got a 500 ("Too many open files"). An upload holds
/// at most 200 files: the 201st is refused with 400 saying so, and nothing is kept.
#[tokio::test]
async fn an_upload_of_too_many_files_is_refused_with_the_limit() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    let session = app.session_from("/import").await;
    let files: Vec<(String, String)> = (1..=1_500)
        .map(|n| (format!("p{n}.csv"), format!("id,title\nP{n},Paper {n}\n")))
        .collect();
    let mut parts: Vec<(&str, Option<&str>, &[u8])> = vec![
        ("csrf_token", None, session.token.as_bytes()),
        ("kind", None, b"papers"),
    ];
    for (name, text) in &files {
        parts.push(("file", Some(name), text.as_bytes()));
    }
    let answer = post_form(&app, &session, multipart(&parts)).await;
    assert_eq!(answer.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.json::<Value>().await.unwrap(),
        json!({"error": "an upload holds at most 200 files, so nothing was imported; import them \
                         in several uploads, or from the command line"})
    );
    the_next_upload_goes_on(&app, &session).await;
}

/// A server killed in the middle of an upload leaves its temporary file beside the study: the
/// next `serve` removes it as it starts, and leaves alone a file that a running upload (of
/// another server on the same study) holds locked.
#[tokio::test]
async fn serve_removes_the_files_of_uploads_no_server_runs() {
    let study = TestStudy::new().await;
    let dir = study.dir.path().to_owned();
    let name = study
        .db_path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let left = dir.join(format!(".{name}.upload-killed"));
    std::fs::write(&left, "id,title\nP1,half of a fi").unwrap();
    let running = dir.join(format!(".{name}.upload-running"));
    let held = std::fs::File::create(&running).unwrap();
    held.lock().unwrap();
    let unrelated = dir.join(".other.db.upload-x");
    std::fs::write(&unrelated, "not this study's").unwrap();

    let server = ServerProcess::start(&study.db_path(), &["--addr", "127.0.0.1:0"], &[]);
    assert!(!left.exists());
    assert!(running.exists(), "a running upload's file is kept");
    assert!(unrelated.exists(), "another study's file is kept");
    let mut browser = Browser::at(&server.address);
    assert_eq!(browser.get("/healthz").await.status(), StatusCode::OK);
    let mut left = leftovers(&dir);
    left.sort();
    assert_eq!(
        left,
        [
            ".other.db.upload-x".to_owned(),
            format!(".{name}.upload-running")
        ]
    );
    drop(held);
}

/// The attack: `--max-upload 1KB` and `--max-upload '1 G'` were taken. A size is a number of
/// bytes, alone or with K, M, G or T (or KiB ... TiB) right after it: anything else is refused
/// at start (exit status 2) saying what a size is.
#[test]
fn serve_refuses_a_size_it_would_have_to_guess() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("study.db");
    for (size, why) in [
        (
            "1KB",
            "KB is ambiguous (1000 or 1024 bytes?); write K or KiB",
        ),
        ("1 G", "no space between the number and its unit"),
        ("1g", "\"g\" is no unit"),
        ("0", "at least 1 byte"),
    ] {
        // A server that took the size would run: this fails the test after a minute instead.
        let output = paperjudge_ending(&db, &["serve", "--max-upload", size], &[]);
        assert_eq!(output.status.code(), Some(2), "{size}");
        let said = stderr(&output);
        assert!(
            said.starts_with(&format!(
                "error: invalid value '{size}' for '--max-upload <SIZE>': {why}: a size is a \
                 whole number of bytes, alone or followed by K, M, G or T (or KiB, MiB, GiB, \
                 TiB: 1024 of the one before), such as 500M or 2G; got \"{size}\"\n"
            )),
            "{said}"
        );
    }
}

/// A running upload's files are locked from the first byte, so that a sweep (by a server
/// starting on the same study) leaves them alone; once the upload is gone, nothing is left.
#[tokio::test]
async fn a_sweep_leaves_the_files_of_a_running_upload() {
    let study = TestStudy::new().await;
    let mut running = study
        .study
        .import()
        .begin_upload()
        .expect("the import is free");
    running.add_file("papers.csv").await.unwrap();
    running.write(b"id,title\nP1,One\n").await.unwrap();
    assert_eq!(leftovers(study.dir.path()).len(), 1);
    assert_eq!(
        study.study.import().sweep_upload_leftovers().await.unwrap(),
        0
    );
    assert_eq!(leftovers(study.dir.path()).len(), 1);
    drop(running);
    assert_eq!(leftovers(study.dir.path()).len(), 0);
    assert_eq!(
        study.study.import().sweep_upload_leftovers().await.unwrap(),
        0
    );
}
