//! Attacks on signing in (issue 32), each with the attack's own input: guessing another
//! rater's password between sign-ins of one's own, from many addresses at once, an old
//! session that outlives a new password, and rater names that a person takes for another's.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

use reqwest::header::{ACCEPT, COOKIE};
use reqwest::StatusCode;

use crate::common::TestStudy;
use crate::process_support::{paperjudge, stderr, succeeded};
use crate::web_support::{location, Answer, Browser, Page, TestApp};
use paperjudge::domain::RaterName;
use paperjudge::web::{Access, Password};

const OWNER_PASSWORD: &str = "the owner's password";

fn password_of(rater: &str) -> String {
    format!("{rater}'s own password")
}

/// A study of one target, with the raters Ann and Bo.
async fn study_with_ann_and_bo() -> TestStudy {
    let study = TestStudy::new().await;
    study.papers("id,title\nT1,Target\nP1,Paper\n").await;
    study
        .recommendations("model,target,rank,paper\nm,T1,1,P1\n")
        .await;
    for rater in ["Ann", "Bo"] {
        let name = RaterName::new(rater).unwrap();
        study
            .study
            .raters()
            .add(&name, &password_of(rater))
            .await
            .unwrap();
    }
    study
}

async fn served(behind_tls: bool) -> TestApp {
    let access = Access {
        password: Password::new(OWNER_PASSWORD).ok(),
        behind_tls,
        ..Access::default()
    };
    TestApp::spawn_with(study_with_ann_and_bo().await, access).await
}

/// Posts the login form with `token` (the browser's, from a page it had open), as a browser
/// signed in already does when someone signs in over its session.
async fn sign_in_with(
    browser: &mut Browser,
    token: &str,
    name: &str,
    password: &str,
) -> StatusCode {
    let fields = [
        ("rater", name),
        ("password", password),
        ("csrf_token", token),
    ];
    (browser.post("/login", &fields, Answer::Redirect).await).status()
}

/// The attack: Ann, who knows her own password, guesses Bo's between sign-ins of her own. A
/// success used to clear her address's failures, so she met no limit (20 guesses in 0.9 s).
/// Now her sign-ins clear only her own name's count: the fifth wrong guess is the last this
/// machine gets in the minute, hers included.
#[tokio::test]
async fn a_rater_signing_in_between_guesses_at_another_meets_the_limit() {
    let app = served(false).await;
    let mut browser = Browser::new(&app);
    let token = browser.form_token("/login").await;
    let mut guesses = Vec::new();
    let mut own = Vec::new();
    for guess in 0..10 {
        let guess = format!("guess {guess}");
        guesses.push(sign_in_with(&mut browser, &token, "Bo", &guess).await);
        own.push(sign_in_with(&mut browser, &token, "Ann", &password_of("Ann")).await);
    }
    let mut expected = vec![StatusCode::UNAUTHORIZED; 5];
    expected.extend([StatusCode::TOO_MANY_REQUESTS; 5]);
    assert_eq!(guesses, expected);
    let mut expected = vec![StatusCode::SEE_OTHER; 4];
    expected.extend([StatusCode::TOO_MANY_REQUESTS; 6]);
    assert_eq!(own, expected);
}

