//! Papers: the library every target and recommendation refers to.

use std::collections::HashMap;

use serde::Serialize;
use sqlx::{FromRow, SqliteConnection, SqliteExecutor};

use crate::domain::PaperId;

/// A paper as imported; `None` in an optional field means the file had no such column, so
/// the stored value is kept on update.
#[derive(Debug, Clone, PartialEq)]
pub struct NewPaper {
    pub external_id: String,
    pub title: String,
    pub abstract_text: Option<String>,
    pub authors: Option<String>,
    pub year: Option<Option<i64>>,
    pub url: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upserted {
    Added,
    Updated,
    Unchanged,
}

pub async fn upsert(
    conn: &mut SqliteConnection,
    paper: &NewPaper,
) -> Result<Upserted, sqlx::Error> {
    let inserted = sqlx::query(
        "INSERT INTO papers (external_id, title, abstract, authors, year, url)
         VALUES (?1, ?2, COALESCE(?3, ''), COALESCE(?4, ''), ?5, COALESCE(?6, ''))
         ON CONFLICT (external_id) DO NOTHING",
    )
    .bind(&paper.external_id)
    .bind(&paper.title)
    .bind(&paper.abstract_text)
    .bind(&paper.authors)
    .bind(paper.year.flatten())
    .bind(&paper.url)
    .execute(&mut *conn)
    .await?;
    if inserted.rows_affected() == 1 {
        return Ok(Upserted::Added);
    }
    let updated = sqlx::query(
        "UPDATE papers SET
             title = ?2,
             abstract = COALESCE(?3, abstract),
             authors = COALESCE(?4, authors),
             year = CASE WHEN ?5 THEN ?6 ELSE year END,
             url = COALESCE(?7, url)
         WHERE external_id = ?1
           AND NOT (title IS ?2
                    AND abstract IS COALESCE(?3, abstract)
                    AND authors IS COALESCE(?4, authors)
                    AND year IS CASE WHEN ?5 THEN ?6 ELSE year END
                    AND url IS COALESCE(?7, url))",
    )
    .bind(&paper.external_id)
    .bind(&paper.title)
    .bind(&paper.abstract_text)
    .bind(&paper.authors)
    .bind(paper.year.is_some())
    .bind(paper.year.flatten())
    .bind(&paper.url)
    .execute(&mut *conn)
    .await?;
    Ok(if updated.rows_affected() == 1 {
        Upserted::Updated
    } else {
        Upserted::Unchanged
    })
}

/// How an importer refers to a paper: its row id, and its place among all external ids in
/// byte order (trec_eval breaks score ties by document id, descending).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaperRef {
    pub key: PaperId,
    pub id_order: u32,
}

/// Every paper's external id, for resolving the ids of an import file without a query per row.
pub async fn id_index(
    conn: &mut SqliteConnection,
) -> Result<HashMap<Box<str>, PaperRef>, sqlx::Error> {
    let rows: Vec<(String, i64)> =
        sqlx::query_as("SELECT external_id, id FROM papers ORDER BY external_id")
            .fetch_all(conn)
            .await?;
    Ok(rows
        .into_iter()
        .enumerate()
        .map(|(order, (external_id, id))| {
            let reference = PaperRef {
                key: PaperId(id),
                id_order: order as u32,
            };
            (external_id.into_boxed_str(), reference)
        })
        .collect())
}

/// A paper as pages show it.
#[derive(Debug, Clone, PartialEq, Eq, FromRow, Serialize)]
pub struct Paper {
    pub id: i64,
    pub external_id: String,
    pub title: String,
    #[sqlx(rename = "abstract")]
    pub abstract_text: String,
    pub authors: String,
    pub year: Option<i64>,
    pub url: String,
}

pub async fn get<'e, E: SqliteExecutor<'e>>(
    executor: E,
    key: PaperId,
) -> Result<Option<Paper>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, external_id, title, abstract, authors, year, url FROM papers WHERE id = ?",
    )
    .bind(key.0)
    .fetch_optional(executor)
    .await
}

pub async fn key_of<'e, E: SqliteExecutor<'e>>(
    executor: E,
    external_id: &str,
) -> Result<Option<PaperId>, sqlx::Error> {
    let id: Option<i64> = sqlx::query_scalar("SELECT id FROM papers WHERE external_id = ?")
        .bind(external_id)
        .fetch_optional(executor)
        .await?;
    Ok(id.map(PaperId))
}

