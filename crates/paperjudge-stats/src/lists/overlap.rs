//! How much two ranked lists agree: Jaccard of their papers and extrapolated rank-biased
//! overlap (Webber, Moffat and Zobel 2010), defined in docs/metrics.md, "The lists".
//!
//! Lists are rankings without ties, no paper twice (as the importer requires). Both measures
//! come from the papers the two lists share, each with the depth from which both hold it (the
//! larger of its two ranks).

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// RBO's persistence p: the probability that a reader who has compared the lists to one depth
/// goes on to the next; strictly between 0 and 1.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Persistence(f64);

impl Persistence {
    /// Webber, Moffat and Zobel's example, and the default: the first 10 ranks carry 86% of
    /// the weight.
    pub const DEFAULT: Persistence = Persistence(0.9);

    pub fn new(p: f64) -> Option<Persistence> {
        (p > 0.0 && p < 1.0).then_some(Persistence(p))
    }

    pub fn get(self) -> f64 {
        self.0
    }
}

impl Default for Persistence {
    fn default() -> Persistence {
        Persistence::DEFAULT
    }
}

impl FromStr for Persistence {
    type Err = String;

    fn from_str(text: &str) -> Result<Persistence, String> {
        (text.trim().parse::<f64>().ok())
            .and_then(Persistence::new)
            .ok_or_else(|| {
                format!("rbo-p must be a number strictly between 0 and 1, e.g. 0.9 (got {text:?})")
            })
    }
}

impl fmt::Display for Persistence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Serialize for Persistence {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.0)
    }
}

/// Two lists compared: how many papers they share within each depth.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlap {
    /// The lengths of the two lists.
    pub lengths: (usize, usize),
    /// `shared_to[d]`: X_{d+1}, the papers both lists hold within their top d + 1, for every
    /// depth up to the longer list's length.
    shared_to: Vec<u32>,
}

impl Overlap {
    /// Compares two ranked lists, best first.
    pub fn of<P: Ord>(a: &[P], b: &[P]) -> Overlap {
        let mut in_b: Vec<(&P, usize)> = b.iter().zip(1..).collect();
        in_b.sort_unstable();
        let rank_in_b = |paper: &P| {
            (in_b.binary_search_by(|(listed, _)| (*listed).cmp(paper))).map_or(0, |at| in_b[at].1)
        };
        // The papers both hold from depth d + 1 on, d + 1 being the larger of the two ranks.
        let mut first_shared = vec![0; a.len().max(b.len())];
        for (paper, in_a) in a.iter().zip(1..) {
            let in_b = rank_in_b(paper);
            if in_b > 0 {
                first_shared[in_a.max(in_b) - 1] += 1;
            }
        }
        Overlap {
            lengths: (a.len(), b.len()),
            shared_to: (first_shared.iter())
                .scan(0, |shared, &first| {
                    *shared += first;
                    Some(*shared)
                })
                .collect(),
        }
    }

    /// The papers both lists hold.
    pub fn shared(&self) -> usize {
        self.shared_to.last().map_or(0, |&shared| shared as usize)
    }

    /// |A ∩ B| / |A ∪ B|; `None` for two empty lists.
    pub fn jaccard(&self) -> Option<f64> {
        jaccard(self.lengths, self.shared())
    }

    /// Extrapolated rank-biased overlap with persistence `p` (Webber, Moffat and Zobel 2010,
    /// Eq. 32, for lists of unequal length s ≤ l): with X_d the papers of the shorter list
    /// found in the top d of the longer (both cut at d while d ≤ s),
    ///
    /// RBO = (1 − p)/p · [Σ_{d=1..l} X_d/d · p^d + Σ_{d=s+1..l} X_s (d − s)/(s d) · p^d]
    ///       + [(X_l − X_s)/l + X_s/s] · p^l.
    ///
    /// 0 when one list is empty (no paper in common at any depth); `None` when both are.
    pub fn rbo_ext(&self, p: Persistence) -> Option<f64> {
        let shared_to = self.shared_to.iter().copied();
        rbo_ext_and_shared(self.lengths, shared_to, &mut Weights::new(p)).map(|(rbo, _)| rbo)
    }
}

/// The Jaccard of two lists of `lengths` that share `shared` papers; `None` when both are
/// empty.
pub(super) fn jaccard(lengths: (usize, usize), shared: usize) -> Option<f64> {
    let union = lengths.0 + lengths.1 - shared;
    (union > 0).then(|| shared as f64 / union as f64)
}

