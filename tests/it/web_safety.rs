//! Safe forms and pages: CSRF, the 400/404/413 answers with their messages, escaping, and the
//! security headers.

use crate::web_support::{
    attr, selector, text, Answer, Page, Session, TestApp, HOSTILE_ID, HOSTILE_TITLE,
};
use reqwest::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, SET_COOKIE,
    X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_post_without_a_matching_token_is_refused_with_403() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    let other_browser = app.session(t1).await;
    assert_ne!(session.token, other_browser.token);
    let ratings = format!("/targets/{t1}/ratings");
    let rating = |token: &'static str| [("paper", "P1"), ("stars", "3"), ("csrf_token", token)];
    let stolen_token = Session {
        cookie: session.cookie.clone(),
        token: other_browser.token.clone(),
    };

    let no_cookie = app
        .post(
            &ratings,
            None,
            &[
                ("paper", "P1"),
                ("stars", "3"),
                ("csrf_token", &session.token),
            ],
            Answer::Redirect,
        )
        .await;
    let no_field = app
        .post(
            &ratings,
            Some(&session),
            &[("paper", "P1"), ("stars", "3")],
            Answer::Redirect,
        )
        .await;
    let wrong_field = app
        .post(&ratings, Some(&session), &rating("0123"), Answer::Json)
        .await;
    let other_browsers_token = app.rate(&stolen_token, t1, "P1", "3", Answer::Json).await;
    let undo_without_token = app
        .post(
            &format!("/targets/{t1}/undo"),
            Some(&session),
            &[],
            Answer::Redirect,
        )
        .await;

    assert_eq!(no_cookie.status(), StatusCode::FORBIDDEN);
    assert_eq!(no_field.status(), StatusCode::FORBIDDEN);
    assert_eq!(wrong_field.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        wrong_field.json::<serde_json::Value>().await.expect("JSON"),
        json!({"error": "the form's security token is missing or out of date: reload the page and try again"})
    );
    assert_eq!(other_browsers_token.status(), StatusCode::FORBIDDEN);
    assert_eq!(undo_without_token.status(), StatusCode::FORBIDDEN);
    assert_eq!(app.study.count("ratings").await, 0);
    assert_eq!(app.study.count("rating_history").await, 0);
}

#[tokio::test]
async fn the_csrf_cookie_is_strict_and_http_only_and_given_once() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;

    let fresh = app.get(&format!("/targets/{t1}")).await;
    let cookie = fresh
        .headers()
        .get(SET_COOKIE)
        .expect("a cookie")
        .to_str()
        .expect("ASCII");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");
    assert!(cookie.contains("Path=/"), "{cookie}");

    let returning = app.get_as(&session, &format!("/targets/{t1}")).await;
    assert!(returning.headers().get(SET_COOKIE).is_none());
    let page = returning.text().await.expect("a body");
    assert_eq!(
        crate::web_support::hidden_token(&page),
        Some(session.token.clone())
    );
}

#[tokio::test]
async fn every_form_of_the_rating_page_carries_the_token() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    let page = app.get_as(&session, &format!("/targets/{t1}")).await;
    let page = Page::parse(&page.text().await.expect("a body"));

    // Per paper a rating form, a note form and a clearing form, plus the undo form.
    let forms = page.select("form[method=post]");
    assert_eq!(
        forms.len(),
        3 * crate::web_support::T1_POOL_SIZE as usize + 1
    );
    assert_eq!(page.count("form"), forms.len());
    for form in forms {
        let tokens: Vec<&str> = (form.select(&selector("input[type=hidden][name=csrf_token]")))
            .filter_map(|input| input.value().attr("value"))
            .collect();
        assert_eq!(tokens, [session.token.as_str()], "{}", form.html());
    }
}

/// Posts a rating for `T1` with a valid token and the given fields; answers status and message.
async fn refused(
    app: &TestApp,
    session: &Session,
    fields: &[(&str, &str)],
) -> (StatusCode, String) {
    let t1 = app.paper_id("T1").await;
    let mut fields = fields.to_vec();
    fields.push(("csrf_token", &session.token));
    let response = app
        .post(
            &format!("/targets/{t1}/ratings"),
            Some(session),
            &fields,
            Answer::Json,
        )
        .await;
    let status = response.status();
    let answer: serde_json::Value = response.json().await.expect("a JSON error");
    (
        status,
        answer["error"]
            .as_str()
            .expect("an error message")
            .to_owned(),
    )
}