/// Indexes the papers added since the last call for search, in one statement (see the
/// migration `paper_search`); every import of papers ends with it.
pub async fn index_new(conn: &mut SqliteConnection) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO papers_search (rowid, external_id, title, authors, abstract)
         SELECT p.id, p.external_id, p.title, p.authors, p.abstract
         FROM papers_search_pending n JOIN papers p ON p.id = n.paper_id;
         DELETE FROM papers_search_pending",
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The FTS5 query that finds papers containing every word of `text` (a word of 3 or more
/// characters also as the start of a longer one), or `None` when `text` has no word.
///
/// Each word is quoted as an FTS5 string, so nothing the user types is read as query syntax
/// (`AND`, `NEAR`, `*`, `:`, parentheses, quotes); the tokenizer splits a quoted word at
/// punctuation as it split the indexed text, so `10.1145/3292500` finds that id.
pub fn search_expression(text: &str) -> Option<String> {
    // FTS5 reads a query as a C string: a NUL would cut it short inside a quoted word.
    let text = text.replace(char::is_control, " ");
    let terms: Vec<String> = text
        .split_whitespace()
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .map(|word| {
            let quoted = format!("\"{}\"", word.replace('"', "\"\""));
            if word.chars().filter(|c| c.is_alphanumeric()).count() >= 3 {
                quoted + "*"
            } else {
                quoted
            }
        })
        .collect();
    (!terms.is_empty()).then(|| terms.join(" "))
}

/// A paper a search found, best first, with what the study makes of it.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct Hit {
    pub id: i64,
    pub external_id: String,
    pub title: String,
    pub authors: String,
    pub year: Option<i64>,
    /// A passage of the abstract around the words found, each found word between
    /// [`MARK_START`] and [`MARK_END`].
    pub passage: String,
    /// Some model has a list for it.
    pub listed: bool,
    /// It is a target being rated.
    pub active: bool,
    pub rated: i64,
    pub pooled: i64,
}

/// Where a found word starts and ends in [`Hit::passage`].
pub const MARK_START: char = '\u{2}';
pub const MARK_END: char = '\u{3}';

/// The papers matching `expression` (see [`search_expression`]), ranked by bm25 (a match in
/// the id weighs most, then the title, the authors, the abstract), a page of them, and how
/// many match in all.
pub async fn search(
    conn: &mut SqliteConnection,
    expression: &str,
    offset: i64,
    limit: i64,
) -> Result<(Vec<Hit>, i64), sqlx::Error> {
    // `ORDER BY rank` lets FTS5 rank the matches itself, so the passage is cut only for the
    // papers of the page.
    let hits = sqlx::query_as(
        "SELECT p.id, p.external_id, p.title, p.authors, p.year,
                snippet(papers_search, 3, char(2), char(3), '…', 40) AS passage,
                COALESCE(t.listed, 0) AS listed, COALESCE(t.active, 0) AS active,
                COALESCE(t.rated, 0) AS rated, COALESCE(t.pooled, 0) AS pooled
         FROM papers_search
         JOIN papers p ON p.id = papers_search.rowid
         LEFT JOIN targets t ON t.target_id = p.id
         WHERE papers_search MATCH ?
         ORDER BY rank
         LIMIT ? OFFSET ?",
    )
    .bind(expression)
    .bind(limit)
    .bind(offset)
    .fetch_all(&mut *conn)
    .await?;
    let count: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM papers_search WHERE papers_search MATCH ?")
            .bind(expression)
            .fetch_one(conn)
            .await?;
    Ok((hits, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_is_quoted_and_nothing_is_syntax() {
        assert_eq!(search_expression(""), None);
        assert_eq!(search_expression("  \t "), None);
        assert_eq!(search_expression("&& -- ** ()"), None);
        assert_eq!(
            search_expression("graph neural"),
            Some("\"graph\"* \"neural\"*".to_owned())
        );
        assert_eq!(search_expression("of a"), Some("\"of\" \"a\"".to_owned()));
        assert_eq!(
            search_expression("title:x OR \"y NEAR(z"),
            Some("\"title:x\"* \"OR\" \"\"\"y\" \"NEAR(z\"*".to_owned())
        );
        assert_eq!(
            search_expression("a\u{0}b\tc"),
            Some("\"a\" \"b\" \"c\"".to_owned())
        );
        assert_eq!(
            search_expression("10.1145/3292500"),
            Some("\"10.1145/3292500\"*".to_owned())
        );
    }
}
