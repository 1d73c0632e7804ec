//! The study's guidelines (issue 40): set from the command line (the real binary) or from the
//! browser (`/guidelines`, the owner's), every rater reads them on every rating page, rendered
//! from Markdown and safe whatever they hold; a rater may read them and not change them; each
//! rating keeps the version it was made under, and the checks compare the versions.

use reqwest::StatusCode;
use serde_json::Value;

use crate::common::TestStudy;
use crate::process_support::{paperjudge, stderr, succeeded};
use crate::web_support::{
    error_message, fixture_study, location, password_of, served_with_raters, Answer, Browser, Page,
    TestApp, OWNER_PASSWORD,
};

const RATER: &str = "Annika";

/// Guidelines with what a rating page must render (bold, a list, a relative link) and what it
/// must never let through as markup (a script, an event handler, a `javascript:` link).
const GUIDELINES: &str = "Rate **method** papers by what they share with the target.\n\
\n\
- same task: at least 3 stars\n\
- [the scale](/guidelines)\n\
\n\
<script>alert('guidelines')</script>\n\
\n\
An <img src=x onerror=alert(1)> and [a trap](javascript:alert(2)).\n";

/// The fixture study with one rater, served with the owner's password.
async fn served_with_a_rater(study: TestStudy) -> TestApp {
    served_with_raters(study, &[RATER], 1).await
}

async fn signed_in(app: &TestApp, name: &str, password: &str) -> Browser {
    let mut browser = Browser::new(app);
    let signed = if name == "owner" {
        browser.log_in(password).await
    } else {
        browser.log_in_as(name, password).await
    };
    assert_eq!(signed.status(), StatusCode::SEE_OTHER, "{name} signs in");
    browser
}

/// T1's rating page as `browser` gets it.
async fn rating_page_of_t1(app: &TestApp, browser: &mut Browser) -> (Page, String) {
    let t1 = app.paper_id("T1").await;
    let response = browser.get(&format!("/targets/{t1}")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let html = response.text().await.unwrap();
    (Page::parse(&html), html)
}

/// The guidelines on a rating page are rendered, and nothing of them is markup a browser runs.
fn assert_rendered_safely(page: &Page, html: &str) {
    let shown = page.one("details#guidelines #study-guidelines");
    let inner = shown.inner_html();
    assert_eq!(page.text("#study-guidelines strong"), "method");
    assert_eq!(
        page.texts("#study-guidelines li"),
        ["same task: at least 3 stars", "the scale"]
    );
    assert_eq!(page.attrs("#study-guidelines a", "href"), ["/guidelines"]);
    // The script and the image are shown as the text that was written, never as elements.
    assert_eq!(
        page.count("#study-guidelines script, #study-guidelines img"),
        0
    );
    assert_eq!(page.count("[onerror]"), 0);
    assert!(
        inner.contains("&lt;script&gt;alert('guidelines')&lt;/script&gt;"),
        "{inner}"
    );
    assert!(
        inner.contains("An &lt;img src=x onerror=alert(1)&gt; and a trap."),
        "{inner}"
    );
    assert!(!html.contains("<script>alert"), "a script in the page");
    assert!(
        !html.contains("javascript:alert"),
        "a javascript: address in the page"
    );
    // The page's own script, and no other.
    assert_eq!(page.count("script"), 1);
    // The built-in scale stays, below them.
    assert_eq!(page.count("details#guidelines dl.scale > div"), 5);
    assert!(
        html.find("id=\"study-guidelines\"") < html.find("class=\"scale\""),
        "the study's guidelines come first"
    );
}

#[tokio::test]
async fn guidelines_set_from_the_command_line_are_on_a_raters_rating_page() {
    let study = fixture_study().await;
    let db = study.db_path();
    let file = study.dir.path().join("guidelines.md");
    // Written as an editor on Windows would: a byte order mark and CR LF line breaks.
    let windows = format!("\u{feff}{}", GUIDELINES.replace('\n', "\r\n"));
    std::fs::write(&file, windows).unwrap();

    let set = paperjudge(&db, &["guidelines", "set", file.to_str().unwrap()], &[]);
    succeeded(&set);
    assert_eq!(
        stderr(&set),
        "guidelines set (version 1): every rating page shows them\n"
    );
    let shown = succeeded(&paperjudge(&db, &["guidelines", "show"], &[]));
    assert_eq!(shown, GUIDELINES);
    let again = paperjudge(&db, &["guidelines", "set", file.to_str().unwrap()], &[]);
    assert_eq!(
        stderr(&again),
        "the guidelines are these already (version 1): nothing changed\n"
    );

    let app = served_with_a_rater(study).await;
    let mut rater = signed_in(&app, RATER, &password_of(RATER)).await;
    let (page, html) = rating_page_of_t1(&app, &mut rater).await;
    assert_rendered_safely(&page, &html);
    // Everyone reads them on their own page too; only the owner gets the editor.
    let own = rater.get("/guidelines").await;
    assert_eq!(own.status(), StatusCode::OK);
    let own = Page::parse(&own.text().await.unwrap());
    assert_eq!(own.text("#study-guidelines strong"), "method");
    assert_eq!(own.count("textarea, form[action='/guidelines']"), 0);

    let cleared = paperjudge(&app.study.db_path(), &["guidelines", "clear"], &[]);
    assert_eq!(
        stderr(&cleared),
        "guidelines cleared (version 2): the rating pages show the built-in scale alone\n"
    );
    let (page, _) = rating_page_of_t1(&app, &mut rater).await;
    assert_eq!(page.count("#study-guidelines"), 0);
    assert_eq!(page.count("details#guidelines dl.scale > div"), 5);
    let none = paperjudge(&app.study.db_path(), &["guidelines"], &[]);
    assert_eq!(succeeded(&none), "");
    assert_eq!(
        stderr(&none),
        "the study has no guidelines: the rating pages show the built-in scale alone\n"
    );
}

#[test]
fn guidelines_that_cannot_be_set_are_refused_with_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("study.db");
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let long = write("long.md", "a".repeat(20_001).as_bytes());
    let empty = write("empty.md", b"  \n\n");
    let latin1 = write("latin1.md", b"caf\xe9\n");
    let escape = write("escape.md", b"line one\nline \x1b[2J two\n");
    for (file, why) in [
        (
            &long,
            "the guidelines are 20001 characters long; they may be at most 20,000",
        ),
        (
            &empty,
            "the guidelines are empty; to remove them, clear them instead",
        ),
        (&latin1, "not UTF-8 text (byte 4 is not)"),
        (
            &escape,
            "the guidelines contain the control or format character U+001B on line 2",
        ),
    ] {
        let refused = paperjudge(&db, &["guidelines", "set", file], &[]);
        assert_eq!(refused.status.code(), Some(2), "{file}");
        assert_eq!(stderr(&refused), format!("paperjudge: {file}: {why}\n"));
    }
    let missing = paperjudge(&db, &["guidelines", "set", "/nonexistent/g.md"], &[]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).starts_with("paperjudge: /nonexistent/g.md: cannot read it: "),
        "{}",
        stderr(&missing)
    );
    assert_eq!(
        succeeded(&paperjudge(&db, &["guidelines", "show"], &[])),
        ""
    );
}

