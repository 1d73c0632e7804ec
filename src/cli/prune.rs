//! `paperjudge prune [on|off]`.

use super::arguments::Switch;
use super::error::CliError;
use super::output::print;
use crate::study::Study;

/// `paperjudge prune [on|off]`: sets pruning, then says how it stands.
pub(super) async fn prune(study: &Study, state: Option<Switch>) -> Result<(), CliError> {
    if let Some(state) = state {
        let change = study.pruning().set(state == Switch::On).await?;
        if change.added + change.removed > 0 {
            crate::tell!(
                "pools of targets without a rating: {} pairs added, {} removed",
                change.added,
                change.removed
            );
        }
    }
    let mut said = study.pruning().state().await?.to_string();
    said.push('\n');
    print(&said, true)
}
