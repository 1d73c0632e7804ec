//! Which papers are targets, and which targets a researcher chooses to rate.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::config::Config;
use crate::format::push_id;
use crate::random::{rng_for, Stream};
use crate::study::finish;

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

/// Writes `chosen-targets.txt`: `chosen` of the `targets` drawn at random, ascending, one id
/// a line; returns its size.
pub fn write_chosen(seed: u64, targets: &[u32], chosen: usize, path: &Path) -> io::Result<u64> {
    let mut out = BufWriter::new(File::create(path)?);
    let mut line = String::with_capacity(8);
    for index in sample_sorted(seed, Stream::Chosen, targets.len(), chosen) {
        line.clear();
        push_id(&mut line, targets[index]);
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    finish(out)
}

/// `amount` distinct numbers below `length` drawn from `stream`, ascending.
fn sample_sorted(seed: u64, stream: Stream, length: usize, amount: usize) -> Vec<usize> {
    let mut rng = rng_for(seed, stream);
    let mut sample = rand::seq::index::sample(&mut rng, length, amount).into_vec();
    sample.sort_unstable();
    sample
}
