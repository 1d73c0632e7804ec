//! Arbitrary bytes into every importer, through the study layer as the command line and the
//! browser import them: the first byte picks the importer and its options, the rest is the
//! file. Bad input must come back as a refusal (problems with line and column); a panic or any
//! other error is a bug. Each input goes into a fresh copy of one small seeded study, so every
//! run starts from the same state and a crash reproduces from its input alone.
#![no_main]

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use paperjudge::domain::RaterName;
use paperjudge::formats::Format;
use paperjudge::study::import::{ratings, recommendations, Kind};
use paperjudge::study::{ImportFile, Study, StudyError};
use rand::SeedableRng;

const PAPERS_CSV: &str = "id,title,year\nT1,Target one,2019\nT2,Target two,2020\n\
                          P1,Paper one,2001\nP2,Paper two,2002\nP3,Paper three,2003\n";
const RECOMMENDATIONS_CSV: &str =
    "model,target,rank,paper,score\nm1,T1,1,P1,0.9\nm1,T1,2,P2,0.8\nm2,T2,1,P3,0.7\n";
const RATINGS_CSV: &str = "target,paper,stars,rater\nT1,P1,4,owner\nT1,P2,2,Ann\n";

/// Every importer with the options that change how it reads.
fn kinds() -> [Kind; 8] {
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
        Kind::Ratings(ratings::Options::default()),
        Kind::Ratings(ratings::Options {
            rater: RaterName::new("Ann").ok(),
        }),
    ]
}

/// What every input starts from: a temporary directory, the seeded study in it, and the
/// runtime the study layer runs on.
struct Seeded {
    runtime: tokio::runtime::Runtime,
    dir: tempfile::TempDir,
}

impl Seeded {
    fn template(&self) -> PathBuf {
        self.dir.path().join("seeded.db")
    }
}

/// Imports `text` as one file of `kind` into `study`, with a seeded generator.
async fn import(study: &Study, kind: Kind, text: &[u8]) -> Result<(), StudyError> {
    let file = ImportFile::new("fuzz", Cursor::new(text.to_vec()));
    let rng = rand::rngs::StdRng::seed_from_u64(0);
    study.import(kind, vec![file], rng, ()).await.map(drop)
}

fn seeded() -> &'static Seeded {
    static SEEDED: OnceLock<Seeded> = OnceLock::new();
    SEEDED.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        let seeded = Seeded {
            runtime,
            dir: tempfile::tempdir().expect("a temporary directory"),
        };
        seeded.runtime.block_on(async {
            let study = Study::open(&seeded.template())
                .await
                .expect("the study opens");
            let ann = RaterName::new("Ann").expect("a name");
            (study.add_rater(&ann, "Ann's long password"))
                .await
                .expect("a rater");
            let kinds = kinds();
            for (kind, text) in [
                (&kinds[0], PAPERS_CSV),
                (&kinds[2], RECOMMENDATIONS_CSV),
                (&kinds[6], RATINGS_CSV),
            ] {
                (import(&study, kind.clone(), text.as_bytes()))
                    .await
                    .expect("the seed imports");
            }
            // Closing leaves the whole study in its one file, ready to copy.
            study.close().await;
        });
        seeded
    })
}

fn fresh_copy(seeded: &Seeded) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir_in(seeded.dir.path()).expect("a temporary directory");
    let path = dir.path().join("study.db");
    std::fs::copy(seeded.template(), &path).expect("the study is copied");
    (dir, path)
}

fn run(seeded: &Seeded, path: &Path, kind: Kind, file: &[u8]) -> Result<(), StudyError> {
    seeded.runtime.block_on(async {
        let study = Study::open(path).await.expect("the copy opens");
        let result = import(&study, kind, file).await;
        study.close().await;
        result
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, file)) = data.split_first() else {
        return;
    };
    let seeded = seeded();
    let kinds = kinds();
    let kind = kinds[usize::from(selector) % kinds.len()].clone();
    let (_dir, path) = fresh_copy(seeded);
    match run(seeded, &path, kind.clone(), file) {
        Ok(()) | Err(StudyError::Refused(_)) => {}
        Err(error) => panic!("{kind:?} failed other than by refusing its input: {error}"),
    }
});
