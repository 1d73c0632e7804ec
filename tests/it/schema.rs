//! The schema in one file (issue 33): `migrations/schema.sql` is the schema of a study
//! migrated from empty, every table, index, view and trigger, statement by statement.

use sqlx::{Connection, SqliteConnection};

use crate::common::TestStudy;

const SCHEMA: &str = include_str!("../../migrations/schema.sql");

/// Every statement of the schema held in `sqlite_master` (SQLite's own indexes, which have no
/// statement, and sqlx's table of migrations left out), as `(type, name, statement)` sorted by
/// type and name, each statement without comments and spacing (see [`normalized`]).
async fn schema_of(conn: &mut SqliteConnection) -> Vec<(String, String, String)> {
    let rows: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT type, name, sql FROM sqlite_master
         WHERE sql IS NOT NULL AND name <> '_sqlx_migrations' ORDER BY type, name",
    )
    .fetch_all(conn)
    .await
    .expect("the schema is read");
    (rows.into_iter())
        .map(|(kind, name, sql)| (kind, name, normalized(&sql)))
        .collect()
}

/// A statement without its comments, its line breaks and runs of spaces, spaces beside
/// parentheses and commas, and double quotes (which SQLite adds around a table's name when a
/// migration renames it).
fn normalized(sql: &str) -> String {
    let uncommented: Vec<&str> = (sql.lines())
        .map(|line| line.split_once("--").map_or(line, |(code, _)| code))
        .collect();
    let spaced = uncommented.join(" ").replace('"', "");
    let words: Vec<&str> = spaced.split_whitespace().collect();
    let mut text = words.join(" ");
    for mark in ["(", ")", ","] {
        text = text.replace(&format!(" {mark}"), mark);
        text = text.replace(&format!("{mark} "), mark);
    }
    text
}

#[tokio::test]
async fn the_schema_file_is_the_schema_of_a_study_migrated_from_empty() {
    let study = TestStudy::new().await;
    let mut migrated = study.connections.acquire().await.expect("a connection");
    let migrated = schema_of(&mut migrated).await;

    let file = study.dir.path().join("from-schema-sql.db");
    let address = format!("sqlite://{}?mode=rwc", file.display());
    let mut conn = SqliteConnection::connect(&address)
        .await
        .expect("a new file");
    sqlx::raw_sql(SCHEMA)
        .execute(&mut conn)
        .await
        .expect("migrations/schema.sql runs on an empty file");
    let from_file = schema_of(&mut conn).await;

    let names = |schema: &[(String, String, String)]| -> Vec<String> {
        (schema.iter())
            .map(|(kind, name, _)| format!("{kind} {name}"))
            .collect()
    };
    assert_eq!(
        names(&from_file),
        names(&migrated),
        "what each schema holds"
    );
    for (in_file, in_study) in from_file.iter().zip(&migrated) {
        assert_eq!(
            in_file, in_study,
            "migrations/schema.sql against the migrations"
        );
    }
    // 22 tables, SQLite's own of AUTOINCREMENT (judges, trials), the search index and its 5 tables,
    // 7 indexes, 2 views and 16 triggers.
    let count = |kind: &str| migrated.iter().filter(|(k, _, _)| k == kind).count();
    let counts = ["table", "index", "view", "trigger"].map(count);
    assert_eq!(counts, [29, 7, 2, 16]);
}

#[test]
fn every_trigger_of_the_schema_file_names_its_rule() {
    let lines: Vec<&str> = SCHEMA.lines().collect();
    let triggers: Vec<(usize, &str)> = (lines.iter().enumerate())
        .filter(|(_, line)| line.starts_with("CREATE TRIGGER"))
        .map(|(at, line)| (at, *line))
        .collect();
    assert_eq!(triggers.len(), 16);
    for (at, trigger) in triggers {
        assert!(
            at > 0 && lines[at - 1].starts_with("-- Rule: "),
            "{trigger} has no `-- Rule: ` line above it"
        );
    }
}
