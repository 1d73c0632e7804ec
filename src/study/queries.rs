//! The queries of the pages and commands that show the study as it is: each one read.

use super::{
    BlindPoolRow, Hit, Listing, Overview, Paper, Progress, Rater, RatingRow, Refusal, Study,
    StudyError, TargetSummary,
};
use crate::domain::{PaperId, PaperKey, RaterId, Stars};
use crate::metrics::Judgments;
use crate::study::db;
use crate::study::RaterOverview;

use crate::study::PooledPaper;

/// A target's rating page for one rater: the target, its pooled papers in the blind order with
/// the rater's stars, and the target to rate after it.
#[derive(Debug, Clone)]
pub struct RatingPage {
    pub target: Paper,
    pub papers: Vec<PooledPaper>,
    pub progress: Progress,
    /// The next target that needs the rater in the study's random order; never this one.
    pub next_target: Option<PaperKey>,
    /// The study has raters besides its owner.
    pub with_raters: bool,
}

/// A page of the targets being rated, with the study's targets at a glance.
#[derive(Debug, Clone)]
pub struct TargetList {
    pub overview: Overview,
    pub targets: Vec<TargetSummary>,
}

/// The target to rate next, in the study's random order.
#[derive(Debug, Clone)]
pub struct NextTarget {
    pub target: Paper,
    pub progress: Progress,
}

/// What a search of the library found, with the study's targets at a glance.
#[derive(Debug, Clone)]
pub struct Search {
    pub overview: Overview,
    /// A page of the papers found, best first, and how many were found in all; `None` when
    /// the search had no word to search for.
    pub found: Option<(Vec<Hit>, i64)>,
}

impl Study {
    /// `rater`'s rating page of `target`, with their own stars only; refused when the paper is
    /// no target being rated (never one, or dropped), or when it has the raters it needs and
    /// `rater` is not one of them. Blind: it reads the pool and the rater's ratings, never a
    /// model, rank, score or list, nor another rater's stars.
    pub async fn rating_page(
        &self,
        target: PaperKey,
        rater: &Rater,
    ) -> Result<RatingPage, StudyError> {
        self.read(async |conn| {
            let no_such_target = || StudyError::from(Refusal::NoSuchTarget(target));
            if db::targets::progress(&mut *conn, target).await?.is_none() {
                return Err(no_such_target());
            }
            if !db::raters::may_rate(&mut *conn, target, rater.id).await? {
                return Err(Refusal::TargetTaken(target).into());
            }
            let papers = db::targets::pooled_papers(&mut *conn, target, rater.id).await?;
            let paper = db::papers::get(&mut *conn, target)
                .await?
                .ok_or_else(no_such_target)?;
            let next_target = db::targets::next_to_rate(&mut *conn, target, rater.id).await?;
            let progress = Progress {
                rated: papers.iter().filter(|paper| paper.stars.is_some()).count() as i64,
                total: papers.len() as i64,
            };
            Ok(RatingPage {
                target: paper,
                papers,
                progress,
                next_target,
                with_raters: db::raters::has_raters(conn).await?,
            })
        })
        .await
    }

    /// The targets being rated that `listing` asks for, in import order, with the study's
    /// progress (`rater` `None`: the owner's view), or those `rater` took or may take with
    /// their own.
    pub async fn targets(
        &self,
        listing: Listing,
        rater: Option<RaterId>,
    ) -> Result<TargetList, StudyError> {
        self.read(async |conn| {
            Ok(TargetList {
                overview: db::targets::overview(&mut *conn).await?,
                targets: db::targets::list(&mut *conn, listing, rater).await?,
            })
        })
        .await
    }

    /// A rater's part of the study at a glance: the targets they took or may take, and how far
    /// they are with them.
    pub async fn rater_overview(&self, rater: RaterId) -> Result<RaterOverview, StudyError> {
        Ok(db::targets::rater_overview(&self.connections, rater).await?)
    }

    /// The targets of the study at a glance: which it rates and how far it is.
    pub async fn overview(&self) -> Result<Overview, StudyError> {
        Ok(db::targets::overview(&self.connections).await?)
    }

