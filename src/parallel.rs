//! Work spread over the cores with scoped threads: the leaderboard's scoring and resampling
//! are CPU-bound and independent per item, and a study fits in memory.

use std::num::NonZeroUsize;

/// How many threads the work is split into.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// `items.iter().map(work).collect()`, computed in one consecutive chunk per core; the
/// results come back in the order of `items`.
pub fn map<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let chunk = items.len().div_ceil(cores()).max(1);
    let mut chunks = items.chunks(chunk);
    let Some(own) = chunks.next() else {
        return Vec::new();
    };
    let work = &work;
    std::thread::scope(|scope| {
        let others: Vec<_> = chunks
            .map(|chunk| scope.spawn(move || chunk.iter().map(work).collect::<Vec<R>>()))
            .collect();
        // The calling thread takes the first chunk instead of waiting idle.
        let mut results: Vec<R> = own.iter().map(work).collect();
        for other in others {
            results.extend(other.join().expect("a worker never panics"));
        }
        results
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_order_of_the_items() {
        let items: Vec<u32> = (0..1001).collect();
        assert_eq!(
            map(&items, |i| i * 2),
            (0..1001).map(|i| i * 2).collect::<Vec<_>>()
        );
        assert_eq!(map(&[] as &[u32], |i| i * 2), Vec::<u32>::new());
        assert_eq!(map(&[7], |i| i + 1), vec![8]);
    }
}
