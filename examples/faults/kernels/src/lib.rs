//! Kernels of the faults example. The crate is always built with `nvshmem-gpu`'s device checks
//! (the workspace's `build.rs` asks for them), which `put_to_missing_pe` trips,
//! `put_past_the_end` trips the safe layer's bounds check (on in every build), and whose
//! deadline on blocking calls `barrier_in_branch` and `wait_for_unset_flag` run into.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use nvshmem_gpu::{SymmetricPtr, SymmetricSlice, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Cmp, Pe, Thread, p2p, pe, rma, sync, thread};

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

/// The classic mistake: a barrier inside a branch that only PE `pe` takes. Without the device
/// checks that PE waits forever; with them its barrier times out and traps, naming the call. Launch
/// cooperatively with one block.
///
/// # Safety
/// None: the barrier is unmatched on purpose, and the device checks' deadline ends it.
#[kernel]
pub unsafe fn barrier_in_branch(pe: i32) {
    if thread::rank_in_block() == 0 && pe::my_pe() == pe {
        // SAFETY: none: the other PEs skip this barrier on purpose (see above).
        unsafe { sync::barrier_all() };
    }
}

/// PE `pe` waits for `flag` to become 1, which no PE ever sets: with the device checks the wait
/// times out and traps, naming the call, the flag and its value. Launch with one block.
///
/// # Safety
/// `flag` is a symmetric `u64` on every PE; the wait never ends without the device checks.
#[kernel]
pub unsafe fn wait_for_unset_flag(flag: SymmetricPtr<u64>, pe: i32) {
    if thread::rank_in_block() == 0 && pe::my_pe() == pe {
        // SAFETY: `flag` is symmetric (caller); nobody sets it, on purpose.
        unsafe { p2p::wait_until(flag, Cmp::Eq, 1) };
    }
}

/// Puts the element one past the end of `buffer` to the next PE: a safe kernel, whose slice's
/// bounds check traps in every build, naming the call, the range and the length.
#[kernel]
pub fn put_past_the_end(buffer: SymmetricSlice<f32>) {
    if thread::rank_in_block() == 0 {
        let end = buffer.len();
        let past = buffer.range(end..end + 1);
        Thread.put(past, past, Pe::me().next());
    }
}
