//! Models and their ranked lists.

use crate::domain::{ModelId, PaperKey};
use crate::study::db::direct::RowsInsert;

/// A model of the study.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Model {
    pub id: ModelId,
    /// Created just now: it has no list yet.
    pub new: bool,
}

/// The model with this name, created if it is new (directly: see [`super::direct`]).
pub fn model(conn: &rusqlite::Connection, name: &str) -> rusqlite::Result<Model> {
    let created = conn.execute(
        "INSERT INTO models (name) VALUES (?) ON CONFLICT (name) DO NOTHING",
        [name],
    )?;
    let id: i64 = conn.query_row("SELECT id FROM models WHERE name = ?", [name], |row| {
        row.get(0)
    })?;
    Ok(Model {
        id: ModelId(id),
        new: created == 1,
    })
}

/// One entry of a list as stored: the paper, and what the import file said about it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewEntry {
    pub paper: PaperKey,
    pub given_rank: Option<i64>,
    pub score: Option<f64>,
}

/// Reads and writes the models' lists for an import (directly: see [`super::direct`]).
pub struct ListWriter<'c> {
    read: rusqlite::Statement<'c>,
    delete: rusqlite::Statement<'c>,
    insert: RowsInsert<'c>,
    /// The list once more, packed for the lists view and the evaluation (see `db::packed`).
    pack: rusqlite::Statement<'c>,
    packed: Vec<u8>,
}

impl<'c> ListWriter<'c> {
    pub fn prepare(conn: &'c rusqlite::Connection) -> rusqlite::Result<ListWriter<'c>> {
        Ok(ListWriter {
            read: conn.prepare(
                "SELECT paper_id, given_rank, score FROM recommendations
                 WHERE target_id = ? AND model_id = ? ORDER BY position",
            )?,
            delete: conn
                .prepare("DELETE FROM recommendations WHERE target_id = ? AND model_id = ?")?,
            insert: RowsInsert::new(
                conn,
                "INSERT OR FAIL INTO recommendations
                     (target_id, model_id, position, paper_id, given_rank, score) VALUES",
                6,
                "",
            ),
            pack: conn.prepare(
                "INSERT OR REPLACE INTO packed_lists (model_id, target_id, papers)
                 VALUES (?, ?, ?)",
            )?,
            packed: Vec::new(),
        })
    }

    /// The stored list of `model` for `target`, best first, into `list` (empty if none).
    pub fn stored(
        &mut self,
        target: PaperKey,
        model: ModelId,
        list: &mut Vec<NewEntry>,
    ) -> rusqlite::Result<()> {
        list.clear();
        let mut rows = self.read.query((target.0, model.0))?;
        while let Some(row) = rows.next()? {
            list.push(NewEntry {
                paper: PaperKey(row.get(0)?),
                given_rank: row.get(1)?,
                score: row.get(2)?,
            });
        }
        Ok(())
    }

    /// Stores `list` as the list of `model` for `target`, best first, in place of the stored
    /// one if `replacing`.
    pub fn write(
        &mut self,
        target: PaperKey,
        model: ModelId,
        replacing: bool,
        list: &[NewEntry],
    ) -> rusqlite::Result<()> {
        if replacing {
            self.delete.execute((target.0, model.0))?;
        }
        let mut position = 0_i64;
        self.insert.insert(list, |statement, first, entry| {
            position += 1;
            statement.raw_bind_parameter(first, target.0)?;
            statement.raw_bind_parameter(first + 1, model.0)?;
            statement.raw_bind_parameter(first + 2, position)?;
            statement.raw_bind_parameter(first + 3, entry.paper.0)?;
            statement.raw_bind_parameter(first + 4, entry.given_rank)?;
            statement.raw_bind_parameter(first + 5, entry.score)
        })?;
        crate::study::db::packed::pack(list.iter().map(|entry| entry.paper), &mut self.packed);
        self.pack.execute((model.0, target.0, &self.packed))?;
        Ok(())
    }
}

/// The papers that enter the pool of target `?1`: the top `?2` of every model its pool does
/// not leave out (see [`super::pruning`]), deduplicated.
pub const TOP_PAPERS: &str = "SELECT DISTINCT paper_id FROM recommendations
     WHERE model_id IN (SELECT id FROM models) AND target_id = ?1 AND position <= ?2
       AND model_id NOT IN (SELECT model_id FROM pool_exclusions WHERE target_id = ?1)";
