//! The lists view (`paperjudge lists`, `/lists`): what the models' lists say before a single
//! rating, computed from one revision of the study and kept while that revision lasts.
//!
//! The view reads lists, targets and papers, which change only with the study's revision
//! counter (imports, choices of targets, the pool depth, pruning), and which targets are fully
//! rated, which changes only with its finished revision (a rating that finishes a target or
//! takes it back, a change of the rating plan or the raters). A rating that does neither moves
//! neither (a file of ratings imported moves the first, as every import that changes
//! something: the view is then computed again). So a view asks for the two counters (an index
//! lookup) and computes nothing while they have not changed, also while raters rate; the view
//! with the targets still being rated included follows the first counter alone. Concurrent
//! views of one revision and options wait for one computation, as the evaluation's do (see
//! [`super::evaluation`]). Its reads are [`store`].

pub(in crate::study) mod store;

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::OnceCell;

use crate::leaderboard::Partial;
use crate::lists::{Lists, ListsOptions};
use crate::study::db::evaluation::Revision;
use crate::study::db::{self, Database};
use crate::study::error::StudyError;

/// Views kept of the current revision: the page, its download, and a few other options.
const VIEWS_KEPT: usize = 4;

/// A view, computed or being computed.
type View = Arc<OnceCell<Arc<Lists>>>;

/// The lists views a study keeps (one per study, shared by its clones).
#[derive(Debug, Default)]
pub struct KeptLists {
    /// Views of the latest revision asked for, the most recently used last.
    views: Mutex<Vec<(Key, View)>>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Key {
    /// The study's revision counter.
    revision: i64,
    /// Its finished revision, for a view of the fully rated targets only (`None` with the
    /// targets still being rated included: which are finished changes nothing of it).
    finished: Option<i64>,
    options: ListsOptions,
}

impl Key {
    fn of(revision: Revision, options: ListsOptions) -> Key {
        Key {
            revision: revision.study,
            finished: (options.partial == Partial::Exclude).then_some(revision.finished),
            options,
        }
    }

    /// Whether the view of this key is the view of the study at `now`.
    fn is_at(&self, now: Revision) -> bool {
        self.revision == now.study
            && self
                .finished
                .is_none_or(|finished| finished == now.finished)
    }
}

impl KeptLists {
    /// The cell of the view of `options` on the study at `now`, kept among the most recently
    /// used; views of other revisions are let go.
    fn cell(&self, now: Revision, options: ListsOptions) -> View {
        let key = Key::of(now, options);
        let mut views = self.views();
        views.retain(|(kept, _)| kept.is_at(now));
        let cell = match views.iter().position(|(kept, _)| *kept == key) {
            Some(position) => views.remove(position).1,
            None => Arc::new(OnceCell::new()),
        };
        views.push((key, cell.clone()));
        if views.len() > VIEWS_KEPT {
            views.remove(0);
        }
        cell
    }

    /// Labels the view in `cell` with the revision it was read at, when the study changed
    /// between asking for the revision and reading the lists.
    fn relabel(&self, cell: &View, read_at: Revision) {
        let mut views = self.views();
        if let Some((key, _)) = views.iter_mut().find(|(_, kept)| Arc::ptr_eq(kept, cell)) {
            *key = Key::of(read_at, key.options);
        }
    }

    fn views(&self) -> MutexGuard<'_, Vec<(Key, View)>> {
        // The views are replaced whole or not at all: a panic elsewhere cannot leave them torn.
        self.views
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The lists view (`study.lists()`).
#[derive(Debug, Clone, Copy)]
pub struct Handle<'s> {
    db: &'s Database,
    kept: &'s KeptLists,
}

impl<'s> Handle<'s> {
    pub(in crate::study) fn new(db: &'s Database, kept: &'s KeptLists) -> Handle<'s> {
        Handle { db, kept }
    }

    /// What the models' lists say over the fully rated targets being rated (with
    /// `options.partial`, over every target being rated), as `options` ask. Reads no rating;
    /// writes nothing.
    pub async fn view(&self, options: &ListsOptions) -> Result<Arc<Lists>, StudyError> {
        let revision = db::evaluation::revision(self.db.connections()).await?;
        let cell = self.kept.cell(revision, *options);
        let lists = cell
            .get_or_try_init(|| async {
                let (read_at, lists) = self.compute_lists(options).await?;
                if read_at != revision {
                    self.kept.relabel(&cell, read_at);
                }
                Ok::<_, StudyError>(Arc::new(lists))
            })
            .await?;
        Ok(lists.clone())
    }

    /// Reads the lists, computes the view off the async workers, and names its papers; with
    /// the revision the lists were read at.
    async fn compute_lists(&self, options: &ListsOptions) -> Result<(Revision, Lists), StudyError> {
        let started = std::time::Instant::now();
        let k = options.k.map_or(0, usize::from);
        let snapshot = db::lists::load(self.db.path(), k, options.partial).await?;
        tracing::debug!(elapsed = ?started.elapsed(), "lists read");
        let settings = options.settings(snapshot.input.pool_depth);
        let revision = snapshot.revision;
        let mut lists = crate::blocking::run(move || Lists::of(&snapshot.input, settings)).await;
        tracing::debug!(elapsed = ?started.elapsed(), "lists computed");
        let keys: Vec<_> = lists
            .most_recommended
            .iter()
            .map(|paper| paper.key)
            .collect();
        let papers = (self.db)
            .read(async |conn| {
                let mut papers = Vec::with_capacity(keys.len());
                for key in keys {
                    let paper = crate::study::papers::get(&mut *conn, key)
                        .await?
                        .ok_or_else(|| {
                            StudyError::unreadable(format!("a list holds paper {}, unknown", key.0))
                        })?;
                    papers.push(paper);
                }
                Ok(papers)
            })
            .await?;
        for (recommended, paper) in lists.most_recommended.iter_mut().zip(papers) {
            recommended.paper = paper.external_id.to_string();
            recommended.title = paper.title;
        }
        Ok((revision, lists))
    }
}