/// Guesses at one name from many addresses at once (behind the TLS proxy, each client as the
/// proxy names it): five are checked, the others refused, whatever their address; a success
/// of another name does not clear them.
#[tokio::test]
async fn parallel_guesses_at_one_name_from_many_clients_get_five_tries() {
    let app = served(true).await;
    let token_of = async |client: &str| {
        let mut browser = Browser::through_proxy(&app, client);
        let token = browser.form_token("/login").await;
        (browser, token)
    };
    let mut requests = Vec::new();
    for n in 0..12 {
        let client = format!("203.0.113.{n}");
        let (browser, token) = token_of(&client).await;
        let request = (browser.http.post(app.url("/login")))
            .header(COOKIE, browser.cookie_header())
            .header("x-forwarded-for", client)
            .form(&[
                ("rater", "Bo".to_owned()),
                ("password", format!("guess {n}")),
                ("csrf_token", token),
            ]);
        requests.push(request);
    }
    let (mut ann, _) = token_of("198.51.100.1").await;
    let signed = ann.log_in_as("Ann", &password_of("Ann")).await;
    assert_eq!(signed.status(), StatusCode::SEE_OTHER);
    let tasks: Vec<_> = (requests.into_iter())
        .map(|request| tokio::spawn(async move { request.send().await.unwrap().status() }))
        .collect();
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.unwrap());
    }
    statuses.sort();
    let mut expected = vec![StatusCode::UNAUTHORIZED; 5];
    expected.extend([StatusCode::TOO_MANY_REQUESTS; 7]);
    assert_eq!(statuses, expected);
    // Bo's own password waits too, from yet another address; Ann is not slowed.
    let (mut bo, _) = token_of("198.51.100.2").await;
    let waits = bo.log_in_as("Bo", &password_of("Bo")).await;
    assert_eq!(waits.status(), StatusCode::TOO_MANY_REQUESTS);
    let page = Page::parse(&waits.text().await.unwrap());
    assert!(page
        .all_text()
        .contains("Too many login attempts at this name"));
    let (mut ann, _) = token_of("198.51.100.3").await;
    let signed = ann.log_in_as("ann", &password_of("Ann")).await;
    assert_eq!(signed.status(), StatusCode::UNAUTHORIZED, "names are exact");
    let signed = ann.log_in_as("Ann", &password_of("Ann")).await;
    assert_eq!(signed.status(), StatusCode::SEE_OTHER);
}

