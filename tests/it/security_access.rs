//! Access control: the refusal to serve a public address without a password (or with a weak
//! one), the login that every page but `/healthz` and the login page needs, sessions, logout,
//! slowed guessing, the caps on request bodies, and the names answered (DNS rebinding).

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, TcpStream};

use crate::process_support::{paperjudge_ending, ServerProcess};
use crate::web_support::{error_message, hidden_token, Answer, Browser, Page, TestApp};
use paperjudge::web::{Access, Password};
use reqwest::header::{
    CONTENT_SECURITY_POLICY, COOKIE, LOCATION, RETRY_AFTER, SET_COOKIE, X_CONTENT_TYPE_OPTIONS,
};
use reqwest::{Response, StatusCode};
use serde_json::json;

use crate::common::TestStudy;

const PASSWORD: &str = "correct horse battery staple";

/// Target T1 with papers P1 and P2 in its pool.
async fn small_study() -> TestStudy {
    let study = TestStudy::new().await;
    study
        .papers("id,title\nT1,Target one\nP1,Paper one\nP2,Paper two\n")
        .await;
    study
        .recommendations("model,target,rank,paper\nm,T1,1,P1\nm,T1,2,P2\n")
        .await;
    study
}

async fn protected_app(behind_tls: bool) -> TestApp {
    protected_app_trusting(behind_tls, Vec::new()).await
}

async fn protected_app_trusting(behind_tls: bool, trusted_proxies: Vec<IpAddr>) -> TestApp {
    let access = Access {
        password: Password::new(PASSWORD).ok(),
        behind_tls,
        trusted_proxies,
        ..Access::default()
    };
    TestApp::spawn_with(small_study().await, access).await
}

fn location(response: &Response) -> &str {
    response
        .headers()
        .get(LOCATION)
        .map(|value| value.to_str().expect("ASCII"))
        .unwrap_or_default()
}

/// The `Set-Cookie` header of the session cookie, if the response sets one.
fn session_set_cookie(response: &Response) -> Option<String> {
    set_cookie_starting(response, "paperjudge_session=")
}

/// The `Set-Cookie` header of a response that starts with `prefix`.
fn set_cookie_starting(response: &Response, prefix: &str) -> Option<String> {
    response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .map(|value| value.to_str().expect("ASCII").to_owned())
        .find(|value| value.starts_with(prefix))
}

