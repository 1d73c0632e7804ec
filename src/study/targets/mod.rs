//! The targets: which the study rates (choosing and dropping them, [`choice`]), the one a rater
//! is to rate next ([`next`]), the library searched for targets ([`search`]), and the targets
//! as the faces see them: the study at a glance (and in words), a target with its progress,
//! and which of them a list shows.

mod choice;
mod next;
mod search;
/// The feature's SQL: reached by the study only (as `db::targets` too).
pub(in crate::study) mod store;

pub use choice::{Chosen, DropRule, Dropped};
pub use next::NextTarget;
pub use search::{Among, Hit, Search, MARK_END, MARK_START};

use serde::Serialize;

use crate::domain::RaterId;
use crate::domain::{PaperId, Progress, TargetChoice};
use crate::study::db::{self, Database};
use crate::study::error::StudyError;
use crate::study::pruning;
use crate::words::plural;
use crate::words::thousands;

pub use store::Overview;

impl Overview {
    /// Papers with recommendations that could still be chosen as targets: none while the
    /// study rates every one (a first choice would drop the others).
    pub fn choosable(&self) -> usize {
        match self.choice {
            TargetChoice::All => 0,
            TargetChoice::Chosen => {
                let with_pool = self.active - self.without_pool;
                usize::try_from(self.candidates - with_pool).unwrap_or_default()
            }
        }
    }

    /// Which targets the study rates, in words: "rating all 8 targets that have
    /// recommendations" or "rating 65 chosen targets of 40,000 with recommendations".
    pub fn in_words(&self) -> String {
        match self.choice {
            TargetChoice::All if self.active == 0 => {
                "rating no target yet: no paper has recommendations".to_owned()
            }
            TargetChoice::All if self.active == 1 => {
                "rating the 1 target that has recommendations".to_owned()
            }
            TargetChoice::All => format!(
                "rating all {} targets that have recommendations",
                thousands(self.active)
            ),
            TargetChoice::Chosen => format!(
                "rating {} chosen {} of {} with recommendations",
                thousands(self.active),
                plural(self.active, "target", "targets"),
                thousands(self.candidates)
            ),
        }
    }
}

/// One target with the progress of its pool: of the study (pairs with a rating, and whether
/// it is fully rated), or of one rater (their ratings, and whether they rated every pair).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TargetSummary {
    pub id: i64,
    pub external_id: PaperId,
    pub title: String,
    pub rated: i64,
    pub total: i64,
    pub finished: bool,
    /// In a rater's list, whether they took it; a target they did not take (one still needing
    /// a rater) shows no count: its pool may change until someone takes it (pruning) and it
    /// leaves the list once its raters have taken it, others' doing either way. Always true in
    /// the owner's list.
    pub taken: bool,
}

impl TargetSummary {
    pub fn progress(&self) -> Progress {
        Progress {
            rated: self.rated,
            total: self.total,
        }
    }
}

pub use store::Listing;

impl Listing {
    pub const EVERY_TARGET: Listing = Listing {
        only_unfinished: false,
        offset: 0,
        limit: i64::MAX,
    };
}

pub use store::RaterOverview;

/// A page of the targets being rated, with the study's targets at a glance.
#[derive(Debug, Clone)]
pub struct TargetList {
    pub overview: Overview,
    pub targets: Vec<TargetSummary>,
}

/// The targets' commands and queries (`study.targets()`).
#[derive(Debug, Clone, Copy)]
pub struct Handle<'s> {
    db: &'s Database,
    /// Pruning, which `/next` does first.
    pruning: pruning::Handle<'s>,
}

impl<'s> Handle<'s> {
    pub(in crate::study) fn new(db: &'s Database, pruning: pruning::Handle<'s>) -> Handle<'s> {
        Handle { db, pruning }
    }

    /// The targets being rated that `listing` asks for, in import order, with the study's
    /// progress (`rater` `None`: the owner's view), or those `rater` took or may take with
    /// their own.
    pub async fn list(
        &self,
        listing: Listing,
        rater: Option<RaterId>,
    ) -> Result<TargetList, StudyError> {
        self.db
            .read(async |conn| {
                Ok(TargetList {
                    overview: db::targets::overview(&mut *conn).await?,
                    targets: (db::targets::list(&mut *conn, listing, rater)
                        .await?
                        .into_iter())
                    .map(TargetSummary::from)
                    .collect(),
                })
            })
            .await
    }

    /// A rater's part of the study at a glance: the targets they took or may take, and how far
    /// they are with them.
    pub async fn rater_overview(&self, rater: RaterId) -> Result<RaterOverview, StudyError> {
        Ok(db::targets::rater_overview(self.db.connections(), rater).await?)
    }

    /// The targets of the study at a glance: which it rates and how far it is.
    pub async fn overview(&self) -> Result<Overview, StudyError> {
        Ok(db::targets::overview(self.db.connections()).await?)
    }
}

impl From<db::targets::TargetSummaryRow> for TargetSummary {
    fn from(row: db::targets::TargetSummaryRow) -> TargetSummary {
        TargetSummary {
            id: row.id,
            external_id: row.external_id,
            title: row.title,
            rated: row.rated,
            total: row.total,
            finished: row.finished,
            taken: row.taken,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overview(choice: TargetChoice, active: i64, candidates: i64) -> Overview {
        Overview {
            choice,
            active,
            candidates,
            pairs: Progress { rated: 0, total: 0 },
            finished: 0,
            partly_rated: 0,
            without_pool: 0,
        }
    }

    #[test]
    fn the_choice_in_words() {
        assert_eq!(
            overview(TargetChoice::All, 8, 8).in_words(),
            "rating all 8 targets that have recommendations"
        );
        assert_eq!(
            overview(TargetChoice::All, 1, 1).in_words(),
            "rating the 1 target that has recommendations"
        );
        assert_eq!(
            overview(TargetChoice::All, 0, 0).in_words(),
            "rating no target yet: no paper has recommendations"
        );
        assert_eq!(
            overview(TargetChoice::Chosen, 65, 40000).in_words(),
            "rating 65 chosen targets of 40,000 with recommendations"
        );
        assert_eq!(
            overview(TargetChoice::Chosen, 1, 3).in_words(),
            "rating 1 chosen target of 3 with recommendations"
        );
    }

    #[test]
    fn an_empty_pool_is_not_finished() {
        assert!(!Progress { rated: 0, total: 0 }.is_finished());
        assert!(Progress { rated: 3, total: 3 }.is_finished());
        assert!(!Progress { rated: 2, total: 3 }.is_finished());
    }
}
