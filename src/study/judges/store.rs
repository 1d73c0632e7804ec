//! Every SQL statement of the machine judges: the `judges`, `judge_grades` and `judge_runs`
//! tables (migrations `judges` and `judge_runs`), read and written by this feature alone. Nothing here touches a
//! rating, the pool or a target's counts: a judge's grade is never a rating.

use std::path::Path;

use sqlx::{FromRow, SqliteConnection, SqliteExecutor};

use crate::domain::{GuidelinesVersion, JudgeName, ModelId, PaperId, PaperKey, Stars};
use crate::study::db::column::{self, Stored};
use crate::study::db::direct::open_reader;
use crate::study::db::evaluation::List;
use crate::study::import::judgments::StagedGrade;

/// A judge as stored.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub(in crate::study) struct JudgeRecord {
    pub id: i64,
    #[sqlx(try_from = "Stored<JudgeName>")]
    pub name: JudgeName,
    pub model: Option<String>,
    pub endpoint: Option<String>,
    pub prompt: Option<String>,
    pub prompt_sha256: Option<String>,
    pub revision: i64,
    /// The guidelines' version its prompt was filled with (see [`JudgeRecord::guidelines`]).
    pub guidelines_version: Option<i64>,
    /// A command judge's command line.
    pub command: Option<String>,
}

const JUDGE_COLUMNS: &str = "id, name, model, endpoint, prompt, prompt_sha256, revision,
    guidelines AS guidelines_version, command";

impl JudgeRecord {
    /// The guidelines' version its prompt was filled with.
    pub fn guidelines(&self) -> Option<GuidelinesVersion> {
        self.guidelines_version.map(GuidelinesVersion)
    }
}

/// The judge named `name`, if the study has one.
pub(in crate::study) async fn find<'e, E: SqliteExecutor<'e>>(
    executor: E,
    name: &JudgeName,
) -> Result<Option<JudgeRecord>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {JUDGE_COLUMNS} FROM judges WHERE name = ?"
    ))
    .bind(name.as_str())
    .fetch_optional(executor)
    .await
}

/// Every judge, by name.
pub(in crate::study) async fn all<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<Vec<JudgeRecord>, sqlx::Error> {
    sqlx::query_as(&format!("SELECT {JUDGE_COLUMNS} FROM judges ORDER BY name"))
        .fetch_all(executor)
        .await
}

/// How much of the study's targets a judge graded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromRow)]
pub(in crate::study) struct Graded {
    pub judge_id: i64,
    /// Pooled pairs of the targets being rated that it graded.
    pub pairs: i64,
    /// Targets being rated whose every pooled pair it graded.
    pub targets: i64,
}

/// Each judge's grades of pooled pairs, counted per target being rated: what "judged"
/// means (every pooled pair graded). Walks a judge's grades, not the study's targets, so
/// that it costs what the judge graded.
const GRADED_PER_TARGET: &str = "
    SELECT g.judge_id, g.target_id, COUNT(*) AS graded
    FROM judge_grades g
    JOIN pool p ON p.target_id = g.target_id AND p.paper_id = g.paper_id
    GROUP BY g.judge_id, g.target_id";

/// [`GRADED_PER_TARGET`] of the judge `?1` alone.
const GRADED_PER_TARGET_OF_JUDGE: &str = "
    SELECT g.target_id, COUNT(*) AS graded
    FROM judge_grades g
    JOIN pool p ON p.target_id = g.target_id AND p.paper_id = g.paper_id
    WHERE g.judge_id = ?1
    GROUP BY g.target_id";

/// What each judge with a grade of a target being rated graded of them.
pub(in crate::study) async fn graded<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<Vec<Graded>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT c.judge_id, SUM(c.graded) AS pairs, SUM(c.graded = t.pooled) AS targets
         FROM ({GRADED_PER_TARGET}) c
         JOIN targets t ON t.target_id = c.target_id AND t.active = 1
         GROUP BY c.judge_id"
    ))
    .fetch_all(executor)
    .await
}

/// What a judge's grades come from, as a new judge is stored.
#[derive(Debug, Clone)]
pub(in crate::study) enum Source<'a> {
    /// A model behind an endpoint, with its prompt, the guidelines' version the prompt was
    /// filled with, and the requests' settings (JSON).
    Endpoint {
        model: &'a str,
        endpoint: &'a str,
        prompt: &'a str,
        prompt_sha256: &'a str,
        guidelines: Option<GuidelinesVersion>,
        settings: &'a str,
    },
    /// A local command, by its command line.
    Command { command: &'a str },
}

