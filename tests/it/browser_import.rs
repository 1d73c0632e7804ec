//! A study from the browser alone, in headless Chromium: the demo's files uploaded into an
//! empty study through the import page's forms and script, its summary seen, and the first
//! target rated.

use fantoccini::{Client, Locator};

use crate::browser_rating::{eventually, press, text_of, BrowserTest};
use crate::common::TestStudy;
use crate::web_support::TestApp;

#[tokio::test]
#[ignore = "drives headless Chromium (chromium, chromium-driver): run with --include-ignored"]
async fn the_demo_uploaded_into_an_empty_study_is_rated() {
    let browser = BrowserTest::start_with(TestApp::spawn(TestStudy::new().await).await).await;
    let outcome = upload_the_demo_and_rate(&browser).await;
    browser.finish(outcome).await;
}

/// The demo's files, as they ship.
const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo");

async fn upload_the_demo_and_rate(browser: &BrowserTest) -> Result<(), String> {
    let (app, client) = (&browser.app, &browser.client);
    let fail = |what: &str| {
        let what = what.to_owned();
        move |error: fantoccini::error::CmdError| format!("{what}: {error}")
    };
    client
        .goto(&app.url("/"))
        .await
        .map_err(fail("the dashboard"))?;
    client
        .find(Locator::Css("#start-import"))
        .await
        .map_err(fail("the start link"))?
        .click()
        .await
        .map_err(fail("following the start link"))?;

    upload(client, "papers", &format!("{DEMO}/papers.csv")).await?;
    expect_text(
        client,
        "#import-result",
        "Imported: read 48 rows; papers: 48 added, 0 updated, 0 unchanged; 0 rows dropped.",
    )
    .await?;
    client
        .goto(&app.url("/import"))
        .await
        .map_err(fail("the import page"))?;
    upload(
        client,
        "recommendations",
        &format!("{DEMO}/recommendations.csv"),
    )
    .await?;
    expect_text(
        client,
        "#import-result",
        "Imported: read 400 rows; lists: 40 added, 0 updated, 0 unchanged; 0 rows dropped; \
         pool: 164 pairs added, 0 removed.",
    )
    .await?;
    expect_text(
        client,
        "#import-study",
        "The study is rating all 8 targets that have recommendations.",
    )
    .await?;

    client
        .goto(&app.url("/next"))
        .await
        .map_err(fail("/next"))?;
    eventually("the rating script", || async {
        client.find(Locator::Css("html.js")).await.is_ok()
    })
    .await?;
    let first = client
        .find(Locator::Css("article.paper"))
        .await
        .map_err(fail("the first paper"))?;
    let paper = (first.attr("data-paper").await)
        .map_err(fail("its id"))?
        .ok_or("the first paper has no id")?;
    let anchor = (first.attr("id").await)
        .map_err(fail("its anchor"))?
        .unwrap_or_default();
    press(client, '4').await?;
    expect_text(
        client,
        &format!("#{anchor} .paper-status"),
        "Saved: 4 relevant",
    )
    .await?;
    let target = text_of(client, ".target .paper-id").await?;
    match app.stored_stars(&target, &paper).await {
        Some(4) => Ok(()),
        stored => Err(format!(
            "{target}/{paper} has {stored:?} stars in the study, not 4"
        )),
    }
}

/// Chooses `file` in the form of `kind` and sends it, as a person does.
async fn upload(client: &Client, kind: &str, file: &str) -> Result<(), String> {
    let input = client
        .find(Locator::Css(&format!("#{kind}-file")))
        .await
        .map_err(|error| format!("no file input for {kind}: {error}"))?;
    input
        .send_keys(file)
        .await
        .map_err(|error| format!("cannot choose {file}: {error}"))?;
    client
        .find(Locator::Css(&format!("#{kind} button[type=submit]")))
        .await
        .map_err(|error| format!("no button for {kind}: {error}"))?
        .click()
        .await
        .map_err(|error| format!("cannot send {kind}: {error}"))
}

/// Waits until the element `css` reads `expected`.
async fn expect_text(client: &Client, css: &str, expected: &str) -> Result<(), String> {
    let found = eventually(&format!("{css} to read {expected:?}"), || async {
        text_of(client, css)
            .await
            .is_ok_and(|text| text == expected)
    })
    .await;
    let read = text_of(client, css).await;
    found.map_err(|error| format!("{error}; it reads {read:?}"))
}