/// [`Overlap::rbo_ext`] of two lists of `lengths` whose X_d are `shared_to` (d = 1, 2, … up to
/// the longer length), with the weights of its persistence kept between comparisons; with
/// the papers both lists hold (X at the longer length). `None` when both lists are empty.
pub(super) fn rbo_ext_and_shared(
    lengths: (usize, usize),
    shared_to: impl Iterator<Item = u32>,
    weights: &mut Weights,
) -> Option<(f64, u32)> {
    let (s, l) = (lengths.0.min(lengths.1), lengths.0.max(lengths.1));
    if l == 0 {
        return None;
    }
    if s == 0 {
        return Some((0.0, 0));
    }
    weights.reach(l);
    // Σ X_d p^d/d, and for the second sum X_s (d − s)/(s d) p^d = X_s (p^d/s − p^d/d), the
    // sums of p^d and p^d/d beyond s.
    let (mut shared, mut seen, mut at_s, mut sum) = (0, 0.0, 0.0, 0.0);
    let (mut beyond_powers, mut beyond_over_d) = (0.0, 0.0);
    for (d, (shared_to_d, &(power, over_d))) in (1..).zip(shared_to.zip(&weights.of_depth[..l])) {
        shared = shared_to_d;
        seen = f64::from(shared_to_d);
        sum += seen * over_d;
        if d == s {
            at_s = seen;
        } else if d > s {
            beyond_powers += power;
            beyond_over_d += over_d;
        }
    }
    let p = weights.p;
    let (s, l) = (s as f64, l as f64);
    let sum = sum + at_s * (beyond_powers / s - beyond_over_d);
    let p_l = weights.of_depth[l as usize - 1].0;
    Some((
        (1.0 - p) / p * sum + ((seen - at_s) / l + at_s / s) * p_l,
        shared,
    ))
}

/// RBO's weights for one persistence p: (p^d, p^d/d) for d = 1, 2, …, as deep as asked.
#[derive(Debug, Clone)]
pub struct Weights {
    p: f64,
    of_depth: Vec<(f64, f64)>,
}

impl Weights {
    pub fn new(p: Persistence) -> Weights {
        Weights {
            p: p.get(),
            of_depth: Vec::new(),
        }
    }

    /// Makes the weights reach depth `depth`.
    fn reach(&mut self, depth: usize) {
        while self.of_depth.len() < depth {
            let power = self.of_depth.last().map_or(1.0, |&(power, _)| power) * self.p;
            self.of_depth
                .push((power, power / (self.of_depth.len() + 1) as f64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rbo(a: &[u32], b: &[u32]) -> Option<f64> {
        Overlap::of(a, b).rbo_ext(Persistence::DEFAULT)
    }

    #[test]
    fn identical_lists_agree_fully_and_disjoint_ones_not_at_all() {
        let list = [1, 2, 3, 4, 5, 6, 7, 8];
        assert!((rbo(&list, &list).unwrap() - 1.0).abs() < 1e-15);
        assert_eq!(Overlap::of(&list, &list).jaccard(), Some(1.0));
        assert_eq!(rbo(&[1, 2, 3], &[4, 5, 6]), Some(0.0));
        assert_eq!(Overlap::of(&[1, 2, 3], &[4, 5, 6]).jaccard(), Some(0.0));
    }

    /// A shorter list that is the longer one's head agrees fully: RBO extrapolates the
    /// agreement seen to the ranks the shorter list does not reach.
    #[test]
    fn a_prefix_agrees_fully() {
        assert!((rbo(&[1, 2, 3], &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap() - 1.0).abs() < 1e-15);
        assert_eq!(
            Overlap::of(&[1, 2, 3], &[1, 2, 3, 4, 5, 6, 7, 8]).jaccard(),
            Some(3.0 / 8.0)
        );
    }

    /// By hand, p = 0.5, [1 2] against [2 1]: X_1 = 0, X_2 = 2;
    /// (1 − p)/p · (0 + 2/2 · p²) + 2/2 · p² = 0.25 + 0.25.
    #[test]
    fn two_swapped_papers_by_hand() {
        let overlap = Overlap::of(&[1, 2], &[2, 1]);
        assert_eq!(overlap.rbo_ext(Persistence::new(0.5).unwrap()), Some(0.5));
        assert_eq!(overlap.shared(), 2);
    }

    #[test]
    fn empty_lists() {
        assert_eq!(rbo(&[], &[1, 2]), Some(0.0));
        assert_eq!(rbo(&[1], &[]), Some(0.0));
        assert_eq!(rbo(&[], &[]), None);
        assert_eq!(Overlap::of::<u32>(&[], &[]).jaccard(), None);
        assert_eq!(Overlap::of(&[], &[3]).jaccard(), Some(0.0));
    }

    #[test]
    fn persistence_is_strictly_between_0_and_1() {
        assert_eq!("0.9".parse::<Persistence>(), Ok(Persistence(0.9)));
        for wrong in ["0", "1", "1.5", "-0.1", "NaN", "inf", "", "nine"] {
            assert!(wrong.parse::<Persistence>().is_err(), "{wrong}");
        }
    }
}
