//! Ordering and synchronisation: `quiet`, `fence`, `flush` (NVSHMEM 3.7 and later), `barrier_all`,
//! `sync_all`, team barriers and syncs (NVSHMEM: "Memory ordering routines" and "Collective communication routines: barriers").
//!
//! Barriers and syncs wait for other PEs: a kernel that calls them must be launched cooperatively
//! (the host crate's `launch_cooperative`), so that all its blocks are resident at once. A barrier
//! also completes the caller's outstanding transfers first (as [`quiet`]); a sync only waits.
//!
//! Scopes are in the names: `barrier_all` is called by one thread, `barrier_all_warp` by every
//! thread of one warp, `barrier_all_block` by every thread of one block, `barrier_warpgroup` by the
//! four warps of a warpgroup (sm_90: 128 consecutive threads). NVSHMEM has no other combinations
//! (no warpgroup `sync`, no warpgroup `barrier_all`), so writing one is a compile error:
//!
//! ```
//! # unsafe fn f() {
//! unsafe { nvshmem_gpu::sync::barrier_warpgroup(nvshmem_gpu::Team::WORLD) };
//! # }
//! ```
//!
//! ```compile_fail,E0425
//! # unsafe fn f() {
//! unsafe { nvshmem_gpu::sync::team_sync_warpgroup(nvshmem_gpu::Team::WORLD) };
//! # }
//! ```
//!
//! With several PEs per GPU, team barriers and syncs need NVSHMEM's full multi-process-per-GPU mode
//! (MPS, with `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` ≤ 100 / PEs per GPU in each PE's environment);
//! `barrier_all` and `sync_all` work without it.
//!
//! `barrier_all_timeout` (GPU target only) is a debugging barrier that traps instead of hanging when a PE never
//! arrives.

use crate::call_scope::Scope;
use crate::checks::wrapper_name;
use crate::ffi;
use crate::team::Team;

/// Completes every outstanding put, `_nbi` transfer and atomic this thread issued (`nvshmem_quiet`).
///
/// Safe: its only precondition, a module initialised for NVSHMEM, holds for every kernel this crate
/// links (the host crate initialises each module it loads before any launch), as for
/// [`crate::pe::my_pe`].
#[inline]
pub fn quiet() {
    // SAFETY: the module is initialised (see above); the call reads NVSHMEM's state only.
    unsafe { ffi::nvshmem_quiet() }
}

/// Orders this thread's puts to each PE: earlier ones arrive before later ones (`nvshmem_fence`).
/// Safe for the reason [`quiet`] is.
#[inline]
pub fn fence() {
    // SAFETY: as for `quiet`.
    unsafe { ffi::nvshmem_fence() }
}

/// Waits until the sources of this thread's earlier non-blocking puts may be reused, without
/// making the puts visible at their targets: [`quiet`] before a remote PE reads them
/// (`nvshmemx_flush`; NVSHMEM 3.7 and later, the crate's `nvshmem-3-7` feature). Safe for the
/// reason [`quiet`] is.
#[cfg(feature = "nvshmem-3-7")]
#[inline]
pub fn flush() {
    // SAFETY: as for `quiet`.
    unsafe { ffi::nvshmemx_flush() }
}

/// [`flush`] by the whole warp, for the warp's puts (`nvshmemx_flush_warp`).
///
/// # Safety
/// As for [`quiet`]; every thread of the warp calls it.
#[cfg(feature = "nvshmem-3-7")]
#[inline]
pub unsafe fn flush_warp() {
    // SAFETY: the caller's contract above.
    unsafe { ffi::nvshmemx_flush_warp() }
}

/// [`flush`] by the whole block, for the block's puts (`nvshmemx_flush_block`).
///
/// # Safety
/// As for [`quiet`]; every thread of the block calls it.
#[cfg(feature = "nvshmem-3-7")]
#[inline]
pub unsafe fn flush_block() {
    // SAFETY: the caller's contract above.
    unsafe { ffi::nvshmemx_flush_block() }
}