#[tokio::test]
async fn guidelines_set_in_the_browser_are_on_a_raters_rating_page_and_a_rater_cannot_set_them() {
    let app = served_with_a_rater(fixture_study().await).await;
    let mut owner = signed_in(&app, "owner", OWNER_PASSWORD).await;
    let editor = owner.get("/guidelines").await;
    assert_eq!(editor.status(), StatusCode::OK);
    let editor = Page::parse(&editor.text().await.unwrap());
    assert_eq!(
        editor.text("#no-guidelines"),
        "The study has no guidelines of its own: every rating page shows the built-in scale of 1 \
         to 5 stars alone. Write some below: every rater then reads the same words beside every \
         pair."
    );
    assert_eq!(draft_in(&editor), "");
    let token = owner.form_token("/guidelines").await;

    // A preview renders the draft and saves nothing.
    let fields = [
        ("markdown", GUIDELINES),
        ("action", "preview"),
        ("csrf_token", token.as_str()),
    ];
    let preview = owner.post("/guidelines", &fields, Answer::Redirect).await;
    assert_eq!(preview.status(), StatusCode::OK);
    let preview = Page::parse(&preview.text().await.unwrap());
    assert_eq!(preview.text("#guidelines-preview strong"), "method");
    assert_eq!(preview.count("#guidelines-preview script, [onerror]"), 0);
    assert_eq!(draft_in(&preview), GUIDELINES);
    assert_eq!(stored_guidelines(&app).await, None);

    // A rater may not change them: 403, and nothing changes.
    let mut rater = signed_in(&app, RATER, &password_of(RATER)).await;
    let t1 = app.paper_id("T1").await;
    let rater_token = rater.form_token(&format!("/targets/{t1}")).await;
    let fields = [
        ("markdown", "**Mine**"),
        ("csrf_token", rater_token.as_str()),
    ];
    let refused = rater.post("/guidelines", &fields, Answer::Redirect).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        error_message(&refused.text().await.unwrap()),
        "you are signed in as the rater \"Annika\": this is for the study's owner only, since \
         it would show other raters' stars or change the study for everyone"
    );
    assert_eq!(stored_guidelines(&app).await, None);

    // Saved, as a browser sends a text area (CR LF line breaks).
    let sent = GUIDELINES.replace('\n', "\r\n");
    let fields = [
        ("markdown", sent.as_str()),
        ("action", "save"),
        ("csrf_token", token.as_str()),
    ];
    let saved = owner.post("/guidelines", &fields, Answer::Redirect).await;
    assert_eq!(saved.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&saved), "/guidelines");
    let saved_once = Some((1, GUIDELINES.trim_end().to_owned()));
    assert_eq!(stored_guidelines(&app).await, saved_once);
    let (page, html) = rating_page_of_t1(&app, &mut rater).await;
    assert_rendered_safely(&page, &html);
    let own = Page::parse(&owner.get("/guidelines").await.text().await.unwrap());
    assert!(own
        .text("#guidelines-version")
        .starts_with("Version 1, set on 20"));

    // Too long: 400, the draft back in the editor with what is wrong, nothing saved.
    let long = format!("{}\n\nMore", "x".repeat(20_000));
    let fields = [("markdown", long.as_str()), ("csrf_token", token.as_str())];
    let too_long = owner.post("/guidelines", &fields, Answer::Redirect).await;
    assert_eq!(too_long.status(), StatusCode::BAD_REQUEST);
    let too_long = Page::parse(&too_long.text().await.unwrap());
    assert_eq!(
        too_long.text("#guidelines-problem"),
        "Not saved: the guidelines are 20006 characters long; they may be at most 20,000."
    );
    assert_eq!(draft_in(&too_long), long);
    assert_eq!(stored_guidelines(&app).await, saved_once);

    // An empty text clears them.
    let fields = [("markdown", ""), ("csrf_token", token.as_str())];
    let cleared = owner.post("/guidelines", &fields, Answer::Redirect).await;
    assert_eq!(cleared.status(), StatusCode::SEE_OTHER);
    assert_eq!(stored_guidelines(&app).await, None);
    let (page, _) = rating_page_of_t1(&app, &mut rater).await;
    assert_eq!(page.count("#study-guidelines"), 0);
}

