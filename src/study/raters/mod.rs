//! Raters: the people who rate a study besides its owner, each blind to the others; how many of
//! them rate each target (the plan); and who signs in as whom.
//!
//! A study without raters has one rater, its owner, and works as it always did. Raters are
//! managed from the command line only (`paperjudge raters add|remove|list|set`); the web signs
//! them in ([`Handle::sign_in`]), asks, on every request of a session, whether its rater may
//! still sign in ([`Handle::signed_in`]), and shows the owner their progress
//! ([`Handle::list`], `/raters`).

/// The feature's SQL: reached by the study only (as `db::raters` too).
pub(in crate::study) mod store;

use serde::Serialize;
use sqlx::SqliteConnection;

use crate::blocking;
use crate::domain::{RaterId, RaterName};
use crate::password;
use crate::study::db::{self, Database};
use crate::study::error::{Refusal, StudyError};

/// Who is signed in: the owner or one of the raters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rater {
    pub id: RaterId,
    pub name: RaterName,
}

impl Rater {
    /// The study's owner.
    pub fn owner() -> Rater {
        Rater {
            id: RaterId::OWNER,
            name: RaterName::owner(),
        }
    }

    pub fn is_owner(&self) -> bool {
        self.id == RaterId::OWNER
    }
}

/// The study's raters and its plan, as `raters list` shows them (its JSON).
#[derive(Debug, Clone, Serialize)]
pub struct Raters {
    pub plan: RatingPlan,
    pub raters: Vec<RaterProgress>,
}

/// A rater with their progress, as `raters list` and `status` show them (and their JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RaterProgress {
    #[serde(skip)]
    pub id: RaterId,
    pub name: RaterName,
    /// Still signs in (not removed).
    pub active: bool,
    /// Their ratings, of every target.
    pub ratings: i64,
    /// Targets they took (from `/next` or with a rating) and have not rated every pooled pair
    /// of.
    pub targets_in_progress: i64,
    /// Targets they rated every pooled pair of.
    pub targets_finished: i64,
}

impl From<db::raters::RaterRow> for RaterProgress {
    fn from(row: db::raters::RaterRow) -> RaterProgress {
        RaterProgress {
            id: row.id,
            name: row.name,
            active: row.active,
            ratings: row.ratings,
            targets_in_progress: row.targets_in_progress,
            targets_finished: row.targets_finished,
        }
    }
}

/// How many raters rate each target, and the share of targets with one more.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RatingPlan {
    /// Raters per target (`raters set --per-target`).
    pub per_target: i64,
    /// The share of targets one more rater rates, as set or by default.
    pub overlap: f64,
    /// Whether the share is the default's (not set).
    pub overlap_by_default: bool,
    /// Raters who sign in (not removed), the owner left out.
    pub raters: i64,
}

impl From<db::raters::Plan> for RatingPlan {
    fn from(plan: db::raters::Plan) -> RatingPlan {
        RatingPlan {
            per_target: plan.per_target,
            overlap: plan.overlap,
            overlap_by_default: plan.overlap_by_default,
            raters: plan.raters,
        }
    }
}

impl RatingPlan {
    /// The plan in words, for every face: "each target rated by 1 rater, and 10% of them by
    /// one more".
    pub fn in_words(&self) -> String {
        let per_target = match self.per_target {
            1 => "each target rated by 1 rater".to_owned(),
            count => format!("each target rated by {count} raters"),
        };
        let overlap = match self.overlap {
            share if share > 0.0 => format!(
                ", and {}% of them by one more{}",
                share * 100.0,
                if self.overlap_by_default {
                    " (the default with two raters or more)"
                } else {
                    ""
                }
            ),
            _ => String::new(),
        };
        let capped = if self.per_target > self.raters.max(1) {
            format!(
                "; the study has {} raters, so no target needs more",
                self.raters.max(1)
            )
        } else {
            String::new()
        };
        format!("{per_target}{overlap}{capped}")
    }
}

/// Every rater but the owner, by name, removed ones too, with their progress.
pub(in crate::study) async fn progress(
    conn: &mut SqliteConnection,
) -> Result<Vec<RaterProgress>, StudyError> {
    let rows = db::raters::list(conn).await?;
    Ok(rows.into_iter().map(RaterProgress::from).collect())
}

/// What adding a rater did: a new one, or one removed before and back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    New,
    Back,
}

/// The raters' commands and queries (`study.raters()`).
#[derive(Debug, Clone, Copy)]
pub struct Handle<'s> {
    db: &'s Database,
}

