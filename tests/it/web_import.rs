//! `/import`: a study from the browser alone, over real HTTP with multipart uploads built here.
//! The study ends as `paperjudge import` leaves it; a file with problems, a refused upload or a
//! dropped connection leaves the study as it was and nothing beside it.

use std::path::Path;
use std::time::{Duration, Instant};

use paperjudge::web::{Access, Password};
use reqwest::header::{ACCEPT, COOKIE};
use reqwest::multipart::{Form, Part};
use reqwest::{Response, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::TestStudy;
use crate::process_support::{paperjudge, succeeded, ServerProcess};
use crate::web_support::{error_message, location, Answer, Browser, Page, Session, TestApp};

/// A file of an upload: its name and its bytes.
type File<'a> = (&'a str, &'a [u8]);

/// Posts an upload of `files` of `kind` as the import page's forms do: the token first.
pub async fn upload(
    app: &TestApp,
    session: &Session,
    kind: &str,
    files: &[File<'_>],
    answer: Answer,
) -> Response {
    upload_to(&app.http, &app.address, session, kind, files, answer).await
}

/// [`upload`] to the app at `address` (`http://127.0.0.1:PORT`) through `http`.
pub async fn upload_to(
    http: &reqwest::Client,
    address: &str,
    session: &Session,
    kind: &str,
    files: &[File<'_>],
    answer: Answer,
) -> Response {
    let mut form = Form::new()
        .text("csrf_token", session.token.clone())
        .text("kind", kind.to_owned());
    for (name, bytes) in files {
        form = form.part(
            "file",
            Part::bytes(bytes.to_vec()).file_name(name.to_string()),
        );
    }
    let mut request = (http.post(format!("{address}/import")))
        .header(COOKIE, &session.cookie)
        .multipart(form);
    if answer == Answer::Json {
        request = request.header(ACCEPT, "application/json");
    }
    request.send().await.expect("POST /import answers")
}

/// [`upload`] of one papers file, `p.csv`.
async fn upload_papers(app: &TestApp, session: &Session, csv: &str, answer: Answer) -> Response {
    upload(app, session, "papers", &[("p.csv", csv.as_bytes())], answer).await
}

/// Uploads as the import page's script does and answers the job's address.
async fn started(app: &TestApp, session: &Session, kind: &str, files: &[File<'_>]) -> String {
    let answer = upload(app, session, kind, files, Answer::Json).await;
    assert_eq!(answer.status(), StatusCode::OK);
    let answer: Value = answer.json().await.expect("JSON");
    let url = answer["url"]
        .as_str()
        .expect("the job's address")
        .to_owned();
    assert_eq!(
        url,
        format!("/import/{}", answer["job"].as_str().expect("a job"))
    );
    url
}

/// The job at `url` as its JSON says, once it has ended.
async fn ended(app: &TestApp, url: &str) -> Value {
    ended_as(app, None, url).await
}

/// [`ended`], asked with the cookies of `session`, if any.
async fn ended_as(app: &TestApp, session: Option<&Session>, url: &str) -> Value {
    let started = Instant::now();
    loop {
        let mut request = app.http.get(app.url(&format!("{url}.json")));
        if let Some(session) = session {
            request = request.header(COOKIE, &session.cookie);
        }
        let job: Value = request
            .send()
            .await
            .expect("an answer")
            .json()
            .await
            .expect("JSON");
        if job["state"] == "done" || job["state"] == "failed" {
            return job;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{job}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The upload files beside the study.
pub(crate) fn leftovers(dir: &Path) -> Vec<String> {
    (std::fs::read_dir(dir).expect("the study's directory"))
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.contains(".upload-"))
        .collect()
}

/// Waits until no upload file is left beside the study.
pub(crate) async fn nothing_left(dir: &Path) {
    let started = Instant::now();
    while !leftovers(dir).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            leftovers(dir)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `n` papers P1..Pn, and each of `models` recommending P(t+1)..P(t+3) for targets P1..P4.
fn papers_and_runs(n: usize, models: &[&str]) -> (String, Vec<String>) {
    let runs = (models.iter())
        .map(|model| {
            let mut run = String::new();
            for target in 1..=4 {
                for rank in 1..=3 {
                    let paper = target + rank;
                    let score = 10 - rank;
                    run.push_str(&format!("P{target} Q0 P{paper} {rank} {score} {model}\n"));
                }
            }
            run
        })
        .collect();
    (crate::common::papers_csv(n), runs)
}

/// Study S of `paperjudge-synth` (the verdict's fixture): its papers, its lists as one TREC
/// run per model, and its ratings, written into `dir`.
fn study_s(
    dir: &Path,
) -> (
    std::path::PathBuf,
    Vec<std::path::PathBuf>,
    std::path::PathBuf,
) {
    let fixtures = crate::common::VERDICT_FIXTURES;
    let lists = std::fs::read_to_string(format!("{fixtures}/synth-s-recommendations.csv"))
        .expect("the fixture");
    let mut runs: std::collections::BTreeMap<String, String> = Default::default();
    for line in lists.lines().skip(1) {
        let [model, target, rank, paper] = line.split(',').collect::<Vec<_>>()[..] else {
            panic!("a row of four fields: {line}");
        };
        let rank: u32 = rank.parse().expect("a rank");
        let run = runs.entry(model.to_owned()).or_default();
        run.push_str(&format!(
            "{target} Q0 {paper} {rank} {} {model}\n",
            100 - rank
        ));
    }
    let runs = (runs.into_iter())
        .map(|(model, run)| {
            let path = dir.join(format!("{model}.run"));
            std::fs::write(&path, run).expect("a run written");
            path
        })
        .collect();
    let papers = crate::common::study_s_papers(dir);
    (
        papers,
        runs,
        format!("{fixtures}/synth-s-ratings.csv").into(),
    )
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("the file reads")
}

fn name(path: &Path) -> &str {
    path.file_name()
        .and_then(|name| name.to_str())
        .expect("a name")
}

/// Study S uploaded in the browser (its papers, its 8 runs at once, its ratings) is the study
/// the command line makes of the same files, one import a file: `status` and the leaderboard's
/// JSON, byte for byte.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn papers_and_eight_runs_uploaded_are_the_study_the_command_line_makes() {
    let files = tempfile::tempdir().expect("a directory");
    let (papers, runs, ratings) = study_s(files.path());
    assert_eq!(runs.len(), 8);

    let by_command_line = TestStudy::new().await;
    let cli_db = by_command_line.db_path();
    let path = |path: &Path| path.display().to_string();
    succeeded(&paperjudge(
        &cli_db,
        &["import", "papers", &path(&papers)],
        &[],
    ));
    for run in &runs {
        succeeded(&paperjudge(
            &cli_db,
            &["import", "recommendations", &path(run)],
            &[],
        ));
    }
    succeeded(&paperjudge(
        &cli_db,
        &["import", "ratings", &path(&ratings)],
        &[],
    ));

    let app = TestApp::spawn(TestStudy::new().await).await;
    let session = app.session_from("/import").await;
    let papers_csv = read(&papers);
    let job = started(&app, &session, "papers", &[("papers.csv", &papers_csv)]).await;
    let job = ended(&app, &job).await;
    assert_eq!(job["state"], "done");
    let summary = "read 1247 rows; papers: 1247 added, 0 updated, 0 unchanged; 0 rows dropped";
    assert_eq!(job["summary"], summary);
    let bytes: Vec<Vec<u8>> = runs.iter().map(|run| read(run)).collect();
    let files: Vec<File> = (runs.iter().zip(&bytes))
        .map(|(run, bytes)| (name(run), bytes.as_slice()))
        .collect();
    let job = started(&app, &session, "recommendations", &files).await;
    let job = ended(&app, &job).await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(job["rows"], 4160);
    assert_eq!(
        job["files"],
        json!(files.iter().map(|(name, _)| *name).collect::<Vec<_>>())
    );
    assert_eq!(
        job["summary"],
        "read 4160 rows; lists: 520 added, 0 updated, 0 unchanged; 0 rows dropped; pool: 1835 \
         pairs added, 0 removed"
    );
    let ratings_csv = read(&ratings);
    let job = started(&app, &session, "ratings", &[("ratings.csv", &ratings_csv)]).await;
    assert_eq!(ended(&app, &job).await["state"], "done");

    let web_db = app.study.db_path();
    for command in [
        &["status", "--format", "json"][..],
        &["leaderboard", "--format", "json", "--per-target"],
    ] {
        let expected = succeeded(&paperjudge(&cli_db, command, &[]));
        assert!(expected.len() > 300, "{expected}");
        assert_eq!(
            succeeded(&paperjudge(&web_db, command, &[])),
            expected,
            "{command:?}"
        );
    }
    assert!(leftovers(app.study.dir.path()).is_empty());
}

/// A plain form (no script) is answered once the import has ended, with its page: the summary
/// line, and after lists what the study rates now.
#[tokio::test]
async fn a_plain_form_is_answered_with_the_result_page() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    let session = app.session_from("/import").await;
    let (papers, runs) = papers_and_runs(8, &["alpha"]);
    let files = [("p.csv", papers.as_bytes())];
    let answer = upload(&app, &session, "papers", &files, Answer::Redirect).await;
    assert_eq!(answer.status(), StatusCode::SEE_OTHER);
    let page = Page::parse(&app.get_text(&location(&answer)).await);
    assert_eq!(page.text("h1"), "Import of papers");
    assert_eq!(
        page.text("#import-result"),
        "Imported: read 8 rows; papers: 8 added, 0 updated, 0 unchanged; 0 rows dropped."
    );
    let files = [("a.run", runs[0].as_bytes())];
    let answer = upload(&app, &session, "recommendations", &files, Answer::Redirect).await;
    let page = Page::parse(&app.get_text(&location(&answer)).await);
    assert_eq!(
        page.text("#import-result"),
        "Imported: read 12 rows; lists: 4 added, 0 updated, 0 unchanged; 0 rows dropped; pool: \
         12 pairs added, 0 removed."
    );
    assert_eq!(
        page.text("#import-study"),
        "The study is rating all 4 targets that have recommendations."
    );
}

/// Two run files, each with a broken line: every problem with its file, line and column, the
/// statement that nothing was written, and nothing written (not even the good lines, nor the
/// first file).
#[tokio::test]
async fn broken_lines_are_answered_with_file_line_and_column_and_nothing_is_written() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    let session = app.session_from("/import").await;
    let (papers, runs) = papers_and_runs(8, &["alpha", "bravo", "charlie"]);
    let job = started(&app, &session, "papers", &[("p.csv", papers.as_bytes())]).await;
    assert_eq!(ended(&app, &job).await["state"], "done");
    let before = app.study.snapshot().await;
    let broken_bravo = runs[1].replacen("P2 Q0 P4 2 8 bravo", "P2 Q0 P4 2 high bravo", 1);
    let broken_charlie = runs[2].replacen("P4 Q0 P7 3 7 charlie", "P4 Q0 P99 3 7 charlie", 1);
    let files: [File; 3] = [
        ("alpha.run", runs[0].as_bytes()),
        ("bravo.run", broken_bravo.as_bytes()),
        ("charlie.run", broken_charlie.as_bytes()),
    ];
    let job = started(&app, &session, "recommendations", &files).await;
    let job = ended(&app, &job).await;
    assert_eq!(job["state"], "failed", "{job}");
    assert_eq!(
        job["summary"], "nothing was written: 2 problems in 2 files",
        "{job}"
    );
    assert_eq!(
        job["problems"],
        json!([
            {"file": "bravo.run", "line": 5, "column": "score",
             "message": "expected a finite number, got \"high\""},
            {"file": "charlie.run", "line": 12, "column": "paper",
             "message": "unknown paper id \"P99\": import it with `paperjudge import papers` first"},
        ])
    );
    assert_eq!(app.study.snapshot().await, before);

    let page = Page::parse(
        &app.get_text(&format!("/import/{}", job["job"].as_str().unwrap()))
            .await,
    );
    assert_eq!(
        page.text("#import-result"),
        "Nothing was written to the study: 2 problems in 2 files."
    );
    assert_eq!(
        page.texts("#import-problems li"),
        [
            "bravo.run, line 5, column score: expected a finite number, got \"high\"",
            "charlie.run, line 12, column paper: unknown paper id \"P99\": import it with \
             `paperjudge import papers` first",
        ]
    );
    assert!(leftovers(app.study.dir.path()).is_empty());
}

pub(crate) const BOUNDARY: &str = "paperjudge-test-boundary";

/// A multipart body of `parts` (field name, file name, bytes), as a browser sends one.
pub(crate) fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, file, bytes) in parts {
        body.extend(
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"").bytes(),
        );
        if let Some(file) = file {
            body.extend(format!("; filename=\"{file}\"\r\nContent-Type: text/csv").bytes());
        }
        body.extend(b"\r\n\r\n");
        body.extend(*bytes);
        body.extend(b"\r\n");
    }
    body.extend(format!("--{BOUNDARY}--\r\n").bytes());
    body
}

/// A connection to the app that has sent the head of `POST /import` (with `headers`, each
/// ending in CRLF) and `body`, and is still open.
pub(crate) async fn posting(
    app: &TestApp,
    session: &Session,
    headers: &str,
    body: &[u8],
) -> tokio::net::TcpStream {
    let address = app.address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("a connection");
    let head = format!(
        "POST /import HTTP/1.1\r\nHost: {address}\r\nCookie: {}\r\nAccept: application/json\r\n\
         Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n{headers}\r\n",
        session.cookie
    );
    stream
        .write_all(head.as_bytes())
        .await
        .expect("the head is sent");
    stream.write_all(body).await.expect("the body is sent");
    stream
}

/// The answer on `stream`: its status line and its body.
pub(crate) async fn answer_on(mut stream: tokio::net::TcpStream) -> (String, String) {
    let mut answer = Vec::new();
    // The server may close the connection once it has answered.
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer.lines().next().unwrap_or_default().to_owned();
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body)
        .unwrap_or_default();
    (status, body.to_owned())
}