#[tokio::test]
async fn a_form_of_the_guidelines_without_its_fields_is_refused_saying_which() {
    let app = TestApp::with_fixture().await;
    let session = app.session_from("/guidelines").await;
    let no_text = app
        .post(
            "/guidelines",
            Some(&session),
            &[("csrf_token", session.token.as_str())],
            Answer::Redirect,
        )
        .await;
    assert_eq!(no_text.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        error_message(&no_text.text().await.unwrap()),
        "missing field: markdown (the guidelines' text)"
    );
    let no_token = app
        .post(
            "/guidelines",
            Some(&session),
            &[("markdown", "x")],
            Answer::Redirect,
        )
        .await;
    assert_eq!(no_token.status(), StatusCode::FORBIDDEN);
    assert_eq!(stored_guidelines(&app).await, None);
}

/// The checks: each rating counts under the version of the guidelines it was made under.
#[tokio::test]
async fn the_checks_show_the_ratings_under_each_version_of_the_guidelines() {
    let app = TestApp::with_fixture().await;
    let t1 = app.paper_id("T1").await;
    let session = app.session(t1).await;
    let rate = async |paper: &str, stars: &str| {
        let saved = app.rate(&session, t1, paper, stars, Answer::Json).await;
        assert_eq!(saved.status(), StatusCode::OK, "{paper}");
    };
    // Before any guidelines: 5, 4, 1.
    rate("P1", "5").await;
    rate("P2", "4").await;
    rate("P3", "1").await;
    let guidelines = paperjudge::domain::Guidelines::new("Only **methods** count.").unwrap();
    app.study.study.guidelines().set(&guidelines).await.unwrap();
    // Under version 1: 3, 1, 2 and can't judge; P2 rated again (4 → 2) moves to version 1.
    rate("P4", "3").await;
    rate("P5", "1").await;
    rate("P6", "2").await;
    rate(paperjudge_hostile(), "cannot-judge").await;
    rate("P2", "2").await;

    let checks: Value = app.get("/checks.json").await.json().await.unwrap();
    let versions = checks["guidelines"]["versions"].as_array().unwrap();
    let summary: Vec<Value> = versions
        .iter()
        .map(|version| {
            serde_json::json!([
                version["version"],
                version["answers"],
                version["cannot_judge"],
                version["stars_shares"],
                version["mean_stars"]
            ])
        })
        .collect();
    assert_eq!(
        summary,
        [
            serde_json::json!([null, 2, 0, [0.5, 0.0, 0.0, 0.0, 0.5], 3.0]),
            serde_json::json!([1, 5, 1, [0.25, 0.5, 0.25, 0.0, 0.0], 2.0]),
        ]
    );
    assert_eq!(
        checks["guidelines"]["sentence"],
        "Before any guidelines, 2 ratings (mean 3.00 stars, 50% relevant, 0% can't judge); \
         under version 1, 5 ratings (mean 2.00 stars, 0% relevant, 20% can't judge)."
    );
    let page = Page::parse(&app.get_text("/checks").await);
    assert_eq!(
        page.texts("#guidelines tbody th"),
        [
            "None yet",
            &format!(
                "Version 1 {}",
                &versions[1]["set_at"].as_str().unwrap()[..10]
            )
        ]
    );
}

/// The guidelines in force, as the study keeps them: their version and text.
async fn stored_guidelines(app: &TestApp) -> Option<(i64, String)> {
    let current = app.study.study.guidelines().current().await.unwrap()?;
    Some((current.version.0, current.markdown.as_str().to_owned()))
}

/// The text in the editor, as the browser sends it back.
fn draft_in(page: &Page) -> String {
    page.one("textarea#markdown[name=markdown]")
        .text()
        .collect()
}

fn paperjudge_hostile() -> &'static str {
    crate::web_support::HOSTILE_ID
}
