//! The kernels of nvshmem-starter, compiled for the GPU by `nvshmem-builder` (see `../build.rs`).
//!
//! Every PE owns two symmetric buffers of `count` elements, `source` and `received`. The kernel
//! fills `source` with this PE's [`pattern`], puts it into `received` on the next PE, and waits in a
//! barrier until every PE has done so; the host then checks `received`.
//!
//! The crate is `no_std` only for the GPU, so that `cargo test` can run its arithmetic on the CPU.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

pub mod pattern;

use nvshmem_gpu::{SymmetricPtr, kernel, pe, rma, sync, thread};

/// Fills `source` with this PE's pattern, puts it into the next PE's `received`, and waits until
/// every PE's block has arrived. Launch it cooperatively, one block (of any size) per PE.
///
/// # Safety
/// `source` and `received` hold `count` elements on every PE, `count < PE_STRIDE`, and every PE
/// launches this kernel.
#[kernel]
pub unsafe fn send_to_next(source: SymmetricPtr<u64>, received: SymmetricPtr<u64>, count: usize) {
    // One block does the work: the block-wide put and barrier below need every thread of one block.
    if thread::block_idx_x() != 0 {
        return;
    }
    let me = pe::my_pe();
    let first = thread::thread_idx_x() as usize;
    let stride = thread::block_dim_x() as usize;
    for i in (first..count).step_by(stride) {
        // SAFETY: `i < count`, and `source` holds `count` elements on this PE.
        unsafe { *source.as_ptr().add(i) = pattern::value(me, i) };
    }
    // SAFETY: every thread of block 0 reaches each call once with the same arguments; the buffers
    // hold `count` elements on every PE (the caller's contract); `next_pe` is a valid PE; every PE
    // launches the kernel, so every PE's block 0 reaches the barrier.
    unsafe {
        // The put reads elements that other threads wrote.
        thread::sync_threads();
        rma::block::put(
            received,
            source.as_ptr(),
            count,
            pattern::next_pe(me, pe::n_pes()),
        );
        // Completes the put, then waits for every PE: afterwards `received` holds the block sent by
        // the previous PE.
        sync::barrier_all_block();
    }
}