/// An upload over `serve --max-upload` is refused with 413 and the limit in words, before its
/// body is read when it says its length, and as soon as it grows past the limit when it does not
/// (chunked); nothing is imported, nothing is left, and the next upload goes on.
#[tokio::test]
async fn an_upload_over_the_limit_is_refused_with_413_and_the_limit_in_words() {
    let access = Access {
        max_upload: "4K".parse().expect("a size"),
        ..Access::default()
    };
    let app = TestApp::spawn_with(TestStudy::new().await, access).await;
    let session = app.session_from("/import").await;
    let page = Page::parse(&app.get_text("/import").await);
    assert_eq!(
        page.text("#study-holds"),
        "The study holds 0 papers and 0 recommendations of 0 models. An upload may hold up to 4 KiB."
    );
    let limit = "the upload is larger than the 4 KiB this server accepts, so nothing was imported \
                 (`paperjudge serve --max-upload SIZE` sets the limit, or import the files with \
                 `paperjudge import`)";
    let big = crate::common::papers_csv(100);
    assert!(big.len() > 5000);

    let refused = upload_papers(&app, &session, &big, Answer::Json).await;
    assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(
        refused.json::<Value>().await.expect("JSON"),
        json!({"error": limit})
    );

    let body = multipart(&[
        ("csrf_token", None, session.token.as_bytes()),
        ("kind", None, b"papers"),
        ("file", Some("p.csv"), big.as_bytes()),
    ]);
    let mut chunked = Vec::new();
    for chunk in body.chunks(1000) {
        chunked.extend(format!("{:x}\r\n", chunk.len()).bytes());
        chunked.extend(chunk);
        chunked.extend(b"\r\n");
    }
    chunked.extend(b"0\r\n\r\n");
    let stream = posting(&app, &session, "Transfer-Encoding: chunked\r\n", &chunked).await;
    let (status, answer) = answer_on(stream).await;
    assert_eq!(status, "HTTP/1.1 413 Payload Too Large");
    assert_eq!(
        serde_json::from_str::<Value>(&answer).expect("JSON"),
        json!({"error": limit})
    );

    nothing_left(app.study.dir.path()).await;
    assert_eq!(app.study.count("papers").await, 0);
    let small = crate::common::papers_csv(3);
    let job = started(&app, &session, "papers", &[("p.csv", small.as_bytes())]).await;
    assert_eq!(ended(&app, &job).await["state"], "done");
    assert_eq!(app.study.count("papers").await, 3);
}