#[tokio::test]
async fn without_a_password_nothing_is_asked_and_there_is_no_login_page() {
    let app = TestApp::spawn(small_study().await).await;
    let mut browser = Browser::new(&app);

    assert_eq!(browser.get("/").await.status(), StatusCode::OK);
    assert_eq!(browser.get("/targets").await.status(), StatusCode::OK);
    assert_eq!(browser.get("/login").await.status(), StatusCode::NOT_FOUND);
    assert_eq!(browser.get("/logout").await.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn with_a_password_every_page_but_healthz_and_login_needs_a_session() {
    let app = protected_app(false).await;
    let t1 = app.paper_id("T1").await;
    let mut browser = Browser::new(&app);

    let health = browser.get("/healthz").await;
    assert_eq!(health.status(), StatusCode::OK);
    assert_eq!(health.text().await.expect("a body"), "ok");
    let login = browser.get("/login").await;
    assert_eq!(login.status(), StatusCode::OK);
    assert_eq!(login.headers()[X_CONTENT_TYPE_OPTIONS], "nosniff");
    let page = Page::parse(&login.text().await.expect("a page"));
    let form = "form[method=post][action='/login']";
    assert_eq!(
        page.count(&format!("{form} input[type=password][name=password]")),
        1
    );
    assert_eq!(
        page.count(&format!("{form} input[type=hidden][name=csrf_token]")),
        1
    );
    let stylesheet = browser.get("/static/style.css").await;
    assert_eq!(stylesheet.status(), StatusCode::OK);

    for path in [
        "/".to_owned(),
        "/targets".to_owned(),
        format!("/targets/{t1}"),
        "/next".to_owned(),
        "/logout".to_owned(),
        "/static/rating.js".to_owned(),
        "/leaderboard".to_owned(),
        "/export/ratings.csv".to_owned(),
        "/no/such/page".to_owned(),
    ] {
        let response = browser.get(&path).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{path}");
        assert_eq!(location(&response), "/login", "{path}");
        assert!(
            response.headers().contains_key(CONTENT_SECURITY_POLICY),
            "{path}"
        );
    }

    // The rating script hears why, and what to do; a plain form goes to the login page.
    let token = browser.form_token("/login").await;
    let rating = [("paper", "P1"), ("stars", "4"), ("csrf_token", &token)];
    let scripted = browser
        .post(&format!("/targets/{t1}/ratings"), &rating, Answer::Json)
        .await;
    assert_eq!(scripted.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        scripted.json::<serde_json::Value>().await.expect("JSON"),
        json!({"error": "you are not logged in (or your session ended): reload the page to log in"})
    );
    let plain = browser
        .post(&format!("/targets/{t1}/ratings"), &rating, Answer::Redirect)
        .await;
    assert_eq!(plain.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&plain), "/login");
    assert_eq!(app.study.count("ratings").await, 0);
}

#[tokio::test]
async fn a_wrong_password_is_refused_and_the_right_one_opens_a_session() {
    let app = protected_app(false).await;
    let t1 = app.paper_id("T1").await;
    let mut browser = Browser::new(&app);
    let login_page = browser.get("/login").await;
    let csrf = set_cookie_starting(&login_page, "paperjudge_browser=").expect("a CSRF cookie");
    assert!(!csrf.contains("Secure"), "{csrf}");

    for wrong in [
        "",
        "correct horse battery stapl",
        "CORRECT HORSE BATTERY STAPLE",
    ] {
        let refused = browser.log_in(wrong).await;
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED, "{wrong:?}");
        assert_eq!(session_set_cookie(&refused), None, "{wrong:?}");
        let page = Page::parse(&refused.text().await.expect("a page"));
        assert!(
            page.all_text().contains("That password is wrong."),
            "{wrong:?}"
        );
    }

    let accepted = browser.log_in(PASSWORD).await;
    assert_eq!(accepted.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&accepted), "/");
    let cookie = session_set_cookie(&accepted).expect("a session cookie");
    let token = browser.cookie("paperjudge_session").expect("kept");
    assert_eq!(token.len(), 64, "{cookie}");
    assert!(
        token.bytes().all(|byte| byte.is_ascii_hexdigit()),
        "{cookie}"
    );
    assert!(cookie.contains("; HttpOnly"), "{cookie}");
    assert!(cookie.contains("; SameSite=Strict"), "{cookie}");
    assert!(cookie.contains("; Path=/"), "{cookie}");
    assert!(cookie.contains("; Max-Age=604800"), "{cookie}");
    assert!(!cookie.contains("Secure"), "{cookie}");

    assert_eq!(browser.get("/").await.status(), StatusCode::OK);
    let login_again = browser.get("/login").await;
    assert_eq!(login_again.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&login_again), "/");
    let token = browser.form_token(&format!("/targets/{t1}")).await;
    let rated = browser
        .post(
            &format!("/targets/{t1}/ratings"),
            &[("paper", "P1"), ("stars", "4"), ("csrf_token", &token)],
            Answer::Json,
        )
        .await;
    assert_eq!(rated.status(), StatusCode::OK);
    assert_eq!(app.stored_stars("T1", "P1").await, Some(4));
}

#[tokio::test]
async fn behind_tls_the_session_and_csrf_cookies_are_secure() {
    let app = protected_app(true).await;
    let mut browser = Browser::new(&app);

    let login_page = browser.get("/login").await;
    let csrf = set_cookie_starting(&login_page, "paperjudge_browser=").expect("a CSRF cookie");
    assert!(csrf.contains("; Secure"), "{csrf}");
    assert!(csrf.contains("; HttpOnly"), "{csrf}");
    let accepted = browser.log_in(PASSWORD).await;

    assert_eq!(accepted.status(), StatusCode::SEE_OTHER);
    let cookie = session_set_cookie(&accepted).expect("a session cookie");
    assert!(cookie.contains("; Secure"), "{cookie}");
}

#[tokio::test]
async fn a_session_cookie_the_server_did_not_make_opens_nothing() {
    let app = protected_app(false).await;
    let mut logged_in = Browser::new(&app);
    logged_in.log_in(PASSWORD).await;
    let real = logged_in
        .cookie("paperjudge_session")
        .expect("a session")
        .to_owned();

    for forged in [
        "0".repeat(64),
        real.to_uppercase(),
        real[..63].to_owned(),
        format!("{real}0"),
        "admin".to_owned(),
    ] {
        let mut forger = Browser::new(&app);
        forger.set_cookie("paperjudge_session", &forged);
        let response = forger.get("/").await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{forged}");
        assert_eq!(location(&response), "/login", "{forged}");
    }
}

