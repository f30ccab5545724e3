//! The debugging timeouts: a wait nobody answers and a barrier one PE stays away from, each of
//! which must trap.

use nvshmem_gpu::{SymmetricPtr, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use crate::tid;
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Cmp, p2p, pe, sync};

/// Waits for a flag nobody sets, with a budget: must trap with a message naming this PE.
///
/// # Safety
/// `flag` is a zeroed symmetric `u64`; every PE launches it cooperatively as one block.
#[kernel]
pub unsafe fn wait_for_nobody(flag: SymmetricPtr<u64>, budget_cycles: u64) {
    if tid() == 0 {
        // SAFETY: `flag` is symmetric; the wait traps when its budget runs out.
        unsafe { p2p::wait_until_timeout(flag, Cmp::Eq, 1, budget_cycles) };
    }
}

/// A debugging barrier that the last PE skips: every other PE must trap with a message naming it.
///
/// # Safety
/// `workspace` holds `MAX_PES + 1` zeroed symmetric words; every PE launches it cooperatively as
/// one block.
#[kernel]
pub unsafe fn barrier_missing_last_pe(workspace: SymmetricPtr<u64>, budget_cycles: u64) {
    // ANCHOR: barrier_in_branch
    if pe::my_pe() != pe::n_pes() - 1 {
        // SAFETY: the workspace is as documented; the barrier traps when its budget runs out.
        unsafe { sync::barrier_all_block_timeout(workspace, budget_cycles) };
    }
    // ANCHOR_END: barrier_in_branch
}
