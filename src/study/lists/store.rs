//! What the lists view reads: every model's top of its list for each target of the view (the
//! fully rated targets being rated, or with `partial` every target being rated), with the
//! counts the view speaks of, from one revision of the study. The lists come from
//! `packed_lists`, one row per list that the import writes beside the list's rows ([`pack`]),
//! never from `recommendations`, whose 2.56 M rows of study L's top 8 were most of the view's
//! time.
//!
//! Read as the evaluation reads (see [`super::evaluation`]): SQLite stepped directly, on read
//! connections of their own in threads that may block, the models shared among the threads.
//! The study's revision counter and its finished revision label what was read (a rating moves
//! neither, but for one that finishes a target or takes it back); the view reads no rating.

use std::path::Path;

use crate::domain::{ModelId, PaperKey};
use crate::leaderboard::Partial;
use crate::lists::{ListsInput, ModelLists, Scope};
use crate::study::db::column;
use crate::study::db::evaluation::{at_revision, Revision};

/// The lists of one revision of the study.
#[derive(Debug, Clone, PartialEq)]
pub struct ListsSnapshot {
    /// The study's revision when read: lists, targets, papers and the pool depth change only
    /// with its revision counter, which targets are fully rated with its finished revision.
    pub revision: Revision,
    pub input: ListsInput,
}

/// Everything but the lists, and what the lists' reads need.
struct Head {
    input: ListsInput,
    model_ids: Vec<ModelId>,
    /// The targets of the view, by key.
    targets: Vec<PaperKey>,
}

/// The targets of the view: those being rated that are fully rated, or with the partial
/// included every one being rated. Two statements, each found through an index
/// (`targets_finished`), that with the partial included through its keys alone.
fn targets_of_view(partial: Partial) -> &'static str {
    match partial {
        Partial::Exclude => "SELECT target_id FROM targets WHERE active = 1 AND fully_rated = 1",
        Partial::Include => "SELECT target_id FROM targets WHERE active = 1",
    }
}

/// Reads every list of the targets of the view (see [`targets_of_view`]) cut at the larger of
/// `k` and the pool depth.
///
/// The head (models, targets, counts) is read first; then the lists, each thread its share
/// of the models in a read transaction of its own. They saw the same study when they saw the
/// same revision counter and finished revision; when a change came between them, everything is
/// read again in one transaction.
pub async fn load(path: &Path, k: usize, partial: Partial) -> rusqlite::Result<ListsSnapshot> {
    let path = path.to_owned();
    let read_head = move |tx: &rusqlite::Transaction| read_head(tx, partial);
    let same = |seen: &Revision, revision: &Revision| {
        seen.study == revision.study && seen.finished == revision.finished
    };
    crate::blocking::run(move || {
        let (revision, head) = at_revision(&path, read_head)?;
        let threads = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .clamp(1, head.model_ids.len().max(1));
        let shares: Vec<rusqlite::Result<_>> = std::thread::scope(|scope| {
            let reads: Vec<_> = (0..threads)
                .map(|thread| {
                    let (path, head) = (&path, &head);
                    scope.spawn(move || {
                        at_revision(path, |tx| {
                            (head.model_ids.iter().skip(thread).step_by(threads))
                                .map(|&model| read_lists(tx, model, head, k))
                                .collect::<rusqlite::Result<Vec<_>>>()
                        })
                    })
                })
                .collect();
            (reads.into_iter())
                .map(|read| {
                    read.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        });
        let shares = shares.into_iter().collect::<rusqlite::Result<Vec<_>>>()?;
        if shares.iter().all(|(seen, _)| same(seen, &revision)) {
            let mut shares: Vec<_> = shares
                .into_iter()
                .map(|(_, lists)| lists.into_iter())
                .collect();
            let lists = (0..head.model_ids.len())
                .map(|model| shares[model % threads].next().expect("a share per model"))
                .collect();
            return Ok(head.into_snapshot(revision, lists));
        }
        let (revision, (head, lists)) = at_revision(&path, |tx| {
            let head = read_head(tx)?;
            let lists = (head.model_ids.iter())
                .map(|&model| read_lists(tx, model, &head, k))
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok((head, lists))
        })?;
        Ok(head.into_snapshot(revision, lists))
    })
    .await
}

impl Head {
    fn into_snapshot(mut self, revision: Revision, lists: Vec<ModelLists>) -> ListsSnapshot {
        let targets = self.targets.len();
        self.input.scope.without_lists = (0..targets)
            .filter(|&target| lists.iter().all(|model| model.list(target).is_empty()))
            .count();
        self.input.lists = lists;
        ListsSnapshot {
            revision,
            input: self.input,
        }
    }
}

fn read_head(tx: &rusqlite::Transaction, partial: Partial) -> rusqlite::Result<Head> {
    let (model_ids, models): (Vec<ModelId>, Vec<String>) = (tx
        .prepare("SELECT id, name FROM models ORDER BY name")?)
    .query_map([], |row| {
        Ok((column::get::<ModelId>(row, 0)?, row.get::<_, String>(1)?))
    })?
    .collect::<rusqlite::Result<Vec<_>>>()?
    .into_iter()
    .unzip();
    let targets: Vec<PaperKey> = (tx
        .prepare(&format!("{} ORDER BY target_id", targets_of_view(partial)))?)
    .query_map([], |row| column::get(row, 0))?
    .collect::<rusqlite::Result<_>>()?;
    let (choice, candidates, library, fully_rated, being_rated): (String, i64, i64, i64, i64) = tx
        .query_row(
            "SELECT target_choice, (SELECT COUNT(*) FROM targets WHERE listed = 1),
                    (SELECT COUNT(*) FROM papers),
                    (SELECT COUNT(*) FROM targets WHERE active = 1 AND fully_rated = 1),
                    (SELECT COUNT(*) FROM targets WHERE active = 1)
             FROM study WHERE id = 1",
            [],
            |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                ))
            },
        )?;
    let count = |n: i64| usize::try_from(n).unwrap_or_default();
    Ok(Head {
        input: ListsInput {
            models,
            lists: Vec::new(),
            scope: Scope {
                count: targets.len(),
                partial,
                fully_rated: count(fully_rated),
                still_being_rated: count(being_rated - fully_rated),
                choice: crate::study::db::targets::choice_of(&choice).as_str(),
                candidates: count(candidates),
                without_lists: 0,
            },
            library: count(library),
            pool_depth: crate::study::db::study::pool_depth_directly(tx)?,
        },
        model_ids,
        targets,
    })
}

