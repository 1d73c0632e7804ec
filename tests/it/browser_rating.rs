//! The rating page in headless Chromium, driven over WebDriver: rating with the keyboard only.
//!
//! Needs Debian's `chromium` and `chromium-driver`, so these tests are ignored by a plain
//! `cargo test`; `scripts/test.sh` installs both when missing and runs them
//! (`--include-ignored`), and there a missing browser is a failure.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::web_support::TestApp;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";
const PATIENCE: Duration = Duration::from_secs(20);

/// chromedriver on a free port, stopped when dropped.
pub struct Chromedriver {
    process: Child,
    url: String,
}

impl Chromedriver {
    fn start() -> Chromedriver {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let process = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        Chromedriver {
            process,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// A headless Chromium session with a fresh profile, retried while chromedriver starts up.
pub async fn browser(driver: &Chromedriver, profile: &Path) -> Client {
    let options = json!({
        "binary": CHROMIUM,
        "args": [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync",
            "--window-size=1280,1000",
            format!("--user-data-dir={}", profile.display()),
        ],
    });
    let mut capabilities = serde_json::Map::new();
    capabilities.insert("goog:chromeOptions".to_owned(), options);
    let started = Instant::now();
    loop {
        let attempt = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities.clone())
            .connect(&driver.url)
            .await;
        match attempt {
            Ok(client) => return client,
            Err(error) if started.elapsed() < PATIENCE => {
                eprintln!("waiting for chromedriver: {error}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(error) => panic!("no browser session: {error}"),
        }
    }
}

/// Presses and releases `key` on whatever has the focus, as a person typing would.
pub async fn press(client: &Client, key: char) -> Result<(), String> {
    let typing = KeyActions::new("keyboard".to_owned())
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key });
    client
        .perform_actions(typing)
        .await
        .map_err(|error| format!("cannot press {key:?}: {error}"))
}

/// Waits until `condition` holds, or fails saying what it waited for.
pub async fn eventually<F, Fut>(what: &str, mut condition: F) -> Result<(), String>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while !condition().await {
        if started.elapsed() > PATIENCE {
            return Err(format!("timed out waiting for {what}"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

pub async fn text_of(client: &Client, css: &str) -> Result<String, String> {
    let element = client
        .find(Locator::Css(css))
        .await
        .map_err(|error| format!("no {css}: {error}"))?;
    element
        .text()
        .await
        .map_err(|error| format!("no text in {css}: {error}"))
}

/// The id of the focused element.
async fn focused(client: &Client) -> Result<String, String> {
    let active = client
        .active_element()
        .await
        .map_err(|error| error.to_string())?;
    let id = active.attr("id").await.map_err(|error| error.to_string())?;
    Ok(id.unwrap_or_default())
}

/// The app with the fixture study and a browser.
pub struct BrowserTest {
    pub app: TestApp,
    pub client: Client,
    _driver: Chromedriver,
    _profile: tempfile::TempDir,
}

impl BrowserTest {
    pub async fn start() -> BrowserTest {
        BrowserTest::start_with(TestApp::with_fixture().await).await
    }

    /// A browser for `app`.
    pub async fn start_with(app: TestApp) -> BrowserTest {
        assert!(
            Path::new(CHROMEDRIVER).exists(),
            "{CHROMEDRIVER} is missing: apt-get install chromium chromium-driver, or run \
             scripts/test.sh, which does"
        );
        let driver = Chromedriver::start();
        let profile = tempfile::tempdir().expect("a profile directory");
        let client = browser(&driver, profile.path()).await;
        BrowserTest {
            app,
            client,
            _driver: driver,
            _profile: profile,
        }
    }

    /// Closes the browser whatever the outcome, then fails the test if it failed.
    pub async fn finish(self, outcome: Result<(), String>) {
        let closed = self.client.close().await;
        outcome.unwrap_or_else(|failure| panic!("{failure}"));
        closed.expect("the browser closes");
    }

    /// Opens the rating page of T1 and waits for its script; answers the papers' element ids.
    pub async fn open_t1(&self) -> Result<Vec<String>, String> {
        let t1 = self.app.paper_id("T1").await;
        self.client
            .goto(&self.app.url(&format!("/targets/{t1}")))
            .await
            .map_err(|error| format!("cannot open the rating page: {error}"))?;
        eventually("the rating script", || async {
            self.client.find(Locator::Css("html.js")).await.is_ok()
        })
        .await?;
        let mut anchors = Vec::new();
        for paper in self
            .client
            .find_all(Locator::Css("article.paper"))
            .await
            .map_err(|error| format!("no papers: {error}"))?
        {
            let id = paper.attr("id").await.map_err(|error| error.to_string())?;
            anchors.push(id.unwrap_or_default());
        }
        Ok(anchors)
    }
}

#[tokio::test]
#[ignore = "drives headless Chromium (chromium, chromium-driver): run with --include-ignored"]
async fn three_papers_rated_with_the_keyboard_only_are_stored() {
    let browser = BrowserTest::start().await;
    let outcome = rate_with_the_keyboard(&browser).await;
    browser.finish(outcome).await;
}

#[tokio::test]
#[ignore = "drives headless Chromium (chromium, chromium-driver): run with --include-ignored"]
async fn a_failed_save_is_shown_and_retried_until_it_is_stored() {
    let browser = BrowserTest::start().await;
    let outcome = retry_a_failed_save(&browser).await;
    browser.finish(outcome).await;
}

#[tokio::test]
#[ignore = "drives headless Chromium (chromium, chromium-driver): run with --include-ignored"]
async fn a_save_during_an_import_waits_and_is_retried_until_it_is_stored() {
    let browser = BrowserTest::start().await;
    let outcome = wait_for_an_import(&browser).await;
    browser.finish(outcome).await;
}

/// Rates three papers with the keys alone, checks each is stored and shown saved, undoes, and
/// goes on to the next target.
async fn rate_with_the_keyboard(browser: &BrowserTest) -> Result<(), String> {
    let (app, client) = (&browser.app, &browser.client);
    let order = app.blind_order("T1").await;
    let anchors = browser.open_t1().await?;
    if anchors.len() != order.len() {
        return Err(format!(
            "{} papers on the page, {} in the pool",
            anchors.len(),
            order.len()
        ));
    }
    let anchor = |index: usize| anchors[index].clone();
    // On a fresh target the first paper has the focus.
    if focused(client).await? != anchor(0) {
        return Err(format!(
            "the first paper should have the focus, not {:?}",
            focused(client).await?
        ));
    }

    // 4 on the first paper moves to the second; j skips to the third; 2 rates it and moves to
    // the fourth; 5 rates that.
    for key in ['4', 'j', '2', '5'] {
        press(client, key).await?;
    }
    if focused(client).await? != anchor(4) {
        return Err(format!(
            "after rating the fourth paper the fifth should have the focus, not {:?}",
            focused(client).await?
        ));
    }
    eventually("three ratings in the database", || async {
        app.study.count("ratings").await == 3
    })
    .await?;
    let expected = [
        (0, Some(4)),
        (1, None),
        (2, Some(2)),
        (3, Some(5)),
        (4, None),
    ];
    for (index, stars) in expected {
        let stored = app.stored_stars("T1", &order[index]).await;
        if stored != stars {
            return Err(format!(
                "paper {} has {stored:?} stars, not {stars:?}",
                index + 1
            ));
        }
    }
    // The page says "saved" for each, once the server has committed.
    for (index, label) in [
        (0, "4 relevant"),
        (2, "2 marginally relevant"),
        (3, "5 highly relevant"),
    ] {
        let css = format!("#{} .paper-status", anchor(index));
        eventually(&format!("paper {} saved", index + 1), || async {
            text_of(client, &css)
                .await
                .is_ok_and(|text| text == format!("Saved: {label}"))
        })
        .await?;
    }
    let progress = text_of(client, ".target-progress-text").await?;
    if progress != "3 of 7 rated" {
        return Err(format!("the progress reads {progress:?}"));
    }

    // u undoes the last change, and the undo is stored too.
    press(client, 'u').await?;
    eventually("the undo in the database", || async {
        app.study.count("ratings").await == 2
    })
    .await?;
    if app.stored_stars("T1", &order[3]).await.is_some() {
        return Err("the undo cleared another paper than the fourth".to_owned());
    }

    // ? shows the keys and hides them again; n opens the next target.
    press(client, '?').await?;
    if client
        .find(Locator::Css("#keys-dialog[open]"))
        .await
        .is_err()
    {
        return Err("? did not show the keys".to_owned());
    }
    press(client, '?').await?;
    if client
        .find(Locator::Css("#keys-dialog[open]"))
        .await
        .is_ok()
    {
        return Err("? did not hide the keys".to_owned());
    }
    press(client, 'n').await?;
    let t2 = app.url(&format!("/targets/{}", app.paper_id("T2").await));
    eventually("the next target", || async {
        client
            .current_url()
            .await
            .is_ok_and(|url| url.as_str() == t2)
    })
    .await
}

/// The network fails twice, as when the server is restarting: the page says the rating is not
/// saved and retries, and says "saved" only once it is stored.
async fn retry_a_failed_save(browser: &BrowserTest) -> Result<(), String> {
    let (app, client) = (&browser.app, &browser.client);
    let order = app.blind_order("T1").await;
    let anchors = browser.open_t1().await?;
    client
        .execute(
            "const realFetch = window.fetch; let failures = 2;
             window.fetch = (...request) => failures-- > 0
                 ? Promise.reject(new TypeError('Failed to fetch'))
                 : realFetch(...request);",
            vec![],
        )
        .await
        .map_err(|error| format!("cannot break the network: {error}"))?;

    let status = rate_while_not_saving(
        browser,
        &anchors[0],
        "Not saved yet: the server cannot be reached. Trying again in",
    )
    .await?;
    saved_in_the_end(browser, &order[0], &status).await
}

/// Presses 3 on the first paper while saves cannot succeed: the page says `waiting` (how it
/// starts), and nothing is stored. Answers the selector of the paper's status.
async fn rate_while_not_saving(
    browser: &BrowserTest,
    anchor: &str,
    waiting: &str,
) -> Result<String, String> {
    let (app, client) = (&browser.app, &browser.client);
    press(client, '3').await?;
    let status = format!("#{anchor} .paper-status");
    eventually(&format!("{waiting:?} on the page"), || async {
        text_of(client, &status)
            .await
            .is_ok_and(|text| text.starts_with(waiting))
    })
    .await?;
    if app.study.count("ratings").await != 0 {
        return Err("a rating was stored while saving could not succeed".to_owned());
    }
    Ok(status)
}

/// The retried save of 3 stars on `paper` arrives, and only then does the page say "saved".
async fn saved_in_the_end(browser: &BrowserTest, paper: &str, status: &str) -> Result<(), String> {
    let (app, client) = (&browser.app, &browser.client);
    eventually("the rating in the database", || async {
        app.stored_stars("T1", paper).await == Some(3)
    })
    .await?;
    eventually("saved on the page", || async {
        text_of(client, status)
            .await
            .is_ok_and(|text| text == "Saved: 3 moderately relevant")
    })
    .await
}

/// An import holds the study's write lock: the server answers 503, the page says it waits for
/// the import and retries, and says "saved" only once the rating is stored after the import.
async fn wait_for_an_import(browser: &BrowserTest) -> Result<(), String> {
    let app = &browser.app;
    let order = app.blind_order("T1").await;
    let anchors = browser.open_t1().await?;
    let importer = sqlx::sqlite::SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(paperjudge::study::Study::connect_options(
            &app.study.db_path(),
        ))
        .await
        .map_err(|error| format!("no second connection: {error}"))?;
    let mut import = importer
        .acquire()
        .await
        .map_err(|error| error.to_string())?;
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut *import)
        .await
        .map_err(|error| format!("no write lock: {error}"))?;

    let status = rate_while_not_saving(
        browser,
        &anchors[0],
        "Not saved yet: waiting for an import to finish, will retry in",
    )
    .await?;
    sqlx::query("COMMIT")
        .execute(&mut *import)
        .await
        .map_err(|error| format!("the import does not end: {error}"))?;
    saved_in_the_end(browser, &order[0], &status).await
}