macro_rules! collective_waits {
    ($(
        $(#[$doc:meta])*
        $name:ident => $c:ident, $scope:ident, $who:literal;
    )*) => { $(
        $(#[$doc])*
        ///
        /// # Safety
        #[doc = concat!("Called by ", $who, " on every PE, in the same order relative to other")]
        /// collective calls, from a cooperatively launched kernel; otherwise the PEs deadlock.
        #[inline]
        pub unsafe fn $name() {
            // SAFETY: the caller's contract above.
            unsafe {
                crate::deadline::meet(wrapper_name!(stringify!($name)), Scope::$scope, Team::WORLD);
                ffi::$c()
            }
        }
    )* };
}

collective_waits! {
    /// Completes this thread's outstanding transfers, then waits until every PE arrives
    /// (`nvshmem_barrier_all`).
    barrier_all => nvshmem_barrier_all, Thread, "exactly one thread";
    /// [`barrier_all`] for a whole warp (`nvshmemx_barrier_all_warp`).
    barrier_all_warp => nvshmemx_barrier_all_warp, Warp, "every thread of exactly one warp";
    /// [`barrier_all`] for a whole block (`nvshmemx_barrier_all_block`).
    barrier_all_block => nvshmemx_barrier_all_block, Block, "every thread of exactly one block";
    /// Waits until every PE arrives, without completing transfers (`nvshmem_sync_all`).
    sync_all => nvshmem_sync_all, Thread, "exactly one thread";
    /// [`sync_all`] for a whole warp (`nvshmemx_sync_all_warp`).
    sync_all_warp => nvshmemx_sync_all_warp, Warp, "every thread of exactly one warp";
    /// [`sync_all`] for a whole block (`nvshmemx_sync_all_block`).
    sync_all_block => nvshmemx_sync_all_block, Block, "every thread of exactly one block";
}

macro_rules! team_waits {
    ($(
        $(#[$doc:meta])*
        $name:ident => $c:ident, $($scope:ident)?, $who:literal;
    )*) => { $(
        $(#[$doc])*
        ///
        /// # Safety
        #[doc = concat!("Called by ", $who, " on every PE of `team` (which includes this PE), in")]
        /// the same order relative to other collective calls on the team, from a cooperatively
        /// launched kernel; otherwise the PEs deadlock.
        #[inline]
        pub unsafe fn $name(team: Team) {
            // SAFETY: the caller's contract above. The status is always 0 on the device.
            let _ = unsafe {
                $(crate::deadline::meet(wrapper_name!(stringify!($name)), Scope::$scope, team);)?
                ffi::$c(team.raw())
            };
        }
    )* };
}

team_waits! {
    /// Completes this thread's outstanding transfers, then waits until every PE of `team` arrives
    /// (`nvshmem_barrier`).
    barrier => nvshmem_barrier, Thread, "exactly one thread";
    /// [`barrier`] for a whole warp (`nvshmemx_barrier_warp`).
    barrier_warp => nvshmemx_barrier_warp, Warp, "every thread of exactly one warp";
    /// [`barrier`] for a warpgroup: four consecutive, aligned warps (`nvshmemx_barrier_warpgroup`).
    /// The only barrier without the `checks` feature's deadline: its four warps have no barrier of
    /// their own to gather at without taking a named barrier that NVSHMEM or the kernel may use.
    barrier_warpgroup => nvshmemx_barrier_warpgroup, , "every thread of exactly one warpgroup";
    /// [`barrier`] for a whole block (`nvshmemx_barrier_block`).
    barrier_block => nvshmemx_barrier_block, Block, "every thread of exactly one block";
    /// Waits until every PE of `team` arrives, without completing transfers (`nvshmem_team_sync`).
    team_sync => nvshmem_team_sync, Thread, "exactly one thread";
    /// [`team_sync`] for a whole warp (`nvshmemx_team_sync_warp`).
    team_sync_warp => nvshmemx_team_sync_warp, Warp, "every thread of exactly one warp";
    /// [`team_sync`] for a whole block (`nvshmemx_team_sync_block`).
    team_sync_block => nvshmemx_team_sync_block, Block, "every thread of exactly one block";
}

/// A debugging barrier over all PEs that traps instead of hanging: completes this thread's
/// transfers ([`quiet`]), tells every PE it arrived, and waits for every PE's arrival with a budget
/// of `budget_cycles` GPU clock cycles per PE. When a PE does not arrive in time it prints
///
/// ```text
/// nvshmem-gpu: PE 0 (block 0, thread 0): barrier_all_timeout gave up after 2000000000 cycles: PE 3 of 4 has not arrived at barrier 1
/// ```
///
/// and traps, so the launch fails on the host and the launcher ends the job.
///
/// It is built from signals, not NVSHMEM's barrier: `workspace` holds `n_pes() + 1` zeroed `u64`s on
/// every PE (word `q` records PE `q`'s arrivals, the last word this PE's barrier count), used for
/// nothing else; the same workspace serves every call. It costs `n_pes()` signals per call: a
/// debugging aid, not a fast barrier.
///
/// # Safety
/// `workspace` is as described; exactly one thread per PE calls it, every PE the same number of
/// times, from a cooperatively launched kernel.
#[cfg(target_arch = "nvptx64")]
pub unsafe fn barrier_all_timeout(workspace: crate::SymmetricPtr<u64>, budget_cycles: u64) {
    use crate::p2p::Cmp;
    use crate::signal;
    let (me, n) = (crate::pe::my_pe(), crate::pe::n_pes());
    // SAFETY: the workspace holds `n + 1` words (caller), so every offset below is inside it; the
    // signals go to valid PEs `0..n`.
    unsafe {
        quiet();
        let count = workspace.add(n as usize).as_ptr();
        let epoch = core::ptr::read_volatile(count) + 1;
        core::ptr::write_volatile(count, epoch);
        let mine = workspace.add(me as usize);
        for pe in 0..n {
            signal::signal_op(mine, epoch, signal::SignalOp::Set, pe);
        }
        quiet();
        let start = crate::debug::clock64();
        for pe in 0..n {
            let word = workspace.add(pe as usize);
            while !crate::p2p::test(word, Cmp::Ge, epoch) {
                if crate::debug::clock64().wrapping_sub(start) > budget_cycles {
                    crate::debug::barrier_timed_out(pe, n, epoch, budget_cycles);
                }
            }
        }
    }
}

/// [`barrier_all_timeout`] for a whole block: every thread of the block calls it, thread 0 does the
/// barrier, and the block waits for it (`__syncthreads` before and after).
///
/// # Safety
/// As for [`barrier_all_timeout`], called by every thread of exactly one block per PE.
#[cfg(target_arch = "nvptx64")]
pub unsafe fn barrier_all_block_timeout(workspace: crate::SymmetricPtr<u64>, budget_cycles: u64) {
    // SAFETY: the whole block reaches both syncs (caller's contract); one thread per PE does the
    // barrier.
    unsafe {
        crate::thread::sync_threads();
        if crate::thread::rank_in_block() == 0 {
            barrier_all_timeout(workspace, budget_cycles);
        }
        crate::thread::sync_threads();
    }
}