/// Without the page's token (missing, wrong, or not first in the form) an upload is refused
/// with 403 before a byte of its files is kept.
#[tokio::test]
async fn an_upload_without_its_token_is_refused_with_403() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    let session = app.session_from("/import").await;
    let papers = crate::common::papers_csv(3);
    let forbidden =
        "the form's security token is missing or out of date: reload the page and try again";
    let wrong = Session {
        cookie: session.cookie.clone(),
        token: "0".repeat(64),
    };
    let answer = upload_papers(&app, &wrong, &papers, Answer::Json).await;
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        answer.json::<Value>().await.expect("JSON"),
        json!({"error": forbidden})
    );
    for parts in [
        vec![
            ("kind", None, &b"papers"[..]),
            ("file", Some("p.csv"), papers.as_bytes()),
        ],
        vec![
            ("kind", None, &b"papers"[..]),
            ("csrf_token", None, session.token.as_bytes()),
            ("file", Some("p.csv"), papers.as_bytes()),
        ],
        vec![
            ("file", Some("p.csv"), papers.as_bytes()),
            ("csrf_token", None, session.token.as_bytes()),
            ("kind", None, &b"papers"[..]),
        ],
    ] {
        let body = multipart(&parts);
        let length = format!("Content-Length: {}\r\n", body.len());
        let (status, answer) = answer_on(posting(&app, &session, &length, &body).await).await;
        assert_eq!(status, "HTTP/1.1 403 Forbidden");
        assert_eq!(
            serde_json::from_str::<Value>(&answer).expect("JSON"),
            json!({"error": forbidden})
        );
    }
    let plain = upload_papers(&app, &wrong, &papers, Answer::Redirect).await;
    assert_eq!(plain.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        error_message(&plain.text().await.expect("a page")),
        forbidden
    );
    nothing_left(app.study.dir.path()).await;
    assert_eq!(app.study.count("papers").await, 0);
}

