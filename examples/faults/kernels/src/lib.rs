//! Kernels of the faults example. The crate is always built with `nvshmem-gpu`'s device checks
//! (the workspace's `build.rs` asks for them), which [`put_to_missing_pe`] trips.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use nvshmem_gpu::{SymmetricPtr, kernel, pe, rma, sync, thread};

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

/// Puts `count` elements of `buffer` into `buffer` on PE `n_pes()`, which does not exist, with a
/// block-cooperative `put_nbi`: the device check traps before NVSHMEM sees the PE. Launch with one
/// block.
///
/// # Safety
/// `buffer` holds `count` elements on every PE. With the device checks off this is exactly the
/// out-of-range access they exist to catch.
#[kernel]
pub unsafe fn put_to_missing_pe(buffer: SymmetricPtr<f32>, count: usize) {
    let missing = pe::n_pes();
    // SAFETY: none: `missing` is out of range on purpose, and the check traps first (the crate is
    // built with checks). Every thread of the one block calls it with the same arguments.
    unsafe {
        rma::block::put_nbi(buffer, buffer.as_ptr(), count, missing);
        sync::quiet();
    }
}
