//! "I can't judge this" and notes on the rating page in headless Chromium, with the keyboard
//! alone (issue 40): `x` marks the current paper, `c` opens the note of the paper just rated,
//! Enter saves it, Escape leaves it unsaved, and `u` undoes both, each stored (or not) as the
//! page says. And the first paper of a target shows without scrolling at 1280 × 1600.
//!
//! Ignored by a plain `cargo test`, as the other browser tests (see `browser_rating`).

use fantoccini::key::Key;
use fantoccini::Locator;

use crate::browser_rating::{eventually, press, text_of, BrowserTest};
use crate::common::TestStudy;
use crate::web_support::TestApp;

/// The stored (stars, note) of a pair of T1; `None` when unrated.
async fn stored(app: &TestApp, paper: &str) -> Option<(Option<i64>, Option<String>)> {
    app.stored_rating("T1", paper).await
}

/// The id of the focused element.
async fn focused(browser: &BrowserTest) -> Result<String, String> {
    let active = (browser.client.active_element().await).map_err(|error| error.to_string())?;
    let id = active.attr("id").await.map_err(|error| error.to_string())?;
    Ok(id.unwrap_or_default())
}

async fn expect_focus(browser: &BrowserTest, id: &str, when: &str) -> Result<(), String> {
    let now = focused(browser).await?;
    if now == id {
        Ok(())
    } else {
        Err(format!(
            "{when}: the focus should be on {id:?}, not {now:?}"
        ))
    }
}

async fn status_reads(browser: &BrowserTest, anchor: &str, expected: &str) -> Result<(), String> {
    let css = format!("#{anchor} .paper-status");
    eventually(&format!("{expected:?} on {anchor}"), || async {
        text_of(&browser.client, &css)
            .await
            .is_ok_and(|text| text == expected)
    })
    .await
}

#[tokio::test]
#[ignore = "drives headless Chromium (chromium, chromium-driver): run with --include-ignored"]
async fn cannot_judge_and_a_note_with_the_keyboard_alone_are_stored_and_undone() {
    let browser = BrowserTest::start().await;
    let outcome = notes_and_cannot_judge(&browser).await;
    browser.finish(outcome).await;
}

async fn notes_and_cannot_judge(browser: &BrowserTest) -> Result<(), String> {
    let app = &browser.app;
    let order = app.blind_order("T1").await;
    let anchors = browser.open_t1().await?;
    let client = &browser.client;

    // 4 on the first paper, then c: the note of the paper just rated opens, its text area has
    // the focus; typed, Enter saves it and the focus goes back to the second paper.
    press(client, '4').await?;
    press(client, 'c').await?;
    let note_of_first = format!("{}-note", anchors[0]);
    expect_focus(browser, &note_of_first, "after c").await?;
    let area = (client.active_element().await).map_err(|error| error.to_string())?;
    area.send_keys("Same task")
        .await
        .map_err(|error| format!("cannot type: {error}"))?;
    press(client, Key::Enter.into()).await?;
    eventually("the note in the database", || async {
        stored(app, &order[0]).await == Some((Some(4), Some("Same task".to_owned())))
    })
    .await?;
    status_reads(browser, &anchors[0], "Saved: note").await?;
    expect_focus(browser, &anchors[1], "after Enter").await?;

    // x on the second paper: can't judge, stored as a rating without stars.
    press(client, 'x').await?;
    eventually("can't judge in the database", || async {
        stored(app, &order[1]).await == Some((None, None))
    })
    .await?;
    status_reads(browser, &anchors[1], "Saved: can't judge").await?;
    expect_focus(browser, &anchors[2], "after x").await?;

    // c opens the second paper's note; Escape leaves it unsaved, what was typed kept.
    press(client, 'c').await?;
    expect_focus(
        browser,
        &format!("{}-note", anchors[1]),
        "after the second c",
    )
    .await?;
    let area = (client.active_element().await).map_err(|error| error.to_string())?;
    area.send_keys("A field I do not know")
        .await
        .map_err(|error| format!("cannot type: {error}"))?;
    press(client, Key::Escape.into()).await?;
    expect_focus(browser, &anchors[2], "after Escape").await?;
    status_reads(
        browser,
        &anchors[1],
        "Note not saved: c opens it again, Enter saves it.",
    )
    .await?;
    let kept = client
        .find(Locator::Css(&format!("#{}-note", anchors[1])))
        .await
        .map_err(|error| error.to_string())?
        .prop("value")
        .await
        .map_err(|error| error.to_string())?;
    if kept.as_deref() != Some("A field I do not know") {
        return Err(format!("the unsaved note is lost: {kept:?}"));
    }
    if stored(app, &order[1]).await != Some((None, None)) {
        return Err("Escape saved the note".to_owned());
    }

    // u undoes can't judge, then the note: the first paper keeps its 4 stars.
    press(client, 'u').await?;
    eventually("can't judge undone", || async {
        stored(app, &order[1]).await.is_none()
    })
    .await?;
    press(client, 'u').await?;
    eventually("the note undone", || async {
        stored(app, &order[0]).await == Some((Some(4), None))
    })
    .await?;
    let shown = client
        .find(Locator::Css(&format!("#{note_of_first}")))
        .await
        .map_err(|error| error.to_string())?
        .prop("value")
        .await
        .map_err(|error| error.to_string())?;
    if shown.as_deref() != Some("") {
        return Err(format!("the undone note is still shown: {shown:?}"));
    }
    Ok(())
}

/// The demo's papers and lists, as they ship.
const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo");

#[tokio::test]
#[ignore = "drives headless Chromium (chromium, chromium-driver): run with --include-ignored"]
async fn the_first_paper_of_a_target_shows_without_scrolling_at_1280_by_1600() {
    let study = TestStudy::new().await;
    let read = |name: &str| std::fs::read_to_string(format!("{DEMO}/{name}")).unwrap();
    study.papers(&read("papers.csv")).await;
    study.recommendations(&read("recommendations.csv")).await;
    let app = TestApp::spawn(study).await;
    let browser = BrowserTest::start_with(app).await;
    let outcome = first_paper_in_view(&browser).await;
    browser.finish(outcome).await;
}

/// Every target of the demo: the first paper's stars are in the window as the page opens.
async fn first_paper_in_view(browser: &BrowserTest) -> Result<(), String> {
    let client = &browser.client;
    client
        .set_window_size(1280, 1600)
        .await
        .map_err(|error| format!("cannot size the window: {error}"))?;
    let targets: Vec<i64> = sqlx::query_scalar(
        "SELECT target_id FROM targets WHERE active = 1 AND pooled > 0 ORDER BY target_id",
    )
    .fetch_all(&browser.app.study.connections)
    .await
    .map_err(|error| error.to_string())?;
    // The demo's eight targets, all of them: none checked would pass unseen.
    if targets.len() != 8 {
        return Err(format!("the demo's targets: {targets:?}"));
    }
    for target in targets {
        client
            .goto(&browser.app.url(&format!("/targets/{target}")))
            .await
            .map_err(|error| format!("cannot open target {target}: {error}"))?;
        eventually("the rating script", || async {
            client.find(Locator::Css("html.js")).await.is_ok()
        })
        .await?;
        let below = client
            .execute(
                "const stars = document.querySelector('article.paper .star-options');
                 return stars.getBoundingClientRect().bottom - window.innerHeight;",
                vec![],
            )
            .await
            .map_err(|error| error.to_string())?;
        let below = below.as_f64().unwrap_or(f64::INFINITY);
        if below > 0.0 {
            return Err(format!(
                "target {target}: the first paper's stars end {below} px below the window"
            ));
        }
    }
    Ok(())
}