/// A connection closed in the middle of an upload leaves nothing: its temporary file is
/// removed, the study is as it was, its job says that nothing was imported. While it was
/// arriving, a second upload was told to wait (409).
#[tokio::test]
async fn a_dropped_upload_leaves_nothing_and_a_second_one_meanwhile_gets_409() {
    let app = TestApp::with_fixture().await;
    let before = app.study.snapshot().await;
    let session = app.session_from("/import").await;
    let papers = crate::common::papers_csv(2000);
    let body = multipart(&[
        ("csrf_token", None, session.token.as_bytes()),
        ("kind", None, b"papers"),
        ("file", Some("papers.csv"), papers.as_bytes()),
    ]);
    let length = format!("Content-Length: {}\r\n", body.len());
    let stream = posting(&app, &session, &length, &body[..body.len() / 2]).await;
    let dir = app.study.dir.path();
    let waited = Instant::now();
    while leftovers(dir).is_empty() {
        assert!(
            waited.elapsed() < Duration::from_secs(10),
            "no upload file appeared"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let page = Page::parse(&app.get_text("/import").await);
    let job = page.attr("#import-running a", "href");
    assert_eq!(
        app.get(&format!("{job}.json"))
            .await
            .json::<Value>()
            .await
            .expect("JSON")["state"],
        "uploading"
    );

    let second = crate::common::papers_csv(1);
    let refused = upload_papers(&app, &session, &second, Answer::Json).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(
        refused.json::<Value>().await.expect("JSON"),
        json!({"error": "an import is running: wait until it has finished (its page follows it), then import again"})
    );

    drop(stream);
    nothing_left(dir).await;
    let job = ended(&app, &job).await;
    assert_eq!(job["state"], "failed");
    assert_eq!(
        job["summary"],
        "nothing was written: the upload did not arrive whole (the connection closed, or the \
         upload was refused)"
    );
    assert_eq!(app.study.snapshot().await, before);
    let job = started(&app, &session, "papers", &[("p.csv", second.as_bytes())]).await;
    assert_eq!(ended(&app, &job).await["state"], "done");
}

/// While an import from the browser writes, a rating is told within seconds that it was not
/// saved (503, `Retry-After`), as while an import of the command line holds the study, instead
/// of waiting for the import; once the import is done, it saves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rating_while_a_browser_import_writes_answers_503_at_once() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let rater = app.session(t1).await;
    let session = app.session_from("/import").await;
    // Another process holds the write lock, so that the import waits in its turn, writing.
    let mut other = crate::common::connections_to(&app.study.db_path())
        .await
        .acquire()
        .await
        .expect("a connection");
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut *other)
        .await
        .expect("the write lock");
    let papers = "id,title\nQ1,A new paper\n";
    let job = started(&app, &session, "papers", &[("p.csv", papers.as_bytes())]).await;
    let waited = Instant::now();
    while app
        .get(&format!("{job}.json"))
        .await
        .json::<Value>()
        .await
        .expect("JSON")["state"]
        != "writing"
    {
        assert!(
            waited.elapsed() < Duration::from_secs(10),
            "the import never writes"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // The import cannot end before the lock is let go below, so a rating that waited for it
    // would never be answered: the minute is only there to fail instead of hanging.
    let asked = Instant::now();
    let refused = tokio::time::timeout(
        Duration::from_secs(60),
        app.rate(&rater, t1, "P1", "4", Answer::Json),
    )
    .await
    .expect("the rating is answered while the import still writes");
    let took = asked.elapsed();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.headers()["retry-after"], "2");
    assert_eq!(
        refused.json::<Value>().await.expect("JSON"),
        json!({"error": "an import is running, so this change was NOT saved: save it again once \
                         the import has finished"})
    );
    // It waited its turn for the write lock (the busy timeout) before giving up.
    assert!(took >= Duration::from_secs(2), "{took:?}");
    assert_eq!(app.stored_stars("T1", "P1").await, None);

    sqlx::query("COMMIT")
        .execute(&mut *other)
        .await
        .expect("the lock is let go");
    assert_eq!(ended(&app, &job).await["state"], "done");
    let saved = app.rate(&rater, t1, "P1", "4", Answer::Json).await;
    assert_eq!(saved.status(), StatusCode::OK);
    assert_eq!(app.stored_stars("T1", "P1").await, Some(4));
}

/// A job the server does not keep (never made, or made before a restart) is a 404 that says
/// why; an address that is no job's is no page.
#[tokio::test]
async fn a_job_the_server_does_not_keep_is_a_404_that_says_why() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    let unknown = "0123456789abcdef0123456789abcdef";
    for path in [
        format!("/import/{unknown}"),
        format!("/import/{unknown}.json"),
    ] {
        let answer = app
            .http
            .get(app.url(&path))
            .header(ACCEPT, "application/json")
            .send()
            .await
            .expect("an answer");
        assert_eq!(answer.status(), StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            answer.json::<Value>().await.expect("JSON"),
            json!({"error": format!("there is no import {unknown} on this server: it keeps the \
                last 32 imports until it stops, and this one is not among them (the server may \
                have been restarted). Whatever an import wrote is in the study: the dashboard \
                and the import page show what it holds")}),
            "{path}"
        );
    }
    let page = app.get("/import/not-a-job").await;
    assert_eq!(page.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        error_message(&page.text().await.expect("a page")),
        "there is no page at this address"
    );
}

