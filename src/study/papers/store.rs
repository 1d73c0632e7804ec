//! Papers: the library every target and recommendation refers to.

use sqlx::FromRow;
use sqlx::{SqliteConnection, SqliteExecutor};

use crate::domain::{PaperId, PaperKey, RaterId};
use crate::study::db::column::{self, Stored};

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

/// Adds and updates papers on an import's connection (directly: see [`crate::study::db::direct`]).
pub struct PaperWriter<'c> {
    insert: rusqlite::Statement<'c>,
    update: rusqlite::Statement<'c>,
}

impl<'c> PaperWriter<'c> {
    pub fn prepare(conn: &'c rusqlite::Connection) -> rusqlite::Result<PaperWriter<'c>> {
        Ok(PaperWriter {
            insert: conn.prepare(
                "INSERT INTO papers (external_id, title, abstract, authors, year, url)
                 VALUES (?1, ?2, COALESCE(?3, ''), COALESCE(?4, ''), ?5, COALESCE(?6, ''))
                 ON CONFLICT (external_id) DO NOTHING",
            )?,
            update: conn.prepare(
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
            )?,
        })
    }

    /// Adds the paper, or updates the stored one of its id with the fields the file gave.
    pub fn upsert(&mut self, paper: &NewPaper) -> rusqlite::Result<Upserted> {
        let inserted = self.insert.execute(rusqlite::params![
            paper.external_id,
            paper.title,
            paper.abstract_text,
            paper.authors,
            paper.year.flatten(),
            paper.url,
        ])?;
        if inserted == 1 {
            return Ok(Upserted::Added);
        }
        let updated = self.update.execute(rusqlite::params![
            paper.external_id,
            paper.title,
            paper.abstract_text,
            paper.authors,
            paper.year.is_some(),
            paper.year.flatten(),
            paper.url,
        ])?;
        Ok(if updated == 1 {
            Upserted::Updated
        } else {
            Upserted::Unchanged
        })
    }
}

/// Every paper's external id, for resolving the ids of an import file without a query per
/// row. Papers are numbered from 0 in the byte order of their external ids, which is how
/// trec_eval breaks ties of score (by document id, descending).
#[derive(Debug, Default)]
pub struct PaperIndex {
    numbers: rustc_hash::FxHashMap<Box<str>, u32>,
    ids: Vec<PaperKey>,
}

impl PaperIndex {
    /// The number of the paper with this external id.
    pub fn number(&self, external_id: &str) -> Option<u32> {
        self.numbers.get(external_id).copied()
    }

    /// The row id of the paper with this external id.
    pub fn resolve(&self, external_id: &str) -> Option<PaperKey> {
        self.number(external_id).map(|number| self.id(number))
    }

    /// The row id of the paper numbered `number`.
    pub fn id(&self, number: u32) -> PaperKey {
        self.ids[number as usize]
    }

    /// How many papers there are (numbers run from 0 to this, excluded).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// Whether the study holds any paper (directly: see [`crate::study::db::direct`]).
pub fn any(conn: &rusqlite::Connection) -> rusqlite::Result<bool> {
    conn.query_row("SELECT EXISTS (SELECT 1 FROM papers)", [], |row| row.get(0))
}

/// Reads the index of every paper (directly: see [`crate::study::db::direct`]).
pub fn index(conn: &rusqlite::Connection) -> rusqlite::Result<PaperIndex> {
    let mut statement = conn.prepare("SELECT external_id, id FROM papers ORDER BY external_id")?;
    let mut rows = statement.query([])?;
    let mut index = PaperIndex::default();
    let mut number = 0;
    while let Some(row) = rows.next()? {
        index
            .numbers
            .insert(row.get::<_, String>(0)?.into_boxed_str(), number);
        index.ids.push(PaperKey(row.get(1)?));
        number += 1;
    }
    Ok(index)
}

pub async fn get<'e, E: SqliteExecutor<'e>>(
    executor: E,
    id: PaperKey,
) -> Result<Option<PaperRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, external_id, title, abstract, authors, year, url FROM papers WHERE id = ?",
    )
    .bind(id.0)
    .fetch_optional(executor)
    .await
}

/// A paper's columns, as every read of a whole paper selects them.
#[derive(Debug, FromRow)]
pub(in crate::study) struct PaperRow {
    pub id: i64,
    #[sqlx(try_from = "Stored<PaperId>")]
    pub external_id: PaperId,
    pub title: String,
    #[sqlx(rename = "abstract")]
    pub abstract_text: String,
    pub authors: String,
    pub year: Option<i64>,
    pub url: String,
}

const ID_OF: &str = "SELECT id FROM papers WHERE external_id = ?";

/// The row key of the paper with this id.
pub async fn id_of<'e, E: SqliteExecutor<'e>>(
    executor: E,
    external_id: &PaperId,
) -> Result<Option<PaperKey>, sqlx::Error> {
    let id: Option<i64> = sqlx::query_scalar(ID_OF)
        .bind(external_id.as_str())
        .fetch_optional(executor)
        .await?;
    Ok(id.map(PaperKey))
}

