//! Ordering and synchronisation: `quiet`, `fence`, `barrier_all`, `sync_all`
//! (NVSHMEM: "Memory ordering routines" and "Collective communication routines: barriers").
//!
//! Barriers and `sync_all` wait for other PEs: a kernel that calls them must be launched
//! cooperatively (the host crate's `launch_cooperative`), so that all its blocks are resident at once.

use crate::ffi;

/// Completes every outstanding put, `_nbi` transfer and atomic this thread issued (`nvshmem_quiet`).
///
/// # Safety
/// Only valid in a kernel of a module initialised for NVSHMEM (always true for modules loaded by the
/// host crate).
#[inline]
pub unsafe fn quiet() {
    // SAFETY: the caller's contract above.
    unsafe { ffi::nvshmem_quiet() }
}

/// Orders this thread's puts to each PE: earlier ones arrive before later ones (`nvshmem_fence`).
///
/// # Safety
/// As for [`quiet`].
#[inline]
pub unsafe fn fence() {
    // SAFETY: the caller's contract above.
    unsafe { ffi::nvshmem_fence() }
}

macro_rules! collective_waits {
    ($(
        $(#[$doc:meta])*
        $name:ident => $c:ident, $who:literal;
    )*) => { $(
        $(#[$doc])*
        ///
        /// # Safety
        #[doc = concat!("Called by ", $who, " on every PE, in the same order relative to other")]
        /// collective calls, from a cooperatively launched kernel; otherwise the PEs deadlock.
        #[inline]
        pub unsafe fn $name() {
            // SAFETY: the caller's contract above.
            unsafe { ffi::$c() }
        }
    )* };
}

collective_waits! {
    /// Completes this thread's outstanding transfers, then waits until every PE arrives
    /// (`nvshmem_barrier_all`).
    barrier_all => nvshmem_barrier_all, "exactly one thread";
    /// [`barrier_all`] for a whole warp (`nvshmemx_barrier_all_warp`).
    barrier_all_warp => nvshmemx_barrier_all_warp, "every thread of exactly one warp";
    /// [`barrier_all`] for a whole block (`nvshmemx_barrier_all_block`).
    barrier_all_block => nvshmemx_barrier_all_block, "every thread of exactly one block";
    /// Waits until every PE arrives, without completing transfers (`nvshmem_sync_all`).
    sync_all => nvshmem_sync_all, "exactly one thread";
    /// [`sync_all`] for a whole warp (`nvshmemx_sync_all_warp`).
    sync_all_warp => nvshmemx_sync_all_warp, "every thread of exactly one warp";
    /// [`sync_all`] for a whole block (`nvshmemx_sync_all_block`).
    sync_all_block => nvshmemx_sync_all_block, "every thread of exactly one block";
}
