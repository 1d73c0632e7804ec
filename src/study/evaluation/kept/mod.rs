//! The outputs of `paperjudge leaderboard` kept in the study file, for the next call on the
//! same revision: scripts, notebooks and Makefiles ask again and again of a study that has not
//! changed, each call a process of its own, which keeps nothing in memory (see
//! [`super::Evaluations`] for what a server keeps).
//!
//! An output is kept under the canonical text of everything it depends on: the build (a hash
//! of the sources, `PAPERJUDGE_BUILD_ID` from build.rs: a binary built from other sources
//! never reads another's output), the [`BoardKey`] of its leaderboard (the revision its set
//! was read at, the options, the judge's version) and the output asked for (format and
//! per-target). The key is the server's own, which every number it shows trusts.
//!
//! Keeping is best effort: a kept output is written in a short transaction of its own that
//! never waits for the study's write lock (a server or an import holding it), and a failure
//! (busy, read-only, a full disk) is logged at debug level only: the command prints the same
//! output and exits the same either way.

mod store;

use super::cache::{judge_version, BoardKey};
use super::Handle;
use crate::leaderboard::{Leaderboard, LeaderboardOptions, Partial};
use crate::study::db;
use crate::study::StudyError;

/// The build's id: the same for binaries built from the same sources (see build.rs).
const BUILD_ID: &str = env!("PAPERJUDGE_BUILD_ID");

/// An output as it is kept: its key, the parts of the key a new row replaces rows by, and
/// the output.
#[derive(Debug)]
struct KeptOutput {
    key: String,
    build: &'static str,
    revision: String,
    output: String,
}

impl KeptOutput {
    /// The key of the output named `output` of the leaderboard of `board`.
    fn key(board: &BoardKey, output: &str) -> String {
        format!("{BUILD_ID} {board:?} {output}")
    }
}

impl Handle<'_> {
    /// The output named `output` (the face's format, with or without the per-target values)
    /// of the leaderboard `options` and `partial` ask for, as `render` writes it: the one kept
    /// in the study file under the same key, or (with `recompute`, or none kept) computed as
    /// [`Handle::leaderboard`] does, then kept, replacing any kept under the key.
    pub async fn leaderboard_output(
        &self,
        options: &LeaderboardOptions,
        partial: Partial,
        output: &str,
        recompute: bool,
        render: impl FnOnce(&Leaderboard) -> String,
    ) -> Result<String, StudyError> {
        if !recompute {
            // A failed read is only a missed one: the computation says what is wrong, if
            // anything is.
            match self.kept_output(options, partial, output).await {
                Ok(Some(kept)) => {
                    tracing::debug!("printed the kept output");
                    return Ok(kept);
                }
                Ok(None) => {}
                Err(error) => tracing::debug!(%error, "the kept outputs were not read"),
            }
        }
        let (evaluated, board) = (self.study.evaluations)
            .leaderboard(self.study, options, partial)
            .await?;
        let text = render(&evaluated.board);
        let kept = KeptOutput {
            key: KeptOutput::key(&board, output),
            build: BUILD_ID,
            revision: format!("{:?}", board.revision),
            output: text.clone(),
        };
        let path = self.study.path().to_owned();
        match crate::blocking::run(move || store::keep(&path, &kept)).await {
            Ok(()) => tracing::debug!("kept the output"),
            Err(error) => tracing::debug!(%error, "the output was not kept"),
        }
        Ok(text)
    }

    /// The output kept under the key of the study as it is now, if any.
    async fn kept_output(
        &self,
        options: &LeaderboardOptions,
        partial: Partial,
        output: &str,
    ) -> Result<Option<String>, StudyError> {
        let judge = judge_version(self.study, options).await?;
        (self.study.db)
            .read(async |conn| {
                let revision = db::evaluation::revision(&mut *conn).await?;
                let pool_depth = db::study::pool_depth(&mut *conn).await?;
                let board = BoardKey::of(revision, pool_depth, options, partial, judge);
                Ok(store::find(conn, &KeptOutput::key(&board, output)).await?)
            })
            .await
    }
}
