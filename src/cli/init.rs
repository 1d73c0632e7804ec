//! `paperjudge init`: creates the study with its pool depth.

use super::error::CliError;
use crate::domain::PoolDepth;
use crate::study::Study;

pub(super) async fn init(study: &Study, pool_depth: i64) -> Result<(), CliError> {
    let depth = PoolDepth::new(pool_depth).ok_or_else(|| {
        CliError::Usage(format!(
            "--pool-depth must be from 1 to {}, got {pool_depth}",
            PoolDepth::MAX
        ))
    })?;
    study.pool().set_depth(depth).await?;
    crate::tell!("study ready: pool depth {depth}");
    Ok(())
}
