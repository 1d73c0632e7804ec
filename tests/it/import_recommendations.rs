use crate::common::{recommendations, TestStudy};
use paperjudge::formats::Format;

/// Every stored list as `model target: papers in position order`.
pub(crate) async fn lists(study: &TestStudy) -> Vec<String> {
    let rows: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT m.name, t.external_id, GROUP_CONCAT(p.external_id, ' ')
         FROM (SELECT * FROM recommendations ORDER BY target_id, model_id, position) r
         JOIN models m ON m.id = r.model_id
         JOIN papers t ON t.id = r.target_id
         JOIN papers p ON p.id = r.paper_id
         GROUP BY r.model_id, r.target_id ORDER BY m.name, t.external_id",
    )
    .fetch_all(&study.connections)
    .await
    .unwrap();
    rows.into_iter()
        .map(|(model, target, papers)| format!("{model} {target}: {papers}"))
        .collect()
}

#[tokio::test]
async fn csv_orders_by_rank_drops_self_recommendations_and_replaces_lists() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(9)).await;
    let summary = study
        .recommendations(
            "model,target,rank,paper,score\n\
             LDA,P1,3,P4,0.2\nLDA,P1,1,P2,0.9\nLDA,P1,2,P1,0.5\nLDA,P1,4,P3,0.1\n\
             ES,P1,1,P5,\nES,P2,1,P1,\n",
        )
        .await;
    assert_eq!(
        (
            summary.read,
            summary.added,
            summary.updated,
            summary.dropped
        ),
        (6, 3, 0, 1)
    );
    assert_eq!(
        lists(&study).await,
        ["ES P1: P5", "ES P2: P1", "LDA P1: P2 P4 P3"]
    );

    // A list in a new file replaces the stored one; other lists stay.
    let summary = study
        .recommendations("model,target,rank,paper\nLDA,P1,1,P9\n")
        .await;
    assert_eq!((summary.added, summary.updated), (0, 1));
    assert_eq!(
        lists(&study).await,
        ["ES P1: P5", "ES P2: P1", "LDA P1: P9"]
    );
}

#[tokio::test]
async fn scattered_rows_of_a_list_are_merged_in_rank_order() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(6)).await;
    study
        .recommendations(
            "model,target,rank,paper\n\
             A,P1,2,P3\nA,P2,1,P4\nA,P1,1,P2\nB,P2,1,P5\nA,P1,3,P6\n",
        )
        .await;
    assert_eq!(
        lists(&study).await,
        ["A P1: P2 P3 P6", "A P2: P4", "B P2: P5"]
    );
}

#[tokio::test]
async fn trec_runs_follow_trec_eval_order_and_jsonl_orders_by_score_without_rank() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(6)).await;
    // Scores tie for P3 and P5: trec_eval puts the larger id (byte order) first; the rank
    // column is ignored.
    let run =
        "P1 Q0 P3 1 0.5 runA\nP1 Q0 P5 2 0.5 runA\nP1 Q0 P2 3 0.9 runA\nP1\tQ0  P4 4 -1 runA\n";
    let summary = study
        .import(&recommendations(Format::Trec), run.as_bytes(), 1)
        .await
        .unwrap();
    assert_eq!((summary.read, summary.added), (4, 1));
    let jsonl = br#"{"model":"emb","target":"P2","paper":"P3","score":0.1}
{"model":"emb","target":"P2","paper":"P6","score":0.7}
"#;
    study
        .import(&recommendations(Format::Jsonl), jsonl, 1)
        .await
        .unwrap();
    assert_eq!(
        lists(&study).await,
        ["emb P2: P6 P3", "runA P1: P2 P5 P3 P4"]
    );
}

#[tokio::test]
async fn bad_recommendations_are_rejected_whole_with_their_lines_named() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(5)).await;
    study
        .recommendations("model,target,rank,paper\nA,P1,1,P2\n")
        .await;
    let csv = recommendations(Format::Csv);

    let message = study.rejected(&csv, b"").await;
    assert!(message.contains("the file is empty"), "{message}");
    // A header without rows imports nothing, and is no error (`evaluation.rs`); a JSONL or
    // TREC file without a line is.
    for format in [Format::Jsonl, Format::Trec] {
        let message = study.rejected(&recommendations(format), b"\n").await;
        assert_eq!(
            message,
            "test.csv: the file holds no recommendations (an empty file imports nothing)"
        );
    }
    let message = study.rejected(&csv, b"model,target,paper\nA,P1,P2\n").await;
    assert!(
        message.contains("test.csv:1: `rank`: the header needs a rank or a score column"),
        "{message}"
    );

    let message = study
        .rejected(
            &csv,
            b"model,target,rank,paper\nA,P1,1,P3\nA,P1,2,P404\nA,NOPE,1,P2\nA,P2,1,P3\nA,P2,1,P4\n",
        )
        .await;
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines,
        [
            "test.csv:3: `paper`: unknown paper id \"P404\": import it with `paperjudge import papers` first",
            "test.csv:4: `target`: unknown paper id \"NOPE\": import it with `paperjudge import papers` first",
            "test.csv:6: `rank`: rank 1 appears twice in the list of model \"A\" for this target (also line 5)",
        ]
    );

    let message = study
        .rejected(
            &csv,
            b"model,target,rank,paper\nA,P3,1,P2\nA,P3,2,P2\nA,P3,x,P4\n",
        )
        .await;
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines,
        [
            "test.csv:3: `paper`: the same paper appears twice in the list of model \"A\" for this target (also line 2)",
            "test.csv:4: `rank`: expected a positive integer rank, got \"x\"",
        ]
    );

    let message = study
        .rejected(&csv, b"model,target,rank,paper\nA,P3,1,P\xe9\n")
        .await;
    assert!(
        message.contains("test.csv:2: `paper`: not valid UTF-8 (byte 2 of the field)"),
        "{message}"
    );

    let mut huge = b"model,target,rank,paper\nA,P3,1,P2\nA,P3,2,".to_vec();
    huge.extend(std::iter::repeat_n(b'P', 10 << 20));
    let message = study.rejected(&csv, &huge).await;
    assert!(
        message.contains("test.csv:3: line is longer than"),
        "{message}"
    );

    let message = study
        .rejected(
            &recommendations(Format::Jsonl),
            b"{\"model\":\"A\",\"target\":\"P3\",\"rank\":1,\"paper\":\"P2\"}\n{\"model\":\"A\",\"target\":\"P3\",\"ra",
        )
        .await;
    assert!(
        message.contains("test.csv:2: invalid JSON at column 30: EOF while parsing a string"),
        "{message}"
    );

    let message = study
        .rejected(
            &recommendations(Format::Trec),
            b"P3 Q0 P2 1 0.5 run\nP3 Q0 P4 2 high run\nP3 Q0 P5 3\n",
        )
        .await;
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines,
        [
            "test.csv:2: `score`: expected a finite number, got \"high\"",
            "test.csv:3: expected 6 fields `target Q0 paper rank score model` (5 without the run \
             tag), found 4",
        ]
    );
}

