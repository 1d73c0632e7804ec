use crate::common::TestStudy;
use paperjudge::domain::{PaperId, PaperKey};
use paperjudge::export;
use paperjudge::metrics::{Judgments, Relevance};
use paperjudge::study::import::Kind;
use paperjudge::study::raters::Rater;
use paperjudge::study::rating::Edit;

async fn study_with_pool() -> TestStudy {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(6)).await;
    study
        .recommendations("model,target,rank,paper\nA,P1,1,P2\nA,P1,2,P3\nB,P1,1,P4\n")
        .await;
    study
}

async fn stars_of(study: &TestStudy, target: &str, paper: &str) -> Vec<Option<u8>> {
    let history = study.history(target, paper).await;
    history.into_iter().map(|(_, stars, _)| stars).collect()
}

#[tokio::test]
async fn ratings_upsert_into_the_history_and_join_the_pool() {
    let study = study_with_pool().await;
    let summary = study
        .ratings("target,paper,stars\nP1,P2,4\nP1,P3,1\nP1,P5,5\n")
        .await;
    assert_eq!((summary.read, summary.added), (3, 3));
    // P5 was rated although no model pooled it: it joins the pool so the rater can see it.
    assert_eq!(study.count("pool").await, 4);

    let summary = study
        .ratings("target,paper,stars,rated_at\nP1,P2,2,2026-01-02T03:04:05+01:00\nP1,P3,1,\n")
        .await;
    assert_eq!((summary.updated, summary.unchanged), (1, 1));
    assert_eq!(stars_of(&study, "P1", "P2").await, [Some(4), Some(2)]);
    assert_eq!(stars_of(&study, "P1", "P3").await, [Some(1)]);
    let rows = study.study.rating().ratings(None).await.unwrap();
    assert_eq!(rows[0].rated_at, "2026-01-02T02:04:05Z");
    assert_eq!(study.count("rating_history").await, 4);
}

#[tokio::test]
async fn bad_ratings_are_rejected_whole_with_their_lines_named() {
    let study = study_with_pool().await;
    study.ratings("target,paper,stars\nP1,P2,3\n").await;

    let message = study
        .rejected(&Kind::Ratings(Default::default()), b"")
        .await;
    assert!(message.contains("the file is empty"), "{message}");
    // A header without rows imports nothing, and is no error (`evaluation.rs`).
    let message = study
        .rejected(&Kind::Ratings(Default::default()), b"target,paper\nP1,P2\n")
        .await;
    assert!(
        message.contains("test.csv:1: `stars`: required column is missing from the header"),
        "{message}"
    );

    let message = study
        .rejected(
            &Kind::Ratings(Default::default()),
            b"target,paper,stars\nP1,P2,0\nP1,P3,6\nP1,P9,3\nP1,P4,4\nP1,P4,5\nP1,P1,5\nP1,P3,2.5\nP\xff,P2,1\n",
        )
        .await;
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines,
        [
            "test.csv:2: `stars`: stars must be an integer from 1 to 5, or cannot-judge, got \"0\"",
            "test.csv:3: `stars`: stars must be an integer from 1 to 5, or cannot-judge, got \"6\"",
            "test.csv:4: `paper`: unknown paper id \"P9\"",
            "test.csv:6: this pair is rated twice in the file (also line 5)",
            "test.csv:7: `paper`: a paper cannot be rated as a recommendation for itself",
            "test.csv:8: `stars`: stars must be an integer from 1 to 5, or cannot-judge, got \"2.5\"",
            "test.csv:9: `target`: not valid UTF-8 (byte 2 of the field); save the file as UTF-8",
        ]
    );

    let message = study
        .rejected(
            &Kind::Ratings(Default::default()),
            b"target,paper,stars,rated_at\nP1,P2,3,yesterday\n",
        )
        .await;
    assert!(
        message.contains("test.csv:2: `rated_at`: expected an RFC 3339 time"),
        "{message}"
    );

    let mut huge = b"target,paper,stars\nP1,P2,3\n".to_vec();
    huge.extend(std::iter::repeat_n(b'1', 10 << 20));
    let message = study
        .rejected(&Kind::Ratings(Default::default()), &huge)
        .await;
    assert!(
        message.contains("test.csv:3: line is longer than"),
        "{message}"
    );
}

const HOSTILE_PAPERS: &str = "id,title\n\
T1,\"Target, with \"\"quotes\"\" and a\r\nline break\"\n\
R1,\"=cmd|' /C calc'!A0, \"\"evil\"\"\"\n\
R2,\"Ünïcödé — 日本語 \u{1F600}\"\n\
R3,\"trailing comma,\"\n\
R4,\"  spaced  \"\n";

