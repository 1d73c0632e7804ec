//! Pages read at a glance, in headless Chromium (issue 40): at 1,280 px the leaderboard's table
//! shows every column without a sideways scroll, even with long model names, and the judge
//! form's prompt box is as wide as the form; at 390 px (a phone) neither page is wider than
//! the window, and the leaderboard's rows keep their model's name and NDCG in view.

use fantoccini::Client;
use paperjudge::formats::Format;
use paperjudge::study::import::{recommendations, Kind};
use serde_json::Value;

use crate::browser_rating::{eventually, BrowserTest};
use crate::common::TestStudy;
use crate::newcomer::fixture;
use crate::web_support::TestApp;

/// Six models with long names, from the newcomer's runs, and its three fully rated targets.
async fn long_names() -> TestStudy {
    let study = TestStudy::new().await;
    study.papers(&fixture("papers.csv")).await;
    let names = [
        ("alpha", "SPECTER2 proximity embeddings (fine-tuned)"),
        ("bravo", "BM25 over title and abstract, k1 = 1.2"),
        ("charlie", "LDA 300 topics, Hellinger distance"),
        ("alpha", "Doc2Vec PV-DBOW 300 dimensions"),
        ("bravo", "Elasticsearch more-like-this"),
        ("charlie", "Random baseline (seed 7)"),
    ];
    for (run, name) in names {
        let kind = Kind::Recommendations(recommendations::Options {
            format: Format::Trec,
            model: Some(name.to_owned()),
        });
        let text = fixture(&format!("runs/{run}.run"));
        study.import(&kind, text.as_bytes(), 1).await.unwrap();
    }
    study.ratings(&fixture("ratings.csv")).await;
    study
}

/// Runs `script` (a function body) in the page and answers what it returns.
async fn measured(client: &Client, script: &str) -> Result<Value, String> {
    client
        .execute(script, Vec::new())
        .await
        .map_err(|error| format!("the page's script failed: {error}"))
}

async fn open(browser: &BrowserTest, path: &str, width: u32) -> Result<(), String> {
    let client = &browser.client;
    client
        .set_window_size(width, 1000)
        .await
        .map_err(|error| format!("cannot size the window: {error}"))?;
    client
        .goto(&browser.app.url(path))
        .await
        .map_err(|error| format!("cannot open {path}: {error}"))?;
    eventually(&format!("{path} loaded"), || async {
        measured(client, "return document.readyState")
            .await
            .is_ok_and(|state| state == "complete")
    })
    .await
}

#[tokio::test]
#[ignore = "drives headless Chromium (chromium, chromium-driver): run with --include-ignored"]
async fn the_leaderboard_and_the_judge_form_read_at_a_glance_on_a_desktop_and_a_phone() {
    let browser = BrowserTest::start_with(TestApp::spawn(long_names().await).await).await;
    let outcome = at_a_glance(&browser).await;
    browser.finish(outcome).await;
}

async fn at_a_glance(browser: &BrowserTest) -> Result<(), String> {
    let client = &browser.client;
    open(browser, "/leaderboard", 1280).await?;
    let board = measured(
        client,
        "const region = document.querySelector('#board-table').parentElement;
         const last = document.querySelector('#board-table thead th:last-child');
         return {
           window: document.documentElement.clientWidth,
           scroll: region.scrollWidth - region.clientWidth,
           lastRight: last.getBoundingClientRect().right,
           regionRight: region.getBoundingClientRect().right,
           rows: document.querySelectorAll('#board-table tbody tr').length,
         };",
    )
    .await?;
    if board["window"].as_f64().unwrap_or_default() < 1200.0 {
        return Err(format!("the window is not 1,280 px wide: {board}"));
    }
    if board["rows"] != 6 {
        return Err(format!("the table has not the six models: {board}"));
    }
    if board["scroll"] != 0 || board["lastRight"].as_f64() > board["regionRight"].as_f64() {
        return Err(format!(
            "at 1,280 px the leaderboard's table scrolls sideways: {board}"
        ));
    }

    open(browser, "/judges", 1280).await?;
    let prompt = measured(
        client,
        "const box = document.querySelector('#judge-prompt');
         const form = box.closest('form');
         const ch = document.createElement('span');
         ch.textContent = '0'.repeat(10);
         ch.style.font = getComputedStyle(box).font;
         document.body.append(ch);
         const characters = box.clientWidth / (ch.getBoundingClientRect().width / 10);
         ch.remove();
         return { characters, box: box.getBoundingClientRect().width,
                  form: form.getBoundingClientRect().width };",
    )
    .await?;
    if prompt["characters"].as_f64().unwrap_or_default() < 80.0
        || prompt["box"].as_f64() < prompt["form"].as_f64().map(|form| form - 1.0)
    {
        return Err(format!(
            "the prompt box is not as wide as the form, 80 characters or more: {prompt}"
        ));
    }

    for path in ["/judges", "/leaderboard"] {
        open(browser, path, 390).await?;
        let overflow = measured(
            client,
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth;",
        )
        .await?;
        if overflow != 0 {
            return Err(format!(
                "at 390 px {path} is {overflow} px wider than the window"
            ));
        }
    }
    // On a phone the table scrolls, but a row's name and NDCG are in view.
    let phone = measured(
        client,
        "const region = document.querySelector('#board-table').parentElement;
         const row = document.querySelector('#board-table tbody tr');
         const ndcg = row.querySelector('td:nth-of-type(2)');
         return { ndcgRight: ndcg.getBoundingClientRect().right,
                  regionRight: region.getBoundingClientRect().right };",
    )
    .await?;
    if phone["ndcgRight"].as_f64() > phone["regionRight"].as_f64() {
        return Err(format!("at 390 px the NDCG is out of view: {phone}"));
    }
    Ok(())
}