/// The pool depth is set on the import page while the study has no recommendations, as `init
/// --pool-depth` sets it, and shown (and refused) once it has.
#[tokio::test]
async fn the_pool_depth_is_set_before_the_first_list_and_shown_after() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    let mut browser = Browser::new(&app);
    let token = browser.form_token("/import").await;
    let page = Page::parse(&browser.get("/import").await.text().await.expect("a page"));
    assert_eq!(page.attr("#pool-depth", "value"), "8");
    for (depth, message) in [
        (
            "0",
            "the pool depth must be a whole number from 1 to 1000; got \"0\"",
        ),
        (
            "eight",
            "the pool depth must be a whole number from 1 to 1000; got \"eight\"",
        ),
    ] {
        let refused = browser
            .post(
                "/import/settings",
                &[("pool_depth", depth), ("csrf_token", &token)],
                Answer::Redirect,
            )
            .await;
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            error_message(&refused.text().await.expect("a page")),
            message
        );
    }
    let set = browser
        .post(
            "/import/settings",
            &[("pool_depth", "5"), ("csrf_token", &token)],
            Answer::Redirect,
        )
        .await;
    assert_eq!(set.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&set), "/import");
    let status: Value = serde_json::from_str(&succeeded(&paperjudge(
        &app.study.db_path(),
        &["status", "--format", "json"],
        &[],
    )))
    .expect("JSON");
    assert_eq!(status["pool_depth"], 5);
    let forged = browser
        .post("/import/settings", &[("pool_depth", "6")], Answer::Redirect)
        .await;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);

    let session = Session {
        cookie: browser.cookie_header(),
        token: token.clone(),
    };
    let (papers, runs) = papers_and_runs(8, &["alpha"]);
    for (kind, file) in [
        ("papers", ("p.csv", papers.as_bytes())),
        ("recommendations", ("a.run", runs[0].as_bytes())),
    ] {
        let job = started(&app, &session, kind, &[file]).await;
        assert_eq!(ended(&app, &job).await["state"], "done", "{kind}");
    }
    let page = Page::parse(&browser.get("/import").await.text().await.expect("a page"));
    assert_eq!(page.count("#pool-depth"), 0);
    assert_eq!(
        page.text("#pool-depth-fixed"),
        "Pool depth: 5 (fixed now that the study holds recommendations)."
    );
    let refused = browser
        .post(
            "/import/settings",
            &[("pool_depth", "6"), ("csrf_token", &token)],
            Answer::Redirect,
        )
        .await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        error_message(&refused.text().await.expect("a page")),
        "the pool depth is 5 and cannot change to 6: the study already holds recommendations \
         (start a new study file with --db to use another depth)"
    );
}

