//! Which papers are targets.

use crate::config::Config;
use crate::random::{rng_for, Stream};

/// The targets, as paper indices in ascending order.
pub fn choose_targets(config: &Config, seed: u64) -> Vec<u32> {
    if config.targets == config.papers {
        return (0..config.papers as u32).collect();
    }
    sample_sorted(seed, Stream::Targets, config.papers, config.targets)
        .into_iter()
        .map(|i| i as u32)
        .collect()
}

/// `amount` distinct numbers below `length` drawn from `stream`, ascending.
fn sample_sorted(seed: u64, stream: Stream, length: usize, amount: usize) -> Vec<usize> {
    let mut rng = rng_for(seed, stream);
    let mut sample = rand::seq::index::sample(&mut rng, length, amount).into_vec();
    sample.sort_unstable();
    sample
}
