//! Models and their ranked lists.

use sqlx::{QueryBuilder, Sqlite, SqliteConnection, SqliteExecutor};

use crate::domain::{ModelId, PaperId};

/// The id of the model with this name, created if it is new.
pub async fn model_id(conn: &mut SqliteConnection, name: &str) -> Result<ModelId, sqlx::Error> {
    sqlx::query("INSERT INTO models (name) VALUES (?) ON CONFLICT (name) DO NOTHING")
        .bind(name)
        .execute(&mut *conn)
        .await?;
    let id: i64 = sqlx::query_scalar("SELECT id FROM models WHERE name = ?")
        .bind(name)
        .fetch_one(&mut *conn)
        .await?;
    Ok(ModelId(id))
}

/// One entry of a stored list, with what the import file said about it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEntry {
    pub paper: PaperId,
    pub paper_external_id: String,
    pub given_rank: Option<i64>,
    pub score: Option<f64>,
}

/// A model's stored list for a target, best first.
pub async fn list(
    conn: &mut SqliteConnection,
    target: PaperId,
    model: ModelId,
) -> Result<Vec<StoredEntry>, sqlx::Error> {
    let rows: Vec<(i64, String, Option<i64>, Option<f64>)> = sqlx::query_as(
        "SELECT r.paper_id, p.external_id, r.given_rank, r.score
         FROM recommendations r JOIN papers p ON p.id = r.paper_id
         WHERE r.target_id = ? AND r.model_id = ?
         ORDER BY r.position",
    )
    .bind(target.0)
    .bind(model.0)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(paper, paper_external_id, given_rank, score)| StoredEntry {
                paper: PaperId(paper),
                paper_external_id,
                given_rank,
                score,
            },
        )
        .collect())
}

/// Deletes a model's list for a target; `true` if there was one.
pub async fn delete_list(
    conn: &mut SqliteConnection,
    target: PaperId,
    model: ModelId,
) -> Result<bool, sqlx::Error> {
    let deleted = sqlx::query("DELETE FROM recommendations WHERE target_id = ? AND model_id = ?")
        .bind(target.0)
        .bind(model.0)
        .execute(conn)
        .await?;
    Ok(deleted.rows_affected() > 0)
}

/// One entry of a list to store.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewEntry {
    pub paper: PaperId,
    pub given_rank: Option<i64>,
    pub score: Option<f64>,
}

/// A row of `recommendations` to insert: target, model, 1-based position, entry.
pub type NewRow = (PaperId, ModelId, u32, NewEntry);

/// Rows per INSERT statement: one statement per few hundred rows keeps the per-statement
/// overhead of the driver out of bulk imports, well under SQLite's limit of bound variables.
pub const ROWS_PER_INSERT: usize = 500;

/// Inserts rows whose (target, model) lists were deleted or never existed.
pub async fn insert_rows(conn: &mut SqliteConnection, rows: &[NewRow]) -> Result<(), sqlx::Error> {
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        let mut insert: QueryBuilder<Sqlite> = QueryBuilder::new(
            "INSERT INTO recommendations (target_id, model_id, position, paper_id, given_rank, score) ",
        );
        insert.push_values(chunk, |mut row, (target, model, position, entry)| {
            row.push_bind(target.0)
                .push_bind(model.0)
                .push_bind(i64::from(*position))
                .push_bind(entry.paper.0)
                .push_bind(entry.given_rank)
                .push_bind(entry.score);
        });
        insert.build().execute(&mut *conn).await?;
    }
    Ok(())
}

/// The papers that enter the pool of `target`: every model's top `depth`, deduplicated.
pub async fn top_papers<'e, E: SqliteExecutor<'e>>(
    executor: E,
    target: PaperId,
    depth: u32,
) -> Result<Vec<PaperId>, sqlx::Error> {
    let papers: Vec<i64> = sqlx::query_scalar(
        "SELECT DISTINCT paper_id FROM recommendations WHERE target_id = ? AND position <= ?",
    )
    .bind(target.0)
    .bind(i64::from(depth))
    .fetch_all(executor)
    .await?;
    Ok(papers.into_iter().map(PaperId).collect())
}