/// With a password, only a browser that has logged in imports.
#[tokio::test]
async fn with_a_password_only_a_logged_in_browser_imports() {
    let access = Access {
        password: Password::new("a long passphrase").ok(),
        ..Access::default()
    };
    let app = TestApp::spawn_with(TestStudy::new().await, access).await;
    let mut browser = Browser::new(&app);
    assert_eq!(location(&browser.get("/import").await), "/login");
    let papers = crate::common::papers_csv(3);
    let stranger = Session {
        cookie: String::new(),
        token: "0".repeat(64),
    };
    let refused = upload_papers(&app, &stranger, &papers, Answer::Redirect).await;
    assert_eq!(refused.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&refused), "/login");
    let refused = upload_papers(&app, &stranger, &papers, Answer::Json).await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(app.study.count("papers").await, 0);

    assert_eq!(
        browser.log_in("a long passphrase").await.status(),
        StatusCode::SEE_OTHER
    );
    let token = browser.form_token("/import").await;
    let session = Session {
        cookie: browser.cookie_header(),
        token,
    };
    let job = started(&app, &session, "papers", &[("p.csv", papers.as_bytes())]).await;
    let answer = app
        .http
        .get(app.url(&format!("{job}.json")))
        .send()
        .await
        .expect("an answer");
    assert_eq!(
        answer.status(),
        StatusCode::SEE_OTHER,
        "a job is the owner's too"
    );
    assert_eq!(ended_as(&app, Some(&session), &job).await["state"], "done");
    assert_eq!(app.study.count("papers").await, 3);
}