/// The entries of a list room is made for ahead: a pool depth or k of more is rare, and the
/// room then grows as the lists come.
const LIST_ROOM: usize = 64;

/// `model`'s lists of the targets of the view (in their order, by key, as [`targets_of_view`]
/// reads them), cut at the larger of `k` and the pool depth, from their packed rows (see [`pack`]): one
/// row per list, where the list's own rows in `recommendations` took ten times as long to step
/// on study L. The model's rows are read from end to end when the view's targets are a good
/// share of the study's (a row stepped costs about a fifth of a row sought), else each
/// target's row is sought.
fn read_lists(
    tx: &rusqlite::Transaction,
    model: ModelId,
    head: &Head,
    k: usize,
) -> rusqlite::Result<ModelLists> {
    let (targets, scope) = (&head.targets, &head.input.scope);
    let depth = k.max(head.input.pool_depth.get() as usize);
    let mut statement = match read_whole(targets.len(), scope.candidates) {
        true => tx.prepare_cached(
            "SELECT target_id, papers FROM packed_lists WHERE model_id = ?1 ORDER BY target_id",
        )?,
        false => tx.prepare_cached(&format!(
            "SELECT target_id, papers FROM packed_lists
             WHERE model_id = ?1 AND target_id IN ({})
             ORDER BY target_id",
            targets_of_view(scope.partial)
        ))?,
    };
    let mut rows = statement.query([model.0])?;
    let mut lists = ModelLists::with_capacity(targets.len(), depth.min(LIST_ROOM));
    // `targets[next]`: the first target whose list is not ended.
    let mut next = 0;
    while let Some(row) = rows.next()? {
        let target: PaperKey = column::get(row, 0)?;
        while next < targets.len() && targets[next] < target {
            lists.end_list();
            next += 1;
        }
        if targets.get(next) == Some(&target) {
            let papers = crate::study::db::packed::papers(row, 1, target)?;
            papers.take(depth).for_each(|paper| lists.push(paper));
        }
    }
    while lists.targets() < targets.len() {
        lists.end_list();
    }
    Ok(lists)
}

/// Whether a model's lists are read whole for a view of `targets` of the study's `candidates`
/// (targets with lists): when they are a quarter of them or more.
fn read_whole(targets: usize, candidates: usize) -> bool {
    targets * 4 >= candidates
}
