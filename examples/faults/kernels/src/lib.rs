//! Kernels of the faults example.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use nvshmem_gpu::{kernel, sync, thread};

/// Waits in a device-side `barrier_all`: with a PE gone, the others spin here until the launcher
/// ends them. Launch cooperatively with one block.
///
/// # Safety
/// Every live PE launches it once.
#[kernel]
pub unsafe fn wait_in_barrier() {
    if thread::rank_in_block() == 0 {
        // SAFETY: one thread per PE, every PE launches this kernel once (cooperatively).
        unsafe { sync::barrier_all() };
    }
}