#[tokio::test]
async fn logging_out_ends_the_session_on_the_server_too() {
    let app = protected_app(false).await;
    let mut browser = Browser::new(&app);
    browser.log_in(PASSWORD).await;
    let session = browser
        .cookie("paperjudge_session")
        .expect("a session")
        .to_owned();
    let logout_page = browser.get("/logout").await;
    assert_eq!(logout_page.status(), StatusCode::OK);
    let page = Page::parse(&logout_page.text().await.expect("a page"));
    let token = page.attr(
        "form[method=post][action='/logout'] input[name=csrf_token]",
        "value",
    );

    let without_token = browser.post("/logout", &[], Answer::Redirect).await;
    assert_eq!(without_token.status(), StatusCode::FORBIDDEN);
    let logged_out = browser
        .post("/logout", &[("csrf_token", &token)], Answer::Redirect)
        .await;

    assert_eq!(logged_out.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&logged_out), "/login");
    let removal = session_set_cookie(&logged_out).expect("the cookie is removed");
    assert!(removal.starts_with("paperjudge_session=;"), "{removal}");
    assert!(removal.contains("Max-Age=0"), "{removal}");
    // A copy of the cookie kept elsewhere opens nothing any more.
    let mut copy = Browser::new(&app);
    copy.set_cookie("paperjudge_session", &session);
    let response = copy.get("/").await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&response), "/login");
}

#[tokio::test]
async fn a_login_without_the_form_token_is_refused() {
    let app = protected_app(false).await;
    let mut browser = Browser::new(&app);
    browser.form_token("/login").await;

    let response = browser
        .post("/login", &[("password", PASSWORD)], Answer::Redirect)
        .await;

    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(session_set_cookie(&response), None);
}

/// Five wrong passwords, each refused as wrong: the most a client may try in a minute.
async fn guess_five_times(guesser: &mut Browser) {
    for attempt in 1..=5 {
        let refused = guesser.log_in(&format!("guess {attempt}")).await;
        assert_eq!(
            refused.status(),
            StatusCode::UNAUTHORIZED,
            "attempt {attempt}"
        );
    }
}

/// Five wrong sign-ins, each at a name of its own (no name's count reaches its limit), each
/// refused as wrong: the most a client may try in a minute.
async fn guess_five_names(guesser: &mut Browser) {
    for attempt in 1..=5 {
        let refused = guesser
            .log_in_as(&format!("guesser {attempt}"), "guess")
            .await;
        assert_eq!(
            refused.status(),
            StatusCode::UNAUTHORIZED,
            "attempt {attempt}"
        );
    }
}

#[tokio::test]
async fn the_sixth_attempt_in_a_minute_is_refused_even_with_the_right_password() {
    let app = protected_app(false).await;
    let mut guesser = Browser::new(&app);
    guess_five_times(&mut guesser).await;

    let sixth = guesser.log_in(PASSWORD).await;

    assert_eq!(sixth.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(session_set_cookie(&sixth), None);
    let retry_after: u64 = sixth.headers()[RETRY_AFTER]
        .to_str()
        .expect("ASCII")
        .parse()
        .expect("seconds");
    assert!((55..=60).contains(&retry_after), "{retry_after}");
    let page = Page::parse(&sixth.text().await.expect("a page"));
    assert!(
        page.all_text().contains(&format!(
            "Too many login attempts from your address: try again in {retry_after} seconds."
        )),
        "{retry_after}"
    );
    // Any loopback address is this machine: another one of them is the same client (issue 32:
    // each of 127.x.y.z had five tries of its own).
    for last in [2, 3, 200] {
        let mut local = Browser::from(&app, Ipv4Addr::new(127, 0, 0, last));
        let refused = local.log_in_as(&format!("local {last}"), PASSWORD).await;
        assert_eq!(
            refused.status(),
            StatusCode::TOO_MANY_REQUESTS,
            "127.0.0.{last}"
        );
        let page = Page::parse(&refused.text().await.expect("a page"));
        assert!(
            page.all_text()
                .contains("Too many login attempts from your address"),
            "127.0.0.{last}"
        );
    }
}

#[tokio::test]
async fn parallel_guesses_get_no_more_than_five_tries() {
    let app = protected_app(false).await;
    let mut browser = Browser::from(&app, Ipv4Addr::new(127, 0, 0, 3));
    let token = browser.form_token("/login").await;
    let cookie = browser.cookie_header();

    let guesses = (0..12).map(|guess| {
        let request = browser
            .http
            .post(format!("{}/login", app.address))
            .header(COOKIE, cookie.clone())
            .form(&[
                ("password", format!("guess {guess}")),
                ("csrf_token", token.clone()),
            ]);
        async move { request.send().await.expect("POST answers").status() }
    });
    let mut statuses = all_at_once(guesses).await;

    statuses.sort();
    let mut expected = vec![StatusCode::UNAUTHORIZED; 5];
    expected.extend([StatusCode::TOO_MANY_REQUESTS; 7]);
    assert_eq!(statuses, expected);
}

#[tokio::test]
async fn behind_the_proxy_guesses_from_one_client_do_not_lock_out_another() {
    let app = protected_app(true).await;
    let mut guesser = Browser::through_proxy(&app, "203.0.113.9");
    guess_five_names(&mut guesser).await;
    let sixth = guesser.log_in(PASSWORD).await;
    assert_eq!(sixth.status(), StatusCode::TOO_MANY_REQUESTS);
    // What the guesser writes itself comes before what the proxy appends, so naming another
    // client does not reset its count.
    let mut pretending = Browser::through_proxy(&app, "198.51.100.7, 203.0.113.9");
    let pretended = pretending.log_in(PASSWORD).await;
    assert_eq!(pretended.status(), StatusCode::TOO_MANY_REQUESTS);

    // The researcher comes through the same proxy, from elsewhere.
    let mut researcher = Browser::through_proxy(&app, "198.51.100.7");
    let accepted = researcher.log_in(PASSWORD).await;

    assert_eq!(accepted.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&accepted), "/");
}

