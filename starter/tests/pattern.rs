//! The pattern the kernel writes and the host checks, tested on the CPU.

use nvshmem_starter_kernels::pattern::{PE_STRIDE, next_pe, previous_pe, value};

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
