//! The evaluation set: one revision of the study as the scoring reads it, built from the rows
//! of [`db::evaluation::load`].

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::domain::{Grade, ModelId, PaperKey, PoolDepth, RaterAnswer, RaterId, RaterName};
use crate::leaderboard::{Collection, Completion, TargetInput};
use crate::metrics::Judgments;
use crate::study::db;
use crate::study::db::evaluation::{Changes, Ratings, Revision, Snapshot};
use crate::study::targets::Overview;
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
    /// When each target's last pair was first rated (see
    /// [`db::evaluation::TargetRatings`]), in the same
    /// order; `None` for a target without ratings.
    last_first_rating: Vec<Option<i64>>,
    /// For a set made from an earlier one and what changed since
    /// ([`EvaluationSet::updated`]): which.
    pub earlier: Option<Earlier>,
}

/// The set an [`EvaluationSet`] was made from, with what changed since.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Earlier {
    pub revision: Revision,
    /// Where each target was among the earlier set's targets, for those read then and not
    /// since: their judgments, lists and pools are as they were (`None` for the others).
    pub positions: Vec<Option<usize>>,
}

/// One target of a set, as it is built.
struct Part {
    key: PaperKey,
    title: String,
    /// Shared with the earlier set when it comes from there.
    input: Arc<TargetInput<PaperKey>>,
    ratings: Ratings,
    finished_by: Vec<RaterId>,
    last_first_rating: Option<i64>,
    /// Its position in the earlier set, when it comes from there unchanged.
    earlier: Option<usize>,
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

    /// The set of the current revision of the study at `path`, made from this one (of an
    /// earlier revision) and what changed since, when only ratings and which targets are fully
    /// rated changed (see [`db::evaluation::Changes`]): the targets that changed are read
    /// again, one by one, the others taken from here (their inputs shared, not copied: dropping
    /// or copying study L's 5,000 of them took 3-13 ms). The same set as [`EvaluationSet::load`]
    /// would read; `None` where that must read it all.
    pub async fn updated(
        self: &Arc<Self>,
        path: &Path,
    ) -> Result<Option<EvaluationSet>, StudyError> {
        let known = (self.targets.iter().zip(&self.collection.targets))
            .map(|((key, _), target)| (*key, target.fully_rated))
            .collect();
        let Some(changes) =
            db::evaluation::load_changes(path, self.depth, self.revision, known).await?
        else {
            return Ok(None);
        };
        let earlier = self.clone();
        crate::blocking::run(move || earlier.with_changes(changes).map(Some)).await
    }

    /// This set with `changes` (of the same revision counter) taken in.
    fn with_changes(&self, changes: Changes) -> Result<EvaluationSet, StudyError> {
        let Changes { snapshot, rated } = changes;
        let (head, fresh) = parts_of(snapshot)?;
        let stays = |key: &PaperKey| {
            rated.binary_search(key).is_ok() && !fresh.iter().any(|part: &Part| part.key == *key)
        };
        let mut parts: Vec<Part> = (0..self.targets.len())
            .filter(|&position| stays(&self.targets[position].0))
            .map(|position| Part {
                key: self.targets[position].0,
                title: self.targets[position].1.clone(),
                input: self.collection.targets[position].clone(),
                ratings: self.ratings[position].clone(),
                finished_by: self.finished_by[position].clone(),
                last_first_rating: self.last_first_rating[position],
                earlier: Some(position),
            })
            .collect();
        parts.extend(fresh);
        // By external id, as the study's read orders them.
        parts.sort_by(|a, b| a.input.target.cmp(&b.input.target));
        Ok(assemble(head, parts, Some(self.revision)))
    }