#[tokio::test]
async fn a_forwarded_address_counts_only_from_the_proxy() {
    // Not behind a proxy, or reached by a peer that is not the proxy: the header is the
    // client's own claim, and ignored.
    for (behind_tls, trusted) in [
        (false, Vec::new()),
        (true, vec![IpAddr::V4(Ipv4Addr::new(127, 0, 0, 9))]),
    ] {
        let app = protected_app_trusting(behind_tls, trusted.clone()).await;
        for attempt in 1..=5 {
            let mut guesser = Browser::through_proxy(&app, &format!("203.0.113.{attempt}"));
            let refused = guesser
                .log_in_as(&format!("guesser {attempt}"), "guess")
                .await;
            assert_eq!(refused.status(), StatusCode::UNAUTHORIZED, "{trusted:?}");
        }
        let mut sixth = Browser::through_proxy(&app, "198.51.100.7");
        let refused = sixth.log_in(PASSWORD).await;
        assert_eq!(
            refused.status(),
            StatusCode::TOO_MANY_REQUESTS,
            "{trusted:?}"
        );
    }
}

/// Runs the requests at once, each on a task of its own.
async fn all_at_once(
    requests: impl Iterator<Item = impl std::future::Future<Output = StatusCode> + Send + 'static>,
) -> Vec<StatusCode> {
    let tasks: Vec<_> = requests.map(tokio::spawn).collect();
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.expect("the request task"));
    }
    statuses
}

#[tokio::test]
async fn an_oversized_login_form_gets_413() {
    let app = protected_app(false).await;
    let mut browser = Browser::new(&app);
    let token = browser.form_token("/login").await;

    let response = browser
        .post(
            "/login",
            &[("password", &"x".repeat(5000)), ("csrf_token", &token)],
            Answer::Redirect,
        )
        .await;

    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(
        crate::web_support::error_message(&response.text().await.expect("a page")),
        "the form is larger than the 4096 bytes accepted"
    );
}

/// Sends `request` to `app` as it is, byte for byte; answers the status line of the answer.
async fn raw_status_line(app: &TestApp, request: String) -> String {
    let address = app.address.trim_start_matches("http://").to_owned();
    tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(address).expect("a connection");
        stream
            .write_all(request.as_bytes())
            .expect("the request is sent");
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer).into_owned();
        answer.lines().next().unwrap_or_default().to_owned()
    })
    .await
    .expect("the raw request")
}

#[tokio::test]
async fn a_chunked_body_without_a_length_is_cut_off_at_the_cap_too() {
    let app = TestApp::spawn(small_study().await).await;
    let t1 = app.paper_id("T1").await;
    let host = app.address.trim_start_matches("http://");
    // 8 KiB in 1 KiB chunks: twice the cap of an undo's form, and small enough to be sent
    // whole before the server answers.
    let chunk = format!("400\r\n{}\r\n", "a".repeat(0x400));
    let request = format!(
        "POST /targets/{t1}/undo HTTP/1.1\r\nHost: {host}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n{}0\r\n\r\n",
        chunk.repeat(8)
    );

    let status_line = raw_status_line(&app, request).await;

    assert_eq!(status_line, "HTTP/1.1 413 Payload Too Large");
    assert_eq!(app.study.count("ratings").await, 0);
}

#[tokio::test]
async fn serve_refuses_a_public_address_without_a_password() {
    let study = TestStudy::new().await;

    for address in ["0.0.0.0:0", "[::]:8080", "192.0.2.1:8080"] {
        let output = paperjudge_ending(&study.db_path(), &["serve", "--addr", address], &[]);

        assert_eq!(output.status.code(), Some(2), "{address}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            format!(
                "paperjudge: refusing to serve on {address} without a password: other machines \
                 can reach that address. Set PAPERJUDGE_PASSWORD or pass --password-file FILE, \
                 add raters (`paperjudge raters add`), or serve on 127.0.0.1 (the default)\n"
            ),
            "{address}"
        );
    }
}

