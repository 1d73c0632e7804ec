//! Raters: the people who rate a study besides its owner, each blind to the others; how many of
//! them rate each target (the plan); and who signs in as whom.
//!
//! A study without raters has one rater, its owner, and works as it always did. Raters are
//! managed from the command line only (`paperjudge raters add|remove|list|set`); the web signs
//! them in ([`Study::sign_in`]) and asks, on every request of a session, whether its rater may
//! still sign in ([`Study::signed_in_rater`]).

use serde::Serialize;

use super::{Refusal, Study, StudyError};
use crate::blocking;
use crate::db;
use crate::db::raters::{Plan, RaterRow};
use crate::domain::{RaterId, RaterName};
use crate::password;

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

/// The study's raters and its plan, as `raters list` shows them.
#[derive(Debug, Clone, Serialize)]
pub struct Raters {
    pub plan: Plan,
    pub raters: Vec<RaterRow>,
}

/// What adding a rater did: a new one, or one removed before and back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    New,
    Back,
}

impl Study {
    /// Adds a rater who signs in as `name` with `password` (refused when too easily guessed,
    /// see [`password::check_strength`]), or brings back a rater removed before, with their
    /// ratings, under the new password. A name that differs from a rater's or the owner's
    /// only in case is refused: a person would take it for theirs.
    pub async fn add_rater(&self, name: &RaterName, password: &str) -> Result<Added, StudyError> {
        if name.is_owner() {
            return Err(Refusal::OwnerName.into());
        }
        if name.as_str().to_lowercase() == RaterName::owner().as_str() {
            return Err(Refusal::RaterNameTaken {
                name: name.clone(),
                taken: RaterName::owner(),
            }
            .into());
        }
        password::check_strength(password).map_err(|weak| Refusal::WeakPassword {
            rater: name.clone(),
            weak,
        })?;
        let secret = password.to_owned();
        let hash = blocking::run(move || password::hash(&secret))
            .await
            .map_err(|error| StudyError::Internal(error.to_string().into()))?;
        self.write(async |conn| {
            let lower = name.as_str().to_lowercase();
            let alike = (db::raters::names(&mut *conn).await?.into_iter())
                .find(|known| known != name && known.as_str().to_lowercase() == lower);
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
    pub async fn remove_rater(&self, name: &RaterName) -> Result<(), StudyError> {
        self.write(async |conn| {
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
    pub async fn set_rating_plan(
        &self,
        per_target: Option<u32>,
        overlap: Option<Option<f64>>,
    ) -> Result<Plan, StudyError> {
        if let Some(Some(share)) = overlap {
            if !(0.0..=1.0).contains(&share) {
                return Err(Refusal::OverlapOutOfRange(share).into());
            }
        }
        self.write(async |conn| {
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
            Ok(db::raters::plan(conn).await?)
        })
        .await
    }

    /// The raters (removed ones too) with their progress, and the plan.
    pub async fn raters(&self) -> Result<Raters, StudyError> {
        self.read(async |conn| {
            Ok(Raters {
                plan: db::raters::plan(&mut *conn).await?,
                raters: db::raters::list(conn).await?,
            })
        })
        .await
    }

    /// Whether every visitor must sign in as a rater (or the owner): the study has raters who
    /// may sign in.
    pub async fn has_active_raters(&self) -> Result<bool, StudyError> {
        Ok(db::raters::has_active_raters(&self.connections).await?)
    }

    /// The rater `name` if `password` is theirs and they may sign in; `None` otherwise (an
    /// unknown name costs the same time as a wrong password, so that timing tells neither).
    pub async fn sign_in(
        &self,
        name: &RaterName,
        password: &str,
    ) -> Result<Option<Rater>, StudyError> {
        let found = db::raters::find(&self.connections, name).await?;
        let (id, stored) = match found {
            Some(db::raters::Found {
                id,
                password_hash: Some(hash),
                removed: false,
            }) => (Some(id), hash),
            _ => (None, UNKNOWN_RATER_HASH.to_owned()),
        };
        let guess = password.to_owned();
        let verified = blocking::run(move || password::verify(&guess, &stored)).await;
        Ok(id.filter(|_| verified).map(|id| Rater {
            id,
            name: name.clone(),
        }))
    }

    /// The rater named `name` (the owner for `owner`); refused for a name that is no rater's,
    /// or a rater removed.
    pub async fn rater_named(&self, name: &RaterName) -> Result<Rater, StudyError> {
        if name.is_owner() {
            return Ok(Rater::owner());
        }
        match db::raters::find(&self.connections, name).await? {
            Some(found) if found.removed => Err(Refusal::RemovedRater(name.clone()).into()),
            Some(found) => Ok(Rater {
                id: found.id,
                name: name.clone(),
            }),
            None => Err(Refusal::UnknownRater(name.clone()).into()),
        }
    }

    /// The rater of a session signed in as `id`, while they may still sign in.
    pub async fn signed_in_rater(&self, id: RaterId) -> Result<Option<Rater>, StudyError> {
        if id == RaterId::OWNER {
            return Ok(Some(Rater::owner()));
        }
        let name = db::raters::active_name(&self.connections, id).await?;
        Ok(name.map(|name| Rater { id, name }))
    }
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
