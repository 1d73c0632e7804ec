//! The evaluation set: one revision of the study as the scoring reads it, built from the rows
//! of [`db::evaluation::load`].

use std::collections::HashMap;
use std::path::Path;

use crate::db;
use crate::db::evaluation::{Revision, Snapshot};
use crate::db::targets::Overview;
use crate::domain::{ModelId, PaperKey};
use crate::leaderboard::{Collection, Completion, TargetInput};
use crate::study::StudyError;

/// The study's targets with ratings, their judgments and lists, in memory.
#[derive(Debug)]
pub struct EvaluationSet {
    pub revision: Revision,
    /// The targets being rated, at a glance.
    pub overview: Overview,
    /// Where the lists are cut: at least the pool depth; `usize::MAX` for whole lists.
    pub depth: usize,
    pub collection: Collection<PaperKey>,
    /// The key and title of each target of `collection.targets`, in the same order.
    pub targets: Vec<(PaperKey, String)>,
}

impl EvaluationSet {
    /// Loads the set of the current revision of the study at `path`, with every list cut at
    /// `depth` or the pool depth, whichever is larger.
    pub async fn load(path: &Path, depth: usize) -> Result<Self, StudyError> {
        let snapshot = db::evaluation::load(path, depth).await?;
        // Building the set is CPU work of a few milliseconds per thousand targets: off the
        // async workers, which go on serving other pages meanwhile.
        crate::blocking::run(move || EvaluationSet::from_snapshot(snapshot)).await
    }

    /// Groups the snapshot's rows by target, and orders its fully rated targets as they were
    /// completed: each when its last pooled pair was first rated. A rating or list of a target
    /// or model the snapshot does not hold is an error: such a row would otherwise be left
    /// out, and a model missing a list scores 0 there.
    pub fn from_snapshot(snapshot: Snapshot) -> Result<Self, StudyError> {
        let Snapshot {
            revision,
            pool_depth,
            overview,
            models,
            targets,
            ratings,
            lists,
            left_out,
            depth,
        } = snapshot;
        let position_of_model: HashMap<ModelId, usize> = (models.iter().enumerate())
            .map(|(position, (model, _))| (*model, position))
            .collect();
        let position_of_target: HashMap<PaperKey, usize> = (targets.iter().enumerate())
            .map(|(position, target)| (target.id, position))
            .collect();
        let target_position = |target: PaperKey| {
            position_of_target.get(&target).copied().ok_or_else(|| {
                StudyError::unreadable(format!("a row of target {} outside the snapshot", target.0))
            })
        };
        let mut inputs: Vec<TargetInput<PaperKey>> = (targets.iter())
            .map(|target| TargetInput {
                target: target.external_id.clone(),
                fully_rated: target.fully_rated,
                judgments: HashMap::new(),
                lists: vec![None; models.len()],
                left_out: Vec::new(),
            })
            .collect();
        let mut completed_at = Vec::new();
        for rated in ratings {
            let position = target_position(rated.target)?;
            inputs[position].judgments = rated.judgments.into_iter().collect();
            if inputs[position].fully_rated {
                completed_at.push((rated.last_first_rating, position));
            }
        }
        for (target, model, papers) in lists {
            let position = *position_of_model.get(&model).ok_or_else(|| {
                StudyError::unreadable(format!("a list of model {} outside the snapshot", model.0))
            })?;
            let list = &mut inputs[target_position(target)?].lists[position];
            if list.replace(papers).is_some() {
                return Err(StudyError::unreadable(format!(
                    "two lists of model {} for target {}",
                    model.0, target.0
                )));
            }
        }
        for (target, model) in left_out {
            let position = *position_of_model.get(&model).ok_or_else(|| {
                StudyError::unreadable(format!(
                    "a pool leaving out model {} outside the snapshot",
                    model.0
                ))
            })?;
            inputs[target_position(target)?].left_out.push(position);
        }
        // Ids of the rating history are unique: no two targets were completed at once.
        completed_at.sort_unstable();
        let order = completed_at
            .into_iter()
            .map(|(_, position)| position)
            .collect();
        let with_pool = overview.active - overview.without_pool;
        let completion = Completion {
            order,
            population: usize::try_from(with_pool).unwrap_or_default(),
            choosable: overview.choosable(),
        };
        Ok(EvaluationSet {
            revision,
            depth,
            collection: Collection {
                models: models.into_iter().map(|(_, name)| name).collect(),
                targets: inputs,
                total: usize::try_from(overview.active).unwrap_or_default(),
                pool_depth,
                completion: Some(completion),
            },
            overview,
            targets: (targets.into_iter())
                .map(|target| (target.id, target.title))
                .collect(),
        })
    }

    /// The position of the target `key` among the set's targets; `None` when it has no
    /// rating or is not being rated.
    pub fn position_of(&self, key: PaperKey) -> Option<usize> {
        self.targets.iter().position(|(target, _)| *target == key)
    }
}
