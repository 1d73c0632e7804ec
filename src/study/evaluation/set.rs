//! The evaluation set: one revision of the study as the scoring reads it, built from the rows
//! of [`db::evaluation::load`].

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use crate::domain::{Grade, ModelId, PaperKey, RaterAnswer, RaterId, RaterName};
use crate::leaderboard::{Collection, Completion, TargetInput};
use crate::metrics::Judgments;
use crate::study::db;
use crate::study::db::evaluation::{Ratings, Revision, Snapshot};
use crate::study::Overview;
use crate::study::{Refusal, StudyError};

/// The study's targets with ratings, their judgments and lists, in memory.
#[derive(Debug)]
pub struct EvaluationSet {
    pub revision: Revision,
    /// The targets being rated, at a glance.
    pub overview: Overview,
    /// Where the lists are cut: at least the pool depth; `usize::MAX` for whole lists.
    pub depth: usize,
    /// The targets with their judgments by default (the lower median of their raters' stars:
    /// with one rater, their stars); [`EvaluationSet::collection`] gives the others.
    pub collection: Collection<PaperKey>,
    /// The key and title of each target of `collection.targets`, in the same order.
    pub targets: Vec<(PaperKey, String)>,
    /// Each target's ratings by paper and rater ("can't judge" too), in the same order.
    pub ratings: Vec<Ratings>,
    /// The raters who rated each target whole, in the same order.
    pub finished_by: Vec<Vec<RaterId>>,
    /// Every rater, the owner too, by name.
    pub raters: Vec<(RaterId, RaterName)>,
    /// Whether the study has raters beyond its owner: its views say which judgments they used.
    pub has_raters: bool,
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
            raters,
            has_raters,
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
        let mut by_target = vec![Vec::new(); targets.len()];
        for rated in ratings {
            let position = target_position(rated.target)?;
            inputs[position].judgments = judged(&rated.ratings, &Judgments::LowerMedian, None);
            by_target[position] = rated.ratings;
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
            finished_by: (targets.iter())
                .map(|target| target.finished_by.clone())
                .collect(),
            targets: (targets.into_iter())
                .map(|target| (target.id, target.title))
                .collect(),
            ratings: by_target,
            raters,
            has_raters,
        })
    }

    /// The rater named `name`; refused when the study has none of that name.
    pub fn rater(&self, name: &RaterName) -> Result<RaterId, Refusal> {
        (self.raters.iter())
            .find(|(_, known)| known == name)
            .map(|(id, _)| *id)
            .ok_or_else(|| Refusal::UnknownRater(name.clone()))
    }

    /// The targets with one judgment per pair as `judgments` asks: the set's own collection
    /// for the default, else one made from the ratings. With `rater:NAME` a target counts as
    /// fully rated when the study rated it whole and so did that rater; the verdict reads
    /// those in the order the study completed them.
    pub fn collection(
        &self,
        judgments: &Judgments,
    ) -> Result<Cow<'_, Collection<PaperKey>>, Refusal> {
        let rater = match judgments {
            Judgments::LowerMedian => return Ok(Cow::Borrowed(&self.collection)),
            Judgments::Rater(name) => Some(self.rater(name)?),
            Judgments::UpperMedian | Judgments::Mean => None,
        };
        let mut collection = self.collection.clone();
        for ((target, ratings), finished_by) in (collection.targets.iter_mut())
            .zip(&self.ratings)
            .zip(&self.finished_by)
        {
            target.judgments = judged(ratings, judgments, rater);
            if let Some(rater) = rater {
                target.fully_rated &= finished_by.contains(&rater);
            }
        }
        if let Some(completion) = &mut collection.completion {
            let targets = &collection.targets;
            completion
                .order
                .retain(|&position| targets[position].fully_rated);
        }
        Ok(Cow::Owned(collection))
    }

    /// The position of the target `key` among the set's targets; `None` when it has no
    /// rating or is not being rated.
    pub fn position_of(&self, key: PaperKey) -> Option<usize> {
        self.targets.iter().position(|(target, _)| *target == key)
    }
}

/// One judgment per judged paper of a target from its `ratings` (by paper), as `judgments`
/// asks; with `rater`, of that rater's stars alone. A paper is judged by the raters who gave it
/// stars: one they all marked "can't judge" is unjudged, as on the qrels.
fn judged(
    ratings: &Ratings,
    judgments: &Judgments,
    rater: Option<RaterId>,
) -> HashMap<PaperKey, Grade> {
    let mut judged = HashMap::with_capacity(ratings.len());
    let mut stars = Vec::new();
    for of_paper in ratings.chunk_by(|a, b| a.paper == b.paper) {
        stars.clear();
        stars.extend(
            (of_paper.iter())
                .filter(|rated| rater.is_none_or(|rater| rated.rater == rater))
                .filter_map(RaterAnswer::stars),
        );
        if let Some(grade) = judgments.of(&mut stars) {
            judged.insert(of_paper[0].paper, grade);
        }
    }
    judged
}
