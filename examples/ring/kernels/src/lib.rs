//! Kernels of the ring example.
//!
//! Every PE owns symmetric buffers `source`, `received` and `returned` of `count` elements. PE `i`
//! puts its `source` into `received` on PE `i + 1` (mod the PE count), all PEs meet in a barrier,
//! then PE `i` gets `received` back from PE `i + 1` into its own `returned`, which must then equal
//! its `source`. Two kernels do this with different parts of the API:
//!
//! - `ring_block`: one block moves the whole buffer with block-cooperative `put`/`get`;
//! - `ring_elementwise`: every thread of the grid moves single elements with `p`/`g`.
//!
//! Both are safe kernels: no `unsafe` anywhere. Their launch descriptors (`RingBlock`,
//! `RingElementwise`) let the runner launch them with arguments checked against these signatures.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![forbid(unsafe_code)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use nvshmem_gpu::{SymmetricSlice, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Block, Pe, thread};

/// The PE a PE sends to: the next one around the ring.
pub fn next_pe(my_pe: i32, n_pes: i32) -> i32 {
    (my_pe + 1) % n_pes
}

/// Block-cooperative ring. Launch cooperatively with one block (any block size); every PE launches
/// it with buffers of one length.
#[kernel]
pub fn ring_block(
    source: SymmetricSlice<f32>,
    received: SymmetricSlice<f32>,
    returned: SymmetricSlice<f32>,
) {
    // ANCHOR: ring_block
    // Block 0 of each PE holds the right to the PE's barriers; the others have nothing to do.
    let Some(mut leader) = Block::leader() else {
        return;
    };
    let next = Pe::me().next();
    Block.put(received, source, next);
    leader.barrier_all();
    Block.get(returned, received, next);
    // ANCHOR_END: ring_block
}

/// Element-wise ring: thread `t` of the grid moves elements `t, t + grid size, …` with `p`, then the
/// grid meets in a barrier and reads them back with `g`. Launch cooperatively with one block.
#[kernel]
pub fn ring_elementwise(
    source: SymmetricSlice<f32>,
    received: SymmetricSlice<f32>,
    returned: SymmetricSlice<f32>,
) {
    let next = Pe::me().next();
    // ANCHOR: ring_p_g
    let stride = thread::grid_size_x();
    let first = thread::global_index_x();
    for i in (first..received.len()).step_by(stride) {
        received.p(i, source.read(i), next);
    }
    // The kernel runs as one block, block 0, which holds the PE's barriers: the whole block reaches
    // this barrier, once per PE; it also completes the `p` calls above.
    if let Some(mut leader) = Block::leader() {
        leader.barrier_all();
    }
    for i in (first..returned.len()).step_by(stride) {
        returned.write(i, received.g(i, next));
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