#[tokio::test]
async fn exported_ratings_import_into_a_fresh_study_as_the_same_ratings() {
    let study = TestStudy::new().await;
    study.papers(HOSTILE_PAPERS).await;
    study
        .recommendations("model,target,rank,paper\nm,T1,1,R1\nm,T1,2,R2\nm,T1,3,R3\nm,T1,4,R4\n")
        .await;
    study
        .ratings("target,paper,stars\nT1,R1,5\nT1,R2,1\nT1,R3,3\n")
        .await;
    let mut exported = Vec::new();
    export::ratings_csv(
        &study.study.rating().ratings(None).await.unwrap(),
        &mut exported,
    )
    .unwrap();

    let fresh = TestStudy::new().await;
    fresh.papers(HOSTILE_PAPERS).await;
    let summary = fresh.ratings(std::str::from_utf8(&exported).unwrap()).await;
    assert_eq!((summary.read, summary.added), (3, 3));
    let mut again = Vec::new();
    export::ratings_csv(
        &fresh.study.rating().ratings(None).await.unwrap(),
        &mut again,
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(again).unwrap(),
        String::from_utf8(exported.clone()).unwrap()
    );
    let text = String::from_utf8(exported).unwrap();
    assert!(text.starts_with("target,target_title,paper,paper_title,stars,rated_at,rater,note\r\n"));
    assert!(text.contains("T1,\"Target, with \"\"quotes\"\" and a\r\nline break\",R1,"));

    let mut qrels = Vec::new();
    let judged = fresh
        .study
        .rating()
        .judged_pairs(&Judgments::default())
        .await
        .unwrap();
    export::qrels(&judged, Relevance::StarsMinusOne, &mut qrels).unwrap();
    assert_eq!(
        String::from_utf8(qrels).unwrap(),
        "T1 0 R1 4\nT1 0 R2 0\nT1 0 R3 2\n"
    );
}

#[tokio::test]
async fn a_cleared_rating_is_recorded_in_the_history() {
    let study = study_with_pool().await;
    study.ratings("target,paper,stars\nP1,P2,3\n").await;
    let target: i64 = sqlx::query_scalar("SELECT id FROM papers WHERE external_id = 'P1'")
        .fetch_one(&study.connections)
        .await
        .unwrap();
    let (rating, cleared) = study
        .study
        .rating()
        .rate(
            PaperKey(target),
            &PaperId::given("P2"),
            Edit::Clear,
            "tab",
            &Rater::owner(),
        )
        .await
        .unwrap();
    assert_eq!(rating, None);
    assert_eq!((cleared.rated, cleared.total), (0, 3));
    assert_eq!(stars_of(&study, "P1", "P2").await, [Some(3), None]);
    assert_eq!(study.count("ratings").await, 0);
}

#[tokio::test]
async fn ratings_files_keep_the_field_limit_and_name_each_column_once() {
    let study = study_with_pool().await;
    let long = "P".repeat(70_000);

    let message = study
        .rejected(
            &Kind::Ratings(Default::default()),
            format!("target,paper,stars\nP1,{long},3\n").as_bytes(),
        )
        .await;
    assert_eq!(
        message,
        "test.csv:2: `paper`: the field holds 70000 bytes, more than the 65536 (64 KiB) a field \
         may hold"
    );
    let message = study
        .rejected(
            &Kind::Ratings(Default::default()),
            b"target,paper,stars,Stars\nP1,P2,3,4\n",
        )
        .await;
    assert_eq!(
        message,
        "test.csv:1: `stars`: the header names this column twice (columns 3 and 4); name each \
         column once"
    );
}

#[tokio::test]
async fn problems_name_the_line_a_row_is_on_whatever_the_line_endings() {
    let study = study_with_pool().await;

    for ending in ["\n", "\r\n"] {
        let file = [
            "target,paper,stars",
            "P1,P2,4",
            "P1,P3,7",
            "",
            "P1,P4,0",
            "",
        ]
        .join(ending);
        assert_eq!(
            study
                .rejected(&Kind::Ratings(Default::default()), file.as_bytes())
                .await,
            "test.csv:3: `stars`: stars must be an integer from 1 to 5, or cannot-judge, got \"7\"\n\
             test.csv:5: `stars`: stars must be an integer from 1 to 5, or cannot-judge, got \"0\"",
            "{ending:?}"
        );
    }
}
