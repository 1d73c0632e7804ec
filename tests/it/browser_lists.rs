//! `/lists` in headless Chromium with the keyboard alone: from the dashboard's navigation to the
//! view, then its settings opened, changed and applied.

use fantoccini::Client;

use crate::browser_rating::{eventually, press, text_of, BrowserTest};
use crate::lists_web::small_study;
use crate::web_support::TestApp;

const TAB: char = '\u{E004}';
const ENTER: char = '\u{E007}';

#[tokio::test]
#[ignore = "drives headless Chromium (chromium, chromium-driver): run with --include-ignored"]
async fn the_lists_are_reached_and_set_with_the_keyboard_alone() {
    let browser = BrowserTest::start_with(TestApp::spawn(small_study().await).await).await;
    let outcome = with_the_keyboard(&browser).await;
    browser.finish(outcome).await;
}

/// Presses Tab until the focused element is what `is_it` says, at most 30 times.
async fn tab_to(
    client: &Client,
    what: &str,
    is_it: impl Fn(&str, &str) -> bool,
) -> Result<(), String> {
    for _ in 0..30 {
        press(client, TAB).await?;
        let active = client
            .active_element()
            .await
            .map_err(|error| error.to_string())?;
        let tag = active.tag_name().await.map_err(|error| error.to_string())?;
        let href = active
            .attr("href")
            .await
            .map_err(|error| error.to_string())?;
        let id = active.attr("id").await.map_err(|error| error.to_string())?;
        let name = href.or(id).unwrap_or_default();
        if is_it(&tag, &name) {
            return Ok(());
        }
    }
    Err(format!("Tab never reached {what}"))
}

async fn with_the_keyboard(browser: &BrowserTest) -> Result<(), String> {
    let (app, client) = (&browser.app, &browser.client);
    client
        .goto(&app.url("/"))
        .await
        .map_err(|error| format!("cannot open the dashboard: {error}"))?;
    tab_to(client, "the navigation's Lists", |_, href| href == "/lists").await?;
    press(client, ENTER).await?;
    eventually("the lists page", || async {
        text_of(client, "h1")
            .await
            .is_ok_and(|h1| h1 == "What the models’ lists say")
    })
    .await?;
    tab_to(client, "the settings", |tag, _| tag == "summary").await?;
    press(client, ENTER).await?;
    tab_to(client, "k", |_, id| id == "option-k").await?;
    press(client, '1').await?;
    tab_to(client, "rbo-p", |_, id| id == "option-rbo-p").await?;
    for key in "0.5".chars() {
        press(client, key).await?;
    }
    press(client, ENTER).await?;
    eventually("the view at k = 1 and p = 0.5", || async {
        text_of(client, ".board-settings")
            .await
            .is_ok_and(|settings| {
                settings.starts_with("The top 1 of every list; rank-biased overlap with p = 0.5")
            })
    })
    .await?;
    let url = client
        .current_url()
        .await
        .map_err(|error| error.to_string())?;
    if !url.as_str().ends_with("/lists?k=1&rbo-p=0.5") {
        return Err(format!("the form went to {url}"));
    }
    Ok(())
}
