//! Files that an import must refuse clearly (issue 32), each with the attack's own input:
//! stars with a space, a quote never closed, and a file of NUL bytes whose one problem was a
//! message of megabytes.

use std::path::Path;

use crate::process_support::{paperjudge, stderr, succeeded};

/// A study of papers T1, P1 and P2, one model listing P1 and P2 for T1.
fn study(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("study.db");
    let papers = write(dir, "papers.csv", "id,title\nT1,Target\nP1,One\nP2,Two\n");
    succeeded(&paperjudge(&db, &["import", "papers", &papers], &[]));
    let lists = write(
        dir,
        "lists.csv",
        "model,target,rank,paper\nm,T1,1,P1\nm,T1,2,P2\n",
    );
    succeeded(&paperjudge(
        &db,
        &["import", "recommendations", &lists],
        &[],
    ));
    db
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Refused with exit status 2 and exactly `message` on stderr; nothing rated.
fn refused(db: &Path, args: &[&str], message: &str) {
    let output = paperjudge(db, args, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(stderr(&output), message);
}

/// The attack: the ratings import read `' 3'` as 3 stars where the web refuses it. Stars are one
/// digit and nothing else, in a file as on the web; the other fields are still trimmed.
#[test]
fn stars_with_a_space_are_refused_as_on_the_web() {
    let dir = tempfile::tempdir().unwrap();
    let db = study(dir.path());
    for (stars, shown) in [(" 3", "\" 3\""), ("3 ", "\"3 \""), ("03", "\"03\"")] {
        let file = write(
            dir.path(),
            "ratings.csv",
            &format!("target,paper,stars\nT1, P1 ,{stars}\n"),
        );
        refused(
            &db,
            &["import", "ratings", &file],
            &format!(
                "paperjudge: {file}:2: `stars`: stars must be an integer from 1 to 5, or cannot-judge, got \
                 {shown}\n"
            ),
        );
    }
    let file = write(dir.path(), "ratings.csv", "target,paper,stars\nT1, P1 ,3\n");
    succeeded(&paperjudge(&db, &["import", "ratings", &file], &[]));
}

/// The attack: a quote left open said "expected 3 fields as in the header, found 1". It says
/// that a quote is never closed, on the row it opens in, whichever field it opens; a quoted
/// field that spans lines and is closed at the end of the file is read as ever.
#[test]
fn a_quote_left_open_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let db = study(dir.path());
    let open = "a quote opened in this row is never closed, so the rest of the file was read \
                into one field: close it (a quote inside a quoted field is written twice, \"\")";
    for (text, line) in [
        ("target,paper,stars\n\"T1,P1,3\nT1,P2,4\n", 2),
        ("target,paper,stars\nT1,P1,3\nT1,\"P2,4\n", 3),
        ("target,paper,stars\r\nT1,P1,\"3\r\n", 2),
    ] {
        let file = write(dir.path(), "ratings.csv", text);
        refused(
            &db,
            &["import", "ratings", &file],
            &format!("paperjudge: {file}:{line}: {open}\n"),
        );
    }
    let closed = write(
        dir.path(),
        "papers.csv",
        "id,title\nP3,\"A title\non two lines\"",
    );
    succeeded(&paperjudge(&db, &["import", "papers", &closed], &[]));
}

/// The attack: a 900 KB file of NUL bytes gave a message of 4.5 MB (its header quoted whole,
/// each NUL escaped). What a problem quotes of the file is cut to 100 characters, saying how
/// many more there were; and no problem runs past 500 characters.
#[test]
fn a_file_of_nul_bytes_gets_a_short_message() {
    let dir = tempfile::tempdir().unwrap();
    let db = study(dir.path());
    let file = dir.path().join("nul.csv");
    std::fs::write(&file, vec![0u8; 900_000]).unwrap();
    let output = paperjudge(&db, &["import", "papers", file.to_str().unwrap()], &[]);
    assert_eq!(output.status.code(), Some(2));
    let said = stderr(&output);
    assert_eq!(
        said,
        format!(
            "paperjudge: {}:1: `id`: required column is missing from the header (found: {}… \
             (899900 more characters); expected: id,title[,abstract,authors,year,url])\n",
            file.display(),
            "\\u{0}".repeat(100)
        )
    );
    // Fifty long ids unknown, each quoted: every problem is cut, and those past fifty counted.
    let long = "x".repeat(60_000);
    let mut lists = String::from("model,target,rank,paper\n");
    for rank in 1..=60 {
        lists.push_str(&format!("m,T1,{rank},{long}{rank}\n"));
    }
    let file = write(dir.path(), "long.csv", &lists);
    let output = paperjudge(&db, &["import", "recommendations", &file], &[]);
    assert_eq!(output.status.code(), Some(2));
    let said = stderr(&output);
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 51, "{}", &said[..200]);
    assert!(lines[..50].iter().all(|line| line.chars().count() < 700));
    // The message quotes the id, 60,001 characters, and is cut at 500.
    let (shown, rest) = lines[0].split_once("… (the message goes on for ").unwrap();
    assert!(shown.ends_with(&"x".repeat(100)), "{shown}");
    assert!(rest.ends_with(" more characters)"), "{rest}");
    assert_eq!(
        lines[50],
        format!("paperjudge: {file}: 10 more problems not shown; nothing was imported")
    );
}