impl<'s> Handle<'s> {
    pub(in crate::study) fn new(db: &'s Database) -> Handle<'s> {
        Handle { db }
    }

    /// Adds a rater who signs in as `name` with `password` (refused when too easily guessed,
    /// see [`password::check_strength`]), or brings back a rater removed before, with their
    /// ratings, under the new password. A name a person would take for a rater's or the
    /// owner's ([`RaterName::likeness`]: one differing only in case, in how its letters are
    /// encoded, or in letters that look alike) is refused, as is a name that mixes scripts.
    pub async fn add(&self, name: &RaterName, password: &str) -> Result<Added, StudyError> {
        if name.is_owner() {
            return Err(Refusal::OwnerName.into());
        }
        if let Some(scripts) = name.mixed_scripts() {
            return Err(Refusal::MixedScripts {
                name: name.clone(),
                scripts,
            }
            .into());
        }
        let likeness = name.likeness();
        if likeness == RaterName::owner().likeness() {
            return Err(Refusal::RaterNameTaken {
                name: name.clone(),
                taken: RaterName::owner(),
            }
            .into());
        }
        let hash = hash_password(name, password).await?;
        self.db
            .write(async |conn| {
                let alike = (db::raters::names(&mut *conn).await?.into_iter())
                    .find(|known| known != name && known.likeness() == likeness);
                if let Some(taken) = alike {
                    return Err(Refusal::RaterNameTaken {
                        name: name.clone(),
                        taken,
                    }
                    .into());
                }
                let added = match db::raters::find(&mut *conn, name).await? {
                    Some(found) if !found.removed => {
                        return Err(Refusal::RaterExists(name.clone()).into())
                    }
                    Some(_) => Added::Back,
                    None => Added::New,
                };
                db::raters::add(&mut *conn, name, &hash, &db::now_rfc3339()).await?;
                db::raters::follow_plan(conn).await?;
                Ok(added)
            })
            .await
    }

    /// Removes the rater `name`: they can no longer sign in (a session of theirs ends with its
    /// next request), the targets they took and did not finish wait for another rater, and
    /// their ratings stay.
    pub async fn remove(&self, name: &RaterName) -> Result<(), StudyError> {
        self.db
            .write(async |conn| {
                let found = db::raters::find(&mut *conn, name)
                    .await?
                    .filter(|found| found.id != RaterId::OWNER && !found.removed)
                    .ok_or_else(|| Refusal::UnknownRater(name.clone()))?;
                db::raters::remove(&mut *conn, found.id, &db::now_rfc3339()).await?;
                db::raters::follow_plan(conn).await?;
                Ok(())
            })
            .await
    }

    /// Sets how many raters rate each target (`per_target`) and the share of targets one more
    /// rates for agreement (`overlap`; `Some(None)` goes back to the default); answers the plan
    /// now. Every target's need follows at once: one that has its raters now is fully rated.
    pub async fn set_plan(
        &self,
        per_target: Option<u32>,
        overlap: Option<Option<f64>>,
    ) -> Result<RatingPlan, StudyError> {
        if let Some(Some(share)) = overlap {
            if !(0.0..=1.0).contains(&share) {
                return Err(Refusal::OverlapOutOfRange(share).into());
            }
        }
        self.db
            .write(async |conn| {
                if let Some(per_target) = per_target {
                    let raters = db::raters::plan(&mut *conn).await?.raters.max(1);
                    if per_target == 0 || i64::from(per_target) > raters {
                        return Err(Refusal::PerTarget {
                            asked: per_target,
                            raters,
                        }
                        .into());
                    }
                }
                db::raters::set_plan(&mut *conn, per_target.map(i64::from), overlap).await?;
                db::raters::follow_plan(&mut *conn).await?;
                Ok(db::raters::plan(conn).await?.into())
            })
            .await
    }

    /// The raters (removed ones too) with their progress, and the plan.
    pub async fn list(&self) -> Result<Raters, StudyError> {
        self.db
            .read(async |conn| {
                Ok(Raters {
                    plan: db::raters::plan(&mut *conn).await?.into(),
                    raters: progress(conn).await?,
                })
            })
            .await
    }

    /// Whether every visitor must sign in as a rater (or the owner): the study has raters who
    /// may sign in.
    pub async fn has_active(&self) -> Result<bool, StudyError> {
        Ok(db::raters::has_active_raters(self.db.connections()).await?)
    }

    /// The rater `name`, with the credential a session of theirs holds, if `password` is
    /// theirs and they may sign in; `None` otherwise (an unknown name costs the same time as a
    /// wrong password, so that timing tells neither).
    pub async fn sign_in(
        &self,
        name: &RaterName,
        password: &str,
    ) -> Result<Option<(Rater, Credential)>, StudyError> {
        let found = db::raters::find(self.db.connections(), name).await?;
        let (id, stored) = match found {
            Some(db::raters::Found {
                id,
                password_hash: Some(hash),
                removed: false,
            }) => (Some(id), hash),
            _ => (None, UNKNOWN_RATER_HASH.to_owned()),
        };
        let guess = password.to_owned();
        let checked = stored.clone();
        let verified = blocking::run(move || password::verify(&guess, &checked)).await;
        Ok(id.filter(|_| verified).map(|id| {
            let rater = Rater {
                id,
                name: name.clone(),
            };
            (rater, Credential::of(&stored))
        }))
    }

    /// The rater named `name` (the owner for `owner`); refused for a name that is no rater's,
    /// or a rater removed.
    pub async fn named(&self, name: &RaterName) -> Result<Rater, StudyError> {
        if name.is_owner() {
            return Ok(Rater::owner());
        }
        match db::raters::find(self.db.connections(), name).await? {
            Some(found) if found.removed => Err(Refusal::RemovedRater(name.clone()).into()),
            Some(found) => Ok(Rater {
                id: found.id,
                name: name.clone(),
            }),
            None => Err(Refusal::UnknownRater(name.clone()).into()),
        }
    }

    /// The rater of a session signed in as `id` with `credential`, while it stands: `None`
    /// once the rater was removed or their password changed (the session then ends). The
    /// owner's stands while the server runs (their password is given to `serve`).
    pub async fn signed_in(
        &self,
        id: RaterId,
        credential: &Credential,
    ) -> Result<Option<Rater>, StudyError> {
        if id == RaterId::OWNER {
            return Ok((*credential == Credential::OWNER).then(Rater::owner));
        }
        let active = db::raters::active(self.db.connections(), id).await?;
        Ok(active
            .filter(|(_, hash)| Credential::of(hash) == *credential)
            .map(|(name, _)| Rater { id, name }))
    }

    /// Gives the rater `name` a new password (refused when too easily guessed): every session
    /// of theirs ends at its next request, as it does when they are removed.
    pub async fn set_password(&self, name: &RaterName, password: &str) -> Result<(), StudyError> {
        if name.is_owner() {
            return Err(Refusal::OwnerPassword.into());
        }
        let hash = hash_password(name, password).await?;
        self.db
            .write(async |conn| {
                let found = db::raters::find(&mut *conn, name)
                    .await?
                    .ok_or_else(|| Refusal::UnknownRater(name.clone()))?;
                if found.removed {
                    return Err(Refusal::RemovedRater(name.clone()).into());
                }
                db::raters::set_password(&mut *conn, found.id, &hash).await?;
                Ok(())
            })
            .await
    }
}

/// What a session holds of how its rater signed in: a digest of the stored hash of the
/// password they signed in with. A new password (or a rater removed and added again) makes a
/// new hash, with a new salt, and the session no longer stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Credential([u8; 32]);

impl Credential {
    /// The owner's, whose password lives as long as the server.
    pub const OWNER: Credential = Credential([0; 32]);