/// Adds the judge `name`, which grades as `source` says: its id.
pub(in crate::study) async fn add_judge(
    conn: &mut SqliteConnection,
    name: &JudgeName,
    source: &Source<'_>,
    now: &str,
) -> Result<i64, sqlx::Error> {
    let sql = format!(
        "INSERT INTO judges (name, {SOURCE_COLUMNS}, added_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"
    );
    let insert = sqlx::query_scalar(&sql).bind(name.as_str());
    bind_source(insert, source).bind(now).fetch_one(conn).await
}

/// The columns a judge's or a trial's source is stored in, as [`bind_source`] binds them.
const SOURCE_COLUMNS: &str =
    "model, endpoint, prompt, prompt_sha256, guidelines, settings, command";

/// `query` with the values of `source`'s [`SOURCE_COLUMNS`] bound, in their order.
fn bind_source<'q, O>(
    query: sqlx::query::QueryScalar<'q, sqlx::Sqlite, O, sqlx::sqlite::SqliteArguments<'q>>,
    source: &Source<'q>,
) -> sqlx::query::QueryScalar<'q, sqlx::Sqlite, O, sqlx::sqlite::SqliteArguments<'q>> {
    match *source {
        Source::Endpoint {
            model,
            endpoint,
            prompt,
            prompt_sha256,
            guidelines,
            settings,
        } => query
            .bind(model)
            .bind(endpoint)
            .bind(prompt)
            .bind(prompt_sha256)
            .bind(guidelines.map(|version| version.0))
            .bind(settings)
            .bind(None::<&str>),
        Source::Command { command } => query
            .bind(None::<&str>)
            .bind(None::<&str>)
            .bind(None::<&str>)
            .bind(None::<&str>)
            .bind(None::<i64>)
            .bind(None::<&str>)
            .bind(command),
    }
}

/// Records where and how a judge is run now: the endpoint may move (a server restarted on
/// another port) and the settings may follow the server (the form of JSON output it takes).
pub(in crate::study) async fn update_endpoint(
    conn: &mut SqliteConnection,
    judge: i64,
    endpoint: &str,
    settings: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE judges SET endpoint = ?, settings = ? WHERE id = ?")
        .bind(endpoint)
        .bind(settings)
        .bind(judge)
        .execute(conn)
        .await?;
    Ok(())
}

/// Removes the judge named `name` and its grades; `false` when there is none.
pub(in crate::study) async fn remove(
    conn: &mut SqliteConnection,
    name: &JudgeName,
) -> Result<bool, sqlx::Error> {
    sqlx::query("DELETE FROM judge_grades WHERE judge_id = (SELECT id FROM judges WHERE name = ?)")
        .bind(name.as_str())
        .execute(&mut *conn)
        .await?;
    let removed = sqlx::query("DELETE FROM judges WHERE name = ?")
        .bind(name.as_str())
        .execute(conn)
        .await?;
    Ok(removed.rows_affected() > 0)
}

/// The upsert of one grade: a grade equal to the stored one is left as it is (and its time and
/// guidelines' version).
const UPSERT_GRADE: &str = "
    INSERT INTO judge_grades (judge_id, target_id, paper_id, stars, explanation, judged_at,
                              guidelines)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
    ON CONFLICT (judge_id, target_id, paper_id) DO UPDATE
    SET stars = excluded.stars, explanation = excluded.explanation, judged_at = excluded.judged_at,
        guidelines = excluded.guidelines
    WHERE stars IS NOT excluded.stars OR explanation IS NOT excluded.explanation";

const BUMP_REVISION: &str = "UPDATE judges SET revision = revision + 1 WHERE id = ?";

/// Whether the study still has the judge of id `judge` (ids are never given again).
pub(in crate::study) async fn exists(
    conn: &mut SqliteConnection,
    judge: i64,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM judges WHERE id = ?)")
        .bind(judge)
        .fetch_one(conn)
        .await
}