fn password_file(dir: &Path, name: &str, password: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("{password}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path.display().to_string()
}

/// Whether `browser`'s session still opens the study: the target list, or the login page.
async fn still_signed_in(browser: &mut Browser) -> bool {
    let answer = browser.get("/targets").await;
    match answer.status() {
        StatusCode::OK => true,
        StatusCode::SEE_OTHER => {
            assert_eq!(location(&answer), "/login");
            false
        }
        other => panic!("{other}"),
    }
}

/// `paperjudge raters password NAME --password-file F` while the server runs: the old
/// password no longer signs in, the new one does, and every session of the rater ends at its
/// next request, also one that made no request in between. A rater removed and added again
/// (the only way before) ends them too.
#[tokio::test]
async fn a_new_password_ends_the_raters_sessions() {
    let app = served(false).await;
    let db = app.study.db_path();
    let dir = app.study.dir.path().to_owned();
    let mut ann = Browser::new(&app);
    assert_eq!(
        ann.log_in_as("Ann", &password_of("Ann")).await.status(),
        StatusCode::SEE_OTHER
    );
    let mut idle = Browser::new(&app);
    assert_eq!(
        idle.log_in_as("Ann", &password_of("Ann")).await.status(),
        StatusCode::SEE_OTHER
    );
    let mut bo = Browser::new(&app);
    assert_eq!(
        bo.log_in_as("Bo", &password_of("Bo")).await.status(),
        StatusCode::SEE_OTHER
    );
    assert!(still_signed_in(&mut ann).await);

    let file = password_file(&dir, "new.txt", "Ann's brand new password");
    let output = paperjudge(
        &db,
        &["raters", "password", "Ann", "--password-file", &file],
        &[],
    );
    succeeded(&output);
    assert_eq!(
        stderr(&output),
        "changed the password of Ann: their sessions end at their next request\n"
    );
    assert!(!still_signed_in(&mut ann).await);
    assert!(!still_signed_in(&mut idle).await);
    assert!(still_signed_in(&mut bo).await, "Bo's session stands");
    // The rating script is told, not sent to a page.
    let json = (ann.http.get(app.url("/targets")))
        .header(COOKIE, ann.cookie_header())
        .header(ACCEPT, "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(json.status(), StatusCode::UNAUTHORIZED);
    let old = ann.log_in_as("Ann", &password_of("Ann")).await;
    assert_eq!(old.status(), StatusCode::UNAUTHORIZED);
    let new = ann.log_in_as("Ann", "Ann's brand new password").await;
    assert_eq!(new.status(), StatusCode::SEE_OTHER);
    assert!(still_signed_in(&mut ann).await);

    // Removed and added again, with no request in between: the old session ends.
    succeeded(&paperjudge(&db, &["raters", "remove", "Bo"], &[]));
    let file = password_file(&dir, "bo.txt", &password_of("Bo"));
    succeeded(&paperjudge(
        &db,
        &["raters", "add", "Bo", "--password-file", &file],
        &[],
    ));
    assert!(!still_signed_in(&mut bo).await);

    // Refusals: exit status 2, nothing changed.
    let weak = password_file(&dir, "weak.txt", "short");
    for (args, message) in [
        (
            vec!["raters", "password", "Nobody", "--password-file", &file],
            "there is no rater \"Nobody\" in this study (`paperjudge raters list` lists them)",
        ),
        (
            vec!["raters", "password", "Ann", "--password-file", &weak],
            "the password for \"Ann\" has 5 characters; a password needs 8 or more",
        ),
        (
            vec!["raters", "password", "owner", "--password-file", &file],
            "the owner's password is the one given to `serve` (--password-file or \
             PAPERJUDGE_PASSWORD): change it there and start the server again",
        ),
    ] {
        let output: Output = paperjudge(&db, &args, &[]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert_eq!(stderr(&output), format!("paperjudge: {message}\n"));
    }
    assert!(still_signed_in(&mut ann).await);
}

/// A browser signing in as another rater (a shared machine) ends the session it had: the
/// first rater's cookie, kept aside, no longer opens the study.
#[tokio::test]
async fn signing_in_over_a_session_ends_it() {
    let app = served(false).await;
    let mut shared = Browser::new(&app);
    let token = shared.form_token("/login").await;
    assert_eq!(
        sign_in_with(&mut shared, &token, "Ann", &password_of("Ann")).await,
        StatusCode::SEE_OTHER
    );
    let ann_session = shared.cookie("paperjudge_session").unwrap().to_owned();
    assert!(still_signed_in(&mut shared).await);
    assert_eq!(
        sign_in_with(&mut shared, &token, "Bo", &password_of("Bo")).await,
        StatusCode::SEE_OTHER
    );
    assert_ne!(shared.cookie("paperjudge_session").unwrap(), ann_session);
    assert!(still_signed_in(&mut shared).await);
    shared.set_cookie("paperjudge_session", &ann_session);
    assert!(!still_signed_in(&mut shared).await);
}

/// The attack's names: `Аnn` (a Cyrillic А) beside `Ann`, `José` decomposed beside `José`
/// composed, `STRASSE` beside `Straße`. Each is refused (exit status 2) naming what it would
/// pass for, nothing is added; and a name given decomposed is stored as browsers send it, so
/// that its rater signs in.
#[tokio::test]
async fn look_alike_rater_names_are_refused() {
    let app = served(false).await;
    let db = app.study.db_path();
    let dir = app.study.dir.path().to_owned();
    let file = password_file(&dir, "p.txt", "a password long enough");
    let add = |name: &str| paperjudge(&db, &["raters", "add", name, "--password-file", &file], &[]);
    succeeded(&add("Jose\u{301}"));
    succeeded(&add("Straße"));
    for (name, message) in [
        (
            "\u{410}nn",
            "the rater's name \"\u{410}nn\" mixes the scripts Cyrillic and Latin: a letter of \
             one can pass for a letter of another, so the name could pass for someone else's; \
             write it in one script",
        ),
        ("Jos\u{e9}", "there is a rater \"Jos\u{e9}\" already"),
        (
            "STRASSE",
            "the rater's name \"STRASSE\" would be taken for \"Straße\": they differ only in \
             case, in how their letters are encoded, or in letters that look alike; choose \
             another name",
        ),
        (
            "ANN",
            "the rater's name \"ANN\" would be taken for \"Ann\": they differ only in case, in \
             how their letters are encoded, or in letters that look alike; choose another name",
        ),
    ] {
        let output = add(name);
        assert_eq!(output.status.code(), Some(2), "{name}: {}", stderr(&output));
        assert_eq!(
            stderr(&output),
            format!("paperjudge: {message}\n"),
            "{name}"
        );
    }
    let list = succeeded(&paperjudge(
        &db,
        &["raters", "list", "--format", "json"],
        &[],
    ));
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    let names: Vec<&str> = (list["raters"].as_array().unwrap().iter())
        .map(|rater| rater["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Ann", "Bo", "Jos\u{e9}", "Straße"]);
    // The browser sends what is typed composed (NFC).
    let mut jose = Browser::new(&app);
    let signed = jose.log_in_as("Jos\u{e9}", "a password long enough").await;
    assert_eq!(signed.status(), StatusCode::SEE_OTHER);
}
