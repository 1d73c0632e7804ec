//! Shared by the integration tests: a study in a real SQLite file in a temporary directory,
//! changed through the application layer (`Study`) as the app changes it.

use rand::SeedableRng;
use sqlx::SqlitePool;

use paperjudge::domain::{PaperId, PaperKey};
use paperjudge::formats::Format;
use paperjudge::study::import::ImportFile;
use paperjudge::study::import::{self, Kind, Summary};
use paperjudge::study::{Refusal, Study, StudyError};

pub struct TestStudy {
    /// The study, as the app works on it.
    pub study: Study,
    /// Connections of the test's own, to read the schema in what a test asserts.
    pub connections: SqlitePool,
    pub dir: tempfile::TempDir,
}

impl TestStudy {
    pub async fn new() -> TestStudy {
        let dir = tempfile::tempdir().expect("a temporary directory");
        TestStudy::open(dir).await
    }

    /// The study in `dir`, opened (and created if missing).
    pub async fn open(dir: tempfile::TempDir) -> TestStudy {
        let file = dir.path().join("study.db");
        let study = Study::open(&file).await.expect("the study opens");
        let connections = connections_to(&file).await;
        TestStudy {
            study,
            connections,
            dir,
        }
    }

    /// A new study in a file of its own holding what this one holds now: each case of a
    /// property changes its own copy, so that no case sees another's changes.
    pub async fn copy(&self) -> TestStudy {
        // Everything into the main file, which is then the whole study.
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&self.connections)
            .await
            .expect("a checkpoint");
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::copy(self.db_path(), dir.path().join("study.db")).expect("the study is copied");
        TestStudy::open(dir).await
    }

    pub fn db_path(&self) -> std::path::PathBuf {
        self.dir.path().join("study.db")
    }

    /// Imports `text` as one file in one transaction, committed only on success, with a
    /// seeded generator so that pool order is reproducible.
    pub async fn import(&self, kind: &Kind, text: &[u8], seed: u64) -> Result<Summary, StudyError> {
        let rng = rand::rngs::StdRng::seed_from_u64(seed);
        let file = ImportFile::new("test.csv", std::io::Cursor::new(text.to_vec()));
        (self.study)
            .import()
            .files(kind.clone(), vec![file], rng, ())
            .await
    }

    pub async fn papers(&self, csv: &str) -> Summary {
        self.import(&Kind::Papers(Format::Csv), csv.as_bytes(), 0)
            .await
            .expect("papers import")
    }

    pub async fn recommendations(&self, csv: &str) -> Summary {
        self.import(&recommendations(Format::Csv), csv.as_bytes(), 1)
            .await
            .expect("recommendations import")
    }

    pub async fn ratings(&self, csv: &str) -> Summary {
        self.import(&Kind::Ratings(Default::default()), csv.as_bytes(), 2)
            .await
            .expect("ratings import")
    }

    pub async fn count(&self, table: &str) -> i64 {
        sqlx::query_scalar(&format!("SELECT COUNT(*) FROM {table}"))
            .fetch_one(&self.connections)
            .await
            .expect("count")
    }
}

pub fn recommendations(format: Format) -> Kind {
    Kind::Recommendations(import::recommendations::Options {
        format,
        model: None,
    })
}

/// The verdict's fixtures: study S of `paperjudge-synth` (its lists cut to the top 8 of each,
/// and its ratings) and the demo rated by scripts/rate_demo.py.
pub const VERDICT_FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/verdict");

/// Study S's papers, written to `dir/papers.csv`: every id its lists name, titled by it (the
/// verdict reads no title).
pub fn study_s_papers(dir: &std::path::Path) -> std::path::PathBuf {
    let lists = std::fs::read_to_string(format!("{VERDICT_FIXTURES}/synth-s-recommendations.csv"))
        .expect("the fixture reads");
    let mut ids: Vec<&str> = (lists.lines().skip(1))
        .flat_map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            [fields[1], fields[3]]
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let papers = dir.join("papers.csv");
    let mut text = String::from("id,title\n");
    for id in ids {
        text.push_str(&format!("{id},Paper {id}\n"));
    }
    std::fs::write(&papers, text).expect("the papers are written");
    papers
}

/// `n` papers with ids P1..Pn.
pub fn papers_csv(n: usize) -> String {
    let mut csv = String::from("id,title,abstract,authors,year,url\n");
    for i in 1..=n {
        csv.push_str(&format!(
            "P{i},Paper number {i},Abstract of paper {i}.,Author {i},2020,https://example.org/P{i}\n"
        ));
    }
    csv
}