/// Stores grades of `judge` as a run receives them, made under the guidelines' version
/// `guidelines`, and moves the judge's revision.
pub(in crate::study) async fn store_grades(
    conn: &mut SqliteConnection,
    judge: i64,
    grades: &[((PaperKey, PaperKey), Stars, Option<String>)],
    guidelines: Option<GuidelinesVersion>,
    judged_at: &str,
) -> Result<(), sqlx::Error> {
    for ((target, paper), stars, explanation) in grades {
        sqlx::query(UPSERT_GRADE)
            .bind(judge)
            .bind(target.0)
            .bind(paper.0)
            .bind(i64::from(stars.get()))
            .bind(explanation.as_deref())
            .bind(judged_at)
            .bind(guidelines.map(|version| version.0))
            .execute(&mut *conn)
            .await?;
    }
    sqlx::query(BUMP_REVISION).bind(judge).execute(conn).await?;
    Ok(())
}

/// What an import of grades did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(in crate::study) struct Written {
    pub added: u64,
    pub updated: u64,
    pub unchanged: u64,
}

/// The judge named `name` on an import's connection, if the study has one: its id, and the
/// model or the command it grades through (`None` for a judge of imported grades), in words.
pub(in crate::study) fn judge_directly(
    conn: &rusqlite::Connection,
    name: &JudgeName,
) -> rusqlite::Result<Option<(i64, Option<String>)>> {
    conn.query_row(
        "SELECT id, model, command FROM judges WHERE name = ?",
        [name.as_str()],
        |row| {
            let (model, command): (Option<String>, Option<String>) = (row.get(1)?, row.get(2)?);
            let source = match (model, command) {
                (Some(model), _) => Some(format!("the model {model:?}")),
                (None, Some(command)) => Some(format!("the command {command:?}")),
                (None, None) => None,
            };
            Ok((row.get(0)?, source))
        },
    )
    .map(Some)
    .or_else(|error| match error {
        rusqlite::Error::QueryReturnedNoRows => Ok(None),
        error => Err(error),
    })
}

/// Adds a judge of imported grades on an import's connection: its id.
pub(in crate::study) fn add_imported_judge_directly(
    conn: &rusqlite::Connection,
    name: &JudgeName,
    now: &str,
) -> rusqlite::Result<i64> {
    conn.query_row(
        "INSERT INTO judges (name, added_at) VALUES (?, ?) RETURNING id",
        (name.as_str(), now),
        |row| row.get(0),
    )
}

/// Writes the grades of an import of `judge`'s, each given at `now`, on the import's
/// connection, and moves the judge's revision once if anything changed.
pub(in crate::study) fn write_grades_directly(
    conn: &rusqlite::Connection,
    judge: i64,
    grades: &[StagedGrade],
    now: &str,
) -> rusqlite::Result<Written> {
    let count = |conn: &rusqlite::Connection| -> rusqlite::Result<u64> {
        conn.query_row(
            "SELECT COUNT(*) FROM judge_grades WHERE judge_id = ?",
            [judge],
            |row| row.get(0),
        )
    };
    let before = count(conn)?;
    let mut upsert = conn.prepare(UPSERT_GRADE)?;
    let mut changed = 0u64;
    for grade in grades {
        changed += upsert.execute((
            judge,
            grade.target.0,
            grade.paper.0,
            i64::from(grade.stars.get()),
            grade.explanation.as_deref(),
            now,
            None::<i64>,
        ))? as u64;
    }
    let added = count(conn)? - before;
    if changed > 0 {
        conn.execute(BUMP_REVISION, [judge])?;
    }
    Ok(Written {
        added,
        updated: changed - added,
        unchanged: grades.len() as u64 - changed,
    })
}

/// The pooled pairs of the targets being rated that `judge` (`None`: a judge not added yet)
/// has not graded, in the order
/// `/next` offers the targets and each target's blind order: a run cut short (`--limit`, a
/// kill) has graded whole targets in the study's order.
pub(in crate::study) async fn pairs_to_grade(
    conn: &mut SqliteConnection,
    judge: Option<i64>,
) -> Result<Vec<(PaperKey, PaperKey)>, sqlx::Error> {
    let rows: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT p.target_id, p.paper_id
         FROM targets t JOIN pool p ON p.target_id = t.target_id
         WHERE t.active = 1
           AND NOT EXISTS (SELECT 1 FROM judge_grades g
                           WHERE g.judge_id = ?1 AND g.target_id = p.target_id
                             AND g.paper_id = p.paper_id)
         ORDER BY t.order_key, t.target_id, p.sort_key, p.paper_id",
    )
    .bind(judge)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(target, paper)| (PaperKey(target), PaperKey(paper)))
        .collect())
}