/// A file's name from the browser is shown, escaped, and never used as a path: the file is
/// kept under a name of the server's own beside the study.
#[tokio::test]
async fn a_file_name_from_the_browser_is_only_shown() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    let session = app.session_from("/import").await;
    let papers = "id,title\nA1,One\nA1,Twice\n";
    let name = "../../<img src=x onerror=alert(1)>.csv";
    let shown = "<img src=x onerror=alert(1)>.csv";
    let job = started(&app, &session, "papers", &[(name, papers.as_bytes())]).await;
    let job_json = ended(&app, &job).await;
    assert_eq!(job_json["files"], json!([shown]));
    assert_eq!(job_json["problems"][0]["file"], shown);
    let html = app.get_text(&job).await;
    let page = Page::parse(&html);
    assert_eq!(page.count("img"), 0, "{html}");
    assert_eq!(page.texts(".file-name"), [shown, shown]);
    let dir = app.study.dir.path();
    assert!(!dir.join(name).exists() && !dir.join(shown).exists());
    nothing_left(dir).await;
}

/// The navigation leads to the import page, and an empty study's dashboard starts there.
#[tokio::test]
async fn an_empty_study_starts_on_the_import_page() {
    let app = TestApp::spawn(TestStudy::new().await).await;
    let page = Page::parse(&app.get_text("/").await);
    assert_eq!(page.attr("#start-import", "href"), "/import");
    assert_eq!(
        page.text("#start-import"),
        "Start: upload your papers and your models' recommendations"
    );
    assert_eq!(page.attr(".site-nav a[href='/import']", "href"), "/import");
    assert_eq!(page.text(".site-nav a[href='/import']"), "Import");
}

