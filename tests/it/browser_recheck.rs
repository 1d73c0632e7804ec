//! The re-check page in headless Chromium: three pairs re-checked with the keyboard alone, each
//! stored apart from the ratings, none of which changes.

use fantoccini::Locator;

use crate::browser_rating::{eventually, press, text_of, BrowserTest};

#[tokio::test]
#[ignore = "drives headless Chromium (chromium, chromium-driver): run with --include-ignored"]
async fn three_pairs_rechecked_with_the_keyboard_are_stored_apart() {
    let browser = BrowserTest::start().await;
    let outcome = recheck_three_pairs(&browser).await;
    browser.finish(outcome).await;
}

async fn recheck_three_pairs(browser: &BrowserTest) -> Result<(), String> {
    let (app, client) = (&browser.app, &browser.client);
    app.rate_all_of_t1().await;
    let ratings = || async {
        sqlx::query_as::<_, (i64, i64, i64)>(
            "SELECT target_id, paper_id, stars FROM ratings ORDER BY target_id, paper_id",
        )
        .fetch_all(&app.study.connections)
        .await
        .map_err(|error| error.to_string())
    };
    let before = ratings().await?;
    client
        .goto(&app.url("/checks/recheck"))
        .await
        .map_err(|error| format!("cannot open the re-check page: {error}"))?;
    for (done, key) in ['2', '4', '5'].into_iter().enumerate() {
        eventually("the re-check script", || async {
            client
                .find(Locator::Css("html.js #recheck-form"))
                .await
                .is_ok()
        })
        .await?;
        let paper = client
            .find(Locator::Css("#recheck-form input[name=paper]"))
            .await
            .map_err(|error| error.to_string())?
            .attr("value")
            .await
            .map_err(|error| error.to_string())?
            .unwrap_or_default();
        press(client, key).await?;
        eventually(&format!("the re-check of {paper} stored"), || async {
            let stored: Option<i64> = sqlx::query_scalar(
                "SELECT c.stars FROM rechecks c JOIN papers p ON p.id = c.paper_id
                 WHERE p.external_id = ?",
            )
            .bind(&paper)
            .fetch_optional(&app.study.connections)
            .await
            .unwrap_or_default();
            stored == key.to_digit(10).map(i64::from)
        })
        .await?;
        // The answer is the page of the next pair, counting this re-check.
        eventually("the next pair", || async {
            text_of(client, "#recheck-progress strong")
                .await
                .is_ok_and(|count| count == (done + 1).to_string())
        })
        .await?;
    }
    if app.study.count("rechecks").await != 3 {
        return Err("not exactly three re-checks stored".to_owned());
    }
    if ratings().await? != before {
        return Err("a re-check changed a rating".to_owned());
    }
    Ok(())
}
