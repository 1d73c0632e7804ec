use crate::common::TestStudy;
use paperjudge::db::papers::{self, Paper};
use paperjudge::domain::PaperKey;
use paperjudge::import::{Format, Kind};

const CSV: Kind = Kind::Papers(Format::Csv);
const JSONL: Kind = Kind::Papers(Format::Jsonl);

async fn paper(study: &TestStudy, id: &str) -> Paper {
    let key: PaperKey = papers::key_of(&study.pool, id)
        .await
        .unwrap()
        .expect("paper exists");
    papers::get(&study.pool, key).await.unwrap().unwrap()
}

#[tokio::test]
async fn csv_adds_then_updates_and_keeps_columns_the_file_lacks() {
    let study = TestStudy::new().await;
    let summary = study
        .import(
            &CSV,
            "\u{FEFF}id,title,abstract,authors,year,url,venue\r\n\
              A1,\"Topics, \"\"quoted\"\"\",An abstract.,Ann Lee; Bo Chen,2019,https://example.org/a1,ACL\r\n\
              A2,Second,,,,,\r\n"
                .as_bytes(),
            0,
        )
        .await
        .unwrap();
    assert_eq!((summary.read, summary.added, summary.updated), (2, 2, 0));
    let a1 = paper(&study, "A1").await;
    assert_eq!(a1.title, "Topics, \"quoted\"");
    assert_eq!(a1.authors, "Ann Lee; Bo Chen");
    assert_eq!(a1.year, Some(2019));
    assert_eq!(paper(&study, "A2").await.year, None);

    // A file without abstract/authors/year/url only changes titles.
    let summary = study
        .import(&CSV, b"id,title\nA1,New title\nA2,Second\n", 0)
        .await
        .unwrap();
    assert_eq!(
        (
            summary.read,
            summary.added,
            summary.updated,
            summary.unchanged
        ),
        (2, 0, 1, 1)
    );
    let a1 = paper(&study, "A1").await;
    assert_eq!(a1.title, "New title");
    assert_eq!(a1.abstract_text, "An abstract.");
    assert_eq!(a1.year, Some(2019));
}

#[tokio::test]
async fn jsonl_takes_author_arrays_and_string_years() {
    let study = TestStudy::new().await;
    let summary = study
        .import(
            &JSONL,
            br#"{"id":"J1","title":"One","authors":["Ann Lee","Bo Chen"],"year":"2001","extra":1}

{"id":"J2","title":"Two","authors":"Cy Dee","year":2002,"abstract":"Text.","url":null}
"#,
            0,
        )
        .await
        .unwrap();
    assert_eq!((summary.read, summary.added), (2, 2));
    let j1 = paper(&study, "J1").await;
    assert_eq!(j1.authors, "Ann Lee; Bo Chen");
    assert_eq!(j1.year, Some(2001));
    assert_eq!(paper(&study, "J2").await.abstract_text, "Text.");
}

#[tokio::test]
async fn bad_papers_are_rejected_whole_with_their_lines_named() {
    let study = TestStudy::new().await;
    study.papers(&crate::common::papers_csv(2)).await;

    let message = study.rejected(&CSV, b"").await;
    assert!(message.contains("test.csv: the file is empty"), "{message}");

    let message = study.rejected(&CSV, b"key,name\nA,B\n").await;
    assert!(
        message.contains(
            "test.csv:1: `id`: required column is missing from the header (found: key,name"
        ),
        "{message}"
    );

    let message = study
        .rejected(&CSV, b"id,title\nN1,Fine\nN2,Bad \xff\xfe bytes\n")
        .await;
    assert!(
        message.contains("test.csv:3: `title`: not valid UTF-8 (byte 5 of the field)"),
        "{message}"
    );

    let message = study
        .rejected(
            &CSV,
            b"id,title,year\nN1,One,1999\nN2,Two,2000,extra\nN1,Again,\nN3,Three,twenty\n",
        )
        .await;
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines,
        [
            "test.csv:3: expected 3 fields as in the header, found 4",
            "test.csv:4: `id`: paper \"N1\" appears twice in this file (also line 2)",
            "test.csv:5: `year`: expected a year such as 2019, got \"twenty\"",
        ]
    );

    let message = study
        .rejected(&CSV, b"id,title\nhas space,T\n,T\nN3,\n")
        .await;
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines,
        [
            "test.csv:2: `id`: the paper id \"has space\" contains whitespace, which TREC files cannot hold",
            "test.csv:3: `id`: the paper id is empty",
            "test.csv:4: `title`: the title is empty",
        ]
    );

    let mut huge = b"id,title\nN1,One\nN2,".to_vec();
    huge.extend(std::iter::repeat_n(b'x', 10 << 20));
    huge.extend(b"\nN3,Three\n");
    let message = study.rejected(&CSV, &huge).await;
    assert!(
        message.contains("test.csv:3: line is longer than 1048576 bytes"),
        "{message}"
    );

    let message = study
        .rejected(
            &JSONL,
            b"{\"id\":\"N1\",\"title\":\"One\"}\n{\"id\":\"N2\",\"tit",
        )
        .await;
    assert!(
        message.contains("test.csv:2: invalid JSON at column 15: EOF while parsing a string"),
        "{message}"
    );
}