/// A disk that fills up during an upload: 507, nothing left beside the study, the study as it
/// was, and the next upload that fits goes on. The server runs with a limit on the size of the
/// files it writes (`ulimit -f`), which fails a write as a full disk does once the server
/// survives the SIGXFSZ it sends (issue 32: it killed the server, and left the upload's
/// temporary file behind).
#[tokio::test]
async fn a_full_disk_during_an_upload_answers_507_and_leaves_nothing() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(3)).await;
    let before = study.snapshot().await;
    let db = study.db_path();
    let server = ServerProcess::start_with_file_size_limit(&db, 2048, &["--addr", "127.0.0.1:0"]);
    let mut browser = Browser::at(&server.address);
    let session = Session {
        token: browser.form_token("/import").await,
        cookie: browser.cookie_header(),
    };
    let papers = crate::common::papers_csv(40_000);
    assert!(papers.len() > 3 << 20, "{}", papers.len());
    let body = multipart(&[
        ("csrf_token", None, session.token.as_bytes()),
        ("kind", None, b"papers"),
        ("file", Some("papers.csv"), papers.as_bytes()),
    ]);
    let answer = (browser.http.post(server.url("/import")))
        .header(COOKIE, &session.cookie)
        .header(ACCEPT, "application/json")
        .header(
            "content-type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .body(body)
        .send()
        .await
        .expect("an answer");
    assert_eq!(answer.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert_eq!(
        answer.json::<Value>().await.expect("JSON"),
        json!({"error": "the server's disk is full, so this change was NOT saved: free some space \
                         on the server, then save it again"})
    );
    nothing_left(study.dir.path()).await;
    assert_eq!(study.snapshot().await, before);
    let small = crate::common::papers_csv(5);
    let answer = upload_to(
        &browser.http,
        &server.address,
        &session,
        "papers",
        &[("p.csv", small.as_bytes())],
        Answer::Redirect,
    )
    .await;
    assert_eq!(answer.status(), StatusCode::SEE_OTHER);
    assert_eq!(study.count("papers").await, 5);
}

/// With raters, a ratings file from the browser is read as `paperjudge import ratings` reads
/// it: a `rater` column names whose rating each row is, a file without one holds the owner's,
/// and a name the study does not know fails the upload at its line and column with nothing
/// written.
#[tokio::test]
async fn a_ratings_file_from_the_browser_names_its_raters_as_the_command_lines_does() {
    let study = TestStudy::new().await;
    for rater in ["Ann", "Bo"] {
        let name = paperjudge::domain::RaterName::new(rater).unwrap();
        (study
            .study
            .raters()
            .add(&name, &format!("{rater}'s password")))
        .await
        .expect("added");
    }
    let access = Access {
        password: Password::new("the owner's password").ok(),
        ..Access::default()
    };
    let app = TestApp::spawn_with(study, access).await;
    let mut owner = Browser::new(&app);
    let signed = owner.log_in("the owner's password").await;
    assert_eq!(signed.status(), StatusCode::SEE_OTHER);
    let session = Session {
        token: owner.form_token("/import").await,
        cookie: owner.cookie_header(),
    };
    let (papers, runs) = papers_and_runs(8, &["alpha", "bravo"]);
    let job = started(&app, &session, "papers", &[("p.csv", papers.as_bytes())]).await;
    assert_eq!(ended_as(&app, Some(&session), &job).await["state"], "done");
    let files: [File; 2] = [
        ("alpha.run", runs[0].as_bytes()),
        ("bravo.run", runs[1].as_bytes()),
    ];
    let job = started(&app, &session, "recommendations", &files).await;
    assert_eq!(ended_as(&app, Some(&session), &job).await["state"], "done");

    let by_raters = "target,paper,stars,rater\nP1,P2,4,Ann\nP1,P2,2,Bo\nP1,P3,5,Bo\n";
    let job = started(
        &app,
        &session,
        "ratings",
        &[("r.csv", by_raters.as_bytes())],
    )
    .await;
    assert_eq!(ended_as(&app, Some(&session), &job).await["state"], "done");
    let the_owners = "target,paper,stars\nP1,P4,3\n";
    let job = started(
        &app,
        &session,
        "ratings",
        &[("o.csv", the_owners.as_bytes())],
    )
    .await;
    assert_eq!(ended_as(&app, Some(&session), &job).await["state"], "done");
    let stored = || async {
        let rows: Vec<(String, String, String, i64)> = sqlx::query_as(
            "SELECT t.external_id, p.external_id, w.name, r.stars FROM ratings r
             JOIN papers t ON t.id = r.target_id JOIN papers p ON p.id = r.paper_id
             JOIN raters w ON w.id = r.rater_id ORDER BY 1, 2, 3",
        )
        .fetch_all(&app.study.connections)
        .await
        .unwrap();
        rows
    };
    let row = |paper: &str, rater: &str, stars| {
        ("P1".to_owned(), paper.to_owned(), rater.to_owned(), stars)
    };
    let expected = vec![
        row("P2", "Ann", 4),
        row("P2", "Bo", 2),
        row("P3", "Bo", 5),
        row("P4", "owner", 3),
    ];
    assert_eq!(stored().await, expected);

    let before = app.study.snapshot().await;
    let unknown = "target,paper,stars,rater\nP2,P3,4,Ann\nP2,P4,4,Cy\n";
    let job = started(&app, &session, "ratings", &[("u.csv", unknown.as_bytes())]).await;
    let job = ended_as(&app, Some(&session), &job).await;
    assert_eq!(job["state"], "failed", "{job}");
    assert_eq!(
        job["problems"],
        json!([{"file": "u.csv", "line": 3, "column": "rater",
                "message": "there is no rater \"Cy\" in this study (`paperjudge raters list` lists them)"}])
    );
    assert_eq!(app.study.snapshot().await, before);
    assert_eq!(stored().await, expected);
}