    fn of(password_hash: &str) -> Credential {
        use sha2::Digest;
        Credential(sha2::Sha256::digest(password_hash.as_bytes()).into())
    }
}

/// `password` for the rater `name`, checked (see [`password::check_strength`]) and hashed.
async fn hash_password(name: &RaterName, password: &str) -> Result<String, StudyError> {
    password::check_strength(password).map_err(|weak| Refusal::WeakPassword {
        rater: name.clone(),
        weak,
    })?;
    let secret = password.to_owned();
    blocking::run(move || password::hash(&secret))
        .await
        .map_err(|error| StudyError::Internal(error.to_string().into()))
}

/// An Argon2id hash of no one's password, checked for a name that is no rater's so that it
/// takes as long as a wrong password.
const UNKNOWN_RATER_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$dW5rbm93bnJhdGVyc2FsdA$2K5HqB3FQ1dNn0X4lGzN3m6JcXoE7gZ0pQ6t8Yv1wXk";

#[cfg(test)]
mod tests {
    use super::*;

    /// The stand-in hash is a real one, so that checking it takes as long as any other.
    #[test]
    fn the_hash_checked_for_unknown_names_is_a_hash_of_the_usual_cost() {
        let stored = password::hash("no one's password").unwrap();
        let usual = stored.rsplitn(3, '$').nth(2).unwrap();
        let standin = UNKNOWN_RATER_HASH.rsplitn(3, '$').nth(2).unwrap();
        assert_eq!(usual, standin, "the same algorithm and parameters");
        assert!(argon2::PasswordHash::new(UNKNOWN_RATER_HASH).is_ok());
        assert!(!password::verify("", UNKNOWN_RATER_HASH));
    }
}
