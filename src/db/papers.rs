//! Papers: the library every target and recommendation refers to.

use std::collections::HashMap;

use serde::Serialize;
use sqlx::{FromRow, SqliteConnection, SqliteExecutor};

use crate::domain::PaperKey;

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
    pub key: PaperKey,
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
                key: PaperKey(id),
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
    key: PaperKey,
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
) -> Result<Option<PaperKey>, sqlx::Error> {
    let id: Option<i64> = sqlx::query_scalar("SELECT id FROM papers WHERE external_id = ?")
        .bind(external_id)
        .fetch_optional(executor)
        .await?;
    Ok(id.map(PaperKey))
}