impl TestStudy {
    /// Row counts of every table, to prove that a failed import wrote nothing.
    pub async fn snapshot(&self) -> [i64; 6] {
        [
            self.count("papers").await,
            self.count("models").await,
            self.count("recommendations").await,
            self.count("pool").await,
            self.count("ratings").await,
            self.count("rating_history").await,
        ]
    }

    /// Imports `text` expecting it to be rejected with nothing written; returns the message.
    pub async fn rejected(&self, kind: &Kind, text: &[u8]) -> String {
        let before = self.snapshot().await;
        let error = self
            .import(kind, text, 3)
            .await
            .expect_err("the import must be rejected");
        assert_eq!(
            self.snapshot().await,
            before,
            "a rejected import wrote something"
        );
        match error {
            StudyError::Refused(Refusal::Invalid(invalid)) => invalid.to_string(),
            error => panic!("expected invalid input, got {error}"),
        }
    }

    /// The rating history of a pair, by external ids, as `(previous, stars, source)`, oldest
    /// first.
    pub async fn history(
        &self,
        target: &str,
        paper: &str,
    ) -> Vec<(Option<u8>, Option<u8>, String)> {
        let rows: Vec<(Option<i64>, Option<i64>, String)> = sqlx::query_as(
            "SELECT h.previous_stars, h.stars, h.source FROM rating_history h
             JOIN papers t ON t.id = h.target_id JOIN papers p ON p.id = h.paper_id
             WHERE t.external_id = ? AND p.external_id = ? ORDER BY h.id",
        )
        .bind(target)
        .bind(paper)
        .fetch_all(&self.connections)
        .await
        .expect("the history reads");
        let stars = |value: Option<i64>| value.map(|stars| u8::try_from(stars).expect("1 to 5"));
        rows.into_iter()
            .map(|(previous, current, source)| (stars(previous), stars(current), source))
            .collect()
    }

    /// A new study of study S's papers and lists (65 targets, 8 models), nothing rated.
    pub async fn study_s() -> TestStudy {
        let test = TestStudy::new().await;
        let papers = std::fs::read_to_string(study_s_papers(test.dir.path())).unwrap();
        test.papers(&papers).await;
        let lists =
            std::fs::read_to_string(format!("{VERDICT_FIXTURES}/synth-s-recommendations.csv"))
                .unwrap();
        test.recommendations(&lists).await;
        test
    }

    /// The targets being rated, by external id.
    pub async fn active_targets(&self) -> Vec<(PaperKey, PaperId)> {
        let rows: Vec<(i64, String)> = sqlx::query_as(
            "SELECT t.target_id, p.external_id FROM targets t JOIN papers p ON p.id = t.target_id
             WHERE t.active = 1 ORDER BY p.external_id",
        )
        .fetch_all(&self.connections)
        .await
        .expect("the targets");
        (rows.into_iter())
            .map(|(key, id)| (PaperKey(key), PaperId::given(&id)))
            .collect()
    }

    /// The pool of the target `target`, in its blind order.
    pub async fn pool_of(&self, target: PaperKey) -> Vec<PaperId> {
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT p.external_id FROM pool JOIN papers p ON p.id = pool.paper_id
             WHERE pool.target_id = ? ORDER BY pool.sort_key, pool.paper_id",
        )
        .bind(target.0)
        .fetch_all(&self.connections)
        .await
        .expect("the pool");
        rows.iter().map(|id| PaperId::given(id)).collect()
    }

    /// The blind order of a target's pool: external paper ids by display position.
    pub async fn blind_order(&self, target: &str) -> Vec<String> {
        sqlx::query_scalar(
            "SELECT p.external_id FROM pool
             JOIN papers t ON t.id = pool.target_id JOIN papers p ON p.id = pool.paper_id
             WHERE t.external_id = ? ORDER BY pool.sort_key, pool.paper_id",
        )
        .bind(target)
        .fetch_all(&self.connections)
        .await
        .expect("pool order")
    }
}

/// Connections of a test's own to the study file at `path` (opened already), set up as the
/// study's are.
pub async fn connections_to(path: &std::path::Path) -> SqlitePool {
    sqlx::sqlite::SqlitePoolOptions::new()
        .connect_with(Study::connect_options(path))
        .await
        .expect("the study opens")
}

/// A revision of everything the evaluation reads, as the study counts it: the last id of the
/// rating history and the study's revision counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub struct Revision {
    pub ratings: i64,
    pub study: i64,
}

pub async fn revision(pool: &SqlitePool) -> Revision {
    sqlx::query_as(
        "SELECT (SELECT COALESCE(MAX(id), 0) FROM rating_history) AS ratings, revision AS study
         FROM study WHERE id = 1",
    )
    .fetch_one(pool)
    .await
    .expect("the revision")
}