/// A paper's texts, as a judge reads them.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub(in crate::study) struct PaperText {
    #[sqlx(try_from = "Stored<PaperKey>")]
    pub id: PaperKey,
    #[sqlx(try_from = "Stored<PaperId>")]
    pub external_id: PaperId,
    pub title: String,
    #[sqlx(rename = "abstract")]
    pub abstract_text: String,
}

const PAPER_TEXT_COLUMNS: &str = "id, external_id, title, abstract";

pub(in crate::study) async fn paper_text<'e, E: SqliteExecutor<'e>>(
    executor: E,
    paper: PaperKey,
) -> Result<Option<PaperText>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {PAPER_TEXT_COLUMNS} FROM papers WHERE id = ?"
    ))
    .bind(paper.0)
    .fetch_optional(executor)
    .await
}

/// The texts of the papers `papers` (in no order), in one statement.
pub(in crate::study) async fn paper_texts<'e, E: SqliteExecutor<'e>>(
    executor: E,
    papers: &[PaperKey],
) -> Result<Vec<PaperText>, sqlx::Error> {
    let keys: Vec<i64> = papers.iter().map(|paper| paper.0).collect();
    let keys = serde_json::to_string(&keys).expect("integers serialize");
    sqlx::query_as(&format!(
        "SELECT {PAPER_TEXT_COLUMNS} FROM papers WHERE id IN (SELECT value FROM json_each(?))"
    ))
    .bind(keys)
    .fetch_all(executor)
    .await
}

/// The run of a judge going on now, as its lease is stored (`judge_runs`).
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub(in crate::study) struct RunRow {
    #[sqlx(try_from = "Stored<JudgeName>")]
    pub judge: JudgeName,
    /// The run's own random token.
    pub holder: String,
    /// Where it was started, in words.
    pub place: String,
    pub pid: i64,
    pub host: String,
    pub started_at: String,
    /// When it was last heard from, in Unix seconds.
    pub renewed_at: i64,
}

const RUN_COLUMNS: &str = "judge, holder, place, pid, host, started_at, renewed_at";

/// The lease of the judge named `judge`, if a run took it and has not let go.
pub(in crate::study) async fn run_of(
    conn: &mut SqliteConnection,
    judge: &JudgeName,
) -> Result<Option<RunRow>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {RUN_COLUMNS} FROM judge_runs WHERE judge = ?"
    ))
    .bind(judge.as_str())
    .fetch_optional(conn)
    .await
}

/// [`run_of`] on an import's connection.
pub(in crate::study) fn run_of_directly(
    conn: &rusqlite::Connection,
    judge: &JudgeName,
) -> rusqlite::Result<Option<RunRow>> {
    conn.query_row(
        &format!("SELECT {RUN_COLUMNS} FROM judge_runs WHERE judge = ?"),
        [judge.as_str()],
        |row| {
            Ok(RunRow {
                judge: column::get(row, 0)?,
                holder: row.get(1)?,
                place: row.get(2)?,
                pid: row.get(3)?,
                host: row.get(4)?,
                started_at: row.get(5)?,
                renewed_at: row.get(6)?,
            })
        },
    )
    .map(Some)
    .or_else(|error| match error {
        rusqlite::Error::QueryReturnedNoRows => Ok(None),
        error => Err(error),
    })
}

