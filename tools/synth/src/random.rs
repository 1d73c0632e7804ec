//! The random streams and the few numeric helpers that every part of the study draws from.
//! Everything is plain integer and floating-point arithmetic, so the bytes are the same on
//! every platform.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Independent random streams, one per part of the study, so that e.g. the paper texts do not
/// shift when the recommendation algorithm changes, and an optional output leaves the others
/// as they are.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    Topics = 1,
    Text = 2,
    Targets = 3,
    Recommendations = 4,
    Ratings = 5,
    Retrained = 6,
    Chosen = 7,
}

pub fn rng_for(seed: u64, stream: Stream) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream as u64);
    rng
}

/// A roughly standard normal number (Irwin-Hall of four 16-bit uniforms): one draw, and
/// plain arithmetic only, so the result is the same on every platform.
pub fn gauss(rng: &mut ChaCha8Rng) -> f64 {
    let x = rng.next_u64();
    let sum = (x & 0xffff) + ((x >> 16) & 0xffff) + ((x >> 32) & 0xffff) + (x >> 48);
    ((sum as f64 + 2.0) / 65_536.0 - 2.0) * 1.732_050_807_568_877_2
}

/// A uniform number in [0, 1) from a 64-bit hash.
pub fn unit(x: u64) -> f64 {
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// SplitMix64's finaliser: a well-mixed hash of `x`.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