#[tokio::test]
async fn serve_refuses_an_empty_password_or_two_of_them() {
    let study = TestStudy::new().await;
    let empty = study.dir.path().join("empty-password");
    std::fs::write(&empty, "\n").expect("the file is written");
    let empty = empty.to_str().expect("a UTF-8 path");
    let serve = |args: &[&str], env: &[(&str, &str)]| {
        let output = paperjudge_ending(&study.db_path(), &[&["serve"], args].concat(), env);
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };

    assert_eq!(
        serve(&["--password-file", empty], &[]),
        (
            Some(2),
            format!("paperjudge: the password in the password file {empty} is empty\n")
        )
    );
    assert_eq!(
        serve(&[], &[("PAPERJUDGE_PASSWORD", "")]),
        (
            Some(2),
            "paperjudge: the password in PAPERJUDGE_PASSWORD is empty\n".to_owned()
        )
    );
    assert_eq!(
        serve(&["--password-file", empty], &[("PAPERJUDGE_PASSWORD", "x")]),
        (
            Some(2),
            "paperjudge: give the password one way: PAPERJUDGE_PASSWORD or --password-file, \
             not both\n"
                .to_owned()
        )
    );
}

#[tokio::test]
async fn serve_refuses_a_password_under_8_characters_or_of_white_space_only() {
    let study = TestStudy::new().await;
    let file = study.dir.path().join("password");
    let path = file.to_str().expect("a UTF-8 path");
    let from_file = format!("the password file {path}");
    let weak = [
        ("x", "has 1 character"),
        ("seven c", "has 7 characters"),
        // Seven characters, one of them two bytes long.
        ("pässwd!", "has 7 characters"),
        ("   ", "is only white space"),
        (" \t        ", "is only white space"),
    ];

    for (password, why) in weak {
        let why = match why {
            "is only white space" => {
                "is only white space; a password needs 8 characters or more, not all of them \
                 white space"
                    .to_owned()
            }
            short => format!("{short}; a password needs 8 or more"),
        };
        std::fs::write(&file, format!("{password}\n")).expect("written");
        for (args, env, source) in [
            (&["serve", "--password-file", path][..], &[][..], &from_file),
            (
                &["serve"][..],
                &[("PAPERJUDGE_PASSWORD", password)][..],
                &"PAPERJUDGE_PASSWORD".to_owned(),
            ),
        ] {
            let output = paperjudge_ending(&study.db_path(), args, env);
            assert_eq!(output.status.code(), Some(2), "{password:?} from {source}");
            assert_eq!(
                String::from_utf8_lossy(&output.stderr),
                format!("paperjudge: the password in {source} {why}\n"),
            );
        }
    }

    // Eight characters will do.
    let server = ServerProcess::start(
        &study.db_path(),
        &["--addr", "127.0.0.1:0"],
        &[("PAPERJUDGE_PASSWORD", "8 chars!")],
    );
    assert_eq!(log_in_to(&server, "8 chars!").await, StatusCode::SEE_OTHER);
}

/// Logs in to a server process with `password`; answers the login's status.
async fn log_in_to(server: &ServerProcess, password: &str) -> StatusCode {
    Browser::at(&server.address).log_in(password).await.status()
}

#[tokio::test]
async fn with_a_password_serve_binds_a_public_address_behind_the_login() {
    let study = TestStudy::new().await;
    let password_file = study.dir.path().join("password");
    // The first line is the password; its line break and the rest are not.
    std::fs::write(&password_file, format!("{PASSWORD}\r\nnot this\n")).expect("written");
    let file = password_file.to_str().expect("a UTF-8 path");

    let server = ServerProcess::start(
        &study.db_path(),
        &["--addr", "0.0.0.0:0", "--password-file", file],
        &[],
    );

    let http = crate::web_support::http_client()
        .build()
        .expect("an HTTP client");
    let health = http.get(server.url("/healthz")).send().await.expect("GET");
    assert_eq!(health.status(), StatusCode::OK);
    let home = http.get(server.url("/")).send().await.expect("GET");
    assert_eq!(home.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&home), "/login");
    assert_eq!(
        log_in_to(&server, "not this").await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(log_in_to(&server, PASSWORD).await, StatusCode::SEE_OTHER);
    // Without --host, the names other machines use are not answered, and the log says so.
    let warned = server.log().into_iter().any(|line| {
        line.contains(
            "no --host given: only localhost, 127.0.0.1 and [::1] are answered, and a browser \
             that reaches paperjudge by another name (from another machine, or through the TLS \
             proxy) gets 421 until that name is given with --host NAME",
        )
    });
    assert!(warned, "{:?}", server.log());
}

