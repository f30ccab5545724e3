//! The bandwidth kernels on nvshmem-gpu's safe layer: the same shares, transfers and `quiet` as
//! `put_bw_*` and `get_bw_*`, with the buffers as `SymmetricSlice`s (the launch passes the range a
//! launch moves) and the peer checked into a `Pe`. No `unsafe` here; `micro --safe` runs them in
//! the raw kernels' place, so that the two can be compared side by side.
//!
//! Each kernel checks its share against both slices once, before its loop, and moves nothing where
//! the source does not hold it (the receiver's data check then fails); past that check the loop is
//! the raw kernel's, down to the machine code.

use crate::share;
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Block, Pe, Thread, Warp, thread};
use nvshmem_gpu::{SymmetricSlice, kernel};

/// The range of `total` elements that worker `index` of `workers` moves.
fn share_range(total: usize, workers: usize, index: usize) -> core::ops::Range<usize> {
    let (first, count) = share(total, workers, index);
    first..first + count
}

/// Whether a worker has no transfers to make: no `iters`, or a `share` that is empty or that a slice
/// does not hold. Tested before the loop, so that `range`'s own checks fold away (no trap path,
/// whose message needs a stack frame); and tested in this negative form, as the raw kernels' `n > 0`
/// compiles, so that LLVM lays the loop out as theirs.
fn nothing_to_move(
    share: &core::ops::Range<usize>,
    iters: u32,
    dest: SymmetricSlice<u64>,
    source: SymmetricSlice<u64>,
) -> bool {
    iters == 0 || share.is_empty() || share.end > dest.len().min(source.len())
}

/// `put_bw_block`: block `b` puts its share of `dest.len()` elements, `iters` times; then the
/// block's first thread calls `quiet`. A `peer` that is not a PE moves nothing, nor does a block
/// whose share `source` does not hold.
#[kernel]
pub fn put_bw_block_safe(
    dest: SymmetricSlice<u64>,
    source: SymmetricSlice<u64>,
    iters: u32,
    peer: i32,
) {
    let Some(peer) = Pe::new(peer) else { return };
    let share = share_range(
        dest.len(),
        thread::grid_dim_x() as usize,
        thread::block_idx_x() as usize,
    );
    if !nothing_to_move(&share, iters, dest, source) {
        let (dest, source) = (dest.range(share.clone()), source.range(share));
        for _ in 0..iters {
            // Completed below, by one thread for the whole block.
            let _pending = Block.put_nbi(dest, source, peer);
        }
    }
    crate::quiet_once_per_block();
}

/// `get_bw_block` on the safe layer.
#[kernel]
pub fn get_bw_block_safe(
    dest: SymmetricSlice<u64>,
    source: SymmetricSlice<u64>,
    iters: u32,
    peer: i32,
) {
    let Some(peer) = Pe::new(peer) else { return };
    let share = share_range(
        dest.len(),
        thread::grid_dim_x() as usize,
        thread::block_idx_x() as usize,
    );
    if !nothing_to_move(&share, iters, dest, source) {
        let (dest, source) = (dest.range(share.clone()), source.range(share));
        for _ in 0..iters {
            // Completed below, by one thread for the whole block.
            let _pending = Block.get_nbi(dest, source, peer);
        }
    }
    crate::quiet_once_per_block();
}

/// `put_bw_warp` on the safe layer. Block size a multiple of 32.
#[kernel]
pub fn put_bw_warp_safe(
    dest: SymmetricSlice<u64>,
    source: SymmetricSlice<u64>,
    iters: u32,
    peer: i32,
) {
    let Some(peer) = Pe::new(peer) else { return };
    let (warp, warps) = crate::warp_in_grid();
    let share = share_range(dest.len(), warps, warp);
    if !nothing_to_move(&share, iters, dest, source) {
        let (dest, source) = (dest.range(share.clone()), source.range(share));
        for _ in 0..iters {
            // Completed below, by one thread for the whole block.
            let _pending = Warp.put_nbi(dest, source, peer);
        }
    }
    crate::quiet_once_per_block();
}

/// `get_bw_warp` on the safe layer. Block size a multiple of 32.
#[kernel]
pub fn get_bw_warp_safe(
    dest: SymmetricSlice<u64>,
    source: SymmetricSlice<u64>,
    iters: u32,
    peer: i32,
) {
    let Some(peer) = Pe::new(peer) else { return };
    let (warp, warps) = crate::warp_in_grid();
    let share = share_range(dest.len(), warps, warp);
    if !nothing_to_move(&share, iters, dest, source) {
        let (dest, source) = (dest.range(share.clone()), source.range(share));
        for _ in 0..iters {
            // Completed below, by one thread for the whole block.
            let _pending = Warp.get_nbi(dest, source, peer);
        }
    }
    crate::quiet_once_per_block();
}

/// `put_bw_thread` on the safe layer.
#[kernel]
pub fn put_bw_thread_safe(
    dest: SymmetricSlice<u64>,
    source: SymmetricSlice<u64>,
    iters: u32,
    peer: i32,
) {
    let Some(peer) = Pe::new(peer) else { return };
    let share = share_range(dest.len(), thread::grid_size_x(), thread::global_index_x());
    if !nothing_to_move(&share, iters, dest, source) {
        let (dest, source) = (dest.range(share.clone()), source.range(share));
        for _ in 0..iters {
            // Completed below.
            let _pending = Thread.put_nbi(dest, source, peer);
        }
    }
    nvshmem_gpu::sync::quiet();
}

/// `get_bw_thread` on the safe layer.
#[kernel]
pub fn get_bw_thread_safe(
    dest: SymmetricSlice<u64>,
    source: SymmetricSlice<u64>,
    iters: u32,
    peer: i32,
) {
    let Some(peer) = Pe::new(peer) else { return };
    let share = share_range(dest.len(), thread::grid_size_x(), thread::global_index_x());
    if !nothing_to_move(&share, iters, dest, source) {
        let (dest, source) = (dest.range(share.clone()), source.range(share));
        for _ in 0..iters {
            // Completed below.
            let _pending = Thread.get_nbi(dest, source, peer);
        }
    }
    nvshmem_gpu::sync::quiet();
}