#[tokio::test]
async fn a_bad_rating_gets_400_saying_what_is_wrong() {
    let app = TestApp::with_fixture().await;
    let session = app.session(app.paper_id("T1").await).await;
    let bad = StatusCode::BAD_REQUEST;

    assert_eq!(
        refused(&app, &session, &[("paper", "P1"), ("stars", "0")]).await,
        (
            bad,
            "stars must be 1 to 5, cannot-judge, or clear; got \"0\"".to_owned()
        )
    );
    assert_eq!(
        refused(&app, &session, &[("paper", "P1"), ("stars", "6")]).await,
        (
            bad,
            "stars must be 1 to 5, cannot-judge, or clear; got \"6\"".to_owned()
        )
    );
    assert_eq!(
        refused(&app, &session, &[("paper", "P1"), ("stars", "four")]).await,
        (
            bad,
            "stars must be 1 to 5, cannot-judge, or clear; got \"four\"".to_owned()
        )
    );
    assert_eq!(
        refused(&app, &session, &[("paper", "P1")]).await,
        (
            bad,
            "missing field: stars (1 to 5, cannot-judge, or clear), or note".to_owned()
        )
    );
    assert_eq!(
        refused(&app, &session, &[("stars", "3")]).await,
        (bad, "missing field: paper (the paper's id)".to_owned())
    );
    assert_eq!(
        refused(&app, &session, &[("paper", "P10"), ("stars", "3")]).await,
        (
            bad,
            "paper \"P10\" is not in the pool of this target".to_owned()
        )
    );
    assert_eq!(
        refused(&app, &session, &[("paper", "P7"), ("stars", "3")]).await,
        (
            bad,
            "paper \"P7\" is not in the pool of this target".to_owned()
        )
    );
    assert_eq!(
        refused(
            &app,
            &session,
            &[("paper", "no-such-paper"), ("stars", "3")]
        )
        .await,
        (
            bad,
            "paper \"no-such-paper\" is not in the pool of this target".to_owned()
        )
    );
    assert_eq!(app.study.count("ratings").await, 0);
}

#[tokio::test]
async fn stars_are_one_digit_from_1_to_5_or_clear_and_nothing_around_it() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;

    // The last one is 3 in Arabic-Indic digits.
    for stars in [" 3", "3 ", "+3", "03", "3.0", "Clear", " clear", "\u{663}"] {
        assert_eq!(
            refused(&app, &session, &[("paper", "P1"), ("stars", stars)]).await,
            (
                StatusCode::BAD_REQUEST,
                format!("stars must be 1 to 5, cannot-judge, or clear; got {stars:?}")
            ),
            "{stars:?}"
        );
    }
    assert_eq!(app.study.count("rating_history").await, 0);
    for stars in ["1", "5", "clear"] {
        let saved = app.rate(&session, t1, "P1", stars, Answer::Json).await;
        assert_eq!(saved.status(), StatusCode::OK, "{stars:?}");
    }
    assert_eq!(app.stored_stars("T1", "P1").await, None);
    assert_eq!(app.study.count("rating_history").await, 3);
}

#[tokio::test]
async fn a_plain_form_error_is_a_page_with_the_escaped_message() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;

    let response = app
        .rate(&session, t1, "<i>x</i>", "3", Answer::Redirect)
        .await;

    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .expect("a type")
        .clone();
    assert_eq!(content_type, "text/html; charset=utf-8");
    let page = Page::parse(&response.text().await.expect("a body"));
    assert_eq!(
        page.text(".error-message"),
        "paper \"<i>x</i>\" is not in the pool of this target"
    );
    assert_eq!(page.count("main i"), 0, "the paper's text is no markup");
}