#[tokio::test]
async fn a_password_file_others_can_read_gets_a_warning() {
    let study = TestStudy::new().await;
    let mut warnings = Vec::new();
    for mode in [0o644, 0o640, 0o600] {
        let file = study.dir.path().join(format!("password-{mode:o}"));
        std::fs::write(&file, PASSWORD).expect("written");
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(mode))
            .expect("the mode is set");
        let path = file.to_str().expect("a UTF-8 path");
        let server = ServerProcess::start(
            &study.db_path(),
            &["--addr", "127.0.0.1:0", "--password-file", path],
            &[],
        );
        let warned = server.log().into_iter().any(|line| {
            line.contains(&format!(
                "the password file {path} can be read by other users of this machine (mode \
                 {mode:03o}): run chmod 600 on it"
            ))
        });
        warnings.push((mode, warned));
    }
    assert_eq!(warnings, [(0o644, true), (0o640, true), (0o600, false)]);
}

#[tokio::test]
async fn the_password_may_come_from_the_environment() {
    let study = TestStudy::new().await;

    let server = ServerProcess::start(
        &study.db_path(),
        &["--addr", "127.0.0.1:0"],
        &[("PAPERJUDGE_PASSWORD", PASSWORD)],
    );

    assert_eq!(log_in_to(&server, "wrong").await, StatusCode::UNAUTHORIZED);
    assert_eq!(log_in_to(&server, PASSWORD).await, StatusCode::SEE_OTHER);
}

/// The port of an app or server at `http://127.0.0.1:PORT`.
fn port_of(address: &str) -> u16 {
    let port = address.rsplit(':').next().expect("a port");
    port.parse().expect("a port number")
}

/// What the app answers a request for `host` that it refuses (DNS rebinding), when it answers
/// the loopback names on `port` and `names`.
fn misdirected(host: &str, port: u16, names: &str) -> String {
    format!(
        "this server does not answer to the host {host:?}: it answers to localhost, 127.0.0.1 \
         or [::1] on port {port}{names}, so that no other site can reach the study through a \
         name of its own that points at this machine (DNS rebinding); `paperjudge serve --host \
         NAME` adds a name, with a password or --behind-tls"
    )
}

/// The status of the page at `path`, and of a rating of P1 posted as from a page of the site,
/// for a browser on the site `host` (a name that points at `app`), and the error message
/// of the page if it is refused.
async fn page_and_rating_for(app: &TestApp, host: &str) -> (StatusCode, StatusCode, String) {
    let t1 = app.paper_id("T1").await;
    let mut browser = Browser::on_site(&app.address, host);
    let page = browser.get(&format!("/targets/{t1}")).await;
    let page_status = page.status();
    let page = page.text().await.expect("a page");
    // A page of the site would carry a token; a refused one carries none, so the attacker's
    // page uses one the app gave at its real address.
    let token = match hidden_token(&page) {
        Some(token) => token,
        None => {
            let mut real = Browser::new(app);
            let token = real.form_token(&format!("/targets/{t1}")).await;
            let cookie = real
                .cookie("paperjudge_browser")
                .expect("a cookie")
                .to_owned();
            browser.set_cookie("paperjudge_browser", &cookie);
            token
        }
    };
    let fields = [("paper", "P1"), ("stars", "4"), ("csrf_token", &token)];
    let rating = browser
        .post(&format!("/targets/{t1}/ratings"), &fields, Answer::Json)
        .await;
    let rating_status = rating.status();
    let message = match page_status {
        StatusCode::OK => String::new(),
        _ => error_message(&page),
    };
    if rating_status != StatusCode::OK {
        let answer: serde_json::Value = rating.json().await.expect("a JSON error");
        assert_eq!(answer["error"], message, "{host}");
    }
    (page_status, rating_status, message)
}

