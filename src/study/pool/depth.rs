//! The study's settings: the pool depth (and, as they come, more of them), each changed by a
//! command of its own.

use super::Handle;
use crate::domain::PoolDepth;
use crate::study::db;
use crate::study::error::{Refusal, StudyError};

impl Handle<'_> {
    /// Sets the pool depth, which is allowed only while the study has no recommendations.
    pub async fn set_depth(&self, depth: PoolDepth) -> Result<(), StudyError> {
        self.db
            .write(async |conn| {
                let current = db::study::pool_depth(&mut *conn).await?;
                if current == depth {
                    return Ok(());
                }
                if db::study::has_recommendations(conn).await? {
                    return Err(Refusal::PoolDepthFixed {
                        current,
                        requested: depth,
                    }
                    .into());
                }
                db::study::set_pool_depth(conn, depth).await?;
                Ok(db::study::bump_revision(conn).await?)
            })
            .await
    }
}
