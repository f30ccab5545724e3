//! Thread, block and grid indices, and block-wide synchronisation (CUDA's built-in variables).
//!
//! These read PTX special registers and exist only when compiling for `nvptx64`. Index arithmetic
//! that should be unit-tested on the CPU belongs in plain functions that take these values as
//! arguments.
//!
//! ```ignore
//! # fn example(n: usize) {
//! use nvshmem_gpu::thread;
//! let i = thread::global_index_x();
//! if i < n { /* one element per thread */ }
//! # }
//! ```
#![cfg(any(target_arch = "nvptx64", doc))]

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx;

macro_rules! special_registers {
    ($($(#[$doc:meta])* $name:ident => $intrinsic:ident;)*) => { $(
        $(#[$doc])*
        #[inline]
        pub fn $name() -> u32 {
            // SAFETY: reading a PTX special register has no preconditions inside a kernel.
            unsafe { nvptx::$intrinsic() as u32 }
        }
    )* };
}

special_registers! {
    /// `threadIdx.x`: this thread's index in its block, along x.
    thread_idx_x => _thread_idx_x;
    /// `threadIdx.y`.
    thread_idx_y => _thread_idx_y;
    /// `threadIdx.z`.
    thread_idx_z => _thread_idx_z;
    /// `blockIdx.x`: this block's index in the grid, along x.
    block_idx_x => _block_idx_x;
    /// `blockIdx.y`.
    block_idx_y => _block_idx_y;
    /// `blockIdx.z`.
    block_idx_z => _block_idx_z;
    /// `blockDim.x`: threads per block along x.
    block_dim_x => _block_dim_x;
    /// `blockDim.y`.
    block_dim_y => _block_dim_y;
    /// `blockDim.z`.
    block_dim_z => _block_dim_z;
    /// `gridDim.x`: blocks in the grid along x.
    grid_dim_x => _grid_dim_x;
    /// `gridDim.y`.
    grid_dim_y => _grid_dim_y;
    /// `gridDim.z`.
    grid_dim_z => _grid_dim_z;
}

/// `blockIdx.x * blockDim.x + threadIdx.x`: this thread's index in the whole grid, along x.
#[inline]
pub fn global_index_x() -> usize {
    block_idx_x() as usize * block_dim_x() as usize + thread_idx_x() as usize
}

/// `blockIdx.y * blockDim.y + threadIdx.y`: this thread's index in the whole grid, along y.
#[inline]
pub fn global_index_y() -> usize {
    block_idx_y() as usize * block_dim_y() as usize + thread_idx_y() as usize
}

/// `gridDim.x * blockDim.x`: the number of threads in the grid along x (the stride of grid-stride
/// loops).
#[inline]
pub fn grid_size_x() -> usize {
    grid_dim_x() as usize * block_dim_x() as usize
}

/// `gridDim.x * gridDim.y * gridDim.z`: the number of blocks in the grid.
#[inline]
pub fn blocks_in_grid() -> u32 {
    grid_dim_x() * grid_dim_y() * grid_dim_z()
}

/// `threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)`: this thread's rank in its
/// block.
#[inline]
pub fn rank_in_block() -> u32 {
    thread_idx_x() + block_dim_x() * (thread_idx_y() + block_dim_y() * thread_idx_z())
}

/// `__syncthreads()`: waits until every thread of the block arrives, and makes their earlier writes to
/// shared and global memory visible to each other.
///
/// Safe, as in rust-cuda's `cuda_std`: on the architectures this crate builds for (`sm_70` and
/// later) a block barrier counts threads, not warps, so one that not every thread of the block
/// reaches waits for the missing threads (a hang) and touches no memory.
#[inline]
pub fn sync_threads() {
    // SAFETY: `bar.sync 0` has no memory operands; see above for divergence.
    unsafe { nvptx::_syncthreads() }
}

/// `%laneid`: this thread's index in its warp, `0..32`.
#[inline]
pub fn lane_id() -> u32 {
    let lane: u32;
    // SAFETY: reading a PTX special register has no preconditions inside a kernel.
    unsafe {
        core::arch::asm!("mov.u32 {lane}, %laneid;", lane = out(reg32) lane, options(nomem, nostack))
    };
    lane
}

/// `__syncwarp()`: waits until every thread of the warp arrives, and orders their memory accesses
/// before it with those after it.
///
/// # Safety
/// Every thread of the warp reaches the same call.
#[inline]
pub unsafe fn sync_warp() {
    // SAFETY: the caller guarantees the whole warp reaches this call; the asm may touch memory as
    // far as the compiler knows, so no access moves across it.
    unsafe { core::arch::asm!("bar.warp.sync -1;", options(nostack)) };
}