#[tokio::test]
async fn unknown_targets_and_addresses_get_a_404_page() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let not_a_target = app.paper_id("P10").await;
    let session = app.session(t1).await;

    for path in [
        format!("/targets/{not_a_target}"),
        "/targets/999999".to_owned(),
        "/targets/abc".to_owned(),
        "/no/such/page".to_owned(),
    ] {
        let response = app.get(&path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let page = Page::parse(&response.text().await.expect("a body"));
        assert_eq!(page.text("main h1"), "Not Found", "{path}");
    }
    let page = app
        .get(&format!("/targets/{not_a_target}"))
        .await
        .text()
        .await
        .expect("a body");
    assert_eq!(
        Page::parse(&page).text(".error-message"),
        format!("there is no target {not_a_target} in this study")
    );

    let rating = app
        .rate(&session, not_a_target, "P1", "3", Answer::Json)
        .await;
    assert_eq!(rating.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        rating.json::<serde_json::Value>().await.expect("JSON"),
        json!({"error": format!("there is no target {not_a_target} in this study")})
    );
    let undo = app.undo(&session, 999_999, Answer::Redirect).await;
    assert_eq!(undo.status(), StatusCode::NOT_FOUND);
}

/// Every error, whoever raises it (a handler, an extractor, the router, a middleware), is
/// answered as JSON to a client that accepts JSON, with the status and headers of the page.
#[tokio::test]
async fn every_error_is_json_for_a_client_that_accepts_it() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    let json_get = async |method: reqwest::Method, path: &str| {
        let response = app
            .http
            .request(method, app.url(path))
            .header("accept", "text/html, application/json;q=0.9")
            .send()
            .await
            .expect("an answer");
        let (status, allow) = (response.status(), response.headers().get("allow").cloned());
        let answer = response.json::<serde_json::Value>().await.expect("JSON");
        (status, allow, answer)
    };

    assert_eq!(
        json_get(reqwest::Method::GET, "/targets/999999").await,
        (
            StatusCode::NOT_FOUND,
            None,
            json!({"error": "there is no target 999999 in this study"})
        )
    );
    assert_eq!(
        json_get(reqwest::Method::GET, "/no/such/page").await,
        (
            StatusCode::NOT_FOUND,
            None,
            json!({"error": "there is no page at this address"})
        )
    );
    let (status, allow, answer) = json_get(reqwest::Method::PUT, "/targets").await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(allow.expect("Allow"), "GET, POST, HEAD");
    assert_eq!(
        answer,
        json!({"error": "this address takes GET, POST, HEAD, not PUT"})
    );
    let (status, _, answer) = json_get(reqwest::Method::GET, "/targets?page=x").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        answer["error"]
            .as_str()
            .expect("a message")
            .starts_with("the address's query cannot be read"),
        "{answer}"
    );
    let undo = app
        .http
        .post(app.url(&format!("/targets/{t1}/undo")))
        .header("cookie", &session.cookie)
        .header("accept", "application/json")
        .header("sec-fetch-site", "cross-site")
        .form(&[("csrf_token", session.token.as_str())])
        .send()
        .await
        .expect("an answer");
    assert_eq!(undo.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        undo.json::<serde_json::Value>().await.expect("JSON"),
        json!({"error": "refused: this request comes from another site (Sec-Fetch-Site: \
                         cross-site); paperjudge takes changes only from its own pages"})
    );
}

#[tokio::test]
async fn an_oversized_form_gets_413() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    let huge = "x".repeat(40_000);

    let response = app.rate(&session, t1, &huge, "3", Answer::Json).await;

    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(
        response.json::<serde_json::Value>().await.expect("JSON"),
        json!({"error": "the form is larger than the 32768 bytes accepted"})
    );
}

#[tokio::test]
async fn text_from_the_data_is_escaped_and_only_web_links_are_links() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let html = app.get_text(&format!("/targets/{t1}")).await;
    let page = Page::parse(&html);

    // Parsed as a browser parses it, every hostile text is text again, to the letter.
    let hostile = (page.select("article.paper").into_iter())
        .find(|paper| paper.value().attr("data-paper") == Some(HOSTILE_ID))
        .expect("the hostile paper, by its id");
    let within = |css: &str| hostile.select(&selector(css)).map(text).collect::<Vec<_>>();
    assert_eq!(within(".paper-title"), [HOSTILE_TITLE]);
    assert_eq!(within(".abstract"), ["</p><img src=x onerror=alert(1)>"]);
    assert_eq!(within(".authors"), ["O'Brien & <em>Sons</em>"]);
    assert_eq!(page.count("img, em, b"), 0);
    assert!(!html.contains(HOSTILE_TITLE));
    // Only web addresses are links, and a link opens without telling its site anything.
    assert!(!html.contains("javascript:"));
    assert_eq!(within("a").len(), 0);
    let link = page.one("article.paper[data-paper=P1] a.open-paper");
    assert_eq!(
        (link.attr("href"), link.attr("target"), link.attr("rel")),
        (
            Some("https://example.org/P1"),
            Some("_blank"),
            Some("noopener noreferrer")
        )
    );
    // No inline script at all: the one script is a file, as the CSP demands.
    let scripts = page.select("script");
    assert_eq!(scripts.len(), 1);
    assert!(attr(scripts[0], "src").starts_with("/static/rating.js?v="));
    assert_eq!(text(scripts[0]), "");
}

