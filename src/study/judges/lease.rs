//! One judge runs in one place at a time, across processes: a run holds its judge's lease, a
//! row of the study file (`judge_runs`), from before its first request to its end. Two places
//! running one judge would ask every pair twice, and two runs of one new name with different
//! models would mix their grades under it.
//!
//! The lease is a row rather than the study's write lock (which an import holds while it
//! writes), because the raters write between a run's grades. Every write of a run's grades
//! checks, in its own transaction, that the lease is still the run's ([`Study::renew_run`]), so
//! that a run that lost it stores nothing more. A run renews it every [`RENEW_EVERY`]; a lease
//! not renewed for [`LAPSES_AFTER`] (its process killed, its machine asleep) is taken over, and
//! at once one whose process has ended on the same host.

use super::Handle;
use std::time::Duration;

use super::store::{self, RunRow};
use crate::domain::JudgeName;
use crate::study::error::{Refusal, StudyError};
use crate::study::import::JobId;
use crate::study::Study;

/// How often a run renews its lease when no grade did.
pub(super) const RENEW_EVERY: Duration = Duration::from_secs(5);

/// How long a lease lasts without being renewed.
pub(super) const LAPSES_AFTER: Duration = Duration::from_secs(30);

/// Where a run was started, as another place is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    CommandLine,
    Browser,
}

impl Place {
    fn in_words(self) -> &'static str {
        match self {
            Place::CommandLine => "started from the command line",
            Place::Browser => "started from the browser",
        }
    }
}

/// A run's hold on its judge, let go when the run ends ([`Lease::end`]) or, failing that, when
/// dropped.
pub(super) struct Lease {
    study: Study,
    pub judge: JudgeName,
    pub holder: String,
    ended: bool,
}

impl Handle<'_> {
    /// Takes the lease of the judge named `judge` for a run started at `place`: refused while
    /// another run holds it.
    pub(super) async fn take_run(
        &self,
        judge: &JudgeName,
        place: Place,
    ) -> Result<Lease, StudyError> {
        let row = RunRow {
            judge: judge.clone(),
            holder: JobId::random().to_string(),
            place: place.in_words().to_owned(),
            pid: i64::from(std::process::id()),
            host: this_host(),
            started_at: crate::study::db::now_rfc3339(),
            renewed_at: unix_now(),
        };
        self.study
            .db
            .write(async |conn| {
                if let Some(held) = store::run_of(&mut *conn, judge).await? {
                    held.refuse_if_held(row.renewed_at)?;
                }
                Ok(store::take_run(&mut *conn, &row).await?)
            })
            .await?;
        Ok(Lease {
            study: self.study.clone(),
            judge: row.judge,
            holder: row.holder,
            ended: false,
        })
    }
}

impl Lease {
    /// Renews the lease inside the transaction `conn` is in: `false` if the run no longer holds
    /// it.
    pub(super) async fn renew(
        &self,
        conn: &mut sqlx::SqliteConnection,
    ) -> Result<bool, StudyError> {
        Ok(store::renew_run(conn, &self.judge, &self.holder, unix_now()).await?)
    }

    /// Lets go of the lease.
    pub(super) async fn end(mut self) {
        self.ended = true;
        end(&self.study, &self.judge, &self.holder).await;
    }
}

impl Drop for Lease {
    /// A run that ended without a word (its future dropped) lets go too, if a runtime is left
    /// to do it; otherwise the lease lapses.
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (study, judge, holder) =
                (self.study.clone(), self.judge.clone(), self.holder.clone());
            runtime.spawn(async move { end(&study, &judge, &holder).await });
        }
    }
}

async fn end(study: &Study, judge: &JudgeName, holder: &str) {
    let ended = study
        .db
        .write(async |conn| Ok(store::end_run(&mut *conn, judge, holder).await?))
        .await;
    if let Err(error) = ended {
        tracing::warn!(%error, "a judge run's lease was not let go: it lapses by itself");
    }
}

impl RunRow {
    /// Refuses another run of the judge while this one holds it at `now` (Unix seconds): heard
    /// from within [`LAPSES_AFTER`], and its process not known to have ended.
    pub(super) fn refuse_if_held(&self, now: i64) -> Result<(), Refusal> {
        let heard_ago = now.saturating_sub(self.renewed_at);
        let lapsed = heard_ago > LAPSES_AFTER.as_secs() as i64;
        let ended = self.pid != i64::from(std::process::id())
            && !self.host.is_empty()
            && self.host == this_host()
            && has_ended(self.pid);
        if lapsed || ended {
            return Ok(());
        }
        Err(Refusal::JudgeRunsElsewhere {
            judge: self.judge.clone(),
            holder: format!(
                "{}, process {} on {}, since {}; last heard from {} s ago",
                self.place,
                self.pid,
                if self.host.is_empty() {
                    "its host"
                } else {
                    &self.host
                },
                self.started_at,
                heard_ago.max(0)
            ),
        })
    }
}

/// The seconds since the Unix epoch, as the leases count them.
pub(super) fn unix_now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

/// This machine's name, as a lease records where its process runs; empty where unknown.
fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .unwrap_or_default()
}

/// Whether the process `pid` of this machine has ended: it has no entry in `/proc`, or is a
/// zombie. Never known where there is no `/proc`.
fn has_ended(pid: i64) -> bool {
    if !std::path::Path::new("/proc/self/stat").exists() {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the command's name, which is in parentheses and may hold any.
        Ok(stat) => (stat.rsplit_once(')'))
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| matches!(state, "Z" | "X")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(pid: i64, host: &str, renewed_at: i64) -> RunRow {
        RunRow {
            judge: JudgeName::new("j").unwrap(),
            holder: "token".to_owned(),
            place: Place::Browser.in_words().to_owned(),
            pid,
            host: host.to_owned(),
            started_at: "2026-12-01T10:00:00Z".to_owned(),
            renewed_at,
        }
    }

    #[test]
    fn a_lease_holds_until_it_lapses_or_its_process_of_this_host_has_ended() {
        let own = i64::from(std::process::id());
        let host = this_host();
        let shown = if host.is_empty() { "its host" } else { &host };
        let refused = held(own, &host, 1000).refuse_if_held(1002).unwrap_err();
        assert_eq!(
            refused.to_string(),
            format!(
                "the judge \"j\" is running elsewhere (started from the browser, process {own} \
                 on {shown}, since 2026-12-01T10:00:00Z; last heard from 2 s ago): a judge runs in \
                 one place at a time; try again once that run has ended (a run whose process \
                 was killed lets go 30 s after it was last heard from)"
            )
        );
        assert!(held(own, &host, 1000).refuse_if_held(1030).is_err());
        assert!(held(own, &host, 1000).refuse_if_held(1031).is_ok());
        // A process of this host that has ended holds nothing; one of another host may be alive.
        let ended = i64::from(u32::MAX);
        assert_eq!(
            held(ended, &host, 1000).refuse_if_held(1001).is_ok(),
            !host.is_empty()
        );
        assert!(held(ended, "another-host", 1000)
            .refuse_if_held(1001)
            .is_err());
    }
}
