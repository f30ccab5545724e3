//! The bandwidth kernels on nvshmem-gpu's safe layer: the same shares, transfers and `quiet` as
//! `put_bw_*` and `get_bw_*`, with the buffers as `SymmetricSlice`s (the launch passes the range a
//! launch moves) and the peer checked into a `Pe`. No `unsafe` here; `micro --safe` runs them in
//! the raw kernels' place, so that the two can be compared side by side.

use crate::share;
use nvshmem_gpu::{SymmetricSlice, kernel};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Block, Pe, Thread, Warp, thread};

/// The range of `total` elements that worker `index` of `workers` moves.
fn share_range(total: usize, workers: usize, index: usize) -> core::ops::Range<usize> {
    let (first, count) = share(total, workers, index);
    first..first + count
}

/// `put_bw_block`: block `b` puts its share of `dest.len()` elements, `iters` times; then the
/// block's first thread calls `quiet`. A `peer` that is not a PE moves nothing.
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
    if !share.is_empty() {
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
    if !share.is_empty() {
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
    if !share.is_empty() {
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
    if !share.is_empty() {
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
    if !share.is_empty() {
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
    if !share.is_empty() {
        let (dest, source) = (dest.range(share.clone()), source.range(share));
        for _ in 0..iters {
            // Completed below.
            let _pending = Thread.get_nbi(dest, source, peer);
        }
    }
    nvshmem_gpu::sync::quiet();
}