#[tokio::test]
async fn ranks_are_positive_and_given_for_a_whole_list_or_not_at_all() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(6)).await;

    let message = study
        .rejected(
            &recommendations(Format::Csv),
            b"model,target,rank,paper,score\n\
              A,P1,1,P2,0.9\nA,P1,,P3,0.8\nA,P1,3,P4,0.7\nB,P1,0,P2,0.5\nB,P2,-1,P3,0.5\n",
        )
        .await;

    assert_eq!(
        message.lines().collect::<Vec<_>>(),
        [
            "test.csv:3: `rank`: the list of model \"A\" for this target gives a rank on line 2 \
             but none on line 3: give every row of a list a rank, or none (to order it by score)",
            "test.csv:5: `rank`: expected a positive integer rank, got \"0\"",
            "test.csv:6: `rank`: expected a positive integer rank, got \"-1\"",
        ]
    );
    let message = study
        .rejected(
            &recommendations(Format::Jsonl),
            b"{\"model\":\"A\",\"target\":\"P1\",\"rank\":0,\"paper\":\"P2\"}\n",
        )
        .await;
    assert_eq!(
        message,
        "test.csv:1: `rank`: expected a positive integer rank, got 0"
    );
    // Rows of one list scattered through the file count together.
    let message = study
        .rejected(
            &recommendations(Format::Csv),
            b"model,target,rank,paper,score\nA,P1,,P2,0.9\nA,P2,1,P3,0.5\nA,P1,2,P4,0.7\n",
        )
        .await;
    assert!(
        message.starts_with("test.csv:4: `rank`: the list of model \"A\" for this target gives a rank on line 4 but none on"),
        "{message}"
    );
}

#[tokio::test]
async fn control_and_format_characters_in_model_names_are_refused() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(4)).await;
    let problem = |line: u64, name: &str, code: u32| {
        format!(
            "test.csv:{line}: `model`: the model name {name:?} contains the control or format \
             character U+{code:04X}, which is invisible or acts on the text around it"
        )
    };

    let message = study
        .rejected(
            &recommendations(Format::Csv),
            "model,target,rank,paper\nevil\u{1b}[2J,P1,1,P2\nzero\u{200b}width,P1,1,P3\n"
                .as_bytes(),
        )
        .await;
    assert_eq!(
        message.lines().collect::<Vec<_>>(),
        [
            problem(2, "evil\u{1b}[2J", 0x1b),
            problem(3, "zero\u{200b}width", 0x200b)
        ]
    );
    let message = study
        .rejected(
            &recommendations(Format::Trec),
            "P1 Q0 P2 1 0.5 run\u{202e}1\n".as_bytes(),
        )
        .await;
    assert_eq!(message, problem(1, "run\u{202e}1", 0x202e));
    let named = paperjudge::study::import::Kind::Recommendations(
        paperjudge::study::import::recommendations::Options {
            format: Format::Csv,
            model: Some("m\u{7}".to_owned()),
        },
    );
    let message = study
        .rejected(&named, b"target,rank,paper\nP1,1,P2\n")
        .await;
    assert_eq!(
        message,
        "test.csv: --model: the model name \"m\\u{7}\" contains the control or format character \
         U+0007, which is invisible or acts on the text around it"
    );
}

#[tokio::test]
async fn problems_name_the_line_a_row_is_on_whatever_the_line_endings() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(3)).await;
    let kind = recommendations(Format::Csv);

    for ending in ["\n", "\r\n"] {
        let file = [
            "model,target,rank,paper",
            "m,P1,1,P2",
            "m,P1,x,P3",
            "",
            "m,P2,0,P3",
            "",
        ]
        .join(ending);
        assert_eq!(
            study.rejected(&kind, file.as_bytes()).await,
            "test.csv:3: `rank`: expected a positive integer rank, got \"x\"\n\
             test.csv:5: `rank`: expected a positive integer rank, got \"0\"",
            "{ending:?}"
        );
    }
}
