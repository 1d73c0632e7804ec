//! Arbitrary bytes into every importer: the first byte picks the importer and its format, the
//! rest is the file. Bad input must be reported as problems; a panic or a database error is a
//! bug. Each input is imported inside a transaction that is rolled back, so that every run
//! starts from the same seeded study.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use paperjudge::import::{self, recommendations, Format, ImportError, Kind};
use rand::SeedableRng;
use sqlx::{Connection, SqlitePool};

struct Study {
    runtime: tokio::runtime::Runtime,
    pool: SqlitePool,
    _dir: tempfile::TempDir,
}

const PAPERS_CSV: &str = "id,title,year\nT1,Target one,2019\nT2,Target two,2020\n\
                          P1,Paper one,2001\nP2,Paper two,2002\nP3,Paper three,2003\n";
const RECOMMENDATIONS_CSV: &str =
    "model,target,rank,paper,score\nm1,T1,1,P1,0.9\nm1,T1,2,P2,0.8\nm2,T2,1,P3,0.7\n";
const RATINGS_CSV: &str = "target,paper,stars\nT1,P1,4\n";

fn kinds() -> [Kind; 7] {
    let lists = |format, model: Option<&str>| {
        Kind::Recommendations(recommendations::Options {
            format,
            model: model.map(str::to_owned),
        })
    };
    [
        Kind::Papers(Format::Csv),
        Kind::Papers(Format::Jsonl),
        lists(Format::Csv, None),
        lists(Format::Jsonl, None),
        lists(Format::Trec, None),
        lists(Format::Trec, Some("forced")),
        Kind::Ratings,
    ]
}

fn study() -> &'static Study {
    static STUDY: OnceLock<Study> = OnceLock::new();
    STUDY.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let pool = runtime.block_on(async {
            let pool = paperjudge::db::open(&dir.path().join("study.db"))
                .await
                .expect("the study opens");
            let mut rng = rand::rngs::StdRng::seed_from_u64(0);
            for (kind, text) in [
                (Kind::Papers(Format::Csv), PAPERS_CSV),
                (kinds()[2].clone(), RECOMMENDATIONS_CSV),
                (Kind::Ratings, RATINGS_CSV),
            ] {
                import::import_file(&pool, &kind, text.as_bytes(), "seed", &mut rng)
                    .await
                    .expect("the seed imports");
            }
            pool
        });
        Study {
            runtime,
            pool,
            _dir: dir,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, file)) = data.split_first() else {
        return;
    };
    let kinds = kinds();
    let kind = &kinds[usize::from(selector) % kinds.len()];
    let study = study();
    let result = study.runtime.block_on(async {
        let mut conn = study.pool.acquire().await.expect("a connection");
        let mut tx = conn.begin().await.expect("a transaction");
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        let result = import::import(&mut tx, kind, file, "fuzz", &mut rng).await;
        tx.rollback().await.expect("the rollback");
        result
    });
    if let Err(ImportError::Database(error)) = result {
        panic!("{kind:?} failed in the database: {error}");
    }
});