    /// The target `rater` is to rate next (what `/next` opens): the first in the study's
    /// random order that they took and have not rated whole, or that still needs a rater,
    /// which in a study with raters they then take (a command: two raters asking at once get
    /// different targets when each needs one; the owner rating alone takes a target with a
    /// first rating, as a rating takes it). `None` when no target needs them. While pruning is
    /// on, the models the verdict rules out are pruned first, so that the pool of the target it
    /// names leaves them out.
    pub async fn next_target(&self, rater: &Rater) -> Result<Option<NextTarget>, StudyError> {
        self.prune_ruled_out().await?;
        self.write(async |conn| {
            let Some(target) = db::targets::first_to_rate(&mut *conn, rater.id).await? else {
                return Ok(None);
            };
            if db::raters::has_active_raters(&mut *conn).await? {
                db::raters::assign(&mut *conn, target, rater.id, &db::now_rfc3339()).await?;
            }
            let paper = db::papers::get(&mut *conn, target).await?;
            let progress = db::targets::rater_progress(&mut *conn, target, rater.id).await?;
            Ok(paper
                .zip(progress)
                .map(|(target, progress)| NextTarget { target, progress }))
        })
        .await
    }

    /// The papers whose id, title, authors or abstract hold every word of `text` (see
    /// [`db::papers::search_expression`]), `limit` of them from `offset`; each target with the
    /// pairs rated of the study (`rater` `None`: the owner's view) or of `rater` alone.
    pub async fn search(
        &self,
        text: &str,
        offset: i64,
        limit: i64,
        rater: Option<RaterId>,
    ) -> Result<Search, StudyError> {
        let expression = db::papers::search_expression(text);
        self.read(async |conn| {
            let overview = db::targets::overview(&mut *conn).await?;
            let found = match &expression {
                Some(expression) => {
                    Some(db::papers::search(conn, expression, offset, limit, rater).await?)
                }
                None => None,
            };
            Ok(Search { overview, found })
        })
        .await
    }

    /// Every rating (`rater` `None`), or one rater's, by target id, paper id and rater: the
    /// ratings CSV.
    pub async fn ratings(&self, rater: Option<RaterId>) -> Result<Vec<RatingRow>, StudyError> {
        Ok(db::ratings::all_rows(&self.connections, rater).await?)
    }

    /// One judgment per rated pair, as `judgments` asks (`rater:NAME`: that rater's ratings
    /// alone), in whole stars, by target id and paper id: the qrels. Refused for the mean,
    /// whose judgments are fractional, and for a rater the study has not.
    pub async fn judged_pairs(
        &self,
        judgments: &Judgments,
    ) -> Result<Vec<(PaperId, PaperId, Stars)>, StudyError> {
        if !judgments.is_whole() {
            return Err(Refusal::FractionalQrels.into());
        }
        let rows = db::ratings::all_rows(&self.connections, None).await?;
        if let Judgments::Rater(name) = judgments {
            if !rows.iter().any(|row| row.rater == *name) {
                let known = db::raters::find(&self.connections, name).await?;
                known.ok_or_else(|| Refusal::UnknownRater(name.clone()))?;
            }
        }
        let picked: Vec<&RatingRow> = (rows.iter())
            .filter(|row| match judgments {
                Judgments::Rater(name) => row.rater == *name,
                _ => true,
            })
            .collect();
        let mut stars = Vec::new();
        Ok(
            (picked.chunk_by(|a, b| (&a.target, &a.paper) == (&b.target, &b.paper)))
                .filter_map(|of_pair| {
                    stars.clear();
                    stars.extend(of_pair.iter().map(|row| row.stars));
                    let grade = judgments.of(&mut stars)?.as_stars()?;
                    Some((of_pair[0].target.clone(), of_pair[0].paper.clone(), grade))
                })
                .collect(),
        )
    }

    /// The blind pool of every target being rated, by target id and display position.
    pub async fn blind_pool(&self) -> Result<Vec<BlindPoolRow>, StudyError> {
        Ok(db::blind_pool::all_rows(&self.connections).await?)
    }
}
