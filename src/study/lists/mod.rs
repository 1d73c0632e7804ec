//! The lists view (`paperjudge lists`, `/lists`): what the models' lists say before a single
//! rating, computed from one revision of the study and kept while that revision lasts.
//!
//! The view reads lists, targets and papers, which change only with the study's revision
//! counter (imports, choices of targets, the pool depth, pruning); a rating does not move it
//! (a file of ratings imported does, as every import that changes something: the view is then
//! computed again, and comes out the same). So a view asks for the counter (an index lookup)
//! and computes nothing while it has not changed, also while raters rate; concurrent views of
//! one revision and options wait for one computation, as the evaluation's do (see
//! [`super::evaluation`]). Its reads are [`store`].

pub(in crate::study) mod store;

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::OnceCell;

use super::{Study, StudyError};
use crate::lists::{Lists, ListsOptions};
use crate::study::db;

/// Views kept of the current revision: the page, its download, and a few other options.
const VIEWS_KEPT: usize = 4;

/// A view, computed or being computed.
type View = Arc<OnceCell<Arc<Lists>>>;

/// The lists views a study keeps (one per [`Study`], shared by its clones).
#[derive(Debug, Default)]
pub struct KeptLists {
    /// Views of the latest revision asked for, the most recently used last.
    views: Mutex<Vec<(Key, View)>>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Key {
    revision: i64,
    options: ListsOptions,
}

impl KeptLists {
    /// The cell of the view of `key`, kept among the most recently used; views of other
    /// revisions are let go.
    fn cell(&self, key: Key) -> View {
        let mut views = self.views();
        views.retain(|(kept, _)| kept.revision == key.revision);
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
    fn relabel(&self, cell: &View, revision: i64) {
        let mut views = self.views();
        if let Some((key, _)) = views.iter_mut().find(|(_, kept)| Arc::ptr_eq(kept, cell)) {
            key.revision = revision;
        }
    }

    fn views(&self) -> MutexGuard<'_, Vec<(Key, View)>> {
        // The views are replaced whole or not at all: a panic elsewhere cannot leave them torn.
        self.views
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Study {
    /// What the models' lists say over the targets being rated (or, while none is chosen,
    /// every paper with recommendations), as `options` ask. Reads no rating; writes nothing.
    pub async fn lists(&self, options: &ListsOptions) -> Result<Arc<Lists>, StudyError> {
        let revision = db::evaluation::revision(&self.connections).await?.study;
        let key = Key {
            revision,
            options: *options,
        };
        let cell = self.kept_lists.cell(key);
        let lists = cell
            .get_or_try_init(|| async {
                let (read_at, lists) = self.compute_lists(options).await?;
                if read_at != revision {
                    self.kept_lists.relabel(&cell, read_at);
                }
                Ok::<_, StudyError>(Arc::new(lists))
            })
            .await?;
        Ok(lists.clone())
    }

    /// Reads the lists, computes the view off the async workers, and names its papers; with
    /// the revision the lists were read at.
    async fn compute_lists(&self, options: &ListsOptions) -> Result<(i64, Lists), StudyError> {
        let started = std::time::Instant::now();
        let k = options.k.map_or(0, usize::from);
        let snapshot = db::lists::load(self.path(), k).await?;
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
        let papers = self
            .read(async |conn| {
                let mut papers = Vec::with_capacity(keys.len());
                for key in keys {
                    let paper = db::papers::get(&mut *conn, key).await?.ok_or_else(|| {
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
