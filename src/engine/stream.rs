//! Random streams: one named, portable generator per chunk, so results depend on (seed, chunk)
//! and never on which thread played the chunk.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator every trial draws from: xoshiro256++.
pub type Stream = Xoshiro256PlusPlus;

/// SplitMix64's output function: a bijective mixer, so distinct inputs give distinct outputs.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream of chunk `chunk` of a run seeded with `seed`.
///
/// The 256-bit state is four SplitMix64 outputs from a start that mixes the seed, then the
/// chunk index, so neighbouring seeds and chunks start far apart in the generator's period.
pub fn chunk_stream(seed: u64, chunk: u64) -> Stream {
    trial_stream(mix(mix(seed) ^ chunk))
}

/// A stream seeded from one word: used to give every choice of a trial the same draws.
pub fn trial_stream(word: u64) -> Stream {
    let mut state = word;
    let mut seed = [0u8; 32];
    for part in seed.chunks_exact_mut(8) {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        part.copy_from_slice(&mix(state.wrapping_sub(0x9E37_79B9_7F4A_7C15)).to_le_bytes());
    }
    Stream::from_seed(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn streams_are_pinned() {
        // Value stability: these words are part of the output format. If they change, every
        // published result changes; bump the version and say so.
        let mut s = chunk_stream(1, 0);
        let words: Vec<u64> = (0..3).map(|_| s.next_u64()).collect();
        let mut again = chunk_stream(1, 0);
        assert_eq!(words, (0..3).map(|_| again.next_u64()).collect::<Vec<_>>());
        assert_ne!(chunk_stream(1, 1).next_u64(), words[0]);
        assert_ne!(chunk_stream(2, 0).next_u64(), words[0]);
    }

    #[test]
    fn xoshiro_matches_its_reference_vector() {
        // Reference: state {1, 2, 3, 4} gives 41943041, 58720359 first (xoshiro256++ paper's
        // C code run by hand).
        let mut seed = [0u8; 32];
        for (i, part) in seed.chunks_exact_mut(8).enumerate() {
            part.copy_from_slice(&(i as u64 + 1).to_le_bytes());
        }
        let mut s = Stream::from_seed(seed);
        assert_eq!(s.next_u64(), 41943041);
        assert_eq!(s.next_u64(), 58720359);
    }
}
