use crate::common::TestStudy;
use paperjudge::domain::PaperId;
use paperjudge::formats::Format;
use paperjudge::study::import::Kind;
use paperjudge::study::papers::Paper;

const CSV: Kind = Kind::Papers(Format::Csv);
const JSONL: Kind = Kind::Papers(Format::Jsonl);

/// The paper as stored, read with SQL of the test's own.
async fn paper(study: &TestStudy, id: &str) -> Paper {
    let (id, external_id, title, abstract_text, authors, year, url): (_, String, _, _, _, _, _) =
        sqlx::query_as(
            "SELECT id, external_id, title, abstract, authors, year, url FROM papers
             WHERE external_id = ?",
        )
        .bind(id)
        .fetch_one(&study.connections)
        .await
        .expect("paper exists");
    Paper {
        id,
        external_id: PaperId::stored(external_id),
        title,
        abstract_text,
        authors,
        year,
        url,
    }
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

#[tokio::test]
async fn a_quoted_field_spanning_lines_stops_at_the_row_limit() {
    let study = TestStudy::new().await;
    // An open quote makes the rest of the file one field, however short its lines.
    let mut open_quote = b"id,title\nN1,One\nN2,\"".to_vec();
    open_quote.extend(b"a line of a title that does not end\n".repeat(40_000));
    open_quote.extend(b"\"\nN3,Three\n");
    let message = study.rejected(&CSV, &open_quote).await;
    assert_eq!(
        message,
        "test.csv:3: the row starting on this line is longer than 1048576 bytes (the limit is \
         1 MiB); is a quote left open?"
    );
    // Just over the limit, within what the parser reads ahead.
    let mut just_over = b"id,title,abstract\nN1,\"".to_vec();
    just_over.extend(b"x\n".repeat(300_000));
    just_over.extend(b"\",\"");
    just_over.extend(b"y\n".repeat(300_000));
    just_over.extend(b"\"\n");
    let message = study.rejected(&CSV, &just_over).await;
    assert!(
        message.starts_with("test.csv:2: the row starting on this line is longer than"),
        "{message}"
    );
}

#[tokio::test]
async fn a_field_over_64_kib_is_refused_naming_its_line_and_column() {
    let study = TestStudy::new().await;
    let long = "x".repeat(65_537);
    let problem = |line: u64, field: &str| {
        format!(
            "test.csv:{line}: `{field}`: the field holds 65537 bytes, more than the 65536 \
             (64 KiB) a field may hold"
        )
    };

    let csv = format!("id,title,abstract\nN1,One,short\nN2,{long},\nN3,Three,\"{long}\"\n");
    let message = study.rejected(&CSV, csv.as_bytes()).await;
    assert_eq!(
        message.lines().collect::<Vec<_>>(),
        [problem(3, "title"), problem(4, "abstract")]
    );
    let jsonl = format!(
        "{{\"id\":\"N1\",\"title\":\"One\"}}\n{{\"id\":\"N2\",\"title\":\"Two\",\"authors\":[\"{long}\"]}}\n"
    );
    let message = study.rejected(&JSONL, jsonl.as_bytes()).await;
    assert_eq!(message, problem(2, "authors"));

    let at_the_limit = "y".repeat(65_536);
    study
        .papers(&format!("id,title\nN9,{at_the_limit}\n"))
        .await;
    assert_eq!(paper(&study, "N9").await.title, at_the_limit);
}

#[tokio::test]
async fn control_and_format_characters_in_paper_ids_are_refused() {
    let study = TestStudy::new().await;
    let ids = [
        ("N\u{0}1", 0x0),
        ("N\u{1b}[31m2", 0x1b),
        ("N\u{200b}3", 0x200b),
        ("N4\u{feff}", 0xfeff),
        ("N\u{202e}5", 0x202e),
        ("N6\u{ad}", 0xad),
    ];
    let mut csv = String::from("id,title\n");
    for (id, _) in ids {
        csv.push_str(&format!("{id},A title\n"));
    }

    let message = study.rejected(&CSV, csv.as_bytes()).await;

    let expected: Vec<String> = (2..)
        .zip(ids)
        .map(|(line, (id, code))| {
            format!(
                "test.csv:{line}: `id`: the paper id {id:?} contains the control or format \
                 character U+{code:04X}, which is invisible or acts on the text around it"
            )
        })
        .collect();
    assert_eq!(message.lines().collect::<Vec<_>>(), expected);
    let jsonl = "{\"id\":\"N\\u001b7\",\"title\":\"T\"}\n";
    let message = study.rejected(&JSONL, jsonl.as_bytes()).await;
    assert!(message.contains("U+001B"), "{message}");
}

#[tokio::test]
async fn a_header_naming_a_column_twice_is_refused() {
    let study = TestStudy::new().await;

    let message = study.rejected(&CSV, b"id,title,Title\nN1,One,Two\n").await;

    assert_eq!(
        message,
        "test.csv:1: `title`: the header names this column twice (columns 2 and 3); name each \
         column once"
    );
}

#[tokio::test]
async fn problems_name_the_line_a_row_is_on_whatever_the_line_endings() {
    let study = TestStudy::new().await;
    let problem =
        |line: u64| format!("test.csv:{line}: `year`: expected a year such as 2019, got \"abc\"");

    // Excel and Python's csv module end lines with CRLF, classic Mac files with CR alone.
    for ending in ["\n", "\r\n", "\r"] {
        let file = ["id,title,year", "A1,ok,2019", "A2,bad,abc", ""].join(ending);
        assert_eq!(
            study.rejected(&CSV, file.as_bytes()).await,
            problem(3),
            "{ending:?}"
        );

        // Blank lines are skipped, and a quoted field may span lines: rows 3 and 6 start on
        // lines 4 and 8.
        let file = [
            "id,title,year",
            "",
            "A1,ok,2019",
            "A2,bad,abc",
            "",
            "",
            "A3,\"two",
            "lines\",abc",
            "A4,bad,abc",
        ]
        .join(ending);
        assert_eq!(
            study.rejected(&CSV, file.as_bytes()).await,
            format!("{} (on 3 lines: 4, 7, 9)", problem(4)),
            "{ending:?}"
        );
    }
}

/// A file whose lines end with CR alone (classic Mac, old Excel for Mac) is read line by line:
/// one of 2 MiB imports whole, where it was once refused as a single line over 1 MiB.
#[tokio::test]
async fn a_large_file_with_carriage_returns_alone_imports_whole() {
    let study = TestStudy::new().await;
    let abstract_text = "An abstract of some length. ".repeat(25);
    let rows: String = (1..=3000)
        .map(|row| format!("P{row},Paper {row},{abstract_text},Ann Lee,2019\r"))
        .collect();
    let file = format!("id,title,abstract,authors,year\r{rows}");
    assert!(file.len() > 2 << 20, "{}", file.len());
    let summary = study
        .import(&CSV, file.as_bytes(), 0)
        .await
        .expect("imported");
    assert_eq!(summary.added, 3000);
    assert_eq!(study.count("papers").await, 3000);
    assert_eq!(paper(&study, "P3000").await.title, "Paper 3000");
}