/// Takes the lease of `run.judge` for `run`, in place of any run that held it.
pub(in crate::study) async fn take_run(
    conn: &mut SqliteConnection,
    run: &RunRow,
) -> Result<(), sqlx::Error> {
    sqlx::query(&format!(
        "INSERT OR REPLACE INTO judge_runs ({RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
    ))
    .bind(run.judge.as_str())
    .bind(&run.holder)
    .bind(&run.place)
    .bind(run.pid)
    .bind(&run.host)
    .bind(&run.started_at)
    .bind(run.renewed_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// Renews the lease of `judge` held by `holder` at `now`: `false` when `holder` holds it no
/// more.
pub(in crate::study) async fn renew_run(
    conn: &mut SqliteConnection,
    judge: &JudgeName,
    holder: &str,
    now: i64,
) -> Result<bool, sqlx::Error> {
    let renewed =
        sqlx::query("UPDATE judge_runs SET renewed_at = ? WHERE judge = ? AND holder = ?")
            .bind(now)
            .bind(judge.as_str())
            .bind(holder)
            .execute(conn)
            .await?;
    Ok(renewed.rows_affected() == 1)
}

/// Lets go of the lease of `judge`, if `holder` holds it.
pub(in crate::study) async fn end_run(
    conn: &mut SqliteConnection,
    judge: &JudgeName,
    holder: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM judge_runs WHERE judge = ? AND holder = ?")
        .bind(judge.as_str())
        .bind(holder)
        .execute(conn)
        .await?;
    Ok(())
}

/// A grade as `export judgments` writes it.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub(in crate::study) struct GradeRow {
    #[sqlx(try_from = "Stored<PaperId>")]
    pub target: PaperId,
    #[sqlx(try_from = "Stored<PaperId>")]
    pub paper: PaperId,
    #[sqlx(try_from = "Stored<JudgeName>")]
    pub judge: JudgeName,
    pub stars: i64,
    pub explanation: Option<String>,
    pub judged_at: String,
    /// The target is being rated and fully rated.
    pub target_finished: bool,
}

/// Every grade (of the judge named `judge`, if given), by judge, target and paper.
pub(in crate::study) async fn grade_rows<'e, E: SqliteExecutor<'e>>(
    executor: E,
    judge: Option<&JudgeName>,
) -> Result<Vec<GradeRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT t.external_id AS target, p.external_id AS paper, j.name AS judge, g.stars,
                g.explanation, g.judged_at,
                COALESCE(s.active = 1 AND s.fully_rated, 0) AS target_finished
         FROM judge_grades g
         JOIN judges j ON j.id = g.judge_id
         JOIN papers t ON t.id = g.target_id
         JOIN papers p ON p.id = g.paper_id
         LEFT JOIN targets s ON s.target_id = g.target_id
         WHERE ?1 IS NULL OR j.name = ?1
         ORDER BY j.name, t.external_id, p.external_id",
    )
    .bind(judge.map(JudgeName::as_str))
    .fetch_all(executor)
    .await
}

/// What the evaluation of a judge reads: the targets being rated whose every pooled pair the
/// judge graded, with those grades and the targets' lists.
#[derive(Debug, PartialEq)]
pub(in crate::study) struct JudgedSnapshot {
    /// The judged targets, by key, with their external ids, in the study's order (`/next`'s).
    pub targets: Vec<(PaperKey, String)>,
    /// The judge's grades of their pooled pairs, by target and paper.
    pub grades: Vec<(PaperKey, PaperKey, Stars)>,
    /// Their lists, cut at `depth` or the pool depth, by target and model.
    pub lists: Vec<List>,
    /// The models whose lists their pools leave out (pruned).
    pub left_out: Vec<(PaperKey, ModelId)>,
    /// Models by name, as the study's evaluation holds them.
    pub models: Vec<(ModelId, String)>,
    /// The targets the judge was chosen on, when trials chose it (see [`WAS_TRIED`]).
    pub tuning: Vec<PaperKey>,
}