    /// Groups the snapshot's rows by target, and orders its fully rated targets as they were
    /// completed: each when its last pooled pair was first rated. A rating or list of a target
    /// or model the snapshot does not hold is an error: such a row would otherwise be left
    /// out, and a model missing a list scores 0 there.
    pub fn from_snapshot(snapshot: Snapshot) -> Result<Self, StudyError> {
        let (head, parts) = parts_of(snapshot)?;
        Ok(assemble(head, parts, None))
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
            // A copy of the target: the set's own is shared with the sets made from it.
            let target = Arc::make_mut(target);
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

/// Everything of a snapshot but its targets' rows.
struct Head {
    revision: Revision,
    pool_depth: PoolDepth,
    overview: Overview,
    models: Vec<String>,
    raters: Vec<(RaterId, RaterName)>,
    has_raters: bool,
    depth: usize,
}

/// The snapshot's rows grouped by target, in the snapshot's order of its targets.
fn parts_of(snapshot: Snapshot) -> Result<(Head, Vec<Part>), StudyError> {
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
    let mut parts: Vec<Part> = (targets.into_iter())
        .map(|target| Part {
            key: target.id,
            input: Arc::new(TargetInput {
                target: target.external_id,
                fully_rated: target.fully_rated,
                judgments: HashMap::new(),
                lists: vec![None; models.len()],
                left_out: Vec::new(),
            }),
            title: target.title,
            ratings: Vec::new(),
            finished_by: target.finished_by,
            last_first_rating: None,
            earlier: None,
        })
        .collect();
    for rated in ratings {
        let part = &mut parts[target_position(rated.target)?];
        // The parts are new, their targets theirs alone: changed in place.
        Arc::make_mut(&mut part.input).judgments =
            judged(&rated.ratings, &Judgments::LowerMedian, None);
        part.ratings = rated.ratings;
        part.last_first_rating = Some(rated.last_first_rating);
    }
    for (target, model, papers) in lists {
        let position = *position_of_model.get(&model).ok_or_else(|| {
            StudyError::unreadable(format!("a list of model {} outside the snapshot", model.0))
        })?;
        let list = &mut Arc::make_mut(&mut parts[target_position(target)?].input).lists[position];
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
        Arc::make_mut(&mut parts[target_position(target)?].input)
            .left_out
            .push(position);
    }
    let head = Head {
        revision,
        pool_depth,
        overview,
        models: models.into_iter().map(|(_, name)| name).collect(),
        raters,
        has_raters,
        depth,
    };
    Ok((head, parts))
}

/// The set of `parts`, in their order, its fully rated targets ordered as they were completed;
/// made from the set of revision `earlier`, when it was.
fn assemble(head: Head, parts: Vec<Part>, earlier: Option<Revision>) -> EvaluationSet {
    // Ids of the rating history are unique: no two targets were completed at once.
    let mut completed_at: Vec<(i64, usize)> = (parts.iter().enumerate())
        .filter(|(_, part)| part.input.fully_rated)
        .filter_map(|(position, part)| Some((part.last_first_rating?, position)))
        .collect();
    completed_at.sort_unstable();
    let order = completed_at
        .into_iter()
        .map(|(_, position)| position)
        .collect();
    let overview = head.overview;
    let with_pool = overview.active - overview.without_pool;
    let completion = Completion {
        order,
        population: usize::try_from(with_pool).unwrap_or_default(),
        choosable: overview.choosable(),
    };
    let mut set = EvaluationSet {
        revision: head.revision,
        depth: head.depth,
        collection: Collection {
            models: head.models,
            targets: Vec::with_capacity(parts.len()),
            total: usize::try_from(overview.active).unwrap_or_default(),
            pool_depth: head.pool_depth,
            completion: Some(completion),
        },
        overview,
        targets: Vec::with_capacity(parts.len()),
        ratings: Vec::with_capacity(parts.len()),
        finished_by: Vec::with_capacity(parts.len()),
        raters: head.raters,
        has_raters: head.has_raters,
        last_first_rating: Vec::with_capacity(parts.len()),
        earlier: earlier.map(|revision| Earlier {
            revision,
            positions: Vec::with_capacity(parts.len()),
        }),
    };
    for part in parts {
        set.collection.targets.push(part.input);
        set.targets.push((part.key, part.title));
        set.ratings.push(part.ratings);
        set.finished_by.push(part.finished_by);
        set.last_first_rating.push(part.last_first_rating);
        if let Some(earlier) = &mut set.earlier {
            earlier.positions.push(part.earlier);
        }
    }
    set
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
