//! `ratings.csv`: a rater's stars for pooled pairs of the rated targets.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use rand::Rng;

use crate::config::{Config, Ratings};
use crate::format::push_id;
use crate::random::{mix, rng_for, unit, Stream};
use crate::recommendations::{Candidate, Pools};
use crate::study::{finish, Summary};

/// How many ratings each pool gets: as even as the pool sizes allow, `total` in all
/// (or every pair, when the pools hold fewer).
fn quotas(sizes: &[usize], total: usize) -> Vec<usize> {
    let available: usize = sizes.iter().sum();
    let total = total.min(available);
    let max_size = sizes.iter().copied().max().unwrap_or(0);
    // The highest level whose capped sum stays within `total`.
    let (mut low, mut high) = (0, max_size);
    while low < high {
        let mid = (low + high).div_ceil(2);
        let sum: usize = sizes.iter().map(|&s| s.min(mid)).sum();
        if sum <= total {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    let mut quotas: Vec<usize> = sizes.iter().map(|&s| s.min(low)).collect();
    let mut left = total - quotas.iter().sum::<usize>();
    for (quota, &size) in quotas.iter_mut().zip(sizes) {
        if left == 0 {
            break;
        }
        if size > *quota {
            *quota += 1;
            left -= 1;
        }
    }
    quotas
}

/// The stars a rater gives to a pair: the hidden relevance on a 1..5 scale, plus a little
/// noise that depends on the pair alone.
fn stars(seed: u64, target: u32, paper: u32, relevance: f64) -> u8 {
    let h = mix(seed ^ mix((u64::from(target) << 32) | u64::from(paper)));
    let noise = (unit(h) + unit(mix(h)) + unit(mix(h ^ 1)) + unit(mix(h ^ 2)) - 2.0)
        * 1.732_050_807_568_877_2;
    let value = 1.0 + 4.0 * relevance + 0.35 * noise;
    (value + 0.5).floor().clamp(1.0, 5.0) as u8
}

/// Writes `ratings.csv`. As a pair's stars depend on the pair alone, a fully rated target
/// gives the same stars to the pairs it shares with a partly rated one.
pub fn write_ratings(
    config: &Config,
    seed: u64,
    pools: &Pools,
    path: &Path,
    summary: &mut Summary,
) -> io::Result<()> {
    let mut rng = rng_for(seed, Stream::Ratings);
    let sizes: Vec<usize> = pools.offsets.windows(2).map(|w| w[1] - w[0]).collect();
    let quotas = match config.ratings {
        Ratings::Count(total) => quotas(&sizes, total),
        Ratings::AllPooled => sizes,
    };
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    out.write_all(b"target,paper,stars\n")?;
    let mut line = String::with_capacity(32);
    let mut picked: Vec<Candidate> = Vec::new();
    for (i, &target) in pools.targets.iter().enumerate() {
        let pool = &pools.entries[pools.offsets[i]..pools.offsets[i + 1]];
        let quota = quotas[i];
        if quota == 0 {
            continue;
        }
        summary.rated_targets += 1;
        // A random `quota` of the pool, in paper order.
        picked.clear();
        picked.extend_from_slice(pool);
        for k in 0..quota {
            let j = rng.random_range(k..picked.len());
            picked.swap(k, j);
        }
        picked.truncate(quota);
        picked.sort_unstable_by_key(|c| c.paper);
        for c in &picked {
            line.clear();
            push_id(&mut line, target);
            line.push(',');
            push_id(&mut line, c.paper);
            line.push(',');
            line.push(char::from(b'0' + stars(seed, target, c.paper, c.relevance)));
            line.push('\n');
            out.write_all(line.as_bytes())?;
        }
        summary.ratings += quota;
    }
    summary.ratings_bytes = finish(out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotas_are_even_within_pool_sizes() {
        assert_eq!(quotas(&[10, 10, 10], 20), [7, 7, 6]);
        assert_eq!(quotas(&[2, 10, 10], 20), [2, 9, 9]);
        assert_eq!(quotas(&[2, 3], 20), [2, 3]);
        assert_eq!(quotas(&[5, 5], 0), [0, 0]);
        assert_eq!(quotas(&[], 5), Vec::<usize>::new());
    }
}