/// Reads the judged targets of `judge` with its grades and their lists, in one read
/// transaction on a connection of its own.
pub(in crate::study) async fn load_judged(
    path: &Path,
    judge: i64,
    depth: usize,
) -> rusqlite::Result<JudgedSnapshot> {
    let path = path.to_owned();
    crate::blocking::run(move || {
        let mut conn = open_reader(&path)?;
        let tx = conn.transaction()?;
        // The targets being rated whose pooled pairs the judge graded, all of them, found once
        // and handed to the queries after as a JSON array of keys (an aggregate over every
        // grade of the judge, too dear to repeat per query).
        let keys: Vec<i64> = (tx.prepare(&format!(
            "SELECT c.target_id FROM ({GRADED_PER_TARGET_OF_JUDGE}) c
             JOIN targets t ON t.target_id = c.target_id
             WHERE t.active = 1 AND c.graded = t.pooled"
        ))?)
        .query_map([judge], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
        let keys = serde_json::to_string(&keys).expect("integers serialize");
        let judged = "SELECT value FROM json_each(?1)";
        let targets = (tx.prepare(&format!(
            "SELECT p.id, p.external_id FROM targets t JOIN papers p ON p.id = t.target_id
             WHERE t.target_id IN ({judged})
             ORDER BY t.order_key, t.target_id"
        ))?)
        .query_map([&keys], |row| Ok((column::get(row, 0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<Vec<(PaperKey, String)>>>()?;
        let grades = (tx.prepare(&format!(
            "SELECT g.target_id, g.paper_id, g.stars FROM judge_grades g
             JOIN pool p ON p.target_id = g.target_id AND p.paper_id = g.paper_id
             WHERE g.judge_id = ?2 AND g.target_id IN ({judged})
             ORDER BY g.target_id, g.paper_id"
        ))?)
        .query_map((&keys, judge), |row| {
            Ok((
                column::get(row, 0)?,
                column::get(row, 1)?,
                column::get(row, 2)?,
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
        let depth = depth.max(crate::study::db::study::pool_depth_directly(&tx)?.get() as usize);
        let lists = read_lists(&tx, judged, &keys, depth)?;
        let left_out = (tx.prepare(&format!(
            "SELECT target_id, model_id FROM pool_exclusions WHERE target_id IN ({judged})
             ORDER BY target_id, model_id"
        ))?)
        .query_map([&keys], |row| {
            Ok((column::get(row, 0)?, column::get(row, 1)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
        let models = (tx.prepare("SELECT id, name FROM models ORDER BY name")?)
            .query_map([], |row| Ok((column::get(row, 0)?, row.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let tuning = tuning_targets_of_directly(&tx, judge)?;
        tx.commit()?;
        Ok(JudgedSnapshot {
            targets,
            grades,
            lists,
            left_out,
            models,
            tuning,
        })
    })
    .await
}

/// The lists of the `judged` targets (a query of target keys taking `keys` as `?1`), cut at
/// `depth`, by target and model.
fn read_lists(
    tx: &rusqlite::Transaction,
    judged: &str,
    keys: &str,
    depth: usize,
) -> rusqlite::Result<Vec<List>> {
    let mut statement = tx.prepare(&format!(
        "SELECT target_id, model_id, paper_id FROM recommendations
         WHERE target_id IN ({judged}) AND model_id IN (SELECT id FROM models) AND position <= ?2
         ORDER BY target_id, model_id, position"
    ))?;
    let mut rows = statement.query((keys, i64::try_from(depth).unwrap_or(i64::MAX)))?;
    let mut lists: Vec<List> = Vec::new();
    while let Some(row) = rows.next()? {
        let (target, model, paper): (PaperKey, ModelId, PaperKey) = (
            column::get(row, 0)?,
            column::get(row, 1)?,
            column::get(row, 2)?,
        );
        match lists.last_mut() {
            Some((t, m, papers)) if (*t, *m) == (target, model) => papers.push(paper),
            _ => lists.push((target, model, vec![paper])),
        }
    }
    Ok(lists)
}

/// Whose grades: a judge's or a trial's, by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::study) enum GradesOf {
    Judge(i64),
    Trial(i64),
}

/// The grades of `of` of the pairs of fully rated targets being rated, by target and paper.
pub(in crate::study) async fn grades_of_finished_targets<'e, E: SqliteExecutor<'e>>(
    executor: E,
    of: GradesOf,
) -> Result<Vec<(PaperKey, PaperKey, Stars)>, sqlx::Error> {
    let (table, column, id) = match of {
        GradesOf::Judge(id) => ("judge_grades", "judge_id", id),
        GradesOf::Trial(id) => ("trial_grades", "trial_id", id),
    };
    let rows: Vec<(i64, i64, Stored<Stars>)> = sqlx::query_as(&format!(
        "SELECT g.target_id, g.paper_id, g.stars
         FROM {table} g JOIN targets t ON t.target_id = g.target_id
         WHERE g.{column} = ? AND t.active = 1 AND t.fully_rated = 1
         ORDER BY g.target_id, g.paper_id"
    ))
    .bind(id)
    .fetch_all(executor)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(target, paper, Stored(stars))| (PaperKey(target), PaperKey(paper), stars))
        .collect())
}

/// The targets being rated and fully rated, in the study's order (`/next`'s).
pub(in crate::study) async fn finished_targets(
    conn: &mut SqliteConnection,
) -> Result<Vec<PaperKey>, sqlx::Error> {
    let keys: Vec<i64> = sqlx::query_scalar(
        "SELECT target_id FROM targets WHERE active = 1 AND fully_rated = 1
         ORDER BY order_key, target_id",
    )
    .fetch_all(conn)
    .await?;
    Ok(keys.into_iter().map(PaperKey).collect())
}

/// The tuning set as stored, in its order.
pub(in crate::study) async fn tuning_targets(
    conn: &mut SqliteConnection,
) -> Result<Vec<PaperKey>, sqlx::Error> {
    let keys: Vec<i64> =
        sqlx::query_scalar("SELECT target_id FROM tuning_targets ORDER BY position")
            .fetch_all(conn)
            .await?;
    Ok(keys.into_iter().map(PaperKey).collect())
}

/// Stores `targets` as the tuning set, in their order.
pub(in crate::study) async fn set_tuning_targets(
    conn: &mut SqliteConnection,
    targets: &[PaperKey],
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM tuning_targets")
        .execute(&mut *conn)
        .await?;
    for (position, target) in targets.iter().enumerate() {
        sqlx::query("INSERT INTO tuning_targets (position, target_id) VALUES (?, ?)")
            .bind(position as i64)
            .bind(target.0)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// The pooled pairs of the targets `targets` (of those being rated) that `judge` (`None`: a
/// judge not added yet) has not graded, in the study's order.
pub(in crate::study) async fn pairs_of_targets(
    conn: &mut SqliteConnection,
    targets: &[PaperKey],
    judge: Option<i64>,
) -> Result<Vec<(PaperKey, PaperKey)>, sqlx::Error> {
    let keys: Vec<i64> = targets.iter().map(|target| target.0).collect();
    let rows: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT p.target_id, p.paper_id
         FROM targets t JOIN pool p ON p.target_id = t.target_id
         WHERE t.active = 1 AND t.target_id IN (SELECT value FROM json_each(?1))
           AND NOT EXISTS (SELECT 1 FROM judge_grades g
                           WHERE g.judge_id = ?2 AND g.target_id = p.target_id
                             AND g.paper_id = p.paper_id)
         ORDER BY t.order_key, t.target_id, p.sort_key, p.paper_id",
    )
    .bind(serde_json::to_string(&keys).expect("integers serialize"))
    .bind(judge)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(target, paper)| (PaperKey(target), PaperKey(paper)))
        .collect())
}

/// The pooled pairs of the targets being rated: what a whole run would ask.
pub(in crate::study) async fn pooled_pairs(
    conn: &mut SqliteConnection,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT COALESCE(SUM(pooled), 0) FROM targets WHERE active = 1")
        .fetch_one(conn)
        .await
}

/// A trial as stored, with the grades it has.
#[derive(Debug, Clone, PartialEq, FromRow)]
pub(in crate::study) struct TrialRow {
    pub id: i64,
    pub model: Option<String>,
    pub endpoint: Option<String>,
    pub prompt: Option<String>,
    pub prompt_sha256: Option<String>,
    /// The guidelines' version its prompt was filled with.
    pub guidelines_version: Option<i64>,
    pub settings: Option<String>,
    pub command: Option<String>,
    pub tuning_targets: i64,
    pub pairs: i64,
    pub seconds: f64,
    pub created_at: String,
    /// The grades it stored.
    pub graded: i64,
}

const TRIAL_COLUMNS: &str = "t.id, t.model, t.endpoint, t.prompt, t.prompt_sha256,
    t.guidelines AS guidelines_version,
    t.settings, t.command, t.tuning_targets, t.pairs, t.seconds, t.created_at,
    (SELECT COUNT(*) FROM trial_grades g WHERE g.trial_id = t.id) AS graded";

/// Every trial, oldest first.
pub(in crate::study) async fn trials<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<Vec<TrialRow>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {TRIAL_COLUMNS} FROM judge_trials t ORDER BY t.id"
    ))
    .fetch_all(executor)
    .await
}

/// The trial `id`, if there is one.
pub(in crate::study) async fn trial<'e, E: SqliteExecutor<'e>>(
    executor: E,
    id: i64,
) -> Result<Option<TrialRow>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {TRIAL_COLUMNS} FROM judge_trials t WHERE t.id = ?"
    ))
    .bind(id)
    .fetch_optional(executor)
    .await
}

/// Adds a trial that grades as `source` says, on a tuning set of `tuning_targets` targets
/// whose `pairs` pooled pairs it sets out to grade: its id.
pub(in crate::study) async fn add_trial(
    conn: &mut SqliteConnection,
    source: &Source<'_>,
    tuning_targets: i64,
    pairs: i64,
    now: &str,
) -> Result<i64, sqlx::Error> {
    let sql = format!(
        "INSERT INTO judge_trials ({SOURCE_COLUMNS}, tuning_targets, pairs, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"
    );
    bind_source(sqlx::query_scalar(&sql), source)
        .bind(tuning_targets)
        .bind(pairs)
        .bind(now)
        .fetch_one(conn)
        .await
}

/// Removes the trial `id` (one that stored no grade).
pub(in crate::study) async fn remove_trial(
    conn: &mut SqliteConnection,
    id: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM judge_trials WHERE id = ?")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Stores grades of the trial `trial`, the seconds its run has taken so far, and its requests'
/// settings when known.
pub(in crate::study) async fn store_trial_grades(
    conn: &mut SqliteConnection,
    trial: i64,
    grades: &[((PaperKey, PaperKey), Stars, Option<String>)],
    seconds: f64,
    settings: Option<&str>,
    judged_at: &str,
) -> Result<(), sqlx::Error> {
    for ((target, paper), stars, explanation) in grades {
        sqlx::query(
            "INSERT OR REPLACE INTO trial_grades
                 (trial_id, target_id, paper_id, stars, explanation, judged_at)
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(trial)
        .bind(target.0)
        .bind(paper.0)
        .bind(i64::from(stars.get()))
        .bind(explanation.as_deref())
        .bind(judged_at)
        .execute(&mut *conn)
        .await?;
    }
    sqlx::query(
        "UPDATE judge_trials SET seconds = ?, settings = COALESCE(?, settings) WHERE id = ?",
    )
    .bind(seconds)
    .bind(settings)
    .bind(trial)
    .execute(conn)
    .await?;
    Ok(())
}

/// Copies the grades of the trial `trial` to the judge `judge` (made under the guidelines'
/// version `guidelines`), marks the judge as made from it, and moves its revision.
pub(in crate::study) async fn copy_trial_grades(
    conn: &mut SqliteConnection,
    trial: i64,
    judge: i64,
    guidelines: Option<GuidelinesVersion>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO judge_grades
             (judge_id, target_id, paper_id, stars, explanation, judged_at, guidelines)
         SELECT ?1, target_id, paper_id, stars, explanation, judged_at, ?3
         FROM trial_grades WHERE trial_id = ?2",
    )
    .bind(judge)
    .bind(trial)
    .bind(guidelines.map(|version| version.0))
    .execute(&mut *conn)
    .await?;
    sqlx::query("UPDATE judges SET from_trial = ?, revision = revision + 1 WHERE id = ?")
        .bind(trial)
        .bind(judge)
        .execute(conn)
        .await?;
    Ok(())
}

/// Whether the judge `?1` was chosen by trials made before it: made from one, or graded with
/// what one graded with (its model, prompt and guidelines, or its command) in a second before
/// it was added. A trial made after a judge changes nothing of it.
const WAS_TRIED: &str = "
    SELECT EXISTS (
        SELECT 1 FROM judges j JOIN judge_trials t
          ON j.from_trial = t.id
          OR (t.created_at < j.added_at
              AND ((j.model = t.model AND j.prompt_sha256 = t.prompt_sha256
                    AND j.guidelines IS t.guidelines)
                   OR j.command = t.command))
        WHERE j.id = ?1)";

/// When the judge `judge` was chosen by the trials (see [`WAS_TRIED`]), the targets the
/// trials made before it graded, which it was chosen on; else none.
fn tuning_targets_of_directly(
    conn: &rusqlite::Connection,
    judge: i64,
) -> rusqlite::Result<Vec<PaperKey>> {
    if !conn.query_row(WAS_TRIED, [judge], |row| row.get::<_, bool>(0))? {
        return Ok(Vec::new());
    }
    let mut statement = conn.prepare(
        "SELECT DISTINCT g.target_id
         FROM trial_grades g JOIN judge_trials t ON t.id = g.trial_id
         JOIN judges j ON j.id = ?1
         WHERE t.created_at < j.added_at OR t.id = j.from_trial
         ORDER BY g.target_id",
    )?;
    let keys = statement.query_map([judge], |row| column::get(row, 0))?;
    keys.collect()
}
