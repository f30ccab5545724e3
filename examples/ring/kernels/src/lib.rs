//! Kernels of the ring example.
//!
//! Every PE owns symmetric buffers `source`, `received` and `returned` of `count` elements. PE `i`
//! puts its `source` into `received` on PE `i + 1` (mod the PE count), all PEs meet in a barrier,
//! then PE `i` gets `received` back from PE `i + 1` into its own `returned`, which must then equal
//! its `source`. Two kernels do this with different parts of the API:
//!
//! - [`ring_block`]: one block moves the whole buffer with block-cooperative `put`/`get`;
//! - [`ring_elementwise`]: every thread of the grid moves single elements with `p`/`g`.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use nvshmem_gpu::{SymmetricPtr, kernel, pe, rma, sync, thread};

/// The PE a PE sends to: the next one around the ring.
pub fn next_pe(my_pe: i32, n_pes: i32) -> i32 {
    (my_pe + 1) % n_pes
}

/// Block-cooperative ring. Launch cooperatively with one block (any block size).
///
/// # Safety
/// `source`, `received` and `returned` hold `count` elements on every PE; every PE launches it.
#[kernel]
pub unsafe fn ring_block(
    source: SymmetricPtr<f32>,
    received: SymmetricPtr<f32>,
    returned: SymmetricPtr<f32>,
    count: usize,
) {
    if thread::block_idx_x() != 0 {
        return;
    }
    // ANCHOR: ring_block
    let next = next_pe(pe::my_pe(), pe::n_pes());
    // SAFETY: every thread of block 0 calls each of these with the same arguments; the buffers hold
    // `count` elements on every PE (the caller's contract); `next` is a valid PE; every PE's block 0
    // reaches the barrier once.
    unsafe {
        rma::block::put(received, source.as_ptr(), count, next);
        sync::barrier_all_block();
        rma::block::get(returned.as_ptr(), received, count, next);
    }
    // ANCHOR_END: ring_block
}

/// Element-wise ring: thread `t` of the grid moves elements `t, t + grid size, …` with `p`, then the
/// grid meets in a barrier and reads them back with `g`. Launch cooperatively with one block.
///
/// # Safety
/// As for [`ring_block`].
#[kernel]
pub unsafe fn ring_elementwise(
    source: SymmetricPtr<f32>,
    received: SymmetricPtr<f32>,
    returned: SymmetricPtr<f32>,
    count: usize,
) {
    let next = next_pe(pe::my_pe(), pe::n_pes());
    // ANCHOR: ring_p_g
    let stride = thread::grid_size_x();
    let first = thread::global_index_x();
    for i in (first..count).step_by(stride) {
        // SAFETY: `i < count`, so every address is inside the buffers on every PE; `next` is a PE.
        unsafe { rma::p(received.add(i), *source.as_ptr().add(i), next) };
    }
    // SAFETY: the kernel runs as one block (caller's launch contract), so the whole block reaches
    // this barrier, once per PE; it also completes the `p` calls above.
    unsafe { sync::barrier_all_block() };
    for i in (first..count).step_by(stride) {
        // SAFETY: as for the `p` loop; `returned` is local memory of `count` elements.
        unsafe { *returned.as_ptr().add(i) = rma::g(received.add(i), next) };
    }
    // ANCHOR_END: ring_p_g
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_ring_wraps_around() {
        assert_eq!(super::next_pe(0, 1), 0);
        assert_eq!(super::next_pe(2, 4), 3);
        assert_eq!(super::next_pe(3, 4), 0);
    }
}