/// [`id_of`], directly (see [`crate::study::db::direct`]).
pub fn id_of_directly(
    conn: &rusqlite::Connection,
    external_id: &PaperId,
) -> rusqlite::Result<Option<PaperKey>> {
    let mut statement = conn.prepare_cached(ID_OF)?;
    let mut rows = statement.query([external_id.as_str()])?;
    rows.next()?.map(|row| column::get(row, 0)).transpose()
}

/// Indexes the papers added since the last call for search, in one statement (see the
/// migration `paper_search`); every import of papers ends with it.
pub fn index_new(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "INSERT INTO papers_search (rowid, external_id, title, authors, abstract)
         SELECT p.id, p.external_id, p.title, p.authors, p.abstract
         FROM papers_search_pending n JOIN papers p ON p.id = n.paper_id;
         DELETE FROM papers_search_pending",
    )
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

/// What a hit says of the study beside the paper `p` (with its `targets` row `t`, if any):
/// each target's pairs rated are the study's (`?4` NULL), or those rater `?4` rated (a rater
/// is blind to whether another rated), and its pooled pairs for a rater only of a target they
/// took.
const HIT_STUDY_COLUMNS: &str = "COALESCE(t.listed, 0) AS listed, COALESCE(t.active, 0) AS active,
        COALESCE(CASE WHEN ?4 IS NULL THEN t.rated
                      ELSE (SELECT a.rated FROM assignments a
                            WHERE a.target_id = p.id AND a.rater_id = ?4) END,
                 0) AS rated,
        CASE WHEN ?4 IS NULL
                  OR EXISTS (SELECT 1 FROM assignments a
                             WHERE a.target_id = p.id AND a.rater_id = ?4)
             THEN COALESCE(t.pooled, 0) END AS pooled";

/// The papers matching `expression` (see [`search_expression`]), only those with
/// recommendations when `only_listed`, ranked by bm25 (a match in the id weighs most, then the
/// title, the authors, the abstract), a page of them (offset, limit), and how many match in
/// all.
pub async fn search(
    conn: &mut SqliteConnection,
    expression: &str,
    only_listed: bool,
    (offset, limit): (i64, i64),
    rater: Option<RaterId>,
) -> Result<(Vec<HitRow>, i64), sqlx::Error> {
    // `ORDER BY rank` lets FTS5 rank the matches itself, so the passage is cut only for the
    // papers of the page.
    let hits: Vec<HitRow> = sqlx::query_as(&format!(
        "SELECT p.id, p.external_id, p.title, p.authors, p.year,
                snippet(papers_search, 3, char(2), char(3), '…', 40) AS passage,
                {HIT_STUDY_COLUMNS}
         FROM papers_search
         JOIN papers p ON p.id = papers_search.rowid
         LEFT JOIN targets t ON t.target_id = p.id
         WHERE papers_search MATCH ?1 AND (NOT ?5 OR t.listed = 1)
         ORDER BY rank
         LIMIT ?2 OFFSET ?3"
    ))
    .bind(expression)
    .bind(limit)
    .bind(offset)
    .bind(rater.map(|rater| rater.0))
    .bind(only_listed)
    .fetch_all(&mut *conn)
    .await?;
    let count: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM papers_search
         LEFT JOIN targets t ON t.target_id = papers_search.rowid
         WHERE papers_search MATCH ?1 AND (NOT ?2 OR t.listed = 1)",
    )
    .bind(expression)
    .bind(only_listed)
    .fetch_one(conn)
    .await?;
    Ok((hits, count))
}

/// The papers with recommendations, by id, a page of them (offset, limit), each with the start
/// of its abstract, and how many there are.
pub async fn listed(
    conn: &mut SqliteConnection,
    (offset, limit): (i64, i64),
    rater: Option<RaterId>,
) -> Result<(Vec<HitRow>, i64), sqlx::Error> {
    let hits: Vec<HitRow> = sqlx::query_as(&format!(
        "SELECT p.id, p.external_id, p.title, p.authors, p.year,
                CASE WHEN length(p.abstract) > 240 THEN substr(p.abstract, 1, 240) || '…'
                     ELSE p.abstract END AS passage,
                {HIT_STUDY_COLUMNS}
         FROM targets t JOIN papers p ON p.id = t.target_id
         WHERE t.listed = 1
         ORDER BY p.external_id
         LIMIT ?2 OFFSET ?3"
    ))
    .bind(0)
    .bind(limit)
    .bind(offset)
    .bind(rater.map(|rater| rater.0))
    .fetch_all(&mut *conn)
    .await?;
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM targets WHERE listed = 1")
        .fetch_one(conn)
        .await?;
    Ok((hits, count))
}

/// A paper a search found, with what the study makes of it.
#[derive(Debug, FromRow)]
pub(in crate::study) struct HitRow {
    pub id: i64,
    #[sqlx(try_from = "Stored<PaperId>")]
    pub external_id: PaperId,
    pub title: String,
    pub authors: String,
    pub year: Option<i64>,
    pub passage: String,
    pub listed: bool,
    pub active: bool,
    pub rated: i64,
    pub pooled: Option<i64>,
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