#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;

    for path in ["/".to_owned(), format!("/targets/{t1}"), "/nope".to_owned()] {
        let response = app.get(&path).await;
        let headers = response.headers();
        assert_eq!(
            headers[CONTENT_SECURITY_POLICY],
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
             connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
            "{path}"
        );
        assert_eq!(headers[X_CONTENT_TYPE_OPTIONS], "nosniff", "{path}");
        assert_eq!(headers[X_FRAME_OPTIONS], "DENY", "{path}");
        assert_eq!(headers[REFERRER_POLICY], "same-origin", "{path}");
        assert_eq!(headers[CACHE_CONTROL], "no-store", "{path}");
    }
}

#[tokio::test]
async fn static_files_are_cached_for_a_year_under_a_versioned_address() {
    let app = TestApp::with_fixture().await;
    let page = Page::parse(&app.get_text("/").await);
    let href = page.attr("head link[rel=stylesheet]", "href");
    let version = href
        .strip_prefix("/static/style.css?v=")
        .expect("a versioned stylesheet");
    assert_eq!(version.len(), 16);
    let href = href.as_str();

    for (path, content_type) in [
        (href, "text/css; charset=utf-8"),
        ("/static/rating.js", "text/javascript; charset=utf-8"),
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(response.headers()[CONTENT_TYPE], content_type, "{path}");
        assert_eq!(
            response.headers()[CACHE_CONTROL],
            "public, max-age=31536000, immutable",
            "{path}"
        );
        assert_eq!(
            response.headers()[X_CONTENT_TYPE_OPTIONS],
            "nosniff",
            "{path}"
        );
    }
}