#[tokio::test]
async fn without_a_password_only_the_loopback_hosts_on_the_port_are_answered() {
    let app = TestApp::spawn(small_study().await).await;
    let port = port_of(&app.address);
    let misdirected = |host: &str| misdirected(host, port, "");
    let answered = (StatusCode::OK, StatusCode::OK, String::new());
    let refused = |host: &str| {
        (
            StatusCode::MISDIRECTED_REQUEST,
            StatusCode::MISDIRECTED_REQUEST,
            misdirected(host),
        )
    };

    // The page, and a rating posted from it as a browser on the site would post it.
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        format!("LocalHost:{port}"),
        format!("localhost.:{port}"),
        format!("127.0.0.2:{port}"),
    ] {
        assert_eq!(page_and_rating_for(&app, &host).await, answered, "{host}");
    }
    assert_eq!(app.study.count("rating_history").await, 1);

    // A page of another site whose name points here reads nothing and saves nothing, even
    // with a token and cookie the app gave at its real address.
    for host in [
        format!("evil.example:{port}"),
        format!("localhost.evil.example:{port}"),
        format!("127.0.0.1.nip.io:{port}"),
        format!("192.0.2.1:{port}"),
        format!("[2001:db8::1]:{port}"),
        "evil.example".to_owned(),
        // A loopback name on another port is another origin (a forwarded port, another
        // server); without a port it means port 80.
        format!("localhost:{}", port.wrapping_add(1)),
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
    ] {
        assert_eq!(page_and_rating_for(&app, &host).await, refused(&host));
    }
    assert_eq!(app.study.count("rating_history").await, 1);

    // A client's own X-Forwarded-Host is not believed without a proxy.
    let t1 = app.paper_id("T1").await;
    let forged = app
        .http
        .get(app.url(&format!("/targets/{t1}")))
        .header("host", format!("evil.example:{port}"))
        .header("x-forwarded-host", format!("localhost:{port}"))
        .header("accept", "application/json")
        .send()
        .await
        .expect("an answer");
    assert_eq!(forged.status(), StatusCode::MISDIRECTED_REQUEST);
    assert_eq!(
        forged.json::<serde_json::Value>().await.expect("JSON"),
        json!({ "error": misdirected(&format!("evil.example:{port}")) })
    );
    // The health check says "ok" to anyone (a service manager or a container's probe may ask
    // by any name) and nothing else.
    let health = app
        .http
        .get(app.url("/healthz"))
        .header("host", "evil.example")
        .send()
        .await
        .expect("an answer");
    assert_eq!(health.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_request_without_a_host_is_refused_with_400() {
    let app = TestApp::spawn(small_study().await).await;

    let status_line = raw_status_line(&app, "GET /targets HTTP/1.0\r\n\r\n".to_owned()).await;

    assert_eq!(status_line, "HTTP/1.0 400 Bad Request");
}

#[tokio::test]
async fn with_a_password_the_names_of_host_are_answered_too() {
    let study = small_study().await;
    let server = ServerProcess::start(
        &study.db_path(),
        &[
            "--addr",
            "127.0.0.1:0",
            "--host",
            "lab.example",
            "--host",
            "Cam.Example.",
        ],
        &[("PAPERJUDGE_PASSWORD", PASSWORD)],
    );
    let port = port_of(&server.address);
    let names = ", or lab.example or cam.example on any port";

    for host in [
        format!("lab.example:{port}"),
        format!("LAB.example.:{port}"),
        "cam.example".to_owned(),
        "cam.example:8443".to_owned(),
        format!("localhost:{port}"),
    ] {
        let login = Browser::on_site(&server.address, &host).get("/login").await;
        assert_eq!(login.status(), StatusCode::OK, "{host}");
    }
    let evil = format!("evil.example:{port}");
    let refused = Browser::on_site(&server.address, &evil).get("/login").await;
    assert_eq!(refused.status(), StatusCode::MISDIRECTED_REQUEST);
    assert_eq!(
        error_message(&refused.text().await.expect("a page")),
        misdirected(&evil, port, names)
    );

    // Logged in under the name, the researcher rates.
    let mut researcher = Browser::on_site(&server.address, &format!("lab.example:{port}"));
    assert_eq!(
        researcher.log_in(PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let t1 = sqlx::query_scalar::<_, i64>("SELECT id FROM papers WHERE external_id = 'T1'")
        .fetch_one(&study.connections)
        .await
        .expect("T1");
    let token = researcher.form_token(&format!("/targets/{t1}")).await;
    let fields = [("paper", "P1"), ("stars", "4"), ("csrf_token", &token)];
    let rated = researcher
        .post(&format!("/targets/{t1}/ratings"), &fields, Answer::Json)
        .await;
    assert_eq!(rated.status(), StatusCode::OK);
    assert_eq!(study.count("ratings").await, 1);
}

#[tokio::test]
async fn serve_refuses_a_host_name_without_a_password_or_with_a_port() {
    let study = TestStudy::new().await;
    let serve = |args: &[&str], env: &[(&str, &str)]| {
        let output = paperjudge_ending(&study.db_path(), &[&["serve"], args].concat(), env);
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };

    assert_eq!(
        serve(&["--host", "lab.example"], &[]),
        (
            Some(2),
            "paperjudge: --host lab.example needs a password (or raters) or --behind-tls: without either, \
             paperjudge answers only loopback names (localhost, 127.0.0.1, [::1]), so that no \
             other site can reach the study through DNS rebinding\n"
                .to_owned()
        )
    );
    for (host, why) in [
        (
            "lab.example:8080",
            "give the name alone, without a scheme or a port (lab.example)",
        ),
        (
            "http://lab.example",
            "give the name alone, without a scheme or a port (lab.example)",
        ),
        ("", "the name is empty"),
        (
            "lab example",
            "a name holds letters, digits, '.', '-' and '_' only",
        ),
        (
            "*.example",
            "a name holds letters, digits, '.', '-' and '_' only",
        ),
    ] {
        let (status, message) = serve(&["--host", host], &[("PAPERJUDGE_PASSWORD", PASSWORD)]);
        assert_eq!(status, Some(2), "{host:?}");
        assert!(
            message.contains(&format!(
                "invalid value '{host}' for '--host <NAME>': {why}"
            )),
            "{host:?}: {message}"
        );
    }
}

/// The app behind a TLS proxy on this machine, with a password and the name `lab.example`.
async fn app_behind_the_proxy(trusted_proxies: Vec<IpAddr>) -> TestApp {
    let access = Access {
        password: Password::new(PASSWORD).ok(),
        behind_tls: true,
        trusted_proxies,
        hosts: vec!["lab.example".parse().expect("a host name")],
        ..Access::default()
    };
    TestApp::spawn_with(small_study().await, access).await
}

/// Asserts the status of `/login` requested from `app` with each set of headers.
async fn assert_login_page_statuses(app: &TestApp, cases: &[(&[(&str, &str)], StatusCode)]) {
    for (headers, status) in cases {
        let mut request = app.http.get(app.url("/login"));
        for (name, value) in *headers {
            request = request.header(*name, *value);
        }
        let answer = request.send().await.expect("an answer");
        assert_eq!(answer.status(), *status, "{headers:?}");
    }
}

#[tokio::test]
async fn behind_the_proxy_the_host_it_forwards_is_checked_as_well() {
    let app = app_behind_the_proxy(Vec::new()).await;
    let upstream = app.address.trim_start_matches("http://").to_owned();
    let upstream = upstream.as_str();
    let (ok, misdirected) = (StatusCode::OK, StatusCode::MISDIRECTED_REQUEST);
    let forwarded = |host: &'static str| [("host", upstream), ("forwarded", host)];

    assert_login_page_statuses(
        &app,
        &[
            // nginx's `proxy_set_header Host $host;`, with or without X-Forwarded-Host.
            (&[("host", "lab.example")], ok),
            (
                &[("host", "lab.example"), ("x-forwarded-host", "lab.example")],
                ok,
            ),
            // Caddy, and nginx's default Host: the upstream's address, the name forwarded.
            (
                &[("host", upstream), ("x-forwarded-host", "lab.example")],
                ok,
            ),
            (&forwarded("for=192.0.2.7;host=lab.example;proto=https"), ok),
            // Every name the request gives must be one the app answers to.
            (&[("host", "evil.example")], misdirected),
            (
                &[
                    ("host", "lab.example"),
                    ("x-forwarded-host", "evil.example"),
                ],
                misdirected,
            ),
            (
                &[
                    ("host", "evil.example"),
                    ("x-forwarded-host", "lab.example"),
                ],
                misdirected,
            ),
            (&forwarded("host=evil.example"), misdirected),
        ],
    )
    .await;

    // The form's origin is the forwarded one: the browser's.
    let mut browser = Browser::at(&app.address);
    let token = browser.form_token("/login").await;
    let login = browser
        .http
        .post(app.url("/login"))
        .header("cookie", browser.cookie_header())
        .header("host", upstream)
        .header("x-forwarded-host", "lab.example")
        .header("origin", "https://lab.example")
        .header("sec-fetch-site", "same-origin")
        .form(&[("password", PASSWORD), ("csrf_token", &token)])
        .send()
        .await
        .expect("an answer");
    assert_eq!(login.status(), StatusCode::SEE_OTHER);

    // From a peer that is not the proxy, a forwarded host is the client's own claim: not
    // believed, for good or bad.
    let app = app_behind_the_proxy(vec![IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1))]).await;
    let upstream = app.address.trim_start_matches("http://").to_owned();
    assert_login_page_statuses(
        &app,
        &[
            (
                &[
                    ("host", "lab.example"),
                    ("x-forwarded-host", "evil.example"),
                ],
                ok,
            ),
            (
                &[
                    ("host", "evil.example"),
                    ("x-forwarded-host", "lab.example"),
                ],
                misdirected,
            ),
            (
                &[("host", &upstream), ("x-forwarded-host", "evil.example")],
                ok,
            ),
        ],
    )
    .await;
}
