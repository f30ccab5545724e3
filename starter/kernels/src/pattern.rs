//! What each PE sends and to whom: plain arithmetic, shared by the kernel and the host's check
//! (`src/main.rs` uses it through the kernel crate), and tested on the CPU by the program's
//! `cargo test` (`tests/pattern.rs`).

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
