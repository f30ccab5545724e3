//! The kernels of nvshmem-starter, compiled for the GPU by `nvshmem-builder` (see `../build.rs`).
//!
//! Every PE owns two symmetric buffers of the same length, `source` and `received`. The kernel
//! fills `source` with this PE's [`pattern`], puts it into `received` on the next PE, and waits in a
//! barrier until every PE has done so; the host then checks `received`.
//!
//! The crate is `no_std` only for the GPU, so that its arithmetic also runs on the CPU: in the host
//! program, and in unit tests beside it (as [`pattern`]'s), which `cargo test` in the project runs.
//! Kernel bodies exist only for the GPU: `cargo kernels-clippy` checks them (see the README).
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![forbid(unsafe_code)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

pub mod pattern;

use nvshmem_gpu::{SymmetricSlice, kernel};
// What the kernel uses exists only on the GPU, like the kernel itself.
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Block, Pe, thread};

/// Fills `source` with this PE's pattern, puts it into the next PE's `received`, and waits until
/// every PE's block has arrived. Launch it cooperatively, one block (of any size) per PE, with
/// buffers of fewer than `PE_STRIDE` elements.
///
/// Safe code throughout: the slices carry their lengths and are bounds-checked, the PE is a `Pe`,
/// and the launch (`run_cooperative` on the host) passes only buffers every PE allocated alike.
#[kernel]
pub fn send_to_next(source: SymmetricSlice<u64>, received: SymmetricSlice<u64>) {
    // One block does the work: the block-wide put and barrier below need every thread of one block,
    // and only block 0 holds the right to this PE's barriers.
    let Some(mut leader) = Block::leader() else {
        return;
    };
    let me = Pe::me();
    let first = thread::thread_idx_x() as usize;
    let stride = thread::block_dim_x() as usize;
    for i in (first..source.len()).step_by(stride) {
        source.write(i, pattern::value(me.index(), i));
    }
    // The put reads elements that other threads wrote.
    thread::sync_threads();
    Block.put(received, source, me.next());
    // Completes the put, then waits for every PE: afterwards `received` holds the block sent by the
    // previous PE.
    leader.barrier_all();
}