#[tokio::test]
async fn a_made_up_or_planted_cookie_and_token_pair_is_refused() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let real = app.session(t1).await;
    let real_browser = real.cookie.trim_start_matches("paperjudge_browser=");
    // The attacker sets the cookie (a page on another port of this host can) and the field
    // to values of its choosing: equal, a browser id with a token made up for it, or a real
    // browser's id with the token of another.
    let made_up = "ab".repeat(32);
    let other = app.session(t1).await;
    for (browser, token) in [
        (made_up.as_str(), made_up.as_str()),
        (made_up.as_str(), other.token.as_str()),
        (real_browser, made_up.as_str()),
        (real_browser, other.token.as_str()),
    ] {
        let forged = Session {
            cookie: format!("paperjudge_csrf={browser}; paperjudge_browser={browser}"),
            token: token.to_owned(),
        };
        let response = app.rate(&forged, t1, "P1", "3", Answer::Json).await;
        assert_eq!(
            response.status(),
            StatusCode::FORBIDDEN,
            "{browser} {token}"
        );
        let plain = app.rate(&forged, t1, "P1", "3", Answer::Redirect).await;
        assert_eq!(plain.status(), StatusCode::FORBIDDEN, "{browser} {token}");
    }
    assert_eq!(app.study.count("ratings").await, 0);

    let genuine = app.rate(&real, t1, "P1", "3", Answer::Json).await;
    assert_eq!(genuine.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_post_from_another_site_is_refused_with_403_even_with_a_valid_token() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    let port: u16 = app
        .address
        .rsplit(':')
        .next()
        .and_then(|port| port.parse().ok())
        .expect("a port");
    let other_port = format!("http://127.0.0.1:{}", port.wrapping_add(1));
    let ratings = app.url(&format!("/targets/{t1}/ratings"));
    let post = |headers: Vec<(&'static str, String)>| {
        let mut request = app
            .http
            .post(&ratings)
            .header("cookie", &session.cookie)
            .header("accept", "application/json")
            .form(&[
                ("paper", "P1"),
                ("stars", "3"),
                ("csrf_token", &session.token),
            ]);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        request.send()
    };

    for headers in [
        vec![("sec-fetch-site", "cross-site".to_owned())],
        // A page on another port of this host is same-site, but not same-origin.
        vec![("sec-fetch-site", "same-site".to_owned())],
        vec![("origin", "http://evil.example".to_owned())],
        vec![("origin", other_port.clone())],
        vec![("origin", "null".to_owned())],
        vec![
            ("origin", "http://evil.example".to_owned()),
            ("sec-fetch-site", "cross-site".to_owned()),
        ],
    ] {
        let response = post(headers.clone()).await.expect("POST answers");
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{headers:?}");
    }
    let refused = post(vec![("sec-fetch-site", "same-site".to_owned())])
        .await
        .expect("POST answers");
    assert_eq!(
        refused.json::<serde_json::Value>().await.expect("JSON"),
        json!({"error": "refused: this request comes from another site (Sec-Fetch-Site: \
                         same-site); paperjudge takes changes only from its own pages"})
    );
    let undo = app
        .http
        .post(app.url(&format!("/targets/{t1}/undo")))
        .header("cookie", &session.cookie)
        .header("origin", "http://evil.example")
        .form(&[("csrf_token", &session.token)])
        .send()
        .await
        .expect("POST answers");
    assert_eq!(undo.status(), StatusCode::FORBIDDEN);
    assert_eq!(app.study.count("ratings").await, 0);
    assert_eq!(app.study.count("rating_history").await, 0);

    // The rating page's own posts: same origin, or typed by the person (`none`).
    for headers in [
        vec![
            ("sec-fetch-site", "same-origin".to_owned()),
            ("origin", app.address.clone()),
        ],
        vec![("sec-fetch-site", "none".to_owned())],
    ] {
        let response = post(headers.clone()).await.expect("POST answers");
        assert_eq!(response.status(), StatusCode::OK, "{headers:?}");
    }
}

#[tokio::test]
async fn head_answers_every_page_and_other_methods_get_405_with_allow() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;

    for path in [
        "/".to_owned(),
        "/healthz".to_owned(),
        "/targets".to_owned(),
        format!("/targets/{t1}"),
        "/next".to_owned(),
        "/leaderboard".to_owned(),
        "/leaderboard.json".to_owned(),
        "/export/ratings.csv".to_owned(),
        "/static/rating.js".to_owned(),
    ] {
        let get = app.get(&path).await;
        let head = app
            .http
            .head(app.url(&path))
            .send()
            .await
            .expect("HEAD answers");
        assert_eq!(head.status(), get.status(), "{path}");
        assert_eq!(
            head.headers().get(CONTENT_TYPE),
            get.headers().get(CONTENT_TYPE),
            "{path}"
        );
        assert_eq!(head.headers()[X_CONTENT_TYPE_OPTIONS], "nosniff", "{path}");
        assert_eq!(head.bytes().await.expect("no body").len(), 0, "{path}");
    }

    for (method, path, allow) in [
        ("PUT", "/".to_owned(), "GET, HEAD"),
        ("DELETE", "/healthz".to_owned(), "GET, HEAD"),
        ("POST", format!("/targets/{t1}"), "GET, HEAD"),
        ("GET", format!("/targets/{t1}/ratings"), "POST"),
        ("PUT", format!("/targets/{t1}/undo"), "POST"),
    ] {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
        let response = app
            .http
            .request(method.clone(), app.url(&path))
            .send()
            .await
            .expect("an answer");
        assert_eq!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        assert_eq!(response.headers()["allow"], allow, "{method} {path}");
        let page = Page::parse(&response.text().await.expect("a page"));
        assert_eq!(
            page.text(".error-message"),
            format!("this address takes {allow}, not {method}"),
            "{method} {path}"
        );
    }
    for method in [reqwest::Method::PUT, reqwest::Method::HEAD] {
        let response = app
            .http
            .request(method.clone(), app.url("/no/such/page"))
            .send()
            .await
            .expect("an answer");
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{method}");
    }
}
