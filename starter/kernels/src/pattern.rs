//! What each PE sends and to whom: plain arithmetic, shared by the kernel and the host's check
//! (`src/main.rs` uses it through the kernel crate), and tested on the CPU by `cargo test` in the
//! project (the tests below).

/// The values of one PE's block start at `pe · PE_STRIDE`, so that a wrong value tells which PE
/// and index it came from. Blocks are shorter than this.
pub const PE_STRIDE: u64 = 1_000_000_000;

/// The value PE `pe` writes at index `i` of its block (`i < PE_STRIDE`).
pub fn value(pe: i32, i: usize) -> u64 {
    pe as u64 * PE_STRIDE + i as u64
}

/// The PE that `pe` sends to: the next one around the ring of `n_pes`.
pub fn next_pe(pe: i32, n_pes: i32) -> i32 {
    (pe + 1) % n_pes
}

/// The PE that `pe` receives from: the previous one around the ring of `n_pes`.
pub fn previous_pe(pe: i32, n_pes: i32) -> i32 {
    (pe + n_pes - 1) % n_pes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_wraps_around_both_ways() {
        assert_eq!((next_pe(0, 1), previous_pe(0, 1)), (0, 0));
        assert_eq!((next_pe(3, 4), previous_pe(0, 4)), (0, 3));
        assert_eq!((next_pe(1, 4), previous_pe(1, 4)), (2, 0));
    }

    #[test]
    fn every_pe_receives_from_the_pe_that_sends_to_it() {
        for n_pes in 1..=8 {
            for pe in 0..n_pes {
                assert_eq!(
                    previous_pe(next_pe(pe, n_pes), n_pes),
                    pe,
                    "{pe} of {n_pes}"
                );
            }
        }
    }

    #[test]
    fn blocks_of_different_pes_do_not_overlap() {
        assert_eq!(value(2, 5), 2_000_000_005);
        assert!(value(0, PE_STRIDE as usize - 1) < value(1, 0));
    }
}
